// File: client_sdk/src/view_session_impl.h
//
// ViewSession's state and the methods of its session thread (view_session.h): private to the
// SDK. Its methods live in view_session.cc (the stream, the view, loads), view_changes.cc
// (change events and fetching a chunk again), view_local.cc (chunks the client generates) and
// view_tiles.cc (LOD tiles).
#pragma once

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <variant>
#include <vector>

#include "chunk_change.h"
#include "chunkforge/client/view_session.h"
#include "chunkforge/v1/service.grpc.pb.h"
#include "client_impl.h"
#include "event_queue.h"
#include "local_cache.h"
#include "local_loads.h"
#include "tile_cover.h"

namespace chunkforge::client {

struct ViewSession::Impl {
  // What the reader thread hands to the session thread: one event, or the end of the stream.
  struct StreamEnded {};
  using Incoming = std::variant<v1::SessionEvent, StreamEnded>;
  // A callback to run outside the lock.
  using Action = std::function<void()>;

  Impl(Client c, WorldInfo w, Position p, ViewOptions o, ViewCallbacks cb)
      : client(std::move(c)),
        world(std::move(w)),
        options(std::move(o)),
        callbacks(std::move(cb)),
        layers(layer_filter(options.chunk)),
        cache(options.cache_bytes),
        position(p),
        radius(options.view_radius),
        lod_radius(options.lod_radius),
        lod_finest(options.lod_finest_level),
        backoff(options.initial_backoff, options.max_backoff) {
    if (options.generator) {
      local = std::make_unique<LocalLoads>(options.generator, options.chunk, options.generator_threads, [this] {
        std::lock_guard guard(mutex);
        local_done = true;
        wake.notify_all();
      });
    }
  }

  Client client;
  WorldInfo world;
  const ViewOptions options;
  const ViewCallbacks callbacks;
  const google::protobuf::RepeatedField<uint32_t> layers;  // the view's layer filter, for changes

  mutable std::mutex mutex;
  std::condition_variable wake;
  // Guarded by mutex. Written by callers (position, radius, stopping) and by the reader thread
  // (inbox); everything else by the session thread.
  LocalCache cache;
  std::map<ChunkCoord, Chunk> loaded;
  Position position;
  uint32_t radius;
  ChunkCoord centre{};
  uint32_t applied_radius = 0;
  uint32_t lod_radius, applied_lod_radius = 0;
  uint32_t lod_finest, applied_lod_finest = 0;
  bool view_dirty = true, stopping = false, running = true;
  std::deque<Incoming> inbox;
  ViewStats stats;
  grpc::ClientContext* pending_info = nullptr;  // the world-info call of open(), while under way
  std::unique_ptr<EventQueue> events;           // a polled session's (start_polled); null with callbacks

  // Chunks being fetched again (GetChunk) because a change could not be applied faithfully: at
  // most one fetch per chunk. `wanted` is the newest version a change to it named meanwhile.
  // The fetch's callback (a gRPC thread) queues its chunk in `refetched` for the session thread.
  struct Refetch {
    grpc::ClientContext context;
    v1::GetChunkRequest request;
    std::shared_ptr<v1::Chunk> response = std::make_shared<v1::Chunk>();
    grpc::Status status;
    uint64_t wanted = 0;
    std::chrono::milliseconds waited{0};  // the backoff before this attempt (0: the first)
  };
  std::map<ChunkCoord, std::unique_ptr<Refetch>> refetching;
  std::deque<ChunkCoord> refetched;
  size_t refetch_callbacks_owed = 0;  // fetches whose callback has not run yet
  // Fetches that failed with a status worth another try, waiting for it: at most one per chunk
  // (so at most the view and its cache), dropped when due if the chunk is no longer wanted.
  struct RefetchRetry {
    std::chrono::steady_clock::time_point due;
    uint64_t wanted = 0;
    std::chrono::milliseconds waited{0};
  };
  std::map<ChunkCoord, RefetchRetry> refetch_retries;

  // Local generation (view_local.cc): the session's generation threads (null without a
  // generator), set when they have something done; whether the stream's first update (which
  // asks) went out; changes to chunks still being generated, applied once they are (at most
  // kMaxAwaiting per chunk: past that the chunk is fetched whole instead, at `overflow`).
  std::unique_ptr<LocalLoads> local;
  bool local_done = false, first_update_sent = false;
  static constexpr size_t kMaxAwaiting = 64;
  struct Awaiting {
    std::vector<v1::ChunkChange> changes;
    uint64_t overflow = 0;
  };
  std::map<ChunkCoord, Awaiting> awaiting;
  std::string refusal_reported;  // the last refusal on_error reported, so that it is said once

