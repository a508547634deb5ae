// One Edit request from check to commit (see edit_batch.h).
#include "edits/edit_batch.h"

#include <google/protobuf/descriptor.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "chunkforge/chunk_edits.h"
#include "chunkforge/chunk_hash.h"
#include "chunkforge/hash.h"
#include "chunkforge/hex_text.h"  // ids in messages as `chunkforge chunk` prints them

namespace chunkforge::server {
namespace {

using grpc::Status;
using grpc::StatusCode;

std::string op_field(int i) { return "ops[" + std::to_string(i) + "]"; }
std::string chunk_name(ChunkCoord k) { return "chunk (" + std::to_string(k.x) + ", " + std::to_string(k.z) + ")"; }
ChunkCoord key_of(const v1::ChunkCoord& c) { return {c.x(), c.z()}; }

Status invalid(const std::string& message) { return {StatusCode::INVALID_ARGUMENT, message}; }

// The operations an EditOp may hold, as edit.proto names them: read from the descriptor, so that
// the error of an op without one names a new kind without anyone listing it here.
std::string operation_names() {
  const google::protobuf::OneofDescriptor* op = v1::EditOp::descriptor()->FindOneofByName("op");
  std::string names;
  for (int k = 0; k < op->field_count(); ++k) names += (k ? ", " : "") + std::string(op->field(k)->name());
  return names;
}

Status check_chunk(const v1::ChunkCoord& c, int64_t limit, const std::string& field) {
  for (const auto& [axis, value] : {std::pair{".x", c.x()}, std::pair{".z", c.z()}}) {
    if (value < -limit || value > limit) {
      return invalid(field + axis + ": must be in [" + std::to_string(-limit) + ", " + std::to_string(limit) +
                     "] (got " + std::to_string(value) + ")");
    }
  }
  return Status::OK;
}

Status check_position(float x, float z, float yaw, int64_t chunk_size, const std::string& field) {
  const auto inside = [&](float v) { return std::isfinite(v) && v >= 0 && v < static_cast<float>(chunk_size); };
  if (!inside(x))
    return invalid(field + ".x: must be in [0, " + std::to_string(chunk_size) + ") (got " + std::to_string(x) + ")");
  if (!inside(z))
    return invalid(field + ".z: must be in [0, " + std::to_string(chunk_size) + ") (got " + std::to_string(z) + ")");
  if (!(std::isfinite(yaw) && yaw >= 0 && yaw < 360)) {
    return invalid(field + ".yaw: must be in [0, 360) degrees (got " + std::to_string(yaw) + ")");
  }
  return Status::OK;
}

Status check_op(const World& world, const v1::EditOp& op, const std::string& field) {
  switch (op.op_case()) {
    case v1::EditOp::kAddObject: {
      const v1::NewObject& a = op.add_object();
      if (a.layer() >= world.resources().size()) {
        return invalid(field + ".add_object.layer: layer ids are in [0, " + std::to_string(world.resources().size()) +
                       ") (got " + std::to_string(a.layer()) + ")");
      }
      const uint32_t variants = world.resources().layer(a.layer()).variants;
      if (a.variant() >= variants) {
        return invalid(field + ".add_object.variant: must be in [0, " + std::to_string(variants) + ") for layer " +
                       std::to_string(a.layer()) + " (got " + std::to_string(a.variant()) + ")");
      }
      return check_position(a.x(), a.z(), a.yaw(), world.chunk_size(), field + ".add_object");
    }
    case v1::EditOp::kMoveObject:
      return check_position(op.move_object().x(), op.move_object().z(), op.move_object().yaw(), world.chunk_size(),
                            field + ".move_object");
    case v1::EditOp::kSetState:
      if (op.set_state().state().size() > kMaxObjectStateBytes) {
        return invalid(field + ".set_state.state: at most " + std::to_string(kMaxObjectStateBytes) + " bytes (got " +
                       std::to_string(op.set_state().state().size()) + ")");
      }
      return Status::OK;
    case v1::EditOp::kRemoveObject:
    case v1::EditOp::kRemoveStructure:
      return Status::OK;
    case v1::EditOp::OP_NOT_SET:
      break;
  }
  return invalid(field + ": no operation set (" + operation_names() + ")");
}

const v1::StructureInstance* find_structure(const v1::Chunk& chunk, uint64_t id) {
  for (const v1::StructureInstance& s : chunk.structures()) {
    if (s.id() == id) return &s;
  }
  return nullptr;
}

bool holds_object(const v1::Chunk& chunk, uint64_t id) {
  const auto& ids = chunk.objects().id();
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

// The chunks a structure's box overlaps, corners included.
void overlapped_chunks(const v1::StructureInstance& s, int64_t chunk_size, ChunkCoord& low, ChunkCoord& high) {
  const auto chunk_of = [&](double v) { return static_cast<int64_t>(std::floor(v / static_cast<double>(chunk_size))); };
  low = {chunk_of(static_cast<double>(s.x())), chunk_of(static_cast<double>(s.z()))};
  high = {chunk_of(std::nextafter(static_cast<double>(s.x()) + s.size_x(), -INFINITY)),
          chunk_of(std::nextafter(static_cast<double>(s.z()) + s.size_z(), -INFINITY))};
  high = {std::max(high.x, low.x), std::max(high.z, low.z)};
}

size_t state_bytes(const v1::Chunk& chunk) {
  size_t total = 0;
  for (const v1::ObjectState& s : chunk.object_states()) total += s.state().size();
  return total;
}

// The chunk as the store holds it now (inside the transaction), with the counts its limits need.
ChunkNow load_chunk(EditStore::Transaction& tx, ChunkCoord k, const v1::Chunk& base) {
  ChunkNow now;
  now.version = tx.version({k.x, k.z});
  const std::vector<StoredChange> log =
      now.version == 0 ? std::vector<StoredChange>{} : read_log(now.version, [&](uint64_t after) {
        return tx.log({k.x, k.z}, after);
      });
  now.current = current_chunk(base, log, {});
  now.taken_ids.insert(base.objects().id().begin(), base.objects().id().end());
  const std::set<uint64_t> generated = now.taken_ids;
  for (uint64_t id : now.current.objects().id()) {
    now.taken_ids.insert(id);
    now.added_objects += !generated.count(id);
  }
  now.state_bytes = state_bytes(now.current);
  return now;
}

class Batch {
 public:
  Batch(const World& world, EditStore::Transaction& tx, const BaseChunks& bases, GroupChunks& group)
      : world_(world), tx_(tx), bases_(bases), group_(group) {}

  Status apply(const v1::EditRequest& request, v1::EditResponse& response);
  Status check_sizes() const;
  void append(v1::EditResponse& response, std::vector<v1::ChunkChange>& changes, Authorship by);
  // A refused batch may have changed the group's copies of its chunks: they are read again.
  void forget() {
    for (const auto& [k, change] : changes_) group_.erase(k);
  }

 private:
  ChunkNow& chunk(ChunkCoord k);
  void record(ChunkCoord k, v1::ChunkEdit edit);
  Status apply_op(const v1::EditOp& op, int index, v1::EditResponse& response);
  Status add_object(ChunkCoord k, const v1::NewObject& a, int index, v1::EditResponse& response);
  Status set_state(ChunkCoord k, const v1::ObjectState& s, int index);
  Status remove_structure(ChunkCoord k, uint64_t id, const std::string& field);
  uint64_t new_id(ChunkCoord k, ChunkNow& w, int index);
  float ground(ChunkCoord k, float x, float z) const;

  const World& world_;
  EditStore::Transaction& tx_;
  const BaseChunks& bases_;
  GroupChunks& group_;
  std::map<ChunkCoord, v1::ChunkChange> changes_;  // what this batch changes, per chunk it touched
};

ChunkNow& Batch::chunk(ChunkCoord k) {
  changes_.try_emplace(k);
  auto it = group_.find(k);
  if (it == group_.end()) it = group_.emplace(k, load_chunk(tx_, k, bases_.at(k))).first;
  return it->second;
}

// Applies one resolved edit to the group's copy and records it in the chunk's change.
void Batch::record(ChunkCoord k, v1::ChunkEdit edit) {
  ChunkNow& w = chunk(k);
  v1::ChunkChange one;
  one.set_version(w.version + 1);
  *one.add_edits() = edit;
  if (edit.has_remove_object()) {
    if (!holds_object(bases_.at(k), edit.remove_object())) --w.added_objects;
    for (const v1::ObjectState& s : w.current.object_states()) {
      if (s.id() == edit.remove_object()) w.state_bytes -= s.state().size();
    }
  }
  apply_change(w.current, one, {});
  *changes_[k].add_edits() = std::move(edit);
}

uint64_t Batch::new_id(ChunkCoord k, ChunkNow& w, int index) {
  static constexpr Salt kAddedId = salt("edit added object id");
  for (uint64_t attempt = 0;; ++attempt) {
    const uint64_t id = hash(world_.seed(), kAddedId, k.x, k.z, w.version + 1, index, attempt);
    if (w.taken_ids.insert(id).second) return id;
  }
}

float Batch::ground(ChunkCoord k, float x, float z) const {
  const int64_t size = world_.chunk_size();
  return static_cast<float>(
      world_.terrain().elevation(Coord::from_parts(k.x * size, x), Coord::from_parts(k.z * size, z)));
}

Status Batch::remove_structure(ChunkCoord k, uint64_t id, const std::string& field) {
  const v1::StructureInstance* s = find_structure(chunk(k).current, id);
  if (s == nullptr)
    return {StatusCode::NOT_FOUND, field + ".remove_structure: " + chunk_name(k) + " has no structure " + hex_id(id)};
  ChunkCoord low, high;
  overlapped_chunks(*s, world_.chunk_size(), low, high);
  for (int64_t z = low.z; z <= high.z; ++z) {
    for (int64_t x = low.x; x <= high.x; ++x) {
      if (!find_structure(chunk({x, z}).current, id)) continue;
      v1::ChunkEdit edit;
      edit.set_remove_structure(id);
      record({x, z}, std::move(edit));
    }
  }
  return Status::OK;
}

Status Batch::add_object(ChunkCoord k, const v1::NewObject& a, int index, v1::EditResponse& response) {
  ChunkNow& w = chunk(k);
  if (w.added_objects >= kMaxAddedObjects) {
    return {StatusCode::RESOURCE_EXHAUSTED, op_field(index) + ".add_object: " + chunk_name(k) + " holds " +
                                                std::to_string(w.added_objects) + " added objects, at most " +
                                                std::to_string(kMaxAddedObjects) + " (remove some first)"};
  }
  v1::ChunkEdit edit;
  v1::PlacedObject* p = edit.mutable_add_object();
  p->set_id(new_id(k, w, index));
  p->set_layer(a.layer());
  p->set_x(a.x());
  p->set_z(a.z());
  p->set_y(ground(k, a.x(), a.z()));
  p->set_yaw(a.yaw());
  p->set_variant(a.variant());
  response.add_added_ids(p->id());
  ++w.added_objects;
  record(k, std::move(edit));
  return Status::OK;
}

Status Batch::set_state(ChunkCoord k, const v1::ObjectState& s, int index) {
  ChunkNow& w = chunk(k);
  if (!holds_object(w.current, s.id())) {
    return {StatusCode::NOT_FOUND,
            op_field(index) + ".set_state.id: " + chunk_name(k) + " has no object " + hex_id(s.id())};
  }
  size_t old = 0;
  for (const v1::ObjectState& o : w.current.object_states()) {
    if (o.id() == s.id()) old = o.state().size();
  }
  const size_t total = w.state_bytes - old + s.state().size();
  if (total > kMaxChunkStateBytes) {
    return {StatusCode::RESOURCE_EXHAUSTED,
            op_field(index) + ".set_state: " + chunk_name(k) + "'s object states would hold " + std::to_string(total) +
                " bytes, at most " + std::to_string(kMaxChunkStateBytes) + " (clear some first)"};
  }
  w.state_bytes = total;
  v1::ChunkEdit edit;
  *edit.mutable_set_state() = s;
  record(k, std::move(edit));
  return Status::OK;
}

Status Batch::apply_op(const v1::EditOp& op, int index, v1::EditResponse& response) {
  const ChunkCoord k = key_of(op.chunk());
  const std::string field = op_field(index);
  ChunkNow& w = chunk(k);
  const auto missing = [&](const char* what, uint64_t id) {
    return Status{StatusCode::NOT_FOUND, field + "." + what + ": " + chunk_name(k) + " has no object " + hex_id(id)};
  };
  v1::ChunkEdit edit;
  switch (op.op_case()) {
    case v1::EditOp::kRemoveObject:
      if (!holds_object(w.current, op.remove_object())) return missing("remove_object", op.remove_object());
      edit.set_remove_object(op.remove_object());
      break;
    case v1::EditOp::kAddObject:
      return add_object(k, op.add_object(), index, response);
    case v1::EditOp::kMoveObject: {
      const v1::MoveObject& m = op.move_object();
      const auto& ids = w.current.objects().id();
      const auto at = std::find(ids.begin(), ids.end(), m.id());
      if (at == ids.end()) return missing("move_object.id", m.id());
      if (holds_object(bases_.at(k), m.id())) {
        return invalid(field + ".move_object.id: " + hex_id(m.id()) +
                       " is a generated object, which cannot move (remove it and add one)");
      }
      const int i = static_cast<int>(at - ids.begin());
      v1::PlacedObject* p = edit.mutable_move_object();
      p->set_id(m.id());
      p->set_layer(w.current.objects().layer(i));
      p->set_variant(w.current.objects().variant(i));
      p->set_x(m.x());
      p->set_z(m.z());
      p->set_y(ground(k, m.x(), m.z()));
      p->set_yaw(m.yaw());
      break;
    }
    case v1::EditOp::kRemoveStructure:
      return remove_structure(k, op.remove_structure(), field);
    case v1::EditOp::kSetState:
      return set_state(k, op.set_state(), index);
    case v1::EditOp::OP_NOT_SET:
      return invalid(field + ": no operation set");
  }
  record(k, std::move(edit));
  return Status::OK;
}

Status Batch::apply(const v1::EditRequest& request, v1::EditResponse& response) {
  for (int i = 0; i < request.expect_size(); ++i) {
    const v1::ChunkVersion& e = request.expect(i);
    const auto known = group_.find(key_of(e.chunk()));
    const uint64_t now = known != group_.end() ? known->second.version : tx_.version({e.chunk().x(), e.chunk().z()});
    if (now != e.version()) {
      return {StatusCode::FAILED_PRECONDITION, "expect[" + std::to_string(i) + "]: " + chunk_name(key_of(e.chunk())) +
                                                   " is at version " + std::to_string(now) + ", not " +
                                                   std::to_string(e.version()) + " (reload it and retry)"};
    }
  }
  for (int i = 0; i < request.ops_size(); ++i) {
    if (Status status = apply_op(request.ops(i), i, response); !status.ok()) return status;
  }
  return check_sizes();
}

// The encoded size bound, checked on the chunks as the whole batch left them.
Status Batch::check_sizes() const {
  for (const auto& [k, change] : changes_) {
    if (change.edits().empty()) continue;
    const size_t bytes = group_.at(k).current.ByteSizeLong();
    if (bytes > kMaxEditedChunkBytes) {
      return {StatusCode::RESOURCE_EXHAUSTED,
              chunk_name(k) + " would encode to " + std::to_string(bytes) + " bytes without terrain, at most " +
                  std::to_string(kMaxEditedChunkBytes) + " (remove some objects first)"};
    }
  }
  return Status::OK;
}

// One change per chunk; every kSnapshotEvery-th version is stored as the chunk's snapshot.
void Batch::append(v1::EditResponse& response, std::vector<v1::ChunkChange>& changes, Authorship by) {
  for (auto& [k, change] : changes_) {
    if (change.edits().empty()) continue;
    ChunkNow& w = group_.at(k);
    const uint64_t version = ++w.version;
    w.current.set_edit_version(version);
    change = stored_change(version, std::move(change), bases_.at(k), w.current);
    // Stored with the change, so every replica's tail publishes them: what a client checks its
    // copy against, and what a change must not outgrow to be sent as one. w.current is exactly
    // what GetChunk serves for this version (no terrain, every layer), built here anyway;
    // hashing it is one serialization.
    change.set_chunk_hash(chunk_hash(w.current));
    change.set_chunk_bytes(w.current.ByteSizeLong());
    tx_.append({k.x, k.z}, version, change.SerializeAsString(), by);
    change.clear_change_edits();  // the store's alone: never sent
    change.mutable_chunk()->set_x(k.x);
    change.mutable_chunk()->set_z(k.z);
    change.set_version(version);
    *response.add_versions()->mutable_chunk() = change.chunk();
    response.mutable_versions(response.versions_size() - 1)->set_version(version);
    changes.push_back(std::move(change));
  }
  std::sort(response.mutable_versions()->begin(), response.mutable_versions()->end(),
            [](const v1::ChunkVersion& a, const v1::ChunkVersion& b) {
              return std::pair(a.chunk().z(), a.chunk().x()) < std::pair(b.chunk().z(), b.chunk().x());
            });
}

}  // namespace

Status check_request(const World& world, const v1::EditRequest& request, int64_t chunk_limit) {
  if (request.ops().empty()) return invalid("ops: no operations");
  if (request.ops_size() > kMaxEditOps || request.expect_size() > kMaxEditOps) {
    return invalid("ops, expect: at most " + std::to_string(kMaxEditOps) + " each per request (got " +
                   std::to_string(request.ops_size()) + ", " + std::to_string(request.expect_size()) + ")");
  }
  if (request.request_id().size() > kMaxRequestIdBytes) {
    return invalid("request_id: at most " + std::to_string(kMaxRequestIdBytes) + " bytes (got " +
                   std::to_string(request.request_id().size()) + ")");
  }
  for (int i = 0; i < request.expect_size(); ++i) {
    const std::string field = "expect[" + std::to_string(i) + "].chunk";
    if (Status status = check_chunk(request.expect(i).chunk(), chunk_limit, field); !status.ok()) return status;
  }
  for (int i = 0; i < request.ops_size(); ++i) {
    const std::string field = op_field(i);
    if (Status status = check_chunk(request.ops(i).chunk(), chunk_limit, field + ".chunk"); !status.ok()) return status;
    if (Status status = check_op(world, request.ops(i), field); !status.ok()) return status;
  }
  if (const size_t named = chunks_named(request).size(); named > kMaxEditChunks) {
    return invalid("ops, expect: at most " + std::to_string(kMaxEditChunks) + " distinct chunks per request (got " +
                   std::to_string(named) + ")");
  }
  return Status::OK;
}

std::vector<ChunkCoord> chunks_named(const v1::EditRequest& request) {
  std::set<ChunkCoord> named;
  for (const v1::EditOp& op : request.ops()) named.insert(key_of(op.chunk()));
  for (const v1::ChunkVersion& e : request.expect()) named.insert(key_of(e.chunk()));
  return {named.begin(), named.end()};
}

Status structure_chunks(const World& world, const v1::EditRequest& request, const BaseChunks& bases,
                        std::vector<ChunkCoord>& more) {
  for (int i = 0; i < request.ops_size(); ++i) {
    const v1::EditOp& op = request.ops(i);
    if (op.op_case() != v1::EditOp::kRemoveStructure) continue;
    const ChunkCoord k = key_of(op.chunk());
    const v1::StructureInstance* s = find_structure(bases.at(k), op.remove_structure());
    if (s == nullptr) {
      return {StatusCode::NOT_FOUND, op_field(i) + ".remove_structure: " + chunk_name(k) + " has no structure " +
                                         hex_id(op.remove_structure())};
    }
    ChunkCoord low, high;
    overlapped_chunks(*s, world.chunk_size(), low, high);
    if ((high.x - low.x + 1) * (high.z - low.z + 1) > kMaxStructureChunks) {
      return invalid(op_field(i) + ".remove_structure: the structure overlaps more than " +
                     std::to_string(kMaxStructureChunks) + " chunks");
    }
    for (int64_t z = low.z; z <= high.z; ++z) {
      for (int64_t x = low.x; x <= high.x; ++x) {
        if (!bases.count({x, z})) more.push_back({x, z});
      }
    }
  }
  std::sort(more.begin(), more.end());
  more.erase(std::unique(more.begin(), more.end()), more.end());
  return Status::OK;
}

Status commit_batch(const World& world, EditStore::Transaction& tx, const v1::EditRequest& request,
                    const BaseChunks& bases, GroupChunks& group, v1::EditResponse& response,
                    std::vector<v1::ChunkChange>& changes) {
  if (!request.request_id().empty()) {
    if (std::optional<std::string> answer = tx.request(request.request_id())) {
      response.ParseFromString(*answer);  // applied before: the same answer, nothing new
      return Status::OK;
    }
  }
  Batch batch(world, tx, bases, group);
  if (Status status = batch.apply(request, response); !status.ok()) {
    batch.forget();
    return status;
  }
  const uint32_t author = request.author().empty() ? 0 : tx.player(request.author());
  batch.append(response, changes, {author, unix_seconds()});
  if (!request.request_id().empty()) tx.remember(request.request_id(), response.SerializeAsString());
  return Status::OK;
}

}  // namespace chunkforge::server
