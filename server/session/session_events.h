// File: server/session/session_events.h
//
// The SessionEvents a session writes, encoded. Loads wrap the cached chunk bytes without
// re-encoding them. A session whose client generates pristine chunks itself
// (docs/client-generation.md) gets the answer to its request, pristine chunks as coordinate
// offsets (about two bytes each), and an edited chunk as one change from its generated base,
// built from what the server already knows (the version index and the stored log): nothing here
// generates. LOD tiles (docs/lod.md) go as their cached bytes too. Unloads go one key per event,
// or for a client that reads batches many keys per event, as offsets from the first.
#pragma once

#include <string>
#include <vector>

#include "chunkforge/chunk.h"
#include "chunkforge/lod.h"
#include "chunkforge/v1/edit.pb.h"
#include "session/session_view.h"

namespace chunkforge::server {

// SessionEvent{load: chunk} around the chunk's canonical bytes. Also one entry of
// ChunkBatch.chunks, which is field 1 too.
std::string load_event(const std::string& chunk);
// SessionEvent{loads: ChunkBatch{chunks}} around entries made by load_event.
std::string loads_event(const std::string& chunks);
// SessionEvent{unload: key}.
std::string unload_event(ChunkCoord key);
// SessionEvent{unloads: {origin, offsets}} of `chunks` (at least one), in order, as offsets from
// the first (64-bit: any two chunks of the world fit).
std::string unloads_event(const std::vector<ChunkCoord>& chunks);
// SessionEvent{lod_tile: tile} around the tile's canonical bytes.
std::string tile_event(const std::string& tile);
// SessionEvent{lod_unload: key}.
std::string tile_unload_event(const LodKey& key);
// SessionEvent{lod_unloads: {origin, levels, offsets}} of `keys` (at least one), in order: the
// origin is the first key's corner chunk, each key's offsets are from the tile of the origin at
// its level (64-bit: any two tiles of the world fit).
std::string tile_unloads_event(const std::vector<LodKey>& keys);
// SessionEvent{lod_pristine: {origin, levels, offsets}} of `keys` (tiles a client that
// generates makes itself), in order, as offsets from the tile of `origin` at each key's level.
// Every offset must fit an int32 (tile_offsets_fit).
std::string pristine_tiles_event(ChunkCoord origin, const std::vector<LodKey>& keys);
bool tile_offsets_fit(ChunkCoord origin, const LodKey& key);

// SessionEvent{reconnect: {reason}}: the server drains, the session should move.
std::string reconnect_event(const std::string& reason);

// SessionEvent{local_generation: {accepted, reason}}.
std::string local_answer_event(bool accepted, const std::string& reason);

// SessionEvent{pristine: {origin, offsets}} of `chunks`, in order, as offsets from `origin`.
// Offsets must fit an int32 (chunks of one view around its centre do). `older_land`: the
// event's older_land (empty: none).
std::string pristine_event(ChunkCoord origin, const std::vector<ChunkCoord>& chunks,
                           const std::string& older_land = {});

}  // namespace chunkforge::server
