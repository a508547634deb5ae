// File: chunkforge/client/world_info.h
//
// What the server says about its world: name, seed, chunk size, generator version, fingerprint
// and the catalogue (biomes, materials, resource layers, structures) that ids on the wire index.
//
//   const chunkforge::client::WorldInfo& info = *client.world_info();
//   std::cout << info.name() << ": chunks of " << info.chunk_size() << " units\n";
//   for (const auto& layer : info.resources()) std::cout << layer.id << ' ' << layer.name << '\n';
//
// Thread safety: immutable once made; copies share the data and are cheap.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace chunkforge::v1 {
class WorldInfo;
}

namespace chunkforge::client {

struct CatalogEntry {
  uint32_t id = 0;
  std::string name;
  std::string color;              // "#rrggbb"
  double footprint_radius = 0;    // resource layers: world units
  std::string method;             // resource layers: the scatter method
  double size_x = 0, size_z = 0;  // structures: footprint before rotation, world units
  double height = 0;              // structures
};

class WorldInfo {
 public:
  // From the wire message (the SDK does this; games receive WorldInfo from Client).
  explicit WorldInfo(chunkforge::v1::WorldInfo message);

  const std::string& name() const;
  uint64_t seed() const;
  uint32_t generator_version() const;
  uint32_t chunk_size() const;
  double sea_level() const;
  // Two servers with the same fingerprint and generator version send the same chunks.
  const std::string& fingerprint() const;

  const std::vector<CatalogEntry>& biomes() const { return data_->biomes; }
  const std::vector<CatalogEntry>& materials() const { return data_->materials; }
  const std::vector<CatalogEntry>& resources() const { return data_->resources; }
  const std::vector<CatalogEntry>& structures() const { return data_->structures; }

  // The name for an id, or "" for an id the catalogue does not have.
  std::string_view biome_name(uint32_t id) const { return name_of(data_->biomes, id); }
  std::string_view material_name(uint32_t id) const { return name_of(data_->materials, id); }
  std::string_view resource_name(uint32_t id) const { return name_of(data_->resources, id); }
  std::string_view structure_name(uint32_t id) const { return name_of(data_->structures, id); }

  // The message as received (include "chunkforge/v1/info.pb.h" to use it).
  const chunkforge::v1::WorldInfo& message() const { return *data_->message; }

 private:
  struct Data {
    std::shared_ptr<const chunkforge::v1::WorldInfo> message;
    std::vector<CatalogEntry> biomes, materials, resources, structures;
  };
  static std::string_view name_of(const std::vector<CatalogEntry>& entries, uint32_t id) {
    return id < entries.size() ? std::string_view(entries[id].name) : std::string_view();
  }

  std::shared_ptr<const Data> data_;
};

}  // namespace chunkforge::client
