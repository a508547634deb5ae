// File: server/generation/chunk_maker.h
//
// Which generator makes a chunk, and the making: the world's generator (its version's pipeline),
// or for a world that changed after launch the generator of the chunk's epoch with the seam's
// rules (chunkforge/epochs.h), run on the calling generation thread with that thread's memos;
// the layers a request keeps, the terrain grid it asks for, encoded into the canonical bytes.
// The one place that calls the library's generator for the server.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>

#include "chunkforge/coord.h"
#include "chunkforge/epochs.h"
#include "chunkforge/v1/service.pb.h"
#include "chunkforge/world.h"
#include "generation/bytes.h"

namespace chunkforge::server {

class ChunkMaker {
 public:
  // Told of each chunk made: its wall and thread CPU seconds (the server's metrics).
  using Observer = std::function<void(double seconds, double cpu_seconds)>;

  // `threads`: the generation threads, which split one memo budget; `stopping`: raised when the
  // server stops, so that a long chunk gives up (GenerationAbandoned). `epochs`: the world's
  // epochs, the newest of which is `world` (null: the world never changed).
  ChunkMaker(const World& world, size_t threads, const std::atomic<bool>* stopping, Observer observer,
             std::shared_ptr<const Epochs> epochs = nullptr);

  // The generated chunk of `coord` as `options` (canonical) ask for it.
  Bytes generate(ChunkCoord coord, const v1::ChunkOptions& options) const;
  // Whether `coord` is the newest epoch's generator's chunk (always, for a world that never
  // changed): what a client that generates with the newest world makes on its own.
  bool newest_generates(ChunkCoord coord) const;
  // The world's epochs (null: it never changed).
  const std::shared_ptr<const Epochs>& epochs() const { return epochs_; }

 private:
  // The chunk's data on this thread, with the world that encodes it and the land as shown.
  struct Made {
    ChunkData data;
    const World* world;
    const World* shown;
  };
  Made make(ChunkCoord coord) const;

  const World& world_;
  const std::shared_ptr<const Epochs> epochs_;
  const size_t memo_cells_;  // each thread's scatter memo
  const std::atomic<bool>* stopping_;
  Observer observer_;
};

}  // namespace chunkforge::server
