// Hostile sessions of clients that generate (docs/client-generation.md), against the server
// binary on a SQLite store with 256 edited chunks: 16 sessions that declare local generation,
// radius 16, each jumping every 10 ms between the edited area (whose chunks the server answers
// from the store's log, at most 8 reads per session at once) and far pristine ground (answered
// from the version index alone), and one more that never reads. Besides the harness's bounds:
// the sessions were accepted and got both kinds of entries, so the attack measured that path.
// Also GetChunkEdits, the same question for a client's chunks and regions, flooded over the same
// edited middle.
#include "harness.h"

#include <atomic>

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
  std::atomic<int> accepted{0}, pristine{0}, edited{0};
};

void jump_locally(ServerProcess& server, const v1::LocalGeneration& local, Seen& seen, std::stop_token stop) {
  struct Jumper {
    grpc::ClientContext context;
    std::unique_ptr<grpc::ClientReaderWriter<v1::SessionUpdate, v1::SessionEvent>> stream;
    std::jthread reader;
  };
  auto stub = v1::WorldService::NewStub(server.channel());
  std::vector<std::unique_ptr<Jumper>> jumpers;
  for (int s = 0; s < 17; ++s) {
    auto j = std::make_unique<Jumper>();
    j->stream = stub->Session(&j->context);
    if (s > 0) {  // the first never reads
      j->reader = std::jthread([stream = j->stream.get(), &seen] {
        v1::SessionEvent event;
        while (stream->Read(&event)) {
          seen.accepted += event.local_generation().accepted() ? 1 : 0;
          seen.pristine += event.pristine().offsets_size() / 2;
          seen.edited += event.has_edited() ? 1 : 0;
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
      update.set_x(k % 2 == 0 ? 0.0 : static_cast<double>(k) * 1e5);
      update.set_z(k % 2 == 0 ? 0.0 : static_cast<double>(s) * 1e7);
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
  scenario.attack(8s, [&](std::stop_token stop) { jump_locally(scenario.server(), local, seen, stop); });
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
                       std::stop_token stop) {
  std::vector<std::jthread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      auto stub = v1::WorldService::NewStub(server.channel());
      v1::GetChunkEditsRequest request;
      *request.mutable_local_generation() = local;
      request.mutable_centre();
      request.set_radius(16);
      for (int k = 0; !stop.stop_requested(); ++k) {
        grpc::ClientContext context;
        if ((k + t) % 2 == 0) context.set_deadline(std::chrono::system_clock::now() + 5ms);
        v1::ChunkEdits answer;
        if (stub->GetChunkEdits(&context, request, &answer).ok()) answered += answer.edited_size() > 0 ? 1 : 0;
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
  scenario.attack(8s, [&](std::stop_token stop) { flood_chunk_edits(scenario.server(), local, answered, stop); });
  scenario.expect_within_bounds();
  std::printf("hostile chunk_edits: %d answers with edited chunks\n", answered.load());
  EXPECT_GT(answered, 0) << "the flood never reached the store's logs";
}

}  // namespace
}  // namespace chunkforge::hostile
