// Bridson's algorithm for the benchmarks' reference (see bridson.h): one template for the
// constant radius and the radius per point, so the constant case pays for nothing it does not use.
#include "bridson.h"

#include <algorithm>
#include <cmath>

#include "chunkforge/hash.h"

namespace chunkforge::bench {
namespace {

// SplitMix64 over a counter: as cheap as the libraries' generators (a 32-bit hash per number in
// thinks v0.3, xoshiro256+ in tph_poisson), and one draw gives both coordinates of a candidate.
class Random {
 public:
  explicit Random(uint64_t seed) : state_(mix64(seed)) {}

  uint64_t next() { return mix64(state_ += 0x9e3779b97f4a7c15ULL); }
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Uniform in [0, n) for n < 2^32, by multiplying rather than dividing.
  size_t below(size_t n) { return static_cast<size_t>(((next() >> 32) * n) >> 32); }

  // An offset uniform over the annulus between radii 1 and 2: rejection from the square
  // [-2, 2]^2 (59 % of draws land in it), no square root and no trigonometry.
  void annulus(double& dx, double& dz) {
    for (;;) {
      const uint64_t bits = next();
      dx = static_cast<double>(static_cast<uint32_t>(bits)) * 0x1.0p-30 - 2.0;
      dz = static_cast<double>(bits >> 32) * 0x1.0p-30 - 2.0;
      const double m = dx * dx + dz * dz;
      if (m > 1.0 && m <= 4.0) return;
    }
  }

 private:
  uint64_t state_;
};

// The radius as the constant case sees it: no storage per point, no call.
struct ConstantRadius {
  double r;
  double at(double, double) const { return r; }
  double reach() const { return r; }
  static double limit(double rq, double) { return rq; }
  void store(std::vector<double>&, double) const {}
  double of(const std::vector<double>&, size_t) const { return r; }
};

// A radius per point: a conflict is closer than the larger of the two radii.
struct VariableRadius {
  const std::function<double(double, double)>& r;
  double r_max;
  double at(double x, double z) const { return r(x, z); }
  double reach() const { return r_max; }
  static double limit(double rq, double rp) { return std::max(rq, rp); }
  static void store(std::vector<double>& radius, double rq) { radius.push_back(rq); }
  static double of(const std::vector<double>& radius, size_t p) { return radius[p]; }
};

// Cells of side a little under r_min/√2 (the libraries' 0.999: a rounding of x / cell never
// puts two points in one cell), each holding the index of its point or -1.
class Grid {
 public:
  Grid(double width, double height, double r_min)
      : inverse_(std::sqrt(2.0) / (0.999 * r_min)),
        nx_(static_cast<int>(std::ceil(width * inverse_))),
        nz_(static_cast<int>(std::ceil(height * inverse_))),
        cells_(static_cast<size_t>(nx_) * static_cast<size_t>(nz_), -1) {}

  // Coordinates below 0 truncate towards 0, which the clamp makes harmless.
  int column(double x) const { return std::min(nx_ - 1, std::max(0, static_cast<int>(x * inverse_))); }
  int row(double z) const { return std::min(nz_ - 1, std::max(0, static_cast<int>(z * inverse_))); }
  int32_t& at(int i, int j) { return cells_[static_cast<size_t>(j) * static_cast<size_t>(nx_) + i]; }
  int32_t at(int i, int j) const { return cells_[static_cast<size_t>(j) * static_cast<size_t>(nx_) + i]; }

 private:
  double inverse_;
  int nx_, nz_;
  std::vector<int32_t> cells_;
};

template <typename Radius>
class Sampler {
 public:
  Sampler(double width, double height, double r_min, const Radius& radius)
      : width_(width), height_(height), radius_(radius), grid_(width, height, r_min) {}

  std::vector<Point> run(uint64_t seed, int k);

 private:
  // No accepted point within limit(rq, r(q)) of (x, z): the cells of the square of side twice
  // the reach around it, as the libraries scan them.
  bool fits(double x, double z, double rq) const {
    const double reach = radius_.reach();
    const int i0 = grid_.column(x - reach), i1 = grid_.column(x + reach);
    const int j0 = grid_.row(z - reach), j1 = grid_.row(z + reach);
    for (int j = j0; j <= j1; ++j) {
      for (int i = i0; i <= i1; ++i) {
        const int32_t q = grid_.at(i, j);
        if (q < 0) continue;
        const double dx = points_[q].x - x, dz = points_[q].z - z;
        const double limit = Radius::limit(rq, radius_.of(radii_, static_cast<size_t>(q)));
        if (dx * dx + dz * dz < limit * limit) return false;
      }
    }
    return true;
  }

  void add(double x, double z, double rq) {
    grid_.at(grid_.column(x), grid_.row(z)) = static_cast<int32_t>(points_.size());
    active_.push_back(static_cast<uint32_t>(points_.size()));
    points_.push_back({x, z});
    radius_.store(radii_, rq);
  }

  double width_, height_;
  Radius radius_;
  Grid grid_;
  std::vector<Point> points_;
  std::vector<double> radii_;  // empty at constant radius
  std::vector<uint32_t> active_;
};

template <typename Radius>
std::vector<Point> Sampler<Radius>::run(uint64_t seed, int k) {
  Random random(seed);
  const double x0 = random.unit() * width_, z0 = random.unit() * height_;
  add(x0, z0, radius_.at(x0, z0));
  while (!active_.empty()) {
    const size_t pick = random.below(active_.size());
    const uint32_t p = active_[pick];
    const double px = points_[p].x, pz = points_[p].z, rp = radius_.of(radii_, p);
    bool placed = false;
    for (int attempt = 0; attempt < k && !placed; ++attempt) {
      double dx, dz;
      random.annulus(dx, dz);
      const double x = px + rp * dx, z = pz + rp * dz;
      if (x < 0 || z < 0 || x >= width_ || z >= height_) continue;
      const double rq = radius_.at(x, z);
      if (fits(x, z, rq)) {
        add(x, z, rq);
        placed = true;
      }
    }
    if (!placed) {
      active_[pick] = active_.back();
      active_.pop_back();
    }
  }
  return std::move(points_);
}

}  // namespace

std::vector<Point> bridson(double width, double height, double r, uint64_t seed, int k) {
  return Sampler<ConstantRadius>(width, height, r, ConstantRadius{r}).run(seed, k);
}

std::vector<Point> bridson(double width, double height, double r_min, double r_max,
                           const std::function<double(double, double)>& r, uint64_t seed, int k) {
  return Sampler<VariableRadius>(width, height, r_min, VariableRadius{r, r_max}).run(seed, k);
}

}  // namespace chunkforge::bench
