// Fuzz target rpc_request: what a client sends to each RPC, as the server takes it. The first
// byte names the RPC (0 GetWorldInfo, 1 GetChunk, 2 StreamRegion, 3 Locate); the rest is parsed
// into that RPC's request message, as rpc_call.h's open_call does, and checked as the RPC checks
// it (WorldService::make_job, region_jobs, check_locate). Any input must give a request or an
// error with a message: no crash, leak or slow input.
#include <google/protobuf/stubs/logging.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "chunk_cache.h"
#include "generation_queue.h"
#include "metrics.h"
#include "world_service.h"

namespace {

using namespace chunkforge;
using namespace chunkforge::server;

void ignore_log(google::protobuf::LogLevel, const char*, int, const std::string&) {}

// The service as the server builds it; nothing here generates, so the queue stays idle.
struct Server {
  ChunkCache cache{1 << 20};
  GenerationQueue queue{1};
  Metrics metrics;
  WorldService service{default_world(), cache, queue, metrics, Limits{}};
};

void check(const grpc::Status& status) {
  if (!status.ok() && status.error_message().empty()) __builtin_trap();  // every error says why
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  google::protobuf::SetLogHandler(ignore_log);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Server* server = new Server;  // one for the process, as in the server
  if (size == 0) return 0;
  const std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 4) {
    case 0: {
      v1::GetWorldInfoRequest request;
      (void)request.ParseFromString(bytes);
      break;
    }
    case 1: {
      v1::GetChunkRequest request;
      ChunkJob job;
      if (request.ParseFromString(bytes)) check(server->service.make_job(request.coord(), request.options(), "coord", job));
      break;
    }
    case 2: {
      v1::StreamRegionRequest request;
      std::vector<ChunkJob> jobs;
      if (request.ParseFromString(bytes)) check(server->service.region_jobs(request, jobs));
      break;
    }
    default: {
      v1::LocateRequest request;
      uint32_t type = 0;
      if (request.ParseFromString(bytes)) check(server->service.check_locate(request, type));
      break;
    }
  }
  return 0;
}
