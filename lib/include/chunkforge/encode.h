// File: chunkforge/encode.h
//
// ChunkData to the wire message chunkforge.v1.Chunk and to canonical bytes; the world summary
// as chunkforge.v1.WorldInfo.
//
//   v1::Chunk msg = encode_chunk(world, generator.generate(c));
//   std::string bytes = canonical_bytes(msg);  // what the server caches and sends
//
// Deterministic: positions are rounded to float the same way everywhere and serialization is
// deterministic, so equal chunks give equal bytes. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <string>

#include "chunkforge/chunk.h"
#include "chunkforge/chunk_hash.h"  // canonical_bytes, chunk_hash
#include "chunkforge/v1/chunk.pb.h"
#include "chunkforge/v1/info.pb.h"

namespace chunkforge {

class World;

// The world's summary and catalogue (what `chunkforge info` prints and GetWorldInfo returns).
v1::WorldInfo describe_world(const World& world);

v1::Chunk encode_chunk(const World& world, const ChunkData& chunk);
// One structure instance as chunks report it (also what the server's Locate returns).
v1::StructureInstance encode_structure(const StructureInstance& instance);
// Adds the terrain grid of the chunk at `step` (which divides the chunk size).
void add_terrain(const World& world, int64_t step, v1::Chunk& chunk);

}  // namespace chunkforge
