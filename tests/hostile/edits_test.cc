// Hostile edits (docs/edits.md, "Limits"): a backlog of a thousand Edit calls in flight beside a
// second writer, writers piling objects onto one hot chunk, and batches of unknown ids in far
// chunks, each against the server binary on a SQLite store with the harness's bounds.
#include "harness.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>

namespace chunkforge::hostile {
namespace {

v1::EditOp* op_at(v1::EditRequest& request, int64_t x, int64_t z) {
  v1::EditOp* op = request.add_ops();
  op->mutable_chunk()->set_x(x);
  op->mutable_chunk()->set_z(z);
  return op;
}

// `count` added objects spread over `chunks` chunks in a row from (x0, z).
v1::EditRequest adds(int64_t x0, int64_t z, int count, int chunks) {
  v1::EditRequest request;
  for (int i = 0; i < count; ++i) {
    v1::NewObject* a = op_at(request, x0 + i % chunks, z)->mutable_add_object();
    a->set_x(static_cast<float>(i % 61));
    a->set_z(static_cast<float>(i % 53));
  }
  return request;
}

std::chrono::system_clock::time_point in(std::chrono::milliseconds d) {
  const std::chrono::duration<double, std::milli> scaled = d * time_scale();
  return std::chrono::system_clock::now() + std::chrono::duration_cast<std::chrono::milliseconds>(scaled);
}

// Edit calls through the callback API, at most `depth` in flight, until stopped; counts how
// each ended. A slot whose call was refused with RESOURCE_EXHAUSTED ("retry later") is reused
// after `backoff` (1 s): refused calls re-sent at the client's full speed would measure this test
// process's own gRPC client on the shared 2-core machine more than the server (a flood of calls
// as such is the proxy's to limit, docs/deploy.md). Waits for every call's callback.
struct AsyncEdits {
  std::unique_ptr<v1::WorldService::Stub> stub;
  std::mutex mutex;
  std::condition_variable ended;
  int in_flight = 0;  // calls under way, and refused slots not yet reused
  std::deque<Clock::time_point> cooling;
  std::map<grpc::StatusCode, int> statuses;
  std::chrono::milliseconds backoff{1000};

  explicit AsyncEdits(std::shared_ptr<grpc::Channel> channel) : stub(v1::WorldService::NewStub(std::move(channel))) {}

  void run(const std::stop_token& stop, int depth, const std::function<v1::EditRequest(int)>& make) {
    struct Call {
      grpc::ClientContext context;
      v1::EditRequest request;
      v1::EditResponse response;
    };
    for (int n = 0; !stop.stop_requested(); ++n) {
      std::unique_lock lock(mutex);
      ended.wait_for(lock, 10ms, [&] { return in_flight < depth; });
      while (!cooling.empty() && cooling.front() <= Clock::now()) {
        cooling.pop_front();
        --in_flight;
      }
      if (in_flight >= depth) continue;
      ++in_flight;
      lock.unlock();
      auto* call = new Call;
      call->context.set_deadline(in(10s));
      call->request = make(n);
      stub->async()->Edit(&call->context, &call->request, &call->response, [this, call](const grpc::Status& s) {
        delete call;
        std::lock_guard guard(mutex);
        ++statuses[s.error_code()];
        if (s.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) {
          cooling.push_back(Clock::now() + backoff);
        } else {
          --in_flight;
        }
        ended.notify_all();
      });
    }
    std::unique_lock lock(mutex);
    ended.wait_for(lock, 20s * time_scale(), [&] { return in_flight == static_cast<int>(cooling.size()); });
  }
  int count(grpc::StatusCode code) {
    std::lock_guard lock(mutex);
    return statuses[code];
  }
};

// Another writer on a connection of its own: a one-object edit every 200 ms, each answered
// within 5 s (scaled); how many of those sent before `until` were answered OK and how many
// failed. Each counts however late its answer (its deadline bounds it): under a sanitizer the
// deadline is 25 s, and an answer later than `until` counted as neither once failed the test.
struct SecondWriter {
  std::atomic<int> ok{0}, failed{0};
  std::string last_error;

