// Applying a change event to a ViewSession's copy (chunk_change.h).
#include "chunk_change.h"

#include <memory>

#include "chunkforge/chunk_edits.h"
#include "chunkforge/v1/chunk.pb.h"

namespace chunkforge::client {

google::protobuf::RepeatedField<uint32_t> layer_filter(const ChunkOptions& options) {
  google::protobuf::RepeatedField<uint32_t> layers;
  for (uint32_t layer : options.layers) layers.Add(layer);
  return layers;
}

std::optional<Chunk> applied(const Chunk& copy, const v1::ChunkChange& change,
                             const google::protobuf::RepeatedField<uint32_t>& layers) {
  if (change.reset() || change.version() != copy.edit_version() + 1) return std::nullopt;
  auto next = std::make_shared<v1::Chunk>(copy.message());
  apply_change(*next, change, layers);
  return Chunk(std::move(next), copy.world());
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
