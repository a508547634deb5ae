// A ViewSession checks every change it applies (docs/edits.md, "Checking a copy"), against a
// real in-process server on a loopback port with a SQLite store in a temporary directory:
// - a change holding an edit kind this SDK does not know (written into the store as a newer
//   server would, and published by the server's tail like any other) is not applied: the chunk
//   is fetched again and the copy is the server's bytes;
// - a copy gone wrong (spoiled through the SDK's test hook) is caught by the next change's hash
//   and fetched again;
// - ordinary edits are applied and every hash matches, with no fetch;
// - a chunk whose events never hash right is fetched at most once per change, never in a loop.
#include <google/protobuf/unknown_field_set.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "chunkforge/chunk_edits.h"
#include "chunkforge/chunk_hash.h"
#include "chunkforge/client.h"
#include "chunkforge/v1/chunk.pb.h"
#include "chunkforge/v1/edit.pb.h"
#include "edits/edit_service.h"
#include "support/eventually.h"
#include "support/free_port.h"
#include "support/temp_dir.h"
#include "view_session_testing.h"
#include "world_server.h"

namespace chunkforge::client {
namespace {

using namespace std::chrono_literals;
using test::eventually;

Position centre_of(ChunkCoord c) { return {static_cast<double>(c.x) * 64 + 32, static_cast<double>(c.z) * 64 + 32}; }

// The session's copies as the game sees them through the callbacks.
struct Copies {
  std::mutex mutex;
  std::map<ChunkCoord, Chunk> held;
  int replaced = 0;

  ViewCallbacks callbacks() {
    ViewCallbacks c;
    c.on_load = [this](const Chunk& chunk) {
      std::lock_guard lock(mutex);
      held.insert_or_assign(chunk.coord(), chunk);
    };
    c.on_unload = [this](ChunkCoord coord) {
      std::lock_guard lock(mutex);
      held.erase(coord);
    };
    c.on_change = [this](const Chunk& chunk, const ChunkChangeInfo& info) {
      std::lock_guard lock(mutex);
      held.insert_or_assign(chunk.coord(), chunk);
      replaced += info.replaced ? 1 : 0;
    };
    return c;
  }
  std::optional<Chunk> at_version(ChunkCoord c, uint64_t version) {
    std::optional<Chunk> out;
    eventually([&] {
      std::lock_guard lock(mutex);
      const auto it = held.find(c);
      if (it != held.end() && it->second.edit_version() == version) out = it->second;
      return out.has_value();
    });
    return out;
  }
  size_t size() {
    std::lock_guard lock(mutex);
    return held.size();
  }
};

class ChangeCheckTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::unique_temp_dir("sdk_change_check");
    server::ServerOptions options;
    options.listen = "127.0.0.1:" + std::to_string(test::free_port());
    options.http = "";
    options.threads = 2;
    options.cache_mb = 64;
    options.store = server::open_store("sqlite:" + dir_ + "edits.db");
    ASSERT_EQ(server::bind_store(*options.store, default_world(), false), "");
    options.open_edits = true;
    server_ = std::make_unique<server::WorldServer>(default_world(), options);
    ASSERT_TRUE(server_->start());
    Result<Client> client = Client::connect(options.listen);
    ASSERT_TRUE(client) << client.status().to_string();
    client_.emplace(std::move(*client));
  }
  void TearDown() override {
    session_.reset();
    if (server_) server_->shutdown(100ms);
  }

  // A session over the 3 x 3 chunks around (0, 0), once all of them are loaded.
  void watch(ViewOptions view = {}) {
    view.view_radius = 1;
    auto session = ViewSession::start(*client_, centre_of({0, 0}), view, copies_.callbacks());
    ASSERT_TRUE(session) << session.status().to_string();
    session_ = std::move(*session);
    ASSERT_TRUE(eventually([&] { return copies_.size() == 9; }));
  }

  // The chunk GetChunk serves now.
  v1::Chunk served(ChunkCoord c, const ChunkOptions& options = {}) {
    Result<Chunk> chunk = client_->chunk(c, options);
    EXPECT_TRUE(chunk) << chunk.status().to_string();
    return chunk ? chunk->message() : v1::Chunk{};
  }

