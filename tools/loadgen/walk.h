// File: tools/loadgen/walk.h
//
// What the load generator's players share: the options, the results they record (one latency
// per chunk, with when it arrived), and the walk every player takes, a pure function of its
// number, the time and the options.
#pragma once

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace chunkforge::loadgen {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string server = "127.0.0.1:50051", mode = "session";
  int players = 10, radius = 4, duration = 10, server_pid = 0;
  double speed = 2;            // chunks per second
  double steady_after = 10;    // seconds: latencies before are the start burst, after the steady walk
  double ramp = 0;             // seconds over which players join (0: all at once)
  bool stagger = false;        // players step at spread phases instead of all at the same instant
  bool load_batches = true;    // session mode: the server may send several chunks in one event
  bool unload_batches = true;  // session mode: and several unloads in one event
  bool json = false;
  int generator_threads = 2;  // local-generate: the pool every player shares
};

// One chunk's latency and when it arrived (seconds from the start of the run).
struct Sample {
  double arrived_s, ms;
};

struct Results {
  const std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  std::mutex mutex;
  std::vector<Sample> samples;
  std::atomic<uint64_t> chunks{0}, errors{0};
  std::atomic<uint64_t> joined{0};       // players whose walk began (--ramp: those whose turn came)
  std::atomic<uint64_t> event_bytes{0};  // session events as serialized (gRPC adds 5 bytes each)
  std::atomic<uint64_t> events{0};       // session events read
  std::atomic<uint64_t> unloads{0};      // chunks the sessions were told left the view, one or many an event
  std::string first_error;
  void latency(double ms) {
    const double arrived = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::lock_guard lock(mutex);
    samples.push_back({arrived, ms});
  }
  void error(const grpc::Status& s) {
    ++errors;
    std::lock_guard lock(mutex);
    if (first_error.empty()) first_error = std::to_string(s.error_code()) + ": " + s.error_message();
  }
};

inline double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// Player p walks straight along its own direction, one chunk every 1/speed seconds: all players
// at the same instants (the worst case for a server: every step's new chunks at once), or with
// --stagger each at its own phase, spread evenly over the step (golden-ratio offsets), as the
// players of a game cross chunk borders independently. Players start in groups of 8 far apart,
// each of a group in one of the 8 directions.
std::pair<int64_t, int64_t> position(int player, double seconds, const Options& o);
// When (seconds from the start) player p takes its next step after `seconds`.
double next_step(int player, double seconds, const Options& o);

}  // namespace chunkforge::loadgen
