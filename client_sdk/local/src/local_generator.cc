// LocalGenerator::generate: a pristine chunk as GetChunk serves it. The chunk comes from a
// borrowed ChunkStream; the options are then applied as the server applies them
// (server/rpc/world_service.cc, WorldService::generate), through the library's own encoder.
// generate_tile: a LOD tile as the library makes it (lod_tile), as the server does for a tile no
// edit changed.
#include "local_generator_impl.h"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "chunkforge/encode.h"
#include "chunkforge/lod.h"
#include "chunkforge/world_extent.h"
#include "generator_versions.h"

namespace chunkforge::client {

std::vector<uint32_t> local_generator_versions() {
  std::vector<uint32_t> versions;
  for (const GeneratorVersion& version : chunkforge::generator_versions()) versions.push_back(version.number);
  return versions;
}

LocalGenerator::LocalGenerator(World world, const LocalGeneratorOptions& options)
    : world_(std::move(world)), pool_(world_, options.max_streams, options.memo_cells) {}

std::vector<uint32_t> LocalGenerator::generator_versions() const { return local_generator_versions(); }

void check_chunk_request(const World& world, ChunkCoord coord, const ChunkOptions& options) {
  const auto chunk_size = static_cast<uint32_t>(world.chunk_size());
  const int64_t limit = chunk_limit(chunk_size);
  for (const auto& [name, value] : {std::pair{"coord.x", coord.x}, std::pair{"coord.z", coord.z}}) {
    if (value < -limit || value > limit) {
      throw std::invalid_argument(std::string(name) + ": must be in [" + std::to_string(-limit) + ", " +
                                  std::to_string(limit) + "] (the supported world, 2^40 units) (got " +
                                  std::to_string(value) + ")");
    }
  }
  const uint32_t step = options.terrain_step == 0 ? 1 : options.terrain_step;
  if (options.include_terrain && (step > chunk_size || chunk_size % step != 0)) {
    throw std::invalid_argument("options.terrain_step: must divide the chunk size " + std::to_string(chunk_size) +
                                " (got " + std::to_string(step) + ")");
  }
  for (uint32_t id : options.layers) {
    if (id >= world.resources().size()) {
      throw std::invalid_argument("options.layers: layer ids are in [0, " + std::to_string(world.resources().size()) +
                                  ") (got " + std::to_string(id) + ")");
    }
  }
}

std::shared_ptr<const v1::Chunk> LocalGenerator::generate(ChunkCoord coord, const ChunkOptions& options,
                                                          const std::atomic<bool>* abandon) {
  check_chunk_request(world_, coord, options);
  const chunkforge::ChunkCoord at{coord.x, coord.z};
  std::optional<StreamPool::Lease> lease = pool_.acquire(at, abandon);
  if (!lease) return nullptr;
  ChunkData data;
  try {
    data = lease->stream().generate(at, abandon);
  } catch (const GenerationAbandoned&) {
    return nullptr;  // the stream dropped its memo itself and stays usable
  } catch (...) {
    lease->discard();  // e.g. out of memory midway: its memo may be half built
    throw;
  }
  lease.reset();  // encoding needs no memo: another thread may have the stream now
  return finish_chunk(world_, world_, std::move(data), options);
}

std::shared_ptr<const v1::Chunk> finish_chunk(const World& world, const World& shown, ChunkData data,
                                              const ChunkOptions& options) {
  if (!options.layers.empty()) {
    const auto& keep = options.layers;
    std::erase_if(data.objects,
                  [&](const ResourceObject& o) { return std::find(keep.begin(), keep.end(), o.layer) == keep.end(); });
  }
  auto chunk = std::make_shared<v1::Chunk>(encode_chunk(world, data));
  if (options.include_terrain) add_terrain(shown, options.terrain_step == 0 ? 1 : options.terrain_step, *chunk);
  return chunk;
}

std::shared_ptr<const v1::LodTile> LocalGenerator::generate_tile(const LodKey& key, const std::atomic<bool>* abandon) {
  try {
    return std::make_shared<const v1::LodTile>(lod_tile(world_, {static_cast<int>(key.level), key.x, key.z}, abandon));
  } catch (const GenerationAbandoned&) {
    return nullptr;
  }
}

}  // namespace chunkforge::client
