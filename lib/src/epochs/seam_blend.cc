// The seam's elevation blend (seam_blend.h): the older chunks within the band found once per
// point or lattice, then per sample the distance to the nearest and a smoothstep of it. Only
// single IEEE operations and sqrt (correctly rounded), so the bits are the same everywhere.
#include "epochs/seam_blend.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "chunkforge/coord.h"

namespace chunkforge::epochs {

std::vector<ChunkCoord> SeamBlend::older_near(int64_t x_lo, int64_t z_lo, int64_t x_hi, int64_t z_hi) const {
  const auto reach = static_cast<int64_t>(std::ceil(band_)) + 1;
  const int64_t cx0 = floor_div(x_lo - reach, chunk_size_), cx1 = floor_div(x_hi + reach, chunk_size_);
  const int64_t cz0 = floor_div(z_lo - reach, chunk_size_), cz1 = floor_div(z_hi + reach, chunk_size_);
  std::vector<ChunkCoord> older;
  if (!seen_.any_before({cx0, cz0}, {cx1, cz1}, epoch_)) return older;
  for (int64_t cz = cz0; cz <= cz1; ++cz) {
    for (int64_t cx = cx0; cx <= cx1; ++cx) {
      const std::optional<uint32_t> e = seen_.epoch_of({cx, cz});
      if (e && *e < epoch_) older.push_back({cx, cz});
    }
  }
  return older;
}

double SeamBlend::distance(Coord x, Coord z, const std::vector<ChunkCoord>& older) const {
  const auto side = static_cast<double>(chunk_size_);
  double nearest2 = std::numeric_limits<double>::infinity();
  for (const ChunkCoord c : older) {
    // The point relative to the chunk's lowest corner: small wherever it matters.
    const double px = static_cast<double>(x.cell - c.x * chunk_size_) + x.frac;
    const double pz = static_cast<double>(z.cell - c.z * chunk_size_) + z.frac;
    const double dx = px < 0 ? -px : (px > side ? px - side : 0.0);
    const double dz = pz < 0 ? -pz : (pz > side ? pz - side : 0.0);
    nearest2 = std::min(nearest2, dx * dx + dz * dz);
    if (nearest2 == 0) return 0;
  }
  // Beyond the band exactly band_ (not a rounded sqrt of its square): the blend is off there.
  return nearest2 >= band_ * band_ ? band_ : std::sqrt(nearest2);
}

double SeamBlend::blend(Coord x, Coord z, double own, double d) const {
  if (d >= band_) return own;
  const double older = older_.elevation(x, z);
  if (d == 0) return older;
  const double t = 1.0 - d / band_;
  const double w = t * t * (3.0 - 2.0 * t);
  return own + w * (older - own);
}

double SeamBlend::at(Coord x, Coord z, double own) const {
  const std::vector<ChunkCoord> older = older_near(x.cell, z.cell, x.cell + 1, z.cell + 1);
  if (older.empty()) return own;
  return blend(x, z, own, distance(x, z, older));
}

void SeamBlend::lattice(Coord x0, Coord z0, int64_t step, int nx, int nz, double* values) const {
  const std::vector<ChunkCoord> older = older_near(x0.cell, z0.cell, x0.cell + step * nx + 1, z0.cell + step * nz + 1);
  if (older.empty()) return;
  for (int j = 0; j < nz; ++j) {
    const Coord z = z0.plus(step * j);
    for (int i = 0; i < nx; ++i) {
      const Coord x = x0.plus(step * i);
      double& v = values[static_cast<size_t>(j) * nx + i];
      v = blend(x, z, v, distance(x, z, older));
    }
  }
}

}  // namespace chunkforge::epochs
