// A polled ViewSession (start_polled, poll) against a real in-process server with a SQLite edit
// store: loads, unloads, changes and errors come out of poll() on the test's own thread as
// plain values, and a full queue holds the server back instead of dropping anything.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <thread>

#include "chunkforge/client.h"
#include "chunkforge/encode.h"
#include "chunkforge/v1/chunk.pb.h"
#include "support/eventually.h"
#include "support/free_port.h"
#include "support/temp_dir.h"
#include "world_server.h"  // with the edit service's open_store and bind_store

namespace chunkforge::client {
namespace {

using namespace std::chrono_literals;
using test::eventually;

constexpr char kWriteToken[] = "write-secret";

class ViewPollTest : public testing::Test {
 protected:
  void SetUp() override {
    const std::string dir = test::unique_temp_dir("view_poll");
    const int port = test::free_port();
    server::ServerOptions options;
    options.listen = "127.0.0.1:" + std::to_string(port);
    options.http = "";
    options.threads = 2;
    options.cache_mb = 64;
    options.limits.max_radius = 8;
    options.store = server::open_store("sqlite:" + dir + "edits.db");
    ASSERT_EQ(server::bind_store(*options.store, default_world(), false), "");
    options.write_token = kWriteToken;
    server_ = std::make_unique<server::WorldServer>(default_world(), options);
    ASSERT_TRUE(server_->start());
    ConnectOptions connect;
    connect.bearer_token = kWriteToken;
    Result<Client> client = Client::connect("127.0.0.1:" + std::to_string(port), connect);
    ASSERT_TRUE(client) << client.status().to_string();
    client_.emplace(std::move(*client));
  }
  void TearDown() override {
    if (server_) server_->shutdown(100ms);
  }

  std::unique_ptr<ViewSession> start(uint32_t radius, size_t queue_bytes = 16u << 20, Position at = {32, 32}) {
    ViewOptions options;
    options.view_radius = radius;
    options.event_queue_bytes = queue_bytes;
    Result<std::unique_ptr<ViewSession>> session = ViewSession::start_polled(*client_, at, options);
    EXPECT_TRUE(session) << session.status().to_string();
    return session ? std::move(*session) : nullptr;
  }

  // Polls (as a game's frame would, a few events at a time) until `count` events of `kind`
  // arrived; every event polled is appended to `seen`.
  bool poll_until(ViewSession& session, ViewEvent::Kind kind, size_t count, std::vector<ViewEvent>& seen) {
    return eventually([&] {
      session.poll(seen, 16);
      size_t n = 0;
      for (const ViewEvent& e : seen) n += e.kind == kind;
      return n >= count;
    });
  }

  std::string served(ChunkCoord c) {
    Result<Chunk> chunk = client_->chunk(c);
    EXPECT_TRUE(chunk) << chunk.status().to_string();
    return chunk ? canonical_bytes(chunk->message()) : "";
  }

