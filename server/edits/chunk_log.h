// File: server/edits/chunk_log.h
//
// A chunk's stored log and what it makes (docs/edits.md, "Compaction"): every kSnapshotEvery-th
// version of a chunk is stored as a snapshot, a reset plus the chunk's net edits, so neither a
// read nor an edit replays more than kSnapshotEvery changes, however long the chunk's history.
// Pure functions of messages; the store is read through the callback given.
#pragma once

#include <functional>
#include <vector>

#include "chunkforge/chunk.h"
#include "chunkforge/v1/chunk.pb.h"
#include "chunkforge/v1/edit.pb.h"
#include "edit_store.h"

namespace chunkforge::server {

// Every version that is a multiple of this is stored as a snapshot (docs/edits.md, Compaction).
inline constexpr uint64_t kSnapshotEvery = 32;

// The chunk's stored changes up to `version` from its newest snapshot or reset on, oldest
// first (all of them if it has none). `log(after)` reads the changes after a version.
std::vector<StoredChange> read_log(uint64_t version,
                                   const std::function<std::vector<StoredChange>(uint64_t after)>& log);

// A change holding the chunk's net edits over its base (removals of generated objects and
// structures, added objects as they stand, states), marked reset: applied to the base it gives
// `current`'s objects, structures and states.
v1::ChunkChange snapshot_change(const v1::Chunk& base, const v1::Chunk& current);

// Whether a committed change can add or remove a structure of its chunk: it removes one, or
// resets the chunk to its generated state, unless it is a snapshot that says its structures
// are those of the version before (same_structures). The LOD tiles that show the chunk's
// structures change with it.
bool changes_structures(const v1::ChunkChange& change);

// Whether `change` is larger than the chunk it leads to (chunk_bytes; unknown for a change
// stored before it was kept): a change is never sent where the chunk would be smaller, the
// chunk is sent instead (docs/server.md, "Amplification").
bool outgrows_chunk(const v1::ChunkChange& change);

// Every version that is a multiple of kSnapshotEvery stored as a snapshot of `current` over
// `base`, marked same_structures when the change it stands for removed no structure and holding
// that change's edits in change_edits (for audit and rollback): `change` as it is stored.
v1::ChunkChange stored_change(uint64_t version, v1::ChunkChange change, const v1::Chunk& base,
                              const v1::Chunk& current);

// A chunk as it is now: its base with the stored changes applied (a reset starts over).
v1::Chunk current_chunk(const v1::Chunk& base, const std::vector<StoredChange>& log,
                        const google::protobuf::RepeatedField<uint32_t>& layers);

// The change a client that generates gets for an edited `chunk` at `version`
// (SessionEvent.edited, and GetChunkEdits' answers), from its stored log (read_log: from the
// newest snapshot or reset on): every change from the last reset on, their edits concatenated
// into one change marked reset (the client starts from its generated base), with the hash and
// the chunk's size the store holds for the newest. Applying the edits one change after
// another, or all at once in this order, gives the same chunk (apply_change takes edits in
// order).
v1::ChunkChange edited_change(ChunkCoord chunk, uint64_t version, const std::vector<StoredChange>& log);

}  // namespace chunkforge::server
