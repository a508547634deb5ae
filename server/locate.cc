// WorldService::Locate: the nearest instances of a structure type, by planning structures alone.
// Planning a wide search takes milliseconds to seconds, so it runs on the generation queue
// (at GetChunk's priority), never on a gRPC thread.
#include <spdlog/spdlog.h>

#include <memory>

#include "byte_buffer.h"
#include "chunkforge/encode.h"
#include "chunkforge/quote.h"
#include "chunkforge/structures.h"
#include "rpc_call.h"
#include "world_service.h"

namespace chunkforge::server {
namespace {

constexpr double kDefaultRadius = 2048;
constexpr uint32_t kDefaultLimit = 10, kMaxLimit = 10000;

grpc::Status invalid(const std::string& message) { return {grpc::StatusCode::INVALID_ARGUMENT, message}; }

}  // namespace

grpc::Status WorldService::check_locate(const v1::LocateRequest& request, uint32_t& type) const {
  std::string known;
  const StructureType* found = nullptr;
  for (const StructureType& t : world_.structures().all()) {
    if (t.name == request.type()) found = &t;
    known += (known.empty() ? "" : ", ") + t.name;
  }
  if (found == nullptr) {
    return invalid("type: the world has no structure type " + quote_input(request.type()) + " (it has " + known + ")");
  }
  type = found->id;
  for (const auto& [name, value] : {std::pair{"x", request.x()}, std::pair{"z", request.z()}}) {
    if (value < -kWorldUnits || value > kWorldUnits) {
      return invalid(std::string(name) + ": must be within the supported world, |value| <= 2^40 (got " +
                     std::to_string(value) + ")");
    }
  }
  if (!(request.radius() >= 0 && request.radius() <= limits_.max_locate_radius)) {
    return invalid("radius: must be in (0, " + std::to_string(static_cast<int64_t>(limits_.max_locate_radius)) +
                   "] world units on this server (got " + std::to_string(request.radius()) + ")");
  }
  if (request.limit() > kMaxLimit) {
    return invalid("limit: must be in [1, 10000] (got " + std::to_string(request.limit()) + ")");
  }
  return grpc::Status::OK;
}

grpc::ServerUnaryReactor* WorldService::Locate(grpc::CallbackServerContext* context, const grpc::ByteBuffer* raw,
                                               grpc::ByteBuffer* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  auto request = std::make_shared<v1::LocateRequest>();
  grpc::Status status = open_call(*this, Metrics::kLocate, *context, raw, request.get());
  uint32_t type = 0;
  if (status.ok()) status = check_locate(*request, type);
  if (!status.ok()) {
    finish_unary(reactor, metrics_, Metrics::kLocate, status);
    return reactor;
  }
  queue_.submit(0, [this, reactor, context, request, response, type] {
    if (context->IsCancelled()) return reactor->Finish({grpc::StatusCode::CANCELLED, "cancelled"});
    const double radius = request->radius() == 0 ? kDefaultRadius : request->radius();
    const uint32_t limit = request->limit() == 0 ? kDefaultLimit : request->limit();
    try {
      StructurePlanner planner(world_);
      planner.watch_abandon(queue_.stopping());
      std::vector<StructureInstance> found =
          planner.locate(type, Coord{request->x(), 0.0}, Coord{request->z(), 0.0}, radius);
      if (found.size() > limit) found.resize(limit);
      v1::LocateResponse answer;
      for (const StructureInstance& s : found) *answer.add_instances() = encode_structure(s);
      *response = buffer_of(answer.SerializeAsString());
      reactor->Finish(grpc::Status::OK);
    } catch (const GenerationAbandoned&) {  // the server is stopping
      reactor->Finish({grpc::StatusCode::UNAVAILABLE, "the server is shutting down; retry"});
    } catch (const std::exception& e) {
      spdlog::error("locate failed: {}", e.what());
      finish_unary(reactor, metrics_, Metrics::kLocate, {grpc::StatusCode::INTERNAL, "locate failed; see the server log"});
    }
  });
  return reactor;
}

}  // namespace chunkforge::server
