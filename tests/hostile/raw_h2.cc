// File: tests/hostile/raw_h2.cc
//
// The hand-written HTTP/2 gRPC client of raw_h2.h (RFC 9113 framing, RFC 7541 literals).
#include "raw_h2.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <thread>
#include <utility>
#include <vector>

namespace chunkforge::hostile {
namespace {

enum FrameType : uint8_t {
  kData = 0,
  kHeaders = 1,
  kRstStream = 3,
  kSettings = 4,
  kPing = 6,
  kGoaway = 7,
  kWindowUpdate = 8,
};
constexpr uint8_t kEndStream = 0x1, kAck = 0x1, kEndHeaders = 0x4, kPadded = 0x8;
constexpr uint16_t kSettingsEnablePush = 2, kSettingsMaxStreams = 3, kSettingsInitialWindow = 4, kSettingsMaxFrame = 5;
constexpr uint32_t kCancel = 8;
constexpr char kPreface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
// A prompt reader's windows: as large as a real client's after its bandwidth probing.
constexpr int64_t kPromptStreamWindow = int64_t{4} << 20, kPromptConnectionWindow = int64_t{64} << 20;
// Below this, a connection starts no call and sends nothing more: the server is not reading.
constexpr size_t kMaxBuffered = size_t{1} << 20;

void put_u32(std::string& out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((v >> shift) & 0xff));
}
uint32_t get_u32(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return (uint32_t{u[0]} << 24) | (uint32_t{u[1]} << 16) | (uint32_t{u[2]} << 8) | u[3];
}

// An HPACK integer with an N-bit prefix (RFC 7541, 5.1); `high` holds the bits above the prefix.
void put_hpack_int(std::string& out, size_t value, int prefix_bits, uint8_t high) {
  const size_t limit = (size_t{1} << prefix_bits) - 1;
  if (value < limit) {
    out.push_back(static_cast<char>(high | value));
    return;
  }
  out.push_back(static_cast<char>(high | limit));
  value -= limit;
  while (value >= 128) {
    out.push_back(static_cast<char>((value % 128) + 128));
    value /= 128;
  }
  out.push_back(static_cast<char>(value));
}

// "Literal header field without indexing, new name", both strings raw (no Huffman): the
// server's table is never touched, so no state is shared with it.
void put_literal(std::string& out, const std::string& name, const std::string& value) {
  out.push_back(0);
  put_hpack_int(out, name.size(), 7, 0);
  out += name;
  put_hpack_int(out, value.size(), 7, 0);
  out += value;
}

void put_setting(std::string& out, uint16_t id, uint32_t value) {
  out.push_back(static_cast<char>(id >> 8));
  out.push_back(static_cast<char>(id & 0xff));
  put_u32(out, value);
}

}  // namespace

RawH2Connection::RawH2Connection(RawH2Options options) : options_(options) {}

RawH2Connection::~RawH2Connection() {
  if (fd_ >= 0) ::close(fd_);
}

bool RawH2Connection::open() {
  fd_ = socket(AF_INET, SOCK_STREAM, 0);
  if (fd_ < 0) return false;
  if (options_.reading != Reading::promptly) {
    const int small = 64 << 10;  // what the kernel holds for a reader that does not read
    setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
  }
  const int one = 1;
  setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  sockaddr_in local{}, remote{};
  local.sin_family = remote.sin_family = AF_INET;
  inet_pton(AF_INET, options_.from, &local.sin_addr);
  remote.sin_port = htons(static_cast<uint16_t>(options_.port));
  remote.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(fd_, reinterpret_cast<sockaddr*>(&local), sizeof local) != 0 ||
      connect(fd_, reinterpret_cast<sockaddr*>(&remote), sizeof remote) != 0) {
    fail();
    return false;
  }
  out_.append(kPreface, sizeof kPreface - 1);
  std::string settings;
  put_setting(settings, kSettingsEnablePush, 0);
  const bool prompt = options_.reading == Reading::promptly;
  put_setting(settings, kSettingsInitialWindow, prompt ? kPromptStreamWindow : 65535);
  queue_frame(kSettings, 0, 0, settings);
  if (prompt) {
    std::string increment;
    put_u32(increment, static_cast<uint32_t>(kPromptConnectionWindow - 65535));
    queue_frame(kWindowUpdate, 0, 0, increment);
  }
  last_read_ = std::chrono::steady_clock::now();
  if (!flush()) return false;
  if (options_.reading == Reading::never) {
    // The server's SETTINGS are sent as it accepts; acknowledged unread, after they surely came.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    queue_frame(kSettings, kAck, 0, "");
    return flush();
  }
  return true;
}

void RawH2Connection::queue_frame(uint8_t type, uint8_t flags, uint32_t stream, const std::string& payload) {
  const size_t n = payload.size();
  out_.push_back(static_cast<char>((n >> 16) & 0xff));
  out_.push_back(static_cast<char>((n >> 8) & 0xff));
  out_.push_back(static_cast<char>(n & 0xff));
  out_.push_back(static_cast<char>(type));
  out_.push_back(static_cast<char>(flags));
  put_u32(out_, stream & 0x7fffffffu);
  out_ += payload;
}

