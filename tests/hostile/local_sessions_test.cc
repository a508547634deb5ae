// Hostile sessions of clients that generate (docs/client-generation.md), against the server
// binary on a SQLite store with 256 edited chunks: 16 sessions that declare local generation,
// radius 16, each jumping every 10 ms between the edited area (whose chunks the server answers
// from the store's log, at most 8 reads per session at once) and far pristine ground (answered
// from the version index alone), and one more that never reads. Besides the harness's bounds:
// the sessions were accepted and got both kinds of entries, so the attack measured that path.
// Also GetChunkEdits, the same question for a client's chunks and regions, flooded over the same
// edited middle. And both at once on a world upgraded after launch, from clients that hold every
// epoch, so that each answer carries older land (SessionEvent.older_land, ChunkEdits.older_land).
#include "harness.h"

#include <atomic>
#include <functional>
#include <utility>

namespace chunkforge::hostile {
namespace {

// One add in each of the 16 x 16 chunks around the origin, 64 chunks a request (the limit).
void edit_the_middle(ServerProcess& server) {
  auto stub = v1::WorldService::NewStub(server.channel());
  for (int batch = 0; batch < 4; ++batch) {
    v1::EditRequest request;
    for (int i = batch * 64; i < (batch + 1) * 64; ++i) {
      v1::EditOp* op = request.add_ops();
      op->mutable_chunk()->set_x(i % 16 - 8);
      op->mutable_chunk()->set_z(i / 16 - 8);
      op->mutable_add_object()->set_x(10);
      op->mutable_add_object()->set_z(10);
    }
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::duration_cast<std::chrono::milliseconds>(30s * time_scale()));
    v1::EditResponse response;
    const grpc::Status status = stub->Edit(&context, request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }
}

v1::LocalGeneration declared(ServerProcess& server) {
  auto stub = v1::WorldService::NewStub(server.channel());
  grpc::ClientContext context;
  v1::WorldInfo info;
  EXPECT_TRUE(stub->GetWorldInfo(&context, {}, &info).ok());
  v1::LocalGeneration local;
  local.add_generator_versions(info.generator_version());
  local.set_fingerprint(info.fingerprint());
  return local;
}

struct Seen {
  std::atomic<int> accepted{0}, pristine{0}, edited{0}, older_land{0};
};

// Where session s stands at its k-th update (world units).
using Where = std::function<std::pair<double, double>(int64_t k, size_t s)>;

// Between the edited middle and far ground, every other update.
std::pair<double, double> middle_or_far(int64_t k, size_t s) {
  if (k % 2 == 0) return {0.0, 0.0};
  return {static_cast<double>(k) * 1e5, static_cast<double>(s) * 1e7};
}

void jump_locally(ServerProcess& server, const v1::LocalGeneration& local, Seen& seen, const std::stop_token& stop,
                  const Where& where = middle_or_far, int readers = 16) {
  struct Jumper {
    grpc::ClientContext context;
    std::unique_ptr<grpc::ClientReaderWriter<v1::SessionUpdate, v1::SessionEvent>> stream;
    std::jthread reader;
  };
  auto stub = v1::WorldService::NewStub(server.channel());
  std::vector<std::unique_ptr<Jumper>> jumpers;
  for (int s = 0; s <= readers; ++s) {
    auto j = std::make_unique<Jumper>();
    j->stream = stub->Session(&j->context);
    if (s > 0) {  // the first never reads
      j->reader = std::jthread([stream = j->stream.get(), &seen] {
        v1::SessionEvent event;
        while (stream->Read(&event)) {
          seen.accepted += event.local_generation().accepted() ? 1 : 0;
          seen.pristine += event.pristine().offsets_size() / 2;
          seen.edited += event.has_edited() ? 1 : 0;
          seen.older_land += event.older_land().empty() ? 0 : 1;
        }
      });
    }
    jumpers.push_back(std::move(j));
  }
  v1::SessionUpdate update;
  update.set_view_radius(16);
  *update.mutable_local_generation() = local;
  for (int64_t k = 1; !stop.stop_requested(); ++k) {
    for (size_t s = 0; s < jumpers.size(); ++s) {
      const auto [x, z] = where(k, s);
      update.set_x(x);
      update.set_z(z);
      jumpers[s]->stream->Write(update);  // may fail once the server ended it: it goes on
    }
    std::this_thread::sleep_for(10ms);
  }
  for (auto& j : jumpers) j->context.TryCancel();
  for (auto& j : jumpers) {
    if (j->reader.joinable()) j->reader.join();
  }
}

TEST(HostileScenario, LocalSessionsJumpingOverEditedChunks) {
  Scenario scenario("local_sessions", {"--data", test::unique_temp_dir("hostile_local_data"), "--open-edits"});
  ASSERT_TRUE(scenario.server().serving()) << scenario.server().log();
  edit_the_middle(scenario.server());
  const v1::LocalGeneration local = declared(scenario.server());
  Seen seen;
  scenario.attack(8s, [&](const std::stop_token& stop) { jump_locally(scenario.server(), local, seen, stop); });
  scenario.expect_within_bounds();
  std::printf("hostile local_sessions: %d accepted, %d pristine entries, %d edited chunks\n", seen.accepted.load(),
              seen.pristine.load(), seen.edited.load());
  EXPECT_EQ(seen.accepted, 16);
  EXPECT_GT(seen.pristine, 0);
  EXPECT_GT(seen.edited, 0);
}

// GetChunkEdits flooded: 8 threads asking back to back for the radius-16 region over the edited
// middle (256 logs read from the store per call, on the generation queue), every other call
// given up after 5 ms (abandoned: queued or reading).
void flood_chunk_edits(ServerProcess& server, const v1::LocalGeneration& local, std::atomic<int>& answered,
                       const std::stop_token& stop, int64_t centre_x = 0, int thread_count = 8) {
  std::vector<std::jthread> threads;
  threads.reserve(static_cast<size_t>(thread_count));
  for (int t = 0; t < thread_count; ++t) {
    threads.emplace_back([&, t] {
      auto stub = v1::WorldService::NewStub(server.channel());
      v1::GetChunkEditsRequest request;
      *request.mutable_local_generation() = local;
      request.mutable_centre()->set_x(centre_x);
      request.set_radius(16);
      for (int k = 0; !stop.stop_requested(); ++k) {
        grpc::ClientContext context;
        if ((k + t) % 2 == 0) context.set_deadline(std::chrono::system_clock::now() + 5ms);
        v1::ChunkEdits answer;
        if (stub->GetChunkEdits(&context, request, &answer).ok()) {
          answered += answer.edited_size() > 0 || !answer.older_land().empty() ? 1 : 0;
        }
      }
    });
  }
}

TEST(HostileScenario, ChunkEditsFloodOverEditedChunks) {
  Scenario scenario("chunk_edits", {"--data", test::unique_temp_dir("hostile_chunk_edits"), "--open-edits"});
  ASSERT_TRUE(scenario.server().serving()) << scenario.server().log();
  edit_the_middle(scenario.server());
  const v1::LocalGeneration local = declared(scenario.server());
  std::atomic<int> answered{0};
  scenario.attack(8s,
                  [&](const std::stop_token& stop) { flood_chunk_edits(scenario.server(), local, answered, stop); });
  scenario.expect_within_bounds();
  std::printf("hostile chunk_edits: %d answers with edited chunks\n", answered.load());
  EXPECT_GT(answered, 0) << "the flood never reached the store's logs";
}

// One chunk edited in each of 32 x 32 regions of 16 x 16 chunks around the origin: after an
// upgrade, older land (every edited chunk is marked seen) in each region a view can reach.
void edit_one_a_region(ServerProcess& server) {
  auto stub = v1::WorldService::NewStub(server.channel());
  for (int batch = 0; batch < 16; ++batch) {
    v1::EditRequest request;
    for (int i = batch * 64; i < (batch + 1) * 64; ++i) {
      v1::EditOp* op = request.add_ops();
      op->mutable_chunk()->set_x((i % 32 - 16) * 16 + 3);
      op->mutable_chunk()->set_z((i / 32 - 16) * 16 + 5);
      op->mutable_add_object()->set_x(10);
      op->mutable_add_object()->set_z(10);
    }
    grpc::ClientContext context;
    v1::EditResponse response;
    ASSERT_TRUE(stub->Edit(&context, request, &response).ok());
  }
}

// 8 sessions (and one that never reads) hold both epochs and jump across the upgraded land,
// each update to another spot of it (a new set of regions: the server's record of what it sent
// fills and starts afresh); GetChunkEdits is flooded over the same land meanwhile by 2 threads.
// Together about what local_sessions loads the server with: each update here moves a whole view
// to new land, as only every other one does there.
TEST(HostileScenario, EpochSessionsJumpingOverOlderLand) {
  const std::string data = test::unique_temp_dir("hostile_epochs_data");
  v1::LocalGeneration local;
  {
    ServerProcess before("epochs_before", {"--data", data, "--open-edits"});
    ASSERT_TRUE(before.serving()) << before.log();
    edit_one_a_region(before);
    local = declared(before);
  }
  const std::string upgrade = std::string(CHUNKFORGE_CLI) + " world upgrade -4 -4 4 4 --data " + data + " --from " +
                              CHUNKFORGE_SOURCE_DIR + "/docs/worlds/default.json --to " + CHUNKFORGE_SOURCE_DIR +
                              "/tests/lib/worlds/epoch_next.json";
  const test::CommandResult upgraded = test::run_command(upgrade);
  ASSERT_EQ(upgraded.exit_code, 0) << upgraded.output;
  Scenario scenario("epoch_sessions", {"--data", data, "--open-edits", "--world",
                                       std::string(CHUNKFORGE_SOURCE_DIR) + "/tests/lib/worlds/epoch_next.json"});
  ASSERT_TRUE(scenario.server().serving()) << scenario.server().log();
  local.set_older_epochs(local.fingerprint());  // epoch 0 is the world the store ran
  const v1::LocalGeneration newest = declared(scenario.server());
  local.set_fingerprint(newest.fingerprint());
  local.add_generator_versions(newest.generator_versions(0));
  Seen seen;
  std::atomic<int> answered{0};
  const Where across = [](int64_t k, size_t s) {
    const auto spot = [](int64_t n) { return static_cast<double>((n * 7919) % 480 - 240) * 64; };
    return std::pair{spot(k * 17 + static_cast<int64_t>(s)), spot(k * 31 + static_cast<int64_t>(s) * 3)};
  };
  scenario.attack(8s, [&](const std::stop_token& stop) {
    std::jthread flood(
        [&](const std::stop_token& inner) { flood_chunk_edits(scenario.server(), local, answered, inner, 40, 2); });
    jump_locally(scenario.server(), local, seen, stop, across, 8);
  });
  scenario.expect_within_bounds();
  std::printf(
      "hostile epoch_sessions: %d accepted, %d pristine entries, %d edited chunks, %d events with older land; "
      "%d GetChunkEdits answers with edits or older land\n",
      seen.accepted.load(), seen.pristine.load(), seen.edited.load(), seen.older_land.load(), answered.load());
  EXPECT_EQ(seen.accepted, 8);
  EXPECT_GT(seen.older_land, 100);
  EXPECT_GT(answered, 0);
}

}  // namespace
}  // namespace chunkforge::hostile
