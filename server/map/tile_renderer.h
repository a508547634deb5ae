// File: server/map/tile_renderer.h
//
// Draws one map tile of a world: the entry point the server's /tiles route, `chunkforge map`
// and the benchmarks share.
//
//   TileImage image = render_tile(world, key, &stop);
//   std::string png = image.png();
//
// Base layers (materials, biomes, elevation) sample the prescriptive terrain at the pixel
// spacing and never generate chunks. Overlays: structure footprints from the structure planner
// (no chunk generation either), resource objects from generated chunks (close zoom only), the
// chunk grid, a resource layer's density field (sampled per pixel, no chunks either), the epochs
// of a world that changed after launch. Structures, objects and density draw the newest epoch's
// world everywhere. Below a layer's min_zoom
// (tile_key.h) a tile is empty. Same key and world, same pixels: tiles are deterministic. Thread-safe (reads an
// immutable World). Throws GenerationAbandoned once `abandon` reads true.
#pragma once

#include <atomic>

#include "chunkforge/epochs.h"
#include "chunkforge/world.h"
#include "tile_chunks.h"
#include "tile_image.h"
#include "tile_key.h"

namespace chunkforge::map {

// `chunks` (may be null): generated chunks shared with other objects tiles (tile_chunks.h).
// `epochs` (may be null): the epochs of a world that changed after launch, whose newest is
// `world`: the base layers then draw each chunk's land as its epoch shows it, and the epochs
// overlay draws them (a world without them draws it empty).
TileImage render_tile(const World& world, const TileKey& key, const std::atomic<bool>* abandon = nullptr,
                      TileChunks* chunks = nullptr, const Epochs* epochs = nullptr);

// The three base layers, from the terrain samples (base_layers.cc).
TileImage draw_materials(const World& world, const TileKey& key, const std::atomic<bool>* abandon,
                         const Epochs* epochs = nullptr);
TileImage draw_biomes(const World& world, const TileKey& key, const std::atomic<bool>* abandon,
                      const Epochs* epochs = nullptr);
TileImage draw_elevation(const World& world, const TileKey& key, const std::atomic<bool>* abandon,
                         const Epochs* epochs = nullptr);
// Older epochs' land, seams and the borders between epochs (epochs_layer.cc).
TileImage draw_epochs(const World& world, const TileKey& key, const std::atomic<bool>* abandon, const Epochs* epochs);
// The overlays (overlay_layers.cc; density_layer.cc). `objects` with a resource layer draws
// that layer's objects only.
TileImage draw_structures(const World& world, const TileKey& key, const std::atomic<bool>* abandon);
TileImage draw_objects(const World& world, const TileKey& key, const std::atomic<bool>* abandon, TileChunks* chunks);
TileImage draw_grid(const World& world, const TileKey& key);
TileImage draw_density(const World& world, const TileKey& key, const std::atomic<bool>* abandon);

}  // namespace chunkforge::map
