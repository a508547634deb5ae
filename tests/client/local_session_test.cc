// A ViewSession that generates its pristine chunks itself (docs/client-generation.md), against a
// real in-process server on a loopback port with a real store (SQLite; the walk also on a
// PostgreSQL cluster started by the test):
// - the server sends no chunk bytes for pristine chunks and generates nothing; every copy is
//   byte for byte what GetChunk serves, with terrain and a layer filter too;
// - a walk while another client edits: after every step, every loaded copy is GetChunk's;
// - an edited chunk entering the view is its base with the server's changes, hash-checked;
// - a corrupted base (a generator that spoils one chunk) fails the hash and is fetched;
// - a generator of another world, a server without the generator version, and a server that
//   keeps its definition: the session falls back to server-sent chunks, says why once, and its
//   copies are still right;
// - a session that resumes after the server restarts keeps its chunks;
// - an edited chunk whose check failed, fetched during a store outage (PostgreSQL stopped), is
//   fetched again after a backoff until the store is back and the chunk is shown.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>

#include "chunkforge/chunk_hash.h"
#include "chunkforge/client.h"
#include "chunkforge/client/local_generator.h"
#include "chunkforge/v1/chunk.pb.h"
#include "chunkforge/world.h"
#include "edits/edit_service.h"
#include "support/eventually.h"
#include "support/lying_generator.h"
#include "support/store_server.h"
#include "support/view_copies.h"

namespace chunkforge::client {
namespace {

using namespace std::chrono_literals;
using test::eventually;

using test::LyingGenerator;

Position centre_of(ChunkCoord c) { return {static_cast<double>(c.x) * 64 + 32, static_cast<double>(c.z) * 64 + 32}; }

using test::Copies;

class LocalSessionTest : public testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { start(); }
  void TearDown() override {
    session_.reset();
    store_.stop();
  }

  void start(bool client_generation = true, int port = 0) {
    ASSERT_EQ(store_.start(client_generation, port), "");
    Result<Client> client = Client::connect(store_.target());
    ASSERT_TRUE(client) << client.status().to_string();
    client_.emplace(std::move(*client));
  }

  // The SDK's own local generator for the server's world.
  std::shared_ptr<BaseGenerator> generator() {
    Result<std::shared_ptr<BaseGenerator>> made = make_local_generator(*client_);
    EXPECT_TRUE(made) << made.status().to_string();
    return made ? *made : nullptr;
  }
  std::shared_ptr<LyingGenerator> liar() { return std::make_shared<LyingGenerator>(generator()); }

  void watch(ChunkCoord at, uint32_t radius, std::shared_ptr<BaseGenerator> generator, const ChunkOptions& chunk = {}) {
    ViewOptions view;
    view.view_radius = radius;
    view.chunk = chunk;
    view.generator = std::move(generator);
    options_ = chunk;
    auto session = ViewSession::start(*client_, centre_of(at), view, copies_.callbacks());
    ASSERT_TRUE(session) << session.status().to_string();
    session_ = std::move(*session);
  }

  // Whether the game holds exactly the view around `at`, each copy GetChunk's bytes.
  bool holds_served_view(ChunkCoord at, int64_t radius) {
    const std::map<ChunkCoord, Chunk> held = copies_.snapshot();
    if (held.size() != static_cast<size_t>((2 * radius + 1) * (2 * radius + 1))) return false;
    for (const auto& [c, chunk] : held) {
      if (std::max(std::abs(c.x - at.x), std::abs(c.z - at.z)) > radius) return false;
      Result<Chunk> served = client_->chunk(c, options_);
      if (!served || canonical_bytes(served->message()) != canonical_bytes(chunk.message())) return false;
    }
    return true;
  }

  uint64_t edit_some(ChunkCoord c, std::mt19937& random) {
    EditBatch batch;
    NewObject object;
    object.x = static_cast<float>(random() % 60 + 2);
    object.z = static_cast<float>(random() % 60 + 2);
    batch.add_object(c, object);
    const Result<Chunk> now = client_->chunk(c);
    if (now && now->objects().size() > 1) batch.remove_object(c, now->objects()[0].id);
    Result<EditResult> result = client_->edit(batch);
    EXPECT_TRUE(result) << result.status().to_string();
    return result ? result->versions.at(0).version : 0;
  }

