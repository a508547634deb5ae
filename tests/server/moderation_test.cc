// Moderation with real servers and real stores (docs/edits.md, "Moderation"): a griefer's 10,000
// edits among two players' work over 100 chunks, rolled back by a moderator, leave exactly the
// others' work (compared with a server where the griefer never played); live sessions on two
// replicas get the new versions; a preview changes nothing; a retry applies nothing twice; the
// rollback itself can be undone; one stopped between groups keeps them and its id finishes it;
// what another player built on is kept and reported; players edit as themselves and only moderators audit and roll
// back. On SQLite and on PostgreSQL.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <condition_variable>
#include <map>
#include <thread>

#include "chunkforge/chunk.h"
#include "chunkforge/encode.h"
#include "edits/rollback.h"
#include "moderation_fixture.h"

namespace chunkforge::server {
namespace {

constexpr int kSide = 10;  // the played area: chunks (0, 0) to (9, 9)

// A session watching the played area: every chunk's loaded version, and when it came.
class SessionWatch {
 public:
  explicit SessionWatch(Served& s) : stream_(s.stub->Session(&context_)) {
    v1::SessionUpdate update;
    update.set_x(kSide * 32.0);  // the area's centre (64-unit chunks)
    update.set_z(kSide * 32.0);
    update.set_view_radius(kSide / 2 + 1);
    stream_->Write(update);
    reader_ = std::thread([this] { read(); });
  }
  ~SessionWatch() {
    context_.TryCancel();
    reader_.join();
  }
  // Waits until every chunk of the area is loaded at the version `want` gives; false at the
  // deadline. The time the last of them came in `last`.
  bool wait_for(const std::map<std::pair<int64_t, int64_t>, uint64_t>& want, std::chrono::seconds deadline,
                std::chrono::steady_clock::time_point& last) {
    std::unique_lock lock(mutex_);
    return loaded_.wait_for(lock, deadline, [&] {
      for (const auto& [c, version] : want) {
        const auto it = versions_.find(c);
        if (it == versions_.end() || it->second.first != version) return false;
        last = std::max(last, it->second.second);
      }
      return true;
    });
  }

 private:
  void read() {
    v1::SessionEvent event;
    while (stream_->Read(&event)) {
      std::lock_guard lock(mutex_);
      const auto now = std::chrono::steady_clock::now();
      const auto loaded = [&](const v1::Chunk& c) {
        versions_[{c.coord().x(), c.coord().z()}] = {c.edit_version(), now};
      };
      if (event.has_load()) loaded(event.load());
      for (const v1::Chunk& c : event.loads().chunks()) loaded(c);
      if (event.has_change()) {
        versions_[{event.change().chunk().x(), event.change().chunk().z()}] = {event.change().version(), now};
      }
      loaded_.notify_all();
    }
  }

  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReaderWriter<v1::SessionUpdate, v1::SessionEvent>> stream_;
  std::mutex mutex_;
  std::condition_variable loaded_;
  std::map<std::pair<int64_t, int64_t>, std::pair<uint64_t, std::chrono::steady_clock::time_point>> versions_;
  std::thread reader_;
};

class GriefTest : public ModerationTest {
 protected:
  // Alice adds and later signs her objects, bob removes and marks generated objects (those at
  // even places; a chunk may hold few), and mallory griefs among them in every chunk: 50 junk objects, then 25 of them
  // given a state and 25 moved, and every generated object at an odd place removed (100 edits a
  // chunk and more). Alice's and bob's requests go to the reference server too, in this order.
  void play() {
    Served& game = replicas_[0];
    for (int64_t z = 0; z < kSide; ++z) {
      for (int64_t x = 0; x < kSide; ++x) {
        const v1::Chunk base = chunk(game, x, z);
        bases_[{x, z}] = base;
        const v1::Objects& o = base.objects();
        const uint32_t layer = o.id_size() > 0 ? o.layer(0) : 0;
        v1::EditRequest alice, junk, bob, grief;
        for (int k = 0; k < 3; ++k) add(alice, x, z, layer, 3.0F + 20.0F * static_cast<float>(k), 5.0F);
        for (int k = 0; k < 50; ++k)
          add(junk, x, z, layer, 1.0F + static_cast<float>(k % 10) * 6.0F,
              10.0F + static_cast<float>(k - k % 10) * 0.9F);
        for (int i = 0; i < o.id_size(); i += 2) {
          if (i % 4 == 0) op_on(bob, x, z)->set_remove_object(o.id(i));
          if (i % 4 == 2) set_state(bob, x, z, o.id(i), "bob's mark");
        }
        for (int i = 1; i < o.id_size(); i += 2) op_on(grief, x, z)->set_remove_object(o.id(i));

        const v1::EditResponse alice_here = edit_for(game, "alice", alice);
        const v1::EditResponse alice_there = edit_for(reference_, "alice", alice);
        const v1::EditResponse junk_ids = edit_for(game, "mallory", junk);
        if (bob.ops_size() > 0) {
          edit_for(game, "bob", bob);
          edit_for(reference_, "bob", bob);
        }
        for (int k = 0; k < 25; ++k) set_state(grief, x, z, junk_ids.added_ids(k), "griefed");
        for (int k = 25; k < 50; ++k) move(grief, x, z, junk_ids.added_ids(k), 50.0F, 50.0F);
        edit_for(game, "mallory", grief);
        griefer_edits_ += junk.ops_size() + grief.ops_size();
        v1::EditRequest sign_here, sign_there;
        set_state(sign_here, x, z, alice_here.added_ids(0), "alice's sign");
        set_state(sign_there, x, z, alice_there.added_ids(0), "alice's sign");
        edit_for(game, "alice", sign_here);
        edit_for(reference_, "alice", sign_there);
      }
    }
  }

