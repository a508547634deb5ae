// File: client_sdk/src/chunk_change.h
//
// A ViewSession's copy of a chunk moved on by one committed change (docs/edits.md), with
// chunkforge::apply_change, the function the server builds edited chunks with: the copy stays
// byte for byte what the server serves. Never re-implemented here.
#pragma once

#include <google/protobuf/repeated_field.h>

#include <optional>

#include "chunkforge/client/chunk.h"
#include "chunkforge/client/view_session.h"
#include "chunkforge/v1/edit.pb.h"

namespace chunkforge::client {

// The layer filter of a view's chunks, as apply_change takes it.
google::protobuf::RepeatedField<uint32_t> layer_filter(const ChunkOptions& options);

// `copy` with `change` applied, or nullopt when the change does not follow the copy's version
// (one it already has, a gap, or a reset, which needs the generated base): only a whole load
// can bring such a copy up to date. The copy itself is never modified (callbacks may hold it).
std::optional<Chunk> applied(const Chunk& copy, const v1::ChunkChange& change,
                             const google::protobuf::RepeatedField<uint32_t>& layers);

// What on_change reports for an applied change: the ids its edits name.
ChunkChangeInfo describe(const v1::ChunkChange& change, uint64_t previous_version);

}  // namespace chunkforge::client
