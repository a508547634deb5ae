// File: server/session/session_view.h
//
// One player's view as the Session RPC tracks it, without any gRPC: the chunks the client holds,
// the ones it still needs (nearest first), the generations under way, the chunks ready to send
// the unloads it is owed and the edits it has not seen yet (docs/edits.md). The reactor
// (session.cc) feeds it updates, generated chunks and committed changes, and writes the events
// it hands out; the fuzz target drives it directly.
//
// Edits: each loaded chunk's version is the one the client has. A change one past it is sent
// as a change event; any other newer state (a gap, a reset, a client that resumed with an older
// version) makes the chunk wanted again, and its load replaces the client's copy. Chunks under
// way remember the newest version heard of, and bytes older than that are fetched again.
//
// Everything it keeps is bounded, whatever the client sends: the view is clipped to the
// supported world, generations under way plus chunks ready to send never exceed `window`, and
// unloads owed are at most one per chunk the client was ever sent and not yet told to drop;
// queued changes are at most `kMaxQueuedChanges` (past that, their chunks are reloaded).
// The reactor stops reading updates while `owed_unloads()` is past its limit, which bounds
// that last set too.
//
// Thread safety: none; the reactor calls it under its own mutex.
#pragma once

#include <algorithm>
#include <atomic>
#include <compare>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "chunkforge/chunk.h"
#include "chunkforge/v1/service.pb.h"
#include "generation/bytes.h"

namespace chunkforge::server {

// The chunks within `radius` (in x and in z) of a centre, clipped to the supported world: a
// view. Corners inclusive; the default box is empty.
struct ChunkBox {
  ChunkCoord low{1, 1}, high{0, 0};
  // `limit`: the largest |chunk coordinate| of the supported world.
  static ChunkBox around(ChunkCoord centre, int64_t radius, int64_t limit) {
    return {{std::max(centre.x - radius, -limit), std::max(centre.z - radius, -limit)},
            {std::min(centre.x + radius, limit), std::min(centre.z + radius, limit)}};
  }
  bool contains(ChunkCoord k) const { return k.x >= low.x && k.x <= high.x && k.z >= low.z && k.z <= high.z; }
};

// Why an update cannot be applied (naming the field and the allowed range), or "" when it can.
// The supported world is |x|, |z| <= `world_units`.
std::string update_error(const v1::SessionUpdate& update, uint32_t max_radius, uint32_t max_lod_radius,
                         double world_units);

class SessionView {
 public:
  // `chunk_limit`: the largest |chunk coordinate| of the supported world. `window`: generations
  // under way plus chunks ready to send, at most.
  SessionView(int64_t chunk_size, int64_t chunk_limit, size_t window);

  static constexpr size_t kMaxQueuedChanges = 1024;

  // Another window from now on (a session whose client generates: its pristine chunks are ready
  // at once and cost no generation, so many go in one event).
  void set_window(size_t window) { window_ = window; }
  // Whether chunks leaving the view are owed an unload event (the default). A client that
  // generates drops what leaves its view itself: it is sent none, however fast it jumps.
  void set_unloads(bool send) { send_unloads_ = send; }

  // The player is now at (x, z) (world units, already validated) and sees `radius` chunks around
  // its chunk. `held`: chunks the client says it has, at `held_versions` (missing: 0); those
  // inside the view count as loaded.
  void move(double x, double z, uint32_t radius, std::span<const ChunkCoord> held,
            std::span<const uint64_t> held_versions = {});
  // The same from a checked update.
  void move(const v1::SessionUpdate& update);

  struct Generation {
    ChunkCoord key;
    // Set once the chunk left the view: the queue may drop the generation.
    std::shared_ptr<std::atomic<bool>> unwanted;
  };
  // The nearest chunk still needed, if the window has room; it is then counted as under way.
  std::optional<Generation> next_generation();
  // A generation came back: its bytes at edit `version`, or null if it was dropped (asked for
  // again if still needed).
  void generated(ChunkCoord key, Bytes bytes, uint64_t version = 0);

