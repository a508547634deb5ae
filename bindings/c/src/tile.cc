// File: bindings/c/src/tile.cc
//
// The C ABI's LOD tiles: a session's tile as a handle, and its plain-data view (the terrain
// lattice borrowed from the message, structures and densities laid out once on first use).
#include "abi.h"
#include "chunkforge/v1/lod.pb.h"

namespace chunkforge::capi {

const cf_tile_view& TileData::view() {
  std::call_once(made_view, [this] {
    const v1::LodTile& m = tile.message();
    cf_tile_view& v = c_view;
    const cf::LodKey key = tile.key();
    v.level = key.level;
    v.chunk_size = tile.chunk_size();
    v.x = key.x;
    v.z = key.z;
    v.min_x = tile.min_x();
    v.min_z = tile.min_z();
    v.max_x = tile.max_x();
    v.max_z = tile.max_z();
    v.generator_version = tile.generator_version();
    v.samples = tile.samples();
    v.step = tile.step();
    v.structures_planned = tile.structures_planned() ? 1 : 0;
    if (v.samples > 0) {  // whole grids only, as LodTile::samples() vouches
      v.height = m.terrain().elevation().data();
      v.biome = m.terrain().biome().data();
      v.material = m.terrain().material().data();
    }
    for (const cf::Structure& s : tile.structures()) structures.push_back(structure_of(s));
    v.structures = structures.data();
    v.structure_count = structures.size();
    v.cells = tile.cells();
    layers = tile.layers();  // empty unless every layer holds cells^2 densities
    for (const v1::LodLayerDensity& d : m.resources()) {
      if (layers.empty()) break;
      expected.insert(expected.end(), d.expected_objects().begin(), d.expected_objects().end());
    }
    v.layer_count = static_cast<uint32_t>(layers.size());
    v.layers = layers.data();
    v.expected_objects = expected.data();
  });
  return c_view;
}

}  // namespace chunkforge::capi

using namespace chunkforge::capi;

extern "C" {

cf_status cf_tile_get_view(const cf_tile* tile, cf_tile_view* out) {
  return guarded([&]() -> cf_status {
    if (tile == nullptr) return null_argument("tile");
    if (out == nullptr) return null_argument("out");
    *out = tile->data->view();
    return CF_OK;
  });
}

void cf_tile_release(cf_tile* tile) { delete tile; }

}  // extern "C"
