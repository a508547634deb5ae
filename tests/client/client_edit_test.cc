// Edits through the SDK against a real server: an in-process WorldServer on a loopback port with
// a SQLite store in a temporary directory. Client::edit (the write token, compare-and-set,
// request ids) and a ViewSession's on_change: its copies stay the bytes GetChunk serves while
// the player walks, and after a server restart that the session resumes across.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "chunkforge/client.h"
#include "chunkforge/encode.h"
#include "chunkforge/v1/chunk.pb.h"
#include "edits/edit_service.h"
#include "support/eventually.h"
#include "support/free_port.h"
#include "support/temp_dir.h"
#include "world_server.h"

namespace chunkforge::client {
namespace {

using namespace std::chrono_literals;

constexpr char kWriteToken[] = "write-secret";
constexpr char kReadToken[] = "read-secret";

using test::eventually;

Position centre_of(ChunkCoord c) { return {static_cast<double>(c.x) * 64 + 32, static_cast<double>(c.z) * 64 + 32}; }

class ClientEditTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::unique_temp_dir("sdk_edits");
    port_ = test::free_port();
    ASSERT_TRUE(start(port_));
    client_ = connect(kWriteToken);
  }
  void TearDown() override { stop(); }

  // A server on `port` over the test's store, with a read token and a write token.
  bool start(int port) {
    server::ServerOptions options;
    options.listen = "127.0.0.1:" + std::to_string(port);
    options.http = "";
    options.threads = 2;
    options.cache_mb = 64;
    options.limits.max_radius = 8;
    options.store = server::open_store("sqlite:" + dir_ + "edits.db");
    if (server::bind_store(*options.store, default_world(), false) != "") return false;
    options.auth_token = kReadToken;
    options.write_token = kWriteToken;
    server_ = std::make_unique<server::WorldServer>(default_world(), options);
    return server_->start();
  }
  void stop() {
    if (server_) server_->shutdown(100ms);
    server_.reset();
  }

  std::optional<Client> connect(const std::string& token, int port = 0) {
    ConnectOptions options;
    options.bearer_token = token;
    Result<Client> client = Client::connect("127.0.0.1:" + std::to_string(port ? port : port_), options);
    EXPECT_TRUE(client) << client.status().to_string();
    return client ? std::optional<Client>(std::move(*client)) : std::nullopt;
  }

  // The bytes GetChunk serves for `c` with `options`.
  std::string served(ChunkCoord c, const ChunkOptions& options = {}) {
    Result<Chunk> chunk = client_->chunk(c, options);
    EXPECT_TRUE(chunk) << chunk.status().to_string();
    return chunk ? canonical_bytes(chunk->message()) : "";
  }

  std::string dir_;
  int port_ = 0;
  std::unique_ptr<server::WorldServer> server_;
  std::optional<Client> client_;
};

TEST_F(ClientEditTest, EditsApplyAndAnswerWithVersionsAndAddedIds) {
  Result<Chunk> before = client_->chunk({0, 0});
  ASSERT_TRUE(before);
  ASSERT_GT(before->objects().size(), 0u);
  EXPECT_EQ(before->edit_version(), 0u);
  const uint64_t felled = before->objects()[0].id;

  EditBatch batch;
  batch.remove_object({0, 0}, felled).add_object({0, 0}, {.layer = 0, .x = 10.5f, .z = 20.25f, .yaw = 90});
  batch.expect({0, 0}, 0);
  Result<EditResult> done = client_->edit(batch);
  ASSERT_TRUE(done) << done.status().to_string();
  EXPECT_EQ(done->versions, (std::vector<ChunkVersion>{{{0, 0}, 1}}));
  ASSERT_EQ(done->added_ids.size(), 1u);
  const uint64_t added = done->added_ids[0];

  Result<EditResult> state = client_->edit(EditBatch().set_state({0, 0}, added, "wood=3"));
  ASSERT_TRUE(state) << state.status().to_string();
  Result<Chunk> after = client_->chunk({0, 0});
  ASSERT_TRUE(after);
  EXPECT_EQ(after->edit_version(), 2u);
  EXPECT_EQ(after->object_state(added), "wood=3");
  EXPECT_EQ(after->object_state(felled), "");
  bool holds_added = false, holds_felled = false;
  for (const Object& o : after->objects()) {
    holds_added |= o.id == added;
    holds_felled |= o.id == felled;
  }
  EXPECT_TRUE(holds_added);
  EXPECT_FALSE(holds_felled);

  // A bad operation is refused with the server's message naming it.
  Result<EditResult> bad = client_->edit(EditBatch().add_object({0, 0}, {.layer = 0, .x = 64}));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.status().code, StatusCode::invalid_argument);
  EXPECT_NE(bad.status().message.find("ops[0].add_object.x"), std::string::npos) << bad.status().message;
}

