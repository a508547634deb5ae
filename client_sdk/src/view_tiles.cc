// ViewSession's LOD tiles (view_session_impl.h, docs/sdk.md "LOD tiles"): the server decides
// which tiles the horizon holds and sends loads and unloads; the session keeps the tiles,
// reports them, and carries them across a reconnection. The new server knows nothing of them
// and sends its view's tiles again, so each tile held then goes stale and stays, shown, until
// the new stream's tiles cover the ground of it the view still needs: the horizon keeps no
// hole and no leftover. A session whose generator makes tiles gets the pristine ones as keys and
// makes them on its generation threads; unloads that come meanwhile wait until they are made.
// Unloads come one key per event or, as the session asks, many (`lod_unloads`): the same.
#include <utility>
#include <vector>

#include "chunkforge/chunk_hash.h"
#include "chunkforge/v1/lod.pb.h"
#include "chunkforge/world_extent.h"
#include "view_session_impl.h"

namespace chunkforge::client {
namespace {

constexpr uint32_t kMaxLevel = 24;  // the library's kLodMaxLevel

// Whether a key can be a tile of a world of `chunk_size` (docs/lod.md): a level up to 24 and
// the tile inside the supported world (|x|, |z| <= 2^40 units), so that its squares and bounds
// cannot overflow. A server sends no other; one that did would not have its tile shown.
bool plausible(const LodKey& key, uint32_t chunk_size) {
  if (key.level > kMaxLevel || chunk_size == 0) return false;
  const int64_t side = key.chunks() * int64_t{chunk_size};
  return key.x >= -kWorldUnits / side - 1 && key.x <= kWorldUnits / side && key.z >= -kWorldUnits / side - 1 &&
         key.z <= kWorldUnits / side;
}

// Whether a coordinate lies within the supported world's units: an origin or offset past it is
// none of a tile's, and the sums of such values cannot overflow.
bool within_world(int64_t v) { return v >= -kWorldUnits && v <= kWorldUnits; }

// The keys of a PristineTiles or TileKeys message (tile k at level levels[k], offsets[2k] and
// offsets[2k+1] from the tile of `origin` at that level), in order: those that can be tiles of a
// world of `chunk_size`; `refused` counts the others.
template <typename Offsets>
std::vector<LodKey> tile_keys(const v1::ChunkCoord& origin, const google::protobuf::RepeatedField<uint32_t>& levels,
                              const Offsets& offsets, uint32_t chunk_size, uint64_t& refused) {
  std::vector<LodKey> keys;
  const int64_t ox = origin.x(), oz = origin.z();
  if (!within_world(ox) || !within_world(oz)) {
    refused += static_cast<uint64_t>(levels.size());
    return keys;
  }
  for (int k = 0; k < levels.size() && 2 * k + 1 < offsets.size(); ++k) {
    const uint32_t level = levels[k];
    const int64_t dx = offsets[2 * k], dz = offsets[2 * k + 1];
    if (level > kMaxLevel || !within_world(dx) || !within_world(dz)) {
      ++refused;
      continue;
    }
    // >> floors (C++20: arithmetic on negative values); the sum cannot overflow (within_world).
    const LodKey key{level, (ox >> level) + dx, (oz >> level) + dz};
    if (!plausible(key, chunk_size)) {
      ++refused;
      continue;
    }
    keys.push_back(key);
  }
  return keys;
}

// The square of `radius` chunks around `centre`.
ChunkSquare square_around(ChunkCoord centre, int64_t radius) {
  return {centre.x - radius, centre.z - radius, centre.x + radius, centre.z + radius};
}

}  // namespace

void ViewSession::Impl::receive_tile(std::shared_ptr<const v1::LodTile> message, std::unique_lock<std::mutex>& lock,
                                     bool generated) {
  LodTile tile(std::move(message), world);
  const LodKey key = tile.key();
  if (generated) {
    ++stats.tiles_generated;
  } else {
    backoff.reset();  // the connection works
    stats.tile_bytes_received += tile.encoded_bytes();
  }
  if (!plausible(key, world.chunk_size()) || tile.chunk_size() != world.chunk_size()) {
    ++stats.tiles_refused;
    return;
  }
  if (!generated) {  // newer than a pristine copy asked for or an unload held back
    if (local) local->forget_tile(key);
    std::erase(deferred_tile_unloads, key);
  }
  fresh_tiles.add(key);
  stale_tiles.erase(key);
  std::vector<Action> actions;
  const auto held = tiles.find(key);
  if (held != tiles.end() && canonical_bytes(held->second.message()) == canonical_bytes(tile.message())) {
    ++stats.tile_duplicates_ignored;  // the game has these very bytes: nothing to redraw
  } else {
    if (held != tiles.end()) {
      ++stats.tiles_replaced;
      held_tile_bytes -= held->second.encoded_bytes();
      held->second = tile;
    } else {
      tiles.emplace(key, tile);
    }
    held_tile_bytes += tile.encoded_bytes();
    ++stats.tiles_loaded;
    actions.push_back([this, tile = std::move(tile)] {
      if (callbacks.on_tile) callbacks.on_tile(tile);
    });
  }
  release_stale_tiles(actions, &key);
  run_unlocked(std::move(actions), lock);
}

void ViewSession::Impl::receive_tile_unload(const v1::LodTileKey& message, std::unique_lock<std::mutex>& lock) {
  std::vector<Action> actions;
  take_tile_unload({message.level(), message.x(), message.z()}, actions);
  run_unlocked(std::move(actions), lock);
}

void ViewSession::Impl::receive_tile_unloads(const v1::TileKeys& keys, std::unique_lock<std::mutex>& lock) {
  std::vector<Action> actions;
  for (const LodKey& key :
       tile_keys(keys.origin(), keys.levels(), keys.offsets(), world.chunk_size(), stats.tiles_refused)) {
    take_tile_unload(key, actions);
  }
  run_unlocked(std::move(actions), lock);
}

void ViewSession::Impl::take_tile_unload(const LodKey& key, std::vector<Action>& actions) {
  if (local) local->forget_tile(key);
  if (local && local->tiles_pending() > 0 && deferred_tile_unloads.size() < kMaxDeferredTileUnloads) {
    deferred_tile_unloads.push_back(key);  // the tiles covering its ground may still be being made
    return;
  }
  for (const LodKey& deferred : std::exchange(deferred_tile_unloads, {})) unload_tile(deferred, actions);
  unload_tile(key, actions);
}

void ViewSession::Impl::unload_tile(const LodKey& key, std::vector<Action>& actions) {
  fresh_tiles.remove(key);
  stale_tiles.erase(key);
  const auto held = tiles.find(key);
  if (held == tiles.end()) return;  // not held: nothing to drop
  held_tile_bytes -= held->second.encoded_bytes();
  tiles.erase(held);
  ++stats.tiles_unloaded;
  actions.push_back([this, key] {
    if (callbacks.on_tile_unload) callbacks.on_tile_unload(key);
  });
}

void ViewSession::Impl::receive_pristine_tiles(const v1::PristineTiles& pristine) {
  if (!local) return;  // a server that ignored what it was not asked: nothing to make them with
  backoff.reset();     // the connection works
  for (const LodKey& key :
       tile_keys(pristine.origin(), pristine.levels(), pristine.offsets(), world.chunk_size(), stats.tiles_refused)) {
    std::erase(deferred_tile_unloads, key);  // loaded again: its earlier unload is void
    local->request_tile(key);
  }
}

void ViewSession::Impl::receive_generated_tiles(std::unique_lock<std::mutex>& lock) {
  if (!local) return;
  for (LocalLoads::TileDone& done : local->take_tiles()) {
    if (done.tile) {
      receive_tile(std::move(done.tile), lock, /*generated=*/true);
    } else if (!stopping) {
      ++stats.tiles_refused;  // the generator could not make a tile the server named
    }
  }
  if (!local || local->tiles_pending() > 0 || deferred_tile_unloads.empty()) return;
  std::vector<Action> actions;
  for (const LodKey& key : std::exchange(deferred_tile_unloads, {})) unload_tile(key, actions);
  run_unlocked(std::move(actions), lock);
}

void ViewSession::Impl::tiles_outlive_stream() {
  forget_local_tiles();
  fresh_tiles.clear();
  for (const auto& entry : tiles) stale_tiles.insert(entry.first);
}

void ViewSession::Impl::release_stale_tiles(std::vector<Action>& actions, const LodKey* arrived) {
  if (stale_tiles.empty()) return;
  // A tile that arrived covers only stale tiles it meets: the others need no second look.
  const ChunkSquare arrived_square = arrived ? square_of(*arrived) : ChunkSquare{};
  // What the horizon shows: the lod square less the chunk view (lod_radius 0: nothing).
  const ChunkSquare needed = applied_lod_radius == 0 ? ChunkSquare{} : square_around(centre, applied_lod_radius);
  const ChunkSquare excluded = square_around(centre, applied_radius);
  for (auto it = stale_tiles.begin(); it != stale_tiles.end();) {
    if ((arrived && !arrived_square.meets(square_of(*it))) || !fresh_tiles.covers(*it, needed, excluded)) {
      ++it;
      continue;
    }
    const LodKey key = *it;
    it = stale_tiles.erase(it);
    const auto held = tiles.find(key);
    held_tile_bytes -= held->second.encoded_bytes();
    tiles.erase(held);
    ++stats.tiles_unloaded;
    actions.push_back([this, key] {
      if (callbacks.on_tile_unload) callbacks.on_tile_unload(key);
    });
  }
}

void ViewSession::Impl::drop_tiles(std::vector<Action>& actions) {
  for (const auto& entry : tiles) {
    actions.push_back([this, key = entry.first] {
      if (callbacks.on_tile_unload) callbacks.on_tile_unload(key);
    });
  }
  stats.tiles_unloaded += tiles.size();
  tiles.clear();
  held_tile_bytes = 0;
  stale_tiles.clear();
  fresh_tiles.clear();
  forget_local_tiles();
}

void ViewSession::Impl::forget_local_tiles() {
  deferred_tile_unloads.clear();  // the stream that sent them is over, or the world another
  if (local) local->forget_tiles();
}

void ViewSession::set_lod_radius(uint32_t lod_radius) {
  std::lock_guard lock(impl_->mutex);
  impl_->lod_radius = lod_radius;
  if (lod_radius != impl_->applied_lod_radius) {
    impl_->view_dirty = true;
    impl_->wake.notify_all();
  }
}

void ViewSession::set_lod_finest_level(uint32_t level) {
  std::lock_guard lock(impl_->mutex);
  impl_->lod_finest = level;
  if (level != impl_->applied_lod_finest) {
    impl_->view_dirty = true;
    impl_->wake.notify_all();
  }
}

std::vector<LodKey> ViewSession::tiles() const {
  std::lock_guard lock(impl_->mutex);
  std::vector<LodKey> out;
  out.reserve(impl_->tiles.size());
  for (const auto& entry : impl_->tiles) out.push_back(entry.first);
  return out;
}

}  // namespace chunkforge::client
