// File: server/rpc/session_reactor.h
//
// WorldService::Session: one player's view over a bidirectional stream. Reads position updates,
// writes unloads, committed edits of loaded chunks (docs/edits.md) and loads (nearest to the
// latest position first, the cached chunk bytes wrapped in a SessionEvent without re-encoding),
// and prefetches what a walking player's next step brings into view (LookAhead). The
// bookkeeping is SessionView's; this file is the gRPC side: at most kWindow generations or ready
// chunks per session, no further reads while the client owes too many unloads, one event
// written at a time, charged to the client's connection (no event while it has no room), and a
// client that stops reading ended by the output budget's stall timeout.
// A client that reads unload batches (SessionUpdate.accept_unload_batches) gets the unloads owed
// when one is written as one event, chunks or LOD tiles.
// A client that generates pristine chunks itself (docs/client-generation.md) gets, once the
// server accepts, no chunk bytes and no generation: pristine chunks as offsets, many per event,
// and edited chunks as one change from the generated base, read from the store on the queue.
// A session that asks for a LOD radius also gets LOD tiles (TileView's bookkeeping), after every
// chunk event: at most kTileWindow being made or ready, shared between sessions through the cache.
// Its methods live in three files: session.cc (the call, updates, chunks), session_local.cc (a
// client that generates) and session_tiles.cc (LOD tiles, docs/lod.md).
#pragma once

#include <grpcpp/alarm.h>

#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rpc/stream_call.h"
#include "rpc/world_service.h"
#include "session/look_ahead.h"
#include "session/older_land_sent.h"
#include "session/session_view.h"
#include "session/tile_view.h"

