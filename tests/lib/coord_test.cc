#include "chunkforge/coord.h"

#include <gtest/gtest.h>

#include "chunkforge/hash.h"

namespace chunkforge {
namespace {

TEST(CoordTest, FromPartsIsCanonical) {
  EXPECT_EQ(Coord::from_parts(3, 1.25), (Coord{4, 0.25}));
  EXPECT_EQ(Coord::from_parts(-3, -0.25), (Coord{-4, 0.75}));
  EXPECT_EQ(Coord::from_double(-0.5), (Coord{-1, 0.5}));
  EXPECT_EQ(Coord::from_parts(5, -1e-300), (Coord{5, 0.0}));  // rounds up to the next cell
  EXPECT_EQ(Coord::from_double(5.0), Coord{}.plus(int64_t{5}));
}

TEST(CoordTest, ScaledIsExactForLargeCells) {
  // 2^40 * 0.25 and 2^40 * 3 are exact in any arithmetic.
  const Coord far{int64_t{1} << 40, 0.5};
  EXPECT_EQ(far.scaled(0.25), (Coord{int64_t{1} << 38, 0.125}));
  EXPECT_EQ(far.scaled(3.0), (Coord{3 * (int64_t{1} << 40) + 1, 0.5}));
}

TEST(CoordTest, ScaledKeepsTheFractionAtTwoToTheForty) {
  // Compare with 64-bit-mantissa long double, which holds cell * factor to ~1e-8 here;
  // a plain double product would be off by up to 1e-6 and lose the fraction entirely at
  // higher frequencies.
  for (int i = 0; i < 1000; ++i) {
    const uint64_t h = hash(1, salt("coord.test"), i);
    const int64_t cell = (int64_t{1} << 40) - static_cast<int64_t>(h % 100000);
    const double frac = unit_double(mix64(h));
    const double factor = 0.001 + unit_double(mix64(h + 1)) * 0.05;
    const Coord c = Coord{cell, frac}.scaled(factor);
    const long double exact = (static_cast<long double>(cell) + frac) * factor;
    const long double got = static_cast<long double>(c.cell) + c.frac;
    EXPECT_NEAR(static_cast<double>(got - exact), 0.0, 5e-8) << "cell " << cell;
    EXPECT_GE(c.frac, 0.0);
    EXPECT_LT(c.frac, 1.0);
  }
}

}  // namespace
}  // namespace chunkforge