  // LOD tiles (view_tiles.cc): those held, by key, and their bytes; those kept from an earlier
  // stream (`stale_tiles`) until the tiles this stream sent (`fresh_tiles`) cover their ground.
  std::map<LodKey, LodTile> tiles;
  size_t held_tile_bytes = 0;
  std::set<LodKey> stale_tiles;
  TileCover fresh_tiles;
  // Unloads that came while tiles were being generated here: applied once none is, so that the
  // horizon shows no hole while the tiles covering their ground are made (at most
  // kMaxDeferredTileUnloads, the server's own bound on unloads it holds back).
  std::vector<LodKey> deferred_tile_unloads;
  static constexpr size_t kMaxDeferredTileUnloads = 512;

  // The session thread's own.
  std::unique_ptr<grpc::ClientContext> context;
  std::unique_ptr<grpc::ClientReaderWriter<v1::SessionUpdate, v1::SessionEvent>> stream;
  std::thread reader;
  Backoff backoff;
  // The server asked this session to move (SessionEvent.reconnect, a rolling update): however
  // the stream then ends is no error (a server going away may reset it), and the next session
  // opens without the backoff, unless the stream brought nothing else first (a draining server
  // met again: then the backoff paces the retries). Until a new stream brings an event, its
  // failures that a retry may get past are not reported either, up to the client's
  // max_attempts, as a unary call's are not: behind a balancer, a call may still meet the
  // replica that is going away.
  bool stream_heard = false, moving = false, reconnect_now = false;
  int quiet_retries = 0;
  std::thread thread;

  bool in_view(ChunkCoord c) const {
    return std::max(std::abs(c.x - centre.x), std::abs(c.z - centre.z)) <= static_cast<int64_t>(applied_radius);
  }

  // --- the session thread ---

  void run();

  enum class Opened { ok, retry, fatal };

  // Opens a session stream and sends the view with the chunks already held. If the world could
  // not be checked, reports why: retry (after a backoff) or fatal (the session ends).
  Opened open(std::unique_lock<std::mutex>& lock);

  // A polled session reads the next message only once the last one was handled and the game
  // has drained the queue below its bound; until then the server waits (HTTP/2 flow control).
  bool wait_for_room();

  void push(Incoming incoming);

  // The stream ended. Reports why; true to go on with a new stream.
  bool ended(std::unique_lock<std::mutex>& lock);

  // Ends the stream and returns its status. `cancel` when it may still be open (stop()); not
  // once the reader saw it end, since a cancel then would hide the server's status.
  Status close(std::unique_lock<std::mutex>& lock, bool cancel);

  // A server event. Chunk unloads (`unload`, `unloads`) need nothing: the view is computed here,
  // from the same rule.
  void receive(v1::SessionEvent event, std::unique_lock<std::mutex>& lock);

  // Loads of chunks out of view go to the cache (the server has not yet seen the latest
  // position). A load of a chunk held at another version replaces it (docs/edits.md).
  void receive_load(std::shared_ptr<v1::Chunk> message, std::unique_lock<std::mutex>& lock, bool generated = false);

  // A committed change: applied to the loaded copy and reported once it hashes to the event's
  // chunk_hash. A loaded copy that the change cannot be applied to faithfully (a mismatch, an
  // edit unknown here, missed versions) is fetched again instead; while that fetch is under
  // way, later changes to the chunk wait for it. A reset is left to the server, which sends the
  // chunk whole.
  void receive_change(const v1::ChunkChange& change, std::unique_lock<std::mutex>& lock);

  // A cached copy is kept current, or dropped if it cannot follow faithfully: it would come
  // back into view wrong or stale, and the server sends a dropped chunk whole.
  void receive_cached_change(ChunkCoord c, const v1::ChunkChange& change);

  // Asks the server for `c` again (GetChunk with the view's options), in the background: the
  // answer comes back through `refetched`. The caller made sure no fetch of `c` is under way.
  // `waited`: the backoff that preceded this attempt, for a retry (retry_refetches).
  void refetch(ChunkCoord c, uint64_t wanted, std::unique_lock<std::mutex>& lock,
               std::chrono::milliseconds waited = std::chrono::milliseconds(0));
  // Fetches that failed (UNAVAILABLE, RESOURCE_EXHAUSTED, a deadline ...) are tried again after
  // a backoff, initial_backoff doubling up to max_backoff, while the chunk is still wanted: in
  // view, and not loaded (a chunk generated here whose check failed) or loaded at an older
  // version than the one wanted. Otherwise an edited chunk would stay missing, or stale, until
  // its next change or a resume.
  void retry_refetches(std::unique_lock<std::mutex>& lock);
  // When the earliest retry is due; nullopt when none waits.
  std::optional<std::chrono::steady_clock::time_point> next_refetch_retry() const;

