// WorldService: what every RPC shares: admission slots, authentication, validating a chunk
// request into a cache key, and fetching a chunk from the cache or the generation queue.
#include "rpc/world_service.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <memory>
#include <tuple>

#include "chunkforge/encode.h"
#include "chunkforge/region_order.h"
#include "log/client_log.h"

namespace chunkforge::server {
namespace {

// Chunks produced on a worker thread reuse that thread's scatter memo: neighbouring requests
// do not redo each other's halos. Output never depends on the memo. A memo starts afresh when
// it holds more than its cells (about 190 bytes each, measured), so it must hold the halos of
// the busy regions its worker serves. The workers split one budget (about 50 MiB when full),
// so that memory does not grow with --threads; routing gives each worker only its share of the
// regions. Measured under 200 walking players on 2 workers (docs/server.md, "How generation is
// scheduled"): 16384 cells a worker cost 2.4-2.6 ms of CPU a chunk, 131072 cells 2.0 ms.
constexpr size_t kMemoCells = 262144;
constexpr size_t kMinWorkerMemoCells = 16384;

// The cache key of the generated chunk a job starts from: coordinate and canonical options.
std::string generated_key(const ChunkJob& job) {
  return std::to_string(job.coord.x) + "," + std::to_string(job.coord.z) + "/" + job.options.SerializeAsString();
}

}  // namespace

WorldService::WorldService(const World& world, ChunkCache& cache, GenerationQueue& queue, Metrics& metrics,
                           OutputBudget& budget, Limits limits, Auth auth, EditService* edits)
    : world_(world),
      cache_(cache),
      queue_(queue),
      metrics_(metrics),
      budget_(budget),
      limits_(limits),
      auth_(std::move(auth)),
      edits_(edits),
      sessions_(limits.max_sessions),
      streams_(limits.max_streams),
      locates_(limits.max_locates != 0 ? limits.max_locates : 2 * static_cast<uint32_t>(queue.threads())),
      info_bytes_(std::make_shared<const std::string>(describe_world(world).SerializeAsString())) {
  if (edits_ != nullptr) listen_for_structure_changes();
}

uint64_t client_of(const grpc::CallbackServerContext& context) { return std::hash<std::string>{}(context.peer()) | 1; }

bool CallSlots::take() {
  uint32_t now = used_.load();
  do {
    if (now >= max_) return false;
  } while (!used_.compare_exchange_weak(now, now + 1));
  return true;
}

// True if the call carries "authorization: Bearer <token>". Constant time: no early exit that
// would tell how much of the token matched.
static bool carries_token(const grpc::CallbackServerContext& context, const std::string& token) {
  const auto& metadata = context.client_metadata();
  const auto it = metadata.find("authorization");
  const std::string expected = "Bearer " + token;
  if (token.empty() || it == metadata.end() || it->second.size() != expected.size()) return false;
  unsigned char diff = 0;
  const char* given = it->second.data();
  for (size_t k = 0; k < expected.size(); ++k) diff |= static_cast<unsigned char>(given[k] ^ expected[k]);
  return diff == 0;
}

grpc::Status WorldService::authenticate(const grpc::CallbackServerContext& context) const {
  if (auth_.token.empty() || carries_token(context, auth_.token) || carries_token(context, auth_.write_token)) {
    return grpc::Status::OK;
  }
  return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                      "missing or wrong token: send the metadata \"authorization: Bearer <token>\"");
}

grpc::Status WorldService::authorize_edit(const grpc::CallbackServerContext& context) const {
  if (edits_ == nullptr && !auth_.store_error.empty()) {
    return {grpc::StatusCode::UNAVAILABLE, auth_.store_error + ": edit not applied; retry later"};
  }
  if (edits_ == nullptr) {
    return {grpc::StatusCode::FAILED_PRECONDITION,
            "this server keeps no edits (start it with --data DIR or --store URI)"};
  }
  if (carries_token(context, auth_.write_token)) return grpc::Status::OK;
  if (auth_.write_token.empty()) {
    if (auth_.open_edits) return grpc::Status::OK;
    return {grpc::StatusCode::PERMISSION_DENIED,
            "edits are closed: the server was started without a write token (--write-token-file; --open-edits "
            "for local development)"};
  }
  return {grpc::StatusCode::PERMISSION_DENIED,
          "this call may read, not edit: send the write token as \"authorization: Bearer <write token>\""};
}

