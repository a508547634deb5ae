// File: server/log/client_log.h
//
// Log lines a client can cause (docs/server.md, "Log lines a client can cause"): anything the
// server logs on behalf of a request, a connection, a session or an HTTP request, or for a
// failure a client's input can trigger. No client may make the log grow faster than an operator
// can read it, fill the disk or spend the server's cores writing it, so each such line goes
// through log_client() and is:
//
//  - short: at most kMaxMessageBytes of message, so at most 512 bytes with spdlog's time and
//    level prefix; a longer one is cut and says how long it was ("... (N bytes)");
//  - printable ASCII: every other byte becomes \xNN, so no input can forge or split a line;
//  - rate limited per kind: a token bucket of kBurstLines refilled at kLinesPerSecond for each
//    LogKind. A line past it is not formatted, only counted (chunkforge_log_lines_suppressed_total
//    in /metrics), and the next line of its kind that goes says how many were left out.
//
// Client text inside a line, or inside a status message sent back to a client, is quoted with
// quote_client (at most kQuotedClientBytes of it) or quote_client_list. Lines an operator causes
// (start-up, flags, shutdown, the edit store going down or coming back) call spdlog directly;
// tests/server/log_lines_limited_test.cc fails on any other server source that does.
//
//   log_client(LogKind::kSessionStarted, spdlog::level::info, "session started ({})", context->peer());
//   return "the client's fingerprint " + quote_client(client.fingerprint()) + " is not ...";
//
// Thread-safe. Process-wide, as spdlog's default logger is: every server in a process shares the
// buckets and counters.
#pragma once

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

namespace chunkforge::server {

// The kinds of line a client can cause, each rate limited on its own: a flood of one kind
// leaves the others (and the operator's lines) as they were.
enum class LogKind : size_t {
  kCallFailed,              // an RPC ended with an error status (rpc_call.cc)
  kSessionStarted,          // session.cc
  kSessionEnded,            // session.cc
  kLocalGenerationRefused,  // a session's client may not generate (session_local.cc)
  kGenerationFailed,        // a chunk's generation threw (generation/chunk_source.cc)
  kLodTileFailed,           // a LOD tile's making threw (generation/chunk_source_tiles.cc)
  kLocateFailed,            // a structure search threw (locate.cc)
  kEditLogReadFailed,       // GetChunkEdits could not read a chunk's log (chunk_edits.cc)
  kEditCommitFailed,        // a group commit failed other than by the store going down (edit_service.cc)
  kHttpAcceptFailed,        // the side port could not accept (out of descriptors: http_endpoint.cc)
  kHttpConnectionRefused,   // the side port closed a connection past its bounds (debug level)
  kCount
};

// The kinds' names, as /metrics labels, in the enum's order.
inline constexpr std::array<std::string_view, static_cast<size_t>(LogKind::kCount)> kLogKindNames = {
    "call_failed",        "session_started",    "session_ended",          "local_generation_refused",
    "generation_failed",  "lod_tile_failed",    "locate_failed",          "edit_log_read_failed",
    "edit_commit_failed", "http_accept_failed", "http_connection_refused"};

// Bytes of client input a quoted value shows, in a log line or a status message.
inline constexpr size_t kQuotedClientBytes = 64;
// A line's message: with spdlog's default prefix ("[2024-05-01 12:00:00.123] [warning] ", 37
// bytes at most) and its newline, a line in the log is at most 512 bytes.
inline constexpr size_t kMaxMessageBytes = 448;
// Each kind's bucket: a few lines a second, a small burst. With every kind at its rate and
// every line at its longest, 11 kinds write at most 11 KiB a second; a client that floods one
// kind gets it about 1 KiB a second.
inline constexpr double kLinesPerSecond = 2;
inline constexpr double kBurstLines = 10;

// `text` as a client sent it, for a message: in double quotes, escaped as chunkforge/quote.h
// escapes (printable ASCII only), at most kQuotedClientBytes of it; a longer one is its first
// bytes and "... (N bytes)" after the closing quote.
std::string quote_client(std::string_view text);

// A client's list of numbers, for a message: "[1, 2, 3]", or as many entries as fit in
// kQuotedClientBytes and "... (N entries)" inside the brackets.
template <typename Numbers>
std::string quote_client_list(const Numbers& numbers) {
  std::string listed;
  size_t shown = 0;
  for (const auto& n : numbers) {
    std::string entry = (shown == 0 ? "" : ", ") + std::to_string(n);
    if (listed.size() + entry.size() > kQuotedClientBytes) break;
    listed += entry;
    ++shown;
  }
  const auto count = static_cast<size_t>(std::distance(std::begin(numbers), std::end(numbers)));
  if (shown < count) listed += "... (" + std::to_string(count) + " entries)";
  return "[" + listed + "]";
}

// A token bucket: `burst` lines at once, refilled at `per_second`. Not thread-safe (LineLimiter
// locks); the clock is the caller's, so that a test can step it.
class TokenBucket {
 public:
  using Clock = std::chrono::steady_clock;
  TokenBucket(double per_second, double burst) : per_second_(per_second), burst_(burst), tokens_(burst) {}

