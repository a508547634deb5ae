// File: bindings/c/src/abi.h
//
// What the C ABI's files share: the handles behind chunkforge_c.h's opaque types, and
// `guarded`, which every exported function runs its body in so that no exception crosses the
// boundary and every failure leaves its message for cf_last_error().
#pragma once

#include <chunkforge/client.h>

#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "chunkforge_c.h"

namespace chunkforge::capi {

namespace cf = chunkforge::client;

// Records `message` as this thread's last error and returns `code`.
cf_status fail(cf_status code, std::string message);
cf_status fail(const cf::Status& status);

// Runs `body` (which returns a cf_status), turning any exception into CF_INTERNAL.
template <class Body>
cf_status guarded(Body&& body) noexcept {
  try {
    return body();
  } catch (const std::exception& e) {
    return fail(CF_INTERNAL, std::string("INTERNAL: unexpected C++ exception: ") + e.what());
  } catch (...) {
    return fail(CF_INTERNAL, "INTERNAL: unexpected C++ exception");
  }
}

// CF_INVALID_ARGUMENT naming a NULL argument, as the server names a bad field.
cf_status null_argument(const char* name);

// The option structs read into the SDK's (options.cc): a zero field is its documented default, a
// value that cannot work is refused (CF_INVALID_ARGUMENT naming `field` or the options field).
// NULL options are the defaults.
cf_status read_chunk_options(const cf_chunk_options* options, const std::string& field, cf::ChunkOptions& out);
cf_status read_connect_options(const cf_connect_options* options, cf::ConnectOptions& out);
// cf_session_options of ABI 1 (the smaller struct_size) or 2; generate_locally read apart (the
// generator is made when the session starts).
cf_status read_session_options(const cf_session_options* options, cf::ViewOptions& out, bool& generate_locally);
// CF_INVALID_ARGUMENT naming a LOD radius or finest level out of range.
// `prefix`: "options." for the options struct, "" for cf_session_set_lod's arguments.
cf_status check_lod(const std::string& prefix, uint32_t lod_radius, uint32_t lod_finest_level);

// A world info kept for the life of its client, with the C views of its catalogue.
struct WorldInfoCopy {
  explicit WorldInfoCopy(cf::WorldInfo info);
  cf::WorldInfo info;
  std::vector<cf_catalog_entry> biomes, materials, resources, structures;
  cf_world_info view{};
};

// A chunk with its C view and its bytes, each made on first use, shared by every handle
// retained from it.
struct ChunkData {
  explicit ChunkData(cf::Chunk c) : chunk(std::move(c)) {}
  const cf_chunk_view& view();
  const std::string& canonical_bytes();

  cf::Chunk chunk;
  std::once_flag made_view, made_bytes;
  std::vector<cf_object> objects;
  std::vector<cf_structure> structures;
  std::string bytes;
  cf_chunk_view c_view{};
};

// A session's LOD tile with its C view, made on first use, shared by every handle to it.
struct TileData {
  explicit TileData(cf::LodTile t) : tile(std::move(t)) {}
  const cf_tile_view& view();

  cf::LodTile tile;
  std::once_flag made_view;
  std::vector<cf_structure> structures;
  std::vector<uint32_t> layers;
  std::vector<float> expected;
  cf_tile_view c_view{};
};

cf_structure structure_of(const cf::Structure& s);

}  // namespace chunkforge::capi

struct cf_client {
  chunkforge::client::Client client;
  std::mutex mutex;
  std::deque<chunkforge::capi::WorldInfoCopy> worlds;  // guarded by mutex; never shrinks
};

struct cf_chunk {
  std::shared_ptr<chunkforge::capi::ChunkData> data;
};

struct cf_tile {
  std::shared_ptr<chunkforge::capi::TileData> data;
};

struct cf_region {
  chunkforge::client::RegionStream stream;
};

struct cf_edit_batch {
  chunkforge::client::EditBatch batch;
  chunkforge::client::EditResult result;  // the last cf_client_edit's, which cf_edit_result borrows
  std::vector<cf_chunk_version> versions;
};
