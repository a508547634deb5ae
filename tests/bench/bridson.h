// Reference for the benchmarks: the resource article's own algorithm, Bridson's Poisson-disk
// sampling with a per-point radius, over one bounding box (not chunked, not seamless). Not used
// by chunkforge itself: it exists to be measured against.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace chunkforge::bench {

struct Point {
  double x, z;
};

// Samples [0, width) x [0, height) with minimum spacing max(r(a), r(b)); r must lie in
// [r_min, r_max]. k candidates per active point (Bridson uses 30).
std::vector<Point> bridson(double width, double height, double r_min, double r_max,
                           const std::function<double(double, double)>& r, uint64_t seed, int k = 30);

}  // namespace chunkforge::bench