void RawH2Connection::queue_data(uint32_t stream, const std::string& message, bool end_stream) {
  std::string body;
  body.reserve(5 + message.size());
  body.push_back(0);  // not compressed
  put_u32(body, static_cast<uint32_t>(message.size()));
  body += message;
  const auto size = static_cast<int64_t>(body.size());
  conn_send_window_ -= size;
  calls_[stream].send_window -= size;
  for (size_t at = 0; at < body.size();) {
    const size_t n = std::min(peer_max_frame_, body.size() - at);
    const bool last = at + n == body.size();
    queue_frame(kData, last && end_stream ? kEndStream : 0, stream, body.substr(at, n));
    at += n;
  }
}

uint32_t RawH2Connection::start_call(const std::string& path, const std::string& message, bool end_stream) {
  const auto needed = static_cast<int64_t>(message.size() + 5);
  if (!usable() || open_calls() >= max_calls_ || next_stream_ > 0x7ffffff0u || out_.size() > kMaxBuffered ||
      needed > conn_send_window_ || needed > peer_initial_window_) {
    return 0;
  }
  std::string block;
  put_literal(block, ":method", "POST");
  put_literal(block, ":scheme", "http");
  put_literal(block, ":path", path);
  put_literal(block, ":authority", "127.0.0.1:" + std::to_string(options_.port));
  put_literal(block, "content-type", "application/grpc");
  put_literal(block, "te", "trailers");
  const uint32_t stream = next_stream_;
  next_stream_ += 2;
  queue_frame(kHeaders, kEndHeaders, stream, block);
  calls_[stream].send_window = peer_initial_window_;
  queue_data(stream, message, end_stream);
  ++totals_.calls_started;
  flush();
  return stream;
}

bool RawH2Connection::send(uint32_t call, const std::string& message, bool end_stream) {
  const auto it = calls_.find(call);
  const auto needed = static_cast<int64_t>(message.size() + 5);
  if (!alive() || it == calls_.end() || out_.size() > kMaxBuffered || needed > conn_send_window_ ||
      needed > it->second.send_window) {
    return false;
  }
  queue_data(call, message, end_stream);
  return flush();
}

void RawH2Connection::reset(uint32_t call) {
  if (calls_.erase(call) == 0 || !alive()) return;
  std::string code;
  put_u32(code, kCancel);
  queue_frame(kRstStream, 0, call, code);
  ++totals_.own_resets;
  flush();
}

bool RawH2Connection::flush() {
  while (fd_ >= 0 && !out_.empty()) {
    const ssize_t n = ::send(fd_, out_.data(), out_.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      out_.erase(0, static_cast<size_t>(n));
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
      break;
    } else {
      fail();
    }
  }
  return alive();
}

bool RawH2Connection::service(std::chrono::milliseconds wait) {
  if (!flush()) return false;
  if (options_.reading == Reading::never) {
    pollfd p{fd_, static_cast<short>(out_.empty() ? 0 : POLLOUT), 0};
    poll(&p, 1, static_cast<int>(wait.count()));  // POLLIN is never asked for
    return flush();
  }
  read_some(wait);
  handle_frames();
  give_credit();
  return flush();
}

void RawH2Connection::read_some(std::chrono::milliseconds wait) {
  size_t most = size_t{256} << 10;
  if (options_.reading == Reading::slowly) {
    const auto now = std::chrono::steady_clock::now();
    const double rate = static_cast<double>(options_.slow_bytes_per_second);
    read_allowance_ = std::min(rate, read_allowance_ + rate * std::chrono::duration<double>(now - last_read_).count());
    last_read_ = now;
    most = read_allowance_ >= 1 ? static_cast<size_t>(read_allowance_) : 0;
  }
  pollfd p{fd_, static_cast<short>((most > 0 ? POLLIN : 0) | (out_.empty() ? 0 : POLLOUT)), 0};
  if (poll(&p, 1, static_cast<int>(wait.count())) <= 0 || (p.revents & (POLLIN | POLLHUP | POLLERR)) == 0) return;
  most = std::max<size_t>(most, 1);
  if (read_buffer_.size() < most) read_buffer_.resize(most);
  const ssize_t n = recv(fd_, read_buffer_.data(), most, MSG_DONTWAIT);
  if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) return fail();
  if (n < 0) return;
  in_.append(read_buffer_.data(), static_cast<size_t>(n));
  // A hang-up polled without an allowance reads a byte: the allowance may go below zero by it.
  if (options_.reading == Reading::slowly) read_allowance_ -= static_cast<double>(n);
}

