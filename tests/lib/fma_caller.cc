// The public helpers called from code compiled the way a game might compile it: this file alone
// is built with -ffp-contract=fast and, on x86-64, -march=x86-64-v3 (FMA instructions; see
// tests/CMakeLists.txt). An inline copy of a rounding-sensitive helper in a public header would
// be contracted here; fma_caller_test.cc checks that the results are the library's bits.
#include "fma_caller.h"

#include "chunkforge/detmath.h"
#include "chunkforge/hash.h"
#include "chunkforge/noise.h"

namespace chunkforge::fma_caller {

bool cpu_has_fma() {
#if defined(__x86_64__)
  return __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2");
#else
  return true;
#endif
}

Coord scaled(Coord c, double factor) { return c.scaled(factor); }
double log(double x) { return detmath::log(x); }
double exp(double y) { return detmath::exp(y); }
double pow(double x, double a) { return detmath::pow(x, a); }

double fractal_at(Coord x, Coord z) {
  FractalSpec spec;
  spec.frequency = 0.0123456789;
  spec.lacunarity = 2.1;
  spec.gain = 0.55;
  spec.amplitude = 3.5;
  spec.offset = 0.25;
  const Fractal f(spec, 7, salt("fma.caller"));
  return f.at(x, z);
}

}  // namespace chunkforge::fma_caller
