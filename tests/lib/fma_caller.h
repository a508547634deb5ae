// Calls into the public helpers from tests/lib/fma_caller.cc, the one file built as a game might
// build it (FMA contraction on). Call only on a CPU with FMA (cpu_has_fma).
#pragma once

#include "chunkforge/coord.h"

namespace chunkforge::fma_caller {

bool cpu_has_fma();
Coord scaled(Coord c, double factor);
double log(double x);
double exp(double y);
double pow(double x, double a);
// A fixed fractal (see fma_caller.cc) at (x, z).
double fractal_at(Coord x, Coord z);

}  // namespace chunkforge::fma_caller
