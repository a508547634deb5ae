// File: tests/hostile/adversary/attacks.h
//
// The behaviours the generated adversary crosses with every method (docs/server.md, "The
// generated adversary"), each from kConnections raw HTTP/2 connections (raw_h2.h) from
// 127.0.0.2, each keeping up to 128 calls open (the server's limit per connection):
//
//   never_reads         the fan-out request; the socket is never read (a connection that
//                       never reads never sees a window update either: it sends what the
//                       protocol's first 64 KiB window lets it, counting a call done after 1 s)
//   reads_slowly        the fan-out request; 4 KB a second per connection, windows to match
//   floods              the minimal request, calls back to back, reading
//   maximal_inputs      each field's maximal valid request in turn, reading
//   fan_out             the fan-out request, reading
//   bogus_capabilities  the bogus capability declarations in turn, reading
//   leaves_mid_call     the fan-out request, each call reset 1 to 50 ms after it started
//
// A method whose input streams (Session) sends, on each call, its request and then one more
// message every 100 ms (kFollowUps of them, from CallPlan::follow_ups in turn), then ends its
// side; the server's answer is read (or not) as above.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <stop_token>
#include <string>
#include <vector>

namespace chunkforge::hostile::adversary {

enum class Behaviour {
  never_reads,
  reads_slowly,
  floods,
  maximal_inputs,
  fan_out,
  bogus_capabilities,
  leaves_mid_call,
  idle,  // no attack: the control cell, what the machine does alone (not crossed with anything)
};
inline constexpr Behaviour kBehaviours[] = {
    Behaviour::never_reads, Behaviour::reads_slowly,       Behaviour::floods,         Behaviour::maximal_inputs,
    Behaviour::fan_out,     Behaviour::bogus_capabilities, Behaviour::leaves_mid_call};
const char* behaviour_name(Behaviour behaviour);

inline constexpr int kConnections = 16;  // the attackers' connections, all from one address
inline constexpr int kFollowUps = 10;

// What the attacker sends.
struct CallPlan {
  std::string path;                     // the method's :path
  bool streams_in = false;              // the input streams: follow-ups, then this side ends
  std::vector<std::string> requests;    // serialized; one per call, in turn
  std::vector<std::string> follow_ups;  // serialized; for streams_in
};

// What the attackers received, summed over their connections.
struct Received {
  std::atomic<int64_t> messages{0}, bytes{0}, calls{0}, calls_ended{0}, server_resets{0}, connections{0};
};

// Runs `behaviour` against 127.0.0.1:`port` until `stop`; returns once every connection is
// closed.
void attack(Behaviour behaviour, const CallPlan& plan, int port, std::stop_token stop, Received& received);

}  // namespace chunkforge::hostile::adversary
