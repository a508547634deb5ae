#include "world_service.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <memory>
#include <mutex>

#include "byte_buffer.h"
#include "chunkforge/encode.h"
#include "session_reactor.h"

namespace chunkforge::server {
namespace {

// Chunks produced on a worker thread reuse that thread's scatter memo: neighbouring requests
// do not redo each other's halos. Output never depends on the memo.
constexpr size_t kWorkerMemoCells = 16384;

bool parse(const grpc::ByteBuffer& buffer, google::protobuf::Message& message) {
  return message.ParseFromString(bytes_of(buffer));
}

grpc::ByteBuffer to_buffer(const Bytes& bytes) { return buffer_of(*bytes); }

// Nearest first: squared distance between chunk centres, ties by z then x.
std::vector<ChunkCoord> nearest_first(ChunkCoord centre, int64_t radius) {
  std::vector<ChunkCoord> out;
  for (int64_t z = centre.z - radius; z <= centre.z + radius; ++z) {
    for (int64_t x = centre.x - radius; x <= centre.x + radius; ++x) out.push_back({x, z});
  }
  std::sort(out.begin(), out.end(), [&](const ChunkCoord& a, const ChunkCoord& b) {
    const int64_t da = (a.x - centre.x) * (a.x - centre.x) + (a.z - centre.z) * (a.z - centre.z);
    const int64_t db = (b.x - centre.x) * (b.x - centre.x) + (b.z - centre.z) * (b.z - centre.z);
    return std::tie(da, a.z, a.x) < std::tie(db, b.z, b.x);
  });
  return out;
}

// StreamRegion: generation runs ahead of the writes by a bounded window; writes go out in
// nearest-first order, one in flight at a time (gRPC flow control paces the stream).
class RegionReactor final : public grpc::ServerWriteReactor<grpc::ByteBuffer> {
 public:
  static constexpr size_t kAhead = 16;  // generations requested beyond the next write

  RegionReactor(WorldService& service, grpc::CallbackServerContext* context, const grpc::ByteBuffer* request)
      : service_(service), context_(context), state_(std::make_shared<State>()) {
    state_->reactor = this;
    service_.metrics().request(Metrics::kStreamRegion);
    service_.metrics().stream_started();
    if (const grpc::Status auth = service.authenticate(*context); !auth.ok()) {
      finish(auth);
      return;
    }
    v1::StreamRegionRequest r;
    if (!parse(*request, r)) {
      finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "request: not a StreamRegionRequest"));
      return;
    }
    if (r.radius() > service.limits().max_radius) {
      finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                          "radius: must be in [0, " + std::to_string(service.limits().max_radius) + "] (got " +
                              std::to_string(r.radius()) + ")"));
      return;
    }
    // The centre first: centre +- radius must not overflow on the way to checking each chunk.
    ChunkJob centre;
    if (const grpc::Status status = service.make_job(r.centre(), r.options(), "centre", centre); !status.ok()) {
      finish(status);
      return;
    }
    for (const ChunkCoord& c : nearest_first({r.centre().x(), r.centre().z()}, r.radius())) {
      v1::ChunkCoord coord;
      coord.set_x(c.x);
      coord.set_z(c.z);
      ChunkJob job;
      const grpc::Status status = service.make_job(coord, r.options(), "centre", job);
      if (!status.ok()) {
        finish(status);
        return;
      }
      jobs_.push_back(std::move(job));
    }
    ready_.resize(jobs_.size());
    std::lock_guard lock(state_->mutex);
    request_more();
    write_next();
  }

  void OnWriteDone(bool ok) override {
    std::lock_guard lock(state_->mutex);
    writing_ = false;
    if (!ok || context_->IsCancelled()) return finish(grpc::Status(grpc::StatusCode::CANCELLED, "stream cancelled"));
    ready_[next_].reset();
    ++next_;
    service_.metrics().chunk_sent();
    request_more();
    write_next();
  }

  void OnCancel() override {
    std::lock_guard lock(state_->mutex);
    if (!writing_) finish(grpc::Status(grpc::StatusCode::CANCELLED, "stream cancelled"));
  }

  void OnDone() override {
    {
      std::lock_guard lock(state_->mutex);
      state_->reactor = nullptr;  // late generations find no one to deliver to
      state_->over = true;
    }
    delete this;
  }

 private:
  // Shared with the pending generations, which may outlive the reactor.
  struct State {
    std::mutex mutex;
    RegionReactor* reactor = nullptr;
    std::atomic<bool> over{false};  // finished: pending generations are no longer wanted
  };

  // Called with the state's mutex held.
  void request_more() {
    while (requested_ < jobs_.size() && requested_ < next_ + kAhead && !finished_) {
      const size_t index = requested_++;
      std::weak_ptr<State> state = state_;
      // The context dies with the call, which may end before this waiter is dropped: the
      // waiter asks the shared state instead (an atomic, no lock: the cache calls it under its
      // own lock).
      Bytes hit = service_.fetch(jobs_[index], static_cast<double>(index),
                                 [state] {
                                   const std::shared_ptr<State> s = state.lock();
                                   return !s || s->over.load();
                                 },
                                 [state, index](Bytes bytes) {  // later, on a worker thread
                                   const std::shared_ptr<State> s = state.lock();
                                   if (!s) return;
                                   std::lock_guard lock(s->mutex);
                                   if (s->reactor != nullptr) s->reactor->delivered(index, std::move(bytes));
                                 });
      if (hit) ready_[index] = std::move(hit);
    }
  }

  // Called with the state's mutex held.
  void delivered(size_t index, Bytes bytes) {
    if (finished_) return;
    if (!bytes) return finish(grpc::Status(grpc::StatusCode::CANCELLED, "generation dropped"));
    ready_[index] = std::move(bytes);
    write_next();
  }

  // Called with the state's mutex held.
  void write_next() {
    if (finished_ || writing_) return;
    if (next_ == jobs_.size()) return finish(grpc::Status::OK);
    if (!ready_[next_]) return;
    writing_ = true;
    buffer_ = to_buffer(ready_[next_]);
    StartWrite(&buffer_);
  }

  void finish(const grpc::Status& status) {
    if (finished_) return;
    finished_ = true;
    state_->over = true;
    if (!status.ok()) service_.metrics().error(Metrics::kStreamRegion);
    if (!status.ok() && status.error_code() != grpc::StatusCode::CANCELLED) {
      spdlog::info("StreamRegion: {}", status.error_message());
    }
    service_.metrics().stream_ended();
    Finish(status);
  }

  WorldService& service_;
  grpc::CallbackServerContext* context_;
  std::shared_ptr<State> state_;
  std::vector<ChunkJob> jobs_;
  std::vector<Bytes> ready_;
  size_t requested_ = 0, next_ = 0;
  bool writing_ = false, finished_ = false;
  grpc::ByteBuffer buffer_;
};

}  // namespace

