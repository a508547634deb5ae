// File: tests/hostile/raw_h2.h
//
// A gRPC client written by hand over HTTP/2, for the generated adversary (docs/server.md, "The
// generated adversary"). A real gRPC client library reads the socket into its own buffers
// whatever the application does, so it cannot be a client that never reads, or reads a few KB a
// second: this one speaks the protocol itself over a TCP socket (the connection preface,
// SETTINGS, HEADERS as HPACK literals without Huffman coding, DATA frames carrying gRPC's
// length-prefixed messages, RST_STREAM, WINDOW_UPDATE, PING acknowledgements, GOAWAY), so the
// attacker decides exactly when and how much it reads.
//
//   RawH2Connection c({.from = "127.0.0.2", .port = port, .reading = Reading::never});
//   c.open();
//   const uint32_t call = c.start_call("/chunkforge.v1.WorldService/GetChunk", bytes, true);
//   c.service(10ms);   // reads (or, never reading, only writes) for up to 10 ms
//
// It decodes none of the server's headers (it keeps no HPACK table of the server's): it counts
// the gRPC messages and bytes each call received and sees a call end at END_STREAM or RST_STREAM.
// Not thread-safe: one thread per connection.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace chunkforge::hostile {

// What a connection does with what the server sends.
enum class Reading {
  never,     // the socket is never read, not even the server's SETTINGS (acknowledged blind)
  slowly,    // at most RawH2Options::slow_bytes_per_second, with window updates for what was read
  promptly,  // everything as it comes, with large windows
};

struct RawH2Options {
  const char* from = "127.0.0.2";  // the attacker's source address
  int port = 0;                    // on 127.0.0.1
  Reading reading = Reading::promptly;
  size_t slow_bytes_per_second = 4096;
};

class RawH2Connection {
 public:
  // The server's limit, and so this client's: calls open at once on one connection.
  static constexpr int kMaxCalls = 128;

  struct Totals {
    int64_t messages = 0;       // gRPC messages received, all calls
    int64_t bytes = 0;          // DATA payload received
    int64_t calls_started = 0;  // HEADERS sent
    int64_t calls_ended = 0;    // END_STREAM or RST_STREAM received
    int64_t server_resets = 0;  // RST_STREAM received
    int64_t own_resets = 0;     // RST_STREAM sent
  };

  explicit RawH2Connection(RawH2Options options);
  ~RawH2Connection();
  RawH2Connection(const RawH2Connection&) = delete;
  RawH2Connection& operator=(const RawH2Connection&) = delete;

  // TCP connect from options.from, the preface and this side's SETTINGS; false if it failed.
  bool open();
  // The socket is open and the server has not sent GOAWAY.
  bool usable() const { return fd_ >= 0 && !goaway_; }
  bool alive() const { return fd_ >= 0; }

  // A call: HEADERS for `path`, then `message` as one gRPC message in DATA frames, ending this
  // side when `end_stream`. 0 when it cannot start now: kMaxCalls open, the server's send window
  // (never grown by a connection that never reads), GOAWAY, stream ids used up, or a full
  // write buffer.
  uint32_t start_call(const std::string& path, const std::string& message, bool end_stream);
  // Another message on a call this side has not ended; false when it cannot be sent now.
  bool send(uint32_t call, const std::string& message, bool end_stream);
  // RST_STREAM (CANCEL): this side leaves the call.
  void reset(uint32_t call);
  // Stops tracking a call without telling the server: a reader that never reads cannot know
  // which calls ended, and counts one as done after a while, to start more.
  void forget(uint32_t call) { calls_.erase(call); }
  // True until the call ended (either side) as far as this side knows.
  bool call_open(uint32_t call) const { return calls_.count(call) > 0; }
  int open_calls() const { return static_cast<int>(calls_.size()); }

  // Writes what is buffered and, unless it never reads, reads and handles the server's frames,
  // for at most `wait`. Returns alive().
  bool service(std::chrono::milliseconds wait);
  // GOAWAY, then the socket is closed.
  void close();

  const Totals& totals() const { return totals_; }

 private:
  struct Call {
    int64_t send_window = 0;
    size_t unread = 0;   // bytes of the current message not received yet
    std::string prefix;  // of the current message's 5-byte prefix, when incomplete
    size_t credit = 0;   // DATA received and not yet given back in a WINDOW_UPDATE
  };

  void queue_frame(uint8_t type, uint8_t flags, uint32_t stream, const std::string& payload);
  void queue_data(uint32_t stream, const std::string& message, bool end_stream);
  bool flush();
  void read_some(std::chrono::milliseconds wait);
  void handle_frames();
  void handle_frame(uint8_t type, uint8_t flags, uint32_t stream, std::string_view payload);
  void on_data(uint8_t flags, uint32_t stream, std::string_view payload);
  void on_settings(uint8_t flags, std::string_view payload);
  void count_messages(Call& call, const char* data, size_t size);
  void end_call(uint32_t stream);
  void give_credit();
  void fail();

  RawH2Options options_;
  int fd_ = -1;
  bool goaway_ = false;
  uint32_t next_stream_ = 1;
  int max_calls_ = kMaxCalls;
  int64_t conn_send_window_ = 65535;
  int64_t peer_initial_window_ = 65535;
  size_t peer_max_frame_ = 16384;
  size_t conn_credit_ = 0;
  std::string out_, in_;
  std::vector<char> read_buffer_;
  std::map<uint32_t, Call> calls_;
  std::chrono::steady_clock::time_point last_read_;
  double read_allowance_ = 0;  // bytes a slow reader may still read
  Totals totals_;
};

}  // namespace chunkforge::hostile