  std::unique_ptr<server::WorldServer> server_;
  std::optional<Client> client_;
};

TEST_F(ViewPollTest, LoadsAndUnloadsComeOutOfPollAsPlainValues) {
  std::unique_ptr<ViewSession> session = start(2);
  ASSERT_TRUE(session);
  std::vector<ViewEvent> events;
  ASSERT_TRUE(poll_until(*session, ViewEvent::Kind::load, 25, events));
  std::set<ChunkCoord> loaded;
  for (const ViewEvent& e : events) {
    ASSERT_EQ(e.kind, ViewEvent::Kind::load);
    ASSERT_TRUE(e.chunk);
    EXPECT_EQ(e.chunk->coord(), e.coord);
    EXPECT_LE(std::max(std::abs(e.coord.x), std::abs(e.coord.z)), 2);
    EXPECT_TRUE(loaded.insert(e.coord).second) << "loaded twice: " << e.coord.x << ',' << e.coord.z;
  }
  EXPECT_EQ(canonical_bytes(events.front().chunk->message()), served(events.front().coord));

  // Two chunks east: the two western columns leave, two eastern ones enter.
  session->set_position({2 * 64 + 32, 32});
  std::vector<ViewEvent> moved;
  ASSERT_TRUE(poll_until(*session, ViewEvent::Kind::load, 10, moved));
  size_t unloads = 0;
  for (const ViewEvent& e : moved) {
    if (e.kind == ViewEvent::Kind::unload) {
      ++unloads;
      EXPECT_LT(e.coord.x, 0);
    } else {
      ASSERT_EQ(e.kind, ViewEvent::Kind::load);
      EXPECT_GT(e.coord.x, 2);
    }
  }
  EXPECT_EQ(unloads, 10u);
  EXPECT_TRUE(session->poll(100).empty());
}

// A queue of 64 KiB and a view of 289 chunks: the session reads a message or so past the
// bound, then stops, and the server waits; draining it brings every chunk, once.
TEST_F(ViewPollTest, FullQueueStopsReadingAndDropsNothing) {
  constexpr size_t kBound = 64 << 10;
  std::unique_ptr<ViewSession> session = start(8, kBound);
  ASSERT_TRUE(session);
  ASSERT_TRUE(eventually([&] { return session->stats().queued_bytes >= kBound; }));
  std::this_thread::sleep_for(300ms);  // room for a reader that did not stop to read on
  const ViewStats full = session->stats();
  EXPECT_LT(full.chunks_downloaded, 289u);
  EXPECT_LE(full.queued_bytes, kBound + (size_t{1} << 20) + (64 << 10)) << "one batch past the bound at most";
  std::this_thread::sleep_for(200ms);
  EXPECT_EQ(session->stats().chunks_downloaded, full.chunks_downloaded) << "the session read on";

  std::set<ChunkCoord> loaded;
  std::vector<ViewEvent> events;
  ASSERT_TRUE(eventually([&] {
    events.clear();
    session->poll(events, 8);
    for (const ViewEvent& e : events) {
      EXPECT_EQ(e.kind, ViewEvent::Kind::load);
      EXPECT_TRUE(loaded.insert(e.coord).second);
      EXPECT_LE(session->stats().queued_bytes, kBound + (size_t{1} << 20) + (64 << 10));
    }
    return loaded.size() == 289;
  }));
  EXPECT_EQ(session->stats().chunks_downloaded, 289u);
}

TEST_F(ViewPollTest, AnEditComesOutAsAChangeEventWithTheServedBytes) {
  std::unique_ptr<ViewSession> session = start(1);
  ASSERT_TRUE(session);
  std::vector<ViewEvent> events;
  ASSERT_TRUE(poll_until(*session, ViewEvent::Kind::load, 9, events));
  const ViewEvent* origin = nullptr;
  for (const ViewEvent& e : events) origin = e.coord == ChunkCoord{0, 0} ? &e : origin;
  ASSERT_TRUE(origin);
  ASSERT_GT(origin->chunk->objects().size(), 0u);
  const uint64_t felled = origin->chunk->objects()[0].id;
  EditBatch batch;
  batch.remove_object({0, 0}, felled);
  Result<EditResult> done = client_->edit(batch);
  ASSERT_TRUE(done) << done.status().to_string();

  std::vector<ViewEvent> changes;
  ASSERT_TRUE(poll_until(*session, ViewEvent::Kind::change, 1, changes));
  ASSERT_EQ(changes.size(), 1u);
  const ViewEvent& change = changes[0];
  EXPECT_EQ(change.coord, (ChunkCoord{0, 0}));
  EXPECT_EQ(change.change.removed_objects, std::vector<uint64_t>{felled});
  EXPECT_EQ(change.chunk->edit_version(), 1u);
  EXPECT_EQ(canonical_bytes(change.chunk->message()), served({0, 0}));
}

TEST_F(ViewPollTest, AnErrorThatEndsTheSessionIsAnEvent) {
  std::unique_ptr<ViewSession> session = start(9);  // the server allows 8
  ASSERT_TRUE(session);
  std::vector<ViewEvent> events;
  ASSERT_TRUE(poll_until(*session, ViewEvent::Kind::error, 1, events));
  EXPECT_EQ(events.back().error.code, StatusCode::invalid_argument);
  EXPECT_NE(events.back().error.message.find("view_radius"), std::string::npos) << events.back().error.message;
  EXPECT_TRUE(eventually([&] { return !session->running(); }));

  // A session with callbacks has nothing to poll.
  Result<std::unique_ptr<ViewSession>> with_callbacks = ViewSession::start(*client_, {0, 0}, {}, {});
  ASSERT_TRUE(with_callbacks);
  EXPECT_TRUE((*with_callbacks)->poll(10).empty());
}

}  // namespace
}  // namespace chunkforge::client