grpc::Status WorldService::make_job(const v1::ChunkCoord& coord, const v1::ChunkOptions& options,
                                    const std::string& field, ChunkJob& job) const {
  const int64_t limit = chunk_limit();
  for (const auto& [name, value] : {std::pair{".x", coord.x()}, std::pair{".z", coord.z()}}) {
    if (value < -limit || value > limit) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                          field + name + ": must be in [" + std::to_string(-limit) + ", " + std::to_string(limit) +
                              "] (the supported world, 2^40 units) (got " + std::to_string(value) + ")");
    }
  }
  const uint32_t step = options.terrain_step() == 0 ? 1 : options.terrain_step();
  if (options.include_terrain() && (step > world_.chunk_size() || world_.chunk_size() % step != 0)) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "options.terrain_step: must divide the chunk size " +
                                                                std::to_string(world_.chunk_size()) + " (got " +
                                                                std::to_string(step) + ")");
  }
  const uint64_t side = world_.chunk_size() / step;
  if (options.include_terrain() && side * side > limits_.max_terrain_samples) {
    return {grpc::StatusCode::INVALID_ARGUMENT,
            "options.terrain_step: at most " + std::to_string(limits_.max_terrain_samples) +
                " terrain samples per chunk; with chunk size " + std::to_string(world_.chunk_size()) + ", step " +
                std::to_string(step) + " gives " + std::to_string(side * side) + " (use a larger step)"};
  }
  std::vector<uint32_t> layers(options.layers().begin(), options.layers().end());
  for (uint32_t id : layers) {
    if (id >= world_.resources().size()) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "options.layers: layer ids are in [0, " +
                                                                  std::to_string(world_.resources().size()) +
                                                                  ") (got " + std::to_string(id) + ")");
    }
  }
  std::sort(layers.begin(), layers.end());
  layers.erase(std::unique(layers.begin(), layers.end()), layers.end());
  job.coord = {coord.x(), coord.z()};
  job.options.set_include_terrain(options.include_terrain());
  job.options.set_terrain_step(options.include_terrain() ? step : 0);
  for (uint32_t id : layers) job.options.add_layers(id);
  // The canonical options are part of the key: equal requests share one cache entry. An edited
  // chunk's version too: each version is its own entry, so a hit is never re-encoded and a
  // change needs no invalidation (older versions age out).
  job.key = generated_key(job);
  job.version = edits_ != nullptr ? edits_->version(job.coord) : 0;
  if (job.version > 0) job.key += "@" + std::to_string(job.version);
  return grpc::Status::OK;
}

grpc::Status WorldService::region_jobs(const v1::StreamRegionRequest& request, std::vector<ChunkJob>& jobs) const {
  if (request.radius() > limits_.max_radius) {
    return {grpc::StatusCode::INVALID_ARGUMENT, "radius: must be in [0, " + std::to_string(limits_.max_radius) +
                                                    "] (got " + std::to_string(request.radius()) + ")"};
  }
  // The centre first: centre +- radius must not overflow on the way to checking each chunk.
  ChunkJob job;
  if (grpc::Status status = make_job(request.centre(), request.options(), "centre", job); !status.ok()) return status;
  for (const ChunkCoord& c : nearest_first(ChunkCoord{request.centre().x(), request.centre().z()}, request.radius())) {
    v1::ChunkCoord coord;
    coord.set_x(c.x);
    coord.set_z(c.z);
    if (grpc::Status status = make_job(coord, request.options(), "centre", job); !status.ok()) return status;
    jobs.push_back(job);
  }
  return grpc::Status::OK;
}

// An edited chunk is its generated bytes (cached like any other) with its stored changes applied.
// Its log comes first: while the edit store is down that throws at once (StoreUnavailable),
// before any generating.
Bytes WorldService::produce(const ChunkJob& job) {
  if (job.version == 0) return generate(job);
  const std::vector<StoredChange> log = edits_->log(job.coord, job.version);
  ChunkJob base = job;
  base.version = 0;
  base.key = generated_key(job);
  v1::Chunk chunk;
  chunk.ParseFromString(*cached_or_generated(base));
  chunk = current_chunk(chunk, log, job.options.layers());
  return std::make_shared<const std::string>(canonical_bytes(chunk));
}

// From the cache, or made here (generated, and an edited chunk's changes applied) and stored
// (when no one else is making it).
Bytes WorldService::cached_or_generated(const ChunkJob& job) {
  // A waiter that wants nothing: if another request is generating the chunk, this one does not
  // wait for it (the queue's threads could all end up waiting), it generates its own copy.
  ChunkCache::JoinResult r = cache_.join(job.key, {[](Bytes) {}, [] { return true; }});
  if (r.hit) return r.hit;
  Bytes bytes = produce(job);
  if (r.produce) cache_.fulfil(job.key, bytes);
  return bytes;
}

v1::Chunk WorldService::base_chunk(ChunkCoord coord) {
  v1::ChunkCoord c;
  c.set_x(coord.x);
  c.set_z(coord.z);
  ChunkJob job;
  make_job(c, {}, "chunk", job);
  job.version = 0;
  job.key = generated_key(job);
  v1::Chunk chunk;
  chunk.ParseFromString(*cached_or_generated(job));
  return chunk;
}

