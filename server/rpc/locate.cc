// WorldService::Locate: the nearest instances of a structure type, by planning structures alone.
// Planning a wide search takes milliseconds to seconds, so it runs on the generation queue,
// never on a gRPC thread, after every view's chunks and every prefetch: at most
// Limits::max_locates calls at once, each abandoned (queued or planning) once its client leaves.
#include <atomic>
#include <memory>

#include "chunkforge/encode.h"
#include "chunkforge/structures.h"
#include "log/client_log.h"
#include "rpc/unary_call.h"
#include "rpc/world_service.h"

namespace chunkforge::server {
namespace {

constexpr double kDefaultRadius = 2048;
constexpr uint32_t kDefaultLimit = 10, kMaxLimit = 10000;

// One Locate call: the client's leaving raises the call's cancellation flag, which the queue and
// the planner watch. Every path ends through end(), exactly once: at the start, in the planning
// job, or when the queue drops the job unwanted.
class LocateReactor final : public UnaryCall {
 public:
  LocateReactor(WorldService& service, grpc::CallbackServerContext* context, grpc::ByteBuffer* response)
      : UnaryCall(service, context, response, Metrics::kLocate) {}

  // Checks the request and queues the planning, or ends the call.
  void start(const grpc::ByteBuffer* raw);

 private:
  void plan();
  // The last thing that touches this reactor: the slot given back, then the answer or error.
  void end(const grpc::Status& status, const v1::LocateResponse* answer = nullptr);

  v1::LocateRequest request_;
  uint32_t type_ = 0;
  bool holds_slot_ = false;
};

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
    return invalid("type: the world has no structure type " + quote_client(request.type()) + " (it has " + known + ")");
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
  auto* reactor = new LocateReactor(*this, context, response);
  reactor->start(raw);
  return reactor;
}

namespace {

void LocateReactor::start(const grpc::ByteBuffer* raw) {
  grpc::Status status = open(raw, &request_);
  if (status.ok()) status = service().check_locate(request_, type_);
  if (!status.ok()) return end(status);
  if (!service().locates().take()) {
    return end({grpc::StatusCode::RESOURCE_EXHAUSTED, "too many Locate calls: at most " +
                                                          std::to_string(service().locates().max()) +
                                                          " at once on this server; retry later"});
  }
  holds_slot_ = true;
  // After every view's rings (0 to max_radius) and every prefetch's (to 2 max_radius + 2).
  const double priority = 2.0 * service().limits().max_radius + 3.0;
  QueuedJob job{Work::locate, priority, [this] { plan(); },
                [this]() -> std::function<void()> {
                  if (!cancelled()) return nullptr;
                  return [this] { end({grpc::StatusCode::CANCELLED, "cancelled"}); };
                },
                client_of(context())};
  // The job may run (and end the call) before offer returns: nothing touches `this` after it.
  if (!service().source().offer(std::move(job))) end(WorldService::queue_full());
}

void LocateReactor::plan() {
  if (cancelled()) return end({grpc::StatusCode::CANCELLED, "cancelled"});
  const double radius = request_.radius() == 0 ? kDefaultRadius : request_.radius();
  const uint32_t limit = request_.limit() == 0 ? kDefaultLimit : request_.limit();
  try {
    StructurePlanner planner(service().world());
    planner.watch_abandon(cancellation());  // the server's shutdown cancels every call too
    std::vector<StructureInstance> found =
        planner.locate(type_, Coord{request_.x(), 0.0}, Coord{request_.z(), 0.0}, radius);
    if (found.size() > limit) found.resize(limit);
    v1::LocateResponse answer;
    for (const StructureInstance& s : found) *answer.add_instances() = encode_structure(s);
    end(grpc::Status::OK, &answer);
  } catch (const GenerationAbandoned&) {  // the client left, or the server is stopping
    end({grpc::StatusCode::CANCELLED, "cancelled"});
  } catch (const std::exception& e) {
    log_client(LogKind::kLocateFailed, spdlog::level::err, "locate failed: {}", e.what());
    end({grpc::StatusCode::INTERNAL, "locate failed; see the server log"});
  }
}

void LocateReactor::end(const grpc::Status& status, const v1::LocateResponse* answer) {
  if (holds_slot_) service().locates().give_back();
  holds_slot_ = false;
  if (answer != nullptr) return this->answer(*answer);
  fail(status);
}

}  // namespace
}  // namespace chunkforge::server
