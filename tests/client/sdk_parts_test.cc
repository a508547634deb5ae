// The SDK's parts on their own, without a server: the local cache beyond a session's view
// (bounded in bytes, least recently put out first) and the backoff between retries (doubling
// up to its cap, each delay within +-20 %).
#include <gtest/gtest.h>

#include <memory>
#include <set>

#include "chunkforge/v1/chunk.pb.h"
#include "chunkforge/v1/info.pb.h"
#include "client_impl.h"
#include "local_cache.h"

namespace chunkforge::client {
namespace {

// A chunk whose encoding is about `bytes` long (an object state of that size).
Chunk chunk_of(int64_t x, size_t bytes) {
  auto message = std::make_shared<v1::Chunk>();
  message->mutable_coord()->set_x(x);
  v1::ObjectState* state = message->add_object_states();
  state->set_id(1);
  state->set_state(std::string(bytes, 's'));
  return Chunk(message, WorldInfo(v1::WorldInfo{}));
}

TEST(LocalCacheTest, StaysWithinItsBudgetDroppingTheOldestFirst) {
  const size_t each = chunk_of(1, 1000).encoded_bytes();  // x = 1 to 6: the same size
  LocalCache cache(3 * each);
  for (int64_t x = 1; x <= 5; ++x) {
    cache.put({x, 0}, chunk_of(x, 1000));
    EXPECT_LE(cache.bytes(), 3 * each);
  }
  EXPECT_EQ(cache.find({1, 0}), nullptr);
  EXPECT_EQ(cache.find({2, 0}), nullptr);
  for (int64_t x = 3; x <= 5; ++x) EXPECT_NE(cache.find({x, 0}), nullptr) << x;
  cache.put({3, 0}, chunk_of(3, 1000));  // put again: now the newest
  cache.put({6, 0}, chunk_of(6, 1000));
  EXPECT_NE(cache.find({3, 0}), nullptr);
  EXPECT_EQ(cache.find({4, 0}), nullptr);
}

TEST(LocalCacheTest, TakeIfRemovesWhatItReturnsAndCountsBytesBack) {
  LocalCache cache(1 << 20);
  for (int64_t x = 0; x < 6; ++x) cache.put({x, 0}, chunk_of(x, 100));
  const size_t before = cache.bytes();
  const std::vector<Chunk> even = cache.take_if([](ChunkCoord c) { return c.x % 2 == 0; });
  ASSERT_EQ(even.size(), 3u);
  for (const Chunk& c : even) EXPECT_EQ(c.coord().x % 2, 0);
  EXPECT_EQ(cache.bytes(), before - even[0].encoded_bytes() - even[1].encoded_bytes() - even[2].encoded_bytes());
  EXPECT_EQ(cache.find({2, 0}), nullptr);
  EXPECT_NE(cache.find({3, 0}), nullptr);
  cache.clear();
  EXPECT_EQ(cache.bytes(), 0u);
}

TEST(LocalCacheTest, AChunkBiggerThanTheBudgetIsNotKept) {
  LocalCache cache(10);
  cache.put({0, 0}, chunk_of(0, 100));
  EXPECT_EQ(cache.find({0, 0}), nullptr);
  EXPECT_EQ(cache.bytes(), 0u);
}

TEST(BackoffTest, DoublesUpToItsCapWithinTwentyPercentAndStartsAgainOnReset) {
  using std::chrono::milliseconds;
  Backoff backoff(milliseconds(100), milliseconds(1000));
  const int64_t expected[] = {100, 200, 400, 800, 1000, 1000};
  for (int round = 0; round < 2; ++round) {
    for (const int64_t base : expected) {
      const int64_t delay = backoff.next().count();
      EXPECT_GE(delay, base * 8 / 10) << base;
      EXPECT_LE(delay, base * 12 / 10) << base;
    }
    backoff.reset();
  }
}

TEST(BackoffTest, DelaysAreJittered) {
  Backoff backoff(std::chrono::milliseconds(1000), std::chrono::milliseconds(1000));
  std::set<int64_t> seen;
  for (int k = 0; k < 20; ++k) seen.insert(backoff.next().count());
  EXPECT_GT(seen.size(), 5u);  // clients that lost one server do not come back in step
}

}  // namespace
}  // namespace chunkforge::client
