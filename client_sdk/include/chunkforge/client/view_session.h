// File: chunkforge/client/view_session.h
//
// A player's view of the world, kept loaded while the player moves. Tell it where the player
// is; it tells you which chunks to show and which to drop.
//
//   chunkforge::client::ViewCallbacks callbacks;
//   callbacks.on_load = [&](const Chunk& c) { game.queue_spawn(c); };         // session thread
//   callbacks.on_unload = [&](ChunkCoord c) { game.queue_despawn(c); };      // session thread
//   callbacks.on_error = [&](const Status& s) { log(s.to_string()); };       // session thread
//   callbacks.on_change = [&](const Chunk& c, const ChunkChangeInfo&) { game.queue_update(c); };
//   callbacks.on_tile = [&](const LodTile& t) { game.queue_horizon(t); };  // with lod_radius > 0
//   callbacks.on_tile_unload = [&](LodKey k) { game.queue_horizon_drop(k); };
//   auto session = chunkforge::client::ViewSession::start(client, {x, z}, options, callbacks);
//   ...every frame: session->set_position(player.x, player.z);
//
// Guarantees:
// - on_load runs once for every chunk that enters the view, and on_unload once when it leaves.
//   The loaded set is always a subset of the current view, and becomes the whole view once the
//   server has delivered it. Loads come nearest first.
// - Chunks that leave the view stay in a local cache bounded by ViewOptions::cache_bytes
//   (least recently used out first). A chunk coming back into view is loaded from the cache,
//   not downloaded again.
// - On connection loss (server restart, network) the session reports the error through
//   on_error, reconnects with exponential backoff, and resumes: it tells the new server which
//   chunks of the view it already holds, so only the missing ones are sent. A server that shuts
//   down (a rolling update) asks its sessions to move first: the session then reconnects at once
//   (through a balancer, to another replica) and reports no error. If the world
//   changed (another fingerprint), everything loaded is unloaded and the new world is loaded.
// - Edits (docs/edits.md): a committed change to a loaded chunk is applied to the session's
//   copy (with chunkforge::apply_change, as the server does, so the copy stays the bytes the
//   server serves) and reported through on_change; so is a load that replaces a copy at an
//   older version. Changes to cached chunks keep the cache current; a cached chunk that missed
//   one is dropped. While the server is away, chunks from the cache may be behind: on resume
//   the session lists the version of every chunk it holds, and the server replaces stale ones.
// - A copy is never knowingly wrong: a change event carries the hash of the chunk it leads to.
//   When the copy does not hash to it (a view with a layer filter cannot check), when a change
//   holds an edit this SDK does not know (a newer server's), or when versions were missed, the
//   change is not delivered; the chunk is fetched again (GetChunk, in the background, one fetch
//   per chunk at a time, later changes to it folded into that fetch) and on_change delivers it
//   with replaced = true. ViewStats counts each case.
// - LOD tiles (ViewOptions::lod_radius, docs/sdk.md "LOD tiles"): on_tile runs for each tile of
//   the horizon the server sends (a load, or new bytes for a key held), on_tile_unload once when
//   the server drops it, after the tiles covering its ground came. Tiles held across a
//   reconnection stay until the new server's tiles cover the ground they show (identical tiles
//   it sends again are not reported), so the horizon never shows a hole.
// - Errors a retry cannot fix (INVALID_ARGUMENT, UNAUTHENTICATED, PERMISSION_DENIED, ...) end
//   the session: on_error, then running() is false.
//
// Threading: every callback runs on the session's own thread, one at a time, never at the same
// time as another callback of this session. Callbacks must not call stop() or destroy the
// session; they may call set_position, set_radius, set_lod_radius and set_lod_finest_level.
// Those, loaded(), tiles(), stats() and stop() may be called from any thread.
// set_position is cheap: a message goes to the server only when the player enters another chunk
// or a radius changes.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "chunkforge/client/base_generator.h"
#include "chunkforge/client/chunk.h"
#include "chunkforge/client/client.h"
#include "chunkforge/client/lod_tile.h"
#include "chunkforge/client/status.h"

