// The seen-land record (chunkforge/seen_land.h): first sight wins, the bytes round-trip and are
// canonical, malformed bytes are refused with the reason, and what a walked area costs.
#include "chunkforge/seen_land.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace chunkforge {
namespace {

TEST(SeenLandTest, FirstSightDecidesTheEpoch) {
  SeenLand seen;
  EXPECT_FALSE(seen.epoch_of({3, -2}).has_value());
  EXPECT_EQ(seen.mark({3, -2}, 1), 1u);
  EXPECT_EQ(seen.mark({3, -2}, 2), 1u);  // seen again later: still epoch 1's
  EXPECT_EQ(seen.mark({-17, 40}, 0), 0u);
  EXPECT_EQ(seen.epoch_of({3, -2}), 1u);
  EXPECT_EQ(seen.epoch_of({-17, 40}), 0u);
  EXPECT_FALSE(seen.epoch_of({-17, 41}).has_value());
  EXPECT_EQ(seen.chunks_seen(), 2u);
  EXPECT_EQ(seen.epochs(), 2u);
  EXPECT_TRUE(seen.any_before({-20, 38}, {-16, 42}, 1));
  EXPECT_FALSE(seen.any_before({-20, 38}, {-16, 42}, 0));
  EXPECT_FALSE(seen.any_before({0, -5}, {5, 0}, 1));  // (3, -2) is epoch 1's, not before it
  EXPECT_TRUE(seen.any_before({0, -5}, {5, 0}, 2));
}

TEST(SeenLandTest, BytesRoundTripAndDoNotDependOnOrder) {
  SeenLand a, b;
  for (int64_t k = -40; k < 40; ++k) a.mark({k, k / 3}, k < 0 ? 0 : 1);
  for (int64_t k = 39; k >= -40; --k) b.mark({k, k / 3}, k < 0 ? 0 : 1);
  EXPECT_EQ(a.encode(), b.encode());
  std::string error;
  const std::optional<SeenLand> back = SeenLand::decode(a.encode(), error);
  ASSERT_TRUE(back.has_value()) << error;
  EXPECT_EQ(*back, a);
  EXPECT_EQ(back->chunks_seen(), 80u);
  EXPECT_EQ(back->epoch_of({-40, -13}), 0u);
  EXPECT_EQ(back->epoch_of({39, 13}), 1u);
  EXPECT_EQ(SeenLand().encode().size(), 1u);  // land nobody saw costs nothing
}

TEST(SeenLandTest, MalformedBytesAreRefusedWithTheReason) {
  SeenLand seen;
  seen.mark({1, 1}, 0);
  const std::string good = seen.encode();
  std::string error;
  EXPECT_FALSE(SeenLand::decode("", error));
  EXPECT_NE(error.find("not format 1"), std::string::npos) << error;
  EXPECT_FALSE(SeenLand::decode(good.substr(0, good.size() - 1), error));
  EXPECT_NE(error.find("not a whole number"), std::string::npos) << error;
  EXPECT_FALSE(SeenLand::decode(good + good.substr(1), error));  // the same map twice
  EXPECT_NE(error.find("out of order or repeated"), std::string::npos) << error;
  std::string twice = good + good.substr(1);
  twice[1 + 52 + 16] = 1;  // the copy as epoch 1: the chunk in two epochs
  EXPECT_FALSE(SeenLand::decode(twice, error));
  EXPECT_NE(error.find("two epochs"), std::string::npos) << error;
  std::string empty = good;
  for (size_t k = 1 + 20; k < empty.size(); ++k) empty[k] = 0;
  EXPECT_FALSE(SeenLand::decode(empty, error));
  EXPECT_NE(error.find("empty map"), std::string::npos) << error;
}

// A store's rows merged in any order: the earliest epoch keeps a chunk two rows name.
TEST(SeenLandTest, MergedMapsKeepEachChunkInItsEarliestEpoch) {
  SeenLand::Bits low{}, high{};
  low[0] = 0b0110;   // chunks (1, 0) and (2, 0) of region (0, 0)
  high[0] = 0b1100;  // (2, 0) again, and (3, 0)
  for (const bool low_first : {true, false}) {
    SeenLand seen;
    if (low_first) seen.merge(0, 0, 0, low);
    seen.merge(0, 0, 1, high);
    if (!low_first) seen.merge(0, 0, 0, low);
    EXPECT_EQ(seen.epoch_of({1, 0}), 0u);
    EXPECT_EQ(seen.epoch_of({2, 0}), 0u);
    EXPECT_EQ(seen.epoch_of({3, 0}), 1u);
    EXPECT_EQ(seen.chunks_seen(), 3u);
    EXPECT_EQ(seen.maps(), 2u);
  }
  SeenLand marked;
  marked.mark({-1, -17}, 2);  // region (-1, -2), chunk (15, 15) of it
  SeenLand::Bits bits{};
  marked.for_each_map([&](int64_t x, int64_t z, uint32_t epoch, const SeenLand::Bits& b) {
    EXPECT_EQ(x, -1);
    EXPECT_EQ(z, -2);
    EXPECT_EQ(epoch, 2u);
    bits = b;
  });
  EXPECT_EQ(bits[3], uint64_t{1} << 63);
  SeenLand merged;
  merged.merge(-1, -2, 2, bits);
  EXPECT_EQ(merged, marked);
}

// An excerpt holds whole regions, only the epochs below the one asked; merged back, it adds
// nothing to the record it came from.
TEST(SeenLandTest, AnExcerptHoldsTheWholeRegionsAndOlderEpochsOnly) {
  SeenLand seen;
  seen.mark({0, 0}, 0);
  seen.mark({15, 15}, 1);  // region (0, 0)
  seen.mark({16, 0}, 0);   // region (1, 0)
  seen.mark({-1, 0}, 2);   // region (-1, 0), the newest epoch's
  seen.mark({100, 0}, 0);  // far away
  const SeenLand part = seen.excerpt({-1, 0}, {16, 0}, 2);
  EXPECT_EQ(part.epoch_of({0, 0}), 0u);
  EXPECT_EQ(part.epoch_of({15, 15}), 1u);  // outside [lo, hi], inside a region it spans
  EXPECT_EQ(part.epoch_of({16, 0}), 0u);
  EXPECT_FALSE(part.epoch_of({-1, 0}));
  EXPECT_FALSE(part.epoch_of({100, 0}));
  EXPECT_EQ(part.chunks_seen(), 3u);
  EXPECT_EQ(seen.excerpt({-1, 0}, {16, 0}, 0).maps(), 0u);
  SeenLand back = seen;
  back.merge(part);
  EXPECT_EQ(back, seen);
}

// What a walked area costs: a player's trail 17 chunks wide (a radius-8 view) over 400 chunks
// of travel, then a town of 64 x 64 chunks.
TEST(SeenLandTest, WalkedLandCostsAboutABitAChunk) {
  SeenLand seen;
  for (int64_t x = 0; x < 400; ++x) {
    for (int64_t z = -8; z <= 8; ++z) seen.mark({x, z + x / 7}, 0);
  }
  for (int64_t z = 100; z < 164; ++z) {
    for (int64_t x = -300; x < -236; ++x) seen.mark({x, z}, 1);
  }
  const size_t bytes = seen.encode().size();
  const auto chunks = static_cast<double>(seen.chunks_seen());
  const double map_bits = 256.0 * static_cast<double>(seen.maps());
  std::printf("seen %zu chunks in %zu maps: %zu bytes, %.2f bits a chunk (%.2f of them the maps')\n",
              seen.chunks_seen(), seen.maps(), bytes, 8.0 * static_cast<double>(bytes) / chunks, map_bits / chunks);
  // The maps cover the trail's regions whole; the rest is each map's 20-byte key.
  EXPECT_LT(map_bits / chunks, 2.0);
  EXPECT_EQ(bytes, 1 + 52 * seen.maps());
}

}  // namespace
}  // namespace chunkforge
