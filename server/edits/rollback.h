// File: server/edits/rollback.h
//
// Undoing changes (docs/edits.md, "Rollback"): one player's (or everyone's) changes in an area
// and a time window, keeping the later changes of everyone else. For each chunk holding a
// matching change, the chunk is replayed from the version before the first of them: matching
// changes are skipped, the others applied edit by edit. The result is stored as a new version
// of the chunk that restates it (a reset with its net edits, marked with the request's id), so
// every session on every replica sees it and the rollback can itself be rolled back.
//
// The rule for conflicts (another player built on what is undone):
// - an object a matching change added is KEPT when a later change of someone else names it
//   (moves it, sets its state, removes it): their work stands; reported as a conflict;
// - any other later edit that no longer applies (it names an object that is not there once the
//   matching changes are skipped) is dropped and reported;
// - a chunk that would exceed the bounds of docs/edits.md, "Limits", is left as it is and
//   reported.
//
// Applied in groups of kRollbackGroup chunks, one store transaction each. A retry with the same
// request id (after a timeout, a crash or a restart mid-way) skips the chunks whose log already
// holds a change with that id and answers as the first run would; once finished, the answer is
// remembered under the id.
//
//   RollbackSpec spec{area, griefer_id, since, until, "undo-griefer-42", moderator_id, false};
//   grpc::Status s = roll_back(store, [&](ChunkCoord c) { return base_chunk(c); }, spec, answer);
#pragma once

#include <grpcpp/support/status.h>

#include <functional>
#include <optional>
#include <string>

#include "chunkforge/v1/edit.pb.h"
#include "edit_store.h"

namespace chunkforge::server {

// Chunks one rollback may change, at most (a larger one is refused: narrow the area or window).
inline constexpr size_t kMaxRollbackChunks = 10000;
// Chunks per store transaction.
inline constexpr size_t kRollbackGroup = 64;
// The answer lists at most this many chunks and conflicts (it counts them all).
inline constexpr size_t kMaxListedVersions = 10000;
inline constexpr size_t kMaxListedConflicts = 1000;

struct RollbackSpec {
  ChunkRange area;
  std::optional<uint32_t> author;  // whose changes (a player id of the store); none: everyone's
  int64_t since = 0, until = 0;    // committed_at in [since, until); 0: unbounded
  std::string request_id;          // required unless preview
  std::string by;                  // the moderator's name, recorded as the author of the rollback
  bool preview = false;
};

// The generated chunk (all layers, no terrain).
using BaseOf = std::function<v1::Chunk(ChunkCoord)>;
// Told after each group committed: chunks handled so far, of how many.
using RollbackProgress = std::function<void(size_t done, size_t total)>;
// Asked before each group: true stops the rollback there (its client left, or the server is
// stopping), so that no rollback holds a worker or a shutdown for longer than one group.
using RollbackStop = std::function<bool()>;

// Plans (preview) or applies the rollback, `answer` saying what changed. INVALID_ARGUMENT for a
// bad spec, RESOURCE_EXHAUSTED for too many chunks, ALREADY_EXISTS for a request id used by
// another request, CANCELLED once `stop` said so; a failure of the store throws StoreError.
// Stopped or failed, the groups committed before stay, and a retry with the same id finishes
// the rest.
grpc::Status roll_back(EditStore& store, const BaseOf& base_of, const RollbackSpec& spec, v1::RollbackResponse& answer,
                       const RollbackProgress& progress = {}, const RollbackStop& stop = {});

}  // namespace chunkforge::server
