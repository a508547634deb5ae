// The BaseGenerator that make_local_generator returns: the world built from the server's
// definition, and a pool of ChunkStreams the generating threads share. Private to
// chunkforge::client_local (tests include it to see the pool's size).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "chunkforge/client/local_generator.h"
#include "chunkforge/world.h"
#include "stream_pool.h"

namespace chunkforge::client {

class LocalGenerator final : public BaseGenerator {
 public:
  LocalGenerator(World world, const LocalGeneratorOptions& options);

  std::vector<uint32_t> generator_versions() const override;
  std::string fingerprint() const override { return world_.fingerprint(); }
  std::shared_ptr<const v1::Chunk> generate(ChunkCoord coord, const ChunkOptions& options,
                                            const std::atomic<bool>* abandon = nullptr) override;
  bool generates_tiles() const override { return true; }
  // Throws std::invalid_argument for a key that is no tile of the world (lod_key_error).
  std::shared_ptr<const v1::LodTile> generate_tile(const LodKey& key,
                                                   const std::atomic<bool>* abandon = nullptr) override;

  const World& world() const { return world_; }
  // ChunkStreams that exist now: at most LocalGeneratorOptions::max_streams.
  size_t streams() const { return pool_.streams(); }

 private:
  const World world_;
  StreamPool pool_;  // refers to world_: declared after it
};

// Every generator version this build can generate, oldest first.
std::vector<uint32_t> local_generator_versions();

// Throws std::invalid_argument, with the server's message, for a request the server of `world`
// would refuse.
void check_chunk_request(const World& world, ChunkCoord coord, const ChunkOptions& options);
// The chunk's message as GetChunk sends it: `options`' layers kept, encoded by `world`, its
// terrain grid from the land as `shown` (the world itself, or an epoch's blended land).
std::shared_ptr<const v1::Chunk> finish_chunk(const World& world, const World& shown, ChunkData data,
                                              const ChunkOptions& options);

}  // namespace chunkforge::client