  // Appends `changes` to the log of `c` as a newer server would, through a connection of its
  // own to the store (as `chunkforge edits import` beside a running server); the server's tail
  // publishes them to the sessions. Each gets the hash of the chunk a reader of the store gets,
  // unless it has one (or `hashed` is false).
  void inject(ChunkCoord c, std::vector<v1::ChunkChange> changes) { inject(c, std::move(changes), true); }
  // The same, every change stored with chunk_hash 0 (a server from before the field).
  void inject_unhashed(ChunkCoord c, std::vector<v1::ChunkChange> changes) { inject(c, std::move(changes), false); }

  void inject(ChunkCoord c, std::vector<v1::ChunkChange> changes, bool hashed) {
    v1::Chunk chunk = served(c);
    std::unique_ptr<server::EditStore> store = server::open_store("sqlite:" + dir_ + "edits.db");
    store->write([&](server::EditStore::Transaction& tx) {
      uint64_t version = tx.version({c.x, c.z});
      for (v1::ChunkChange& change : changes) {
        change.set_version(++version);
        apply_change(chunk, change, {});
        if (hashed && change.chunk_hash() == 0) change.set_chunk_hash(chunk_hash(chunk));
        change.clear_version();  // stored without it (the row's column)
        tx.append({c.x, c.z}, version, change.SerializeAsString());
      }
    });
  }

  std::string dir_;
  std::unique_ptr<server::WorldServer> server_;
  std::optional<Client> client_;
  Copies copies_;
  std::unique_ptr<ViewSession> session_;
};

// (a) A newer server's edit kind (a oneof member this SDK was built without, which it sees as an
// unknown field and EDIT_NOT_SET): where the newer server's chunk differs from what this SDK
// makes of the change (the hash does not match), the change is not applied; the chunk is fetched
// again and is the server's. An edit with no kind and no hash is fetched too.
TEST_F(ChangeCheckTest, AnEditKindTheSdkDoesNotKnowIsFetchedAgain) {
  watch();
  const ChunkCoord c{1, 0};
  const v1::Chunk before = served(c);
  ASSERT_GE(before.objects().id_size(), 2);
  v1::ChunkChange newer;
  newer.add_edits()->set_remove_object(before.objects().id(0));
  v1::ChunkEdit* unknown = newer.add_edits();
  unknown->GetReflection()->MutableUnknownFields(unknown)->AddLengthDelimited(15, "a newer server's edit");
  // What the newer server's chunk hashes to: its new edit removed a second object.
  v1::Chunk theirs = before;
  v1::ChunkChange as_they_apply;
  as_they_apply.set_version(1);
  as_they_apply.add_edits()->set_remove_object(before.objects().id(0));
  as_they_apply.add_edits()->set_remove_object(before.objects().id(1));
  apply_change(theirs, as_they_apply, {});
  newer.set_chunk_hash(chunk_hash(theirs));
  inject(c, {newer});
  std::optional<Chunk> copy = copies_.at_version(c, 1);
  ASSERT_TRUE(copy);
  EXPECT_EQ(canonical_bytes(copy->message()), canonical_bytes(served(c)));

  v1::ChunkChange empty;
  empty.add_edits();
  inject_unhashed(c, {empty});
  copy = copies_.at_version(c, 2);
  ASSERT_TRUE(copy);
  EXPECT_EQ(canonical_bytes(copy->message()), canonical_bytes(served(c)));
  ASSERT_TRUE(eventually([&] { return session_->stats().changes_refetched == 2; }));
  const ViewStats stats = session_->stats();
  EXPECT_EQ(stats.changes_not_understood, 2u);
  EXPECT_EQ(stats.changes_applied, 0u);
  EXPECT_EQ(stats.change_hash_mismatches, 0u);
  std::lock_guard lock(copies_.mutex);
  EXPECT_EQ(copies_.replaced, 2);
}