WorldService::WorldService(const World& world, ChunkCache& cache, GenerationQueue& queue, Metrics& metrics,
                           Limits limits, Auth auth)
    : world_(world),
      cache_(cache),
      queue_(queue),
      metrics_(metrics),
      limits_(limits),
      auth_(std::move(auth)),
      info_(describe_world(world)) {}

bool WorldService::enter_session() {
  uint32_t now = sessions_.load();
  do {
    if (now >= limits_.max_sessions) return false;
  } while (!sessions_.compare_exchange_weak(now, now + 1));
  return true;
}

grpc::Status WorldService::authenticate(const grpc::CallbackServerContext& context) const {
  if (auth_.token.empty()) return grpc::Status::OK;
  const auto& metadata = context.client_metadata();
  const auto it = metadata.find("authorization");
  const std::string expected = "Bearer " + auth_.token;
  if (it != metadata.end() && it->second.size() == expected.size()) {
    // Constant time: no early exit that would tell how much of the token matched.
    unsigned char diff = 0;
    const char* given = it->second.data();
    for (size_t k = 0; k < expected.size(); ++k) diff |= static_cast<unsigned char>(given[k] ^ expected[k]);
    if (diff == 0) return grpc::Status::OK;
  }
  return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                      "missing or wrong token: send the metadata \"authorization: Bearer <token>\"");
}

grpc::ServerUnaryReactor* WorldService::GetWorldInfo(grpc::CallbackServerContext* context,
                                                     const v1::GetWorldInfoRequest*, v1::WorldInfo* response) {
  metrics_.request(Metrics::kGetWorldInfo);
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  const grpc::Status auth = authenticate(*context);
  if (auth.ok()) *response = info_;
  if (!auth.ok()) metrics_.error(Metrics::kGetWorldInfo);
  reactor->Finish(auth);
  return reactor;
}

grpc::Status WorldService::make_job(const v1::ChunkCoord& coord, const v1::ChunkOptions& options,
                                    const std::string& field, ChunkJob& job) const {
  const int64_t limit = (int64_t{1} << 40) / world_.chunk_size();
  for (const auto& [name, value] : {std::pair{".x", coord.x()}, std::pair{".z", coord.z()}}) {
    if (value < -limit || value > limit) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                          field + name + ": must be in [" + std::to_string(-limit) + ", " + std::to_string(limit) +
                              "] (the supported world, 2^40 units) (got " + std::to_string(value) + ")");
    }
  }
  const uint32_t step = options.terrain_step() == 0 ? 1 : options.terrain_step();
  if (options.include_terrain() && (step > world_.chunk_size() || world_.chunk_size() % step != 0)) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        "options.terrain_step: must divide the chunk size " + std::to_string(world_.chunk_size()) +
                            " (got " + std::to_string(step) + ")");
  }
  std::vector<uint32_t> layers(options.layers().begin(), options.layers().end());
  for (uint32_t id : layers) {
    if (id >= world_.resources().size()) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                          "options.layers: layer ids are in [0, " + std::to_string(world_.resources().size()) +
                              ") (got " + std::to_string(id) + ")");
    }
  }
  std::sort(layers.begin(), layers.end());
  layers.erase(std::unique(layers.begin(), layers.end()), layers.end());
  job.coord = {coord.x(), coord.z()};
  job.options.set_include_terrain(options.include_terrain());
  job.options.set_terrain_step(options.include_terrain() ? step : 0);
  for (uint32_t id : layers) job.options.add_layers(id);
  // The canonical options are part of the key: equal requests share one cache entry.
  job.key = std::to_string(job.coord.x) + "," + std::to_string(job.coord.z) + "/" + job.options.SerializeAsString();
  return grpc::Status::OK;
}

