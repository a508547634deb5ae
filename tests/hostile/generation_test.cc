// Hostile scenarios against the generation queue (docs/server.md, "How generation is
// scheduled"): sessions that jump far every few milliseconds, floods of wide Locate calls (kept
// in flight, or cancelled and sent again), and a session that never reads, each beside the
// harness's well-behaved client. Besides the harness's bounds, each checks what the queue
// promised: its depth stays within its bound, and floods are refused, not queued.
#include <random>

#include "harness.h"
#include "support/far_views.h"

namespace chunkforge::hostile {
namespace {

// The generation queue's default bound (Limits::max_queued_jobs).
constexpr double kQueueBound = 8192;

// The server's queue depth from /metrics, asked from the attacker's address; -1 if unanswered.
double queue_depth(int http_port) {
  std::string body;
  if (http_get(http_port, "/metrics", 1000ms, "127.0.0.2", &body) != 200) return -1;
  const std::string name = "\nchunkforge_queue_depth ";
  const size_t at = body.find(name);
  return at == std::string::npos ? -1 : std::atof(body.c_str() + at + name.size());
}

// Samples the queue depth every 100 ms on a thread of its own; the deepest seen.
class DepthWatch {
 public:
  explicit DepthWatch(int http_port)
      : thread_([this, http_port](std::stop_token stop) {
          while (!stop.stop_requested()) {
            deepest_ = std::max(deepest_.load(), queue_depth(http_port));
            std::this_thread::sleep_for(100ms);
          }
        }) {}
  double deepest() const { return deepest_; }

 private:
  std::atomic<double> deepest_{0};
  std::jthread thread_;
};

// `sessions` sessions of radius 16, each jumping 100,000 units (1,562 chunks) every `period`,
// reading everything the server sends, until stopped.
void jump(ServerProcess& server, int sessions, std::chrono::milliseconds period, std::stop_token stop) {
  struct Jumper {
    grpc::ClientContext context;
    std::unique_ptr<grpc::ClientReaderWriter<v1::SessionUpdate, v1::SessionEvent>> stream;
    std::jthread reader;
  };
  auto stub = v1::WorldService::NewStub(server.channel());
  std::vector<std::unique_ptr<Jumper>> jumpers;
  for (int s = 0; s < sessions; ++s) {
    auto j = std::make_unique<Jumper>();
    j->stream = stub->Session(&j->context);
    j->reader = std::jthread([stream = j->stream.get()] {
      v1::SessionEvent event;
      while (stream->Read(&event)) {
      }
    });
    jumpers.push_back(std::move(j));
  }
  v1::SessionUpdate update;
  update.set_view_radius(16);
  update.set_accept_load_batches(true);
  for (int64_t k = 1; !stop.stop_requested(); ++k) {
    for (size_t s = 0; s < jumpers.size(); ++s) {
      update.set_x(static_cast<double>(k) * 1e5);
      update.set_z(static_cast<double>(s) * 1e7);
      jumpers[s]->stream->Write(update);  // may fail once the server refused it: it goes on
    }
    std::this_thread::sleep_for(period);
  }
  for (auto& j : jumpers) j->context.TryCancel();
  for (auto& j : jumpers) j->reader.join();
}

void expect_jumping_sessions_bounded(const std::string& name, int sessions, std::chrono::milliseconds period) {
  Scenario scenario(name, {});
  std::unique_ptr<DepthWatch> depth;
  scenario.attack(8s, [&](std::stop_token stop) {
    depth = std::make_unique<DepthWatch>(scenario.server().http_port());
    jump(scenario.server(), sessions, period, stop);
  });
  scenario.expect_within_bounds();
  std::printf("hostile %s: deepest queue %.0f jobs\n", name.c_str(), depth ? depth->deepest() : -1.0);
  ASSERT_TRUE(depth);
  EXPECT_GT(depth->deepest(), 0) << "the attack queued nothing: it measures nothing";
  EXPECT_LE(depth->deepest(), kQueueBound);
}

TEST(HostileScenario, SixteenSessionsJumpingFarEveryTenMilliseconds) {
  expect_jumping_sessions_bounded("jumping_sessions_16", 16, 10ms);
}

TEST(HostileScenario, FourSessionsJumpingFarTenTimesASecond) {
  expect_jumping_sessions_bounded("jumping_sessions_4", 4, 100ms);
}

// How a flood of calls ended.
struct Outcomes {
  std::atomic<int> ok{0}, refused{0}, cancelled{0}, other{0};
  void count(const grpc::Status& status) {
    switch (status.error_code()) {
      case grpc::StatusCode::OK:
        ++ok;
        break;
      case grpc::StatusCode::RESOURCE_EXHAUSTED:
        ++refused;
        break;
      case grpc::StatusCode::CANCELLED:
      case grpc::StatusCode::DEADLINE_EXCEEDED:
        ++cancelled;
        break;
      default:
        ++other;
    }
  }
};

// `ms` milliseconds, longer under a sanitizer.
std::chrono::milliseconds scaled_ms(int ms) { return std::chrono::milliseconds(static_cast<int>(ms * time_scale())); }

// GetChunk of chunk (x, -7000), 5 s deadline (scaled).
grpc::Status get_cold_chunk(v1::WorldService::Stub& stub, int64_t x) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + scaled_ms(5000));
  v1::GetChunkRequest request;
  request.mutable_coord()->set_x(x);
  request.mutable_coord()->set_z(-7000);
  v1::Chunk chunk;
  return stub.GetChunk(&context, request, &chunk);
}

