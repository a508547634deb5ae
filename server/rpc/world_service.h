// File: server/rpc/world_service.h
//
// chunkforge.v1.WorldService on the gRPC callback API: what the RPCs share (the world, the
// cache, the queue, the limits, validation of a chunk request, fetching a chunk). Each RPC lives
// in a file of its own (get_world_info.cc, get_chunk.cc, stream_region.cc, session.cc,
// locate.cc, edit.cc, chunk_edits.cc) and starts through rpc_call.h's open_call; a unary call
// answers and ends through UnaryCall (unary_call.h), a stream writes and ends through
// StreamCall (stream_call.h), both charging what they write to the OutputBudget. Every method
// is "raw": requests are parsed by open_call, and chunks leave as the cached canonical bytes,
// never re-encoded or copied.
//
// Thread safety: gRPC calls the methods from its threads; generation and edits' preparation run
// on the GenerationQueue; what they share is thread-safe (ChunkCache, GenerationQueue,
// EditService, the call slots, PlayerPositions) or immutable (the World, the limits, the auth).
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "budget/output_budget.h"
#include "chunkforge/lod.h"
#include "chunkforge/v1/service.grpc.pb.h"
#include "chunkforge/world.h"
#include "chunkforge/world_extent.h"
#include "edits/edit_service.h"
#include "edits/serial_lane.h"
#include "generation/chunk_cache.h"
#include "generation/generation_queue.h"
#include "metrics.h"
#include "session/player_positions.h"

namespace chunkforge::server {

// Every bound a client meets (docs/server.md, "Limits and what a client cannot do").
struct Limits {
  uint32_t max_radius = 16;        // StreamRegion radius and Session view radius, chunks
  uint32_t max_lod_radius = 1024;  // Session LOD radius, chunks (docs/lod.md, "Sessions")
  uint32_t max_sessions = 1000;    // player sessions at once; more get RESOURCE_EXHAUSTED
  uint32_t max_streams = 256;      // StreamRegion calls at once; more get RESOURCE_EXHAUSTED
  // Incoming message size: the largest valid Edit batch (256 set_state ops of 256-byte states,
  // 256 expects, a 128-byte request id: about 90 KiB) fits, with room (edit_limits_test.cc).
  int max_request_bytes = 128 << 10;
  // Terrain samples in one chunk's grid: 256 x 256 (a 64-unit chunk at step 1 has 4096). A
  // 1024-unit chunk at step 1 would take 1.5 s and 600 MB, and exceed clients' 4 MB messages.
  uint64_t max_terrain_samples = 65536;
  // HTTP/2 streams (calls) one connection may have open at once; gRPC queues the rest.
  int max_calls_per_connection = 128;
  // Memory gRPC itself may use for connections and calls (its ResourceQuota): past it gRPC reads
  // less and shrinks its windows. Requests read but not yet handled are held there: at 256 MiB,
  // 16 connections sending 128 KiB requests back to back grew the server by 260 to 390 MiB, at
  // 64 by 75 to 160; 500 walking players had no errors at either (docs/server.md, "One budget for
  // every byte held for a client").
  size_t grpc_memory_bytes = size_t{64} << 20;
  // A Session reads no further updates while it owes more unloads than this (the client is not
  // reading): HTTP/2 flow control then holds the client back.
  size_t max_owed_unloads = 4096;
  // Locate's largest radius, world units. Planning cost grows with the area: 4096 takes about
  // 0.1 s for any type of the default world on one thread, 65536 about a minute (wells).
  double max_locate_radius = 4096;
  // Locate calls at once (queued or planning); more get RESOURCE_EXHAUSTED. 0: twice the
  // generation threads. Each plans for up to about 0.1 s on a generation thread.
  uint32_t max_locates = 0;
  // Generation jobs queued at once (GenerationQueue's bound): past it GetChunk, StreamRegion, a
  // Session and Locate get RESOURCE_EXHAUSTED; prefetches and Locate take at most half of it.
  size_t max_queued_jobs = GenerationQueue::kDefaultMaxJobs;
  // Not a limit: a Session prefetches the chunks a walking player's next step brings into view
  // (look_ahead.h).
  bool look_ahead = true;
  // Not a limit: how long a Session's ready chunk may wait for the session's other chunks under
  // way, so that they go in one event (docs/server.md, "Gathering loads"); 0: never.
  std::chrono::milliseconds load_gather{40};
};

// At most `max` calls of one kind at once (sessions, region streams).
class CallSlots {
 public:
  explicit CallSlots(uint32_t max) : max_(max) {}
  // Takes a slot; false when all are taken.
  bool take();
  void give_back() { --used_; }
  uint32_t max() const { return max_; }

