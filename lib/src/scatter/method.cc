// The scatter methods' records (method.h): each method's cell size, halo and candidates.
#include "scatter/method.h"

#include <algorithm>
#include <cmath>

namespace chunkforge::scatter {
namespace {

// Cells of about r_min: one trial (or jittered point) per cell.
int cells_of_r_min(const ResourceLayer& l, int64_t chunk_size) {
  return std::max(1, static_cast<int>(std::lround(static_cast<double>(chunk_size) / l.r_min())));
}

int no_halo(const ResourceLayer&, int64_t, int64_t) { return 0; }

// Uniform in the cell, which spans `span` scatter cells: 26 bits per axis cover span <= 4.
void place_uniform(const ResourceLayer&, const CellView& c, uint64_t bits, uint32_t& u, uint32_t& v) {
  const uint32_t cell_mask = static_cast<uint32_t>(kSub * c.span - 1);
  u = static_cast<uint32_t>(bits) & cell_mask;
  v = static_cast<uint32_t>(bits >> 26) & cell_mask;
}

// The methods with one trial per cell: dart 0 exists with probability `keep`.
uint32_t first_if(const CellDraws& draws, double keep) { return draws.thinning(0) < keep ? 1u : 0u; }

namespace blue_noise {
// Cells of side < r_min / sqrt(2), so that a cell holds at most one point.
int cells_per_chunk(const ResourceLayer& l, int64_t chunk_size) {
  return static_cast<int>(std::floor(static_cast<double>(chunk_size) * std::sqrt(2.0) / l.r_min())) + 1;
}
// K darts per cell, thinned by (r_level / r)^2 so that dart intensity follows 1 / r^2 (r_level:
// the spacing the cell's size is made for, r_min times its span).
uint32_t kept(const ResourceLayer& l, const CellView& c, const CellDraws& draws) {
  const double ratio = l.r_min() * c.span / c.r, keep = ratio * ratio;
  constexpr uint32_t kAll = (1u << kDartsPerCell) - 1;
  // A draw is at most 255/256: at keep >= 1 (dense cells) every dart stays, without drawing.
  if (keep >= 1.0) return kAll;
  // Dart k stays iff CellDraws::thinning(group, k) = byte / 256 < keep, that is iff byte < keep *
  // 256 (scaling by a power of two is exact), iff byte < `below` = ceil(keep * 256): the same
  // test on the integers, without a conversion per dart.
  const double scaled = keep * 256.0;
  const auto whole = static_cast<uint64_t>(scaled);  // keep < 1: below 256
  const uint64_t below = whole + (static_cast<double>(whole) < scaled ? 1 : 0);
  uint32_t mask = 0;
  uint64_t group = 0;
  for (uint32_t k = 0; k < kDartsPerCell; ++k) {
    if (k % 8 == 0) group = draws.thinning_group(k / 8);
    if (((group >> (8 * (k % 8))) & 0xff) < below) mask |= 1u << k;
  }
  return mask;
}
}  // namespace blue_noise

namespace jittered_grid {
// One point per cell, kept with probability (r_min / r)^2.
uint32_t kept(const ResourceLayer& l, const CellView& c, const CellDraws& draws) {
  const double ratio = l.r_min() / c.r;
  return first_if(draws, ratio * ratio);
}
// At the centre moved by up to +-jitter of a cell on each axis.
void place(const ResourceLayer& l, const CellView&, uint64_t bits, uint32_t& u, uint32_t& v) {
  auto jittered = [&](uint64_t b) {
    const double offset = (static_cast<double>(b & static_cast<uint64_t>(kSub - 1)) * 2.0 - kSubD) * l.jitter;
    return static_cast<uint32_t>((kSub / 2) + static_cast<int64_t>(std::floor(offset)));
  };
  u = jittered(bits);
  v = jittered(bits >> 24);
}
}  // namespace jittered_grid

namespace noise_probability {
// One trial per cell, kept with probability density / dmax.
uint32_t kept(const ResourceLayer& l, const CellView& c, const CellDraws& draws) {
  return first_if(draws, c.density / l.dmax);
}
}  // namespace noise_probability

namespace noise_peaks {
// Cells of an eighth of the window.
int cells_per_chunk(const ResourceLayer& l, int64_t chunk_size) {
  return std::max(1, static_cast<int>(std::lround(static_cast<double>(chunk_size) / (l.peak_window / 8.0))));
}
// Each cell is compared with +-halo cells: half the window.
int halo(const ResourceLayer& l, int64_t n, int64_t size) {
  return std::max(
      1, static_cast<int>(std::lround(l.peak_window * static_cast<double>(n) / (2.0 * static_cast<double>(size)))));
}
// A point in each cell that holds its window's largest peak value, at the cell's centre.
uint32_t kept(const ResourceLayer&, const CellView& c, const CellDraws&) { return c.peak ? 1u : 0u; }
void place(const ResourceLayer&, const CellView&, uint64_t, uint32_t& u, uint32_t& v) {
  u = v = static_cast<uint32_t>(kSub / 2);
}
}  // namespace noise_peaks

namespace uniform {
// White noise at the mean density: the density field is deliberately ignored.
uint32_t kept(const ResourceLayer& l, const CellView&, const CellDraws& draws) {
  const double mean = (l.dmin + l.dmax) / (2.0 * l.dmax);
  return first_if(draws, mean * mean);
}
}  // namespace uniform

constexpr MethodRecord kBlueNoise{"blue_noise", blue_noise::cells_per_chunk, no_halo, true, true, blue_noise::kept,
                                  place_uniform};
constexpr MethodRecord kJitteredGrid{"jittered_grid",     cells_of_r_min,      no_halo, false, false,
                                     jittered_grid::kept, jittered_grid::place};
constexpr MethodRecord kNoiseProbability{"noise_probability",     cells_of_r_min, no_halo, false, false,
                                         noise_probability::kept, place_uniform};
constexpr MethodRecord kNoisePeaks{
    "noise_peaks",     noise_peaks::cells_per_chunk, noise_peaks::halo, false, false, noise_peaks::kept,
    noise_peaks::place};
constexpr MethodRecord kUniform{"uniform", cells_of_r_min, no_halo, false, false, uniform::kept, place_uniform};

}  // namespace

const MethodRecord& method_record(ScatterMethod method) {
  switch (method) {
    case ScatterMethod::kBlueNoise:
      return kBlueNoise;
    case ScatterMethod::kJitteredGrid:
      return kJitteredGrid;
    case ScatterMethod::kNoiseProbability:
      return kNoiseProbability;
    case ScatterMethod::kNoisePeaks:
      return kNoisePeaks;
    case ScatterMethod::kUniform:
      return kUniform;
  }
  // Only a value cast from outside the enumeration gets here; ResourceLayers never makes one.
  return kBlueNoise;
}

}  // namespace chunkforge::scatter
