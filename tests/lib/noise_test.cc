#include "chunkforge/noise.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <string>

namespace chunkforge {
namespace {

using Noise2 = std::function<double(uint64_t, Coord, Coord)>;

struct Named2 {
  const char* name;
  Noise2 fn;
};

const Named2 kNoises2[] = {{"perlin2", perlin2}, {"simplex2", simplex2}};

// A deterministic spread of points in a 1000-unit square around `origin`.
Coord spread(int64_t origin, uint64_t h) {
  return Coord::from_parts(origin + static_cast<int64_t>(h % 1000), unit_double(mix64(h)));
}

struct Stats {
  double min = 1e9, max = -1e9, mean = 0, mean_abs_step = 0;
};

// Range, mean and mean change over a 0.01-lattice-unit step, over points near `origin`.
Stats measure(const Noise2& noise, int64_t origin) {
  Stats s;
  constexpr int kCount = 200000;
  for (int i = 0; i < kCount; ++i) {
    const uint64_t h = hash(11, salt("noise.test"), i);
    const Coord x = spread(origin, h), z = spread(origin, mix64(h ^ 1));
    const double v = noise(5, x, z);
    s.min = std::min(s.min, v);
    s.max = std::max(s.max, v);
    s.mean += v / kCount;
    s.mean_abs_step += std::abs(noise(5, x.plus(0.01), z) - v) / kCount;
  }
  return s;
}

TEST(NoiseTest, RawNoiseStaysInUnitRangeAndUsesIt) {
  for (const Named2& n : kNoises2) {
    const Stats s = measure(n.fn, 0);
    EXPECT_GE(s.min, -1.0) << n.name;
    EXPECT_LE(s.max, 1.0) << n.name;
    EXPECT_LT(s.min, -0.7) << n.name;
    EXPECT_GT(s.max, 0.7) << n.name;
    EXPECT_NEAR(s.mean, 0.0, 0.02) << n.name;
  }
  double lo = 0, hi = 0;
  for (int i = 0; i < 200000; ++i) {
    const uint64_t h = hash(2, salt("noise.test3"), i);
    const Coord x = spread(0, h), y = spread(0, mix64(h ^ 1)), z = spread(0, mix64(h ^ 2));
    for (double v : {perlin3(9, x, y, z), simplex3(9, x, y, z)}) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  EXPECT_GE(lo, -1.0);
  EXPECT_LE(hi, 1.0);
  EXPECT_LT(lo, -0.7);
  EXPECT_GT(hi, 0.7);
}

TEST(NoiseTest, IsZeroAtLatticePointsForPerlin) {
  // Gradient noise vanishes on its lattice, wherever the lattice is.
  for (int64_t c : {int64_t{0}, int64_t{-7}, int64_t{1} << 46}) {
    EXPECT_EQ(perlin2(3, Coord{c, 0}, Coord{c + 5, 0}), 0.0);
    EXPECT_EQ(perlin3(3, Coord{c, 0}, Coord{1, 0}, Coord{c, 0}), 0.0);
  }
}

TEST(NoiseTest, NoFarLandsAtTwoToTheForty) {
  // The same statistics 2^40 lattice units away as near the origin: the field stays smooth
  // (small mean step) and keeps its range, instead of turning into steps or noise.
  for (const Named2& n : kNoises2) {
    const Stats near = measure(n.fn, 0);
    const Stats far = measure(n.fn, int64_t{1} << 40);
    const Stats far_negative = measure(n.fn, -(int64_t{1} << 40));
    for (const Stats& s : {far, far_negative}) {
      EXPECT_NEAR(s.mean_abs_step, near.mean_abs_step, 0.1 * near.mean_abs_step) << n.name;
      EXPECT_NEAR(s.max, near.max, 0.1) << n.name;
      EXPECT_NEAR(s.min, near.min, 0.1) << n.name;
    }
    EXPECT_GT(near.mean_abs_step, 0.0) << n.name;
    EXPECT_LT(near.mean_abs_step, 0.03) << n.name;  // 0.01 step; gradients are O(1)
  }
}

TEST(NoiseTest, FractalAtWorldScaleIsSmoothFarAway) {
  // World coordinates at 2^40 with a frequency that is not a power of two: a double holding
  // x * frequency directly would be quantised to ~1e-6 and adjacent samples 1e-4 apart
  // would repeat; Coord keeps them distinct and smoothly varying.
  FractalSpec spec;
  spec.frequency = 0.013;
  spec.octaves = 4;
  const Fractal f(spec, 42, salt("noise.far"));
  const Coord x0 = Coord{int64_t{1} << 40, 0.0};
  double previous = f.at(x0, Coord{int64_t{1} << 40, 0.5});
  int changed = 0;
  for (int i = 1; i <= 1000; ++i) {
    const double v = f.at(x0.plus(i * 1e-4), Coord{int64_t{1} << 40, 0.5});
    EXPECT_LT(std::abs(v - previous), 1e-4);
    changed += v != previous;
    previous = v;
  }
  EXPECT_EQ(changed, 1000);
}

TEST(NoiseTest, DifferentSeedsAndSaltsGiveIndependentFields) {
  FractalSpec spec;
  const Fractal a(spec, 1, salt("field.a")), b(spec, 1, salt("field.b")), c(spec, 2, salt("field.a"));
  int differ_b = 0, differ_c = 0;
  for (int i = 0; i < 100; ++i) {
    const Coord x = Coord::from_double(i * 37.3), z = Coord::from_double(i * 11.1);
    differ_b += a.at(x, z) != b.at(x, z);
    differ_c += a.at(x, z) != c.at(x, z);
  }
  EXPECT_GT(differ_b, 95);
  EXPECT_GT(differ_c, 95);
}

TEST(NoiseTest, FractalStaysWithinOffsetPlusMinusAmplitude) {
  for (NoiseKind kind : {NoiseKind::kPerlin, NoiseKind::kSimplex}) {
    FractalSpec spec;
    spec.kind = kind;
    spec.octaves = 6;
    spec.frequency = 0.05;
    spec.amplitude = 10;
    spec.offset = 100;
    const Fractal f(spec, 4, salt("noise.bounds"));
    for (int i = 0; i < 20000; ++i) {
      const double v = f.at(Coord::from_double(i * 0.77), Coord::from_double(i * 0.31));
      ASSERT_GE(v, 90.0);
      ASSERT_LE(v, 110.0);
    }
  }
}

// Bit-level equality, so that -0.0 vs 0.0 or a last-bit difference fails.
bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

TEST(NoiseTest, GridMatchesPointSamplesBitForBit) {
  for (NoiseKind kind : {NoiseKind::kPerlin, NoiseKind::kSimplex}) {
    for (int64_t step : {1, 2, 4, 7}) {
      for (int64_t origin : {int64_t{0}, int64_t{-1000003}, (int64_t{1} << 40) + 17}) {
        FractalSpec spec;
        spec.kind = kind;
        spec.frequency = 0.021;
        const Fractal f(spec, 99, salt("noise.grid"));
        constexpr int kN = 19, kM = 13;
        const Coord x0{origin, 0.0}, z0{-origin, 0.25};
        double out[kN * kM];
        f.grid(x0, z0, step, kN, kM, out);
        for (int j = 0; j < kM; ++j) {
          for (int i = 0; i < kN; ++i) {
            ASSERT_TRUE(same_bits(out[j * kN + i], f.at(x0.plus(i * step), z0.plus(j * step))))
                << "kind " << static_cast<int>(kind) << " step " << step << " origin " << origin << " at " << i << ","
                << j;
          }
        }
      }
    }
  }
}

// Fractal::cross shares lattice corners between the five points: at low frequencies they lie in
// one cell, at high ones in several, and both must give at()'s bits.
TEST(NoiseTest, CrossMatchesPointSamplesBitForBit) {
  for (NoiseKind kind : {NoiseKind::kPerlin, NoiseKind::kSimplex}) {
    for (double frequency : {0.004, 0.021, 0.37, 1.7}) {
      FractalSpec spec;
      spec.kind = kind;
      spec.octaves = 5;
      spec.frequency = frequency;
      const Fractal f(spec, 99, salt("noise.cross"));
      for (int64_t origin : {int64_t{0}, int64_t{-1000003}, (int64_t{1} << 40) + 17}) {
        for (int k = 0; k < 200; ++k) {
          const uint64_t h = hash(7, salt("noise.cross.points"), k);
          const Coord x = spread(origin, h), z = spread(-origin, mix64(h ^ 3));
          double out[5];
          f.cross(x, z, out);
          const Coord xs[5] = {x, x.plus(int64_t{-1}), x.plus(int64_t{1}), x, x};
          const Coord zs[5] = {z, z, z, z.plus(int64_t{-1}), z.plus(int64_t{1})};
          for (int p = 0; p < 5; ++p) {
            ASSERT_TRUE(same_bits(out[p], f.at(xs[p], zs[p])))
                << "kind " << static_cast<int>(kind) << " frequency " << frequency << " point " << p;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace chunkforge
