// File: tools/loadgen/session_players.h
//
// The load generator's session modes (session, local, local-generate): each player a Session on
// a completion queue, a few driver threads walking them all.
#pragma once

#include <memory>
#include <thread>
#include <vector>

#include "chunkforge/v1/service.grpc.pb.h"
#include "local_players.h"
#include "walk.h"

namespace chunkforge::loadgen {

// The completion queues the players' calls run on, each drained by one thread of its own.
class CompletionThreads {
 public:
  explicit CompletionThreads(int threads);
  ~CompletionThreads();  // only once every player is done (drive_sessions has returned)
  grpc::CompletionQueue& queue(size_t k) { return *queues_[k % queues_.size()]; }

 private:
  std::vector<std::unique_ptr<grpc::CompletionQueue>> queues_;
  std::vector<std::thread> threads_;
};

// Drives the session players p with p % stride == first: opens each at its join time, moves it at
// each of its steps, asleep until the next one is due, and ends them all at `end`. A few such
// threads walk every player: with one thread per player, 2,000 players were 2,000 threads created
// in the same half second and woken at every step, on the cores of the server being measured.
void drive_sessions(const std::vector<std::unique_ptr<v1::WorldService::Stub>>& stubs, grpc::CompletionQueue& queue,
                    int first, int stride, const Options& o, Clock::time_point start, Clock::time_point end, Results& r,
                    const v1::LocalGeneration* local, GenerationPool* pool);

}  // namespace chunkforge::loadgen