  // Takes a token at `now`; false when there is none (the line is left out).
  bool take(Clock::time_point now);

 private:
  double per_second_, burst_, tokens_;
  Clock::time_point last_{};
  bool started_ = false;
};

// A bucket and a counter of lines left out, per kind.
class LineLimiter {
 public:
  using Clock = TokenBucket::Clock;
  explicit LineLimiter(double per_second = kLinesPerSecond, double burst = kBurstLines);

  // Whether a line of `kind` may go at `now`. If not, it is counted as suppressed; if so,
  // `left_out` gets how many of its kind were suppressed since the last one that went.
  bool admit(LogKind kind, Clock::time_point now, uint64_t& left_out);
  // Lines of `kind` left out since the start.
  uint64_t suppressed(LogKind kind) const;

 private:
  struct Slot {
    std::mutex mutex;
    TokenBucket bucket{kLinesPerSecond, kBurstLines};  // set by the constructor; guarded by mutex
    uint64_t reported = 0;                             // suppressed when the last line went; guarded by mutex
    std::atomic<uint64_t> total{0};                    // read by /metrics without the lock
  };
  std::array<Slot, static_cast<size_t>(LogKind::kCount)> slots_;
};

// The process's limiter, behind log_client() and /metrics.
LineLimiter& client_log_limiter();

// `message` as it goes into the log: bytes other than printable ASCII as \xNN, cut to
// kMaxMessageBytes with "... (N bytes)" (N: `full_bytes`, the message's length before any cut,
// which may exceed message.size()), and a note of `left_out` suppressed lines before it.
std::string client_line_text(std::string_view message, size_t full_bytes, uint64_t left_out);

// Writes `text` (client_line_text's) at `level`; the one place a client's line reaches spdlog.
void write_client_line(spdlog::level::level_enum level, const std::string& text);

// One line a client can cause: nothing at all when `level` is below the log level; only counted
// when its kind's bucket is empty; otherwise formatted (no more than kMaxMessageBytes of it is
// kept, whatever the arguments hold: each kept byte gives at least one byte of the line), made
// safe and short by client_line_text, and written.
template <typename... Args>
void log_client(LogKind kind, spdlog::level::level_enum level, spdlog::format_string_t<Args...> format,
                Args&&... args) {
  if (!spdlog::should_log(level)) return;
  uint64_t left_out = 0;
  if (!client_log_limiter().admit(kind, LineLimiter::Clock::now(), left_out)) return;
  std::array<char, kMaxMessageBytes> buffer;
  const auto formatted = fmt::format_to_n(buffer.data(), buffer.size(), format, std::forward<Args>(args)...);
  const size_t kept = std::min(formatted.size, buffer.size());
  write_client_line(level, client_line_text({buffer.data(), kept}, formatted.size, left_out));
}

}  // namespace chunkforge::server
