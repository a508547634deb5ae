// render_tile: picks the layer's drawing, or an empty tile below the layer's first zoom.
#include "tile_renderer.h"

namespace chunkforge::map {

TileImage render_tile(const World& world, const TileKey& key, const std::atomic<bool>* abandon, TileChunks* chunks,
                      const Epochs* epochs) {
  const LayerInfo& info = layer_info(key.layer);
  if (key.z < info.min_zoom) return TileImage(!info.overlay);
  switch (key.layer) {
    case Layer::kMaterials:
      return draw_materials(world, key, abandon, epochs);
    case Layer::kBiomes:
      return draw_biomes(world, key, abandon, epochs);
    case Layer::kElevation:
      return draw_elevation(world, key, abandon, epochs);
    case Layer::kStructures:
      return draw_structures(world, key, abandon);
    case Layer::kObjects:
      return draw_objects(world, key, abandon, chunks);
    case Layer::kGrid:
      return draw_grid(world, key);
    case Layer::kDensity:
      return draw_density(world, key, abandon);
    case Layer::kEpochs:
      return draw_epochs(world, key, abandon, epochs);
    case Layer::kCount:
      break;
  }
  return TileImage(!info.overlay);  // not reached: parse_tile_path only makes real layers
}

}  // namespace chunkforge::map
