#include "chunkforge/quality.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "chunkforge/world.h"
#include "generator_versions.h"

namespace chunkforge {
namespace {

// Points bucketed on a square grid of side `cell` for neighbour queries.
class Buckets {
 public:
  Buckets(const std::vector<const PlacedObject*>& points, double cell) : cell_(cell) {
    for (const PlacedObject* p : points) map_[key(index(p->x), index(p->z))].push_back(p);
  }
  int64_t index(double v) const { return static_cast<int64_t>(std::floor(v / cell_)); }
  const std::vector<const PlacedObject*>* at(int64_t i, int64_t j) const {
    auto it = map_.find(key(i, j));
    return it == map_.end() ? nullptr : &it->second;
  }
  double cell() const { return cell_; }

 private:
  static uint64_t key(int64_t i, int64_t j) { return (static_cast<uint64_t>(i) << 32) ^ static_cast<uint32_t>(j); }
  double cell_;
  std::unordered_map<uint64_t, std::vector<const PlacedObject*>> map_;
};

std::vector<const PlacedObject*> of_layer(const RegionPoints& points, uint32_t layer) {
  std::vector<const PlacedObject*> out;
  for (const PlacedObject& p : points.objects) {
    if (p.layer == layer) out.push_back(&p);
  }
  return out;
}

double distance(const PlacedObject& a, const PlacedObject& b) {
  return std::sqrt((a.x - b.x) * (a.x - b.x) + (a.z - b.z) * (a.z - b.z));
}

}  // namespace

RegionPoints generate_region(const World& world, ChunkCoord origin, int64_t chunks) {
  RegionPoints out;
  out.origin = origin;
  out.chunks = chunks;
  out.chunk_size = static_cast<double>(world.chunk_size());
  const Generator generator(world);
  const auto start = std::chrono::steady_clock::now();
  for (int64_t dz = 0; dz < chunks; ++dz) {
    for (int64_t dx = 0; dx < chunks; ++dx) {
      const ChunkCoord c{origin.x + dx, origin.z + dz};
      const ChunkData data = generator.generate(c);
      for (const ResourceObject& o : data.objects) {
        const ResourceLayer& l = world.resources().layer(o.layer);
        out.objects.push_back(PlacedObject{o.layer, static_cast<double>(dx) * out.chunk_size + o.x,
                                           static_cast<double>(dz) * out.chunk_size + o.z, l.spacing / o.density, c});
      }
    }
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

SpacingReport check_spacing(const World& world, const RegionPoints& points, double slack) {
  const ResourceLayers& layers = world.resources();
  double reach = 0;
  for (const ResourceLayer& l : layers.all()) {
    reach = std::max(reach, 2 * l.footprint);
    if (l.method == ScatterMethod::kBlueNoise) reach = std::max(reach, l.r_max());
  }
  const bool own_spacing = generator_version(world.generator_version()).own_spacing;
  std::vector<const PlacedObject*> all;
  for (const PlacedObject& p : points.objects) all.push_back(&p);
  // Pairs within twice their conflict distance count as checked: near enough that a broken
  // resolution would put some of them too close.
  const Buckets buckets(all, std::max(2 * reach, 1e-3));
  SpacingReport report;
  for (const PlacedObject* a : all) {
    const int64_t i = buckets.index(a->x), j = buckets.index(a->z);
    for (int64_t dj = -1; dj <= 1; ++dj) {
      for (int64_t di = -1; di <= 1; ++di) {
        const auto* bucket = buckets.at(i + di, j + dj);
        if (bucket == nullptr) continue;
        for (const PlacedObject* b : *bucket) {
          if (b <= a) continue;  // each pair once
          const ResourceLayer& la = layers.layer(a->layer);
          const ResourceLayer& lb = layers.layer(b->layer);
          double conflict = 0;
          if (a->layer != b->layer) {
            conflict = la.footprint + lb.footprint;
          } else if (la.method == ScatterMethod::kBlueNoise) {
            conflict = own_spacing ? std::min(a->r, b->r) : std::max(a->r, b->r);
          } else {
            continue;  // other methods promise no spacing within their layer
          }
          const double d = distance(*a, *b);
          if (d >= 2 * conflict) continue;
          ++report.pairs_checked;
          if (d < conflict - slack) {
            ++report.violations;
            if (a->layer == b->layer) ++report.same_layer_violations;
            if (!(a->chunk == b->chunk)) ++report.cross_chunk;
          }
        }
      }
    }
  }
  return report;
}

PointStats point_stats(const RegionPoints& points, uint32_t layer, double margin) {
  const std::vector<const PlacedObject*> pts = of_layer(points, layer);
  PointStats stats;
  stats.points = pts.size();
  if (pts.size() < 3) return stats;
  const double side = static_cast<double>(points.chunks) * points.chunk_size;
  const double area = side * side;
  const double n = static_cast<double>(pts.size());
  const Buckets buckets(pts, std::sqrt(area / n));

  double d_min = std::numeric_limits<double>::infinity();
  double sum = 0, sum2 = 0;
  uint64_t counted = 0;
  for (const PlacedObject* a : pts) {
    // Nearest neighbour: rings of buckets until the ring is farther than the best so far.
    double best = std::numeric_limits<double>::infinity();
    const int64_t i = buckets.index(a->x), j = buckets.index(a->z);
    for (int64_t ring = 0; ring < 64; ++ring) {
      if (static_cast<double>(ring - 1) * buckets.cell() > best) break;
      for (int64_t dj = -ring; dj <= ring; ++dj) {
        for (int64_t di = -ring; di <= ring; ++di) {
          if (std::max(std::abs(di), std::abs(dj)) != ring) continue;
          const auto* bucket = buckets.at(i + di, j + dj);
          if (bucket == nullptr) continue;
          for (const PlacedObject* b : *bucket) {
            if (b != a) best = std::min(best, distance(*a, *b));
          }
        }
      }
    }
    d_min = std::min(d_min, best);
    if (a->x >= margin && a->z >= margin && a->x <= side - margin && a->z <= side - margin) {
      sum += best;
      sum2 += best * best;
      ++counted;
    }
  }
  const double d_hex = std::sqrt(2.0 * area / (std::sqrt(3.0) * n));
  stats.rho = d_min / d_hex;
  if (counted > 1) {
    const double mean = sum / static_cast<double>(counted);
    const double variance = sum2 / static_cast<double>(counted) - mean * mean;
    stats.nn_cv = std::sqrt(std::max(0.0, variance)) / mean;
    stats.clark_evans = mean / (0.5 * std::sqrt(area / n));
  }
  return stats;
}

double seam_ratio(const RegionPoints& points, uint32_t layer, double band) {
  const double s = points.chunk_size;
  uint64_t in_band = 0, inside = 0;
  for (const PlacedObject* p : of_layer(points, layer)) {
    // Inner chunks only: every border around them has generated chunks on both sides.
    const int64_t dx = p->chunk.x - points.origin.x, dz = p->chunk.z - points.origin.z;
    if (dx < 1 || dz < 1 || dx > points.chunks - 2 || dz > points.chunks - 2) continue;
    const double lx = p->x - static_cast<double>(dx) * s, lz = p->z - static_cast<double>(dz) * s;
    const double to_border = std::min({lx, s - lx, lz, s - lz});
    (to_border < band ? in_band : inside) += 1;
  }
  const double interior_area = (s - 2 * band) * (s - 2 * band);
  const double band_area = s * s - interior_area;
  if (inside == 0 || band_area <= 0) return 0;
  return (static_cast<double>(in_band) / band_area) / (static_cast<double>(inside) / interior_area);
}

double density_fidelity(const World& world, const RegionPoints& points, uint32_t layer, double bin) {
  const double side = static_cast<double>(points.chunks) * points.chunk_size;
  const int bins = static_cast<int>(side / bin);
  if (bins < 2) return 0;
  std::vector<double> count(static_cast<size_t>(bins) * bins, 0.0), target(count.size());
  for (const PlacedObject* p : of_layer(points, layer)) {
    const int i = static_cast<int>(p->x / bin), j = static_cast<int>(p->z / bin);
    if (i < bins && j < bins) count[static_cast<size_t>(j) * bins + i] += 1;
  }
  const int64_t size = world.chunk_size();
  for (int j = 0; j < bins; ++j) {
    for (int i = 0; i < bins; ++i) {
      // The bin's mean of density^2 over a 4 x 4 grid of samples.
      double sum = 0;
      for (int sj = 0; sj < 4; ++sj) {
        for (int si = 0; si < 4; ++si) {
          const Coord x = Coord::from_parts(points.origin.x * size, (i + (si + 0.5) / 4) * bin);
          const Coord z = Coord::from_parts(points.origin.z * size, (j + (sj + 0.5) / 4) * bin);
          const double d = world.resources().density(layer, x, z);
          sum += d * d / 16;
        }
      }
      target[static_cast<size_t>(j) * bins + i] = sum;
    }
  }
  const double n = static_cast<double>(count.size());
  double mc = 0, mt = 0;
  for (size_t k = 0; k < count.size(); ++k) {
    mc += count[k] / n;
    mt += target[k] / n;
  }
  double cov = 0, vc = 0, vt = 0;
  for (size_t k = 0; k < count.size(); ++k) {
    cov += (count[k] - mc) * (target[k] - mt);
    vc += (count[k] - mc) * (count[k] - mc);
    vt += (target[k] - mt) * (target[k] - mt);
  }
  return vc > 0 && vt > 0 ? cov / std::sqrt(vc * vt) : 0;
}

}  // namespace chunkforge