 private:
  uint32_t max_;
  std::atomic<uint32_t> used_{0};
};

// Shared-token authentication: with a token set, every WorldService call must carry
// "authorization: Bearer <token>" (health checking and reflection stay open). Edits need the
// write token, which also reads; without one, edits are refused unless `open_edits`.
struct Auth {
  std::string token;        // empty: anyone may read
  std::string write_token;  // empty: nobody may edit, unless open_edits
  bool open_edits = false;  // anyone who may read may edit (local development)
  std::string store_error;  // a store was named but could not be opened: edits UNAVAILABLE
};

// What a validated request asks for: the cache key and how to build the chunk.
struct ChunkJob {
  ChunkCoord coord;
  v1::ChunkOptions options;
  uint64_t version = 0;  // the chunk's edit version: 0 is the generated chunk
  std::string key;
};

// Who a call's work is for, in the generation queue's turns (RoutedJobs: clients in turn within
// a priority): its client's connection. Never 0.
uint64_t client_of(const grpc::CallbackServerContext& context);

// Every method raw: ByteBuffer in and out.
using WorldServiceBase =
    v1::WorldService::WithRawCallbackMethod_GetWorldInfo<v1::WorldService::WithRawCallbackMethod_GetChunk<
        v1::WorldService::WithRawCallbackMethod_StreamRegion<v1::WorldService::WithRawCallbackMethod_Session<
            v1::WorldService::WithRawCallbackMethod_Locate<v1::WorldService::WithRawCallbackMethod_Edit<
                v1::WorldService::WithRawCallbackMethod_GetChunkEdits<v1::WorldService::Service>>>>>>>;

class WorldService final : public WorldServiceBase {
 public:
  // `edits` may be null: a server without a store serves the generated world only. Every
  // answer and event is charged to `budget` before it is written.
  WorldService(const World& world, ChunkCache& cache, GenerationQueue& queue, Metrics& metrics, OutputBudget& budget,
               Limits limits, Auth auth = {}, EditService* edits = nullptr);

