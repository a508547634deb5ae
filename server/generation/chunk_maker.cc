// ChunkMaker: a chunk generated on the calling thread, with that thread's scatter memo.
#include "generation/chunk_maker.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <memory>

#include "chunkforge/chunk.h"
#include "chunkforge/encode.h"

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

// CPU time of the calling thread, seconds.
double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

}  // namespace

ChunkMaker::ChunkMaker(const World& world, size_t threads, const std::atomic<bool>* stopping, Observer observer,
                       std::shared_ptr<const Epochs> epochs)
    : world_(world),
      epochs_(std::move(epochs)),
      memo_cells_(std::max(kMinWorkerMemoCells, kMemoCells / std::max<size_t>(threads, 1))),
      stopping_(stopping),
      observer_(std::move(observer)) {}

ChunkMaker::Made ChunkMaker::make(ChunkCoord coord) const {
  if (epochs_) {
    thread_local std::unique_ptr<EpochStream> stream;
    thread_local const Epochs* stream_epochs = nullptr;
    if (!stream || stream_epochs != epochs_.get()) {
      stream = std::make_unique<EpochStream>(epochs_);
      stream_epochs = epochs_.get();
    }
    EpochChunk chunk = stream->generate(coord, stopping_);
    return {std::move(chunk.data), &epochs_->world(chunk.epoch), &epochs_->shown(chunk.epoch)};
  }
  thread_local std::unique_ptr<ChunkStream> stream;
  thread_local const World* stream_world = nullptr;
  if (!stream || stream_world != &world_) {
    stream = std::make_unique<ChunkStream>(world_, memo_cells_);
    stream_world = &world_;
  }
  return {stream->generate(coord, stopping_), &world_, &world_};
}

Bytes ChunkMaker::generate(ChunkCoord coord, const v1::ChunkOptions& options) const {
  const auto start = std::chrono::steady_clock::now();
  const double cpu_start = thread_cpu_seconds();
  Made made = make(coord);
  if (options.layers_size() > 0) {
    const auto& keep = options.layers();
    std::erase_if(made.data.objects,
                  [&](const ResourceObject& o) { return std::find(keep.begin(), keep.end(), o.layer) == keep.end(); });
  }
  v1::Chunk chunk = encode_chunk(*made.world, made.data);
  if (options.include_terrain()) add_terrain(*made.shown, options.terrain_step(), chunk);
  Bytes bytes = std::make_shared<const std::string>(canonical_bytes(chunk));
  if (observer_) {
    observer_(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
              thread_cpu_seconds() - cpu_start);
  }
  return bytes;
}

bool ChunkMaker::newest_generates(ChunkCoord coord) const { return !epochs_ || epochs_->newest_generates(coord); }

}  // namespace chunkforge::server
