// OlderLandSent: the older land near a batch of chunks, region by region, less the regions
// already sent. Chunks are grouped by region first, so a batch of 256 chunks costs a few region
// lookups, not a lookup per chunk and region.
#include "session/older_land_sent.h"

namespace chunkforge::server {
namespace {

// The regions holding `chunks`, each once.
std::set<RegionKey> regions_of(const std::vector<ChunkCoord>& chunks) {
  std::set<RegionKey> out;
  for (const ChunkCoord& c : chunks) out.emplace(c.x >> SeenLand::kRegionShift, c.z >> SeenLand::kRegionShift);
  return out;
}

}  // namespace

void for_each_region_near(const Epochs& epochs, RegionKey region, const std::function<void(RegionKey)>& fn) {
  const int64_t side = SeenLand::kRegionSide, r = epochs.reach();
  const auto lo = [&](int64_t k) { return (k * side - r) >> SeenLand::kRegionShift; };
  const auto hi = [&](int64_t k) { return (k * side + side - 1 + r) >> SeenLand::kRegionShift; };
  for (int64_t z = lo(region.second); z <= hi(region.second); ++z) {
    for (int64_t x = lo(region.first); x <= hi(region.first); ++x) fn({x, z});
  }
}

SeenLand older_maps(const Epochs& epochs, RegionKey region) {
  const int64_t side = SeenLand::kRegionSide;
  const ChunkCoord lo{region.first * side, region.second * side};
  return epochs.seen().excerpt(lo, {lo.x + side - 1, lo.z + side - 1}, epochs.newest());
}

std::string OlderLandSent::take(const std::vector<ChunkCoord>& chunks) {
  std::set<RegionKey> near;
  for (const RegionKey& region : regions_of(chunks)) {
    for_each_region_near(*epochs_, region, [&](RegionKey k) {
      if (!sent_.contains(k)) near.insert(k);
    });
  }
  SeenLand fresh;
  std::vector<RegionKey> with_land;
  for (const RegionKey& k : near) {
    const SeenLand maps = older_maps(*epochs_, k);
    if (maps.maps() == 0) continue;
    fresh.merge(maps);
    with_land.push_back(k);
  }
  if (with_land.empty()) return {};
  if (sent_.size() + with_land.size() > kMaxRegions) sent_.clear();
  sent_.insert(with_land.begin(), with_land.end());
  return fresh.encode();
}

std::string older_land_bytes(const Epochs& epochs, ChunkCoord chunk) {
  SeenLand land;
  for_each_region_near(epochs, {chunk.x >> SeenLand::kRegionShift, chunk.z >> SeenLand::kRegionShift},
                       [&](RegionKey k) { land.merge(older_maps(epochs, k)); });
  return land.maps() == 0 ? std::string() : land.encode();
}

}  // namespace chunkforge::server
