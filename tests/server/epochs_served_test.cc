// A world upgraded on a real store and served by two replicas (docs/world-definition.md,
// "Epochs"), on SQLite and PostgreSQL: `chunkforge world upgrade` adds the next epoch; the land
// players were sent and every edited chunk keep their bytes, land away from them is the new
// world's own, the seam is the library's blend on both replicas in any order, clients that
// generate (GetChunkEdits, sessions) are sent what they cannot make, and a server left on the old world records
// nothing.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "chunkforge/encode.h"
#include "edit_server_fixture.h"
#include "lib/two_epochs.h"
#include "support/eventually.h"
#include "support/server_process.h"
#include "world_epochs.h"

namespace chunkforge::server {
namespace {

constexpr ChunkCoord kEdited{40, 0};  // edited while nobody saw it
constexpr ChunkCoord kSeam{4, 1};     // new land beside the seen square
constexpr ChunkCoord kFar{200, 200};  // new land beyond every seam's reach

class EpochsServedTest : public EditServerTest {
 protected:
  struct Replica {
    std::unique_ptr<WorldServer> server;
    std::unique_ptr<v1::WorldService::Stub> stub;
  };
  // A server on the test's store (with its epochs, as chunkforge-server loads them), or on no
  // store at all.
  Replica replica(const World& world, bool with_store = true) {
    ServerOptions options;
    options.listen = "127.0.0.1:0";
    options.http = "";
    options.threads = 2;
    if (with_store) {
      options.store = open_store(location());
      EXPECT_EQ(bind_store(*options.store, world, false), "");
      EpochsLoad epochs = load_epochs(*options.store, world);
      EXPECT_EQ(epochs.error, "");
      options.epochs = epochs.epochs;
    }
    Replica r{std::make_unique<WorldServer>(world, options), nullptr};
    EXPECT_TRUE(r.server->start());
    r.stub = v1::WorldService::NewStub(
        grpc::CreateChannel("127.0.0.1:" + std::to_string(r.server->port()), grpc::InsecureChannelCredentials()));
    return r;
  }
  static std::string bytes(v1::WorldService::Stub& stub, ChunkCoord c) {
    grpc::ClientContext context;
    v1::GetChunkRequest request;
    request.mutable_coord()->set_x(c.x);
    request.mutable_coord()->set_z(c.z);
    request.mutable_options()->set_include_terrain(true);
    request.mutable_options()->set_terrain_step(4);
    v1::Chunk out;
    EXPECT_TRUE(stub.GetChunk(&context, request, &out).ok()) << c.x << "," << c.z;
    return canonical_bytes(out);
  }
  // What a session of a client that generates with `world` gets at chunk c, radius 1: chunks
  // sent whole, and chunks it is told to make.
  struct LocalView {
    int loads = 0, pristine = 0;
  };
  static LocalView local_view(v1::WorldService::Stub& stub, const World& world, ChunkCoord c) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    auto session = stub.Session(&context);
    v1::SessionUpdate update;
    update.set_x(static_cast<double>(c.x * world.chunk_size() + 1));
    update.set_z(static_cast<double>(c.z * world.chunk_size() + 1));
    update.set_view_radius(1);
    update.mutable_local_generation()->add_generator_versions(world.generator_version());
    update.mutable_local_generation()->set_fingerprint(world.fingerprint());
    EXPECT_TRUE(session->Write(update));
    v1::SessionEvent event;
    EXPECT_TRUE(session->Read(&event) && event.local_generation().accepted());
    LocalView view;
    while (view.loads + view.pristine < 9 && session->Read(&event)) {
      if (event.has_load()) ++view.loads;
      view.pristine += event.pristine().offsets_size() / 2;
    }
    context.TryCancel();
    return view;
  }
  test::CommandResult upgrade(const std::string& from, const std::string& to) {
    return test::run_command(std::string(CHUNKFORGE_CLI) + " world upgrade 0 0 4 4 --store " + location() + " --from " +
                             CHUNKFORGE_SOURCE_DIR + from + " --to " + CHUNKFORGE_SOURCE_DIR + to);
  }
};

TEST_P(EpochsServedTest, AnUpgradeKeepsSeenLandAndEditsAndTwoReplicasServeTheNewEpoch) {
  // Epoch 0: players see a 3 x 3 square; a chunk far from it is edited unseen.
  std::map<std::pair<int64_t, int64_t>, std::string> before;
  for (int64_t z = 0; z <= 2; ++z) {
    for (int64_t x = 0; x <= 2; ++x) before[{x, z}] = bytes(*stub_, {x, z});
  }
  v1::EditRequest request;
  v1::NewObject* added = op_at(request, kEdited.x, kEdited.z)->mutable_add_object();
  added->set_x(10.5f);
  added->set_z(20.25f);
  ASSERT_TRUE(edit(request).ok());
  ASSERT_TRUE(test::eventually([&] { return open_store(location())->seen_land().chunks_seen() == 9; }));
  ASSERT_FALSE(open_store(location())->seen_land().epoch_of(kEdited).has_value());

  const std::string old_world = "/docs/worlds/default.json", new_world = "/tests/lib/worlds/epoch_next.json";
  const test::CommandResult wrong = upgrade(new_world, old_world);
  EXPECT_EQ(wrong.exit_code, 2) << wrong.output;
  EXPECT_NE(wrong.output.find("give the world its servers run now"), std::string::npos) << wrong.output;
  const test::CommandResult applied = upgrade(old_world, new_world);
  ASSERT_EQ(applied.exit_code, 0) << applied.output;
  EXPECT_NE(applied.output.find("9 chunks, and 1 more edited unseen"), std::string::npos) << applied.output;
  EXPECT_NE(applied.output.find("9 kept"), std::string::npos) << applied.output;
  EXPECT_NE(applied.output.find("added epoch 1"), std::string::npos) << applied.output;
  EXPECT_EQ(open_store(location())->seen_land().epoch_of(kEdited), 0u);  // its edits stay on epoch 0's base

  // The server still on epoch 0 serves on, but what it sends is no longer recorded.
  const std::string edited_before = bytes(*stub_, kEdited);
  const std::string far_old = bytes(*stub_, kFar);
  ASSERT_TRUE(test::eventually([&] { return server_->edits()->seen().counts().chunks_stale >= 2; }));
  EXPECT_EQ(open_store(location())->seen_land().chunks_seen(), 10u);  // the square and the edited chunk
  stop();
  EXPECT_NE(bind_store(*open_store(location()), default_world(), false).find("upgraded"), std::string::npos);

  // Two replicas on the new epoch, asked in opposite orders, against the library and the new
  // world served alone (bytes compared whole, printed by neither on a failure).
  Replica a = replica(test::next_epoch_world()), b = replica(test::next_epoch_world());
  Replica plain = replica(test::next_epoch_world(), false);
  EpochsResult epochs =
      Epochs::create({default_world(), test::next_epoch_world()}, open_store(location())->seen_land());
  ASSERT_TRUE(epochs.ok());
  const std::string seam_a = bytes(*a.stub, kSeam), far_a = bytes(*a.stub, kFar);
  EXPECT_TRUE(bytes(*b.stub, kFar) == far_a);
  EXPECT_TRUE(bytes(*b.stub, kSeam) == seam_a);
  EXPECT_TRUE(seam_a == canonical_bytes(epochs.epochs->encode(kSeam, 4)));
  EXPECT_TRUE(seam_a != bytes(*plain.stub, kSeam));  // blended
  EXPECT_TRUE(far_a == bytes(*plain.stub, kFar));    // the new world's own
  EXPECT_TRUE(far_a != far_old);
  for (const auto& [c, old] : before) {
    EXPECT_TRUE(bytes(*a.stub, {c.first, c.second}) == old) << c.first << "," << c.second;
    EXPECT_TRUE(bytes(*b.stub, {c.first, c.second}) == old) << c.first << "," << c.second;
  }
  EXPECT_TRUE(bytes(*b.stub, kEdited) == edited_before);

  // A client that generates with the new world is sent the chunks it cannot make.
  grpc::ClientContext context;
  v1::GetChunkEditsRequest asked;
  asked.mutable_local_generation()->add_generator_versions(test::next_epoch_world().generator_version());
  asked.mutable_local_generation()->set_fingerprint(test::next_epoch_world().fingerprint());
  for (const ChunkCoord c : {ChunkCoord{1, 1}, kSeam, kFar}) {
    v1::ChunkCoord* coord = asked.add_coords();
    coord->set_x(c.x);
    coord->set_z(c.z);
  }
  v1::ChunkEdits answer;
  ASSERT_TRUE(a.stub->GetChunkEdits(&context, asked, &answer).ok());
  ASSERT_EQ(answer.not_sent_size(), 2);
  EXPECT_EQ(answer.not_sent(0).x(), 1);
  EXPECT_EQ(answer.not_sent(1).x(), kSeam.x);
  const LocalView near = local_view(*b.stub, test::next_epoch_world(), {1, 1});
  EXPECT_EQ(near.loads, 9);
  EXPECT_EQ(near.pristine, 0);
  const LocalView far = local_view(*b.stub, test::next_epoch_world(), kFar);
  EXPECT_EQ(far.loads, 0);
  EXPECT_EQ(far.pristine, 9);
  for (Replica* r : {&a, &b, &plain}) r->server->shutdown(std::chrono::seconds(2));

  // A third epoch follows the second (here the first world back): the list grows.
  const test::CommandResult third = upgrade(new_world, old_world);
  ASSERT_EQ(third.exit_code, 0) << third.output;
  EXPECT_NE(third.output.find("added epoch 2"), std::string::npos) << third.output;
  const EpochsLoad three = load_epochs(*open_store(location()), default_world());
  ASSERT_EQ(three.error, "");
  EXPECT_EQ(three.epochs->newest(), 2u);
  EXPECT_EQ(three.epochs->world(1).fingerprint(), test::next_epoch_world().fingerprint());
}

INSTANTIATE_TEST_SUITE_P(Stores, EpochsServedTest, testing::Values("sqlite", "postgres"),
                         [](const testing::TestParamInfo<std::string>& p) { return p.param; });

}  // namespace
}  // namespace chunkforge::server
