// LOD tiles for sessions (docs/lod.md, "Sessions"): fetched from the chunk cache under keys of
// their own, or made on any generation worker from the terrain's pure functions and the
// structure planner (lod_tile_bytes), never from generated chunks.
#include <spdlog/spdlog.h>

#include <string>

#include "chunkforge/chunk.h"
#include "rpc/world_service.h"

namespace chunkforge::server {
namespace {

// Cannot collide with a chunk's key, which starts with a digit or '-'.
std::string tile_cache_key(const LodKey& key) {
  return "lod:" + std::to_string(key.level) + "/" + std::to_string(key.x) + "," + std::to_string(key.z);
}

}  // namespace

// After every view's chunks and the look-ahead's nearest rings; finer levels first (a level's
// tiles are asked for nearest first by each session).
double WorldService::tile_priority(const LodKey& key) const {
  return limits_.max_radius + 1.0 + key.level;
}

WorldService::Fetched WorldService::fetch_tile(const LodKey& key, std::function<bool()> cancelled,
                                               std::function<void(Bytes)> on_ready) {
  std::string cache_key = tile_cache_key(key);
  Production production{Work::prefetch, tile_priority(key), std::nullopt,
                        [this, cache_key, key] { make_tile(cache_key, key); }};
  return fetch_key(cache_key, std::move(production), std::move(cancelled), std::move(on_ready));
}

void WorldService::make_tile(const std::string& cache_key, const LodKey& key) {
  if (!cache_.start(cache_key)) return;
  Bytes bytes;
  try {
    bytes = std::make_shared<const std::string>(lod_tile_bytes(world_, key, queue_.stopping()));
  } catch (const GenerationAbandoned&) {  // the server is stopping
    return cache_.abandon(cache_key);
  } catch (const std::exception& e) {  // e.g. out of memory: fail this tile, not the server
    spdlog::error("making LOD tile {} ({}, {}) failed: {}", key.level, key.x, key.z, e.what());
    return cache_.abandon(cache_key);
  }
  metrics_.tile_made();
  cache_.fulfil(cache_key, std::move(bytes));
}

}  // namespace chunkforge::server