// (a') A newer server's field that leaves the chunk as this SDK makes it (the hash matches) is
// applied, checked, and costs no fetch: adding a field to the change does not make every older
// client fetch the chunks it touches.
TEST_F(ChangeCheckTest, ANewerFieldThatTheHashConfirmsIsApplied) {
  watch();
  const ChunkCoord c{1, 0};
  const v1::Chunk before = served(c);
  ASSERT_GT(before.objects().id_size(), 0);
  v1::ChunkChange newer;
  newer.add_edits()->set_remove_object(before.objects().id(0));
  newer.GetReflection()->MutableUnknownFields(&newer)->AddVarint(40, 1);  // advisory, say
  inject(c, {newer});
  const std::optional<Chunk> copy = copies_.at_version(c, 1);
  ASSERT_TRUE(copy);
  EXPECT_EQ(canonical_bytes(copy->message()), canonical_bytes(served(c)));
  const ViewStats stats = session_->stats();
  EXPECT_EQ(stats.changes_verified, 1u);
  EXPECT_EQ(stats.changes_not_understood, 0u);
  EXPECT_EQ(stats.changes_refetched, 0u);
}

// (b) A copy that went wrong in the SDK (an object moved under the game's feet) is caught by the
// next change's hash: not delivered as it is, but fetched again.
TEST_F(ChangeCheckTest, ASpoiledCopyIsCaughtByTheNextChangeAndFetchedAgain) {
  watch();
  const ChunkCoord c{1, 0};
  ASSERT_GT(served(c).objects().id_size(), 0);
  ASSERT_TRUE(ViewSessionTesting::rewrite_copy(*session_, c, [](v1::Chunk& chunk) {
    chunk.mutable_objects()->set_yaw(0, chunk.objects().yaw(0) < 180 ? 270.0f : 90.0f);
  }));
  ASSERT_TRUE(client_->edit(EditBatch().add_object(c, {.layer = 0, .x = 5, .z = 6})));
  std::optional<Chunk> copy = copies_.at_version(c, 1);
  ASSERT_TRUE(copy);
  EXPECT_EQ(canonical_bytes(copy->message()), canonical_bytes(served(c)));
  const ViewStats stats = session_->stats();
  EXPECT_EQ(stats.change_hash_mismatches, 1u);
  EXPECT_EQ(stats.changes_refetched, 1u);
  EXPECT_EQ(stats.changes_applied, 0u);

  // The copy is right again: the next change applies and matches.
  ASSERT_TRUE(client_->edit(EditBatch().add_object(c, {.layer = 0, .x = 7, .z = 8})));
  copy = copies_.at_version(c, 2);
  ASSERT_TRUE(copy);
  EXPECT_EQ(canonical_bytes(copy->message()), canonical_bytes(served(c)));
  EXPECT_EQ(session_->stats().changes_verified, 1u);
  EXPECT_EQ(session_->stats().changes_refetched, 1u);
}

// (c) The normal path, with terrain in the view's chunks (hashed without it): every change
// applied and matched, nothing fetched again.
TEST_F(ChangeCheckTest, OrdinaryEditsAreAppliedAndEveryHashMatches) {
  ViewOptions view;
  view.chunk.include_terrain = true;
  view.chunk.terrain_step = 16;
  watch(view);
  constexpr int kEdits = 12;
  std::map<ChunkCoord, uint64_t> versions;
  for (int i = 0; i < kEdits; ++i) {
    const ChunkCoord c{i % 3 - 1, (i / 3) % 3 - 1};
    const float x = static_cast<float>(4 + i);
    ASSERT_TRUE(client_->edit(EditBatch().add_object(c, {.layer = 1, .x = x, .z = 3, .yaw = 10})));
    ++versions[c];
  }
  for (const auto& [c, version] : versions) {
    std::optional<Chunk> copy = copies_.at_version(c, version);
    ASSERT_TRUE(copy) << c.x << "," << c.z;
    EXPECT_EQ(canonical_bytes(copy->message()), canonical_bytes(served(c, view.chunk)));
  }
  const ViewStats stats = session_->stats();
  EXPECT_EQ(stats.changes_applied, static_cast<uint64_t>(kEdits));
  EXPECT_EQ(stats.changes_verified, static_cast<uint64_t>(kEdits));
  EXPECT_EQ(stats.change_hash_mismatches, 0u);
  EXPECT_EQ(stats.changes_refetched, 0u);
  EXPECT_EQ(stats.change_gaps, 0u);
}