  // A chunk fetched again replaces the copy (on_change, replaced) unless the copy is newer by
  // now (a load came meanwhile). An answer still older than a change heard of meanwhile (from a
  // replica behind the one that sent the change) is fetched once more, but only while each
  // answer is newer than the copy: a chunk is never fetched in a loop.
  void receive_refetch(ChunkCoord c, std::unique_lock<std::mutex>& lock);

  // The session ends: fetches under way are cancelled and waited for (their callbacks use this).
  void end_refetches(std::unique_lock<std::mutex>& lock);

  void report_change(Chunk chunk, ChunkChangeInfo info, std::unique_lock<std::mutex>& lock);

  // Brings the view to the latest position and radius: unloads what left it (into the cache),
  // loads what the cache has of what entered it (nearest first), and tells the server, listing
  // every chunk of the view already held with its edit version: the server sends a chunk held
  // at an old version again (one back from the cache, or held across a reconnection).
  void apply_view(std::unique_lock<std::mutex>& lock);

  // The world changed under the session (another server, another world): nothing held is valid.
  void switch_world(WorldInfo next, std::unique_lock<std::mutex>& lock);

  void report(Status status, std::unique_lock<std::mutex>& lock);

  // --- local generation (view_local.cc) ---

  // Asks the server, in the stream's first update, to send only what players changed, if the
  // generator makes this world; otherwise records why not.
  void ask_local(v1::SessionUpdate& update, std::vector<Action>& actions);
  void receive_local_answer(const v1::LocalGenerationAnswer& answer, std::unique_lock<std::mutex>& lock);
  // Records why chunks are not generated here, and tells on_error once per reason.
  void refused(const std::string& reason, std::vector<Action>& actions);
  void receive_pristine(const v1::PristineChunks& pristine);
  // SessionEvent.older_land, given to the generator before the event's chunks are made.
  void receive_older_land(const std::string& bytes, std::unique_lock<std::mutex>& lock);
  void receive_edited(const v1::ChunkChange& edited);
  // What the generation threads finished: loaded (then the changes that waited for it), or
  // fetched from the server when an edited chunk failed its check.
  void receive_generated(std::unique_lock<std::mutex>& lock);
  // Keeps a change to a chunk still being generated for later; false if it is not.
  bool await_generation(const v1::ChunkChange& change);
  // Drops the generation of chunks that left the view.
  void forget_local();
  // Stops the generation threads (their callback takes the lock: it is released meanwhile).
  void end_local(std::unique_lock<std::mutex>& lock);

  // --- LOD tiles (view_tiles.cc) ---

  // A tile loads, or replaces the copy of its key (identical bytes are not reported again):
  // sent by the server, or made here (`generated`).
  void receive_tile(std::shared_ptr<const v1::LodTile> message, std::unique_lock<std::mutex>& lock,
                    bool generated = false);
  void receive_tile_unload(const v1::LodTileKey& key, std::unique_lock<std::mutex>& lock);
  // A batch of tile unloads: the same as a `lod_unload` of each key, in order.
  void receive_tile_unloads(const v1::TileKeys& keys, std::unique_lock<std::mutex>& lock);
  // An unload the server sent: applied, or held back while tiles are being made here.
  void take_tile_unload(const LodKey& key, std::vector<Action>& actions);
  void unload_tile(const LodKey& key, std::vector<Action>& actions);
  // Tiles the server says no edit changed: made by the generation threads (local), and loaded
  // when done (receive_generated_tiles), the deferred unloads then.
  void receive_pristine_tiles(const v1::PristineTiles& pristine);
  void receive_generated_tiles(std::unique_lock<std::mutex>& lock);
  // Drops the tiles being made here and the unloads held back (the stream ended, or the world changed).
  void forget_local_tiles();
  // The stream ended: every tile held is stale until the next stream's tiles cover its ground.
  void tiles_outlive_stream();
  // Unloads the stale tiles whose ground the view no longer needs or fresh tiles cover (after a
  // tile `arrived`: only those it meets, the others' cover did not change).
  void release_stale_tiles(std::vector<Action>& actions, const LodKey* arrived = nullptr);
  // Another world: no tile held is of it.
  void drop_tiles(std::vector<Action>& actions);

  // Callbacks run without the lock, so they may call set_position and loaded().
  void run_unlocked(std::vector<Action>&& actions, std::unique_lock<std::mutex>& lock);
};

}  // namespace chunkforge::client