  test::StoreServer store_{GetParam(), "local_session"};
  std::optional<Client> client_;
  ChunkOptions options_;
  Copies copies_;
  std::unique_ptr<ViewSession> session_;
};

TEST_P(LocalSessionTest, PristineChunksComeAsOffsetsAndTheServerGeneratesNothing) {
  ChunkOptions chunk;
  chunk.include_terrain = true;
  chunk.terrain_step = 4;
  watch({10, -7}, 3, generator(), chunk);
  ASSERT_TRUE(eventually([&] { return copies_.snapshot().size() == 49; }));
  const ViewStats stats = session_->stats();
  EXPECT_TRUE(stats.generating_locally) << stats.local_generation_refused;
  EXPECT_EQ(stats.chunks_generated, 49u);
  EXPECT_EQ(stats.chunks_downloaded, 0u);
  EXPECT_EQ(store_.server().cache().stats().entries, 0u) << "the server generated chunks for a local session";
  EXPECT_TRUE(holds_served_view({10, -7}, 3));
}

// The walk runs on both stores; the rest on SQLite.
using LocalWalkTest = LocalSessionTest;

TEST_P(LocalWalkTest, AWalkWhileAnotherClientEditsKeepsEveryCopyTheServers) {
  ChunkOptions chunk;
  chunk.layers = {0};  // a filter: the edited chunks' hashes are checked on a second, whole chunk
  watch({0, 0}, 2, generator(), chunk);
  std::mt19937 random(7);
  ChunkCoord at{0, 0};
  for (int step = 0; step < 8; ++step) {
    edit_some({at.x + 1, at.z}, random);      // in view now
    edit_some({at.x + 3, at.z + 1}, random);  // enters the view with the next step
    at.x += 1;
    session_->set_position(centre_of(at));
    ASSERT_TRUE(eventually([&] { return holds_served_view(at, 2); })) << "step " << step;
  }
  const ViewStats stats = session_->stats();
  EXPECT_TRUE(stats.generating_locally);
  EXPECT_GT(stats.edited_verified, 0u);
  EXPECT_EQ(stats.edited_mismatches, 0u);
  EXPECT_EQ(stats.change_hash_mismatches, 0u);
}

TEST_P(LocalSessionTest, ACorruptedBaseFailsTheHashAndIsFetched) {
  std::mt19937 random(3);
  const ChunkCoord spoiled{2, 0};
  edit_some(spoiled, random);
  auto generator = liar();
  generator->spoiled = spoiled;
  watch({0, 0}, 2, generator);
  ASSERT_TRUE(eventually([&] { return holds_served_view({0, 0}, 2); }));
  EXPECT_EQ(session_->stats().edited_mismatches, 1u);
}

TEST_P(LocalSessionTest, AGeneratorOfAnotherWorldFallsBackToServerChunks) {
  auto generator = liar();
  generator->other_fingerprint = "0123456789abcdef";
  watch({0, 0}, 1, generator);
  ASSERT_TRUE(eventually([&] { return holds_served_view({0, 0}, 1); }));
  const ViewStats stats = session_->stats();
  EXPECT_FALSE(stats.generating_locally);
  EXPECT_EQ(stats.chunks_downloaded, 9u);
  EXPECT_NE(stats.local_generation_refused.find("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(copies_.errors.size(), 1u) << "the reason is said once";
}

TEST_P(LocalSessionTest, AServerWithoutTheGeneratorVersionSendsChunksWhole) {
  auto generator = liar();
  generator->versions = {99};
  watch({0, 0}, 1, generator);
  ASSERT_TRUE(eventually([&] { return holds_served_view({0, 0}, 1); }));
  const ViewStats stats = session_->stats();
  EXPECT_FALSE(stats.generating_locally);
  EXPECT_NE(stats.local_generation_refused.find("generator version"), std::string::npos)
      << stats.local_generation_refused;
}

TEST_P(LocalSessionTest, AServerThatKeepsItsDefinitionSendsChunksWhole) {
  std::shared_ptr<BaseGenerator> made = generator();  // while the definition is shared
  store_.stop();
  start(/*client_generation=*/false);
  watch({0, 0}, 1, made);
  ASSERT_TRUE(eventually([&] { return holds_served_view({0, 0}, 1); }));
  EXPECT_NE(session_->stats().local_generation_refused.find("--client-generation off"), std::string::npos)
      << session_->stats().local_generation_refused;
}

TEST_P(LocalSessionTest, AResumedSessionKeepsItsChunksAndGetsOnlyWhatChanged) {
  watch({0, 0}, 2, generator());
  ASSERT_TRUE(eventually([&] { return holds_served_view({0, 0}, 2); }));
  const int port = store_.port();
  store_.stop();
  // While the session is away (its port closed), a server on another port of the same store
  // takes an edit; then the session's server comes back.
  start(true, 0);
  std::mt19937 random(11);
  edit_some({1, 1}, random);
  store_.stop();
  start(true, port);
  ASSERT_TRUE(eventually([&] { return session_->stats().reconnects >= 1 && holds_served_view({0, 0}, 2); }));
  const ViewStats stats = session_->stats();
  EXPECT_EQ(stats.chunks_generated, 25u + 1u) << "only the chunk edited meanwhile is made again";
}

// A store outage, timed between the server's answer and the client's fetch: PostgreSQL only.
using LocalOutageTest = LocalSessionTest;

TEST_P(LocalOutageTest, AFetchThatFailsInAStoreOutageIsTriedAgainUntilTheChunkIsShown) {
  std::mt19937 random(5);
  const ChunkCoord spoiled{1, 0};
  edit_some(spoiled, random);
  auto generator = liar();
  generator->spoiled = spoiled;  // its check fails: the session fetches it whole,
  generator->held = spoiled;     // once the store is down
  watch({0, 0}, 1, generator);
  ASSERT_TRUE(generator->wait_holding(std::chrono::seconds(20)));
  store_.postgres()->stop();
  generator->release();
  ASSERT_TRUE(eventually([&] { return session_->stats().refetches_failed >= 1; }));
  EXPECT_EQ(copies_.snapshot().count(spoiled), 0u) << "a chunk whose check failed is shown";
  ASSERT_TRUE(store_.postgres()->start());
  ASSERT_TRUE(eventually([&] { return holds_served_view({0, 0}, 1); }));
  EXPECT_GE(session_->stats().refetches_retried, 1u);
  EXPECT_EQ(session_->stats().edited_mismatches, 1u);
}

INSTANTIATE_TEST_SUITE_P(Sqlite, LocalSessionTest, testing::Values("sqlite"));
INSTANTIATE_TEST_SUITE_P(Postgres, LocalOutageTest, testing::Values("postgres"));
INSTANTIATE_TEST_SUITE_P(Stores, LocalWalkTest, testing::Values("sqlite", "postgres"));

}  // namespace
}  // namespace chunkforge::client
