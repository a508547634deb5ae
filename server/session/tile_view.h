// File: server/session/tile_view.h
//
// One session's LOD tiles (docs/lod.md, "Sessions"): which tiles the player's view wants (the
// rings of lod_view around its chunk, less those wholly inside its chunk view), which are being
// made, ready to write, held by the client or owed as unloads. No gRPC and no generation here:
// the session reactor asks it what to make and what to write next.
//
//   TileView tiles(chunk_size, /*window=*/4);
//   tiles.move(x, z, view_radius, lod_radius, finest_level);
//   while (auto request = tiles.next_request()) make(*request);  // later: tiles.made(key, bytes)
//   if (auto event = tiles.next_event()) write(*event);          // loads first, then unloads
//
// Bounds: at most `window` tiles being made or ready (so the bytes a session holds are a few
// tiles'), unloads held back while loads are owed at most 512 (past it they go first), and the
// view itself at most a few hundred tiles (lod_view: some 60 a level). The view is recomputed
// only when the player's chunk, a radius or the finest level changes.
// Thread safety: none; the reactor calls it under its mutex.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "chunkforge/lod.h"
#include "generation/bytes.h"

namespace chunkforge::server {

class TileView {
 public:
  // A tile to make: its key, its place in the view's order (a priority: smaller first) and the
  // flag raised once the view no longer wants it.
  struct Request {
    LodKey key;
    size_t order = 0;
    std::shared_ptr<std::atomic<bool>> unwanted;
  };
  // What to write next: a tile's bytes (load or replace), or the unload of a key (bytes null).
  struct Event {
    LodKey key;
    Bytes bytes;
  };

  TileView(int64_t chunk_size, size_t window);

  // The player's position (world units), radii (chunks) and the finest tile level wanted (0: the
  // world's finest). A lod_radius of 0 wants no tile.
  void move(double x, double z, uint32_t view_radius, uint32_t lod_radius, uint32_t finest_level = 0);

  // The next wanted tile that is neither held, being made nor ready, in the view's order;
  // nullopt when there is none or `window` tiles are being made or ready.
  std::optional<Request> next_request();
  // A requested tile was made (bytes) or dropped (null: it will be asked for again, if still
  // wanted, by a later next_request). True when a tile the view wants was dropped (the queue
  // refused it, or making it failed): the caller should pause before asking again.
  bool made(const LodKey& key, Bytes bytes);

  // A ready tile (the first in the view's order), else an owed unload once no load is owed (the
  // client has every tile of its view, so dropping the old ones leaves no hole) or when too
  // many are owed. The event is taken as written.
  std::optional<Event> next_event();
  // The owed unload next_event would give now, if it would give one, taken as written. What a
  // batch of unloads is filled with: it takes exactly the unloads that one event each would
  // have sent before the next load.
  std::optional<LodKey> next_unload();

  // A committed change may have added or removed structures of chunk (x, z): the view's tiles
  // that show its structures (levels up to kLodStructureMaxLevel) are made and sent again,
  // replacing the client's copies; one being made now is made again once it arrives.
  void refresh_structures(int64_t chunk_x, int64_t chunk_z);

  // Tiles held by the client that the view no longer wants.
  size_t owed_unloads() const { return owed_unloads_.size(); }
  // Nothing to make, write or unload.
  bool settled() const;
  // The view's tiles, in order (tests, metrics).
  const std::vector<LodKey>& wanted() const { return order_; }

 private:
  void recompute(double x, double z);
  bool wanted(const LodKey& key) const { return wanted_.count(key) > 0; }
  size_t order_of(const LodKey& key) const { return wanted_.at(key); }

  int64_t chunk_size_;
  size_t window_;
  int64_t chunk_x_ = 0, chunk_z_ = 0;
  uint32_t view_radius_ = 0, lod_radius_ = 0, finest_level_ = 0;
  bool placed_ = false;

  std::vector<LodKey> order_;        // the wanted tiles, finer levels first, nearest first
  std::map<LodKey, size_t> wanted_;  // key -> its index in order_
  size_t cursor_ = 0;                // order_ before it: held, being made or ready
  std::map<LodKey, std::shared_ptr<std::atomic<bool>>> making_;
  std::map<LodKey, Bytes> ready_;
  std::set<LodKey> held_;          // written to the client, not unloaded
  std::set<LodKey> owed_unloads_;  // held, no longer wanted
  std::set<LodKey> stale_;         // being made from before a structure change
  size_t loads_owed_ = 0;          // wanted tiles not yet held
};

}  // namespace chunkforge::server
