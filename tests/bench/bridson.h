// Reference for the benchmarks: Bridson's Poisson-disk sampling over one bounding box (not
// chunked, not seamless), written the way the header-only libraries people use write it
// (thinks/poisson-disk-sampling v0.3, tph_poisson): one grid of cells r/√2 wide holding at most
// one point each, a cheap sequential generator, candidates drawn in the annulus [r, 2r] by
// rejection from a square. The resource article's variant with a radius per point is here too.
// Not used by chunkforge itself: it exists to be measured against (blue_noise_bench, and beside
// the libraries themselves in tests/bench/peers/). Needs nothing beyond the standard library and
// chunkforge/hash.h, so that scripts/bench-peers can build it out of tree.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace chunkforge::bench {

struct Point {
  double x, z;
};

// Samples [0, width) x [0, height) with minimum spacing r; k candidates per active point
// (Bridson uses 30).
std::vector<Point> bridson(double width, double height, double r, uint64_t seed, int k = 30);

// Samples [0, width) x [0, height) with minimum spacing max(r(a), r(b)); r must lie in
// [r_min, r_max]. Candidates around a point p are drawn in [r(p), 2 r(p)].
std::vector<Point> bridson(double width, double height, double r_min, double r_max,
                           const std::function<double(double, double)>& r, uint64_t seed, int k = 30);

}  // namespace chunkforge::bench