  void run(std::shared_ptr<grpc::Channel> channel, const std::stop_token& stop, Clock::time_point until) {
    auto stub = v1::WorldService::NewStub(std::move(channel));
    for (int n = 0; !stop.stop_requested() && Clock::now() < until; ++n) {
      grpc::ClientContext context;
      context.set_deadline(in(5000ms));
      v1::EditResponse response;
      const grpc::Status status = stub->Edit(&context, adds(-300 - n % 8, 300, 1, 1), &response);
      if (status.ok()) {
        ++ok;
      } else {
        ++failed;
        last_error = std::to_string(status.error_code()) + " " + status.error_message();
      }
      std::this_thread::sleep_for(200ms);
    }
  }
};

std::vector<std::string> store_args(const std::string& name) {
  return {"--data", test::unique_temp_dir("hostile_" + name + "_data"), "--open-edits"};
}

TEST(HostileScenario, AnEditBacklogIsRefusedAndAnotherWriterIsAnswered) {
  Scenario scenario("edit_backlog", store_args("edit_backlog"));
  AsyncEdits attack(scenario.server().channel());
  SecondWriter second;
  const auto second_until = Clock::now() + 7s;
  scenario.attack(8s, [&](const std::stop_token& stop) {
    std::jthread writer([&](const std::stop_token& s) { second.run(scenario.server().channel(), s, second_until); });
    const v1::EditRequest request = adds(0, 40, 256, 64);
    attack.run(stop, 1000, [&](int) { return request; });
  });
  scenario.expect_within_bounds();
  std::printf(
      "  edit_backlog: %d OK, %d RESOURCE_EXHAUSTED, %d other; second writer %d OK, %d failed %s\n",
      attack.count(grpc::StatusCode::OK), attack.count(grpc::StatusCode::RESOURCE_EXHAUSTED),
      [&] {
        std::lock_guard lock(attack.mutex);
        int other = 0;
        for (const auto& [code, n] : attack.statuses) {
          if (code != grpc::OK && code != grpc::RESOURCE_EXHAUSTED) other += n;
        }
        return other;
      }(),
      second.ok.load(), second.failed.load(), second.last_error.c_str());
  EXPECT_GT(attack.count(grpc::StatusCode::RESOURCE_EXHAUSTED), 0);
  EXPECT_GT(second.ok.load(), 0);
  EXPECT_EQ(second.failed.load(), 0) << second.last_error;
}

TEST(HostileScenario, WritersOnAHotChunkAreRefusedAndAStockClientStillReadsIt) {
  Scenario scenario("hot_chunk", store_args("hot_chunk"));
  std::atomic<int> refused{0}, accepted{0}, reads_ok{0}, reads_failed{0};
  std::string read_error;
  SecondWriter second;
  const auto second_until = Clock::now() + 7s;
  scenario.attack(8s, [&](const std::stop_token& stop) {
    std::jthread writer([&](const std::stop_token& s) { second.run(scenario.server().channel(), s, second_until); });
    std::vector<std::jthread> writers;
    writers.reserve(32);
    for (int w = 0; w < 32; ++w) {
      writers.emplace_back([&, w] {
        auto stub = v1::WorldService::NewStub(scenario.server().channel());
        while (!stop.stop_requested()) {
          grpc::ClientContext context;
          context.set_deadline(in(10s));
          v1::EditResponse response;
          const grpc::Status status = stub->Edit(&context, adds(9, 9, w % 2 ? 256 : 1, 1), &response);
          if (status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) ++refused;
          if (status.ok()) ++accepted;
          const bool down = !status.ok() && status.error_code() != grpc::StatusCode::RESOURCE_EXHAUSTED;
          if (down) std::this_thread::sleep_for(50ms);  // the server is stopping
        }
      });
    }
    // A stock client (4 MiB messages) reading the hot chunk with terrain at step 1.
    auto reader = v1::WorldService::NewStub(scenario.server().channel());
    while (!stop.stop_requested() && Clock::now() < second_until) {
      grpc::ClientContext context;
      context.set_deadline(in(5s));
      v1::GetChunkRequest request;
      request.mutable_coord()->set_x(9);
      request.mutable_coord()->set_z(9);
      request.mutable_options()->set_include_terrain(true);
      request.mutable_options()->set_terrain_step(1);
      v1::Chunk chunk;
      const grpc::Status status = reader->GetChunk(&context, request, &chunk);
      if (status.ok()) {
        ++reads_ok;
      } else {
        ++reads_failed;
        read_error = status.error_message();
      }
      std::this_thread::sleep_for(250ms);
    }
  });
  scenario.expect_within_bounds();
  std::printf("  hot_chunk: %d edits accepted, %d refused; reads %d OK, %d failed; second writer %d OK, %d failed\n",
              accepted.load(), refused.load(), reads_ok.load(), reads_failed.load(), second.ok.load(),
              second.failed.load());
  EXPECT_GT(refused.load(), 0);
  EXPECT_GT(reads_ok.load(), 0);
  EXPECT_EQ(reads_failed.load(), 0) << read_error;
  EXPECT_GT(second.ok.load(), 0);
  EXPECT_EQ(second.failed.load(), 0) << second.last_error;
}

// chunkforge_generation_seconds_count on /metrics; -1 if it cannot be read.
long long generations(int http_port) {
  std::string page;
  if (http_get(http_port, "/metrics", 2000ms, "127.0.0.1", &page) != 200) return -1;
  const size_t at = page.find("chunkforge_generation_seconds_count ");
  return at == std::string::npos ? -1 : std::stoll(page.substr(at + 36));
}

TEST(HostileScenario, RefusedEditsInFarChunksGenerateBoundedChunks) {
  Scenario scenario("refused_far_edits", store_args("refused_far_edits"));
  long long before = -1, after = -1;
  AsyncEdits unknown(scenario.server().channel()), stale(scenario.server().channel());
  scenario.attack(8s, [&](const std::stop_token& stop) {
    {  // (0, 0) at version 1: requests expecting version 0 are stale
      auto stub = v1::WorldService::NewStub(scenario.server().channel());
      grpc::ClientContext context;
      v1::EditResponse response;
      stub->Edit(&context, adds(0, 0, 1, 1), &response);
    }
    before = generations(scenario.server().http_port());
    // 63 far chunks (64 with the expected one: the most a request may name), ids they do not hold.
    v1::EditRequest unknown_ids;  // built once: the attacker's own cost is not the server's
    for (int i = 0; i < 256; ++i) op_at(unknown_ids, 200000 + i % 63, -200000)->set_remove_object(0x5eed0000ULL + i);
    v1::EditRequest stale_expects = unknown_ids;
    for (int i = 0; i < 256; ++i) {
      v1::ChunkVersion* e = stale_expects.add_expect();
      e->mutable_chunk()->set_x(0);
      e->mutable_chunk()->set_z(0);
    }
    const auto far = [&](int) { return unknown_ids; };
    const auto expecting_stale = [&](int) { return stale_expects; };
    std::jthread second([&](const std::stop_token& s) { stale.run(s, 16, expecting_stale); });
    std::jthread until([&](const std::stop_token&) {
      std::this_thread::sleep_for(7s);
      after = generations(scenario.server().http_port());
    });
    unknown.run(stop, 1000, far);
  });
  scenario.expect_within_bounds();
  std::printf(
      "  refused_far_edits: %lld generations; unknown ids: %d NOT_FOUND, %d RESOURCE_EXHAUSTED; stale: %d "
      "FAILED_PRECONDITION\n",
      after - before, unknown.count(grpc::StatusCode::NOT_FOUND), unknown.count(grpc::StatusCode::RESOURCE_EXHAUSTED),
      stale.count(grpc::StatusCode::FAILED_PRECONDITION));
  ASSERT_GE(before, 0);
  ASSERT_GE(after, before);
  // The 63 chunks once each, and a copy of some while the queue's threads race on one.
  EXPECT_LE(after - before, 256);
  EXPECT_GT(unknown.count(grpc::StatusCode::NOT_FOUND), 0);
  EXPECT_GT(stale.count(grpc::StatusCode::FAILED_PRECONDITION), 0);
}

}  // namespace
}  // namespace chunkforge::hostile