Bytes WorldService::produce(const ChunkJob& job) const {
  const auto start = std::chrono::steady_clock::now();
  thread_local std::unique_ptr<ChunkStream> stream;
  thread_local const World* stream_world = nullptr;
  if (!stream || stream_world != &world_) {
    stream = std::make_unique<ChunkStream>(world_, kWorkerMemoCells);
    stream_world = &world_;
  }
  ChunkData data = stream->generate(job.coord);
  if (job.options.layers_size() > 0) {
    const auto& keep = job.options.layers();
    std::erase_if(data.objects, [&](const ResourceObject& o) {
      return std::find(keep.begin(), keep.end(), o.layer) == keep.end();
    });
  }
  v1::Chunk chunk = encode_chunk(world_, data);
  if (job.options.include_terrain()) add_terrain(world_, job.options.terrain_step(), chunk);
  Bytes bytes = std::make_shared<const std::string>(canonical_bytes(chunk));
  metrics_.generated(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return bytes;
}

Bytes WorldService::fetch(const ChunkJob& job, double priority, std::function<bool()> cancelled,
                          std::function<void(Bytes)> on_ready) {
  ChunkCache::JoinResult r = cache_.join(job.key, ChunkCache::Waiter{std::move(on_ready), std::move(cancelled)});
  if (r.hit || !r.produce) return r.hit;  // a hit, or joined a generation already under way
  queue_.submit(priority, [this, job] {
    // Requests that were cancelled or expired while queued cost nothing.
    if (cache_.abandon_if_unwanted(job.key)) return;
    Bytes bytes;
    try {
      bytes = produce(job);
    } catch (const std::exception& e) {  // e.g. out of memory: fail this chunk, not the server
      spdlog::error("generating chunk {},{} failed: {}", job.coord.x, job.coord.z, e.what());
      return cache_.abandon(job.key);
    }
    cache_.fulfil(job.key, std::move(bytes));
  });
  return nullptr;
}

grpc::ServerUnaryReactor* WorldService::GetChunk(grpc::CallbackServerContext* context,
                                                 const grpc::ByteBuffer* request, grpc::ByteBuffer* response) {
  metrics_.request(Metrics::kGetChunk);
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  Metrics& metrics = metrics_;
  auto fail = [reactor, &metrics](const grpc::Status& status) {
    metrics.error(Metrics::kGetChunk);
    if (status.error_code() != grpc::StatusCode::CANCELLED) spdlog::info("GetChunk: {}", status.error_message());
    reactor->Finish(status);
  };
  v1::GetChunkRequest r;
  ChunkJob job;
  if (const grpc::Status auth = authenticate(*context); !auth.ok()) {
    fail(auth);
    return reactor;
  }
  if (!parse(*request, r)) {
    fail(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "request: not a GetChunkRequest"));
    return reactor;
  }
  const grpc::Status status = make_job(r.coord(), r.options(), "coord", job);
  if (!status.ok()) {
    fail(status);
    return reactor;
  }
  auto respond = [reactor, response, fail, &metrics](Bytes bytes) {
    if (!bytes) return fail(grpc::Status(grpc::StatusCode::CANCELLED, "request cancelled"));
    *response = to_buffer(bytes);  // the cached bytes as they are: no re-encoding
    metrics.chunk_sent();
    reactor->Finish(grpc::Status::OK);
  };
  if (Bytes hit = fetch(job, 0.0, [context] { return context->IsCancelled(); }, respond)) respond(std::move(hit));
  return reactor;
}

grpc::ServerWriteReactor<grpc::ByteBuffer>* WorldService::StreamRegion(grpc::CallbackServerContext* context,
                                                                       const grpc::ByteBuffer* request) {
  return new RegionReactor(*this, context, request);
}

grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>* WorldService::Session(
    grpc::CallbackServerContext* context) {
  metrics_.request(Metrics::kSession);
  return start_session(*this, context);
}

}  // namespace chunkforge::server
