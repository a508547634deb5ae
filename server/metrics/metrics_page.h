// File: server/metrics/metrics_page.h
//
// The Prometheus text format, a metric at a time: its HELP and TYPE lines, then its samples.
// Names given without a prefix are the server's own (chunkforge_...); process_* metrics, whose
// names every exporter shares, are written with their full names (full_header).
#pragma once

#include <sstream>
#include <string_view>

namespace chunkforge::server {

struct MetricsPage {
  std::ostringstream out;

  void full_header(std::string_view name, const char* type, const char* help) {
    out << "# HELP " << name << ' ' << help << "\n# TYPE " << name << ' ' << type << '\n';
  }
  void header(std::string_view name, const char* type, const char* help) {
    out << "# HELP chunkforge_" << name << ' ' << help << "\n# TYPE chunkforge_" << name << ' ' << type << '\n';
  }
  template <typename Value>
  void single(std::string_view name, const char* type, const char* help, Value value) {
    header(name, type, help);
    out << "chunkforge_" << name << ' ' << value << '\n';
  }
};

}  // namespace chunkforge::server
