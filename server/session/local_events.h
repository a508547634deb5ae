// File: server/session/local_events.h
//
// The SessionEvents of a session whose client generates pristine chunks itself
// (docs/client-generation.md): the answer to its request, pristine chunks as coordinate offsets
// (about two bytes each), and an edited chunk as one change from its generated base. Built from
// what the server already knows (the version index and the stored log): nothing here generates.
#pragma once

#include <string>
#include <vector>

#include "chunkforge/chunk.h"
#include "session/session_view.h"
#include "store/edit_store.h"

namespace chunkforge::server {

// SessionEvent{local_generation: {accepted, reason}}.
std::string local_answer_event(bool accepted, const std::string& reason);

// SessionEvent{pristine: {origin, offsets}} of `chunks`, in order, as offsets from `origin`.
// Offsets must fit an int32 (chunks of one view around its centre do).
std::string pristine_event(ChunkKey origin, const std::vector<ChunkKey>& chunks);

// SessionEvent{edited: change} for `chunk` at `version` from its stored log (read_log: from the
// newest snapshot or reset on): every change from the last reset on, their edits concatenated
// into one change marked reset (the client starts from its generated base), with the hash the
// store holds for the newest. Applying the edits one change after another, or all at once in
// this order, gives the same chunk (apply_change takes edits in order).
std::string edited_event(ChunkCoord chunk, uint64_t version, const std::vector<StoredChange>& log);

}  // namespace chunkforge::server
