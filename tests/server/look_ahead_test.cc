// LookAhead on its own: which chunks a step brings ahead (a straight step, a diagonal one, a
// second step that only adds the new edge), the ring around the first view, nothing after a
// jump, the world's edge, which prefetches a turn leaves unwanted, and that what
// it tracks stays bounded.
#include "session/look_ahead.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <vector>

namespace chunkforge::server {
namespace {

constexpr int64_t kLimit = 1000;

std::vector<ChunkCoord> keys(const std::vector<LookAhead::Chunk>& chunks) {
  std::vector<ChunkCoord> out;
  out.reserve(chunks.size());
  for (const LookAhead::Chunk& c : chunks) out.push_back(c.key);
  return out;
}

// The ring of `radius` around `centre`, by z then x.
std::vector<ChunkCoord> ring(ChunkCoord centre, int64_t radius) {
  std::vector<ChunkCoord> out;
  for (int64_t z = centre.z - radius; z <= centre.z + radius; ++z) {
    for (int64_t x = centre.x - radius; x <= centre.x + radius; ++x) {
      if (std::max(std::abs(x - centre.x), std::abs(z - centre.z)) == radius) out.push_back({x, z});
    }
  }
  return out;
}

TEST(LookAheadTest, WithNoStepToRepeatItLooksAheadAtTheRingAroundTheView) {
  LookAhead ahead(kLimit);
  const std::vector<LookAhead::Chunk> first = ahead.move({0, 0}, 2);
  EXPECT_EQ(keys(first), ring({0, 0}, 3)) << "every first step of one chunk lands there";
  for (const LookAhead::Chunk& c : first) EXPECT_EQ(c.ring, 3);
}

TEST(LookAheadTest, AJumpLooksAheadAtNothingAndLeavesEveryPrefetchUnwanted) {
  LookAhead ahead(1 << 20);
  const std::vector<LookAhead::Chunk> first = ahead.move({0, 0}, 2);
  EXPECT_TRUE(ahead.move({40, 0}, 2).empty()) << "a step longer than the radius is a jump";
  for (const LookAhead::Chunk& c : first) EXPECT_TRUE(c.unwanted->load()) << c.key.x << "," << c.key.z;
  EXPECT_EQ(ahead.tracked(), 0u);
  // Jumping every few milliseconds queues nothing; walking on from the last one predicts again.
  for (int k = 1; k <= 100; ++k) EXPECT_TRUE(ahead.move({40 + 100 * k, 0}, 2).empty());
  EXPECT_EQ(keys(ahead.move({10041, 0}, 2)),
            (std::vector<ChunkCoord>{{10044, -2}, {10044, -1}, {10044, 0}, {10044, 1}, {10044, 2}}));
}

TEST(LookAheadTest, AStraightStepLooksAheadAtTheNextColumnOnly) {
  LookAhead ahead(kLimit);
  const std::vector<LookAhead::Chunk> first = ahead.move({0, 0}, 2);
  const std::vector<LookAhead::Chunk> next = ahead.move({1, 0}, 2);
  EXPECT_EQ(keys(next), (std::vector<ChunkCoord>{{4, -2}, {4, -1}, {4, 0}, {4, 1}, {4, 2}}));
  for (const LookAhead::Chunk& c : next) EXPECT_EQ(c.ring, 2) << "from the predicted centre (2, 0)";
  EXPECT_EQ(keys(ahead.move({2, 0}, 2)), (std::vector<ChunkCoord>{{5, -2}, {5, -1}, {5, 0}, {5, 1}, {5, 2}}));
  for (const LookAhead::Chunk& c : next) EXPECT_FALSE(c.unwanted->load()) << "column 4 is now in view";
  for (const LookAhead::Chunk& c : first) {
    const bool in_view = c.key.x == 3 && std::abs(c.key.z) <= 2;
    EXPECT_EQ(c.unwanted->load(), !in_view) << c.key.x << "," << c.key.z << ": off the path";
  }
}

TEST(LookAheadTest, ADiagonalStepLooksAheadAtTwoEdges) {
  LookAhead ahead(kLimit);
  ahead.move({0, 0}, 2);
  const std::vector<ChunkCoord> next = keys(ahead.move({1, 1}, 2));
  EXPECT_EQ(next.size(), 9u) << "the ring around the first view held the step's own new chunks";
  for (const ChunkCoord k : next) EXPECT_TRUE((k.x == 4 && k.z >= 0) || (k.z == 4 && k.x >= 0)) << k.x << "," << k.z;
}

TEST(LookAheadTest, ATurnLeavesThePrefetchesNoLongerAheadUnwanted) {
  LookAhead ahead(kLimit);
  ahead.move({0, 0}, 1);
  const std::vector<LookAhead::Chunk> east = ahead.move({1, 0}, 1);  // column x = 3
  ASSERT_EQ(east.size(), 3u);
  const std::vector<LookAhead::Chunk> north = ahead.move({1, 1}, 1);  // row z = 3
  EXPECT_EQ(keys(north), (std::vector<ChunkCoord>{{0, 3}, {1, 3}, {2, 3}}));
  EXPECT_EQ(ahead.tracked(), 2u + 3u) << "(2, 0) and (2, 1) of the first ring, in view, and the row ahead";
  for (const LookAhead::Chunk& c : east) EXPECT_TRUE(c.unwanted->load()) << c.key.x << "," << c.key.z;
  for (const LookAhead::Chunk& c : north) EXPECT_FALSE(c.unwanted->load());
}

TEST(LookAheadTest, AStepWithinTheChunkKeepsThePrediction) {
  LookAhead ahead(kLimit);
  ahead.move({0, 0}, 1);
  const std::vector<LookAhead::Chunk> east = ahead.move({1, 0}, 1);
  EXPECT_TRUE(ahead.move({1, 0}, 1).empty());
  for (const LookAhead::Chunk& c : east) EXPECT_FALSE(c.unwanted->load());
}

TEST(LookAheadTest, NothingBeyondTheWorldsEdge) {
  LookAhead ahead(5);
  for (const ChunkCoord k : keys(ahead.move({2, 0}, 2))) EXPECT_LE(k.x, 5) << "the ring is clipped too";
  EXPECT_EQ(keys(ahead.move({3, 0}, 2)), std::vector<ChunkCoord>{}) << "column 6 is beyond |x| <= 5";
  EXPECT_EQ(keys(ahead.move({4, 1}, 2)), (std::vector<ChunkCoord>{{3, 4}, {4, 4}, {5, 4}}))
      << "of the diagonal's two edges, only the row is in the world";
}

TEST(LookAheadTest, WhatItTracksStaysWithinTwoViewsWhateverTheSteps) {
  LookAhead ahead(kLimit);
  std::mt19937 random(7);
  std::uniform_int_distribution<int64_t> step(-3, 3), radius(0, 3);
  ChunkCoord centre{0, 0};
  for (int k = 0; k < 2000; ++k) {
    centre = {std::clamp<int64_t>(centre.x + step(random), -kLimit, kLimit),
              std::clamp<int64_t>(centre.z + step(random), -kLimit, kLimit)};
    const int64_t r = radius(random);
    ahead.move(centre, r);
    EXPECT_LE(ahead.tracked(), size_t{7 * 7 + 9 * 9});
  }
}

}  // namespace
}  // namespace chunkforge::server
