// TileView, one session's LOD tile bookkeeping, alone: what it asks to make, in which order and
// how many at once, what it writes, and when unloads go.
#include "session/tile_view.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

namespace chunkforge::server {
namespace {

constexpr int64_t kChunkSize = 64;

Bytes bytes_of(const LodKey& key) {
  return std::make_shared<const std::string>(std::to_string(key.level) + "/" + std::to_string(key.x));
}

// Makes every requested tile at once and writes every event; returns the events written.
std::vector<TileView::Event> drain(TileView& tiles) {
  std::vector<TileView::Event> written;
  for (;;) {
    while (auto request = tiles.next_request()) tiles.made(request->key, bytes_of(request->key));
    auto event = tiles.next_event();
    if (!event) return written;
    written.push_back(*event);
  }
}

std::set<LodKey> loaded(const std::vector<TileView::Event>& events) {
  std::set<LodKey> out;
  for (const auto& e : events) {
    if (e.bytes) out.insert(e.key);
  }
  return out;
}

TEST(TileViewTest, AsksForTheViewInOrderWithinItsWindowLessTheChunkView) {
  TileView tiles(kChunkSize, 4);
  tiles.move(5000, -7000, 3, 1024);
  const std::vector<LodKey>& wanted = tiles.wanted();
  ASSERT_GT(wanted.size(), 300u);
  const int64_t cx = 5000 / kChunkSize, cz = -7000 / kChunkSize - 1;
  for (const LodKey& k : wanted) {  // no tile lies wholly inside the 7 x 7 chunks
    const int64_t n = k.chunks();
    EXPECT_FALSE(k.x * n >= cx - 3 && (k.x + 1) * n - 1 <= cx + 3 && k.z * n >= cz - 3 && (k.z + 1) * n - 1 <= cz + 3);
  }
  std::vector<TileView::Request> requests;
  while (auto r = tiles.next_request()) requests.push_back(*r);
  ASSERT_EQ(requests.size(), 4u) << "the window";
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(requests[i].key, wanted[i]);
  tiles.made(requests[2].key, bytes_of(requests[2].key));
  tiles.made(requests[0].key, bytes_of(requests[0].key));
  EXPECT_EQ(tiles.next_event()->key, wanted[0]) << "ready tiles go in the view's order";
  EXPECT_EQ(tiles.next_request()->key, wanted[4]);
  EXPECT_FALSE(tiles.settled());
}

TEST(TileViewTest, UnloadsWaitForTheNewViewsTiles) {
  TileView tiles(kChunkSize, 4);
  tiles.move(0, 0, 2, 64);
  const std::set<LodKey> first = loaded(drain(tiles));
  EXPECT_EQ(first, std::set<LodKey>(tiles.wanted().begin(), tiles.wanted().end()));
  EXPECT_TRUE(tiles.settled());

  tiles.move(640000, 0, 2, 64);
  EXPECT_EQ(tiles.owed_unloads(), first.size());
  const std::vector<TileView::Event> events = drain(tiles);
  size_t loads = 0;
  for (const auto& e : events) {
    if (e.bytes) {
      ++loads;
    } else {
      EXPECT_EQ(loads, tiles.wanted().size()) << "an unload before the new view was complete";
    }
  }
  EXPECT_EQ(events.size(), tiles.wanted().size() + first.size());
  EXPECT_TRUE(tiles.settled());
}

TEST(TileViewTest, ADroppedTileIsAskedForAgainAndAnUnwantedOneIsFlagged) {
  TileView tiles(kChunkSize, 2);
  tiles.move(0, 0, 1, 32);
  const LodKey first = tiles.next_request()->key;
  tiles.made(first, nullptr);  // dropped
  const auto a = *tiles.next_request();
  EXPECT_EQ(a.key, first);

  tiles.move(0, 0, 1, 0);  // no tiles wanted: the ones being made are flagged
  EXPECT_TRUE(a.unwanted->load());
  EXPECT_FALSE(tiles.next_request());
  tiles.move(0, 0, 1, 32);  // wanted again before it was made: the flag follows the view
  EXPECT_FALSE(a.unwanted->load());
}

TEST(TileViewTest, UnloadsHeldBackAreBoundedWhateverTheClientDoes) {
  TileView tiles(kChunkSize, 4);
  size_t most_held = 0, held = 0;
  for (int jump = 0; jump < 40; ++jump) {  // a teleport each time a few tiles have arrived
    tiles.move(jump * 1e6, 0, 2, 1024);
    for (int k = 0; k < 40; ++k) {
      while (auto r = tiles.next_request()) tiles.made(r->key, bytes_of(r->key));
      auto event = tiles.next_event();
      if (!event) break;
      held += event->bytes ? 1 : -1;
    }
    most_held = std::max(most_held, held);
  }
  EXPECT_LT(most_held, 1200u) << "a view (some 400 tiles) and the unloads held back (512), at most";
}

// What a batch of unloads is filled with: next_unload gives exactly the unloads next_event would
// give before its next load: none while the new view's tiles are owed (up to 512 held back),
// those past 512 at once, and every one once the view is complete.
TEST(TileViewTest, NextUnloadTakesOnlyTheUnloadsNextEventWouldGive) {
  TileView tiles(kChunkSize, 4);
  tiles.move(0, 0, 2, 1024);
  const std::set<LodKey> first = loaded(drain(tiles));
  tiles.move(1e6, 0, 2, 1024);  // every tile left the view, none of the new view arrived
  tiles.move(2e6, 0, 2, 1024);
  ASSERT_EQ(tiles.owed_unloads(), first.size());
  ASSERT_LT(first.size(), 512u);
  EXPECT_FALSE(tiles.next_unload()) << "held back while the new view's tiles are owed";
  while (auto r = tiles.next_request()) tiles.made(r->key, bytes_of(r->key));
  ASSERT_TRUE(tiles.next_event()->bytes) << "a load first";

  std::vector<LodKey> unloads;
  while (true) {
    while (auto r = tiles.next_request()) tiles.made(r->key, bytes_of(r->key));
    if (auto unload = tiles.next_unload()) {
      unloads.push_back(*unload);
      continue;
    }
    auto event = tiles.next_event();
    if (!event) break;
    EXPECT_TRUE(event->bytes) << "next_event gave an unload next_unload did not";
    EXPECT_TRUE(unloads.empty()) << "an unload before the new view was complete";
  }
  EXPECT_EQ(unloads, std::vector<LodKey>(first.begin(), first.end())) << "each once, in order";
  EXPECT_TRUE(tiles.settled());
}

TEST(TileViewTest, NextUnloadGivesThoseHeldBackPast512AtOnce) {
  TileView tiles(kChunkSize, 4);
  tiles.move(0, 0, 2, 1024);
  drain(tiles);  // a whole view held
  tiles.move(1e6, 0, 2, 1024);
  for (int k = 0; k < 200; ++k) {  // 200 tiles of the next view held, its unloads held back
    while (auto r = tiles.next_request()) tiles.made(r->key, bytes_of(r->key));
    ASSERT_TRUE(tiles.next_event()->bytes);
  }
  tiles.move(2e6, 0, 2, 1024);
  const size_t owed = tiles.owed_unloads();
  ASSERT_GT(owed, 512u);
  size_t taken = 0;
  while (tiles.next_unload()) ++taken;
  EXPECT_EQ(taken, owed - 512) << "down to the bound; the rest wait for the new view";
  while (auto r = tiles.next_request()) tiles.made(r->key, bytes_of(r->key));
  EXPECT_TRUE(tiles.next_event()->bytes);
}

}  // namespace
}  // namespace chunkforge::server
