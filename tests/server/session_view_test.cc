// SessionView on its own: what a session owes and keeps stays bounded whatever the updates, the
// view is clipped at the world's edge, and the order of events is the session's contract
// (unloads before loads, nearest first).
#include "session/session_view.h"

#include <gtest/gtest.h>

#include <vector>

namespace chunkforge::server {
namespace {

constexpr int64_t kSize = 64, kLimit = (int64_t{1} << 40) / kSize;

std::vector<ChunkCoord> square(ChunkCoord centre, int64_t r) {
  std::vector<ChunkCoord> out;
  for (int64_t z = centre.z - r; z <= centre.z + r; ++z) {
    for (int64_t x = centre.x - r; x <= centre.x + r; ++x) out.push_back({x, z});
  }
  return out;
}

Bytes chunk_bytes() { return std::make_shared<const std::string>("chunk"); }

// Serves every generation at once and writes every event; returns the events.
std::vector<SessionView::Event> drain(SessionView& view) {
  std::vector<SessionView::Event> events;
  for (;;) {
    while (auto g = view.next_generation()) view.generated(g->key, chunk_bytes());
    auto event = view.next_event();
    if (!event) return events;
    events.push_back(*event);
  }
}

TEST(SessionViewTest, LoadsTheWholeViewNearestFirst) {
  SessionView view(kSize, kLimit, 8);
  view.move(10.0, 10.0, 2, {});
  const auto events = drain(view);
  ASSERT_EQ(events.size(), 25u);
  EXPECT_EQ(events.front().key, (ChunkCoord{0, 0}));
  for (size_t k = 1; k < events.size(); ++k) {
    EXPECT_EQ(events[k].kind, SessionView::Kind::load);
    EXPECT_LE(view.distance2(events[k - 1].key), view.distance2(events[k].key));
  }
  EXPECT_TRUE(view.settled());
  EXPECT_EQ(view.loaded(), 25u);
}

TEST(SessionViewTest, GenerationsAndReadyChunksStayWithinTheWindow) {
  SessionView view(kSize, kLimit, 8);
  view.move(0.0, 0.0, 16, {});
  int started = 0;
  while (auto g = view.next_generation()) {
    view.generated(g->key, chunk_bytes());  // ready, never written: the client is not reading
    ++started;
  }
  EXPECT_EQ(started, 8);
  EXPECT_EQ(view.ready() + view.under_way(), 8u);
}

// What a batch of loads is filled with: ready chunks, nearest first, and nothing while an unload
// or a change is owed (those keep their place before loads).
TEST(SessionViewTest, NextLoadTakesReadyChunksNearestFirstAndNeverPassesAnOwedEvent) {
  SessionView view(kSize, kLimit, 8);
  view.move(0.0, 0.0, 2, {});
  while (auto g = view.next_generation()) view.generated(g->key, chunk_bytes());
  ASSERT_EQ(view.ready(), 8u);
  std::vector<ChunkCoord> batch;
  while (auto load = view.next_load()) {
    EXPECT_EQ(load->kind, SessionView::Kind::load);
    batch.push_back(load->key);
  }
  ASSERT_EQ(batch.size(), 8u);
  EXPECT_EQ(batch.front(), (ChunkCoord{0, 0}));
  for (size_t k = 1; k < batch.size(); ++k) EXPECT_LE(view.distance2(batch[k - 1]), view.distance2(batch[k]));
  EXPECT_EQ(view.loaded(), 8u);

  while (auto g = view.next_generation()) view.generated(g->key, chunk_bytes());
  ASSERT_GT(view.ready(), 0u);
  view.move(kSize * 4.0, 0.0, 2, {});  // x in [2, 6]: the loaded chunks leave, the ready ones at x = 2 stay
  ASSERT_GT(view.owed_unloads(), 0u);
  ASSERT_GT(view.ready(), 0u);
  EXPECT_FALSE(view.next_load()) << "a load passed an owed unload";
  const auto event = view.next_event();
  ASSERT_TRUE(event);
  EXPECT_EQ(event->kind, SessionView::Kind::unload);
}

// The hostile pattern: the whole view held, alternating between two far views, nothing read.
// Each unload is owed once per chunk, and a chunk held again is owed nothing.
TEST(SessionViewTest, OwedUnloadsAreOnePerChunkAndHeldChunksCancelThem) {
  SessionView view(kSize, kLimit, 8);
  const auto a = square({0, 0}, 16), b = square({100000, 0}, 16);
  for (int move = 0; move < 50; ++move) {
    const bool at_a = move % 2 == 0;
    view.move(at_a ? 0.0 : 100000.0 * kSize, 0.0, 16, at_a ? a : b);
  }
  EXPECT_EQ(view.owed_unloads(), a.size());  // only the view left last is owed
  EXPECT_EQ(view.loaded(), b.size());
  EXPECT_EQ(view.under_way() + view.ready(), 0u);
}

TEST(SessionViewTest, UnloadsGoBeforeLoadsAndAChunkBackInViewIsSentAgain) {
  SessionView view(kSize, kLimit, 8);
  view.move(0.0, 0.0, 0, {});
  ASSERT_EQ(drain(view).size(), 1u);
  view.move(kSize * 5.0, 0.0, 0, {});  // (0,0) owed an unload, (5,0) wanted
  view.move(0.0, 0.0, 0, {});          // back before anything was written, not held
  const auto events = drain(view);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].kind, SessionView::Kind::unload);
  EXPECT_EQ(events[0].key, (ChunkCoord{0, 0}));
  EXPECT_EQ(events[1].kind, SessionView::Kind::load);
  EXPECT_EQ(events[1].key, (ChunkCoord{0, 0}));
}

TEST(SessionViewTest, TheViewIsClippedAtTheEdgeOfTheWorld) {
  SessionView view(kSize, kLimit, 8);
  view.move(1099511627776.0, 1099511627776.0, 3, {});
  const auto events = drain(view);
  EXPECT_EQ(events.size(), 16u);  // 4 x 4: the rest lies past the edge
  for (const auto& e : events) {
    EXPECT_LE(e.key.x, kLimit);
    EXPECT_LE(e.key.z, kLimit);
  }
}

TEST(SessionViewTest, UpdateErrorsNameTheField) {
  v1::SessionUpdate update;
  update.set_view_radius(17);
  EXPECT_EQ(update_error(update, 16, 16, 1099511627776.0), "view_radius: must be in [0, 16] (got 17)");
  update.set_view_radius(1);
  update.set_lod_radius(1025);
  EXPECT_EQ(update_error(update, 16, 1024, 1099511627776.0), "lod_radius: must be in [0, 1024] (got 1025)");
  update.set_lod_radius(1024);
  for (int k = 0; k < 10; ++k) update.add_held();
  EXPECT_EQ(update_error(update, 1, 1024, 1099511627776.0), "held: at most 9 chunks (got 10)");
  update.clear_held();
  update.set_x(1099511627777.0);
  EXPECT_NE(update_error(update, 1, 1024, 1099511627776.0).find("x, z:"), std::string::npos);
  update.set_x(0.0);
  EXPECT_EQ(update_error(update, 1, 1024, 1099511627776.0), "");
}

}  // namespace
}  // namespace chunkforge::server
