// The same-layer distance of the scatter field and the shortcut that rejects a whole cell at
// once, kept together so that the shortcut provably agrees with the exact test (see
// disc_covers_square). Internal to lib/; tested by tests/lib/scatter_geometry_test.cc.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>

namespace chunkforge::scatter {

// Squared world distance of a same-layer offset of (dx, dz) sub-cell units, `unit` world units
// each. THE formula of ScatterField::distance2 for two candidates of one layer: the exact
// decision compares its result with r * r.
inline double same_layer_distance2(int64_t dx, int64_t dz, double unit) {
  const double x = static_cast<double>(dx) * unit;
  const double z = static_cast<double>(dz) * unit;
  return x * x + z * z;
}

// Whether every point (u, v) of the square [0, extent]^2 (sub-cell units) lies within r of the
// point (bx, bz) *as the exact test computes it*: same_layer_distance2(bx - u, bz - v, unit) <
// r * r for all of them. Used to reject all later candidates of a cell at once; the exact test
// for any of them would compare against max(r_cell, r) >= r, so it rejects them too.
//
// Why the answer is conservative, whatever the rounding: the offsets are integers (exact as
// doubles below 2^53) and |bx - u| <= fx, |bz - v| <= fz for the farthest corner (fx, fz), each
// axis on its own. Every step of same_layer_distance2 is one correctly rounded operation, and
// round-to-nearest is monotone and symmetric (fl(-a) = -fl(a)): |fl(d * unit)| grows with |d|,
// fl(x * x) with |x|, fl(a + b) with a and b (also if fused: fma(x, x, z * z) is monotone
// too). So the computed distance of any point of the square is at most the computed distance
// of the farthest corner, which is below fl(r * r): no margin is needed, because the bound is
// evaluated by the very same operations as the test it stands for. (Computing it in another
// order, (fx^2 + fz^2) * unit^2, as before, could round below r * r where the exact test rounds
// above it: the test shows such cases.) Requires round-to-nearest, which FloatEnvironmentGuard
// guarantees at every entry point.
inline bool disc_covers_square(int64_t bx, int64_t bz, int64_t extent, double unit, double r) {
  const int64_t fx = std::max(std::abs(bx), std::abs(bx - extent));
  const int64_t fz = std::max(std::abs(bz), std::abs(bz - extent));
  return same_layer_distance2(fx, fz, unit) < r * r;
}

}  // namespace chunkforge::scatter
