// apply_change (chunkforge/chunk_edits.h): a committed change applied to an encoded chunk.
// Objects are unpacked from the parallel arrays once, edited, and packed back in canonical
// order (layer, z, x, id), which added objects join by the same rule as generated ones.
#include "chunkforge/chunk_edits.h"

#include <algorithm>
#include <tuple>
#include <vector>

namespace chunkforge {
namespace {

struct Object {
  uint32_t layer = 0;
  float x = 0, z = 0, y = 0, yaw = 0;
  uint32_t variant = 0;
  uint64_t id = 0;
  auto order() const { return std::tuple(layer, z, x, id); }
};

std::vector<Object> unpack(const v1::Objects& o) {
  std::vector<Object> out(static_cast<size_t>(o.id_size()));
  for (int i = 0; i < o.id_size(); ++i) {
    out[static_cast<size_t>(i)] = {o.layer(i), o.x(i), o.z(i), o.y(i), o.yaw(i), o.variant(i), o.id(i)};
  }
  return out;
}

void pack(const std::vector<Object>& objects, v1::Objects& o) {
  o.Clear();
  for (const Object& b : objects) {
    o.add_layer(b.layer);
    o.add_x(b.x);
    o.add_z(b.z);
    o.add_y(b.y);
    o.add_yaw(b.yaw);
    o.add_variant(b.variant);
    o.add_id(b.id);
  }
}

Object from_placed(const v1::PlacedObject& p) { return {p.layer(), p.x(), p.z(), p.y(), p.yaw(), p.variant(), p.id()}; }

void insert_in_order(std::vector<Object>& objects, const Object& object) {
  const auto at = std::upper_bound(objects.begin(), objects.end(), object,
                                   [](const Object& a, const Object& b) { return a.order() < b.order(); });
  objects.insert(at, object);
}

// Removes the object with `id`; false if the chunk does not hold it.
bool erase_object(std::vector<Object>& objects, uint64_t id) {
  const auto it = std::find_if(objects.begin(), objects.end(), [id](const Object& o) { return o.id == id; });
  if (it == objects.end()) return false;
  objects.erase(it);
  return true;
}

bool holds(const std::vector<Object>& objects, uint64_t id) {
  return std::any_of(objects.begin(), objects.end(), [id](const Object& o) { return o.id == id; });
}

// Object states stay sorted by id, one per object.
void set_state(v1::Chunk& chunk, uint64_t id, const std::string& state) {
  auto* states = chunk.mutable_object_states();
  const auto it = std::lower_bound(states->begin(), states->end(), id,
                                   [](const v1::ObjectState& s, uint64_t key) { return s.id() < key; });
  const bool present = it != states->end() && it->id() == id;
  if (state.empty()) {
    if (present) states->erase(it);
    return;
  }
  if (present) {
    it->set_state(state);
    return;
  }
  const int index = static_cast<int>(it - states->begin());
  states->Add()->set_id(id);
  for (int i = states->size() - 1; i > index; --i) states->SwapElements(i, i - 1);
  states->Mutable(index)->set_state(state);
}

void erase_structure(v1::Chunk& chunk, uint64_t id) {
  auto* structures = chunk.mutable_structures();
  const auto it = std::find_if(structures->begin(), structures->end(),
                               [id](const v1::StructureInstance& s) { return s.id() == id; });
  if (it != structures->end()) structures->erase(it);
}

bool wanted(const google::protobuf::RepeatedField<uint32_t>& layers, uint32_t layer) {
  return layers.empty() || std::find(layers.begin(), layers.end(), layer) != layers.end();
}

}  // namespace

void apply_change(v1::Chunk& chunk, const v1::ChunkChange& change,
                  const google::protobuf::RepeatedField<uint32_t>& layers) {
  std::vector<Object> objects = unpack(chunk.objects());
  for (const v1::ChunkEdit& edit : change.edits()) {
    switch (edit.edit_case()) {
      case v1::ChunkEdit::kRemoveObject:
        if (erase_object(objects, edit.remove_object())) set_state(chunk, edit.remove_object(), "");
        break;
      case v1::ChunkEdit::kAddObject:
        if (wanted(layers, edit.add_object().layer())) insert_in_order(objects, from_placed(edit.add_object()));
        break;
      case v1::ChunkEdit::kMoveObject:
        if (erase_object(objects, edit.move_object().id())) insert_in_order(objects, from_placed(edit.move_object()));
        break;
      case v1::ChunkEdit::kRemoveStructure:
        erase_structure(chunk, edit.remove_structure());
        break;
      case v1::ChunkEdit::kSetState:
        if (holds(objects, edit.set_state().id())) set_state(chunk, edit.set_state().id(), edit.set_state().state());
        break;
      case v1::ChunkEdit::EDIT_NOT_SET:
        break;
    }
  }
  pack(objects, *chunk.mutable_objects());  // present as in every generated chunk, even empty
  chunk.set_edit_version(change.version());
}

}  // namespace chunkforge