namespace chunkforge::server {

class SessionReactor final
    : public StreamCall<SessionReactor, grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>> {
 public:
  SessionReactor(WorldService& service, grpc::CallbackServerContext* context);
  void OnReadDone(bool ok) override;
  void OnWriteDone(bool ok) override;
  void OnCancel() override;
  void OnDone() override;

 private:
  friend StreamCall;

  static constexpr size_t kWindow = 8;  // generations under way plus chunks ready to write, per session
  // The same for a session whose client generates: a pristine chunk is ready at once and costs
  // two bytes, so a first view goes in a few events. Edited chunks still take kWindow at most.
  static constexpr size_t kLocalWindow = 256;
  // A batch of loads stops growing past this many bytes: far below a client's 4 MiB message limit
  // (a batch holds at most kWindow chunks anyway).
  static constexpr size_t kMaxBatchBytes = size_t{1} << 20;
  // A session applies its next update no sooner than this after the last one. Updates are applied
  // on gRPC's callback threads, which every call's handlers share (two on this machine): a client
  // that sent whole-view updates as fast as it could kept them busy, and everyone else's warm
  // GetChunk took over a second. A player moves far less often; past this pace an update waits,
  // no other is read meanwhile, and HTTP/2 flow control holds the client's updates back.
  static constexpr auto kMinUpdateInterval = std::chrono::milliseconds(10);
  // A session whose client generates is answered at once from the version index, so nothing else
  // paces its view: a client jumping a radius-16 view (1,089 chunks) every 10 ms kept the callback
  // threads busy with bookkeeping alone. Its view may turn over at most this many chunks a
  // second: a radius-16 view is applied every 54 ms, a radius-3 one every 10 ms, as any session.
  static constexpr double kMaxLocalViewChunksPerSecond = 20000;
  // LOD tiles being made or ready to write, per session: enough to keep the generation threads
  // busy for one player, a few tiles' bytes held (docs/lod.md, "Sessions").
  static constexpr size_t kTileWindow = 4;
  // A session with a LOD radius applies its next update no sooner than this after the last: a
  // move of the player's chunk recomputes its LOD view (some 400 tiles, about 0.1 ms on the
  // callback threads), and 16 sessions teleporting every 10 ms took a quarter of a core. A
  // player walking 10 chunks a second still has its view recomputed at every second chunk.
  static constexpr auto kMinLodUpdateInterval = std::chrono::milliseconds(50);
  // A tile the queue refused or that came back dropped is asked for again after this.
  static constexpr auto kTileRetry = std::chrono::milliseconds(100);
  // Keys in one `lod_pristine` event: a whole LOD view (about 400 tiles, 3 to 5 bytes each) in
  // a few events.
  static constexpr size_t kMaxPristineTiles = 128;
  // Keys in one `unloads` or `lod_unloads` event (a client that reads unload batches): a jump's
  // radius-16 view (1,089 chunks) in 3 events, a teleport's LOD view (400 to 455 tiles) in one.
  // A key near the event's first takes 2 to 5 bytes, 15 at most (keys across the world): an
  // event is under 8 KiB.
  // One event per key was 90,000 events a second from 10 sessions whose clients make their
  // tiles, teleporting.
  static constexpr size_t kMaxUnloadKeys = 512;

  grpc::Status open();

  // One update: checked, its options taken if it is the first, then the view moved. Called
  // with the mutex held, as every method below.
  grpc::Status apply(const std::string& bytes);

  // Queues, into the cache only, the chunks the player's next step brings into view if it walks
  // on as it came: after every view's own chunks, so that a walking player finds them made. At
  // most one ring's worth outstanding (8 (radius + 1), what the first view looks ahead at):
  // a player who moves faster than they are made gets no more; their view still comes first.
  void look_ahead(uint32_t radius);

  // The `cancelled` of this session's fetches: the call is over, or the flag is raised.
  std::function<bool()> unwanted(std::shared_ptr<std::atomic<bool>> flag) const;
  static v1::ChunkCoord coord_of(ChunkCoord key);

  // Committed edits reach the session from the EditService's tail thread; it stops listening
  // once the call is over.
  void listen_for_edits();
  void receive(const ChangeList& changes);

  // Chunks the client holds from before (a resumed session, its own cache) at another version
  // than the current one are sent again whole.
  void catch_up_held();

  // Reads the next update unless the client owes too many unloads (it is then not reading, and
  // HTTP/2 flow control holds its updates back until it does) or an update read waits.
  void read_more();
  // Applies the update just read once update_interval() has passed since the last one: at once
  // (a walking player's, and every first one), or on an alarm. Pacing the reads instead cost an
  // alarm per update, and 2,000 players joining at once were 2,000 alarms in their first
  // milliseconds (docs/client-generation.md, "The transport floor, and an alarm per update").
  void apply_when_due();
  void apply_read();
  std::chrono::steady_clock::duration update_interval() const;

  // Starts generations (nearest first, within the window) and writes the next event.
  void pump();

  // Asks for the view's next LOD tiles, within the window. Tiles come after every chunk: their
  // queue priority is after the views' rings, and their events are written when no chunk's is.
  void request_tiles();

  // A tile made, or dropped (null): one the view still wants is asked for again after
  // kTileRetry, not at once (a full queue refuses it again; a failing tile would loop).
  void tile_made(const LodKey& key, Bytes bytes);
  // tile_made's bookkeeping, without the pump: request_tiles runs inside pump and inside the
  // building of a `lod_pristine` event, which a nested pump's write would overtake.
  void take_tile(const LodKey& key, Bytes bytes);
  void write_tile(const TileView::Event& tile);
  // The event for an owed unload: an `unload` (`lod_unload`), or for a client that reads unload
  // batches, an `unloads` (`lod_unloads`) with every other unload owed now as well, in order, at
  // most kMaxUnloadKeys. Unloads before loads, as one event each.
  std::string unloads(ChunkCoord first);
  std::string tile_unloads(const LodKey& first);
  // The `lod_pristine` event of a client that makes tiles: `first` and every pristine tile ready
  // after it, in order (a tile with bytes or an unload met on the way is stashed, written next).
  std::string pristine_tiles(const LodKey& first);

  // The event for a ready chunk: a `load`, or for a client that reads batches, a `loads` with
  // every other chunk ready now (nearest first) as well. A burst of chunks (a first view) then
  // goes in a few writes, not one per chunk.
  std::string loads(const std::string& first);
  void count_load();
  // Whether the ready chunks wait for the session's others under way, so that they go in one
  // event: for a client that reads batches, at most limits().load_gather from the first one
  // held, and never once nothing is under way. One write per chunk cost more CPU than making it
  // when 200 players joined at once (docs/server.md, "Gathering loads").
  bool gathering();
  void request(const SessionView::Generation& generation);
  // The chunk itself, from the cache or the queue (every chunk of a session the server sends
  // chunks to; an edited chunk whose change would be larger than it, for a client that
  // generates).
  void request_chunk(const SessionView::Generation& generation);
  // A chunk as a session's view holds it: its bytes, or for a client that generates (whose
  // view holds events), its `load` event.
  Bytes as_load(Bytes chunk) const;
  void delivered(ChunkCoord key, Bytes bytes, uint64_t version);

  // An edited chunk the store could not give: it stays in flight (holding its window slot) and
  // is asked for again after the store's backoff, not at once: a busy loop otherwise.
  void retry_later(ChunkCoord key, uint64_t version);
  void retry_now();

  // The client asked to generate pristine chunks itself: the server's answer goes first.
  void answer_local(const v1::LocalGeneration& client);

  // A chunk for a client that generates: a pristine one (the version index says 0) is ready at
  // once, marked by empty bytes; an edited one waits for its log (read_edited).
  void request_local(const SessionView::Generation& generation);
  static Bytes pristine_marker();

  // Reads the logs of waiting edited chunks on the generation queue at the chunk's ring
  // priority, at most kWindow at a time and only while few chunks are ready to write: the
  // encoded changes a session holds stay bounded whatever the client reads.
  void read_edited();

  // The edited chunk's event; null when the store could not give its log (StoreUnavailable:
  // delivered() retries it after the store's backoff); whole_chunk() when the change would be
  // larger than the chunk it leads to (the chunk goes instead: request_chunk).
  // `older_land`: SessionEvent.older_land for it (empty: none).
  static Bytes edited_bytes(EditService& edits, ChunkCoord key, uint64_t version, const std::string& older_land);
  static Bytes whole_chunk();
  void edited_read(const SessionView::Generation& generation, Bytes bytes, uint64_t version);

  // The events of ready chunks for a client that generates: an edited chunk's own event, or one
  // `pristine` event with every pristine chunk ready now, in load order (an edited chunk met on
  // the way is written next).
  std::string local_loads(const SessionView::Event& first);
  // Writes `event` through StreamCall::write (charged to the connection).
  void send(std::string event);
  // The connection has room again (StreamCall::room_for_more): generate and write on.
  void resumed();

  // The server drains: the next event written is `reconnect`, and the call ends OK after it
  // (pump stops everything else). Its client opens a new session elsewhere with what it holds.
  void reconnect_elsewhere();
  void write_reconnect();

  // What the session gives back as it finishes, besides its slot.
  void released();
  SessionView view_;
  TileView tiles_;
  LookAhead ahead_;
  grpc::ByteBuffer incoming_;
  v1::ChunkOptions options_;
  bool have_options_ = false, batch_loads_ = false, batch_unloads_ = false, reading_ = false, reads_done_ = false;
  bool cancelled_ = false, update_waiting_ = false;
  bool reconnecting_ = false, reconnect_written_ = false;  // reconnect_elsewhere()
  uint64_t drain_id_ = 0;                                  // the session's number in service_.session_drain()
  // Local generation (answer_local): accepted; the answer still to write; edited chunks waiting
  // for their log and logs being read; a ready edited chunk met while batching pristine ones.
  bool local_ = false;
  bool local_tiles_ = false;                   // it also makes the pristine LOD tiles (LocalGeneration.generates_tiles)
  std::optional<OlderLandSent> older_land_;    // it holds the older epochs: their land sent so far
  uint32_t view_radius_ = 0, lod_radius_ = 0;  // the last update's (update_interval)
  std::string answer_;
  std::deque<std::pair<SessionView::Generation, uint64_t>> edited_waiting_;
  size_t edited_reading_ = 0;
  std::optional<SessionView::Event> stashed_;
  std::optional<TileView::Event> stashed_tile_;         // met while batching pristine tiles
  std::chrono::steady_clock::time_point last_applied_;  // when the last update was applied
  std::unique_ptr<grpc::Alarm> update_alarm_;           // an update read early waits for it (apply_when_due)
  uint64_t loads_sent_ = 0, unloads_sent_ = 0, changes_sent_ = 0, pristine_sent_ = 0;
  uint64_t tiles_sent_ = 0, tile_unloads_sent_ = 0, pristine_tiles_sent_ = 0;
  std::unique_ptr<grpc::Alarm> tile_alarm_;  // dropped tiles wait for it (tile_made)
  uint64_t player_ = 0;                      // the session's number in service_.players(); 0 before it has one
  // Look-ahead prefetches queued or being made; their waiters count it down from worker threads.
  std::shared_ptr<std::atomic<int64_t>> prefetching_ = std::make_shared<std::atomic<int64_t>>(0);
  std::vector<std::pair<ChunkCoord, uint64_t>> retries_;  // edited chunks to ask for again (retry_later)
  std::unique_ptr<grpc::Alarm> retry_alarm_;
  // gathering(): the alarm that ends the wait, which wait it ends (one per batch written), and
  // whether the current one is over.
  std::unique_ptr<grpc::Alarm> gather_alarm_;
  uint64_t gather_round_ = 0;
  bool gather_over_ = false;
};

}  // namespace chunkforge::server
