// The epochs overlay (`epochs`) of a world that changed after launch (docs/world-definition.md,
// "Epochs"): land of each older epoch tinted in its own colour, new land at a seam (within the
// seam rules' reach of older land: blended, its structures and objects kept off older ones) in a
// pale wash, and the borders between epochs in white where a chunk is at least 4 pixels wide.
// Land of the newest epoch away from any seam stays clear. From the seen-land record alone: no
// chunk is generated.
#include <unordered_map>
#include <vector>

#include "chunkforge/coord.h"
#include "chunkforge/hash.h"
#include "tile_renderer.h"
#include "tile_terrain.h"

namespace chunkforge::map {
namespace {

// What a chunk is on the overlay: an older epoch's land, the newest's at a seam, or the newest's.
constexpr int kSeam = -1, kNewest = -2;

// The kind of each chunk under the tile, looked up once per chunk (a pixel column or row of one
// chunk shares it).
class ChunkKinds {
 public:
  explicit ChunkKinds(const Epochs& epochs) : epochs_(epochs) {}
  int kind(ChunkCoord c) {
    const auto [it, fresh] = kinds_.try_emplace(c, kNewest);
    if (!fresh) return it->second;
    const uint32_t e = epochs_.epoch_of(c);
    if (e < epochs_.newest()) {
      it->second = static_cast<int>(e);
    } else if (!epochs_.newest_generates(c)) {
      it->second = kSeam;
    }
    return it->second;
  }

 private:
  struct Hash {  // as SeenLand's regions are hashed: unsigned, so no multiplication overflows
    size_t operator()(ChunkCoord c) const {
      return static_cast<size_t>(mix64(mix64(static_cast<uint64_t>(c.x)) ^ static_cast<uint64_t>(c.z)));
    }
  };
  const Epochs& epochs_;
  std::unordered_map<ChunkCoord, int, Hash> kinds_;
};

// An older epoch's tint: warm for the oldest, cooler for each later one.
Rgba tint(int epoch) {
  static const Rgba kTints[] = {{235, 150, 40, 120}, {170, 80, 200, 120}, {40, 170, 170, 120}, {200, 60, 60, 120}};
  return kTints[static_cast<size_t>(epoch) % std::size(kTints)];
}

// The chunk coordinate of each pixel's lowest corner along one axis.
std::vector<int64_t> pixel_chunks(int64_t origin, const TileKey& key, int64_t chunk_size) {
  std::vector<int64_t> out(kTilePixels);
  for (int i = 0; i < kTilePixels; ++i) {
    const int64_t unit = key.z <= 0 ? origin + i * (key.span() / kTilePixels) : origin + (i >> key.z);
    out[i] = floor_div(unit, chunk_size);
  }
  return out;
}

}  // namespace

TileImage draw_epochs(const World& world, const TileKey& key, const std::atomic<bool>* abandon, const Epochs* epochs) {
  TileImage image(false);
  if (epochs == nullptr) return image;
  const int64_t cs = world.chunk_size();
  const std::vector<int64_t> cx = pixel_chunks(key.world_x0(), key, cs), cz = pixel_chunks(key.world_z0(), key, cs);
  const int64_t r = epochs->reach();
  if (!epochs->seen().any_before({cx.front() - r, cz.front() - r}, {cx.back() + r, cz.back() + r}, epochs->newest())) {
    return image;  // no older land within reach of the tile: the newest epoch's alone
  }
  ChunkKinds kinds(*epochs);
  const bool borders = static_cast<double>(cs) / key.units_per_pixel() >= 4;
  for (int y = 0; y < kTilePixels; ++y) {
    throw_if_abandoned(abandon);
    for (int x = 0; x < kTilePixels; ++x) {
      const int here = kinds.kind({cx[x], cz[y]});
      const bool edge = borders && ((x + 1 < kTilePixels && kinds.kind({cx[x + 1], cz[y]}) != here) ||
                                    (y + 1 < kTilePixels && kinds.kind({cx[x], cz[y + 1]}) != here));
      if (edge) {
        image.set(x, y, {255, 255, 255, 230});
      } else if (here >= 0) {
        image.set(x, y, tint(here));
      } else if (here == kSeam) {
        image.set(x, y, {255, 255, 255, 70});
      }
    }
  }
  return image;
}

}  // namespace chunkforge::map
