// File: chunkforge/detmath.h
//
// Transcendental functions that give the same bits on every platform. libm's pow/exp/log may
// differ in the last bit between C libraries (and versions), which would break the determinism
// contract; these use only +, -, *, / and the exact frexp/ldexp, so IEEE 754 fixes every bit.
// Accuracy: about 1e-15 relative, plenty for densities and curves. Pure and thread-safe.
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
