// File: server/edits/edit_history.h
//
// Audit (docs/edits.md, "Audit"): the stored changes matching a moderator's filters (an area, a
// player, a time window, an object), newest first, each with its author's name, its commit
// time and what it did. The EditLog RPC and `chunkforge edits log` answer with it.
//
//   v1::EditLogResponse log;
//   grpc::Status s = edit_log(store, request, chunk_limit, log);
#pragma once

#include <grpcpp/support/status.h>

#include "chunkforge/v1/edit.pb.h"
#include "edit_store.h"

namespace chunkforge::server {

// Entries per answer, at most, and by default; the answer's size, at most.
inline constexpr uint32_t kMaxLogEntries = 10000;
inline constexpr uint32_t kDefaultLogEntries = 1000;
inline constexpr size_t kMaxLogAnswerBytes = size_t{3} << 20;
// Stored changes read from the store at a time.
inline constexpr size_t kLogPage = 32;
// Chunks an object's history is looked for in, at most (an object lives in one chunk: name it).
inline constexpr int64_t kMaxObjectLogChunks = 64;

// INVALID_ARGUMENT naming a bad area (coordinates beyond +-chunk_limit, min past max), for
// EditLog and Rollback.
grpc::Status check_area(const v1::ChunkArea& area, int64_t chunk_limit);

// INVALID_ARGUMENT naming a bad filter (coordinates beyond +-chunk_limit, an inverted area or
// window, a limit over kMaxLogEntries, an object without a small area).
grpc::Status check_edit_log(const v1::EditLogRequest& request, int64_t chunk_limit);

// The matching changes, newest first (a checked request). Throws StoreError.
v1::EditLogResponse edit_log(EditStore& store, const v1::EditLogRequest& request);

}  // namespace chunkforge::server
