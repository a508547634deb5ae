#include "bridson.h"

#include <algorithm>
#include <cmath>

#include "chunkforge/hash.h"

namespace chunkforge::bench {

std::vector<Point> bridson(double width, double height, double r_min, double r_max,
                           const std::function<double(double, double)>& r, uint64_t seed, int k) {
  const double cell = r_min / std::sqrt(2.0);  // at most one point per grid cell
  const int nx = static_cast<int>(std::ceil(width / cell)), nz = static_cast<int>(std::ceil(height / cell));
  std::vector<int32_t> grid(static_cast<size_t>(nx) * nz, -1);
  std::vector<Point> points;
  std::vector<double> radius;
  std::vector<size_t> active;
  uint64_t counter = 0;
  auto uniform = [&] { return unit_double(hash(seed, salt("bench.bridson"), counter++)); };
  const int reach = static_cast<int>(std::ceil(r_max / cell));

  auto fits = [&](double x, double z, double rq) {
    const int ci = static_cast<int>(x / cell), cj = static_cast<int>(z / cell);
    for (int j = std::max(0, cj - reach); j <= std::min(nz - 1, cj + reach); ++j) {
      for (int i = std::max(0, ci - reach); i <= std::min(nx - 1, ci + reach); ++i) {
        const int32_t q = grid[static_cast<size_t>(j) * nx + i];
        if (q < 0) continue;
        const double dx = points[q].x - x, dz = points[q].z - z, limit = std::max(rq, radius[q]);
        if (dx * dx + dz * dz < limit * limit) return false;
      }
    }
    return true;
  };
  auto add = [&](double x, double z, double rq) {
    grid[static_cast<size_t>(static_cast<int>(z / cell)) * nx + static_cast<int>(x / cell)] =
        static_cast<int32_t>(points.size());
    active.push_back(points.size());
    points.push_back({x, z});
    radius.push_back(rq);
  };

  const double x0 = uniform() * width, z0 = uniform() * height;
  add(x0, z0, r(x0, z0));
  while (!active.empty()) {
    const size_t pick = static_cast<size_t>(uniform() * static_cast<double>(active.size()));
    const size_t p = active[pick];
    bool placed = false;
    for (int attempt = 0; attempt < k; ++attempt) {
      // Uniform in the annulus [r, 2r] around p.
      const double angle = uniform() * 6.283185307179586;
      const double rp = radius[p];
      const double dist = std::sqrt(rp * rp + uniform() * 3.0 * rp * rp);
      const double x = points[p].x + dist * std::cos(angle), z = points[p].z + dist * std::sin(angle);
      if (x < 0 || z < 0 || x >= width || z >= height) continue;
      const double rq = r(x, z);
      if (fits(x, z, rq)) {
        add(x, z, rq);
        placed = true;
        break;
      }
    }
    if (!placed) {
      active[pick] = active.back();
      active.pop_back();
    }
  }
  return points;
}

}  // namespace chunkforge::bench
