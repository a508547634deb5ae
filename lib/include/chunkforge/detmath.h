// File: chunkforge/detmath.h
//
// Transcendental functions that give the same bits on every platform. libm's pow/exp/log may
// differ in the last bit between C libraries (and versions), which would break the determinism
// contract; these use only +, -, *, / and the exact frexp/ldexp, so IEEE 754 fixes every bit.
// Accuracy: about 1e-15 relative, plenty for densities and curves. Pure and thread-safe.
#pragma once

#include <cmath>

namespace chunkforge::detmath {

// Natural logarithm for x > 0.
inline double log(double x) {
  int e = 0;
  double m = std::frexp(x, &e);  // x = m * 2^e, m in [0.5, 1)
  if (m < 0.70710678118654752440) {
    m *= 2.0;
    e -= 1;
  }
  // ln(m) = 2 atanh(s), s = (m - 1) / (m + 1), |s| <= 0.172: the series converges fast.
  const double s = (m - 1.0) / (m + 1.0);
  const double s2 = s * s;
  double term = s, sum = 0.0;
  for (int k = 1; k <= 23; k += 2) {
    sum += term / k;
    term *= s2;
  }
  return 2.0 * sum + e * 0.69314718055994530942;
}

// e^y for |y| < 700.
inline double exp(double y) {
  const double t = y * 1.44269504088896340736;  // y / ln 2
  const double n = std::floor(t);
  const double z = (t - n) * 0.69314718055994530942;  // in [0, ln 2)
  double term = 1.0, sum = 1.0;
  for (int k = 1; k <= 20; ++k) {
    term *= z / k;
    sum += term;
  }
  return std::ldexp(sum, static_cast<int>(n));
}

// x^a for x >= 0 (0^a = 0 for a > 0, x^0 = 1).
inline double pow(double x, double a) {
  if (a == 0.0) return 1.0;
  if (x <= 0.0) return 0.0;
  if (a == 1.0) return x;
  return exp(a * log(x));
}

}  // namespace chunkforge::detmath