// One Locate of wells within 1024 units of the origin, 2 s deadline (scaled).
grpc::Status locate_once(v1::WorldService::Stub& stub) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + scaled_ms(2000));
  v1::LocateRequest request;
  request.set_type("well");
  request.set_radius(1024);
  v1::LocateResponse response;
  return stub.Locate(&context, request, &response);
}

// locate_once after a flood, tried again every 50 ms while refused, for at most 1 s (scaled).
// A deadline ends the client's call at once, but the server frees the call's place only when it
// sees the cancellation (OnCancel, then the planner's next check): a moment later, longer under
// a sanitizer. A place still held after that second is a leak.
grpc::Status locate_after_flood(v1::WorldService::Stub& stub) {
  const auto give_up = Clock::now() + scaled_ms(1000);
  for (;;) {
    grpc::Status status = locate_once(stub);
    if (status.error_code() != grpc::StatusCode::RESOURCE_EXHAUSTED || Clock::now() >= give_up) return status;
    std::this_thread::sleep_for(50ms);
  }
}

// 400 Locate calls at radius 4096 kept in flight over 4 connections (a connection carries at
// most 128 calls): each is sent again as soon as it ends, or 0.5 s after a refusal (the server
// says "retry later"; a client that ignores that floods calls, not generation, which this
// bound is not about). With `cancel_after`, each call's deadline cancels it that long after it
// starts. A cold GetChunk (a chunk nobody asked for) every 200 ms beside them: their statuses
// counted in `cold`. After 5 s the flood stops, and once its calls have ended one more Locate
// is sent (locate_after_flood), counted in `after`: no call of the flood may still hold a place
// (SIGTERM comes at 8 s).
void flood_locate(ServerProcess& server, std::optional<std::chrono::milliseconds> cancel_after, Outcomes& locates,
                  Outcomes& cold, Outcomes& after, std::stop_token stop) {
  struct Call {
    grpc::ClientContext context;
    v1::LocateRequest request;
    v1::LocateResponse response;
  };
  struct Slot {
    std::atomic<bool> busy{false};
    std::atomic<int64_t> not_before{0};  // steady clock, ns
  };
  std::vector<std::unique_ptr<v1::WorldService::Stub>> stubs;
  for (int c = 0; c < 4; ++c) stubs.push_back(v1::WorldService::NewStub(server.channel()));
  std::vector<Slot> slots(400);
  std::mt19937 random(11);
  auto chunks = v1::WorldService::NewStub(server.channel());
  const auto start = Clock::now();
  const auto ns = [](Clock::time_point t) { return t.time_since_epoch().count(); };
  auto next_cold = start;
  int64_t colds = 0;
  while (!stop.stop_requested() && Clock::now() < start + 5s) {
    for (size_t k = 0; k < slots.size(); ++k) {
      Slot& slot = slots[k];
      if (slot.busy.load() || ns(Clock::now()) < slot.not_before.load()) continue;
      auto call = std::make_shared<Call>();
      call->request.set_type("well");
      call->request.set_radius(4096);
      call->request.set_x(static_cast<int64_t>(random() % 1000000));
      call->request.set_z(static_cast<int64_t>(random() % 1000000));
      call->context.set_deadline(std::chrono::system_clock::now() + (cancel_after ? *cancel_after : 30s));
      slot.busy = true;
      stubs[k % 4]->async()->Locate(&call->context, &call->request, &call->response,
                                    [call, &slot, &locates, ns](grpc::Status status) {
                                      locates.count(status);
                                      const bool refused = status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED;
                                      slot.not_before = ns(Clock::now() + (refused ? 500ms : 0ms));
                                      slot.busy = false;
                                    });
    }
    if (Clock::now() >= next_cold) {
      next_cold = Clock::now() + 200ms;
      cold.count(get_cold_chunk(*chunks, 1000 + colds++));
    }
    std::this_thread::sleep_for(5ms);
  }
  // The calls end by their deadlines, by being planned, or by the server's exit.
  for (Slot& slot : slots) {
    while (slot.busy.load()) std::this_thread::sleep_for(10ms);
  }
  if (stop.stop_requested()) return;
  after.count(locate_after_flood(*stubs[0]));
  while (!stop.stop_requested()) std::this_thread::sleep_for(10ms);
}

