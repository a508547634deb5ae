// A chunk's stored log read from its newest snapshot, a snapshot made, and the chunk the log
// makes (chunk_log.h).
#include "edits/chunk_log.h"

#include <set>

#include "chunkforge/chunk_edits.h"

namespace chunkforge::server {

std::vector<StoredChange> read_log(uint64_t version,
                                   const std::function<std::vector<StoredChange>(uint64_t after)>& log) {
  const uint64_t snapshot = version - version % kSnapshotEvery;
  if (snapshot > 0) {
    std::vector<StoredChange> out = log(snapshot - 1);
    v1::ChunkChange first;
    // A store written before snapshots, or an import, may hold an ordinary change there.
    if (!out.empty() && out.front().version == snapshot && first.ParseFromString(out.front().change) && first.reset()) {
      std::erase_if(out, [&](const StoredChange& c) { return c.version > version; });
      return out;
    }
  }
  std::vector<StoredChange> out = log(0);
  std::erase_if(out, [&](const StoredChange& c) { return c.version > version; });
  return out;
}

v1::ChunkChange snapshot_change(const v1::Chunk& base, const v1::Chunk& current) {
  v1::ChunkChange out;
  out.set_reset(true);
  const std::set<uint64_t> now(current.objects().id().begin(), current.objects().id().end());
  const std::set<uint64_t> generated(base.objects().id().begin(), base.objects().id().end());
  for (uint64_t id : base.objects().id()) {
    if (!now.count(id)) out.add_edits()->set_remove_object(id);
  }
  std::set<uint64_t> structures;
  for (const v1::StructureInstance& s : current.structures()) structures.insert(s.id());
  for (const v1::StructureInstance& s : base.structures()) {
    if (!structures.count(s.id())) out.add_edits()->set_remove_structure(s.id());
  }
  const v1::Objects& o = current.objects();
  for (int i = 0; i < o.id_size(); ++i) {
    if (generated.count(o.id(i))) continue;
    v1::PlacedObject* p = out.add_edits()->mutable_add_object();
    p->set_id(o.id(i));
    p->set_layer(o.layer(i));
    p->set_x(o.x(i));
    p->set_z(o.z(i));
    p->set_y(o.y(i));
    p->set_yaw(o.yaw(i));
    p->set_variant(o.variant(i));
  }
  for (const v1::ObjectState& s : current.object_states()) *out.add_edits()->mutable_set_state() = s;
  return out;
}

bool changes_structures(const v1::ChunkChange& change) {
  if (change.same_structures()) return false;
  if (change.reset()) return true;
  for (const v1::ChunkEdit& edit : change.edits()) {
    if (edit.edit_case() == v1::ChunkEdit::kRemoveStructure) return true;
  }
  return false;
}

bool outgrows_chunk(const v1::ChunkChange& change) {
  return change.chunk_bytes() != 0 && change.ByteSizeLong() > change.chunk_bytes();
}

v1::ChunkChange stored_change(uint64_t version, v1::ChunkChange change, const v1::Chunk& base,
                              const v1::Chunk& current) {
  if (version % kSnapshotEvery != 0) return change;
  v1::ChunkChange snapshot = snapshot_change(base, current);
  snapshot.set_same_structures(!changes_structures(change));
  // What this version did, for audit and rollback (the snapshot restates the chunk instead).
  *snapshot.mutable_change_edits() = std::move(*change.mutable_edits());
  return snapshot;
}

v1::Chunk current_chunk(const v1::Chunk& base, const std::vector<StoredChange>& log,
                        const google::protobuf::RepeatedField<uint32_t>& layers) {
  v1::Chunk chunk = base;
  for (const StoredChange& stored : log) {
    v1::ChunkChange change;
    change.ParseFromString(stored.change);
    if (change.reset()) chunk = base;
    change.set_version(stored.version);
    apply_change(chunk, change, layers);
  }
  return chunk;
}

v1::ChunkChange edited_change(ChunkCoord chunk, uint64_t version, const std::vector<StoredChange>& log) {
  size_t from = 0;  // the last reset: what came before it no longer counts
  std::vector<v1::ChunkChange> changes(log.size());
  for (size_t k = 0; k < log.size(); ++k) {
    changes[k].ParseFromString(log[k].change);
    if (changes[k].reset()) from = k;
  }
  v1::ChunkChange edited;
  edited.mutable_chunk()->set_x(chunk.x);
  edited.mutable_chunk()->set_z(chunk.z);
  edited.set_version(version);
  edited.set_reset(true);
  for (size_t k = from; k < changes.size(); ++k) {
    for (v1::ChunkEdit& e : *changes[k].mutable_edits()) *edited.add_edits() = std::move(e);
  }
  if (!changes.empty() && log.back().version == version) {
    edited.set_chunk_hash(changes.back().chunk_hash());
    edited.set_chunk_bytes(changes.back().chunk_bytes());
  }
  return edited;
}

}  // namespace chunkforge::server