  static void add(v1::EditRequest& r, int64_t x, int64_t z, uint32_t layer, float px, float pz) {
    v1::NewObject* a = op_on(r, x, z)->mutable_add_object();
    a->set_layer(layer);
    a->set_x(px);
    a->set_z(pz);
  }
  static void set_state(v1::EditRequest& r, int64_t x, int64_t z, uint64_t id, const std::string& state) {
    v1::ObjectState* s = op_on(r, x, z)->mutable_set_state();
    s->set_id(id);
    s->set_state(state);
  }
  static void move(v1::EditRequest& r, int64_t x, int64_t z, uint64_t id, float px, float pz) {
    v1::MoveObject* m = op_on(r, x, z)->mutable_move_object();
    m->set_id(id);
    m->set_x(px);
    m->set_z(pz);
  }

  // Every chunk of the area on `s`, as content().
  std::map<std::pair<int64_t, int64_t>, std::string> contents(Served& s) {
    std::map<std::pair<int64_t, int64_t>, std::string> out;
    for (const auto& [c, base] : bases_) out[c] = content(chunk(s, c.first, c.second), base);
    return out;
  }
  std::map<std::pair<int64_t, int64_t>, uint64_t> versions(Served& s) {
    std::map<std::pair<int64_t, int64_t>, uint64_t> out;
    for (const auto& [c, base] : bases_) out[c] = chunk(s, c.first, c.second).edit_version();
    return out;
  }

