// File: server/log/json_lines.h
//
// --log-format json (docs/deploy.md, "Configuration"): every log line as one JSON object, for
// log pipelines (Loki, Elasticsearch, Cloud Logging) that parse fields instead of text:
//
//   {"time":"2026-12-06T16:42:03.123Z","level":"info","message":"chunkforge-server: world ..."}
//
// Time in UTC with milliseconds; the level as spdlog names it; the message escaped as JSON
// requires (quotes, backslashes, control bytes), so no message can break its line or forge a
// field. Client text reaches a message only through log_client(), already printable ASCII.
#pragma once

#include <spdlog/formatter.h>

#include <memory>

namespace chunkforge::server {

class JsonLines final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override;
  std::unique_ptr<spdlog::formatter> clone() const override { return std::make_unique<JsonLines>(); }
};

// Every logger's lines as JSON from now on.
void log_json_lines();

}  // namespace chunkforge::server