namespace chunkforge::client {

struct ViewOptions {
  // Chunks around the player's chunk to keep loaded: the square of side 2 * view_radius + 1.
  uint32_t view_radius = 4;
  // Chunks around the player's chunk to show as LOD tiles (docs/lod.md): the tiles of the square
  // of side 2 * lod_radius + 1 that do not lie wholly inside the chunk view. 0: no tiles. At most
  // the server's --max-lod-radius (1024 by default; past it the session ends, INVALID_ARGUMENT).
  uint32_t lod_radius = 0;
  // The finest tile level wanted: nearer tiles are not split below it. Coarser means fewer tiles
  // and far fewer bytes as the player walks, less detail next to the chunk view. [0, 24]; 0: the
  // world's finest (docs/lod.md, "Levels and rings").
  uint32_t lod_finest_level = 0;
  // Options of every chunk the session loads.
  ChunkOptions chunk;
  // Bytes of encoded chunks kept beyond the view (0: none).
  size_t cache_bytes = 64u << 20;
  // Reconnection: waits initial_backoff, doubling up to max_backoff (+-20 % jitter), forever
  // until stop().
  std::chrono::milliseconds initial_backoff{200};
  std::chrono::milliseconds max_backoff{5'000};
  // A polled session's queue (start_polled): bytes of events (ViewEvent::queued_bytes) kept for
  // poll(). At the bound the session stops reading the stream, and the server waits (gRPC flow
  // control): no event is dropped, and the queue passes the bound by one server message at most.
  size_t event_queue_bytes = 16u << 20;
  // This world's pristine chunks made here (docs/client-generation.md): chunkforge::client_local's
  // make_local_generator gives one. The server then sends no chunk bytes, only which chunks
  // entered the view and what players changed; the session generates on `generator_threads`
  // threads of its own and checks every edited chunk against the server's hash. Null: the
  // server sends every chunk. A server that refuses (another world, an older or newer
  // generator, --client-generation off) sends chunks whole: on_error says why, once.
  std::shared_ptr<BaseGenerator> generator;
  uint32_t generator_threads = 2;
};

// What on_change says beside the updated chunk.
struct ChunkChangeInfo {
  uint64_t previous_version = 0;  // the copy's edit version before
  // True when the server sent the chunk whole and it replaced the copy: it missed changes
  // (while the session was away, or while the chunk sat in the local cache), or its edits were
  // reset. Compare everything then; the lists below are empty.
  bool replaced = false;
  // Otherwise one committed change was applied; the ids it names. Objects of layers the view
  // leaves out (ViewOptions::chunk.layers) may be named: the chunk does not hold them.
  std::vector<uint64_t> removed_objects;
  std::vector<uint64_t> placed_objects;  // added or moved: read them from the chunk
  std::vector<uint64_t> states_changed;  // set or cleared: Chunk::object_state
  std::vector<uint64_t> removed_structures;
};

struct ViewCallbacks {
  std::function<void(const Chunk&)> on_load;
  std::function<void(ChunkCoord)> on_unload;
  std::function<void(const Status&)> on_error;
  // A loaded chunk changed (docs/edits.md): the new copy, which replaces the one on_load (or
  // the last on_change) gave. Not called for chunks outside the view.
  std::function<void(const Chunk&, const ChunkChangeInfo&)> on_change;
  // A LOD tile entering the horizon, or new bytes for a key held (replace the old tile).
  std::function<void(const LodTile&)> on_tile;
  // A tile that left the horizon: drop it. The tiles that cover its ground came first.
  std::function<void(LodKey)> on_tile_unload;
};

struct Position {
  double x = 0;
  double z = 0;
};

struct ViewStats {
  uint64_t chunks_downloaded = 0;   // load events received from a server
  uint64_t chunks_from_cache = 0;   // loads served by the local cache
  uint64_t duplicates_ignored = 0;  // server loads of chunks already held at the same version
  uint64_t changes_applied = 0;     // change events applied to a loaded or cached chunk
  uint64_t chunks_replaced = 0;     // server loads that replaced a loaded chunk's older version
  uint64_t reconnects = 0;          // sessions opened after the first
  // Encoded bytes of every message the servers sent the session (chunks, keys of chunks made
  // here, changes, tiles), before gRPC's framing: what a view costs the network.
  uint64_t bytes_received = 0;
  uint64_t moves = 0;  // of those, asked for by a server going away (a rolling update)
  // Checking copies against the server's (docs/edits.md, "Checking a copy"):
  uint64_t changes_verified = 0;        // applied changes whose result hashed to the event's chunk_hash
  uint64_t change_hash_mismatches = 0;  // changes whose result did not: not delivered, the chunk fetched again
  uint64_t changes_not_understood = 0;  // changes with an edit this SDK does not know: fetched again
  uint64_t change_gaps = 0;             // changes past versions the copy missed: fetched again
  uint64_t changes_coalesced = 0;       // changes that came while their chunk was being fetched again
  uint64_t changes_refetched = 0;       // chunks fetched again and delivered (on_change, replaced)
  uint64_t refetches_failed = 0;        // fetches that failed: the copy stays at its version meanwhile
  uint64_t refetches_retried = 0;       // failed fetches tried again, after a backoff
  // Local generation (ViewOptions::generator):
  bool generating_locally = false;       // the server agreed: chunks are generated here
  uint64_t chunks_generated = 0;         // chunks generated here and loaded (pristine and edited)
  uint64_t edited_verified = 0;          // edited chunks generated here whose result hashed to the server's
  uint64_t edited_mismatches = 0;        // edited chunks that did not (or held an unknown edit): fetched instead
  std::string local_generation_refused;  // why it was refused ("" when not asked, or agreed)
  // LOD tiles (ViewOptions::lod_radius):
  uint64_t tiles_loaded = 0;             // on_tile calls (loads and replacements)
  uint64_t tiles_replaced = 0;           // of those, new bytes for a key held
  uint64_t tile_duplicates_ignored = 0;  // tiles sent again with the bytes held (after a reconnection)
  uint64_t tiles_unloaded = 0;           // on_tile_unload calls
  uint64_t tile_bytes_received = 0;      // encoded bytes of every tile the servers sent
  uint64_t tiles_generated = 0;          // tiles the generator made (ViewOptions::generator), not sent
  uint64_t tiles_refused = 0;            // tiles of no possible key or another chunk size: not shown
  size_t held_tiles = 0;                 // tiles loaded now
  size_t held_tile_bytes = 0;            // and their encoded bytes
  size_t cached_bytes = 0;               // the local cache beyond the view
  size_t loaded_chunks = 0;
  size_t queued_events = 0;  // a polled session's events not yet taken by poll()
  size_t queued_bytes = 0;   // and what they weigh against ViewOptions::event_queue_bytes
};

struct ViewEvent;  // view_event.h

class ViewSession {
 public:
  // Fetches the world info (for the chunk size) and opens the session. Fails if the world info
  // cannot be had (after the client's retries) or the options are out of range.
  static Result<std::unique_ptr<ViewSession>> start(Client client, Position position, ViewOptions options,
                                                    ViewCallbacks callbacks);
  // The same session, its events kept in a queue (bounded by ViewOptions::event_queue_bytes)
  // for the game to take with poll() on its own thread, instead of callbacks on the session's.
  static Result<std::unique_ptr<ViewSession>> start_polled(Client client, Position position, ViewOptions options);
  ~ViewSession();  // stop()
  ViewSession(const ViewSession&) = delete;
  ViewSession& operator=(const ViewSession&) = delete;

