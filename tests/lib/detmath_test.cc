// detmath's accuracy against long double references (64-bit mantissa on x86-64, 113 on
// aarch64: both far finer than a double's ulp) and its exact special values. The bounds are the
// measured worst cases over a million points, rounded up, and are what chunkforge/detmath.h
// promises. Its bits are pinned elsewhere (fma_caller_test.cc, the golden tests).
#include "chunkforge/detmath.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "chunkforge/hash.h"

namespace chunkforge {
namespace {

// |got - ref| in ulps of the double nearest ref.
double ulps(double got, long double ref) {
  const double r = std::fabs(static_cast<double>(ref));
  const double ulp = std::nextafter(r, std::numeric_limits<double>::infinity()) - r;
  return static_cast<double>(std::fabs(static_cast<long double>(got) - ref) / ulp);
}

double uniform(uint64_t i, uint64_t stream) { return unit_double(hash(stream, salt("detmath.test"), i)); }

class DetmathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::numeric_limits<long double>::digits <= std::numeric_limits<double>::digits) {
      GTEST_SKIP() << "long double is no finer than double here: no reference";
    }
  }
  static constexpr int kPoints = 200000;
};

TEST_F(DetmathTest, LogWithinThreeUlpsEverywhere) {
  for (int i = 0; i < kPoints; ++i) {
    const double x = std::ldexp(0.5 + 0.5 * uniform(i, 1), static_cast<int>(uniform(i, 2) * 2000) - 1000);
    if (x == 1.0) continue;
    ASSERT_LE(ulps(detmath::log(x), std::log(static_cast<long double>(x))), 3.0) << std::hexfloat << x;
  }
  for (int i = 1; i < 2000; ++i) {  // near 1, where log is smallest
    const double x = 1.0 + (i - 1000) * 0x1p-40;
    if (x == 1.0) continue;
    ASSERT_LE(ulps(detmath::log(x), std::log(static_cast<long double>(x))), 3.0) << std::hexfloat << x;
  }
}

TEST_F(DetmathTest, ExpWithinThreeUlpsForSmallArgumentsAndGrowsWithTheArgument) {
  for (int i = 0; i < kPoints; ++i) {
    const double small = -1.0 + 2.0 * uniform(i, 3);
    ASSERT_LE(ulps(detmath::exp(small), std::exp(static_cast<long double>(small))), 3.0) << small;
    // Range reduction rounds y / ln 2: the relative error grows with |y| (1.31 (1 + |y|) measured).
    const double y = -700.0 + 1400.0 * uniform(i, 4);
    ASSERT_LE(ulps(detmath::exp(y), std::exp(static_cast<long double>(y))), 1.5 * (1.0 + std::fabs(y))) << y;
  }
}

TEST_F(DetmathTest, PowWithinBoundsForDensityArguments) {
  // Densities: n in (0, 1], sharpness in [0.1, 16].
  for (int i = 0; i < kPoints; ++i) {
    const double n = uniform(i, 5), a = 0.1 + 15.9 * uniform(i, 6);
    if (n == 0.0) continue;
    const long double ref = std::pow(static_cast<long double>(n), static_cast<long double>(a));
    if (ref < 1e-300L) continue;  // exp's domain
    const double y = a * std::log(n);
    ASSERT_LE(ulps(detmath::pow(n, a), ref), 4.0 * (1.0 + std::fabs(y))) << n << " ^ " << a;
    // Whole exponents 1..8 are repeated multiplication: at most (a - 1) roundings.
    const double k = 1 + i % 8;
    ASSERT_LE(ulps(detmath::pow(n, k), std::pow(static_cast<long double>(n), static_cast<long double>(k))), 4.5)
        << n << " ^ " << k;
  }
}

TEST(DetmathExactTest, SpecialValues) {
  EXPECT_EQ(detmath::log(1.0), 0.0);
  EXPECT_EQ(detmath::log(2.0), 0x1.62e42fefa39efp-1);  // ln 2 correctly rounded
  EXPECT_EQ(detmath::exp(0.0), 1.0);
  EXPECT_EQ(detmath::pow(0.3, 0.0), 1.0);
  EXPECT_EQ(detmath::pow(0.0, 2.5), 0.0);
  EXPECT_EQ(detmath::pow(0.7, 1.0), 0.7);
  EXPECT_EQ(detmath::pow(0.7, 2.0), 0.7 * 0.7);
  EXPECT_EQ(detmath::pow(0.7, 3.0), 0.7 * 0.7 * 0.7);
}

}  // namespace
}  // namespace chunkforge
