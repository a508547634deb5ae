// File: chunkforge/client/edit.h
//
// Changing the world (docs/edits.md): an EditBatch of operations that the server applies all or
// nothing, in order, and durably (an OK answer means committed). Client::edit sends it.
//
//   chunkforge::client::EditBatch fell;
//   fell.remove_object(chunk.coord(), tree.id).expect(chunk.coord(), chunk.edit_version());
//   auto done = client.edit(fell);                    // needs the write token (ConnectOptions)
//   if (!done && done.status().code == StatusCode::failed_precondition) ...  // someone was first
//   if (!done && done.status().code == StatusCode::not_found) ...            // already gone
//
// Positions are chunk-relative, as on the wire: x and z in [0, chunk_size) from the chunk's
// lowest corner. Every operation names its chunk. A bad operation is refused with
// INVALID_ARGUMENT or NOT_FOUND naming it ("ops[2].add_object.x: must be in [0, 64) ...").
//
// Thread safety: a plain value; build it on one thread, send it from any.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "chunkforge/client/chunk.h"

namespace chunkforge::client {

// An object to add; the server gives it its id and stands it on the terrain.
struct NewObject {
  uint32_t layer = 0;    // a resource layer id (WorldInfo::resources())
  float x = 0, z = 0;    // chunk-relative, each in [0, chunk_size)
  float yaw = 0;         // degrees, [0, 360)
  uint32_t variant = 0;  // in [0, the layer's variants)
};

// A chunk's edit version: 0 for a chunk never edited, one more for each committed change.
struct ChunkVersion {
  ChunkCoord chunk;
  uint64_t version = 0;
  auto operator<=>(const ChunkVersion&) const = default;
};

class EditBatch {
 public:
  // Removes a generated or added object by id.
  EditBatch& remove_object(ChunkCoord chunk, uint64_t id);
  EditBatch& add_object(ChunkCoord chunk, const NewObject& object);
  // Moves an added object within its chunk; its state goes with it. Generated objects cannot
  // move (remove one and add another).
  EditBatch& move_object(ChunkCoord chunk, uint64_t id, float x, float z, float yaw = 0);
  // Removes a structure instance from every chunk its box touches; `chunk` is any of them.
  EditBatch& remove_structure(ChunkCoord chunk, uint64_t id);
  // Sets an object's opaque state (at most 256 bytes); an empty state clears it.
  EditBatch& set_state(ChunkCoord chunk, uint64_t id, std::string state);
  // Compare-and-set: the batch applies only if `chunk` is at `version`; otherwise
  // FAILED_PRECONDITION, whose message gives the current version.
  EditBatch& expect(ChunkCoord chunk, uint64_t version);
  // Makes a retry apply once (at most 128 bytes): the server answers a repeated id with the
  // first answer. Without one, Client::edit makes a random one (see there).
  EditBatch& request_id(std::string id);
  // The player the edit is made for (at most 128 bytes), recorded with each change (docs/edits.md,
  // "Moderation"). Only a client with the server's write token (the game's own server) may name
  // one; a player's token edits as its player.
  EditBatch& author(std::string player);

  // What the batch holds, for Client::edit.
  struct Remove {
    uint64_t id;
  };
  struct Move {
    uint64_t id;
    float x, z, yaw;
  };
  struct RemoveStructure {
    uint64_t id;
  };
  struct SetState {
    uint64_t id;
    std::string state;
  };
  struct Op {
    ChunkCoord chunk;
    std::variant<Remove, NewObject, Move, RemoveStructure, SetState> what;
  };
  const std::vector<Op>& ops() const { return ops_; }
  const std::vector<ChunkVersion>& expected() const { return expected_; }
  const std::string& request_id() const { return request_id_; }
  const std::string& author() const { return author_; }

 private:
  std::vector<Op> ops_;
  std::vector<ChunkVersion> expected_;
  std::string request_id_, author_;
};

// A committed batch.
struct EditResult {
  std::vector<ChunkVersion> versions;  // the new version of every chunk it changed, by z then x
  std::vector<uint64_t> added_ids;     // the ids of its add_object operations, in order
  std::string request_id;              // the id it was sent with (the caller's or a random one)
};

}  // namespace chunkforge::client
