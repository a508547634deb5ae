// File: bindings/c/src/chunk.cc
//
// The C ABI's chunks: one chunk, a region stream, and the plain-data view of a chunk (objects,
// structures, terrain arrays) and its canonical bytes, each made once per chunk on first use.
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include "abi.h"
#include "chunkforge/chunk_hash.h"
#include "chunkforge/v1/chunk.pb.h"

namespace chunkforge::capi {
namespace {

// The bytes the server caches and sends: deterministic serialization, as chunkforge's encoder.
std::string encode(const google::protobuf::MessageLite& message) {
  std::string bytes;
  google::protobuf::io::StringOutputStream out(&bytes);
  google::protobuf::io::CodedOutputStream coded(&out);
  coded.SetSerializationDeterministic(true);
  message.SerializeToCodedStream(&coded);
  coded.Trim();
  return bytes;
}

cf_chunk* handle_of(cf::Chunk chunk) { return new cf_chunk{std::make_shared<ChunkData>(std::move(chunk))}; }

}  // namespace

const cf_chunk_view& ChunkData::view() {
  std::call_once(made_view, [this] {
    for (const cf::Object& o : chunk.objects()) objects.push_back({o.id, o.x, o.z, o.y, o.yaw, o.layer, o.variant});
    for (const cf::Structure& s : chunk.structures()) structures.push_back(structure_of(s));
    cf_chunk_view& v = c_view;
    v.x = chunk.coord().x;
    v.z = chunk.coord().z;
    v.origin_x = chunk.origin_x();
    v.origin_z = chunk.origin_z();
    v.chunk_size = chunk.chunk_size();
    v.generator_version = chunk.generator_version();
    v.edit_version = chunk.edit_version();
    v.objects = objects.data();
    v.object_count = objects.size();
    v.structures = structures.data();
    v.structure_count = structures.size();
    if (chunk.terrain()) {  // whole grids only, as the SDK's TerrainView
      const v1::TerrainGrid& grid = chunk.message().terrain();
      v.terrain_size = grid.size();
      v.terrain_step = grid.step();
      v.elevation = grid.elevation().data();
      v.biome = grid.biome().data();
      v.material = grid.material().data();
    }
  });
  return c_view;
}

const std::string& ChunkData::canonical_bytes() {
  std::call_once(made_bytes, [this] { bytes = encode(chunk.message()); });
  return bytes;
}

}  // namespace chunkforge::capi

using namespace chunkforge::capi;

extern "C" {

cf_status cf_client_chunk(cf_client* client, int64_t x, int64_t z, const cf_chunk_options* options, cf_chunk** out) {
  return guarded([&]() -> cf_status {
    if (out == nullptr) return null_argument("out");
    *out = nullptr;
    if (client == nullptr) return null_argument("client");
    cf::ChunkOptions read;
    if (const cf_status refused = read_chunk_options(options, "options", read); refused != CF_OK) return refused;
    cf::Result<cf::Chunk> chunk = client->client.chunk({x, z}, read);
    if (!chunk) return fail(chunk.status());
    *out = handle_of(std::move(*chunk));
    return CF_OK;
  });
}

cf_status cf_chunk_get_view(const cf_chunk* chunk, cf_chunk_view* out) {
  return guarded([&]() -> cf_status {
    if (chunk == nullptr) return null_argument("chunk");
    if (out == nullptr) return null_argument("out");
    *out = chunk->data->view();
    return CF_OK;
  });
}

cf_status cf_chunk_get_bytes(const cf_chunk* chunk, const uint8_t** bytes, size_t* size) {
  return guarded([&]() -> cf_status {
    if (chunk == nullptr) return null_argument("chunk");
    if (bytes == nullptr) return null_argument("bytes");
    if (size == nullptr) return null_argument("size");
    const std::string& encoded = chunk->data->canonical_bytes();
    *bytes = reinterpret_cast<const uint8_t*>(encoded.data());
    *size = encoded.size();
    return CF_OK;
  });
}

cf_status cf_chunk_object_state(const cf_chunk* chunk, uint64_t object_id, const uint8_t** state, size_t* size) {
  return guarded([&]() -> cf_status {
    if (chunk == nullptr) return null_argument("chunk");
    if (state == nullptr) return null_argument("state");
    if (size == nullptr) return null_argument("size");
    const std::string_view found = chunk->data->chunk.object_state(object_id);
    *state = reinterpret_cast<const uint8_t*>(found.data());
    *size = found.size();
    return CF_OK;
  });
}

cf_status cf_chunk_hash(const cf_chunk* chunk, uint64_t* out) {
  return guarded([&]() -> cf_status {
    if (chunk == nullptr) return null_argument("chunk");
    if (out == nullptr) return null_argument("out");
    *out = chunkforge::chunk_hash(chunk->data->chunk.message());
    return CF_OK;
  });
}

cf_chunk* cf_chunk_retain(const cf_chunk* chunk) {
  if (chunk == nullptr) return nullptr;
  try {
    return new cf_chunk{chunk->data};
  } catch (...) {
    fail(CF_RESOURCE_EXHAUSTED, "RESOURCE_EXHAUSTED: out of memory retaining a chunk");
    return nullptr;
  }
}

void cf_chunk_release(cf_chunk* chunk) { delete chunk; }

cf_status cf_client_region(cf_client* client, int64_t x, int64_t z, uint32_t radius, const cf_chunk_options* options,
                           cf_region** out) {
  return guarded([&]() -> cf_status {
    if (out == nullptr) return null_argument("out");
    *out = nullptr;
    if (client == nullptr) return null_argument("client");
    cf::ChunkOptions read;
    if (const cf_status refused = read_chunk_options(options, "options", read); refused != CF_OK) return refused;
    *out = new cf_region{client->client.open_region({x, z}, radius, read)};
    return CF_OK;
  });
}

cf_status cf_region_next(cf_region* region, cf_chunk** out) {
  return guarded([&]() -> cf_status {
    if (out == nullptr) return null_argument("out");
    *out = nullptr;
    if (region == nullptr) return null_argument("region");
    std::optional<cf::Chunk> chunk = region->stream.next();
    if (chunk) {
      *out = handle_of(std::move(*chunk));
      return CF_OK;
    }
    return region->stream.status().ok() ? CF_OK : fail(region->stream.status());
  });
}

void cf_region_free(cf_region* region) { delete region; }

}  // extern "C"
