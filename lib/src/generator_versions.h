// Generator versions: every algorithm that decides a chunk's bytes, selected per world by its
// generator_version. A world pinned to version N gets version N's pipeline and fingerprint form
// from this table in every later release; a new version is a new row, never an edit of an old
// one (docs/determinism.md, "Golden tests and the generator version"; docs/extending.md).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "chunkforge/chunk.h"

namespace chunkforge {

// One chunk after another over memos the pipeline keeps (as ChunkStream promises: the same
// bytes in any order). Not thread-safe.
class ChunkPipeline {
 public:
  virtual ~ChunkPipeline() = default;
  // Throws GenerationAbandoned once `abandon` reads true; the pipeline stays usable.
  virtual ChunkData generate(ChunkCoord coord, const std::atomic<bool>* abandon) = 0;
};

struct GeneratorVersion {
  uint32_t number;
  int fingerprint_form;  // chunkforge/world_fingerprint.h
  // The spacing a blue_noise layer promises between two of its objects: the smaller of their
  // spacings (version 3 on: each point keeps its own from the earlier ones), else the larger.
  bool own_spacing;
  // A pipeline whose memos start afresh once they hold more than `max_cells` scatter cells.
  std::unique_ptr<ChunkPipeline> (*open_pipeline)(const World& world, size_t max_cells);
};

// Every version this build has, oldest first: kOldestGeneratorVersion to kGeneratorVersion,
// none missing.
std::span<const GeneratorVersion> generator_versions();

// The row of a resolved version; throws std::out_of_range for one this build lacks (validation
// refuses such worlds, so a World never reaches this with one).
const GeneratorVersion& generator_version(uint32_t number);

}  // namespace chunkforge
