// The typed read view of a LOD tile (lod_tile.h) over the wire message, without copying its arrays.
#include "chunkforge/client/lod_tile.h"

#include <algorithm>
#include <cmath>

#include "chunkforge/v1/lod.pb.h"
#include "client_impl.h"

namespace chunkforge::client {
namespace {

// The accessors index the arrays without checks (the server's encoder fills them all); a grid
// shorter than it says would be read out of bounds, so such a tile shows no samples, as a
// chunk with a ragged grid shows no terrain.
uint32_t whole_samples(const v1::TerrainGrid& grid) {
  const uint64_t entries = uint64_t{grid.size()} * grid.size();
  const auto whole = [entries](int n) { return static_cast<uint64_t>(n) == entries; };
  const bool ok =
      grid.step() > 0 && whole(grid.elevation_size()) && whole(grid.biome_size()) && whole(grid.material_size());
  return ok ? grid.size() : 0;
}

// The cells per side every layer agrees on with whole arrays, else 0 (the tile then shows no
// densities), so expected_objects never reads past an array.
uint32_t whole_cells(const v1::LodTile& tile) {
  if (tile.resources().empty()) return 0;
  const uint32_t cells = tile.resources(0).cells();
  for (const v1::LodLayerDensity& layer : tile.resources()) {
    if (layer.cells() != cells || static_cast<uint64_t>(layer.expected_objects_size()) != uint64_t{cells} * cells) {
      return 0;
    }
  }
  return cells;
}

}  // namespace

LodTile::LodTile(std::shared_ptr<const v1::LodTile> message, WorldInfo world)
    : message_(std::move(message)),
      world_(std::move(world)),
      encoded_bytes_(message_->ByteSizeLong()),
      samples_(whole_samples(message_->terrain())),
      cells_(whole_cells(*message_)) {}

LodKey LodTile::key() const {
  const v1::LodTileKey& k = message_->key();
  return {k.level(), k.x(), k.z()};
}
uint32_t LodTile::chunk_size() const { return message_->chunk_size(); }
uint32_t LodTile::generator_version() const { return message_->generator_version(); }
const std::string& LodTile::world_fingerprint() const { return message_->world_fingerprint(); }

// Exact in int64: a tile lies inside the supported world (|x|, |z| <= 2^40 units).
int64_t LodTile::min_x() const { return key().x * key().chunks() * int64_t{chunk_size()}; }
int64_t LodTile::min_z() const { return key().z * key().chunks() * int64_t{chunk_size()}; }
int64_t LodTile::max_x() const { return min_x() + key().chunks() * int64_t{chunk_size()}; }
int64_t LodTile::max_z() const { return min_z() + key().chunks() * int64_t{chunk_size()}; }

uint32_t LodTile::step() const { return message_->terrain().step(); }
double LodTile::sample_x(uint32_t i) const { return static_cast<double>(min_x() + int64_t{i} * step()); }
double LodTile::sample_z(uint32_t j) const { return static_cast<double>(min_z() + int64_t{j} * step()); }

float LodTile::height(uint32_t i, uint32_t j) const {
  return message_->terrain().elevation(static_cast<int>(j * samples_ + i));
}
uint32_t LodTile::biome(uint32_t i, uint32_t j) const {
  return message_->terrain().biome(static_cast<int>(j * samples_ + i));
}
uint32_t LodTile::material(uint32_t i, uint32_t j) const {
  return message_->terrain().material(static_cast<int>(j * samples_ + i));
}

std::optional<LodSample> LodTile::sample_under(double x, double z) const {
  if (samples_ == 0 || !(x >= static_cast<double>(min_x()) && x < static_cast<double>(max_x())) ||
      !(z >= static_cast<double>(min_z()) && z < static_cast<double>(max_z()))) {
    return std::nullopt;
  }
  // The tile's span is samples * step: the floor lands in [0, samples), clamped against rounding.
  const auto index = [&](double along, int64_t from) {
    const double k = std::floor((along - static_cast<double>(from)) / static_cast<double>(step()));
    return static_cast<uint32_t>(std::clamp(k, 0.0, static_cast<double>(samples_ - 1)));
  };
  return LodSample{index(x, min_x()), index(z, min_z())};
}

bool LodTile::structures_planned() const { return message_->structures_planned(); }

std::vector<Structure> LodTile::structures() const {
  std::vector<Structure> out;
  out.reserve(static_cast<size_t>(message_->structures_size()));
  for (const v1::StructureInstance& s : message_->structures()) out.push_back(structure_of(s, world_));
  return out;
}

std::vector<uint32_t> LodTile::layers() const {
  std::vector<uint32_t> out;
  if (cells_ == 0) return out;
  for (const v1::LodLayerDensity& layer : message_->resources()) out.push_back(layer.layer());
  return out;
}

float LodTile::expected_objects(uint32_t layer, uint32_t cell_i, uint32_t cell_j) const {
  if (cell_i >= cells_ || cell_j >= cells_) return 0;
  // By layer id (lod.proto), so a binary search finds it.
  const auto& resources = message_->resources();
  const auto it = std::lower_bound(resources.begin(), resources.end(), layer,
                                   [](const v1::LodLayerDensity& d, uint32_t id) { return d.layer() < id; });
  if (it == resources.end() || it->layer() != layer) return 0;
  return it->expected_objects(static_cast<int>(cell_j * cells_ + cell_i));
}

}  // namespace chunkforge::client