  std::map<std::pair<int64_t, int64_t>, v1::Chunk> bases_;
  uint64_t griefer_edits_ = 0;
};

TEST_P(GriefTest, AGriefersEditsRolledBackLeaveExactlyTheOthersWork) {
  ASSERT_NO_FATAL_FAILURE(play());
  ASSERT_GE(griefer_edits_, 10000u);
  const auto griefed = contents(replicas_[0]);
  const auto before = versions(replicas_[0]);
  ASSERT_NE(griefed, contents(reference_));
  SessionWatch watch_a(replicas_[0]), watch_b(replicas_[1]);
  std::chrono::steady_clock::time_point ignored;
  ASSERT_TRUE(watch_a.wait_for(before, std::chrono::seconds(60), ignored));
  ASSERT_TRUE(watch_b.wait_for(before, std::chrono::seconds(60), ignored));
  const std::string moderator = token("mod-1", true);

  v1::RollbackResponse preview;
  ASSERT_TRUE(
      rollback(replicas_[1], rollback_request(0, 0, kSide - 1, kSide - 1, "mallory", "", true), moderator, preview)
          .ok());
  EXPECT_EQ(preview.chunks(), 100u);
  EXPECT_EQ(preview.changes_undone(), 200u);  // mallory's two changes a chunk
  EXPECT_EQ(preview.edits_undone(), griefer_edits_);
  EXPECT_EQ(preview.conflict_count(), 0u);
  EXPECT_EQ(versions(replicas_[0]), before);  // a preview changes nothing

  const auto started = std::chrono::steady_clock::now();
  v1::RollbackResponse applied;
  const v1::RollbackRequest undo_mallory = rollback_request(0, 0, kSide - 1, kSide - 1, "mallory", "undo-1", false);
  ASSERT_TRUE(rollback(replicas_[1], undo_mallory, moderator, applied).ok());
  const auto answered = std::chrono::steady_clock::now();
  EXPECT_EQ(applied.chunks(), 100u);
  EXPECT_EQ(applied.changes_undone(), 200u);
  EXPECT_EQ(applied.edits_undone(), griefer_edits_);
  std::map<std::pair<int64_t, int64_t>, uint64_t> after;
  for (const v1::ChunkVersion& v : applied.versions()) {
    after[{v.chunk().x(), v.chunk().z()}] = v.version();
    EXPECT_EQ(v.version(), before.at({v.chunk().x(), v.chunk().z()}) + 1);
  }
  ASSERT_EQ(after.size(), 100u);

  const auto reference = contents(reference_);
  EXPECT_EQ(contents(replicas_[1]), reference);  // exactly the others' work, byte for byte but ids
  // The other replica and both sessions have every new version (the sessions within 1 s of the
  // commits here; the bound is loose for sanitizer builds).
  for (SessionWatch* watch : {&watch_a, &watch_b}) {
    std::chrono::steady_clock::time_point last = started;
    ASSERT_TRUE(watch->wait_for(after, std::chrono::seconds(20), last));
    std::cout << "session had the last new version " << std::chrono::duration<double>(last - answered).count() * 1000
              << " ms after the answer\n";
  }
  EXPECT_EQ(contents(replicas_[0]), reference);

  // A retry: the same answer, nothing applied again.
  v1::RollbackResponse again;
  ASSERT_TRUE(rollback(replicas_[0], undo_mallory, moderator, again).ok());
  EXPECT_EQ(again.SerializeAsString(), applied.SerializeAsString());
  EXPECT_EQ(versions(replicas_[0]), after);
  v1::RollbackRequest reused = undo_mallory;
  reused.set_player("alice");
  EXPECT_EQ(rollback(replicas_[0], reused, moderator, again).error_code(), grpc::StatusCode::ALREADY_EXISTS);

  // The audit trail of one chunk: who did what, newest first, the rollback on top.
  v1::EditLogRequest ask;
  *ask.mutable_area() = undo_mallory.area();
  ask.mutable_area()->mutable_min()->set_x(3);
  ask.mutable_area()->mutable_max()->set_x(3);
  ask.mutable_area()->mutable_min()->set_z(4);
  ask.mutable_area()->mutable_max()->set_z(4);
  v1::EditLogResponse log;
  ASSERT_TRUE(edit_log(replicas_[0], ask, moderator, log).ok());
  ASSERT_EQ(log.entries_size(), 6);
  EXPECT_EQ(log.entries(0).player(), "mod-1");
  EXPECT_EQ(log.entries(0).rollback_id(), "undo-1");
  EXPECT_TRUE(log.entries(0).reset());
  std::vector<std::string> authors;
  for (int i = 1; i < log.entries_size(); ++i) authors.push_back(log.entries(i).player());
  EXPECT_EQ(authors, (std::vector<std::string>{"alice", "mallory", "bob", "mallory", "alice"}));
  EXPECT_GT(log.entries(1).at(), 0);

  // The rollback undone: mallory's work is back, as it was.
  v1::RollbackRequest undo_undo = rollback_request(0, 0, kSide - 1, kSide - 1, "mod-1", "undo-2", false);
  ASSERT_TRUE(rollback(replicas_[0], undo_undo, moderator, applied).ok());
  EXPECT_EQ(applied.chunks(), 100u);
  EXPECT_EQ(contents(replicas_[0]), griefed);
}

TEST_P(GriefTest, WhatAnotherPlayerBuiltOnIsKeptAndReported) {
  Served& game = replicas_[0];
  const v1::Chunk base = chunk(game, 0, 0);
  v1::EditRequest build;
  add(build, 0, 0, base.objects().layer(0), 10, 10);
  add(build, 0, 0, base.objects().layer(0), 20, 20);
  const v1::EditResponse built = edit_for(game, "mallory", build);
  v1::EditRequest sign;
  set_state(sign, 0, 0, built.added_ids(0), "bob's shop");
  edit_for(game, "bob", sign);

  const std::string moderator = token("mod-1", true);
  v1::RollbackResponse answer;
  ASSERT_TRUE(rollback(game, rollback_request(0, 0, 0, 0, "mallory", "undo", false), moderator, answer).ok());
  EXPECT_EQ(answer.changes_undone(), 1u);
  EXPECT_EQ(answer.edits_undone(), 1u);  // the second object; the first is kept
  ASSERT_EQ(answer.conflict_count(), 1u);
  EXPECT_EQ(answer.conflicts(0).player(), "bob");
  EXPECT_NE(answer.conflicts(0).reason().find("kept object " + hex_id(built.added_ids(0))), std::string::npos);
  const v1::Chunk now = chunk(game, 0, 0);
  const auto& ids = now.objects().id();
  EXPECT_NE(std::find(ids.begin(), ids.end(), built.added_ids(0)), ids.end());
  EXPECT_EQ(std::find(ids.begin(), ids.end(), built.added_ids(1)), ids.end());
  ASSERT_EQ(now.object_states_size(), 1);
  EXPECT_EQ(now.object_states(0).state(), "bob's shop");
}

// A rollback told to stop between groups (its client left, the server is stopping: the RPC and
// the map pass those) keeps the groups it committed and says so; the same request id then
// finishes the rest, and a stopped preview changes nothing. roll_back itself, on a second
// handle to the replicas' store, as another replica would write.
TEST_P(GriefTest, AStoppedRollbackKeepsItsGroupsAndTheSameIdFinishesIt) {
  constexpr int64_t kChunks = 2 * static_cast<int64_t>(kRollbackGroup) + 2;  // three groups
  for (int64_t x = 0; x < kChunks; ++x) {
    v1::EditRequest junk;
    add(junk, x, 0, 0, 5.0F, 5.0F);
    edit_for(replicas_[0], "mallory", junk);
  }
  const std::shared_ptr<EditStore> store = open_store(location());
  ASSERT_EQ(bind_store(*store, default_world(), false), "");
  const Generator generator(default_world());
  const BaseOf base_of = [&](ChunkCoord c) { return encode_chunk(default_world(), generator.generate(c)); };
  RollbackSpec spec{{{0, 0}, {kChunks - 1, 0}}, store->player_id("mallory"), 0, 0, "stopped", "mod-1", true};
  size_t groups = 0;
  const RollbackProgress count = [&](size_t, size_t) { ++groups; };
  const RollbackStop after_one = [&] { return groups >= 1; };
  v1::RollbackResponse answer;

  grpc::Status status = roll_back(*store, base_of, spec, answer, count, after_one);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::CANCELLED) << status.error_message();
  for (int64_t x = 0; x < kChunks; ++x) EXPECT_EQ(store->version({x, 0}), 1u) << "a preview changed chunk " << x;

