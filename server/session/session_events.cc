// The SessionEvents a session writes, encoded (session_events.h).
#include "session/session_events.h"

#include <cstdint>
#include <utility>

#include "chunkforge/coord.h"
#include "chunkforge/v1/service.pb.h"

namespace chunkforge::server {
namespace {

std::string varint(uint64_t v) {
  std::string out;
  for (; v >= 0x80; v >>= 7) out += static_cast<char>((v & 0x7f) | 0x80);
  out += static_cast<char>(v);
  return out;
}

}  // namespace

// Field 1 (load), length-delimited.
std::string load_event(const std::string& chunk) { return "\x0a" + varint(chunk.size()) + chunk; }

// Field 4 (loads), length-delimited.
std::string loads_event(const std::string& chunks) { return "\x22" + varint(chunks.size()) + chunks; }

std::string unload_event(ChunkCoord k) {
  v1::SessionEvent e;
  e.mutable_unload()->set_x(k.x);
  e.mutable_unload()->set_z(k.z);
  return e.SerializeAsString();
}

std::string unloads_event(const std::vector<ChunkCoord>& chunks) {
  v1::SessionEvent e;
  v1::ChunkKeys& keys = *e.mutable_unloads();
  const ChunkCoord origin = chunks.front();
  keys.mutable_origin()->set_x(origin.x);
  keys.mutable_origin()->set_z(origin.z);
  keys.mutable_offsets()->Reserve(static_cast<int>(2 * chunks.size()));
  for (const ChunkCoord& k : chunks) {
    keys.add_offsets(k.x - origin.x);
    keys.add_offsets(k.z - origin.z);
  }
  return e.SerializeAsString();
}

// Field 8 (lod_tile), length-delimited.
std::string tile_event(const std::string& tile) { return "\x42" + varint(tile.size()) + tile; }

std::string tile_unload_event(const LodKey& key) {
  v1::SessionEvent e;
  e.mutable_lod_unload()->set_level(static_cast<uint32_t>(key.level));
  e.mutable_lod_unload()->set_x(key.x);
  e.mutable_lod_unload()->set_z(key.z);
  return e.SerializeAsString();
}

namespace {

// The key's offsets from the tile of `origin` at the key's level.
std::pair<int64_t, int64_t> tile_offsets(ChunkCoord origin, const LodKey& key) {
  return {key.x - floor_div(origin.x, key.chunks()), key.z - floor_div(origin.z, key.chunks())};
}

}  // namespace

bool tile_offsets_fit(ChunkCoord origin, const LodKey& key) {
  const auto fits = [](int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; };
  const auto [dx, dz] = tile_offsets(origin, key);
  return fits(dx) && fits(dz);
}

std::string pristine_tiles_event(ChunkCoord origin, const std::vector<LodKey>& keys) {
  v1::SessionEvent e;
  v1::PristineTiles& tiles = *e.mutable_lod_pristine();
  tiles.mutable_origin()->set_x(origin.x);
  tiles.mutable_origin()->set_z(origin.z);
  for (const LodKey& key : keys) {
    const auto [dx, dz] = tile_offsets(origin, key);
    tiles.add_levels(static_cast<uint32_t>(key.level));
    tiles.add_offsets(static_cast<int32_t>(dx));
    tiles.add_offsets(static_cast<int32_t>(dz));
  }
  return e.SerializeAsString();
}

std::string tile_unloads_event(const std::vector<LodKey>& keys) {
  v1::SessionEvent e;
  v1::TileKeys& tiles = *e.mutable_lod_unloads();
  const ChunkCoord origin{keys.front().x * keys.front().chunks(), keys.front().z * keys.front().chunks()};
  tiles.mutable_origin()->set_x(origin.x);
  tiles.mutable_origin()->set_z(origin.z);
  for (const LodKey& key : keys) {
    const auto [dx, dz] = tile_offsets(origin, key);
    tiles.add_levels(static_cast<uint32_t>(key.level));
    tiles.add_offsets(dx);
    tiles.add_offsets(dz);
  }
  return e.SerializeAsString();
}

std::string reconnect_event(const std::string& reason) {
  v1::SessionEvent e;
  e.mutable_reconnect()->set_reason(reason);
  return e.SerializeAsString();
}

std::string local_answer_event(bool accepted, const std::string& reason) {
  v1::SessionEvent event;
  event.mutable_local_generation()->set_accepted(accepted);
  event.mutable_local_generation()->set_reason(reason);
  return event.SerializeAsString();
}

std::string pristine_event(ChunkCoord origin, const std::vector<ChunkCoord>& chunks, const std::string& older_land) {
  v1::SessionEvent event;
  if (!older_land.empty()) event.set_older_land(older_land);
  v1::PristineChunks& pristine = *event.mutable_pristine();
  pristine.mutable_origin()->set_x(origin.x);
  pristine.mutable_origin()->set_z(origin.z);
  pristine.mutable_offsets()->Reserve(static_cast<int>(2 * chunks.size()));
  for (const ChunkCoord& k : chunks) {
    pristine.add_offsets(static_cast<int32_t>(k.x - origin.x));
    pristine.add_offsets(static_cast<int32_t>(k.z - origin.z));
  }
  return event.SerializeAsString();
}

}  // namespace chunkforge::server
