// ChunkSource's LOD tiles (docs/lod.md, "Sessions"): fetched from the chunk cache under keys of
// their own, or made on any generation worker from the terrain's pure functions and the
// structure planner (lod_tile), never from generated chunks. A tile that lists structures leaves
// out those edits removed: it is keyed by the count of structure-changing commits, so that a
// commit makes such tiles anew, and each structure is checked against its origin chunk's
// current state when that chunk was edited.
#include <map>
#include <set>
#include <string>

#include "chunkforge/chunk.h"
#include "chunkforge/chunk_hash.h"
#include "chunkforge/coord.h"
#include "chunkforge/encode.h"
#include "edits/chunk_log.h"
#include "edits/edit_service.h"
#include "generation/chunk_source.h"
#include "generation/generation_queue.h"

namespace chunkforge::server {

// Cannot collide with a chunk's key, which starts with a digit or '-'.
std::string ChunkSource::tile_cache_key(const LodKey& key) const {
  std::string out = "lod:" + std::to_string(key.level) + "/" + std::to_string(key.x) + "," + std::to_string(key.z);
  if (key.level <= kLodStructureMaxLevel && edits_ != nullptr) out += "@" + std::to_string(structure_epoch_->load());
  return out;
}

bool ChunkSource::tile_pristine(const LodKey& key) const {
  if (key.level > kLodStructureMaxLevel || edits_ == nullptr) return true;
  const ChunkCoord lo{key.x * key.chunks(), key.z * key.chunks()};
  const ChunkCoord hi{lo.x + key.chunks() - 1, lo.z + key.chunks() - 1};
  return edits_->edited_in(lo, hi, 1).empty();
}

// After every view's chunks and the look-ahead's nearest rings; finer levels first (a level's
// tiles are asked for nearest first by each session). An edited origin chunk while the store is
// down fails the tile's making (StoreUnavailable): it is asked for again later.
ChunkSource::Fetched ChunkSource::fetch_tile(const LodKey& key, std::function<bool()> cancelled,
                                             std::function<void(Bytes)> on_ready, uint64_t client) {
  Making making{Work::prefetch,
                view_rings_ + 1.0 + key.level,
                std::nullopt,
                [this, key] { return make_tile(key); },
                client,
                LogKind::kLodTileFailed,
                "making LOD tile " + std::to_string(key.level) + " (" + std::to_string(key.x) + ", " +
                    std::to_string(key.z) + ")"};
  return join_or_queue(tile_cache_key(key), std::move(making), std::move(cancelled), std::move(on_ready));
}

Bytes ChunkSource::make_tile(const LodKey& key) {
  v1::LodTile tile = lod_tile(world_, key, queue_.stopping());
  if (tile.structures_planned() && edits_ != nullptr) drop_removed_structures(tile);
  Bytes bytes = std::make_shared<const std::string>(canonical_bytes(tile));
  if (observers_.tile_made) observers_.tile_made();
  return bytes;
}

// A removal takes a structure out of every chunk it touches in one commit, so its origin's chunk
// (the box's lowest corner lies in it) tells. Only edited chunks are read: most tiles read none.
void ChunkSource::drop_removed_structures(v1::LodTile& tile) {
  const int64_t size = world_.chunk_size();
  std::map<std::pair<int64_t, int64_t>, std::set<uint64_t>> present;  // an edited origin chunk's structures now
  google::protobuf::RepeatedPtrField<v1::StructureInstance> kept;
  for (v1::StructureInstance& s : *tile.mutable_structures()) {
    const ChunkCoord origin{floor_div(s.x(), size), floor_div(s.z(), size)};
    if (edits_->version(origin) == 0) {
      *kept.Add() = std::move(s);
      continue;
    }
    auto [it, fresh] = present.try_emplace({origin.x, origin.z});
    if (fresh) {
      v1::Chunk chunk;
      chunk.ParseFromString(*make_here(job(origin, {})));
      for (const v1::StructureInstance& there : chunk.structures()) it->second.insert(there.id());
    }
    if (it->second.count(s.id()) > 0) *kept.Add() = std::move(s);
  }
  tile.mutable_structures()->Swap(&kept);
}

// The edit service calls its listeners in the order they came, this one first (from the
// constructor): by the time a session hears of a change, new requests for its tiles miss.
void ChunkSource::listen_for_structure_changes() {
  edits_->listen(structure_epoch_, [weak = std::weak_ptr(structure_epoch_)](const ChangeList& changes) {
    const std::shared_ptr<std::atomic<uint64_t>> epoch = weak.lock();
    if (!epoch) return;
    for (const auto& c : changes) {
      if (changes_structures(c->change)) {
        epoch->fetch_add(1);
        return;
      }
    }
  });
}

}  // namespace chunkforge::server
