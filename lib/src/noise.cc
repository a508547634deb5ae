// Gradient noise (chunkforge/noise.h): the scalar Perlin and simplex functions, Fractal::at and
// the scalar Fractal::grid (the reference every faster path must equal bit for bit).
#include "chunkforge/noise.h"

#include <algorithm>

#include "chunkforge/float_environment.h"
#include "exact_arith.h"
#include "noise_path.h"
#include "perlin_lattice.h"

namespace chunkforge {
namespace {

using lattice::corner;
using lattice::fade;
using lattice::grad2;
using lattice::lerp;

// 3D gradients: Perlin's twelve cube edges, padded to 16 with four repeats (his choice too).
// Four rows of four, as the edges group: laid out by hand.
// clang-format off
constexpr double kGrad3[16][3] = {{1, 1, 0},  {-1, 1, 0}, {1, -1, 0}, {-1, -1, 0},
                                  {1, 0, 1},  {-1, 0, 1}, {1, 0, -1}, {-1, 0, -1},
                                  {0, 1, 1},  {0, -1, 1}, {0, 1, -1}, {0, -1, -1},
                                  {1, 1, 0},  {-1, 1, 0}, {0, -1, 1}, {0, -1, -1}};
// clang-format on
inline double grad3(uint64_t h, double x, double y, double z) {
  const double* g = kGrad3[h >> 60];
  return g[0] * x + g[1] * y + g[2] * z;
}

// Scales that map each noise onto [-1, 1] (measured extremes over 3.2 M random points:
// perlin2 0.9996, perlin3 0.98, simplex2 0.998, simplex3 0.978; noise_test.cc checks the range).
constexpr double kPerlin3Scale = 1.0;
constexpr double kSimplex2Scale = 70.0;
constexpr double kSimplex3Scale = 32.0;

// One 2D Perlin cell from its corner hashes; shared by perlin2 and the batched grid so that
// both give the same bits.
inline double perlin2_cell(uint64_t h00, uint64_t h10, uint64_t h01, uint64_t h11, double fx, double fz) {
  const double n00 = grad2(h00, fx, fz);
  const double n10 = grad2(h10, fx - 1.0, fz);
  const double n01 = grad2(h01, fx, fz - 1.0);
  const double n11 = grad2(h11, fx - 1.0, fz - 1.0);
  const double u = fade(fx);
  return lerp(lerp(n00, n10, u), lerp(n01, n11, u), fade(fz));
}

// Skewing constants: F = (sqrt(n + 1) - 1) / n, G = (1 - 1 / sqrt(n + 1)) / n.
constexpr double kF2 = 0.36602540378443864676;
constexpr double kG2 = 0.21132486540518711775;
constexpr double kF3 = 1.0 / 3.0;
constexpr double kG3 = 1.0 / 6.0;

inline double simplex2_corner(uint64_t h, double x, double z) {
  double t = 0.5 - x * x - z * z;
  if (t <= 0.0) return 0.0;
  t *= t;
  return t * t * grad2(h, x, z);
}
inline double simplex3_corner(uint64_t h, double x, double y, double z) {
  double t = 0.6 - x * x - y * y - z * z;
  if (t <= 0.0) return 0.0;
  t *= t;
  return t * t * grad3(h, x, y, z);
}

// The skewed position of a point: exact big part, small fractional part.
inline Coord skew(Coord v, Coord s) { return Coord::from_parts(v.cell + s.cell, v.frac + s.frac); }

}  // namespace

double perlin2(uint64_t seed, Coord x, Coord z) {
  const int64_t i = x.cell, j = z.cell;
  return perlin2_cell(corner(seed, i, j), corner(seed, i + 1, j), corner(seed, i, j + 1), corner(seed, i + 1, j + 1),
                      x.frac, z.frac);
}

double perlin3(uint64_t seed, Coord x, Coord y, Coord z) {
  const int64_t i = x.cell, j = y.cell, k = z.cell;
  const double fx = x.frac, fy = y.frac, fz = z.frac;
  const double u = fade(fx), v = fade(fy), w = fade(fz);
  const double x0 = lerp(grad3(corner(seed, i, j, k), fx, fy, fz), grad3(corner(seed, i + 1, j, k), fx - 1, fy, fz), u);
  const double x1 = lerp(grad3(corner(seed, i, j + 1, k), fx, fy - 1, fz),
                         grad3(corner(seed, i + 1, j + 1, k), fx - 1, fy - 1, fz), u);
  const double x2 = lerp(grad3(corner(seed, i, j, k + 1), fx, fy, fz - 1),
                         grad3(corner(seed, i + 1, j, k + 1), fx - 1, fy, fz - 1), u);
  const double x3 = lerp(grad3(corner(seed, i, j + 1, k + 1), fx, fy - 1, fz - 1),
                         grad3(corner(seed, i + 1, j + 1, k + 1), fx - 1, fy - 1, fz - 1), u);
  return kPerlin3Scale * lerp(lerp(x0, x1, v), lerp(x2, x3, v), w);
}

double simplex2(uint64_t seed, Coord x, Coord z) {
  const Coord s = exact::scaled(Coord::from_parts(x.cell + z.cell, x.frac + z.frac), kF2);
  const Coord xs = skew(x, s), zs = skew(z, s);
  const int64_t i = xs.cell, j = zs.cell;
  const double t = (xs.frac + zs.frac) * kG2;
  const double x0 = xs.frac - t, z0 = zs.frac - t;
  const int i1 = x0 > z0 ? 1 : 0, j1 = 1 - i1;
  const double x1 = x0 - i1 + kG2, z1 = z0 - j1 + kG2;
  const double x2 = x0 - 1.0 + 2.0 * kG2, z2 = z0 - 1.0 + 2.0 * kG2;
  const double n = simplex2_corner(corner(seed, i, j), x0, z0) + simplex2_corner(corner(seed, i + i1, j + j1), x1, z1) +
                   simplex2_corner(corner(seed, i + 1, j + 1), x2, z2);
  return kSimplex2Scale * n;
}

double simplex3(uint64_t seed, Coord x, Coord y, Coord z) {
  const Coord s = exact::scaled(Coord::from_parts(x.cell + y.cell + z.cell, x.frac + y.frac + z.frac), kF3);
  const Coord xs = skew(x, s), ys = skew(y, s), zs = skew(z, s);
  const int64_t i = xs.cell, j = ys.cell, k = zs.cell;
  const double t = (xs.frac + ys.frac + zs.frac) * kG3;
  const double x0 = xs.frac - t, y0 = ys.frac - t, z0 = zs.frac - t;
  // Which of the six tetrahedra of the skewed cube holds the point.
  // One line per tetrahedron, its two corners' offsets side by side: laid out by hand.
  // clang-format off
  int i1, j1, k1, i2, j2, k2;
  if (x0 >= y0) {
    if (y0 >= z0) { i1 = 1; j1 = 0; k1 = 0; i2 = 1; j2 = 1; k2 = 0; }
    else if (x0 >= z0) { i1 = 1; j1 = 0; k1 = 0; i2 = 1; j2 = 0; k2 = 1; }
    else { i1 = 0; j1 = 0; k1 = 1; i2 = 1; j2 = 0; k2 = 1; }
  } else {
    if (y0 < z0) { i1 = 0; j1 = 0; k1 = 1; i2 = 0; j2 = 1; k2 = 1; }
    else if (x0 < z0) { i1 = 0; j1 = 1; k1 = 0; i2 = 0; j2 = 1; k2 = 1; }
    else { i1 = 0; j1 = 1; k1 = 0; i2 = 1; j2 = 1; k2 = 0; }
  }
  // clang-format on
  const double n = simplex3_corner(corner(seed, i, j, k), x0, y0, z0) +
                   simplex3_corner(corner(seed, i + i1, j + j1, k + k1), x0 - i1 + kG3, y0 - j1 + kG3, z0 - k1 + kG3) +
                   simplex3_corner(corner(seed, i + i2, j + j2, k + k2), x0 - i2 + 2.0 * kG3, y0 - j2 + 2.0 * kG3,
                                   z0 - k2 + 2.0 * kG3) +
                   simplex3_corner(corner(seed, i + 1, j + 1, k + 1), x0 - 1.0 + 3.0 * kG3, y0 - 1.0 + 3.0 * kG3,
                                   z0 - 1.0 + 3.0 * kG3);
  return kSimplex3Scale * n;
}

std::vector<double> octave_frequencies(const FractalSpec& spec) {
  const FloatEnvironmentGuard fp_guard;
  std::vector<double> frequencies;
  double frequency = spec.frequency;
  for (int o = 0; o < spec.octaves; ++o) {
    frequencies.push_back(frequency);
    frequency *= spec.lacunarity;
  }
  return frequencies;
}

Fractal::Fractal(const FractalSpec& spec, uint64_t world_seed, Salt salt) : spec_(spec) {
  // The octaves' frequencies and weights are products: built in the caller's rounding mode they
  // would move every sample of the field.
  const FloatEnvironmentGuard fp_guard;
  const std::vector<double> frequencies = octave_frequencies(spec);
  double weight = 1.0;
  norm_ = 0.0;
  for (int o = 0; o < spec.octaves; ++o) {
    octaves_.push_back(Octave{hash(world_seed, salt, o), frequencies[static_cast<size_t>(o)], weight});
    norm_ += weight;
    weight *= spec.gain;
  }
}

double Fractal::finish(double sum) const { return spec_.offset + spec_.amplitude * (sum / norm_); }

double Fractal::at(Coord x, Coord z) const {
  double sum = 0.0;
  for (const Octave& o : octaves_) {
    const Coord lx = exact::scaled(x, o.frequency), lz = exact::scaled(z, o.frequency);
    const double n = spec_.kind == NoiseKind::kPerlin ? perlin2(o.seed, lx, lz) : simplex2(o.seed, lx, lz);
    sum += o.weight * n;
  }
  return finish(sum);
}

void Fractal::cross(Coord x, Coord z, double out[5]) const {
  // The five points as (column, row) of the 3 x 3 grid around (x, z): the centre, x - 1, x + 1,
  // z - 1, z + 1.
  static constexpr int kColumn[5] = {1, 0, 2, 1, 1}, kRow[5] = {1, 1, 1, 0, 2};
  const Coord xs[3] = {x.plus(int64_t{-1}), x, x.plus(int64_t{1})};
  const Coord zs[3] = {z.plus(int64_t{-1}), z, z.plus(int64_t{1})};
  if (spec_.kind != NoiseKind::kPerlin) {
    for (int p = 0; p < 5; ++p) out[p] = at(xs[kColumn[p]], zs[kRow[p]]);
    return;
  }
  // at()'s sums, term by term in the same order (so the same bits), with three scalings per
  // axis instead of five and each lattice cell's corner hashes computed once for the points in
  // it: one unit is a small step of a lattice cell at a terrain's frequencies, so the five
  // usually share one.
  double sum[5] = {0, 0, 0, 0, 0};
  for (const Octave& o : octaves_) {
    Coord lx[3], lz[3];
    for (int k = 0; k < 3; ++k) {
      lx[k] = exact::scaled(xs[k], o.frequency);
      lz[k] = exact::scaled(zs[k], o.frequency);
    }
    int64_t ci = 0, cj = 0;
    uint64_t h[4] = {};
    bool hashed = false;
    for (int p = 0; p < 5; ++p) {
      const Coord& px = lx[kColumn[p]];
      const Coord& pz = lz[kRow[p]];
      if (!hashed || px.cell != ci || pz.cell != cj) {
        ci = px.cell;
        cj = pz.cell;
        h[0] = corner(o.seed, ci, cj);
        h[1] = corner(o.seed, ci + 1, cj);
        h[2] = corner(o.seed, ci, cj + 1);
        h[3] = corner(o.seed, ci + 1, cj + 1);
        hashed = true;
      }
      sum[p] += o.weight * perlin2_cell(h[0], h[1], h[2], h[3], px.frac, pz.frac);
    }
  }
  for (int p = 0; p < 5; ++p) out[p] = finish(sum[p]);
}

double Fractal::at(Coord x, Coord y, Coord z) const {
  double sum = 0.0;
  for (const Octave& o : octaves_) {
    const Coord lx = exact::scaled(x, o.frequency), ly = exact::scaled(y, o.frequency),
                lz = exact::scaled(z, o.frequency);
    const double n = spec_.kind == NoiseKind::kPerlin ? perlin3(o.seed, lx, ly, lz) : simplex3(o.seed, lx, ly, lz);
    sum += o.weight * n;
  }
  return finish(sum);
}

void Fractal::grid(Coord x0, Coord z0, int64_t step, int nx, int nz, double* out) const {
  std::vector<Coord> xs(static_cast<size_t>(nx)), zs(static_cast<size_t>(nz));
  for (int i = 0; i < nx; ++i) xs[i] = x0.plus(i * step);
  for (int j = 0; j < nz; ++j) zs[j] = z0.plus(j * step);
  grid(xs.data(), nx, zs.data(), nz, out);
}

void Fractal::grid(const Coord* xs, int nx, const Coord* zs, int nz, double* out) const {
  if (spec_.kind == NoiseKind::kPerlin && noise_path::batched_enabled()) {
    grid_perlin_batched(xs, nx, zs, nz, out);
    return;
  }
  const size_t count = static_cast<size_t>(nx) * static_cast<size_t>(nz);
  std::fill(out, out + count, 0.0);
  std::vector<Coord> lx(static_cast<size_t>(nx));
  for (const Octave& o : octaves_) {
    for (int i = 0; i < nx; ++i) lx[i] = exact::scaled(xs[i], o.frequency);
    for (int j = 0; j < nz; ++j) {
      const Coord lz = exact::scaled(zs[j], o.frequency);
      double* row = out + static_cast<size_t>(j) * nx;
      if (spec_.kind == NoiseKind::kSimplex) {
        for (int i = 0; i < nx; ++i) row[i] += o.weight * simplex2(o.seed, lx[i], lz);
        continue;
      }
      // Perlin: neighbouring samples in one lattice cell share its four corner hashes.
      uint64_t h00 = 0, h10 = 0, h01 = 0, h11 = 0;
      for (int i = 0; i < nx; ++i) {
        if (i == 0 || lx[i].cell != lx[i - 1].cell) {
          const int64_t c = lx[i].cell;
          h00 = corner(o.seed, c, lz.cell);
          h10 = corner(o.seed, c + 1, lz.cell);
          h01 = corner(o.seed, c, lz.cell + 1);
          h11 = corner(o.seed, c + 1, lz.cell + 1);
        }
        row[i] += o.weight * perlin2_cell(h00, h10, h01, h11, lx[i].frac, lz.frac);
      }
    }
  }
  for (size_t k = 0; k < count; ++k) out[k] = finish(out[k]);
}

}  // namespace chunkforge