TEST_F(ClientEditTest, AReadOnlyTokenIsRefusedAndReadsStillWork) {
  std::optional<Client> reader = connect(kReadToken);
  ASSERT_TRUE(reader);
  Result<Chunk> chunk = reader->chunk({1, 1});
  ASSERT_TRUE(chunk) << chunk.status().to_string();
  Result<EditResult> refused = reader->edit(EditBatch().remove_object({1, 1}, chunk->objects()[0].id));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.status().code, StatusCode::permission_denied) << refused.status().to_string();
  EXPECT_EQ(reader->chunk({1, 1})->edit_version(), 0u);
}

TEST_F(ClientEditTest, AStaleExpectedVersionFailsWithTheCurrentOne) {
  Result<Chunk> chunk = client_->chunk({2, 0});
  ASSERT_TRUE(chunk);
  ASSERT_GE(chunk->objects().size(), 2u);
  ASSERT_TRUE(client_->edit(EditBatch().remove_object({2, 0}, chunk->objects()[0].id)));
  EditBatch stale;
  stale.remove_object({2, 0}, chunk->objects()[1].id).expect({2, 0}, 0);
  Result<EditResult> refused = client_->edit(stale);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.status().code, StatusCode::failed_precondition);
  EXPECT_NE(refused.status().message.find("at version 1"), std::string::npos) << refused.status().message;
  EditBatch current;
  current.remove_object({2, 0}, chunk->objects()[1].id).expect({2, 0}, 1);
  EXPECT_TRUE(client_->edit(current));
}

TEST_F(ClientEditTest, ARetriedRequestIdAppliesOnce) {
  // The caller's own id: the second send gets the first answer and changes nothing.
  EditBatch add;
  add.add_object({3, 3}, {.layer = 0, .x = 3, .z = 3}).request_id("player-7/42");
  Result<EditResult> first = client_->edit(add), again = client_->edit(add);
  ASSERT_TRUE(first) << first.status().to_string();
  ASSERT_TRUE(again) << again.status().to_string();
  EXPECT_EQ(again->added_ids, first->added_ids);
  EXPECT_EQ(again->versions, first->versions);
  EXPECT_EQ(first->request_id, "player-7/42");
  EXPECT_EQ(client_->chunk({3, 3})->edit_version(), 1u);

  // Without one the SDK draws a fresh id per call (what its own retries repeat); sent again
  // with that id, a batch still applies once.
  EditBatch other;
  other.add_object({3, 3}, {.layer = 0, .x = 5, .z = 5});
  Result<EditResult> drawn = client_->edit(other);
  ASSERT_TRUE(drawn) << drawn.status().to_string();
  EXPECT_EQ(drawn->request_id.rfind("sdk-", 0), 0u) << drawn->request_id;
  EXPECT_EQ(drawn->request_id.size(), 36u);
  Result<EditResult> repeated = client_->edit(other.request_id(drawn->request_id));
  ASSERT_TRUE(repeated);
  EXPECT_EQ(repeated->added_ids, drawn->added_ids);
  EXPECT_EQ(client_->chunk({3, 3})->edit_version(), 2u);
  EXPECT_NE(client_->edit(EditBatch().add_object({3, 3}, {.layer = 0, .x = 6, .z = 6}))->request_id, drawn->request_id);
}

