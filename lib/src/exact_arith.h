// Rounding-sensitive arithmetic, inline for the library's own hot paths. Internal to lib/: never
// installed, so every copy of these functions is compiled with the library's flags
// (-ffp-contract=off, no -ffast-math), which their exactness depends on. The public entry
// points (Coord::scaled, detmath::*) are out-of-line wrappers in coord.cc and detmath.cc.
#pragma once

#include <cmath>

#include "chunkforge/coord.h"

// The error-free transformations below assume every product and sum is rounded on its own.
// -ffp-contract=off is not visible to the preprocessor, -ffast-math is.
#ifdef __FAST_MATH__
#error "chunkforge's generation library must not be compiled with -ffast-math (docs/determinism.md)"
#endif

namespace chunkforge::exact {

// Splits a into hi + lo with hi holding the top 26 bits (Veltkamp).
inline void split(double a, double& hi, double& lo) {
  const double c = 134217729.0 * a;  // 2^27 + 1
  hi = c - (c - a);
  lo = a - hi;
}

// a * b == p + err exactly (Dekker).
inline void two_product(double a, double b, double& p, double& err) {
  p = a * b;
  double ah, al, bh, bl;
  split(a, ah, al);
  split(b, bh, bl);
  err = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
}

// Coord::scaled (coord.h).
inline Coord scaled(Coord c, double factor) {
  double p, err;
  two_product(static_cast<double>(c.cell), factor, p, err);
  const int64_t whole = floor_to_int(p);
  // p - whole is exact; err and frac * factor are small corrections.
  return Coord::from_parts(whole, (p - static_cast<double>(whole)) + (err + c.frac * factor));
}

}  // namespace chunkforge::exact
