// File: chunkforge/noise.h
//
// Gradient noise (improved Perlin and simplex, 2D and 3D) and fractal sums of it.
//
//   Fractal f(spec, world_seed, salt("terrain.elevation"));
//   double h = f.at(Coord::from_double(12.5), Coord::from_double(-3.0));
//   f.grid(x0, z0, /*step=*/1, 64, 64, out);  // same values as at(), bit for bit
//
// Gradients come from hashing the integer lattice corner with the octave's seed (no permutation
// table, no wrap-around), and positions are exact Coords, so the noise is the same smooth field
// at 2^40 as at 0. Raw noise lies in [-1, 1].
//
// Thread safety: Fractal is immutable after construction; all methods are const and may be
// called from any number of threads.
// Cost: one 2D Perlin octave is 4 corner hashes + ~30 flops; grid() hashes each lattice corner
// once and runs the per-sample arithmetic as vector code chosen for the CPU at run time (Highway),
// with the same bits as the scalar loop; CHUNKFORGE_SCALAR_NOISE=1 in the environment forces the
// scalar loop (docs/determinism.md, "SIMD noise").
#pragma once

#include <cstdint>
#include <vector>

#include "chunkforge/coord.h"
#include "chunkforge/hash.h"

namespace chunkforge {

enum class NoiseKind { kPerlin, kSimplex };

// Raw noise at lattice coordinates (already multiplied by frequency), in [-1, 1].
double perlin2(uint64_t seed, Coord x, Coord z);
double perlin3(uint64_t seed, Coord x, Coord y, Coord z);
double simplex2(uint64_t seed, Coord x, Coord z);
double simplex3(uint64_t seed, Coord x, Coord y, Coord z);

// Parameters of a fractal sum; meaning and ranges as NoiseField in world.proto.
struct FractalSpec {
  NoiseKind kind = NoiseKind::kPerlin;
  int octaves = 4;
  double lacunarity = 2.0;
  double gain = 0.5;
  double frequency = 0.01;  // cycles per world unit of the first octave
  double amplitude = 1.0;
  double offset = 0.0;
};

// Each octave's frequency as Fractal uses it: `frequency`, then each the previous one times
// `lacunarity` (repeated multiplication, never pow: validation limits are checked on these
// very values). `octaves` entries.
std::vector<double> octave_frequencies(const FractalSpec& spec);

class Fractal {
 public:
  Fractal() = default;
  // Octave o uses seed hash(world_seed, salt, o): fields with different salts are independent.
  Fractal(const FractalSpec& spec, uint64_t world_seed, Salt salt);

  // offset + amplitude * sum_o(gain^o * n_o) / sum_o(gain^o), world coordinates.
  double at(Coord x, Coord z) const;
  double at(Coord x, Coord y, Coord z) const;
  // A point and its four neighbours one world unit away, exactly at() of each:
  // out = {at(x, z), at(x - 1, z), at(x + 1, z), at(x, z - 1), at(x, z + 1)}. What a slope
  // needs; Perlin's five share their lattice cell's corner hashes in most octaves.
  void cross(Coord x, Coord z, double out[5]) const;

  // out[j * nx + i] = at(x0 + i * step, z0 + j * step) exactly, for i < nx, j < nz.
  void grid(Coord x0, Coord z0, int64_t step, int nx, int nz, double* out) const;
  // out[j * nx + i] = at(xs[i], zs[j]) exactly: any separable grid (uneven spacing allowed).
  void grid(const Coord* xs, int nx, const Coord* zs, int nz, double* out) const;

  const FractalSpec& spec() const { return spec_; }

 private:
  struct Octave {
    uint64_t seed;
    double frequency;
    double weight;  // gain^o
  };
  // offset + amplitude * (sum / norm): out of line so that no caller's FMA contraction can
  // fuse it (coord.h, "Rounding rule").
  double finish(double sum) const;
  // grid() for Perlin noise through the vector kernel (lib/src/noise_grid_batched.cc): the
  // same bits as the scalar loop, which CHUNKFORGE_SCALAR_NOISE=1 forces instead.
  void grid_perlin_batched(const Coord* xs, int nx, const Coord* zs, int nz, double* out) const;

  FractalSpec spec_;
  std::vector<Octave> octaves_;
  double norm_ = 1.0;  // sum of weights
};

}  // namespace chunkforge