// CPU time of the calling thread, seconds.
static double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

Bytes WorldService::generate(const ChunkJob& job) const {
  const auto start = std::chrono::steady_clock::now();
  const double cpu_start = thread_cpu_seconds();
  thread_local std::unique_ptr<ChunkStream> stream;
  thread_local const World* stream_world = nullptr;
  if (!stream || stream_world != &world_) {
    stream = std::make_unique<ChunkStream>(world_, std::max(kMinWorkerMemoCells, kMemoCells / queue_.threads()));
    stream_world = &world_;
  }
  ChunkData data = stream->generate(job.coord, queue_.stopping());
  if (job.options.layers_size() > 0) {
    const auto& keep = job.options.layers();
    std::erase_if(data.objects,
                  [&](const ResourceObject& o) { return std::find(keep.begin(), keep.end(), o.layer) == keep.end(); });
  }
  v1::Chunk chunk = encode_chunk(world_, data);
  if (job.options.include_terrain()) add_terrain(world_, job.options.terrain_step(), chunk);
  Bytes bytes = std::make_shared<const std::string>(canonical_bytes(chunk));
  metrics_.generated(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
                     thread_cpu_seconds() - cpu_start);
  return bytes;
}

grpc::Status WorldService::queue_full() {
  return {grpc::StatusCode::RESOURCE_EXHAUSTED, "the server's generation queue is full; retry later"};
}

grpc::Status WorldService::dropped_status(const ChunkJob& job, const char* otherwise) const {
  if (job.version > 0 && edits_ != nullptr && !edits_->health().up()) return edits_->health().unavailable();
  return {grpc::StatusCode::CANCELLED, otherwise};
}

// A view's rings first (0 to max_radius), then prefetches (whose rings reach max_radius + 1):
// every player's view goes before anyone's look-ahead. Locate comes after both (locate.cc).
static double priority_of(Work kind, int64_t ring, uint32_t max_radius) {
  return static_cast<double>(ring) + (kind == Work::prefetch ? max_radius + 1.0 : 0.0);
}

WorldService::Fetched WorldService::fetch(const ChunkJob& job, Work kind, int64_t ring, std::function<bool()> cancelled,
                                          std::function<void(Bytes)> on_ready, uint64_t client) {
  return fetch_key(job.key,
                   Production{kind, priority_of(kind, ring, limits_.max_radius),
                              GenerationQueue::region_of(job.coord.x, job.coord.z), [this, job] { make(job); }, client},
                   std::move(cancelled), std::move(on_ready));
}

WorldService::Fetched WorldService::fetch_key(const std::string& key, Production production,
                                              std::function<bool()> cancelled, std::function<void(Bytes)> on_ready) {
  // A refused caller answers at once: its waiter must then never be called.
  auto refused = std::make_shared<std::atomic<bool>>(false);
  auto ready = [refused, on_ready = std::move(on_ready)](Bytes bytes) {
    if (!refused->load()) on_ready(std::move(bytes));
  };
  ChunkCache::JoinResult r =
      cache_.join(key, ChunkCache::Waiter{std::move(ready), std::move(cancelled), production.priority});
  if (r.hit || !r.produce) return {r.hit};  // a hit, or joined a production already under way
  QueuedJob queued{production.kind, production.priority, std::move(production.make),
                   [this, key] { return cache_.release_if_unwanted(key); }, production.client};
  if (queue_.offer(production.region, std::move(queued))) return {};
  // Refused. A less urgent production of the key is still queued unless this was the first:
  // the waiter then waits for that one.
  if (!r.first) return {};
  refused->store(true);
  cache_.abandon(key);  // another waiter that joined meanwhile gets null, and asks again
  return {nullptr, true};
}

// A queued production as it runs: requests that were cancelled or expired while queued cost
// nothing; nor does a production whose chunk a more urgent one (queued later) already made.
void WorldService::make(const ChunkJob& job) {
  if (!cache_.start(job.key)) return;
  Bytes bytes;
  try {
    bytes = produce(job);
  } catch (const GenerationAbandoned&) {  // the server is stopping
    return cache_.abandon(job.key);
  } catch (const StoreUnavailable&) {  // an edited chunk while the store is down: logged once, by its health
    return cache_.abandon(job.key);
  } catch (const std::exception& e) {  // e.g. out of memory: fail this chunk, not the server
    log_client(LogKind::kGenerationFailed, spdlog::level::err, "generating chunk {},{} failed: {}", job.coord.x,
               job.coord.z, e.what());
    return cache_.abandon(job.key);
  }
  cache_.fulfil(job.key, std::move(bytes));
}

}  // namespace chunkforge::server
