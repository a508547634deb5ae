// Applying a change event to a ViewSession's copy, and checking the result (chunk_change.h).
#include "chunk_change.h"

#include <memory>

#include "chunkforge/chunk_edits.h"
#include "chunkforge/chunk_hash.h"
#include "chunkforge/v1/chunk.pb.h"

namespace chunkforge::client {

google::protobuf::RepeatedField<uint32_t> layer_filter(const ChunkOptions& options) {
  google::protobuf::RepeatedField<uint32_t> layers;
  for (uint32_t layer : options.layers) layers.Add(layer);
  return layers;
}

uint64_t served_hash(v1::Chunk& chunk) {
  v1::TerrainGrid* grid = chunk.has_terrain() ? chunk.release_terrain() : nullptr;
  const uint64_t hash = chunk_hash(chunk);
  if (grid != nullptr) chunk.set_allocated_terrain(grid);
  return hash;
}

namespace {

// Fields the message carries that this SDK was built without (a newer server's).
bool has_unknown_fields(const google::protobuf::Message& message) {
  return !message.GetReflection()->GetUnknownFields(message).empty();
}

AppliedChange outcome_only(AppliedChange::Outcome outcome) {
  AppliedChange result;
  result.outcome = outcome;
  return result;
}

}  // namespace

bool understood(const v1::ChunkChange& change) {
  if (has_unknown_fields(change)) return false;
  for (const v1::ChunkEdit& edit : change.edits()) {
    if (has_unknown_fields(edit)) return false;
    switch (edit.edit_case()) {
      case v1::ChunkEdit::kRemoveObject:
      case v1::ChunkEdit::kRemoveStructure:
        break;
      case v1::ChunkEdit::kAddObject:
        if (has_unknown_fields(edit.add_object())) return false;
        break;
      case v1::ChunkEdit::kMoveObject:
        if (has_unknown_fields(edit.move_object())) return false;
        break;
      case v1::ChunkEdit::kSetState:
        if (has_unknown_fields(edit.set_state())) return false;
        break;
      case v1::ChunkEdit::EDIT_NOT_SET:  // a oneof member added after this SDK was built
        return false;
    }
  }
  return true;
}

AppliedChange apply_checked(const Chunk& copy, const v1::ChunkChange& change,
                            const google::protobuf::RepeatedField<uint32_t>& layers) {
  using Outcome = AppliedChange::Outcome;
  AppliedChange result;
  if (change.version() <= copy.edit_version()) return result;
  if (change.reset()) return outcome_only(Outcome::reset);
  if (change.version() != copy.edit_version() + 1) return outcome_only(Outcome::gap);
  // With a hash to check against, the hash decides: a newer server's field or edit that leaves
  // the bytes as this SDK makes them is harmless, and one that does not fails the check.
  // Without one, an edit this SDK cannot read is never half applied.
  const bool checkable = change.chunk_hash() != 0 && layers.empty();
  const bool known = understood(change);
  if (!known && !checkable) return outcome_only(Outcome::not_understood);
  auto next = std::make_shared<v1::Chunk>(copy.message());
  apply_change(*next, change, layers);
  if (checkable) {
    if (served_hash(*next) != change.chunk_hash()) {
      return outcome_only(known ? Outcome::hash_mismatch : Outcome::not_understood);
    }
    result.checked = true;
  }
  result.outcome = Outcome::applied;
  result.chunk.emplace(std::move(next), copy.world());
  return result;
}

ChunkChangeInfo describe(const v1::ChunkChange& change, uint64_t previous_version) {
  ChunkChangeInfo info;
  info.previous_version = previous_version;
  for (const v1::ChunkEdit& edit : change.edits()) {
    switch (edit.edit_case()) {
      case v1::ChunkEdit::kRemoveObject:
        info.removed_objects.push_back(edit.remove_object());
        break;
      case v1::ChunkEdit::kAddObject:
        info.placed_objects.push_back(edit.add_object().id());
        break;
      case v1::ChunkEdit::kMoveObject:
        info.placed_objects.push_back(edit.move_object().id());
        break;
      case v1::ChunkEdit::kRemoveStructure:
        info.removed_structures.push_back(edit.remove_structure());
        break;
      case v1::ChunkEdit::kSetState:
        info.states_changed.push_back(edit.set_state().id());
        break;
      case v1::ChunkEdit::EDIT_NOT_SET:
        break;
    }
  }
  return info;
}

}  // namespace chunkforge::client