  // A committed change made `key` reach `version`. `event`: the encoded change event, to send
  // if the client has the version before; null (or `reset`) when only a reload will do.
  void changed(ChunkCoord key, uint64_t version, Bytes event, bool reset = false);

  // A loaded chunk the client must get again: its load will replace the client's copy.
  void replace(ChunkCoord key);

  enum class Kind { load, unload, change };
  struct Event {
    Kind kind = Kind::load;
    ChunkCoord key;
    Bytes bytes;  // the chunk for a load; the encoded event for a change
  };
  // What to write next: owed unloads first, then changes, then the nearest ready chunk (then
  // counted loaded).
  std::optional<Event> next_event();
  // The next event if it is a load: the nearest ready chunk when no unload or change is owed.
  // What a batch of loads is filled with.
  std::optional<Event> next_load();
  // The next owed unload, if any (the next event then), taken as written. What a batch of
  // unloads is filled with.
  std::optional<ChunkCoord> next_unload();

  // Whether the next event is a load: a chunk is ready and no unload or change is owed.
  bool loads_next() const { return !ready_.empty() && owed_unloads_.empty() && changes_.empty(); }
  // Nothing needed, under way, ready or owed: the client has exactly its view.
  bool settled() const;
  size_t owed_unloads() const { return owed_unloads_.size(); }
  size_t queued_changes() const { return changes_.size(); }
  // The held chunks that the last moves counted as loaded for the first time, with the
  // versions the client gave: the reactor checks them against the current versions.
  std::vector<std::pair<ChunkCoord, uint64_t>> take_newly_held() { return std::exchange(newly_held_, {}); }
  // The version the client has of a loaded chunk; nullopt if it is not loaded.
  std::optional<uint64_t> loaded_version(ChunkCoord key) const;
  size_t loaded() const { return loaded_.size(); }
  size_t under_way() const { return in_flight_.size(); }
  size_t ready() const { return ready_.size(); }
  // The chunk the player stands in.
  ChunkCoord centre() const { return centre_; }
  // Squared distance in chunks from the view's centre (the order within the view).
  int64_t distance2(ChunkCoord key) const;
  // The ring of `key` around the view's centre, max(|dx|, |dz|) in chunks: the generation
  // priority, so that every player's inner rings go before anyone's outer ones.
  int64_t ring(ChunkCoord key) const;

 private:
  bool in_view(ChunkCoord key) const { return box_.contains(key); }
  void reload_queued_changes();
  // Nearest-first orders of wanted_ and ready_ (nearest by distance2, ties by z, then x, so that
  // the order never depends on container order): min-heaps of (distance2, z, x) around the
  // centre, rebuilt at every move, so that taking the nearest costs a log, not a scan (a view of
  // radius 16 is 1,089 chunks, and a session whose client generates takes them all at once).
  // An entry whose key left its set is dropped when it comes up.
  using Ranked = std::tuple<int64_t, int64_t, int64_t>;
  using Order = std::priority_queue<Ranked, std::vector<Ranked>, std::greater<>>;
  Ranked rank(ChunkCoord key) const;
  void rank_all();
  void want(ChunkCoord key);
  template <typename Set>
  static std::optional<ChunkCoord> pop_nearest(Order& order, const Set& set);

  int64_t chunk_size_, chunk_limit_;
  size_t window_;
  bool send_unloads_ = true;
  ChunkCoord centre_;
  ChunkBox box_;                           // the view, clipped to the world
  std::map<ChunkCoord, uint64_t> loaded_;  // the version the client has
  std::set<ChunkCoord> wanted_, owed_unloads_;
  Order wanted_order_, ready_order_;
  std::map<ChunkCoord, std::shared_ptr<std::atomic<bool>>> in_flight_;
  struct Ready {
    Bytes bytes;
    uint64_t version = 0;
  };
  std::map<ChunkCoord, Ready> ready_;
  std::map<ChunkCoord, uint64_t> newest_;             // chunks under way: the newest version heard of
  std::deque<std::pair<ChunkCoord, Bytes>> changes_;  // change events to send, in commit order
  std::vector<std::pair<ChunkCoord, uint64_t>> newly_held_;
};

}  // namespace chunkforge::server
