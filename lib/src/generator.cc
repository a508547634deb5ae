// Generator and ChunkStream: one chunk through the pipeline of the world's generator version,
// over fresh memos (Generator) or memos kept between calls (ChunkStream).
#include <limits>

#include "chunkforge/chunk.h"
#include "chunkforge/float_environment.h"
#include "chunkforge/world.h"
#include "generator_versions.h"

namespace chunkforge {

ChunkData Generator::generate(ChunkCoord coord, const std::atomic<bool>* abandon) const {
  // Every entry point sets the floating-point environment generation needs on the calling
  // thread, and gives the caller's back on return (chunkforge/float_environment.h).
  const FloatEnvironmentGuard fp_guard;
  const GeneratorVersion& version = generator_version(world_.generator_version());
  // One chunk's memos never reach a bound worth enforcing: they are dropped on return.
  return version.open_pipeline(world_, std::numeric_limits<size_t>::max())->generate(coord, abandon);
}

ChunkStream::ChunkStream(const World& world, size_t max_cells)
    : pipeline_(generator_version(world.generator_version()).open_pipeline(world, max_cells)) {}
ChunkStream::~ChunkStream() = default;

ChunkData ChunkStream::generate(ChunkCoord coord, const std::atomic<bool>* abandon) {
  const FloatEnvironmentGuard fp_guard;
  return pipeline_->generate(coord, abandon);
}

}  // namespace chunkforge
