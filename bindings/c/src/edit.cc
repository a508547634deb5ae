// File: bindings/c/src/edit.cc
//
// The C ABI's edits: a batch built operation by operation, sent with cf_client_edit, whose
// result the batch keeps for the caller to read.
#include "abi.h"

using namespace chunkforge::capi;

namespace {

// Runs `add` on a batch that must not be NULL.
template <class Add>
cf_status with_batch(cf_edit_batch* batch, Add&& add) {
  return guarded([&]() -> cf_status {
    if (batch == nullptr) return null_argument("batch");
    add(batch->batch);
    return CF_OK;
  });
}

}  // namespace

extern "C" {

cf_status cf_edit_batch_new(cf_edit_batch** out) {
  return guarded([&]() -> cf_status {
    if (out == nullptr) return null_argument("out");
    *out = new cf_edit_batch{};
    return CF_OK;
  });
}

void cf_edit_batch_free(cf_edit_batch* batch) { delete batch; }

cf_status cf_edit_remove_object(cf_edit_batch* batch, int64_t chunk_x, int64_t chunk_z, uint64_t id) {
  return with_batch(batch, [&](cf::EditBatch& b) { b.remove_object({chunk_x, chunk_z}, id); });
}

cf_status cf_edit_add_object(cf_edit_batch* batch, int64_t chunk_x, int64_t chunk_z, uint32_t layer, float x, float z,
                             float yaw, uint32_t variant) {
  return with_batch(batch, [&](cf::EditBatch& b) {
    b.add_object({chunk_x, chunk_z}, {.layer = layer, .x = x, .z = z, .yaw = yaw, .variant = variant});
  });
}

cf_status cf_edit_move_object(cf_edit_batch* batch, int64_t chunk_x, int64_t chunk_z, uint64_t id, float x, float z,
                              float yaw) {
  return with_batch(batch, [&](cf::EditBatch& b) { b.move_object({chunk_x, chunk_z}, id, x, z, yaw); });
}

cf_status cf_edit_remove_structure(cf_edit_batch* batch, int64_t chunk_x, int64_t chunk_z, uint64_t id) {
  return with_batch(batch, [&](cf::EditBatch& b) { b.remove_structure({chunk_x, chunk_z}, id); });
}

cf_status cf_edit_set_state(cf_edit_batch* batch, int64_t chunk_x, int64_t chunk_z, uint64_t id, const void* state,
                            size_t size) {
  if (state == nullptr && size > 0) return null_argument("state");
  return with_batch(batch, [&](cf::EditBatch& b) {
    b.set_state({chunk_x, chunk_z}, id, size == 0 ? std::string() : std::string(static_cast<const char*>(state), size));
  });
}

cf_status cf_edit_expect(cf_edit_batch* batch, int64_t chunk_x, int64_t chunk_z, uint64_t version) {
  return with_batch(batch, [&](cf::EditBatch& b) { b.expect({chunk_x, chunk_z}, version); });
}

cf_status cf_edit_request_id(cf_edit_batch* batch, const char* request_id) {
  if (request_id == nullptr) return null_argument("request_id");
  return with_batch(batch, [&](cf::EditBatch& b) { b.request_id(request_id); });
}

cf_status cf_edit_author(cf_edit_batch* batch, const char* player) {
  if (player == nullptr) return null_argument("player");
  return with_batch(batch, [&](cf::EditBatch& b) { b.author(player); });
}

cf_status cf_client_edit(cf_client* client, cf_edit_batch* batch, cf_edit_result* out) {
  return guarded([&]() -> cf_status {
    if (client == nullptr) return null_argument("client");
    if (batch == nullptr) return null_argument("batch");
    cf::Result<cf::EditResult> done = client->client.edit(batch->batch);
    if (!done) return fail(done.status());
    batch->result = std::move(*done);
    batch->versions.clear();
    for (const cf::ChunkVersion& v : batch->result.versions) {
      batch->versions.push_back({v.chunk.x, v.chunk.z, v.version});
    }
    if (out != nullptr) {
      *out = {batch->versions.data(), batch->versions.size(), batch->result.added_ids.data(),
              batch->result.added_ids.size(), batch->result.request_id.c_str()};
    }
    return CF_OK;
  });
}

}  // extern "C"
