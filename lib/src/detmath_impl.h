// detmath's implementations, inline for the library's own hot paths (resource densities).
// Internal to lib/: never installed, so every copy is compiled with the library's flags; the
// public functions (chunkforge/detmath.h) are out-of-line wrappers in detmath.cc. The Horner
// loops below give the documented bits only when each multiply and add rounds on its own.
#pragma once

#include <cmath>

#ifdef __FAST_MATH__
#error "chunkforge's generation library must not be compiled with -ffast-math (docs/determinism.md)"
#endif

namespace chunkforge::detmath::impl {

// Natural logarithm for x > 0.
inline double log(double x) {
  int e = 0;
  double m = std::frexp(x, &e);  // x = m * 2^e, m in [0.5, 1)
  if (m < 0.70710678118654752440) {
    m *= 2.0;
    e -= 1;
  }
  // ln(m) = 2 atanh(s), s = (m - 1) / (m + 1), |s| <= 0.172: the series converges fast.
  // Horner in s^2 with the coefficients 1/k written out: no division in the loop.
  const double s = (m - 1.0) / (m + 1.0);
  const double s2 = s * s;
  constexpr double kInverseOdd[] = {1.0 / 23, 1.0 / 21, 1.0 / 19, 1.0 / 17, 1.0 / 15, 1.0 / 13,
                                    1.0 / 11, 1.0 / 9,  1.0 / 7,  1.0 / 5,  1.0 / 3,  1.0};
  double sum = 0.0;
  for (double c : kInverseOdd) sum = sum * s2 + c;
  return 2.0 * s * sum + e * 0.69314718055994530942;
}

// e^y for |y| < 700.
inline double exp(double y) {
  const double t = y * 1.44269504088896340736;  // y / ln 2
  const double n = std::floor(t);
  const double z = (t - n) * 0.69314718055994530942;  // in [0, ln 2)
  // Taylor series of e^z, Horner form with 1/k! written out (z < 0.7: 18 terms reach 1e-19).
  // Three terms a row, so that the count can be read: laid out by hand.
  // clang-format off
  constexpr double kInverseFactorial[] = {
      1.0 / 6402373705728000.0, 1.0 / 355687428096000.0, 1.0 / 20922789888000.0,
      1.0 / 1307674368000.0,    1.0 / 87178291200.0,     1.0 / 6227020800.0,
      1.0 / 479001600.0,        1.0 / 39916800.0,        1.0 / 3628800.0,
      1.0 / 362880.0,           1.0 / 40320.0,           1.0 / 5040.0,
      1.0 / 720.0,              1.0 / 120.0,             1.0 / 24.0,
      1.0 / 6.0,                1.0 / 2.0,               1.0,
      1.0};
  // clang-format on
  double sum = 0.0;
  for (double c : kInverseFactorial) sum = sum * z + c;
  return std::ldexp(sum, static_cast<int>(n));
}

// x^a for x >= 0 (0^a = 0 for a > 0, x^0 = 1). Small whole exponents (1 to 8) are exact
// repeated multiplication: faster, and the usual case for sharpness. (Whole is tested by a
// conversion, not std::floor: without SSE4.1 that is a library call, and the density of every
// scatter cell comes through here.)
inline double pow(double x, double a) {
  if (a == 0.0) return 1.0;
  if (x <= 0.0) return 0.0;
  if (a >= 1.0 && a <= 8.0 && a == static_cast<double>(static_cast<int>(a))) {
    double result = x;
    for (int k = 1; k < static_cast<int>(a); ++k) result *= x;
    return result;
  }
  return exp(a * log(x));
}

}  // namespace chunkforge::detmath::impl
