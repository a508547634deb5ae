// The overlays, transparent where nothing is drawn: structure footprints (from the planner,
// no chunk generation), resource objects (generated chunks, close zoom only) and the chunk grid.
#include <algorithm>
#include <cmath>
#include <unordered_set>

#include "chunkforge/chunk.h"
#include "chunkforge/resource_layer.h"
#include "chunkforge/structures.h"
#include "tile_renderer.h"

namespace chunkforge::map {
namespace {

// Chunks, as inclusive ranges.
struct ChunkRange {
  int64_t x0, z0, x1, z1;
};

// The chunks a tile overlaps, or, with a `margin` in whole units, the tile grown by it on every
// side: the chunks whose drawings can reach into the tile.
ChunkRange chunks_under(const World& world, const TileKey& key, int64_t margin = 0) {
  const int64_t cs = world.chunk_size(), span = key.span();
  return {floor_div(key.world_x0() - margin, cs), floor_div(key.world_z0() - margin, cs),
          floor_div(key.world_x0() + span - 1 + margin, cs), floor_div(key.world_z0() + span - 1 + margin, cs)};
}

// How far, in whole units, an object's disc reaches from its centre: the largest footprint,
// or half a pixel where a pixel is larger (a disc is at least its centre pixel), plus a pixel
// for the rounding of discs to pixels.
int64_t object_reach(const World& world, const TileKey& key) {
  double footprint = 0;
  for (const ResourceLayer& l : world.resources().all()) footprint = std::max(footprint, l.footprint);
  return static_cast<int64_t>(std::ceil(std::max(footprint, 0.5 * key.units_per_pixel()) + key.units_per_pixel()));
}

// World units to tile pixels along one axis.
double to_pixel(double world_offset, const TileKey& key) { return world_offset / key.units_per_pixel(); }

Rgba with_alpha(Rgba c, uint8_t alpha) { return {c.r, c.g, c.b, alpha}; }

// A chunk's objects: from `chunks` when another tile generated them, else generated here (and
// kept there for the next tile).
ChunkObjects objects_of(const World& world, ChunkCoord chunk, ChunkStream& stream, const std::atomic<bool>* abandon,
                        TileChunks* chunks) {
  if (chunks != nullptr) {
    if (ChunkObjects found = chunks->find(world.fingerprint(), chunk)) return found;
  }
  auto objects = std::make_shared<const std::vector<ResourceObject>>(stream.generate(chunk, abandon).objects);
  if (chunks != nullptr) chunks->insert(world.fingerprint(), chunk, objects);
  return objects;
}

}  // namespace

TileImage draw_structures(const World& world, const TileKey& key, const std::atomic<bool>* abandon) {
  TileImage image(false);
  StructurePlanner planner(world);
  planner.watch_abandon(abandon);
  // Also the chunks within a pixel and a half: a small structure beside the tile is drawn that
  // wide (below), and may so reach into it.
  const ChunkRange range = chunks_under(world, key, static_cast<int64_t>(std::ceil(1.5 * key.units_per_pixel())));
  std::unordered_set<uint64_t> drawn;  // a structure is reported by every chunk it touches
  const int thickness = key.z >= 2 ? 2 : 1;
  for (int64_t cz = range.z0; cz <= range.z1; ++cz) {
    for (int64_t cx = range.x0; cx <= range.x1; ++cx) {
      for (const StructureInstance& s : planner.in_chunk({cx, cz})) {
        if (!drawn.insert(s.id).second) continue;
        const Rgba color = color_of(world.definition().structures(static_cast<int>(s.type)).color());
        const double x0 = to_pixel(static_cast<double>(s.x - key.world_x0()), key);
        const double z0 = to_pixel(static_cast<double>(s.z - key.world_z0()), key);
        // At least a pixel and a half wide, so a small structure stays visible zoomed out.
        const double w = std::max(to_pixel(s.size_x, key), 1.5), h = std::max(to_pixel(s.size_z, key), 1.5);
        image.rectangle(x0, z0, x0 + w, z0 + h, thickness, color, with_alpha(color, 70));
      }
    }
  }
  return image;
}

TileImage draw_objects(const World& world, const TileKey& key, const std::atomic<bool>* abandon, TileChunks* chunks) {
  TileImage image(false);
  ChunkStream stream(world);
  // Also the chunks beside the tile that hold objects whose disc reaches into it; otherwise
  // discs would be cut off at tile edges (drawn only by the tile that holds their centre).
  const ChunkRange range = chunks_under(world, key, object_reach(world, key));
  const int64_t cs = world.chunk_size();
  for (int64_t cz = range.z0; cz <= range.z1; ++cz) {
    for (int64_t cx = range.x0; cx <= range.x1; ++cx) {
      const ChunkObjects objects = objects_of(world, {cx, cz}, stream, abandon, chunks);
      const double ox = static_cast<double>(cx * cs - key.world_x0()),
                   oz = static_cast<double>(cz * cs - key.world_z0());
      for (const ResourceObject& o : *objects) {
        if (key.resource >= 0 && o.layer != static_cast<uint32_t>(key.resource)) continue;
        const Rgba color = color_of(world.definition().resources(static_cast<int>(o.layer)).color());
        const double radius = std::max(to_pixel(world.resources().layer(o.layer).footprint, key), 0.5);
        image.disc(to_pixel(ox + o.x, key), to_pixel(oz + o.z, key), radius, color);
      }
    }
  }
  return image;
}

TileImage draw_grid(const World& world, const TileKey& key) {
  TileImage image(false);
  const int64_t cs = world.chunk_size();
  const double pixels_per_chunk = to_pixel(static_cast<double>(cs), key);
  // Lines closer than 8 px would fill the tile: zoomed out, every 4th, 16th, ... chunk border.
  int64_t every = cs;
  for (double apart = pixels_per_chunk; apart < 8; apart *= 4) every *= 4;
  const Rgba line{0, 0, 0, 110};
  const ChunkRange range = chunks_under(world, key);
  for (int64_t c = floor_div(range.x0 * cs, every) * every; c <= (range.x1 + 1) * cs; c += every) {
    const int px = static_cast<int>(std::floor(to_pixel(static_cast<double>(c - key.world_x0()), key)));
    for (int y = 0; y < kTilePixels; ++y) image.set(px, y, line);
  }
  for (int64_t c = floor_div(range.z0 * cs, every) * every; c <= (range.z1 + 1) * cs; c += every) {
    const int py = static_cast<int>(std::floor(to_pixel(static_cast<double>(c - key.world_z0()), key)));
    for (int x = 0; x < kTilePixels; ++x) image.set(x, py, line);
  }
  return image;
}

}  // namespace chunkforge::map
