// Fuzz target rpc_request: what a client sends to each RPC, as the server takes it. The first
// byte names the RPC: its index among WorldService's methods in the service's descriptor
// (service.proto's order, modulo their number), so every RPC is fuzzed, a new one included
// without anyone listing it. The rest is parsed into that RPC's request message, as
// rpc_call.h's open_call does (a Session's first update, as session.cc parses it), and checked
// as the RPC checks it, where the RPC has a check of its own (kChecks). Any input must give a
// request or an error with a message: no crash, leak or slow input.
#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <google/protobuf/stubs/logging.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "edits/edit_batch.h"
#include "generation/chunk_cache.h"
#include "generation/generation_queue.h"
#include "metrics/metrics.h"
#include "rpc/world_service.h"
#include "session/session_view.h"

namespace {

using namespace chunkforge;
using namespace chunkforge::server;
using google::protobuf::Message;

void ignore_log(google::protobuf::LogLevel, const char*, int, const std::string&) {}

// The service as the server builds it; nothing here generates, so the queue stays idle.
struct Server {
  ChunkCache cache{1 << 20};
  GenerationQueue queue{1};
  Metrics metrics;
  OutputBudget budget{OutputLimits{}};
  ChunkSource source{default_world(), cache, queue, nullptr, Limits{}.max_radius};
  WorldService service{default_world(), source, metrics, budget, Limits{}};
};

// The checks an RPC makes of its parsed request before any work, by RPC name.
using Check = std::function<grpc::Status(const WorldService&, const Message&)>;

// `check` on a request of type Request; a request of another type means the RPC's request type
// changed in service.proto and its check here did not.
template <class Request>
Check check_of(grpc::Status (*check)(const WorldService&, const Request&)) {
  return [check](const WorldService& service, const Message& message) {
    const auto* request = dynamic_cast<const Request*>(&message);
    if (request == nullptr) __builtin_trap();
    return check(service, *request);
  };
}

grpc::Status check_get_chunk(const WorldService& service, const v1::GetChunkRequest& request) {
  ChunkJob job;
  return service.make_job(request.coord(), request.options(), "coord", job);
}

grpc::Status check_stream_region(const WorldService& service, const v1::StreamRegionRequest& request) {
  WorldService::Region region;
  return service.check_region(request, region);
}

grpc::Status check_session(const WorldService& service, const v1::SessionUpdate& update) {
  const std::string error = update_error(update, service.limits().max_radius, service.limits().max_lod_radius,
                                         static_cast<double>(kWorldUnits));
  if (!error.empty()) return {grpc::StatusCode::INVALID_ARGUMENT, error};
  ChunkJob probe;  // the first update's options, as session.cc checks them
  return service.make_job({}, update.options(), "options", probe);
}

grpc::Status check_locate(const WorldService& service, const v1::LocateRequest& request) {
  uint32_t type = 0;
  return service.check_locate(request, type);
}

grpc::Status check_chunk_edits(const WorldService& service, const v1::GetChunkEditsRequest& request) {
  std::vector<ChunkCoord> asked;
  return service.check_chunk_edits(request, asked);
}

grpc::Status check_edit(const WorldService& service, const v1::EditRequest& request) {
  return check_request(service.world(), request, service.chunk_limit());
}

const std::map<std::string, Check> kChecks = {
    {"GetChunk", check_of(check_get_chunk)}, {"StreamRegion", check_of(check_stream_region)},
    {"Session", check_of(check_session)},    {"Locate", check_of(check_locate)},
    {"Edit", check_of(check_edit)},          {"GetChunkEdits", check_of(check_chunk_edits)},
    // GetWorldInfo's empty request has nothing to check
};

// One RPC: its request's empty message and its check (null: parsed only).
struct Rpc {
  const Message* prototype;
  const Check* check;
};

// The RPCs in the descriptor's order. A check named here for an RPC the service no longer has
// stops the fuzzer: it would silently check nothing.
std::vector<Rpc> rpcs_of_the_service() {
  const google::protobuf::ServiceDescriptor* service =
      google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(v1::WorldService::service_full_name());
  if (service == nullptr) __builtin_trap();
  std::vector<Rpc> rpcs;
  for (int i = 0; i < service->method_count(); ++i) {
    const google::protobuf::MethodDescriptor* method = service->method(i);
    const auto check = kChecks.find(method->name());
    rpcs.push_back({google::protobuf::MessageFactory::generated_factory()->GetPrototype(method->input_type()),
                    check == kChecks.end() ? nullptr : &check->second});
  }
  for (const auto& [name, check] : kChecks) {
    if (service->FindMethodByName(name) == nullptr) {
      std::fprintf(stderr, "rpc_request_fuzzer: %s has a check but no RPC of that name\n", name.c_str());
      __builtin_trap();
    }
  }
  return rpcs;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  google::protobuf::SetLogHandler(ignore_log);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Server* server = new Server;  // one for the process, as in the server
  static const std::vector<Rpc> rpcs = rpcs_of_the_service();
  if (size == 0) return 0;
  const Rpc& rpc = rpcs[data[0] % rpcs.size()];
  const std::unique_ptr<Message> request(rpc.prototype->New());
  if (!request->ParseFromArray(data + 1, static_cast<int>(size - 1)) || rpc.check == nullptr) return 0;
  const grpc::Status status = (*rpc.check)(server->service, *request);
  if (!status.ok() && status.error_message().empty()) __builtin_trap();  // every error says why
  return 0;
}
