// File: client_sdk/src/chunk_change.h
//
// A ViewSession's copy of a chunk moved on by one committed change (docs/edits.md), with
// chunkforge::apply_change, the function the server builds edited chunks with: the copy stays
// byte for byte what the server serves. Never re-implemented here. Whether it did is checked:
// a change event carries the hash of the chunk it leads to (ChunkChange.chunk_hash), and an
// edit this SDK does not know is never half applied.
#pragma once

#include <google/protobuf/repeated_field.h>

#include <optional>

#include "chunkforge/client/chunk.h"
#include "chunkforge/client/view_session.h"
#include "chunkforge/v1/edit.pb.h"

namespace chunkforge::client {

// The layer filter of a view's chunks, as apply_change takes it.
google::protobuf::RepeatedField<uint32_t> layer_filter(const ChunkOptions& options);

// What became of a change event offered to a copy.
struct AppliedChange {
  enum class Outcome {
    applied,         // `chunk` is the copy moved on (`checked`: its hash matched the event's)
    already_held,    // the copy is at the change's version or newer: nothing to do
    reset,           // the edits were reset: the server sends the chunk whole
    gap,             // versions between the copy and the change were missed
    not_understood,  // an edit or field this SDK does not know, with no hash, or the hash failed
    hash_mismatch,   // applied, but the result does not hash to the event's chunk_hash
  };
  Outcome outcome = Outcome::already_held;
  std::optional<Chunk> chunk;  // only when applied
  bool checked = false;
};

// `change` offered to `copy`, a chunk encoded with the layer filter `layers`. The hash is
// compared when the event has one and the copy holds every layer (a filtered copy is not the
// chunk the hash is of); a copy with terrain is hashed without it. A change this SDK does not
// fully understand is applied only when the hash confirms the result. The copy itself is never
// modified (callbacks may hold it).
AppliedChange apply_checked(const Chunk& copy, const v1::ChunkChange& change,
                            const google::protobuf::RepeatedField<uint32_t>& layers);

// The hash of the chunk as GetChunk serves it: a copy with a terrain grid is hashed without it
// (the grid is set aside for the moment, not copied).
uint64_t served_hash(v1::Chunk& chunk);

// False if any edit of `change` is of a kind this SDK does not know, or any part of the change
// carries a field it does not know (a newer server's).
bool understood(const v1::ChunkChange& change);

// What on_change reports for an applied change: the ids its edits name.
ChunkChangeInfo describe(const v1::ChunkChange& change, uint64_t previous_version);

}  // namespace chunkforge::client
