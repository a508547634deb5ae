// File: tests/hostile/adversary/store_states.h
//
// The edit-store states the generated adversary crosses its attacks with, each made once per
// run through the real Edit RPC of a server started on an empty SQLite store (--data DIR
// --open-edits), then copied for every server that attacks it:
//
//   empty             nothing edited
//   limit_chunk       chunk (0, 0) at every per-chunk edit bound, 4,096 added objects and
//                     256 KiB of object states, over a long log (32 objects, or 32 states, a
//                     version)
//   thousand_chunks   1,000 chunks around (0, 0) edited, one added object each
//   snapshots         chunk (0, 0) with over 32 x 33 versions (kSnapshotEvery is 32: 33
//                     compaction snapshots), 256 added objects with their states rewritten
//
// The edits are at the origin because the derived requests are: a minimal request's coordinates
// are zero.
#pragma once

#include <string>

namespace chunkforge::hostile::adversary {

enum class StoreState { empty, limit_chunk, thousand_chunks, snapshots };
inline constexpr StoreState kStoreStates[] = {StoreState::empty, StoreState::limit_chunk, StoreState::thousand_chunks,
                                              StoreState::snapshots};
const char* store_name(StoreState state);

// A directory whose edits.db is in `state` (a template: copy it with copy_store). Throws if a
// server or an edit failed.
std::string build_store(StoreState state);
// A fresh copy of a template directory.
std::string copy_store(const std::string& template_dir);

}  // namespace chunkforge::hostile::adversary
