// Generator and ChunkStream: the pipeline of one chunk over fresh or shared memos.
#include "chunkforge/chunk.h"
#include "chunkforge/float_environment.h"
#include "chunkforge/structures.h"
#include "chunkforge/world.h"
#include "scatter/field.h"

namespace chunkforge {
namespace {

// The pipeline of one chunk, given the memos to use: structures first (resources keep out of
// their footprints), then the resource layers. Both memos poll `abandon`.
ChunkData generate_with(StructurePlanner& planner, ScatterField& field, ChunkCoord coord,
                        const std::atomic<bool>* abandon) {
  planner.watch_abandon(abandon);
  field.watch_abandon(abandon);
  ChunkData chunk;
  chunk.coord = coord;
  chunk.structures = planner.in_chunk(coord);
  chunk.objects = field.objects_in_chunk(coord);
  return chunk;
}

}  // namespace

ChunkData Generator::generate(ChunkCoord coord, const std::atomic<bool>* abandon) const {
  // Every entry point sets the floating-point environment generation needs on the calling
  // thread, and gives the caller's back on return (chunkforge/float_environment.h).
  const FloatEnvironmentGuard fp_guard;
  StructurePlanner planner(world_);
  ScatterField field(world_.resources(), world_.terrain(), world_.seed(), &planner);
  return generate_with(planner, field, coord, abandon);
}

ChunkStream::ChunkStream(const World& world, size_t max_cells) : world_(world), max_cells_(max_cells) {}
ChunkStream::~ChunkStream() = default;

ChunkData ChunkStream::generate(ChunkCoord coord, const std::atomic<bool>* abandon) {
  const FloatEnvironmentGuard fp_guard;
  if (!field_ || field_->cells_materialized() > max_cells_ || planner_->cells_planned() > max_cells_ / 16) {
    field_.reset();
    planner_ = std::make_unique<StructurePlanner>(world_);
    field_ = std::make_unique<ScatterField>(world_.resources(), world_.terrain(), world_.seed(), planner_.get());
  }
  try {
    return generate_with(*planner_, *field_, coord, abandon);
  } catch (const GenerationAbandoned&) {
    // Cut off mid-decision, the memos may hold half-built entries: the next call starts afresh
    // (the field first: it refers to the planner).
    field_.reset();
    planner_.reset();
    throw;
  }
}

}  // namespace chunkforge
