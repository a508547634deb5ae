#include "chunkforge/chunk.h"
#include "chunkforge/world.h"
#include "scatter_field.h"

namespace chunkforge {
namespace {

// The pipeline of one chunk, given the memo to use.
ChunkData generate_with(ScatterField& field, ChunkCoord coord) {
  ChunkData chunk;
  chunk.coord = coord;
  chunk.objects = field.objects_in_chunk(coord);
  return chunk;
}

}  // namespace

ChunkData Generator::generate(ChunkCoord coord) const {
  ScatterField field(world_.resources(), world_.terrain(), world_.seed());
  return generate_with(field, coord);
}

ChunkStream::ChunkStream(const World& world, size_t max_cells) : world_(world), max_cells_(max_cells) {}
ChunkStream::~ChunkStream() = default;

ChunkData ChunkStream::generate(ChunkCoord coord) {
  if (!field_ || field_->cells_materialized() > max_cells_) {
    field_ = std::make_unique<ScatterField>(world_.resources(), world_.terrain(), world_.seed());
  }
  return generate_with(*field_, coord);
}

}  // namespace chunkforge
