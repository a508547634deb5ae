// ChunkSource: a chunk's path from a request's job to its bytes (chunk_source.h). LOD tiles'
// own steps are in chunk_source_tiles.cc.
#include "generation/chunk_source.h"

#include "chunkforge/encode.h"
#include "edits/chunk_log.h"
#include "edits/edit_service.h"
#include "generation/chunk_cache.h"
#include "generation/generation_queue.h"
#include "log/client_log.h"

namespace chunkforge::server {
namespace {

// The cache key of the generated chunk a job starts from: coordinate and canonical options.
std::string generated_key(ChunkCoord coord, const v1::ChunkOptions& options) {
  return std::to_string(coord.x) + "," + std::to_string(coord.z) + "/" + options.SerializeAsString();
}

ChunkJob generated(const ChunkJob& job) {
  ChunkJob base = job;
  base.version = 0;
  base.key = generated_key(job.coord, job.options);
  return base;
}

}  // namespace

ChunkSource::ChunkSource(const World& world, ChunkCache& cache, GenerationQueue& queue, EditService* edits,
                         uint32_t view_rings, Observers observers, std::shared_ptr<const Epochs> epochs)
    : world_(world),
      cache_(cache),
      queue_(queue),
      edits_(edits),
      view_rings_(view_rings),
      observers_(std::move(observers)),
      maker_(world, queue.threads(), queue.stopping(), observers_.chunk_made, std::move(epochs)) {
  if (edits_ != nullptr) listen_for_structure_changes();
}

ChunkSource::~ChunkSource() = default;

// The canonical options are part of the key: equal requests share one cache entry. An edited
// chunk's version too: each version is its own entry, so a hit is never re-encoded and a change
// needs no invalidation (older versions age out).
ChunkJob ChunkSource::job(ChunkCoord coord, v1::ChunkOptions options) const {
  ChunkJob job{coord, std::move(options), edits_ != nullptr ? edits_->version(coord) : 0, ""};
  job.key = generated_key(job.coord, job.options);
  if (job.version > 0) job.key += "@" + std::to_string(job.version);
  return job;
}

// A view's rings first (0 to view_rings), then prefetches (whose rings reach view_rings + 1):
// every player's view goes before anyone's look-ahead. Locate comes after both (locate.cc).
ChunkSource::Fetched ChunkSource::fetch(const ChunkJob& job, Work kind, int64_t ring, std::function<bool()> cancelled,
                                        std::function<void(Bytes)> on_ready, uint64_t client) {
  const double priority = static_cast<double>(ring) + (kind == Work::prefetch ? view_rings_ + 1.0 : 0.0);
  Making making{kind,
                priority,
                GenerationQueue::region_of(job.coord.x, job.coord.z),
                [this, job] { return make(job); },
                client,
                LogKind::kGenerationFailed,
                "generating chunk " + std::to_string(job.coord.x) + "," + std::to_string(job.coord.z)};
  Fetched fetched = join_or_queue(job.key, std::move(making), std::move(cancelled), std::move(on_ready));
  // A chunk a client asked for is land it sees (a prefetch: its next step's): recorded before
  // any epoch is added after it (docs/world-definition.md, "Epochs").
  if (edits_ != nullptr && !fetched.refused) edits_->seen().note(job.coord, client);
  return fetched;
}

ChunkSource::Fetched ChunkSource::join_or_queue(const std::string& key, Making making, std::function<bool()> cancelled,
                                                std::function<void(Bytes)> on_ready) {
  // A refused caller answers at once: its waiter must then never be called.
  auto refused = std::make_shared<std::atomic<bool>>(false);
  auto ready = [refused, on_ready = std::move(on_ready)](Bytes bytes) {
    if (!refused->load()) on_ready(std::move(bytes));
  };
  ChunkCache::JoinResult r =
      cache_.join(key, ChunkCache::Waiter{std::move(ready), std::move(cancelled), making.priority});
  if (r.hit || !r.produce) return {r.hit};  // a hit, or joined a making already under way
  const Work kind = making.kind;
  const double priority = making.priority;
  const std::optional<uint64_t> region = making.region;
  const uint64_t client = making.client;
  QueuedJob queued{kind, priority, [this, key, making = std::move(making)] { run_making(key, making); },
                   [this, key] { return cache_.release_if_unwanted(key); }, client};
  if (queue_.offer(region, std::move(queued))) return {};
  // Refused. A less urgent making of the key is still queued unless this was the first: the
  // waiter then waits for that one.
  if (!r.first) return {};
  refused->store(true);
  cache_.abandon(key);  // another waiter that joined meanwhile gets null, and asks again
  return {nullptr, true};
}

// Requests that were cancelled or expired while queued cost nothing; nor does a making whose
// bytes a more urgent one (queued later) already made.
void ChunkSource::run_making(const std::string& key, const Making& making) {
  if (!cache_.start(key)) return;
  Bytes bytes;
  try {
    bytes = making.make();
  } catch (const GenerationAbandoned&) {  // the server is stopping
    return cache_.abandon(key);
  } catch (const StoreUnavailable&) {  // an edited chunk while the store is down: logged once, by its health
    return cache_.abandon(key);
  } catch (const std::exception& e) {  // e.g. out of memory: fail this one, not the server
    log_client(making.failure, spdlog::level::err, "{} failed: {}", making.what, e.what());
    return cache_.abandon(key);
  }
  cache_.fulfil(key, std::move(bytes));
}

// An edited chunk is its generated bytes (cached like any other) with its stored changes
// applied. Its log comes first: while the edit store is down that throws at once
// (StoreUnavailable), before any generating.
Bytes ChunkSource::make(const ChunkJob& job) {
  if (job.version == 0) return maker_.generate(job.coord, job.options);
  const std::vector<StoredChange> log = edits_->log(job.coord, job.version);
  v1::Chunk chunk;
  chunk.ParseFromString(*make_here(generated(job)));
  chunk = current_chunk(chunk, log, job.options.layers());
  return std::make_shared<const std::string>(canonical_bytes(chunk));
}

Bytes ChunkSource::make_here(const ChunkJob& job) {
  // A waiter that wants nothing: if another request is making the chunk, this one does not wait
  // for it (the queue's threads could all end up waiting), it makes its own copy.
  ChunkCache::JoinResult r = cache_.join(job.key, {[](const Bytes&) {}, [] { return true; }});
  if (r.hit) return r.hit;
  Bytes bytes = make(job);
  if (r.produce) cache_.fulfil(job.key, bytes);
  return bytes;
}

v1::Chunk ChunkSource::base_chunk(ChunkCoord coord) {
  v1::Chunk chunk;
  chunk.ParseFromString(*make_here(generated(job(coord, {}))));
  return chunk;
}

bool ChunkSource::offer(QueuedJob job) { return queue_.offer(std::nullopt, std::move(job)); }

void ChunkSource::submit(double priority, std::function<void()> job) { queue_.submit(priority, std::move(job)); }

size_t ChunkSource::threads() const { return queue_.threads(); }

}  // namespace chunkforge::server
