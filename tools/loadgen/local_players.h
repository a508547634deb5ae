// File: tools/loadgen/local_players.h
//
// What the load generator's local modes need (docs/client-generation.md): `local` players
// declare that they generate pristine chunks themselves and generate nothing (the server's
// capacity in that mode); `local-generate` players really generate, on a shared pool of
// threads, each pristine chunk and each edited chunk's base with its change applied (client
// CPU). A chunk counts as arrived when its entry or change came (local) or once it is
// generated (local-generate).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "chunkforge/v1/service.grpc.pb.h"

namespace chunkforge {
class World;
}

namespace chunkforge::loadgen {

// The server's world as a local player declares it; with `generate`, the World too, built from
// the definition GetWorldInfo gives. nullopt (and `error`) if the server would not say.
struct LocalWorld {
  v1::LocalGeneration declared;
  std::shared_ptr<const World> world;  // only for local-generate
};
std::optional<LocalWorld> fetch_local_world(v1::WorldService::Stub& stub, bool generate, std::string& error);

// Generation threads shared by every local-generate player: each job is one chunk (pristine,
// or edited with its change), and `done` runs on the generating thread once it is made.
// Unbounded by design of a load generator: it measures what clients would spend, and reports
// the queue's peak (a client is bounded by its own view).
class GenerationPool {
 public:
  GenerationPool(std::shared_ptr<const World> world, int threads);
  ~GenerationPool();
  void submit(int64_t x, int64_t z, std::optional<v1::ChunkChange> edited, std::function<void()> done);
  size_t peak_queue() const;

 private:
  struct Job {
    int64_t x, z;
    std::optional<v1::ChunkChange> edited;
    std::function<void()> done;
  };
  void work();

  std::shared_ptr<const World> world_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job> jobs_;
  size_t peak_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace chunkforge::loadgen
