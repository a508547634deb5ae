// File: server/rpc/world_service.h
//
// chunkforge.v1.WorldService on the gRPC callback API: what the RPCs share (the world, the
// chunk source, the limits, validation of a chunk request). Each RPC lives
// in a file of its own (get_world_info.cc, get_chunk.cc, stream_region.cc, session.cc,
// locate.cc, edit.cc, chunk_edits.cc) and starts through rpc_call.h's open_call; a unary call
// answers and ends through UnaryCall (unary_call.h), a stream writes and ends through
// StreamCall (stream_call.h), both charging what they write to the OutputBudget. Every method
// is "raw": requests are parsed by open_call, and chunks leave as the cached canonical bytes,
// never re-encoded or copied. A request's chunks come from the ChunkSource
// (generation/chunk_source.h): the RPCs never touch the cache or the generation queue.
//
// Thread safety: gRPC calls the methods from its threads; generation and edits' preparation run
// on the generation threads; what they share is thread-safe (ChunkSource, EditService, the call
// slots, PlayerPositions) or immutable (the World, the limits, the auth).
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "auth/player_tokens.h"
#include "auth/token_buckets.h"
#include "budget/output_budget.h"
#include "chunkforge/lod.h"
#include "chunkforge/v1/service.grpc.pb.h"
#include "chunkforge/world.h"
#include "chunkforge/world_extent.h"
#include "edits/edit_service.h"
#include "edits/serial_lane.h"
#include "generation/chunk_source.h"
#include "metrics/metrics.h"
#include "rpc/finish_gate.h"
#include "rpc/live_calls.h"
#include "session/player_positions.h"
#include "session/session_drain.h"

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
  // Calls at once between their Finish and gRPC's OnDone (FinishGate): past it a call's status
  // waits with its stream open, which holds its connection to its bound of streams.
  size_t max_finishing_calls = 1024;
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
  size_t max_queued_jobs = kDefaultMaxQueuedJobs;
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
// Players' signed tokens (player_tokens.h), when the server is given the game's key, read,
// edit as their player and, with the moderator role, audit and roll back.
struct Auth {
  std::string token;                            // empty: anyone may read
  std::string write_token;                      // empty: nobody may edit, unless open_edits
  bool open_edits = false;                      // anyone who may read may edit (local development)
  std::string store_error;                      // a store was named but could not be opened: edits UNAVAILABLE
  std::shared_ptr<PlayerTokens> player_tokens;  // null: no player tokens
  double player_edits_per_second = 20;          // per player token (TokenBuckets); 0: no limit
};

// Who a call's work is for, in the generation queue's turns (RoutedJobs: clients in turn within
// a priority): its client's connection. Never 0.
uint64_t client_of(const grpc::CallbackServerContext& context);

// Every method raw: ByteBuffer in and out.
using WorldServiceBase =
    v1::WorldService::WithRawCallbackMethod_GetWorldInfo<v1::WorldService::WithRawCallbackMethod_GetChunk<
        v1::WorldService::WithRawCallbackMethod_StreamRegion<v1::WorldService::WithRawCallbackMethod_Session<
            v1::WorldService::WithRawCallbackMethod_Locate<v1::WorldService::WithRawCallbackMethod_Edit<
                v1::WorldService::WithRawCallbackMethod_GetChunkEdits<v1::WorldService::WithRawCallbackMethod_EditLog<
                    v1::WorldService::WithRawCallbackMethod_Rollback<v1::WorldService::Service>>>>>>>>>;

