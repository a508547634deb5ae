// ChunkCache on its own: hits and misses, single-flight joins, LRU eviction within the charged
// capacity, productions started once (or dropped when unwanted), a more urgent waiter asking for
// its own production, oversized entries, and the statistics /metrics shows.
#include "generation/chunk_cache.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace chunkforge::server {
namespace {

Bytes bytes_of(size_t size, char fill = 'x') { return std::make_shared<const std::string>(size, fill); }

// A waiter that records what it was handed; `wanted` false makes it a cancelled requester.
struct Recorder {
  std::vector<Bytes> received;
  int calls = 0;
  bool wanted = true;
  ChunkCache::Waiter waiter(double priority = 0) {
    return {[this](Bytes b) {
              ++calls;
              received.push_back(std::move(b));
            },
            [this] { return !wanted; }, priority};
  }
};

TEST(ChunkCacheTest, AMissIsProducedOnceThenHits) {
  ChunkCache cache(1 << 20);
  Recorder first;
  ChunkCache::JoinResult miss = cache.join("1,2/", first.waiter());
  EXPECT_FALSE(miss.hit);
  EXPECT_TRUE(miss.produce);
  const Bytes chunk = bytes_of(100);
  cache.fulfil("1,2/", chunk);
  ASSERT_EQ(first.calls, 1);
  EXPECT_EQ(first.received[0], chunk);

  Recorder second;
  ChunkCache::JoinResult hit = cache.join("1,2/", second.waiter());
  EXPECT_EQ(hit.hit, chunk);
  EXPECT_FALSE(hit.produce);
  EXPECT_EQ(second.calls, 0) << "a hit does not keep the waiter";
  const CacheStats stats = cache.stats();
  EXPECT_EQ(stats.misses, 1u);
  EXPECT_EQ(stats.hits, 1u);
  EXPECT_EQ(stats.entries, 1u);
}

TEST(ChunkCacheTest, ConcurrentMissesJoinOneGeneration) {
  ChunkCache cache(1 << 20);
  Recorder a, b, c;
  EXPECT_TRUE(cache.join("k", a.waiter()).produce);
  EXPECT_FALSE(cache.join("k", b.waiter()).produce);
  EXPECT_FALSE(cache.join("k", c.waiter()).produce);
  const Bytes chunk = bytes_of(10);
  cache.fulfil("k", chunk);
  for (Recorder* r : {&a, &b, &c}) {
    ASSERT_EQ(r->calls, 1);
    EXPECT_EQ(r->received[0], chunk);
  }
  EXPECT_EQ(cache.stats().misses, 1u);
  EXPECT_EQ(cache.stats().joined, 2u);
}

TEST(ChunkCacheTest, TheLeastRecentlyUsedEntryIsEvictedFirst) {
  const size_t charge = ChunkCache::entry_charge("a", std::string(1000, 'x'));
  // Room for three entries and the shard's hash buckets, not for a fourth.
  ChunkCache cache(3 * charge + 256, 1);
  for (const char* key : {"a", "b", "c"}) cache.fulfil(key, bytes_of(1000));
  Recorder r;
  EXPECT_TRUE(cache.join("a", r.waiter()).hit);  // a is now the most recent; b the oldest
  cache.fulfil("d", bytes_of(1000));
  EXPECT_EQ(cache.stats().evictions, 1u);
  EXPECT_EQ(cache.stats().entries, 3u);
  for (const char* key : {"a", "c", "d"}) EXPECT_TRUE(cache.join(key, r.waiter()).hit) << key;
  EXPECT_FALSE(cache.join("b", r.waiter()).hit);
}

TEST(ChunkCacheTest, AbandonHandsNullToEveryWaiterAndForgetsTheGeneration) {
  ChunkCache cache(1 << 20);
  Recorder a, b;
  cache.join("k", a.waiter());
  cache.join("k", b.waiter());
  cache.abandon("k");
  EXPECT_EQ(a.received, std::vector<Bytes>{nullptr});
  EXPECT_EQ(b.received, std::vector<Bytes>{nullptr});
  Recorder later;
  EXPECT_TRUE(cache.join("k", later.waiter()).produce) << "the next request must produce it again";
  EXPECT_EQ(cache.stats().entries, 0u);
}

TEST(ChunkCacheTest, StartKeepsAGenerationSomeoneStillWants) {
  ChunkCache cache(1 << 20);
  Recorder gone, waiting;
  gone.wanted = false;
  cache.join("k", gone.waiter());
  cache.join("k", waiting.waiter());
  EXPECT_TRUE(cache.start("k"));
  EXPECT_FALSE(cache.start("k")) << "one production generates";
  EXPECT_EQ(gone.calls + waiting.calls, 0);

  const Bytes chunk = bytes_of(10);
  cache.fulfil("k", chunk);
  EXPECT_EQ(waiting.received, std::vector<Bytes>{chunk});
  EXPECT_EQ(gone.calls, 1) << "a cancelled waiter is still told, and ignores it";
}

TEST(ChunkCacheTest, StartDropsAGenerationNobodyWants) {
  ChunkCache cache(1 << 20);
  Recorder a, b;
  a.wanted = b.wanted = false;
  cache.join("k", a.waiter());
  cache.join("k", b.waiter());
  EXPECT_FALSE(cache.start("k"));
  EXPECT_EQ(a.received, std::vector<Bytes>{nullptr});
  EXPECT_EQ(b.received, std::vector<Bytes>{nullptr});
  Recorder later;
  EXPECT_TRUE(cache.join("k", later.waiter()).produce) << "the next request must produce it again";
}

TEST(ChunkCacheTest, AMoreUrgentWaiterAsksForItsOwnProductionAndTheFirstToStartMakesIt) {
  ChunkCache cache(1 << 20);
  Recorder prefetch, same, urgent, late;
  EXPECT_TRUE(cache.join("k", prefetch.waiter(5)).produce);
  EXPECT_FALSE(cache.join("k", same.waiter(5)).produce) << "as urgent as the one queued";
  EXPECT_TRUE(cache.join("k", urgent.waiter(1)).produce) << "more urgent than any queued";
  EXPECT_TRUE(cache.start("k")) << "the urgent production, run first";
  EXPECT_FALSE(cache.join("k", late.waiter(0)).produce) << "generation under way: nothing to hurry";
  const Bytes chunk = bytes_of(10);
  cache.fulfil("k", chunk);
  EXPECT_FALSE(cache.start("k")) << "the prefetch's production, run later, finds it made";
  for (const Recorder* r : {&prefetch, &same, &urgent, &late}) EXPECT_EQ(r->received, std::vector<Bytes>{chunk});
  EXPECT_EQ(cache.stats().misses, 1u);
}

TEST(ChunkCacheTest, AnEntryLargerThanAShardIsDeliveredButNotStored) {
  ChunkCache cache(16 << 10, 16);  // 1 KiB a shard
  Recorder r;
  cache.join("big", r.waiter());
  const Bytes chunk = bytes_of(2000);
  cache.fulfil("big", chunk);
  EXPECT_EQ(r.received, std::vector<Bytes>{chunk});
  EXPECT_EQ(cache.stats().entries, 0u);
  EXPECT_EQ(cache.stats().bytes, 0u);
  EXPECT_TRUE(cache.join("big", r.waiter()).produce);
}

TEST(ChunkCacheTest, SmallEntriesAreChargedTheirOverheadNotJustTheirBytes) {
  // A 160-byte chunk costs far more than 160 bytes: its nodes, its shared_ptr block and the
  // allocator's headers. A 25 KB one costs little more than its bytes.
  const size_t small = ChunkCache::entry_charge("12,-34/", std::string(160, 'x'));
  EXPECT_GE(small, 2 * 160u);
  EXPECT_LE(small, 4 * 160u);
  const size_t large = ChunkCache::entry_charge("12,-34/", std::string(25000, 'x'));
  EXPECT_GE(large, 25000u + 150);
  EXPECT_LE(large, 25000u + 500);
  // A longer key is stored on the heap once, and charged for it.
  EXPECT_GT(ChunkCache::entry_charge("1234567890,-1234567890/", std::string(160, 'x')), small);
}

TEST(ChunkCacheTest, StatsReportChargedBytesWithinTheCapacityAndThePayload) {
  const size_t capacity = 256 << 10;
  ChunkCache cache(capacity);
  size_t inserted = 0;
  for (int i = 0; i < 5000; ++i) {
    cache.fulfil(std::to_string(i) + ",0/", bytes_of(160));
    inserted += 160;
    ASSERT_LE(cache.stats().bytes, capacity);
  }
  const CacheStats stats = cache.stats();
  EXPECT_EQ(stats.payload_bytes, stats.entries * 160);
  EXPECT_GT(stats.bytes, 2 * stats.payload_bytes) << "small entries' overhead must be charged";
  EXPECT_GT(stats.bytes, capacity * 9 / 10) << "the cache fills its capacity";
  EXPECT_EQ(stats.evictions + stats.entries, 5000u);
  EXPECT_GT(stats.evictions, 0u);
}

TEST(ChunkCacheTest, BytesWithMuchUnusedCapacityAreStoredAsAnExactCopy) {
  ChunkCache cache(1 << 20);
  auto grown = std::make_shared<std::string>();
  grown->reserve(4096);
  grown->assign(700, 'x');  // as a serialiser's doubling string leaves it
  Recorder r;
  cache.join("k", r.waiter());
  cache.fulfil("k", grown);
  ASSERT_EQ(r.calls, 1);
  EXPECT_EQ(*r.received[0], *grown);
  EXPECT_LT(r.received[0]->capacity(), 800u);
  EXPECT_EQ(cache.join("k", r.waiter()).hit, r.received[0]) << "waiters and the cache share the copy";
}

}  // namespace
}  // namespace chunkforge::server
