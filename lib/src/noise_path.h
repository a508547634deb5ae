// Which implementation Fractal::grid takes for Perlin noise: the batched one (vector kernel,
// perlin_rows.h) unless CHUNKFORGE_SCALAR_NOISE=1 was set when it was first asked. Both give
// the same bits; the switch exists to prove it (ctest runs the golden tests with it) and to
// measure one against the other. Internal to lib/ (tests and benchmarks include it).
#pragma once

namespace chunkforge::noise_path {

// True unless the scalar path is forced. The environment is read once, on the first call.
bool batched_enabled();

// Forces the scalar path (true) or the batched one (false) for the whole process, overriding
// the environment: for tests and benchmarks that compare the two in one run.
void force_scalar(bool scalar);

}  // namespace chunkforge::noise_path
