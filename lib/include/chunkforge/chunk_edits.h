// File: chunkforge/chunk_edits.h
//
// The edit model (docs/edits.md): a chunk as served is its generated base with its committed
// changes applied in version order. This is the one function that applies a change; the server
// builds every edited chunk with it and the SDK updates its copy with it, so the two stay the
// same bytes.
//
//   v1::Chunk chunk = base;                       // as generated, with the same options
//   for (const v1::ChunkChange& c : log) apply_change(chunk, c, options.layers());
//
// A client applying changes itself compares chunk_hash (chunk_hash.h) of its copy with the
// change's `chunk_hash` when that is not 0, and fetches the chunk again on a mismatch or an edit
// it cannot read: edits it does not know change nothing here (docs/edits.md, "Checking a copy").
//
// Pure and deterministic; needs only the messages (no generator, no world), so the SDK links
// it without the generation library.
#pragma once

#include <cstdint>

#include "chunkforge/v1/chunk.pb.h"
#include "chunkforge/v1/edit.pb.h"
#include "google/protobuf/repeated_field.h"

namespace chunkforge {

// The largest object state an edit may set, bytes.
inline constexpr size_t kMaxObjectStateBytes = 256;

// Applies `change` (its edits in order; not a reset, which needs the base) to `chunk`, a chunk
// encoded with the layer filter `layers` (empty: all layers). Edits of objects the filter
// leaves out change nothing here, just as generation leaves those objects out; edits of ids
// the chunk does not hold change nothing. Sets chunk.edit_version to change.version.
void apply_change(v1::Chunk& chunk, const v1::ChunkChange& change,
                  const google::protobuf::RepeatedField<uint32_t>& layers);

}  // namespace chunkforge