  void set_position(Position position);
  void set_radius(uint32_t view_radius);
  // ViewOptions::lod_radius, changed: the server sends the tiles of the new horizon and unloads
  // what left it (all of them for 0).
  void set_lod_radius(uint32_t lod_radius);
  // ViewOptions::lod_finest_level, changed: the server sends the new rings' tiles and unloads the old.
  void set_lod_finest_level(uint32_t level);

  // A polled session's events (view_event.h), oldest first, at most max_events: appended to
  // `out`, returning how many. None for a session with callbacks. From any thread, one at a time.
  size_t poll(std::vector<ViewEvent>& out, size_t max_events = SIZE_MAX);
  std::vector<ViewEvent> poll(size_t max_events);

  // The chunks loaded now (on_load called, on_unload not yet).
  std::vector<ChunkCoord> loaded() const;
  // The LOD tiles loaded now (on_tile called, on_tile_unload not yet), by level, then x, then z.
  std::vector<LodKey> tiles() const;
  ViewStats stats() const;
  // False once the session ended for good (stop(), or an error a retry cannot fix).
  bool running() const;
  // Ends the session and joins its thread; no callback runs after it returns. Idempotent.
  void stop();

  struct Impl;

 private:
  friend struct ViewSessionTesting;  // tests only (client_sdk/src/view_session_testing.h)
  explicit ViewSession(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace chunkforge::client