  spec.preview = false;
  groups = 0;
  status = roll_back(*store, base_of, spec, answer, count, after_one);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::CANCELLED);
  EXPECT_NE(status.error_message().find("stopped after 64 of 130 chunks"), std::string::npos) << status.error_message();
  EXPECT_NE(status.error_message().find("request_id"), std::string::npos) << status.error_message();
  for (int64_t x = 0; x < kChunks; ++x) EXPECT_EQ(store->version({x, 0}), x < 64 ? 2u : 1u) << "chunk " << x;

  ASSERT_TRUE(roll_back(*store, base_of, spec, answer, count).ok());
  EXPECT_EQ(answer.chunks(), static_cast<uint64_t>(kChunks));
  EXPECT_EQ(answer.changes_undone(), static_cast<uint64_t>(kChunks));
  for (int64_t x = 0; x < kChunks; ++x) {
    EXPECT_EQ(store->version({x, 0}), 2u) << "chunk " << x << " rolled back twice, or not at all";
  }
}

TEST_P(GriefTest, PlayersEditAsThemselvesAndOnlyModeratorsModerate) {
  Served& game = replicas_[0];
  const v1::Chunk base = chunk(game, 5, 5);
  ASSERT_GT(base.objects().id_size(), 0);
  v1::EditRequest request;
  op_on(request, 5, 5)->set_remove_object(base.objects().id(0));
  ASSERT_TRUE(edit(game, request, token("alice")).ok());

  v1::EditRequest as_bob;  // refused for its author before its operation is looked at
  op_on(as_bob, 5, 5)->set_remove_object(base.objects().id(0));
  as_bob.set_author("bob");
  EXPECT_EQ(edit(game, as_bob, token("alice")).error_code(), grpc::StatusCode::PERMISSION_DENIED);
  const test::JwtSigner stranger;
  const std::string forged = stranger.sign({{"sub", "alice"}, {"iss", "game-auth"}, {"aud", "world-1"}}, 600);
  const std::string other_world = auth_.sign({{"sub", "alice"}, {"iss", "game-auth"}, {"aud", "world-2"}}, 600);
  for (const std::string& bad : {forged, other_world, token("alice", false, -100)}) {
    const grpc::Status status = edit(game, as_bob, bad);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED) << status.error_message();
  }

  v1::EditLogRequest ask;
  ask.set_player("alice");
  v1::EditLogResponse log;
  EXPECT_EQ(edit_log(game, ask, token("alice"), log).error_code(), grpc::StatusCode::PERMISSION_DENIED);
  v1::RollbackResponse answer;
  EXPECT_EQ(rollback(game, rollback_request(5, 5, 5, 5, "alice", "x", false), token("alice"), answer).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  ASSERT_TRUE(edit_log(game, ask, token("mod-1", true), log).ok());
  ASSERT_EQ(log.entries_size(), 1);
  EXPECT_EQ(log.entries(0).player(), "alice");
  ASSERT_EQ(log.entries(0).edits_size(), 1);
  EXPECT_EQ(log.entries(0).edits(0).remove_object(), base.objects().id(0));
  const std::string moderator = token("mod-1", true);
  for (const auto& [bad, field] : {std::pair{rollback_request(0, 0, 1LL << 40, 0, "alice", "x", false), "area.max"},
                                   std::pair{rollback_request(5, 5, 4, 5, "alice", "x", false), "area: min"},
                                   std::pair{rollback_request(5, 5, 5, 5, "alice", "", false), "request_id"}}) {
    const grpc::Status status = rollback(game, bad, moderator, answer);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
    EXPECT_NE(status.error_message().find(field), std::string::npos) << status.error_message();
  }
  ask.set_object(base.objects().id(0));  // who touched this object: needs its chunk
  EXPECT_EQ(edit_log(game, ask, kServiceToken, log).error_code(), grpc::StatusCode::INVALID_ARGUMENT);

  // A player's edits a second: 20, in bursts of 40. The rate is checked before the request
  // itself, so edits the server would refuse anyway (an unknown layer) show it without a commit
  // each: the test does not hang on the machine's speed.
  int refused = 0;
  const std::string alice = token("alice");
  v1::EditRequest bad;
  op_on(bad, 6, 6)->mutable_add_object()->set_layer(9999);
  for (int k = 0; k < 100; ++k) {
    const grpc::Status status = edit(game, bad, alice);
    refused += status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED;
    if (status.error_code() != grpc::StatusCode::RESOURCE_EXHAUSTED) {
      EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
    }
  }
  EXPECT_GT(refused, 0);
  const std::string counted = "chunkforge_edit_refused_total{reason=\"player_rate\"} " + std::to_string(refused) + "\n";
  EXPECT_NE(game.server->metrics_page().find(counted), std::string::npos) << counted;
}

INSTANTIATE_TEST_SUITE_P(Stores, GriefTest, testing::Values("sqlite", "postgres"),
                         [](const testing::TestParamInfo<std::string>& store) { return store.param; });

}  // namespace
}  // namespace chunkforge::server
