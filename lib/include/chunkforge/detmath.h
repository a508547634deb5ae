// File: chunkforge/detmath.h
//
// Transcendental functions that give the same bits on every platform. libm's pow/exp/log may
// differ in the last bit between C libraries (and versions), which would break the determinism
// contract; these use only +, -, *, / and the exact frexp/ldexp, so IEEE 754 fixes every bit.
// Accuracy (tests/lib/detmath_test.cc, against long double): log within 3 ulps; exp within
// 3 ulps for |y| <= 1 and 1.5 (1 + |y|) ulps beyond (range reduction rounds y / ln 2); pow
// within 4 (1 + |a ln x|) ulps, whole exponents 1..8 within 4.5. Plenty for densities and
// curves. Pure and thread-safe.
//
// Out of line (lib/src/detmath.cc): their Horner loops must not be contracted into FMAs, which
// a caller's -ffp-contract=fast or -march=x86-64-v3 would do to an inline copy (coord.h,
// "Rounding rule").
#pragma once

#include "chunkforge/float_environment.h"

namespace chunkforge::detmath {

// Natural logarithm for x > 0.
double log(double x);

// e^y for |y| < 700.
double exp(double y);

// x^a for x >= 0 (0^a = 0 for a > 0, x^0 = 1). Small whole exponents (1 to 8) are exact
// repeated multiplication: faster, and the usual case for sharpness.
double pow(double x, double a);

}  // namespace chunkforge::detmath
