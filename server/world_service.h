// File: server/world_service.h
//
// chunkforge.v1.WorldService on the gRPC callback API. GetChunk and StreamRegion are "raw"
// methods: chunks leave as the cached canonical bytes, never re-encoded.
//
// Thread safety: gRPC calls the methods from its threads; generation runs on the
// GenerationQueue; everything shared is the thread-safe ChunkCache and the immutable World.
#pragma once

#include <atomic>
#include <string>

#include "chunk_cache.h"
#include "chunkforge/v1/service.grpc.pb.h"
#include "chunkforge/world.h"
#include "generation_queue.h"
#include "metrics.h"

namespace chunkforge::server {

struct Limits {
  uint32_t max_radius = 16;     // StreamRegion radius and Session view radius, chunks
  uint32_t max_sessions = 1000;  // player sessions at once; more get RESOURCE_EXHAUSTED
  int max_request_bytes = 64 << 10;  // incoming message size (requests are tiny)
  // Locate's largest radius, world units. Planning cost grows with the area: 4096 takes about
  // 0.1 s for any type of the default world on one thread, 65536 about a minute (wells).
  double max_locate_radius = 4096;
};

// Shared-token authentication: with a token set, every WorldService call must carry
// "authorization: Bearer <token>" (health checking and reflection stay open).
struct Auth {
  std::string token;  // empty: no authentication
};

// What a validated request asks for: the cache key and how to build the chunk.
struct ChunkJob {
  ChunkCoord coord;
  v1::ChunkOptions options;
  std::string key;
};

// GetWorldInfo and Locate typed; the chunk-carrying methods raw (ByteBuffer in and out).
using WorldServiceBase = v1::WorldService::WithCallbackMethod_GetWorldInfo<
    v1::WorldService::WithRawCallbackMethod_GetChunk<v1::WorldService::WithRawCallbackMethod_StreamRegion<
        v1::WorldService::WithRawCallbackMethod_Session<
            v1::WorldService::WithCallbackMethod_Locate<v1::WorldService::Service>>>>>;

class WorldService final : public WorldServiceBase {
 public:
  WorldService(const World& world, ChunkCache& cache, GenerationQueue& queue, Metrics& metrics, Limits limits,
               Auth auth = {});

  grpc::ServerUnaryReactor* GetWorldInfo(grpc::CallbackServerContext* context,
                                         const v1::GetWorldInfoRequest* request,
                                         v1::WorldInfo* response) override;
  grpc::ServerUnaryReactor* GetChunk(grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
                                     grpc::ByteBuffer* response) override;
  grpc::ServerWriteReactor<grpc::ByteBuffer>* StreamRegion(grpc::CallbackServerContext* context,
                                                           const grpc::ByteBuffer* request) override;
  grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>* Session(grpc::CallbackServerContext* context) override;
  // In locate.cc: plans structures on the generation queue.
  grpc::ServerUnaryReactor* Locate(grpc::CallbackServerContext* context, const v1::LocateRequest* request,
                                   v1::LocateResponse* response) override;

  // Validates a coordinate and options; the error names the field and the allowed range.
  grpc::Status make_job(const v1::ChunkCoord& coord, const v1::ChunkOptions& options, const std::string& field,
                        ChunkJob& job) const;
  // The job's bytes now on a cache hit; otherwise null, and `on_ready` gets them later (null if
  // the generation was dropped), by joining a running generation or queueing one at
  // `priority` (smaller first).
  Bytes fetch(const ChunkJob& job, double priority, std::function<bool()> cancelled,
              std::function<void(Bytes)> on_ready);

  const Limits& limits() const { return limits_; }
  // Takes a session slot (false when all max_sessions are taken); leave_session() frees it.
  bool enter_session();
  void leave_session() { --sessions_; }
  // OK, or UNAUTHENTICATED when a token is required and the call does not carry it.
  grpc::Status authenticate(const grpc::CallbackServerContext& context) const;
  const World& world() const { return world_; }
  Metrics& metrics() { return metrics_; }

 private:
  Bytes produce(const ChunkJob& job) const;

  const World& world_;
  ChunkCache& cache_;
  GenerationQueue& queue_;
  Metrics& metrics_;
  Limits limits_;
  Auth auth_;
  std::atomic<uint32_t> sessions_{0};
  v1::WorldInfo info_;
};

}  // namespace chunkforge::server
