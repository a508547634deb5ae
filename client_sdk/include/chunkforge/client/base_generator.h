// File: chunkforge/client/base_generator.h
//
// What a client that generates the world itself plugs into the SDK (docs/client-generation.md):
// something that makes a pristine chunk (edit version 0) exactly as the server would, byte for
// byte. The plain SDK never links the generation library; chunkforge::client_local does, and
// its make_local_generator (chunkforge/client/local_generator.h) returns one of these.
//
//   std::shared_ptr<BaseGenerator> generator = make_local_generator(client).value();
//   ViewOptions options;
//   options.generator = generator;  // the session then gets only what players changed
//
// Thread safety: generate() and generate_tile() are called from several threads at once.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "chunkforge/client/chunk.h"
#include "chunkforge/client/lod_tile.h"
#include "chunkforge/client/status.h"

namespace chunkforge::v1 {
class Chunk;
class LodTile;
}  // namespace chunkforge::v1

namespace chunkforge::client {

class BaseGenerator {
 public:
  virtual ~BaseGenerator() = default;
  // Every generator version this library can generate (WorldInfo::generator_version).
  virtual std::vector<uint32_t> generator_versions() const = 0;
  // The fingerprint of the world it generates, as WorldInfo::fingerprint spells it.
  virtual std::string fingerprint() const = 0;
  // The pristine chunk at `coord` with `options`, the message GetChunk would answer with for a
  // chunk nobody edited. Null if `abandon` was raised before it was done.
  virtual std::shared_ptr<const v1::Chunk> generate(ChunkCoord coord, const ChunkOptions& options,
                                                    const std::atomic<bool>* abandon = nullptr) = 0;

  // A world that changed after launch (docs/client-generation.md, "Worlds that changed"): the
  // fingerprints of its older epochs this generator also makes (WorldInfo.older_epochs), oldest
  // first. Empty (the default): it makes the newest world only, and the server sends the chunks
  // of older land and seams whole.
  virtual std::vector<std::string> older_epochs() const { return {}; }
  // Older land the server sent (SessionEvent.older_land, ChunkEdits.older_land), kept for the
  // chunks made after: called before the chunks it came with are made. An error, keeping
  // nothing, for bytes it cannot read; a generator without older epochs ignores it.
  virtual Status add_older_land(std::string_view bytes) {
    (void)bytes;
    return {};
  }

  // LOD tiles (docs/lod.md). A generator that makes them says so, and a ViewSession with a LOD
  // radius then gets the tiles no edit changed as keys and makes them here; one that does not
  // gets every tile's bytes from the server.
  virtual bool generates_tiles() const { return false; }
  // The tile at `key`, the message the server sends for a tile no edit changed (the library's
  // lod_tile). Null if `abandon` was raised before it was done, or if generates_tiles() is false;
  // the local generator throws std::invalid_argument for a key that is no tile of its world.
  virtual std::shared_ptr<const v1::LodTile> generate_tile(const LodKey& key,
                                                           const std::atomic<bool>* abandon = nullptr) {
    (void)key, (void)abandon;
    return nullptr;
  }
};

}  // namespace chunkforge::client
