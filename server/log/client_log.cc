// Log lines a client can cause: quoting, the per-kind token buckets, and the one place such a
// line reaches spdlog (see client_log.h).
#include "log/client_log.h"

#include "chunkforge/quote.h"

namespace chunkforge::server {
namespace {

// Room kept at the end of a cut message for "... (N bytes)", N up to 20 digits.
constexpr size_t kCutNoteBytes = 30;

// Printable ASCII as it is, every other byte as \xNN (backslashes stay: quote_client's escapes
// are already in the message, and doubling them would only make the line harder to read).
void append_printable(std::string& out, unsigned char byte) {
  static constexpr char kHex[] = "0123456789abcdef";
  if (byte >= 0x20 && byte < 0x7f) {
    out += static_cast<char>(byte);
    return;
  }
  out += "\\x";
  out += kHex[byte >> 4];
  out += kHex[byte & 15];
}

// `message` made printable, stopping before it passes `room` bytes; how much of it was used.
size_t printable_prefix(std::string_view message, size_t room, std::string& out) {
  size_t used = 0;
  for (; used < message.size(); ++used) {
    const auto byte = static_cast<unsigned char>(message[used]);
    const bool plain = byte >= 0x20 && byte < 0x7f;
    if (out.size() + (plain ? 1 : 4) > room) break;
    append_printable(out, byte);
  }
  return used;
}

}  // namespace

std::string quote_client(std::string_view text) {
  const bool cut = text.size() > kQuotedClientBytes;
  std::string out = "\"" + escape_input(text.substr(0, kQuotedClientBytes)) + "\"";
  if (cut) out += "... (" + std::to_string(text.size()) + " bytes)";
  return out;
}

bool TokenBucket::take(Clock::time_point now) {
  if (!started_) {
    started_ = true;
    last_ = now;
  }
  if (now > last_) {  // callers read the clock before they lock: `now` may lag the last one
    tokens_ = std::min(burst_, tokens_ + per_second_ * std::chrono::duration<double>(now - last_).count());
    last_ = now;
  }
  if (tokens_ < 1) return false;
  tokens_ -= 1;
  return true;
}

LineLimiter::LineLimiter(double per_second, double burst) {
  for (Slot& slot : slots_) slot.bucket = TokenBucket(per_second, burst);
}

bool LineLimiter::admit(LogKind kind, Clock::time_point now, uint64_t& left_out) {
  Slot& slot = slots_[static_cast<size_t>(kind)];
  std::lock_guard lock(slot.mutex);
  if (!slot.bucket.take(now)) {
    ++slot.total;
    return false;
  }
  const uint64_t total = slot.total.load();
  left_out = total - slot.reported;
  slot.reported = total;
  return true;
}

uint64_t LineLimiter::suppressed(LogKind kind) const { return slots_[static_cast<size_t>(kind)].total.load(); }

LineLimiter& client_log_limiter() {
  static LineLimiter limiter;
  return limiter;
}

std::string client_line_text(std::string_view message, size_t full_bytes, uint64_t left_out) {
  const std::string note =
      left_out == 0 ? "" : " (and " + std::to_string(left_out) + " lines of this kind suppressed before it)";
  std::string out;
  const bool whole = printable_prefix(message, kMaxMessageBytes - note.size(), out) == message.size();
  if (whole && full_bytes <= message.size()) return out + note;
  out.clear();
  printable_prefix(message, kMaxMessageBytes - note.size() - kCutNoteBytes, out);
  return out + "... (" + std::to_string(full_bytes) + " bytes)" + note;
}

void write_client_line(spdlog::level::level_enum level, const std::string& text) { spdlog::log(level, "{}", text); }

}  // namespace chunkforge::server
