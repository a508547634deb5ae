// The scatter field's fixed quantities and small helpers, shared by its parts (field.h lists
// them). Internal to lib/, compiled with the library's flags like its users.
#pragma once

#include <cstdint>

#include "chunkforge/coord.h"
#include "chunkforge/hash.h"

namespace chunkforge::scatter {

constexpr int kSubBits = 24;
constexpr int64_t kSub = int64_t{1} << kSubBits;  // sub-cell units per cell side
constexpr double kSubD = static_cast<double>(kSub);
// K: with stratified arrival rounds we measured rho 0.742 at K = 16, 0.737 at 12, 0.730 at 8
// (tests/bench, constant density); 12 keeps rho above the 0.73 bar for 15 % less work.
// At most 16: the round is 4 bits of t.
constexpr int kDartsPerCell = 12;
// Slack for the floating-point pruning of cells; exact decisions use distance2().
constexpr double kPruneMargin = 1e-6;

constexpr Salt kDartSalt = salt("resource.dart");
constexpr Salt kTimeSalt = salt("resource.time");
constexpr Salt kThinSalt = salt("resource.thinning");
constexpr Salt kPeakSalt = salt("resource.peak");
constexpr Salt kAttributeSalt = salt("resource.attributes");
constexpr Salt kIdSalt = salt("resource.id");

// Distance from v to the interval [lo, hi].
inline double gap(double v, double lo, double hi) { return v < lo ? lo - v : (v > hi ? v - hi : 0.0); }
// Squared distance from (x, z) to the square [x0, x0 + side] x [z0, z0 + side].
inline double gap2(double x, double z, double x0, double z0, double side) {
  const double dx = gap(x, x0, x0 + side), dz = gap(z, z0, z0 + side);
  return dx * dx + dz * dz;
}

// Exact coordinate of sub-cell position (cell * 2^24 + sub) * size / (n * 2^24).
inline Coord grid_coord(int64_t cell, uint32_t sub, int64_t n, int64_t size) {
  const int64_t scaled = cell * size;  // |cell| < 2^47 for the supported world
  const int64_t whole = floor_div(scaled, n);
  const int64_t rest = scaled - whole * n;  // in [0, n)
  const double frac = (static_cast<double>(rest) * kSubD + static_cast<double>(sub) * static_cast<double>(size)) /
                      (static_cast<double>(n) * kSubD);
  return Coord::from_parts(whole, frac);
}

}  // namespace chunkforge::scatter
