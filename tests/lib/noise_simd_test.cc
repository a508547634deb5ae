// The batched (vector) Perlin grid against the scalar loop: every double equal bit for bit over
// random origins (up to 2^40 and beyond), steps, frequencies, octaves and grid shapes, and over
// uneven separable grids. The golden tests run on both paths through ctest as well
// (tests/CMakeLists.txt, CHUNKFORGE_SCALAR_NOISE=1).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <hwy/targets.h>

#include "chunkforge/noise.h"
#include "noise_path.h"
#include "perlin_rows.h"

namespace chunkforge {
namespace {

uint64_t bits(double v) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

// Runs `fill` once on each path and gives both outputs (first scalar, then batched); leaves the
// path as it found it.
template <class Fill>
void both_paths(size_t count, Fill fill, std::vector<double>& scalar, std::vector<double>& batched) {
  const bool was_batched = noise_path::batched_enabled();
  scalar.assign(count, 1.0);
  batched.assign(count, 2.0);
  noise_path::force_scalar(true);
  fill(scalar.data());
  noise_path::force_scalar(false);
  fill(batched.data());
  noise_path::force_scalar(!was_batched);
}

FractalSpec random_spec(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  FractalSpec spec;
  spec.kind = NoiseKind::kPerlin;
  spec.octaves = static_cast<int>(rng() % 9);               // 0 to 8
  spec.frequency = std::pow(10.0, -4.0 + 4.3 * unit(rng));  // 1e-4 to 2: sub-cell to sub-sample
  spec.lacunarity = 1.5 + 1.5 * unit(rng);
  spec.gain = 0.2 + 0.7 * unit(rng);
  spec.amplitude = -50.0 + 300.0 * unit(rng);
  spec.offset = -100.0 + 200.0 * unit(rng);
  return spec;
}

// A far or near coordinate: cells up to about 2^40 either side (2^40 * frequency must stay
// within Coord::scaled's limits), any fraction.
Coord random_coord(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const int64_t reach = (rng() % 3 == 0) ? (int64_t{1} << 40) : (rng() % 2 ? 100000 : 100);
  const int64_t cell = static_cast<int64_t>(rng() % static_cast<uint64_t>(2 * reach)) - reach;
  return Coord::from_parts(cell, rng() % 4 == 0 ? 0.0 : unit(rng));
}

void check_regular_grids();
void check_uneven_grids();

int mismatches(const std::vector<double>& a, const std::vector<double>& b) {
  int n = 0;
  for (size_t k = 0; k < a.size(); ++k) n += bits(a[k]) != bits(b[k]) ? 1 : 0;
  return n;
}

// Runs `check` once with each instruction set this CPU supports and the library was compiled for
// (AVX-512, AVX2, SSE4, ..., the scalar emulation): the dispatcher picks only the best one, and
// every one of them must give the scalar path's bits.
template <class Check>
void on_every_target(Check check) {
  for (const int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(perlin_rows::target_name());
    EXPECT_STREQ(perlin_rows::target_name(), hwy::TargetName(target));
    check();
  }
  hwy::SetSupportedTargetsForTest(0);  // back to what the CPU has
}

TEST(NoiseSimdTest, EveryInstructionSetIsTried) {
  std::vector<std::string> names;
  on_every_target([&] { names.push_back(perlin_rows::target_name()); });
  std::string list;
  for (const std::string& name : names) list += " " + name;
  std::printf("instruction sets checked:%s\n", list.c_str());
  EXPECT_GE(names.size(), 2u) << "only" << list;
}

TEST(NoiseSimdTest, RegularGridsEqualTheScalarPathBitForBit) {
  on_every_target([] { check_regular_grids(); });
}

TEST(NoiseSimdTest, UnevenGridsEqualTheScalarPathBitForBit) {
  on_every_target([] { check_uneven_grids(); });
}

void check_regular_grids() {
  std::mt19937_64 rng(13);
  std::vector<double> scalar, batched;
  for (int trial = 0; trial < 300; ++trial) {
    const FractalSpec spec = random_spec(rng);
    const Fractal f(spec, rng(), salt("noise_simd_test"));
    const Coord x0 = random_coord(rng), z0 = random_coord(rng);
    const int64_t step = static_cast<int64_t>(rng() % 17) - 4;  // negative and zero steps too
    const int nx = 1 + static_cast<int>(rng() % 70), nz = 1 + static_cast<int>(rng() % 70);
    both_paths(
        static_cast<size_t>(nx) * nz, [&](double* out) { f.grid(x0, z0, step, nx, nz, out); }, scalar, batched);
    ASSERT_EQ(mismatches(scalar, batched), 0)
        << "trial " << trial << " octaves " << spec.octaves << " frequency " << spec.frequency << " x0 " << x0.cell
        << "+" << x0.frac << " z0 " << z0.cell << "+" << z0.frac << " step " << step << " " << nx << "x" << nz;
  }
}

void check_uneven_grids() {
  std::mt19937_64 rng(1313);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<double> scalar, batched;
  for (int trial = 0; trial < 300; ++trial) {
    const Fractal f(random_spec(rng), rng(), salt("noise_simd_test"));
    const Coord base = random_coord(rng);
    std::vector<Coord> xs(1 + rng() % 40), zs(1 + rng() % 40);
    // Unsorted, repeated and fractional positions around one far base point.
    for (Coord& c : xs) c = Coord::from_parts(base.cell + static_cast<int64_t>(rng() % 600), unit(rng));
    for (Coord& c : zs) c = Coord::from_parts(base.cell - static_cast<int64_t>(rng() % 600), unit(rng));
    if (xs.size() > 2) xs[1] = xs[0];
    if (zs.size() > 2) zs[2] = zs[1];
    const int nx = static_cast<int>(xs.size()), nz = static_cast<int>(zs.size());
    both_paths(
        xs.size() * zs.size(), [&](double* out) { f.grid(xs.data(), nx, zs.data(), nz, out); }, scalar, batched);
    ASSERT_EQ(mismatches(scalar, batched), 0) << "trial " << trial;
  }
}

TEST(NoiseSimdTest, BatchedGridEqualsPointSamples) {
  const bool was_batched = noise_path::batched_enabled();
  noise_path::force_scalar(false);
  FractalSpec spec;
  spec.frequency = 0.05;
  const Fractal f(spec, 7, salt("noise_simd_test"));
  const Coord x0 = Coord::from_parts((int64_t{1} << 40) + 3, 0.375), z0 = Coord::from_parts(-977, 0.0);
  std::vector<double> out(64 * 64);
  f.grid(x0, z0, 1, 64, 64, out.data());
  noise_path::force_scalar(!was_batched);
  for (int j = 0; j < 64; ++j) {
    for (int i = 0; i < 64; ++i) {
      ASSERT_EQ(bits(out[j * 64 + i]), bits(f.at(x0.plus(int64_t{i}), z0.plus(int64_t{j})))) << i << "," << j;
    }
  }
}

}  // namespace
}  // namespace chunkforge