  // The RPCs, one file each.
  grpc::ServerUnaryReactor* GetWorldInfo(grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
                                         grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* GetChunk(grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
                                     grpc::ByteBuffer* response) override;
  grpc::ServerWriteReactor<grpc::ByteBuffer>* StreamRegion(grpc::CallbackServerContext* context,
                                                           const grpc::ByteBuffer* request) override;
  grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>* Session(grpc::CallbackServerContext* context) override;
  grpc::ServerUnaryReactor* Locate(grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
                                   grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* Edit(grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
                                 grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* GetChunkEdits(grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
                                          grpc::ByteBuffer* response) override;

  // What fetch() did: the bytes of a hit, or refused (the generation queue is full: nothing was
  // queued, on_ready is never called, the caller answers RESOURCE_EXHAUSTED), or neither (on_ready
  // gets the bytes later).
  struct Fetched {
    Bytes hit;
    bool refused = false;
  };
  // The status of a call refused because the generation queue is full.
  static grpc::Status queue_full();

  // Validates a coordinate and options; the error names the field and the allowed range.
  grpc::Status make_job(const v1::ChunkCoord& coord, const v1::ChunkOptions& options, const std::string& field,
                        ChunkJob& job) const;
  // StreamRegion's request as jobs, nearest first; the error names the field.
  grpc::Status region_jobs(const v1::StreamRegionRequest& request, std::vector<ChunkJob>& jobs) const;
  // GetChunkEdits' request checked: INVALID_ARGUMENT naming a bad field, then
  // FAILED_PRECONDITION when the client may not generate. The chunks it asks for in `asked`, in
  // its order.
  grpc::Status check_chunk_edits(const v1::GetChunkEditsRequest& request, std::vector<ChunkCoord>& asked) const;
  // Locate's request checked; the structure type's id in `type`.
  grpc::Status check_locate(const v1::LocateRequest& request, uint32_t& type) const;
  // The job's bytes now on a cache hit; otherwise on_ready gets them later (null if the
  // generation was dropped), by joining a generation under way or queueing one of `kind`
  // (Work::view or Work::prefetch) on the generation worker that owns the chunk's region. Its
  // priority: `ring`, the chunk's ring in its requester's view (0 for GetChunk); a prefetch's
  // after every view's rings. A request more urgent than a queued generation it joins queues
  // one more at its own priority; whichever runs first makes the chunk. A generation nobody
  // waits for any more leaves the queue (GenerationQueue).
  // `client` (client_of) takes its turn in the queue among the clients at the same priority.
  Fetched fetch(const ChunkJob& job, Work kind, int64_t ring, std::function<bool()> cancelled,
                std::function<void(Bytes)> on_ready, uint64_t client);
  // A LOD tile's canonical bytes (docs/lod.md, "Sessions"), as fetch() does for a chunk: from
  // the chunk cache (bounded in bytes, single-flight: sessions asking for one tile share its
  // making), or made on any generation worker at `tile_priority`, as work of the prefetch kind
  // (at most half the queue). `key` must be valid (lod_view's tiles are).
  Fetched fetch_tile(const LodKey& key, std::function<bool()> cancelled, std::function<void(Bytes)> on_ready,
                     uint64_t client);
  double tile_priority(const LodKey& key) const;
  // Whether the tile is the library's lod_tile as it stands, so that a client that generates
  // can make it (docs/lod.md, "Clients that generate"): it lists no structures (a level past
  // kLodStructureMaxLevel), or none of its chunks was ever edited. Edits change a tile only by
  // removing structures, and a removal edits every chunk the structure touches, so one of the
  // tile's own chunks among them. From the version index: no generation, no store.
  bool tile_pristine(const LodKey& key) const;
  // Why a fetch came back without bytes: UNAVAILABLE for an edited chunk while the edit store
  // is down, else CANCELLED with `otherwise`.
  grpc::Status dropped_status(const ChunkJob& job, const char* otherwise) const;
  // The generated chunk of `coord` with every layer and no terrain (what edits are checked
  // against), from the cache or generated here. Call it on the generation threads (edit.cc does,
  // through edit_lane_).
  v1::Chunk base_chunk(ChunkCoord coord);

  const Limits& limits() const { return limits_; }
  CallSlots& sessions() { return sessions_; }
  CallSlots& streams() { return streams_; }
  CallSlots& locates() { return locates_; }
  GenerationQueue& queue() { return queue_; }
  // OK, or UNAUTHENTICATED when a token is required and the call does not carry it.
  grpc::Status authenticate(const grpc::CallbackServerContext& context) const;
  // OK, or PERMISSION_DENIED when the call may not edit.
  grpc::Status authorize_edit(const grpc::CallbackServerContext& context) const;
  EditService* edits() { return edits_; }
  const World& world() const { return world_; }
  // The largest |chunk coordinate| of the supported world.
  int64_t chunk_limit() const { return chunkforge::chunk_limit(static_cast<uint32_t>(world_.chunk_size())); }
  Metrics& metrics() { return metrics_; }
  OutputBudget& budget() { return budget_; }
  // What GetWorldInfo hands out, set before serving: `publish_seed` false answers with seed 0
  // (--publish-seed off); `share_definition` answers include_definition with the resolved world
  // definition (--client-generation), which holds the seed, so only when the seed is published.
  void disclose(bool publish_seed, bool share_definition);
  // Why a session's client may not generate its pristine chunks itself, for the client to log:
  // the server keeps its definition, or the client cannot make this world's chunks (another
  // fingerprint, no generator version of the world's). "" when it may.
  std::string local_generation_refusal(const v1::LocalGeneration& client) const;
  // The live sessions' positions (the live map shows them with --map-players).
  PlayerPositions& players() { return players_; }

 private:
  // How a missing cache entry is made: on the generation queue, as `kind` at `priority`, by the
  // worker owning `region` (nullopt: any worker).
  struct Production {
    Work kind;
    double priority;
    std::optional<uint64_t> region;
    std::function<void()> make;
    uint64_t client;
  };
  // fetch() and fetch_tile(): the bytes cached under `key`, or a production of them.
  Fetched fetch_key(const std::string& key, Production production, std::function<bool()> cancelled,
                    std::function<void(Bytes)> on_ready);
  void make(const ChunkJob& job);
  void make_tile(const std::string& cache_key, const LodKey& key);
  // lod_tiles.cc: a tile's cache key (with the structure epoch below up to the structures'
  // level), the tile's structures less those edits removed, and the epoch's listener.
  std::string tile_cache_key(const LodKey& key) const;
  void drop_removed_structures(v1::LodTile& tile);
  void listen_for_structure_changes();
  Bytes produce(const ChunkJob& job);
  Bytes generate(const ChunkJob& job) const;
  Bytes cached_or_generated(const ChunkJob& job);

  const World& world_;
  ChunkCache& cache_;
  GenerationQueue& queue_;
  Metrics& metrics_;
  OutputBudget& budget_;
  Limits limits_;
  Auth auth_;
  EditService* edits_;
  CallSlots sessions_, streams_, locates_;
  PlayerPositions players_;
  // Committed changes that touched structures so far (changes_structures), counted on the edit
  // service's tail thread before any session hears of them: tiles that show structures are
  // cached under it, so a change makes them anew. Shared: the listener outlives nothing.
  std::shared_ptr<std::atomic<uint64_t>> structure_epoch_ = std::make_shared<std::atomic<uint64_t>>(0);
  Bytes info_bytes_;        // the WorldInfo every GetWorldInfo answers with
  Bytes definition_bytes_;  // the same with the definition (include_definition); null: kept
  // Edits' preparation (their generated chunks), one at a time, after every chunk in a
  // player's view and before look-ahead (edit.cc).
  SerialLane edit_lane_{[this](std::function<void()> job) { queue_.submit(limits_.max_radius + 0.5, std::move(job)); }};
};

}  // namespace chunkforge::server
