// File: server/generation/chunk_maker.h
//
// Which generator makes a chunk, and the making: the world's generator (its version's pipeline)
// run on the calling generation thread with that thread's scatter memo, the layers a request
// keeps, the terrain grid it asks for, encoded into the canonical bytes. The one place that
// calls the library's generator for the server.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>

#include "chunkforge/coord.h"
#include "chunkforge/v1/service.pb.h"
#include "chunkforge/world.h"
#include "generation/bytes.h"

namespace chunkforge::server {

class ChunkMaker {
 public:
  // Told of each chunk made: its wall and thread CPU seconds (the server's metrics).
  using Observer = std::function<void(double seconds, double cpu_seconds)>;

  // `threads`: the generation threads, which split one memo budget; `stopping`: raised when the
  // server stops, so that a long chunk gives up (GenerationAbandoned).
  ChunkMaker(const World& world, size_t threads, const std::atomic<bool>* stopping, Observer observer);

  // The generated chunk of `coord` as `options` (canonical) ask for it.
  Bytes generate(ChunkCoord coord, const v1::ChunkOptions& options) const;

 private:
  const World& world_;
  const size_t memo_cells_;  // each thread's scatter memo
  const std::atomic<bool>* stopping_;
  Observer observer_;
};

}  // namespace chunkforge::server
