#include "chunkforge/chunk.h"
#include "chunkforge/world.h"
#include "scatter_field.h"

namespace chunkforge {

ChunkData Generator::generate(ChunkCoord coord) const {
  ChunkData chunk;
  chunk.coord = coord;
  ScatterField field(world_.resources(), world_.terrain(), world_.seed());
  chunk.objects = field.objects_in_chunk(coord);
  return chunk;
}

}  // namespace chunkforge
