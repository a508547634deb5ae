// File: bindings/c/src/client.cc
//
// The C ABI's client: connecting (TLS, token), world info kept for the client's life, health
// and structure search.
#include <chrono>

#include "abi.h"

namespace chunkforge::capi {

WorldInfoCopy::WorldInfoCopy(cf::WorldInfo world) : info(std::move(world)) {
  const auto entries = [](const std::vector<cf::CatalogEntry>& from, std::vector<cf_catalog_entry>& to) {
    for (const cf::CatalogEntry& e : from) {
      to.push_back({e.id, 0, e.name.c_str(), e.color.c_str(), e.footprint_radius, e.size_x, e.size_z, e.height});
    }
  };
  entries(info.biomes(), biomes);
  entries(info.materials(), materials);
  entries(info.resources(), resources);
  entries(info.structures(), structures);
  view.name = info.name().c_str();
  view.fingerprint = info.fingerprint().c_str();
  view.seed = info.seed();
  view.generator_version = info.generator_version();
  view.chunk_size = info.chunk_size();
  view.sea_level = info.sea_level();
  view.biomes = biomes.data();
  view.biome_count = biomes.size();
  view.materials = materials.data();
  view.material_count = materials.size();
  view.resources = resources.data();
  view.resource_count = resources.size();
  view.structures = structures.data();
  view.structure_count = structures.size();
}

cf_structure structure_of(const cf::Structure& s) {
  return {s.id, s.x, s.z, s.y, s.size_x, s.size_y, s.size_z, s.type, s.yaw_degrees, s.tilted ? 1 : 0, 0};
}

}  // namespace chunkforge::capi

using namespace chunkforge::capi;

extern "C" {

void cf_connect_options_init(cf_connect_options* options) {
  if (options == nullptr) return;
  const cf::ConnectOptions defaults;
  *options = {};
  options->struct_size = sizeof(cf_connect_options);
  options->deadline_ms = static_cast<uint32_t>(defaults.deadline.count());
  options->max_attempts = defaults.max_attempts;
}

cf_status cf_client_connect(const char* target, const cf_connect_options* options, cf_client** out) {
  return guarded([&]() -> cf_status {
    if (out == nullptr) return null_argument("out");
    *out = nullptr;
    if (target == nullptr) return null_argument("target");
    cf::ConnectOptions read;
    if (const cf_status refused = read_connect_options(options, read); refused != CF_OK) return refused;
    cf::Result<cf::Client> client = cf::Client::connect(target, read);
    if (!client) return fail(client.status());
    *out = new cf_client{std::move(*client), {}, {}};
    return CF_OK;
  });
}

void cf_client_free(cf_client* client) { delete client; }

cf_status cf_client_world_info(cf_client* client, cf_world_info* out) {
  return guarded([&]() -> cf_status {
    if (client == nullptr) return null_argument("client");
    if (out == nullptr) return null_argument("out");
    cf::Result<cf::WorldInfo> info = client->client.world_info();
    if (!info) return fail(info.status());
    std::lock_guard lock(client->mutex);
    // A session may have seen the world change: keep earlier copies, whose pointers callers hold.
    if (client->worlds.empty() || client->worlds.back().info.fingerprint() != info->fingerprint()) {
      client->worlds.emplace_back(std::move(*info));
    }
    *out = client->worlds.back().view;
    return CF_OK;
  });
}

cf_status cf_client_health(cf_client* client, int32_t* serving) {
  return guarded([&]() -> cf_status {
    if (client == nullptr) return null_argument("client");
    if (serving == nullptr) return null_argument("serving");
    cf::Result<cf::Health> health = client->client.health();
    if (!health) return fail(health.status());
    *serving = *health == cf::Health::serving ? 1 : 0;
    return CF_OK;
  });
}

cf_status cf_client_locate(cf_client* client, const char* type, int64_t x, int64_t z, double radius, uint32_t limit,
                           cf_structure* out, size_t capacity, size_t* count) {
  return guarded([&]() -> cf_status {
    if (client == nullptr) return null_argument("client");
    if (type == nullptr) return null_argument("type");
    if (count == nullptr) return null_argument("count");
    if (out == nullptr && capacity > 0) return null_argument("out");
    cf::Result<std::vector<cf::Structure>> found = client->client.locate(type, x, z, radius, limit);
    if (!found) return fail(found.status());
    *count = found->size();
    for (size_t k = 0; k < found->size() && k < capacity; ++k) out[k] = structure_of((*found)[k]);
    return CF_OK;
  });
}

}  // extern "C"