// An edit sent while the server is still starting: the SDK's retries of UNAVAILABLE carry it,
// and it applies once.
TEST_F(ClientEditTest, RetriesOverAStartingServerApplyTheBatchOnce) {
  stop();
  ConnectOptions options;
  options.bearer_token = kWriteToken;
  options.max_attempts = 20;
  options.initial_backoff = 100ms;
  options.max_backoff = 200ms;
  Result<Client> patient = Client::connect("127.0.0.1:" + std::to_string(port_), options);
  ASSERT_TRUE(patient);
  bool started = false;
  std::thread later([&] {
    std::this_thread::sleep_for(500ms);
    started = start(port_);
  });
  Result<EditResult> done = patient->edit(EditBatch().add_object({4, 4}, {.layer = 0, .x = 1, .z = 1}));
  later.join();
  ASSERT_TRUE(started);
  ASSERT_TRUE(done) << done.status().to_string();
  EXPECT_EQ(client_->chunk({4, 4})->edit_version(), 1u);
}

// --- on_change ---

// The session's copies as the game sees them through the callbacks.
struct Copies {
  std::mutex mutex;
  std::map<ChunkCoord, Chunk> held;
  int changes = 0, replaced = 0;
  std::vector<ChunkChangeInfo> infos;

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
      ++changes;
      replaced += info.replaced ? 1 : 0;
      infos.push_back(info);
    };
    return c;
  }
  // The copy of `c` once it is at `version`.
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
  bool holds_view(ChunkCoord centre, int64_t r) {
    std::lock_guard lock(mutex);
    for (int64_t z = centre.z - r; z <= centre.z + r; ++z) {
      for (int64_t x = centre.x - r; x <= centre.x + r; ++x) {
        if (!held.count({x, z})) return false;
      }
    }
    return held.size() == static_cast<size_t>((2 * r + 1) * (2 * r + 1));
  }
};

// The first object of `chunk` in `layer`, or 0.
uint64_t object_in_layer(const Chunk& chunk, uint32_t layer) {
  for (const Object& o : chunk.objects()) {
    if (o.layer == layer) return o.id;
  }
  return 0;
}

// A walking player's copies follow every edit of a chunk in view, through the view's layer
// filter, and are the bytes GetChunk serves; a chunk edited while it sat in the local cache
// comes back into view replaced by the current one.
TEST_F(ClientEditTest, SessionCopiesFollowEditsWhileWalking) {
  Copies copies;
  ViewOptions view;
  view.view_radius = 1;
  view.chunk.layers = {0};  // changes to other layers' objects leave the copy's objects alone
  auto session = ViewSession::start(*client_, centre_of({0, 0}), view, copies.callbacks());
  ASSERT_TRUE(session) << session.status().to_string();
  for (int64_t step = 0; step < 6; ++step) {
    const ChunkCoord centre{step, 0}, edge{step + 1, 1};
    (*session)->set_position(centre_of(centre));
    ASSERT_TRUE(eventually([&] { return copies.holds_view(centre, 1); })) << "step " << step;
    Result<Chunk> now = client_->chunk(edge, view.chunk);
    ASSERT_TRUE(now);
    EditBatch batch;
    if (const uint64_t tree = object_in_layer(*now, 0)) batch.remove_object(edge, tree);
    batch.add_object(edge, {.layer = 0, .x = 7, .z = 9}).add_object(edge, {.layer = 1, .x = 8.5f, .z = 9});
    Result<EditResult> added = client_->edit(batch);
    ASSERT_TRUE(added) << added.status().to_string();
    ASSERT_TRUE(client_->edit(EditBatch().set_state(edge, added->added_ids[0], "step " + std::to_string(step))));
    std::optional<Chunk> copy = copies.at_version(edge, 2);
    ASSERT_TRUE(copy) << "step " << step;
    EXPECT_EQ(canonical_bytes(copy->message()), served(edge, view.chunk)) << "step " << step;
    EXPECT_EQ(copy->object_state(added->added_ids[0]), "step " + std::to_string(step));
  }
  {
    std::lock_guard lock(copies.mutex);
    EXPECT_EQ(copies.changes, 12);
    EXPECT_EQ(copies.replaced, 0);
    EXPECT_EQ(copies.infos.front().placed_objects.size(), 2u);  // both adds; one is filtered out
    EXPECT_EQ(copies.infos.front().previous_version, 0u);
  }

  // (1, 1) is in the cache now; edited there, it comes back at its old version and is replaced.
  ASSERT_TRUE(client_->edit(EditBatch().add_object({1, 1}, {.layer = 0, .x = 30, .z = 30})));
  (*session)->set_position(centre_of({0, 0}));
  std::optional<Chunk> back = copies.at_version({1, 1}, 3);
  ASSERT_TRUE(back);
  EXPECT_EQ(canonical_bytes(back->message()), served({1, 1}, view.chunk));
  const ViewStats stats = (*session)->stats();
  EXPECT_GE(stats.chunks_from_cache, 1u);
  EXPECT_EQ(stats.chunks_replaced, 1u);
  EXPECT_EQ(stats.changes_applied, 12u);
  EXPECT_EQ(stats.duplicates_ignored, 0u);
  std::lock_guard lock(copies.mutex);
  EXPECT_EQ(copies.replaced, 1);
  EXPECT_EQ(copies.infos.back().previous_version, 2u);
}

