// File: chunkforge/client/view_event.h
//
// A ViewSession's events as plain values, for a game that drains them on its own thread
// (ViewSession::start_polled and poll) instead of taking callbacks on the session's thread.
//
//   auto session = chunkforge::client::ViewSession::start_polled(client, {x, z}, options);
//   ...every frame, on the game thread:
//   for (chunkforge::client::ViewEvent& e : (*session)->poll(64)) {
//     switch (e.kind) {
//       case ViewEvent::Kind::load:   spawn(*e.chunk); break;
//       case ViewEvent::Kind::unload: despawn(e.coord); break;
//       case ViewEvent::Kind::change: update(*e.chunk, e.change); break;
//       case ViewEvent::Kind::error:  log(e.error.to_string()); break;
//       case ViewEvent::Kind::tile:   draw_far(*e.tile); break;      // ViewOptions::lod_radius > 0
//       case ViewEvent::Kind::tile_unload: erase_far(e.tile_key); break;
//     }
//   }
//
// Thread safety: plain values the game owns; a Chunk inside shares its data and may be kept
// and read from any thread.
#pragma once

#include <cstddef>
#include <optional>

#include "chunkforge/client/chunk.h"
#include "chunkforge/client/lod_tile.h"
#include "chunkforge/client/status.h"
#include "chunkforge/client/view_session.h"

namespace chunkforge::client {

struct ViewEvent {
  // The callback each kind stands for: on_load, on_unload, on_change, on_error, on_tile,
  // on_tile_unload (the C ABI's CF_EVENT_* are the first four, in this order).
  enum class Kind { load, unload, change, error, tile, tile_unload };
  Kind kind = Kind::load;
  ChunkCoord coord;             // load, unload, change
  std::optional<Chunk> chunk;   // load, change: the chunk (a change's new copy)
  ChunkChangeInfo change;       // change
  Status error;                 // error
  std::optional<LodTile> tile;  // tile: the tile (a load, or a replacement of its key)
  LodKey tile_key;              // tile, tile_unload

  // What the event weighs against ViewOptions::event_queue_bytes: the chunk's or tile's encoded
  // size, the id lists and the message, plus the event itself.
  size_t queued_bytes() const;
};

}  // namespace chunkforge::client
