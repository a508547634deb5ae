// File: client_sdk/src/local_chunk.h
//
// One chunk made on the client as the server would send it (docs/client-generation.md): a
// pristine chunk is the generator's; an edited one is the generator's base with the server's
// change from the base (ChunkChange with reset set) applied by chunkforge::apply_change, the
// function the server builds edited chunks with, and checked against the server's hash.
// ViewSession's generation threads (LocalLoads) and Client's chunk and region calls both make
// chunks here.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "chunkforge/client/base_generator.h"
#include "chunkforge/client/chunk.h"
#include "chunkforge/v1/edit.pb.h"
#include "chunkforge/v1/service.pb.h"

namespace chunkforge::client {

struct LocalChunk {
  std::shared_ptr<v1::Chunk> chunk;  // null when `mismatch`, or abandoned
  uint64_t version = 0;              // the edit version it was made at
  bool edited = false;               // an edited chunk (its hash was checked if `verified`)
  bool verified = false;
  bool mismatch = false;  // the result did not hash to the server's, or held an edit this SDK does not know
};

// The chunk at `coord` with `options`: pristine when `edited` is null. With a layer filter the
// copy is not the chunk the hash is of, so an edited chunk is then generated once more, whole,
// for the check. Throws what the generator throws (std::invalid_argument for a chunk that does
// not exist).
LocalChunk make_local_chunk(BaseGenerator& generator, ChunkCoord coord, const ChunkOptions& options,
                            const v1::ChunkChange* edited, const std::atomic<bool>* abandon);

// What `generator` makes, as a Session's first update or a GetChunkEdits request tells the server:
// its generator versions, its world's fingerprint and the older epochs it holds.
void describe_generator(const BaseGenerator& generator, v1::LocalGeneration& ask);

}  // namespace chunkforge::client