// A view with a layer filter holds no chunk the hash is of: its changes apply unchecked.
TEST_F(ChangeCheckTest, AFilteredViewAppliesChangesWithoutAHashCheck) {
  ViewOptions view;
  view.chunk.layers = {0};
  watch(view);
  ASSERT_TRUE(client_->edit(EditBatch().add_object({0, 0}, {.layer = 0, .x = 9, .z = 9})));
  std::optional<Chunk> copy = copies_.at_version({0, 0}, 1);
  ASSERT_TRUE(copy);
  EXPECT_EQ(canonical_bytes(copy->message()), canonical_bytes(served({0, 0}, view.chunk)));
  const ViewStats stats = session_->stats();
  EXPECT_EQ(stats.changes_applied, 1u);
  EXPECT_EQ(stats.changes_verified, 0u);
  EXPECT_EQ(stats.changes_refetched, 0u);
}

// Hostile: a server whose hashes never match (every event of a burst carries a wrong one). Each
// event starts at most one fetch, one at a time per chunk, and a fetched chunk never starts
// another: the fetches are bounded by the events, and stop with them.
TEST_F(ChangeCheckTest, AChunkWhoseHashNeverMatchesIsNotFetchedInALoop) {
  watch();
  const ChunkCoord c{-1, -1};
  const v1::Chunk before = served(c);
  constexpr int kEvents = 8;
  ASSERT_GE(before.objects().id_size(), kEvents + 3);
  std::vector<v1::ChunkChange> burst(kEvents);
  for (int i = 0; i < kEvents; ++i) {
    burst[i].add_edits()->set_remove_object(before.objects().id(i));
    burst[i].set_chunk_hash(0x5eed5eed5eed5eedULL + i);
  }
  inject(c, burst);
  std::optional<Chunk> copy = copies_.at_version(c, kEvents);
  ASSERT_TRUE(copy);
  EXPECT_EQ(canonical_bytes(copy->message()), canonical_bytes(served(c)));
  std::this_thread::sleep_for(300ms);  // room for a loop to show
  const ViewStats stats = session_->stats();
  EXPECT_EQ(stats.changes_applied, 0u);
  // Each event is a mismatch (which starts a fetch), folded into the fetch under way, or older
  // than the chunk a fetch brought (nothing to do).
  EXPECT_GE(stats.change_hash_mismatches, 1u);
  EXPECT_LE(stats.change_hash_mismatches + stats.changes_coalesced, static_cast<uint64_t>(kEvents));
  EXPECT_GE(stats.changes_refetched, 1u);
  EXPECT_LE(stats.changes_refetched, stats.change_hash_mismatches);
  EXPECT_EQ(stats.refetches_failed, 0u);
  std::printf("hash never matches: %d events, %llu mismatches, %llu folded into a fetch, %llu fetches\n", kEvents,
              static_cast<unsigned long long>(stats.change_hash_mismatches),
              static_cast<unsigned long long>(stats.changes_coalesced),
              static_cast<unsigned long long>(stats.changes_refetched));
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(session_->stats().changes_refetched, stats.changes_refetched);

  // One at a time, each wrong event costs exactly one fetch.
  for (int i = 0; i < 3; ++i) {
    v1::ChunkChange wrong;
    wrong.add_edits()->set_remove_object(before.objects().id(kEvents + i));
    wrong.set_chunk_hash(0xbadULL);
    inject(c, {wrong});
    ASSERT_TRUE(copies_.at_version(c, kEvents + 1 + i));
  }
  const ViewStats after = session_->stats();
  EXPECT_EQ(after.change_hash_mismatches, stats.change_hash_mismatches + 3);
  EXPECT_EQ(after.changes_refetched, stats.changes_refetched + 3);
  EXPECT_EQ(canonical_bytes(copies_.at_version(c, kEvents + 3)->message()), canonical_bytes(served(c)));
}

}  // namespace
}  // namespace chunkforge::client
