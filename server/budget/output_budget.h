// File: server/budget/output_budget.h
//
// Every byte the server holds for its clients, bounded in one place (docs/server.md, "One budget
// for every byte held for a client"). An answer or an event is charged to its client's
// connection and to the whole server before it is handed to gRPC or to the HTTP side port, and
// released once it has been written or dropped. While a connection holds its share, or the
// server its total, nothing more is charged: a unary call is refused with RESOURCE_EXHAUSTED, a
// stream waits (when_room) while HTTP/2 flow control holds its client back. A charge older than
// the stall timeout is an answer its client is not reading: its `cancel` ends the call, and the
// call's end releases it.
//
//   OutputBudget budget({.total_bytes = 64 << 20, .connection_bytes = 8 << 20});
//   std::optional<OutputBudget::Charge> charge = budget.charge(peer, bytes.size(), cancel);
//   if (!charge) return end_call(budget.refuse(peer));
//   ... hand the bytes to gRPC; once written (or the call is over): charge.reset()
//
// A connection with room takes one more answer whatever its size: an answer larger than the
// share still goes to a client that reads, and a connection holds at most its share plus one
// answer. The server's total is checked the same way.
//
// Thread safety: every method from any thread. `cancel` and `wake` callbacks run on the
// budget's own thread (never on a caller's, which may hold its call's lock: two streams on one
// connection waking each other would deadlock), and must be safe to call after the call they
// belong to has ended (hold a weak pointer).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include <grpcpp/support/status.h>

namespace chunkforge::server {

struct OutputLimits {
  size_t total_bytes = size_t{256} << 20;     // every connection together
  size_t connection_bytes = size_t{8} << 20;  // one connection
  std::chrono::milliseconds stall{30000};     // an answer unwritten this long is cancelled

  // The defaults for a process that may use `memory_bytes`: a sixteenth of it in all (64 MiB to
  // 1 GiB), 8 MiB a connection.
  static OutputLimits for_memory(uint64_t memory_bytes);
};

class OutputBudget {
 public:
  // Bytes held for one connection until released (explicitly, or by its destruction).
  class Charge {
   public:
    Charge() = default;
    Charge(Charge&& other) noexcept { *this = std::move(other); }
    Charge& operator=(Charge&& other) noexcept;
    Charge(const Charge&) = delete;
    Charge& operator=(const Charge&) = delete;
    ~Charge() { release(); }
    void release();

   private:
    friend class OutputBudget;
    Charge(OutputBudget* budget, uint64_t id) : budget_(budget), id_(id) {}
    OutputBudget* budget_ = nullptr;
    uint64_t id_ = 0;
  };

  struct Stats {
    size_t held_bytes = 0, held_answers = 0, connections = 0;
    uint64_t refused = 0;  // charges refused (a unary call answered RESOURCE_EXHAUSTED)
    uint64_t waits = 0;    // streams told to wait for room
    uint64_t stalled = 0;  // answers cancelled for not being read within the stall timeout
  };

  explicit OutputBudget(OutputLimits limits);
  ~OutputBudget();
  OutputBudget(const OutputBudget&) = delete;
  OutputBudget& operator=(const OutputBudget&) = delete;

  // Charges `bytes` to `connection` if it has room (has_room), with `cancel` to end the call
  // should the charge outlive the stall timeout; nullopt (nothing charged) otherwise.
  std::optional<Charge> charge(const std::string& connection, size_t bytes, std::function<void()> cancel);
  // Whether `connection` may be charged now: it holds less than its share and the server less
  // than its total.
  bool has_room(const std::string& connection) const;
  // Calls `wake` once, when `connection` may have room again (soon if it has now).
  void when_room(const std::string& connection, std::function<void()> wake);
  // A call refused for want of room: counted, and the RESOURCE_EXHAUSTED status saying what
  // `connection` (or the server) holds and what the bounds are.
  grpc::Status refuse(const std::string& connection);

  const OutputLimits& limits() const { return limits_; }
  Stats stats() const;
  // Cancels every charge older than the stall timeout (the watcher thread does this on its own
  // every quarter of the timeout; tests call it).
  void cancel_stalled();

 private:
  struct Held {
    std::string connection;
    size_t bytes = 0;
    std::chrono::steady_clock::time_point since;
    std::function<void()> cancel;
    bool cancelled = false;
  };
  struct Connection {
    size_t bytes = 0;
    std::vector<std::function<void()>> waiters;
  };

  void release(uint64_t id);
  bool has_room_locked(const std::string& connection) const;
  // Moves the waiters that may go on now to wake_; with mutex_ held, after a release.
  void wake_locked(const std::string& released_from, bool total_was_full);
  std::vector<std::function<void()>> take_stalled_locked();
  void watch(std::stop_token stop);

  const OutputLimits limits_;
  mutable std::mutex mutex_;
  std::map<uint64_t, Held> held_;  // by id: ids grow with time, so the oldest come first
  std::unordered_map<std::string, Connection> connections_;
  uint64_t next_id_ = 1;
  size_t total_ = 0, waiting_ = 0;  // bytes held; waiters registered
  uint64_t refused_ = 0, waits_ = 0, stalled_ = 0;
  std::vector<std::function<void()>> wake_;  // waiters to call, on watcher_
  std::condition_variable_any tick_;         // wake_ has some, or stop
  std::jthread watcher_;                     // last: it stops before the state it reads
};

}  // namespace chunkforge::server
