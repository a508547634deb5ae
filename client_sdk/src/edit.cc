// Edits from the SDK (edit.h): the batch builder, its wire form, and Client::edit, which gives
// every batch a request id so that retrying an UNAVAILABLE call cannot apply it twice.
#include "chunkforge/client/edit.h"

#include <cstdio>
#include <random>

#include "chunkforge/v1/edit.pb.h"
#include "client_impl.h"

namespace chunkforge::client {
namespace {

void set_coord(ChunkCoord from, v1::ChunkCoord& to) {
  to.set_x(from.x);
  to.set_z(from.z);
}

// One operation on the wire. The overloads follow the variant's alternatives.
struct WireOp {
  v1::EditOp& op;
  void operator()(const EditBatch::Remove& r) const { op.set_remove_object(r.id); }
  void operator()(const NewObject& n) const {
    v1::NewObject& to = *op.mutable_add_object();
    to.set_layer(n.layer);
    to.set_x(n.x);
    to.set_z(n.z);
    to.set_yaw(n.yaw);
    to.set_variant(n.variant);
  }
  void operator()(const EditBatch::Move& m) const {
    v1::MoveObject& to = *op.mutable_move_object();
    to.set_id(m.id);
    to.set_x(m.x);
    to.set_z(m.z);
    to.set_yaw(m.yaw);
  }
  void operator()(const EditBatch::RemoveStructure& r) const { op.set_remove_structure(r.id); }
  void operator()(const EditBatch::SetState& s) const {
    op.mutable_set_state()->set_id(s.id);
    op.mutable_set_state()->set_state(s.state);
  }
};

v1::EditRequest wire_request(const EditBatch& batch, std::string request_id) {
  v1::EditRequest request;
  for (const EditBatch::Op& op : batch.ops()) {
    v1::EditOp& to = *request.add_ops();
    set_coord(op.chunk, *to.mutable_chunk());
    std::visit(WireOp{to}, op.what);
  }
  for (const ChunkVersion& v : batch.expected()) {
    v1::ChunkVersion& to = *request.add_expect();
    set_coord(v.chunk, *to.mutable_chunk());
    to.set_version(v.version);
  }
  request.set_request_id(std::move(request_id));
  request.set_author(batch.author());
  return request;
}

// 128 random bits: two clients (or two runs of one) never repeat each other's ids, whatever
// their clocks say; the server remembers ids across its restarts.
std::string random_request_id() {
  std::random_device device;
  char hex[33];
  for (int k = 0; k < 4; ++k) std::snprintf(hex + 8 * k, 9, "%08x", static_cast<unsigned>(device()));
  return "sdk-" + std::string(hex, 32);
}

}  // namespace

EditBatch& EditBatch::remove_object(ChunkCoord chunk, uint64_t id) {
  ops_.push_back({chunk, Remove{id}});
  return *this;
}

EditBatch& EditBatch::add_object(ChunkCoord chunk, const NewObject& object) {
  ops_.push_back({chunk, object});
  return *this;
}

EditBatch& EditBatch::move_object(ChunkCoord chunk, uint64_t id, float x, float z, float yaw) {
  ops_.push_back({chunk, Move{id, x, z, yaw}});
  return *this;
}

EditBatch& EditBatch::remove_structure(ChunkCoord chunk, uint64_t id) {
  ops_.push_back({chunk, RemoveStructure{id}});
  return *this;
}

EditBatch& EditBatch::set_state(ChunkCoord chunk, uint64_t id, std::string state) {
  ops_.push_back({chunk, SetState{id, std::move(state)}});
  return *this;
}

EditBatch& EditBatch::expect(ChunkCoord chunk, uint64_t version) {
  expected_.push_back({chunk, version});
  return *this;
}

EditBatch& EditBatch::author(std::string player) {
  author_ = std::move(player);
  return *this;
}

EditBatch& EditBatch::request_id(std::string id) {
  request_id_ = std::move(id);
  return *this;
}

Result<EditResult> Client::edit(const EditBatch& batch) {
  std::string request_id = batch.request_id().empty() ? random_request_id() : batch.request_id();
  const v1::EditRequest request = wire_request(batch, request_id);
  v1::EditResponse response;
  // Safe to retry: the request id makes the server apply the batch once and repeat its answer.
  const grpc::Status status = with_retries(impl_->options, [&] {
    grpc::ClientContext context;
    impl_->prepare(context);
    return impl_->stub->Edit(&context, request, &response);
  });
  if (!status.ok()) return to_status(status);
  EditResult result;
  for (const v1::ChunkVersion& v : response.versions()) {
    result.versions.push_back({{v.chunk().x(), v.chunk().z()}, v.version()});
  }
  result.added_ids.assign(response.added_ids().begin(), response.added_ids().end());
  result.request_id = std::move(request_id);
  return result;
}

}  // namespace chunkforge::client
