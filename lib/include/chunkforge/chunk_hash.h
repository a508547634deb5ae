// File: chunkforge/chunk_hash.h
//
// A chunk's canonical bytes and their 64-bit hash: what the server caches and sends, and what
// a change event's `chunk_hash` holds, so that a client can check its copy (docs/edits.md,
// "Checking a copy"). Part of the messages-only `chunkforge::chunk_edits` library: the SDK links
// it without the generation library, and computes exactly the hash the server does.
//
//   uint64_t h = chunk_hash(chunk);  // chunk as GetChunk serves it: all layers, no terrain
//
// Pure and thread-safe.
#pragma once

#include <cstdint>
#include <string>

#include "chunkforge/v1/chunk.pb.h"

namespace chunkforge {

// The message serialized deterministically: equal messages give equal bytes.
std::string canonical_bytes(const google::protobuf::Message& message);
// 64-bit hash of a chunk's canonical bytes (golden tests, order-independence checks, and
// ChunkChange.chunk_hash). Never 0, which a change event uses for "unknown".
uint64_t chunk_hash(const v1::Chunk& chunk);

}  // namespace chunkforge
