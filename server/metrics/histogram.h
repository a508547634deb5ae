// File: server/metrics/histogram.h
//
// A Prometheus histogram of durations in seconds: fixed bucket bounds, atomic counts, observed
// from any thread without a lock, rendered as its _bucket (cumulative), _sum and _count samples.
//
//   Histogram h({0.001, 0.01, 0.1, 1.0});
//   h.observe(0.004);
//   h.render(page, "generation_seconds", "");               // ..._bucket{le="0.001"} 0
//   h.render(page, "call_seconds", "method=\"GetChunk\"");  // ..._bucket{method="GetChunk",le="0.001"} 0
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "metrics/metrics_page.h"

namespace chunkforge::server {

class Histogram {
 public:
  explicit Histogram(std::vector<double> bounds)
      : bounds_(std::move(bounds)), buckets_(std::make_unique<std::atomic<uint64_t>[]>(bounds_.size() + 1)) {}

  void observe(double seconds) {
    size_t bucket = 0;
    while (bucket < bounds_.size() && seconds > bounds_[bucket]) ++bucket;
    ++buckets_[bucket];
    ++count_;
    micros_ += static_cast<uint64_t>(seconds * 1e6);
  }

  uint64_t count() const { return count_; }

  // The samples of chunkforge_`name` (its header is the caller's: one for every label set), each
  // with `labels` ("" or `key="value",...`) before its le.
  void render(MetricsPage& page, std::string_view name, std::string_view labels) const {
    const std::string_view comma = labels.empty() ? "" : ",";
    uint64_t cumulative = 0;
    for (size_t b = 0; b <= bounds_.size(); ++b) {
      cumulative += buckets_[b];
      page.out << "chunkforge_" << name << "_bucket{" << labels << comma << "le=\"";
      if (b < bounds_.size()) {
        page.out << bounds_[b];
      } else {
        page.out << "+Inf";
      }
      page.out << "\"} " << cumulative << '\n';
    }
    const std::string_view braces_open = labels.empty() ? "" : "{", braces_close = labels.empty() ? "" : "}";
    page.out << "chunkforge_" << name << "_sum" << braces_open << labels << braces_close << ' '
             << static_cast<double>(micros_) / 1e6 << '\n'
             << "chunkforge_" << name << "_count" << braces_open << labels << braces_close << ' ' << count_ << '\n';
  }

 private:
  const std::vector<double> bounds_;
  std::unique_ptr<std::atomic<uint64_t>[]> buckets_;
  std::atomic<uint64_t> count_{0}, micros_{0};
};

}  // namespace chunkforge::server
