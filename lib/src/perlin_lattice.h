// Lattice hashing and the 2D Perlin cell arithmetic, shared by the scalar noise (noise.cc) and
// the batched grid (noise_grid_batched.cc, perlin_rows_simd.cc), so that both paths hash the
// same corners and pick the same gradients. Internal to lib/: compiled only with the library's
// flags (-ffp-contract=off), which the bit-identity of the two paths relies on.
#pragma once

#include <cstdint>

#include "chunkforge/hash.h"

namespace chunkforge::lattice {

// Odd constants that spread lattice coordinates before the mixer.
constexpr uint64_t kPrimeX = 0x9e3779b97f4a7c15ULL;
constexpr uint64_t kPrimeY = 0xc2b2ae3d27d4eb4fULL;
constexpr uint64_t kPrimeZ = 0x165667b19e3779f9ULL;

inline uint64_t corner(uint64_t seed, int64_t i, int64_t j) {
  return mix64(seed + static_cast<uint64_t>(i) * kPrimeX + static_cast<uint64_t>(j) * kPrimeZ);
}
inline uint64_t corner(uint64_t seed, int64_t i, int64_t j, int64_t k) {
  return mix64(seed + static_cast<uint64_t>(i) * kPrimeX + static_cast<uint64_t>(j) * kPrimeY +
               static_cast<uint64_t>(k) * kPrimeZ);
}

// The SIMD kernel (perlin_rows_simd.cc) repeats these two with the same operations in the same
// order: change one, change the other.
inline double fade(double t) { return t * t * t * (t * (t * 6.0 - 15.0) + 10.0); }
inline double lerp(double a, double b, double t) { return a + t * (b - a); }

// 2D gradients: the four diagonals and the four axes. The top bits of the hash pick one.
constexpr double kGrad2[8][2] = {{1, 1}, {-1, 1}, {1, -1}, {-1, -1}, {1, 0}, {-1, 0}, {0, 1}, {0, -1}};
inline const double* gradient2(uint64_t h) { return kGrad2[h >> 61]; }
inline double grad2(uint64_t h, double x, double z) {
  const double* g = gradient2(h);
  return g[0] * x + g[1] * z;
}

}  // namespace chunkforge::lattice
