// The scatter field's whole-cell rejection (lib/src/scatter/geometry.h) against the exact
// same-layer test it stands for: near the boundary, wherever disc_covers_square says a disc
// covers a cell, the exact test must reject every candidate position of the cell too.
#include "scatter/geometry.h"

#include <gtest/gtest.h>

#include <cmath>
#include <initializer_list>

#include "chunkforge/hash.h"

namespace chunkforge::scatter {
namespace {

constexpr int64_t kSub = int64_t{1} << 24;  // sub-cell units per scatter cell side

// Radii at and around the computed distance of (dx, dz): a few ulps either side, where the
// rounding of the bound and of the exact test decide.
std::vector<double> radii_around(int64_t dx, int64_t dz, double unit) {
  double r = std::sqrt(same_layer_distance2(dx, dz, unit));
  for (int k = 0; k < 3; ++k) r = std::nextafter(r, 0.0);
  std::vector<double> out;
  for (int k = 0; k < 7; ++k, r = std::nextafter(r, 1e300)) out.push_back(r);
  return out;
}

TEST(ScatterGeometryTest, DiscCoversSquareOnlyWhenTheExactTestRejectsEveryPoint) {
  int covered = 0;
  for (uint64_t i = 0; i < 200000; ++i) {
    const uint64_t h = hash(3, salt("scatter.geometry"), i);
    const int64_t span = int64_t{1} << (h % 3);  // 1, 2 or 4 scatter cells
    const int64_t extent = kSub * span;
    // Blockers a few cells away on either side, at any sub-cell position; units as layers have
    // them (chunk_size / (cells_per_chunk * 2^24)).
    const int64_t bx = static_cast<int64_t>((h >> 8) % static_cast<uint64_t>(8 * kSub)) - 3 * kSub;
    const int64_t bz = static_cast<int64_t>((h >> 34) % static_cast<uint64_t>(8 * kSub)) - 3 * kSub;
    const double unit = 64.0 / (static_cast<double>(3 + (h >> 58)) * static_cast<double>(kSub));
    // The candidate positions farthest from the blocker, per axis: 0 and extent - 1.
    const int64_t ux = std::abs(bx) >= std::abs(bx - (extent - 1)) ? 0 : extent - 1;
    const int64_t uz = std::abs(bz) >= std::abs(bz - (extent - 1)) ? 0 : extent - 1;
    for (double r : radii_around(bx - ux, bz - uz, unit)) {
      if (!disc_covers_square(bx, bz, extent, unit, r)) continue;
      ++covered;
      for (int64_t u : {int64_t{0}, extent - 1}) {
        for (int64_t v : {int64_t{0}, extent - 1}) {
          ASSERT_LT(same_layer_distance2(bx - u, bz - v, unit), r * r)
              << "covered, but the exact test keeps (" << u << ", " << v << ") for blocker (" << bx << ", " << bz
              << "), unit " << std::hexfloat << unit << ", r " << r;
        }
      }
    }
  }
  EXPECT_GT(covered, 100000);  // the boundary was actually exercised
}

TEST(ScatterGeometryTest, SameLayerDistanceIsSymmetric) {
  const double unit = 64.0 / (7.0 * static_cast<double>(kSub));
  EXPECT_EQ(same_layer_distance2(12345678, -987654, unit), same_layer_distance2(-12345678, 987654, unit));
}

}  // namespace
}  // namespace chunkforge::scatter