void expect_locate_flood_bounded(const std::string& name, std::optional<std::chrono::milliseconds> cancel_after) {
  Scenario scenario(name, {});
  Outcomes locates, cold, after;
  scenario.attack(
      8s, [&](std::stop_token stop) { flood_locate(scenario.server(), cancel_after, locates, cold, after, stop); });
  scenario.expect_within_bounds();
  std::printf(
      "hostile %s: Locate %d ok, %d refused, %d cancelled, %d other; cold GetChunk %d ok, %d failed; "
      "Locate after the flood %s\n",
      name.c_str(), locates.ok.load(), locates.refused.load(), locates.cancelled.load(), locates.other.load(),
      cold.ok.load(), cold.refused + cold.cancelled + cold.other, after.ok == 1 ? "ok" : "failed");
  EXPECT_GT(locates.refused, 0) << "400 in flight are past the bound: some must be refused";
  EXPECT_GT(cold.ok, 5);
  EXPECT_EQ(cold.refused + cold.cancelled + cold.other, 0) << "a cold chunk waited behind Locate";
  EXPECT_EQ(after.ok, 1) << "a Locate after the flood was not served: " << after.refused << " refused, "
                         << after.cancelled << " cancelled (deadline), " << after.other << " other";
}

TEST(HostileScenario, FourHundredWideLocateCallsInFlight) { expect_locate_flood_bounded("locate_flood", std::nullopt); }

TEST(HostileScenario, FourHundredWideLocateCallsCancelledAndSentAgain) {
  expect_locate_flood_bounded("locate_flood_cancelled", 50ms);
}

// A client that opens a session holding its whole view, alternates between two far views and
// never reads: the server stops reading it (owed unloads) and the stall watch ends it, but
// meanwhile everyone else's warm GetChunk must keep its latency.
void never_read(ServerProcess& server, std::stop_token stop) {
  auto stub = v1::WorldService::NewStub(server.channel());
  grpc::ClientContext context;
  auto session = stub->Session(&context);
  const auto views = test::alternating_far_views();
  std::jthread canceller([&context, stop] {
    while (!stop.stop_requested()) std::this_thread::sleep_for(10ms);
    context.TryCancel();
  });
  for (int k = 0; !stop.stop_requested() && session->Write(views[k % 2]); ++k) {
  }
}

TEST(HostileScenario, ASessionThatNeverReads) {
  Scenario scenario("never_reading_session", {});
  scenario.attack(8s, [&](std::stop_token stop) { never_read(scenario.server(), stop); });
  scenario.expect_within_bounds();
}

}  // namespace
}  // namespace chunkforge::hostile
