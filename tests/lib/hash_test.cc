#include "chunkforge/hash.h"

#include <gtest/gtest.h>

#include <set>

namespace chunkforge {
namespace {

TEST(HashTest, NamedSaltsAreDistinctAndStable) {
  static_assert(salt("terrain.elevation").value == salt("terrain.elevation").value);
  EXPECT_NE(salt("terrain.elevation").value, salt("terrain.moisture").value);
  EXPECT_NE(salt("a").value, salt("b").value);
}

TEST(HashTest, DependsOnEveryInput) {
  const uint64_t base = hash(1, salt("x"), 2, 3, 4);
  EXPECT_NE(base, hash(2, salt("x"), 2, 3, 4));
  EXPECT_NE(base, hash(1, salt("y"), 2, 3, 4));
  EXPECT_NE(base, hash(1, salt("x"), 3, 3, 4));
  EXPECT_NE(base, hash(1, salt("x"), 2, 4, 4));
  EXPECT_NE(base, hash(1, salt("x"), 2, 3, 5));
  // Order matters: (x, z) and (z, x) are different cells.
  EXPECT_NE(hash(1, salt("x"), 2, 3), hash(1, salt("x"), 3, 2));
}

TEST(HashTest, NoCollisionsOverANeighbourhoodOfCells) {
  std::set<uint64_t> seen;
  for (int64_t x = -200; x < 200; ++x) {
    for (int64_t z = -200; z < 200; ++z) seen.insert(hash(7, salt("cells"), x, z));
  }
  EXPECT_EQ(seen.size(), 400u * 400u);
}

TEST(HashTest, UnitDoubleIsInHalfOpenInterval) {
  EXPECT_EQ(unit_double(0), 0.0);
  EXPECT_LT(unit_double(~uint64_t{0}), 1.0);
  double sum = 0;
  constexpr int kCount = 100000;
  for (int i = 0; i < kCount; ++i) sum += unit_double(hash(3, salt("u"), i));
  EXPECT_NEAR(sum / kCount, 0.5, 0.01);
}

TEST(HashTest, BytesHashSeesEveryByteAndTheLength) {
  const Salt s = salt("bytes");
  EXPECT_NE(hash_bytes(0, s, "abc"), hash_bytes(0, s, "abd"));
  EXPECT_NE(hash_bytes(0, s, std::string_view("\0", 1)), hash_bytes(0, s, ""));
  EXPECT_NE(hash_bytes(0, s, "12345678"), hash_bytes(0, s, "123456789"));
}

}  // namespace
}  // namespace chunkforge