class WorldService final : public WorldServiceBase {
 public:
  // `edits` may be null: a server without a store serves the generated world only. Every
  // answer and event is charged to `budget` before it is written.
  WorldService(const World& world, ChunkSource& source, Metrics& metrics, OutputBudget& budget, Limits limits,
               Auth auth = {}, EditService* edits = nullptr);

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
  grpc::ServerUnaryReactor* EditLog(grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
                                    grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* Rollback(grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
                                     grpc::ByteBuffer* response) override;

  // The status of a call refused because the generation queue is full.
  static grpc::Status queue_full();

  // Validates a coordinate and options into the chunk source's job; the error names the field
  // and the allowed range.
  grpc::Status make_job(const v1::ChunkCoord& coord, const v1::ChunkOptions& options, const std::string& field,
                        ChunkJob& job) const;
  // A StreamRegion request validated: its chunks nearest first and their canonical options, from
  // which each chunk's job is made when it is wanted (a job holds its options and cache key:
  // a radius-16 region's 1,089 jobs made up front were some 100 KiB a stream, outside every
  // budget).
  struct Region {
    std::vector<ChunkCoord> coords;
    v1::ChunkOptions options;
  };
  // StreamRegion's request as a Region; the error names the field.
  grpc::Status check_region(const v1::StreamRegionRequest& request, Region& region) const;
  // GetChunkEdits' request checked: INVALID_ARGUMENT naming a bad field, then
  // FAILED_PRECONDITION when the client may not generate. The chunks it asks for in `asked`, in
  // its order.
  grpc::Status check_chunk_edits(const v1::GetChunkEditsRequest& request, std::vector<ChunkCoord>& asked) const;
  // Locate's request checked; the structure type's id in `type`.
  grpc::Status check_locate(const v1::LocateRequest& request, uint32_t& type) const;
  // Why a fetch came back without bytes: UNAVAILABLE for an edited chunk while the edit store
  // is down, else CANCELLED with `otherwise`.
  grpc::Status dropped_status(const ChunkJob& job, const char* otherwise) const;

  const Limits& limits() const { return limits_; }
  CallSlots& sessions() { return sessions_; }
  CallSlots& streams() { return streams_; }
  CallSlots& locates() { return locates_; }
  // Where chunks and LOD tiles come from, and the generation threads' other work.
  ChunkSource& source() { return source_; }
  // OK, or UNAUTHENTICATED when a token is required and the call does not carry it.
  grpc::Status authenticate(const grpc::CallbackServerContext& context) const;
  // OK with who the caller is, or PERMISSION_DENIED when the call may not edit (UNAUTHENTICATED
  // for a player token that does not verify).
  grpc::Status authorize_edit(const grpc::CallbackServerContext& context, Caller& caller) const;
  // OK with who the caller is, or PERMISSION_DENIED unless the call carries a moderator's token
  // or the write token.
  grpc::Status authorize_moderation(const grpc::CallbackServerContext& context, Caller& caller) const;
  // The same checks for a bearer `token` sent from `peer` (an address) outside gRPC: the live map.
  grpc::Status authorize_edit(const std::string& token, const std::string& peer, Caller& caller) const;
  grpc::Status authorize_moderation(const std::string& token, const std::string& peer, Caller& caller) const;
  // The live map's moderation view (server/map_moderation.h): `json` an EditLogRequest (limit at
  // most kMapLogEntries) or a RollbackRequest, which runs as a preview whatever it says, in
  // protobuf JSON, for the moderator whose bearer `token` it is. Checked as the RPCs check
  // them and queued on the same moderation lane; `done` gets the status and the answer in
  // protobuf JSON (proto field names), on the lane's thread, or on this one when refused. Not
  // run when `cancelled` has risen by its turn.
  enum class MapModeration { kLog, kRollbackPreview };
  static constexpr uint32_t kMapLogEntries = 1000;
  using JsonAnswerFn = std::function<void(const grpc::Status& status, std::string json)>;
  using Cancelled = std::shared_ptr<const std::atomic<bool>>;
  void moderate_json(MapModeration query, const std::string& json, const std::string& token, const std::string& peer,
                     const JsonAnswerFn& done, const Cancelled& cancelled);
  // The per-player edit rate (token_buckets.h).
  TokenBuckets& player_rates() { return player_rates_; }
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
  std::string older_epochs_refusal(const v1::LocalGeneration& client) const;
  // The live sessions' positions (the live map shows them with --map-players).
  PlayerPositions& players() { return players_; }
  // The live sessions, told to reconnect elsewhere when the server drains (drain_sessions).
  SessionDrain& session_drain() { return drain_; }
  // The calls under way, reactor by reactor (WorldServer::shutdown waits for none).
  LiveCalls& live_calls() { return live_calls_; }
  // Every call's Finish passes it, and every call's OnDone gives its place back.
  FinishGate& finish_gate() { return finish_gate_; }
  size_t finishes_waiting() const { return finish_gate_.waiting(); }
  // A rolling update's first step: every session, and every one opened from now on, gets a
  // `reconnect` event and ends OK, so that its client moves to another replica with what it holds.
  // How many sessions it told.
  size_t drain_sessions() { return drain_.start(); }

 private:
  const World& world_;
  ChunkSource& source_;
  Metrics& metrics_;
  OutputBudget& budget_;
  Limits limits_;
  Auth auth_;
  TokenBuckets player_rates_;
  EditService* edits_;
  CallSlots sessions_, streams_, locates_;
  PlayerPositions players_;
  SessionDrain drain_;
  LiveCalls live_calls_;
  FinishGate finish_gate_;
  Bytes info_bytes_;        // the WorldInfo every GetWorldInfo answers with
  Bytes definition_bytes_;  // the same with the definition (include_definition); null: kept
  // Edits' preparation (their generated chunks), one at a time, after every chunk in a
  // player's view and before look-ahead (edit.cc).
  SerialLane edit_lane_{
      [this](std::function<void()> job) { source_.submit(limits_.max_radius + 0.5, std::move(job)); }};
  // Moderation's reads and rollbacks (moderation.cc), one at a time, after edits' preparation.
  grpc::Status queue_moderation(std::function<void()> job);
  // Rollback's request checked (an area within the world).
  grpc::Status check_rollback(const v1::RollbackRequest& request) const;
  // Plans (preview) or applies a checked rollback for `moderator`; the new versions raised in
  // the index. Stops between groups once `stop` says so (roll_back). Throws StoreError.
  grpc::Status run_rollback(const v1::RollbackRequest& request, const Caller& moderator, v1::RollbackResponse& answer,
                            const std::function<bool()>& stop);
  // The map's queries (moderate_json) parsed and checked, with the lane's work that answers
  // them in JSON (throws StoreError).
  using Job = std::function<grpc::Status(std::string& answer)>;
  grpc::Status map_log_job(const std::string& json, Job& work);
  grpc::Status map_preview_job(const std::string& json, const Caller& moderator, const Cancelled& cancelled, Job& work);
  static constexpr int kMaxModerationJobs = 8;
  std::atomic<int> moderation_jobs_{0};
  SerialLane moderation_lane_{
      [this](std::function<void()> job) { source_.submit(limits_.max_radius + 0.75, std::move(job)); }};
};

}  // namespace chunkforge::server
