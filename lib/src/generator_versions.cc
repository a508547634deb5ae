// The table of generator versions and their pipeline: structures planned first (resources keep
// out of their footprints), then the resource layers scattered around them, by the scatter rules
// of the version (scatter/field.h, ScatterRules).
#include "generator_versions.h"

#include <array>
#include <stdexcept>
#include <string>

#include "chunkforge/structures.h"
#include "chunkforge/world.h"
#include "chunkforge/world_fingerprint.h"
#include "scatter/field.h"

namespace chunkforge {
namespace {

class PlannedScatterPipeline final : public ChunkPipeline {
 public:
  PlannedScatterPipeline(const World& world, size_t max_cells, ScatterRules rules)
      : world_(world), max_cells_(max_cells), rules_(rules) {}

  ChunkData generate(ChunkCoord coord, const std::atomic<bool>* abandon) override {
    if (!field_ || field_->cells_materialized() > max_cells_ || planner_->cells_planned() > max_cells_ / 16) {
      start_afresh();
    }
    planner_->watch_abandon(abandon);
    field_->watch_abandon(abandon);
    try {
      ChunkData chunk;
      chunk.coord = coord;
      chunk.structures = planner_->in_chunk(coord);
      chunk.objects = field_->objects_in_chunk(coord);
      return chunk;
    } catch (const GenerationAbandoned&) {
      // Cut off mid-decision, the memos may hold half-built entries: the next call starts
      // afresh, so later chunks are exactly what they would have been.
      field_.reset();
      planner_.reset();
      throw;
    }
  }

 private:
  void start_afresh() {
    auto planner = std::make_unique<StructurePlanner>(world_);
    if (field_) {
      field_->forget(planner.get());  // its memory stays for the new memo
    } else {
      field_ =
          std::make_unique<ScatterField>(world_.resources(), world_.terrain(), world_.seed(), planner.get(), rules_);
    }
    planner_ = std::move(planner);  // the old planner goes once the field no longer refers to it
  }

  const World& world_;
  size_t max_cells_;
  ScatterRules rules_;
  // Order matters: the field refers to the planner, so the planner is destroyed last.
  std::unique_ptr<StructurePlanner> planner_;
  std::unique_ptr<ScatterField> field_;
};

// Version 1: every layer sampled over the whole plane, thresholds and filters applied after.
std::unique_ptr<ChunkPipeline> open_v1(const World& world, size_t max_cells) {
  return std::make_unique<PlannedScatterPipeline>(world, max_cells, ScatterRules{});
}

// Version 2: each layer sampled apart, only where its density reaches its threshold; other
// layers' objects remove points instead of blocking them.
std::unique_ptr<ChunkPipeline> open_v2(const World& world, size_t max_cells) {
  return std::make_unique<PlannedScatterPipeline>(
      world, max_cells, ScatterRules{.threshold_gates_sampling = true, .layers_sampled_apart = true});
}

// Version 3: version 2, and a candidate keeps its own spacing from the earlier points of its
// layer rather than the larger of the two spacings (ScatterRules::own_spacing).
std::unique_ptr<ChunkPipeline> open_v3(const World& world, size_t max_cells) {
  return std::make_unique<PlannedScatterPipeline>(
      world, max_cells,
      ScatterRules{.threshold_gates_sampling = true, .layers_sampled_apart = true, .own_spacing = true});
}

constexpr std::array kVersions{
    GeneratorVersion{1, kFingerprintForm1, false, &open_v1},
    GeneratorVersion{2, kFingerprintForm1, false, &open_v2},
    GeneratorVersion{3, kFingerprintForm1, true, &open_v3},
};

constexpr bool numbered_without_gaps() {
  for (size_t i = 0; i < kVersions.size(); ++i) {
    if (kVersions[i].number != kOldestGeneratorVersion + i) return false;
  }
  return kVersions.back().number == kGeneratorVersion;
}
static_assert(numbered_without_gaps(), "one row per version, kOldestGeneratorVersion to kGeneratorVersion");

}  // namespace

std::span<const GeneratorVersion> generator_versions() { return kVersions; }

const GeneratorVersion& generator_version(uint32_t number) {
  if (number < kOldestGeneratorVersion || number > kGeneratorVersion) {
    throw std::out_of_range("generator version " + std::to_string(number) + " is not in this build");
  }
  return kVersions[number - kOldestGeneratorVersion];
}

}  // namespace chunkforge
