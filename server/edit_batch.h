// File: server/edit_batch.h
//
// One Edit request from check to commit, without gRPC (docs/edits.md):
//   1. check_request: what can be checked without the world's chunks (sizes, ranges, ids of
//      layers), before any work is queued;
//   2. base_chunks_needed: which generated chunks the batch needs (a removed structure needs
//      every chunk its box overlaps);
//   3. commit_batch, inside a store write transaction: the chunks as they are now (base plus
//      stored changes), each operation checked against them and resolved (ids assigned, heights
//      taken from the terrain), compare-and-set versions checked, and one change per chunk
//      appended. Every check comes before the first write: a refused batch leaves the
//      transaction as it found it, so a group commit needs no savepoints.
#pragma once

#include <grpcpp/support/status.h>

#include <map>
#include <vector>

#include "chunkforge/v1/edit.pb.h"
#include "chunkforge/world.h"
#include "edit_store.h"
#include "session_view.h"

namespace chunkforge::server {

// Operations in one Edit request, at most; and request id bytes.
inline constexpr int kMaxEditOps = 256;
inline constexpr size_t kMaxRequestIdBytes = 128;
// Chunks a removed structure's box may overlap, at most (a bigger one is refused).
inline constexpr int64_t kMaxStructureChunks = 1024;

// The generated chunks (all layers, no terrain) a batch works on.
using BaseChunks = std::map<ChunkKey, v1::Chunk>;

// OK, or INVALID_ARGUMENT naming the field (`ops[3].add_object.x: ...`).
grpc::Status check_request(const World& world, const v1::EditRequest& request, int64_t chunk_limit);

// The chunks every operation names (and those listed in `expect`).
std::vector<ChunkKey> chunks_named(const v1::EditRequest& request);
// The further chunks that removing the structures need, given the bases of the named chunks:
// every chunk the box of each removed structure overlaps. NOT_FOUND if a named chunk does not
// report the structure; INVALID_ARGUMENT if its box is too large.
grpc::Status structure_chunks(const World& world, const v1::EditRequest& request, const BaseChunks& bases,
                              std::vector<ChunkKey>& more);

// Applies the batch in `tx` (see the file comment). `bases` holds every chunk from the two
// functions above. On success `response` has the new versions and added ids and `changes` the
// appended changes (chunk and version set); on failure nothing was appended.
grpc::Status commit_batch(const World& world, EditStore::Transaction& tx, const v1::EditRequest& request,
                          const BaseChunks& bases, v1::EditResponse& response, std::vector<v1::ChunkChange>& changes);

// A chunk as it is now: its base with the stored changes applied (a reset starts over).
v1::Chunk current_chunk(const v1::Chunk& base, const std::vector<StoredChange>& log,
                        const google::protobuf::RepeatedField<uint32_t>& layers);

}  // namespace chunkforge::server
