// File: server/session_view.h
//
// One player's view as the Session RPC tracks it, without any gRPC: the chunks the client holds,
// the ones it still needs (nearest first), the generations under way, the chunks ready to send
// and the unloads it is owed. The reactor (session_reactor.cc) feeds it updates and generated
// chunks and writes the events it hands out; the fuzz target drives it directly.
//
// Everything it keeps is bounded, whatever the client sends: the view is clipped to the
// supported world, generations under way plus chunks ready to send never exceed `window`, and
// unloads owed are at most one per chunk the client was ever sent and not yet told to drop.
// The reactor stops reading updates while `owed_unloads()` is past its limit, which bounds
// that last set too.
//
// Thread safety: none; the reactor calls it under its own mutex.
#pragma once

#include <atomic>
#include <compare>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>

#include "chunkforge/v1/service.pb.h"

namespace chunkforge::server {

using Bytes = std::shared_ptr<const std::string>;

struct ChunkKey {
  int64_t x = 0, z = 0;
  auto operator<=>(const ChunkKey&) const = default;
};

// Why an update cannot be applied (naming the field and the allowed range), or "" when it can.
// The supported world is |x|, |z| <= `world_units`.
std::string update_error(const v1::SessionUpdate& update, uint32_t max_radius, double world_units);

class SessionView {
 public:
  // `chunk_limit`: the largest |chunk coordinate| of the supported world. `window`: generations
  // under way plus chunks ready to send, at most.
  SessionView(int64_t chunk_size, int64_t chunk_limit, size_t window);

  // The player is now at (x, z) (world units, already validated) and sees `radius` chunks around
  // its chunk. `held`: chunks the client says it has; those inside the view count as loaded.
  void move(double x, double z, uint32_t radius, std::span<const ChunkKey> held);
  // The same from a checked update.
  void move(const v1::SessionUpdate& update);

  struct Generation {
    ChunkKey key;
    // Set once the chunk left the view: the queue may drop the generation.
    std::shared_ptr<std::atomic<bool>> unwanted;
  };
  // The nearest chunk still needed, if the window has room; it is then counted as under way.
  std::optional<Generation> next_generation();
  // A generation came back: its bytes, or null if it was dropped (asked for again if still
  // needed).
  void generated(ChunkKey key, Bytes bytes);

  struct Event {
    bool load = false;  // false: an unload
    ChunkKey key;
    Bytes bytes;  // the chunk, for a load
  };
  // What to write next: owed unloads first, then the nearest ready chunk (then counted loaded).
  std::optional<Event> next_event();

  // Nothing needed, under way, ready or owed: the client has exactly its view.
  bool settled() const;
  size_t owed_unloads() const { return owed_unloads_.size(); }
  size_t loaded() const { return loaded_.size(); }
  size_t under_way() const { return in_flight_.size(); }
  size_t ready() const { return ready_.size(); }
  // Squared distance in chunks from the view's centre (the generation priority).
  int64_t distance2(ChunkKey key) const;

 private:
  bool in_view(ChunkKey key) const;
  bool nearer(ChunkKey a, ChunkKey b) const;

  int64_t chunk_size_, chunk_limit_;
  size_t window_;
  ChunkKey centre_;
  ChunkKey low_, high_;  // the view's corners, inclusive, clipped to the world
  std::set<ChunkKey> loaded_, wanted_, owed_unloads_;
  std::map<ChunkKey, std::shared_ptr<std::atomic<bool>>> in_flight_;
  std::map<ChunkKey, Bytes> ready_;
};

}  // namespace chunkforge::server
