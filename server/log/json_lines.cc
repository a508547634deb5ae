// Log lines as JSON (see json_lines.h).
#include "log/json_lines.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <string_view>

namespace chunkforge::server {
namespace {

void append(spdlog::memory_buf_t& dest, std::string_view text) { dest.append(text.data(), text.data() + text.size()); }

// `text` as the inside of a JSON string.
void append_escaped(spdlog::memory_buf_t& dest, std::string_view text) {
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      dest.push_back('\\');
      dest.push_back(c);
    } else if (byte < 0x20 || byte == 0x7f) {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\u%04x", byte);
      append(dest, escape);
    } else {
      dest.push_back(c);
    }
  }
}

// 2026-12-06T16:42:03.123Z
void append_time(spdlog::memory_buf_t& dest, spdlog::log_clock::time_point when) {
  const auto since_epoch = when.time_since_epoch();
  const std::time_t seconds = std::chrono::duration_cast<std::chrono::seconds>(since_epoch).count();
  const auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(since_epoch).count() % 1000;
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[40];
  const size_t n = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
  std::snprintf(text + n, sizeof text - n, ".%03dZ", static_cast<int>(millis));
  append(dest, text);
}

}  // namespace

void JsonLines::format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) {
  append(dest, "{\"time\":\"");
  append_time(dest, msg.time);
  append(dest, "\",\"level\":\"");
  const spdlog::string_view_t level = spdlog::level::to_string_view(msg.level);
  append(dest, std::string_view(level.data(), level.size()));
  append(dest, "\",\"message\":\"");
  append_escaped(dest, std::string_view(msg.payload.data(), msg.payload.size()));
  append(dest, "\"}\n");
}

void log_json_lines() { spdlog::set_formatter(std::make_unique<JsonLines>()); }

}  // namespace chunkforge::server
