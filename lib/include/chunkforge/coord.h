// File: chunkforge/coord.h
//
// Positions that stay exact far from the origin. A coordinate is an integer cell plus a
// fraction in [0, 1): at x = 2^40 the fraction still has 53 bits, so noise is as smooth there
// as at 0 (no "Far Lands", docs/determinism.md).
//
//   Coord x = Coord::from_parts(1LL << 40, 0.25);
//   Coord lattice = x.scaled(0.01);  // exact product, renormalised
//
// Plain values; all functions pure and thread-safe.
//
// Rounding rule for this and every public header (docs/determinism.md, "Compiler flags"): an
// inline function here holds only integer code and single IEEE operations, whose results no
// compiler flag of the including program can change. Anything whose rounding depends on how
// operations are grouped (Coord::scaled's error-free product) is compiled out of line, inside
// the library, with the library's flags: a game built with -ffp-contract=fast or -march=x86-64-v3
// (FMA) gets the library's bits when it calls it.
#pragma once

#include <cstdint>

#include "chunkforge/float_environment.h"

namespace chunkforge {

// floor(v) as an integer, for |v| < 2^63. Inline integer arithmetic: the libm floor() call
// it replaces costs more than a whole noise corner on the baseline x86-64 instruction set.
inline int64_t floor_to_int(double v) {
  const int64_t i = static_cast<int64_t>(v);  // truncates toward zero; exact when |v| >= 2^52
  return i - (v < static_cast<double>(i) ? 1 : 0);
}

// a / b rounded toward negative infinity (b > 0): the cell or chunk holding a coordinate.
inline int64_t floor_div(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

struct Coord {
  int64_t cell = 0;
  double frac = 0.0;  // always in [0, 1)

  // Canonical form of cell + frac for any finite frac: one representation per point, so equal
  // points hash and evaluate identically whichever way they were built.
  static Coord from_parts(int64_t cell, double frac) {
    const int64_t whole = floor_to_int(frac);
    Coord c{cell + whole, frac - static_cast<double>(whole)};
    if (c.frac >= 1.0) {  // frac - whole rounded up (frac was a tiny negative number)
      c.cell += 1;
      c.frac = 0.0;
    }
    return c;
  }
  // For moderate values only (|v| < 2^52); far positions should be built from parts.
  static Coord from_double(double v) { return from_parts(0, v); }

  double to_double() const { return static_cast<double>(cell) + frac; }

  Coord plus(int64_t cells) const { return Coord{cell + cells, frac}; }
  Coord plus(double d) const { return from_parts(cell, frac + d); }

  // (cell + frac) * factor with the big product cell * factor computed exactly (Dekker's
  // two-product). Out of line on purpose: its rounding steps must not be fused into FMAs.
  // Requires |cell| < 2^53 and |cell * factor| < 2^62.
  Coord scaled(double factor) const;

  friend bool operator==(const Coord&, const Coord&) = default;
};

}  // namespace chunkforge