void RawH2Connection::handle_frames() {
  size_t at = 0;
  while (fd_ >= 0 && in_.size() - at >= 9) {
    const auto* h = reinterpret_cast<const unsigned char*>(in_.data() + at);
    const size_t length = (size_t{h[0]} << 16) | (size_t{h[1]} << 8) | h[2];
    if (in_.size() - at < 9 + length) break;
    const uint32_t stream = get_u32(in_.data() + at + 5) & 0x7fffffffu;
    handle_frame(h[3], h[4], stream, std::string_view(in_).substr(at + 9, length));
    at += 9 + length;
  }
  in_.erase(0, at);
}

void RawH2Connection::handle_frame(uint8_t type, uint8_t flags, uint32_t stream, std::string_view payload) {
  switch (type) {
    case kData:
      return on_data(flags, stream, payload);
    case kHeaders:  // the response's headers or trailers: not decoded (see the file comment)
      if ((flags & kEndStream) != 0) end_call(stream);
      return;
    case kRstStream:
      ++totals_.server_resets;
      return end_call(stream);
    case kSettings:
      return on_settings(flags, payload);
    case kPing:
      if ((flags & kAck) == 0) queue_frame(kPing, kAck, 0, std::string(payload));
      return;
    case kGoaway:
      goaway_ = true;
      return;
    case kWindowUpdate: {
      if (payload.size() < 4) return;
      const int64_t increment = get_u32(payload.data()) & 0x7fffffffu;
      if (stream == 0) {
        conn_send_window_ += increment;
      } else if (auto it = calls_.find(stream); it != calls_.end()) {
        it->second.send_window += increment;
      }
      return;
    }
    default:
      return;  // PRIORITY, CONTINUATION of headers not decoded, unknown types
  }
}

void RawH2Connection::on_settings(uint8_t flags, std::string_view payload) {
  if ((flags & kAck) != 0) return;
  for (size_t at = 0; at + 6 <= payload.size(); at += 6) {
    const uint16_t id = static_cast<uint16_t>((static_cast<unsigned char>(payload[at]) << 8) |
                                              static_cast<unsigned char>(payload[at + 1]));
    const uint32_t value = get_u32(payload.data() + at + 2);
    if (id == kSettingsMaxStreams) max_calls_ = static_cast<int>(std::min<uint32_t>(value, kMaxCalls));
    if (id == kSettingsMaxFrame) peer_max_frame_ = value;
    if (id == kSettingsInitialWindow) {
      const int64_t delta = static_cast<int64_t>(value) - peer_initial_window_;
      for (auto& entry : calls_) entry.second.send_window += delta;
      peer_initial_window_ = value;
    }
  }
  queue_frame(kSettings, kAck, 0, "");
}

void RawH2Connection::on_data(uint8_t flags, uint32_t stream, std::string_view payload) {
  size_t begin = 0, end = payload.size();
  if ((flags & kPadded) != 0 && !payload.empty()) {
    begin = 1;
    end -= std::min<size_t>(end - 1, static_cast<unsigned char>(payload[0]));
  }
  conn_credit_ += payload.size();
  totals_.bytes += static_cast<int64_t>(end - begin);
  if (auto it = calls_.find(stream); it != calls_.end()) {
    it->second.credit += payload.size();
    count_messages(it->second, payload.data() + begin, end - begin);
  }
  if ((flags & kEndStream) != 0) end_call(stream);
}

void RawH2Connection::count_messages(Call& call, const char* data, size_t size) {
  while (size > 0) {
    if (call.unread == 0) {  // in the 5-byte prefix of the next message
      const size_t n = std::min(size, 5 - call.prefix.size());
      call.prefix.append(data, n);
      data += n;
      size -= n;
      if (call.prefix.size() < 5) return;
      call.unread = get_u32(call.prefix.data() + 1);
      call.prefix.clear();
      if (call.unread == 0) ++totals_.messages;
      continue;
    }
    const size_t n = std::min(size, call.unread);
    call.unread -= n;
    data += n;
    size -= n;
    if (call.unread == 0) ++totals_.messages;
  }
}

void RawH2Connection::end_call(uint32_t stream) {
  if (calls_.erase(stream) > 0) ++totals_.calls_ended;
}

void RawH2Connection::give_credit() {
  std::string increment;
  if (conn_credit_ > 0) {
    put_u32(increment, static_cast<uint32_t>(conn_credit_));
    queue_frame(kWindowUpdate, 0, 0, increment);
    conn_credit_ = 0;
  }
  for (auto& [stream, call] : calls_) {
    if (call.credit == 0) continue;
    increment.clear();
    put_u32(increment, static_cast<uint32_t>(call.credit));
    queue_frame(kWindowUpdate, 0, stream, increment);
    call.credit = 0;
  }
}

void RawH2Connection::fail() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  calls_.clear();
}

void RawH2Connection::close() {
  if (fd_ < 0) return;
  std::string goaway;
  put_u32(goaway, 0);  // last stream id: none of the server's
  put_u32(goaway, 0);  // NO_ERROR
  queue_frame(kGoaway, 0, 0, goaway);
  flush();
  fail();
}

}  // namespace chunkforge::hostile
