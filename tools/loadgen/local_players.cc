// The load generator's local modes (local_players.h).
#include "local_players.h"

#include <algorithm>

#include "chunkforge/chunk.h"
#include "chunkforge/chunk_edits.h"
#include "chunkforge/encode.h"
#include "chunkforge/world.h"

namespace chunkforge::loadgen {

std::optional<LocalWorld> fetch_local_world(v1::WorldService::Stub& stub, bool generate, std::string& error) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  v1::GetWorldInfoRequest request;
  request.set_include_definition(generate);
  v1::WorldInfo info;
  const grpc::Status status = stub.GetWorldInfo(&context, request, &info);
  if (!status.ok()) {
    error = "GetWorldInfo: " + status.error_message();
    return std::nullopt;
  }
  LocalWorld out;
  out.declared.add_generator_versions(info.generator_version());
  out.declared.set_fingerprint(info.fingerprint());
  if (generate) {
    WorldResult world = World::create(info.definition());
    if (!world.ok()) {
      error = "the server's definition: " + (world.errors.empty() ? "invalid" : world.errors[0].to_string());
      return std::nullopt;
    }
    out.world = std::make_shared<const World>(std::move(*world.world));
  }
  return out;
}

GenerationPool::GenerationPool(std::shared_ptr<const World> world, int threads) : world_(std::move(world)) {
  for (int k = 0; k < std::max(threads, 1); ++k) threads_.emplace_back([this] { work(); });
}

GenerationPool::~GenerationPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void GenerationPool::submit(int64_t x, int64_t z, std::optional<v1::ChunkChange> edited, std::function<void()> done) {
  {
    std::lock_guard lock(mutex_);
    jobs_.push_back({x, z, std::move(edited), std::move(done)});
    peak_ = std::max(peak_, jobs_.size());
  }
  wake_.notify_one();
}

size_t GenerationPool::peak_queue() const {
  std::lock_guard lock(mutex_);
  return peak_;
}

void GenerationPool::work() {
  ChunkStream stream(*world_);  // each thread's own memo, as a client's worker would keep
  std::unique_lock lock(mutex_);
  while (true) {
    wake_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
    if (stopping_) return;
    Job job = std::move(jobs_.front());
    jobs_.pop_front();
    lock.unlock();
    v1::Chunk chunk = encode_chunk(*world_, stream.generate({job.x, job.z}));
    if (job.edited) {
      job.edited->set_reset(false);
      apply_change(chunk, *job.edited, {});
    }
    job.done();
    lock.lock();
  }
}

}  // namespace chunkforge::loadgen