// Edits made while the session's server is away (through another server on the same store)
// reach it when it resumes: the chunks it holds at older versions are replaced.
TEST_F(ClientEditTest, SessionResumingAfterARestartGetsTheChangesItMissed) {
  Copies copies;
  ViewOptions view;
  view.view_radius = 1;
  view.initial_backoff = 50ms;
  view.max_backoff = 200ms;
  auto session = ViewSession::start(*client_, centre_of({0, 0}), view, copies.callbacks());
  ASSERT_TRUE(session) << session.status().to_string();
  ASSERT_TRUE(eventually([&] { return copies.holds_view({0, 0}, 1); }));
  ASSERT_TRUE(client_->edit(EditBatch().add_object({0, 0}, {.layer = 0, .x = 1, .z = 1})));
  ASSERT_TRUE(copies.at_version({0, 0}, 1));  // live, as a change event

  stop();
  int elsewhere_port = test::free_port();
  while (elsewhere_port == port_) elsewhere_port = test::free_port();  // the session must not find it
  ASSERT_TRUE(start(elsewhere_port));
  std::optional<Client> elsewhere = connect(kWriteToken, elsewhere_port);
  ASSERT_TRUE(elsewhere);
  ASSERT_TRUE(elsewhere->edit(EditBatch().add_object({0, 0}, {.layer = 2, .x = 2, .z = 2})));
  for (float x : {3.0f, 4.0f})
    ASSERT_TRUE(elsewhere->edit(EditBatch().add_object({1, -1}, {.layer = 0, .x = x, .z = 3})));
  stop();

  ASSERT_TRUE(start(port_));  // the same port and store: the session comes back by itself
  std::optional<Chunk> centre = copies.at_version({0, 0}, 2), corner = copies.at_version({1, -1}, 2);
  ASSERT_TRUE(centre);
  ASSERT_TRUE(corner);
  EXPECT_EQ(canonical_bytes(centre->message()), served({0, 0}));
  EXPECT_EQ(canonical_bytes(corner->message()), served({1, -1}));
  const ViewStats stats = (*session)->stats();
  EXPECT_GE(stats.reconnects, 1u);
  EXPECT_EQ(stats.chunks_replaced, 2u);
  EXPECT_EQ(stats.chunks_downloaded, 9u + 2u);  // the view once, then only the two replaced
  std::lock_guard lock(copies.mutex);
  EXPECT_EQ(copies.replaced, 2);
}

}  // namespace
}  // namespace chunkforge::client
