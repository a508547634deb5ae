// File: tests/hostile/adversary/attacks.cc
//
// The behaviours of attacks.h: one thread per connection, each reconnecting when the server
// closes it or sends GOAWAY.
#include "attacks.h"

#include <map>
#include <thread>

#include "hostile/raw_h2.h"

namespace chunkforge::hostile::adversary {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr milliseconds kFollowUpEvery{100};
constexpr milliseconds kNeverReadForget{1000};  // a never-reading connection counts a call done after this

Reading reading_of(Behaviour b) {
  if (b == Behaviour::never_reads) return Reading::never;
  return b == Behaviour::reads_slowly ? Reading::slowly : Reading::promptly;
}

struct OpenCall {
  Clock::time_point started, next_follow_up;
  milliseconds reset_after{0};  // 0: never
  int follow_ups = 0;           // sent; this side ended at kFollowUps
};

// One connection's calls until `stop` or the connection is lost (or drained after GOAWAY).
void drive(RawH2Connection& c, Behaviour behaviour, const CallPlan& plan, int64_t& next, std::stop_token& stop) {
  std::map<uint32_t, OpenCall> calls;
  int64_t follow_up = next;
  while (!stop.stop_requested() && c.alive()) {
    const auto now = Clock::now();
    for (auto it = calls.begin(); it != calls.end();) {
      const bool forget = behaviour == Behaviour::never_reads && now - it->second.started > kNeverReadForget;
      if (forget) c.forget(it->first);
      it = c.call_open(it->first) ? std::next(it) : calls.erase(it);
    }
    while (c.open_calls() < RawH2Connection::kMaxCalls) {
      const std::string& request = plan.requests[static_cast<size_t>(next) % plan.requests.size()];
      const uint32_t id = c.start_call(plan.path, request, !plan.streams_in);
      if (id == 0) break;
      OpenCall call{now, now + kFollowUpEvery};
      if (behaviour == Behaviour::leaves_mid_call) call.reset_after = milliseconds(1 + next % 50);
      calls[id] = call;
      ++next;
    }
    for (auto it = calls.begin(); it != calls.end();) {
      OpenCall& call = it->second;
      if (call.reset_after.count() > 0 && now - call.started >= call.reset_after) {
        c.reset(it->first);
        it = calls.erase(it);
        continue;
      }
      if (plan.streams_in && !plan.follow_ups.empty() && call.follow_ups < kFollowUps && now >= call.next_follow_up) {
        const std::string& message = plan.follow_ups[static_cast<size_t>(follow_up++) % plan.follow_ups.size()];
        if (c.send(it->first, message, call.follow_ups + 1 == kFollowUps)) ++call.follow_ups;
        call.next_follow_up = now + kFollowUpEvery;
      }
      ++it;
    }
    c.service(milliseconds(5));
    if (!c.usable() && c.open_calls() == 0) break;  // GOAWAY, and nothing left to read
  }
}

void connection(Behaviour behaviour, const CallPlan& plan, int port, int index, std::stop_token stop,
                Received& received) {
  int64_t next = index * 7;  // the connections start at different requests of the plan
  while (!stop.stop_requested()) {
    RawH2Connection c({.from = "127.0.0.2", .port = port, .reading = reading_of(behaviour)});
    if (!c.open()) {
      std::this_thread::sleep_for(milliseconds(50));
      continue;
    }
    ++received.connections;
    drive(c, behaviour, plan, next, stop);
    c.close();
    const RawH2Connection::Totals& t = c.totals();
    received.messages += t.messages;
    received.bytes += t.bytes;
    received.calls += t.calls_started;
    received.calls_ended += t.calls_ended;
    received.server_resets += t.server_resets;
  }
}

}  // namespace

const char* behaviour_name(Behaviour behaviour) {
  switch (behaviour) {
    case Behaviour::never_reads:
      return "never_reads";
    case Behaviour::reads_slowly:
      return "reads_slowly";
    case Behaviour::floods:
      return "floods";
    case Behaviour::maximal_inputs:
      return "maximal_inputs";
    case Behaviour::fan_out:
      return "fan_out";
    case Behaviour::bogus_capabilities:
      return "bogus_capabilities";
    case Behaviour::leaves_mid_call:
      return "leaves_mid_call";
    case Behaviour::idle:
      return "idle";
  }
  return "?";
}

void attack(Behaviour behaviour, const CallPlan& plan, int port, std::stop_token stop, Received& received) {
  if (behaviour == Behaviour::idle || plan.requests.empty()) return;
  std::vector<std::jthread> threads;
  for (int i = 0; i < kConnections; ++i) {
    threads.emplace_back([&, i] { connection(behaviour, plan, port, i, stop, received); });
  }
}

}  // namespace chunkforge::hostile::adversary
