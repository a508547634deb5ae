// File: chunkforge/client/lod_tile.h
//
// A LOD tile as the game reads it (docs/lod.md): a square of 2^level x 2^level chunks drawn
// from a fixed lattice of terrain samples, the structures touching it (fine levels only) and
// each resource layer's expected objects per cell. No protobuf knowledge needed.
//
//   callbacks.on_tile = [&](const chunkforge::client::LodTile& tile) {
//     for (uint32_t j = 0; j < tile.samples(); ++j)
//       for (uint32_t i = 0; i < tile.samples(); ++i)
//         mesh.vertex(tile.sample_x(i), tile.height(i, j), tile.sample_z(j), tile.material(i, j));
//   };
//   if (auto s = tile.sample_under(player.x, player.z)) float ground = tile.height(s->i, s->j);
//
// Every server replica sends the same tile as the same bytes; a tile changes only when an edit
// removes a structure it lists (the session then hands the new copy, docs/sdk.md "LOD tiles").
//
// Thread safety: immutable; copies share the data and are cheap. Read from any thread.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "chunkforge/client/chunk.h"
#include "chunkforge/client/world_info.h"

namespace chunkforge::v1 {
class LodTile;
}

namespace chunkforge::client {

// A tile's place: level k covers the 2^k x 2^k chunks from chunk (x * 2^k, z * 2^k).
struct LodKey {
  uint32_t level = 0;
  int64_t x = 0;
  int64_t z = 0;
  int64_t chunks() const { return int64_t{1} << level; }  // chunks per side
  auto operator<=>(const LodKey&) const = default;
};

// A lattice sample's indices in its tile: it stands at (min_x + i * step, min_z + j * step).
struct LodSample {
  uint32_t i = 0;
  uint32_t j = 0;
  friend bool operator==(const LodSample&, const LodSample&) = default;
};

class LodTile {
 public:
  // From the wire message and the world's catalogue (the SDK does this).
  LodTile(std::shared_ptr<const chunkforge::v1::LodTile> message, WorldInfo world);

  LodKey key() const;
  uint32_t chunk_size() const;
  uint32_t generator_version() const;
  const std::string& world_fingerprint() const;

  // The ground it covers, world units: [min_x, max_x) x [min_z, max_z).
  int64_t min_x() const;
  int64_t min_z() const;
  int64_t max_x() const;
  int64_t max_z() const;

  // The terrain lattice: samples() per side (32 at every level; 0 for a grid whose arrays do
  // not hold samples() squared entries, which no server sends), step() world units apart.
  uint32_t samples() const { return samples_; }
  uint32_t step() const;
  double sample_x(uint32_t i) const;  // world position of column i, row j
  double sample_z(uint32_t j) const;
  // Sample (i, j), each in [0, samples()): bit for bit the terrain a chunk's grid and a point
  // sample give there (docs/lod.md, "Bit for bit").
  float height(uint32_t i, uint32_t j) const;
  uint32_t biome(uint32_t i, uint32_t j) const;     // WorldInfo biome id
  uint32_t material(uint32_t i, uint32_t j) const;  // WorldInfo material id
  // The sample at or below world (x, z): the one whose step x step square holds the point, as
  // `chunkforge lod` draws it. Empty when the point lies outside the tile (or it has no grid).
  std::optional<LodSample> sample_under(double x, double z) const;

  // Whether structures were planned for this tile: true at fine levels only (docs/lod.md,
  // "Structures"). When false, structures() is empty, which does not mean there are none.
  bool structures_planned() const;
  // Structures whose footprint touches the tile, each once, as every chunk they touch reports them.
  std::vector<Structure> structures() const;

  // Resource density: cells() x cells() cells per layer (8), cell (ci, cj) holding the lattice
  // samples [ci * n, (ci + 1) * n) x [cj * n, (cj + 1) * n), n = samples() / cells().
  uint32_t cells() const { return cells_; }
  // The resource layer ids the tile holds densities for, ascending.
  std::vector<uint32_t> layers() const;
  // Expected number of the layer's objects in the cell (an estimate, not a count: docs/lod.md,
  // "Resources"). 0 for a layer the tile does not hold or a cell outside [0, cells()).
  float expected_objects(uint32_t layer, uint32_t cell_i, uint32_t cell_j) const;

  // Size of the tile's encoding on the wire: what a polled session's queue accounts for.
  size_t encoded_bytes() const { return encoded_bytes_; }
  const WorldInfo& world() const { return world_; }
  // The message as received (include "chunkforge/v1/lod.pb.h" to use it).
  const chunkforge::v1::LodTile& message() const { return *message_; }

 private:
  std::shared_ptr<const chunkforge::v1::LodTile> message_;
  WorldInfo world_;
  size_t encoded_bytes_ = 0;
  uint32_t samples_ = 0;
  uint32_t cells_ = 0;
};

}  // namespace chunkforge::client
