// File: server/edits/edit_batch.h
//
// One Edit request from check to commit, apart from the RPC that carries it (docs/edits.md): none
// of gRPC's calls or servers, only its Status (grpcpp/support/status.h), for the codes the Edit
// RPC answers with:
//   1. check_request: what can be checked without the world's chunks (sizes, ranges, ids of
//      layers), before any work is queued;
//   2. chunks_named, then structure_chunks: which generated chunks the batch needs (the chunks
//      it names, and for a removed structure every chunk its box overlaps);
//   3. commit_batch, inside a store write transaction: the chunks as they are now (base plus
//      stored changes), each operation checked against them and resolved (ids assigned, heights
//      taken from the terrain), compare-and-set versions checked, and one change per chunk
//      appended. Every check comes before the first write: a refused batch leaves the
//      transaction as it found it, so a group commit needs no savepoints.
// The chunks a group works on are read from the store once per group (GroupChunks), and a
// chunk's log from its newest snapshot on (chunk_log.h).
#pragma once

#include <grpcpp/support/status.h>

#include <functional>
#include <map>
#include <set>
#include <vector>

#include "chunkforge/v1/edit.pb.h"
#include "chunkforge/world.h"
#include "edit_store.h"
#include "edits/chunk_log.h"

namespace chunkforge::server {

// Operations in one Edit request, at most; and request id bytes.
inline constexpr int kMaxEditOps = 256;
inline constexpr size_t kMaxRequestIdBytes = 128;
// Chunks a removed structure's box may overlap, at most (a bigger one is refused).
inline constexpr int64_t kMaxStructureChunks = 1024;
// Distinct chunks one request's operations and `expect` name, at most: each may need a
// generation before the batch can be checked.
inline constexpr size_t kMaxEditChunks = 64;
// Per chunk, after any batch: objects added by edits, their state bytes in total, and the
// chunk's encoding without terrain. With terrain at Limits::max_terrain_samples (65,536
// samples, at most 14 bytes each: 0.9 MB) a chunk at these bounds stays under 2.5 MB, inside a
// stock client's 4 MiB messages (tests/server/edit_limits_test.cc).
inline constexpr size_t kMaxAddedObjects = 4096;
inline constexpr size_t kMaxChunkStateBytes = 256 << 10;
inline constexpr size_t kMaxEditedChunkBytes = 1536 << 10;

// The generated chunks (all layers, no terrain) a batch works on.
using BaseChunks = std::map<ChunkCoord, v1::Chunk>;

// OK, or INVALID_ARGUMENT naming the field (`ops[3].add_object.x: ...`).
grpc::Status check_request(const World& world, const v1::EditRequest& request, int64_t chunk_limit);

// The chunks every operation names (and those listed in `expect`).
std::vector<ChunkCoord> chunks_named(const v1::EditRequest& request);
// The further chunks that removing the structures need, given the bases of the named chunks:
// every chunk the box of each removed structure overlaps. NOT_FOUND if a named chunk does not
// report the structure; INVALID_ARGUMENT if its box is too large.
grpc::Status structure_chunks(const World& world, const v1::EditRequest& request, const BaseChunks& bases,
                              std::vector<ChunkCoord>& more);

// A chunk as the transaction of a group commit has it now, kept between its batches.
struct ChunkNow {
  v1::Chunk current;
  uint64_t version = 0;          // stored version
  std::set<uint64_t> taken_ids;  // generated and added ids: a new id avoids them all
  size_t added_objects = 0;      // objects of `current` the base does not hold
  size_t state_bytes = 0;        // sum of `current`'s object states
};
using GroupChunks = std::map<ChunkCoord, ChunkNow>;

// Applies the batch in `tx` (see the file comment). `bases` holds every chunk from the two
// functions above; `group` the chunks earlier batches of the same transaction left (filled
// here on first use). On success `response` has the new versions and added ids and `changes`
// the appended changes (chunk and version set); on failure nothing was appended, and the
// chunks the batch touched are dropped from `group` (read again when next needed).
grpc::Status commit_batch(const World& world, EditStore::Transaction& tx, const v1::EditRequest& request,
                          const BaseChunks& bases, GroupChunks& group, v1::EditResponse& response,
                          std::vector<v1::ChunkChange>& changes);

}  // namespace chunkforge::server
