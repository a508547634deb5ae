// File: chunkforge/client/chunk.h
//
// A chunk as the game reads it: objects with world coordinates and layer names, the structures
// whose footprint touches the chunk, and the terrain grid when it was asked for. No protobuf
// knowledge needed.
//
//   for (const chunkforge::client::Object& tree : chunk.objects()) {
//     if (tree.layer_name == "forest") spawn_tree(tree.x, tree.y, tree.z, tree.yaw, tree.variant);
//   }
//   for (const chunkforge::client::Structure& s : chunk.structures()) place(s);
//   if (const auto terrain = chunk.terrain()) float h = terrain->elevation(0, 0);
//
// The same chunk is the same bytes for every player and every server replica; object and
// structure ids are stable, so a game can record "tree 5f3a... was felled".
//
// Thread safety: immutable; copies share the data and are cheap. Read from any thread.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "chunkforge/client/world_info.h"

namespace chunkforge::v1 {
class Chunk;
}

namespace chunkforge::client {

// Chunk (x, z) covers world [x * chunk_size, (x + 1) * chunk_size) along x, likewise along z.
struct ChunkCoord {
  int64_t x = 0;
  int64_t z = 0;
  auto operator<=>(const ChunkCoord&) const = default;
};

// The chunk containing world position (x, z): the same rule the server uses for a view.
ChunkCoord chunk_at(double x, double z, uint32_t chunk_size);

// What a chunk request includes. Generation is the same whatever the options; only the payload
// changes, and the server caches each (chunk, options) once.
struct ChunkOptions {
  bool include_terrain = false;
  // World units between terrain samples: 1, 2, 4 ... dividing the chunk size. 0: 1.
  uint32_t terrain_step = 0;
  // Resource layer ids to include; empty: all.
  std::vector<uint32_t> layers;
};

// A point object (tree, ore node, rock).
struct Object {
  uint32_t layer = 0;
  std::string_view layer_name;  // valid while a WorldInfo or Chunk of this world lives
  double x = 0, z = 0;          // world units
  float y = 0;                  // terrain elevation at the object: stand it on the ground
  float yaw = 0;                // degrees about y, [0, 360)
  uint32_t variant = 0;
  uint64_t id = 0;  // stable across requests and replicas
};

// A structure whose box [x, x + size_x) x [y, y + size_y) x [z, z + size_z) touches the chunk.
// Every chunk it touches reports it identically: place it once, by id.
struct Structure {
  uint64_t id = 0;
  uint32_t type = 0;
  std::string_view type_name;  // valid while a WorldInfo or Chunk of this world lives
  int64_t x = 0, z = 0;        // the box's lowest corner, absolute world units
  double y = 0;
  uint32_t yaw_degrees = 0;  // 0, 90, 180 or 270, applied after the tilt
  bool tilted = false;       // turned onto its side (90 degrees about its own x) first
  double size_x = 0, size_y = 0, size_z = 0;
};

// The terrain grid: sample (i, j) stands at world (origin_x + i * step, origin_z + j * step).
class TerrainView {
 public:
  uint32_t step() const;
  uint32_t size() const;  // samples per side
  // Sample (i, j), each in [0, size()).
  float elevation(uint32_t i, uint32_t j) const;
  uint32_t biome(uint32_t i, uint32_t j) const;
  uint32_t material(uint32_t i, uint32_t j) const;

 private:
  friend class Chunk;
  explicit TerrainView(std::shared_ptr<const chunkforge::v1::Chunk> chunk) : chunk_(std::move(chunk)) {}
  std::shared_ptr<const chunkforge::v1::Chunk> chunk_;
};

// The objects of a chunk as a range: `for (const Object& o : chunk.objects())`. It shares the
// chunk's data, so it stays valid on its own (even made from a temporary Chunk).
class ObjectRange {
 public:
  class iterator {
   public:
    using value_type = Object;
    using difference_type = std::ptrdiff_t;
    Object operator*() const { return range_->at(index_); }
    iterator& operator++() {
      ++index_;
      return *this;
    }
    bool operator==(const iterator& other) const { return index_ == other.index_; }

   private:
    friend class ObjectRange;
    iterator(const ObjectRange* range, size_t index) : range_(range), index_(index) {}
    const ObjectRange* range_;
    size_t index_;
  };

  size_t size() const { return size_; }
  Object operator[](size_t i) const { return at(i); }
  iterator begin() const { return {this, 0}; }
  iterator end() const { return {this, size_}; }

 private:
  friend class Chunk;
  ObjectRange(std::shared_ptr<const chunkforge::v1::Chunk> chunk, WorldInfo world);
  // Plain reads of the wire arrays: iterating costs about what reading them by hand does.
  Object at(size_t i) const {
    return {
        layer_[i], world_.resource_name(layer_[i]), origin_x_ + x_[i], origin_z_ + z_[i], y_[i], yaw_[i], variant_[i],
        id_[i]};
  }
  std::shared_ptr<const chunkforge::v1::Chunk> chunk_;  // owns the arrays below
  WorldInfo world_;
  size_t size_ = 0;
  double origin_x_ = 0, origin_z_ = 0;
  const uint32_t *layer_ = nullptr, *variant_ = nullptr;
  const float *x_ = nullptr, *z_ = nullptr, *y_ = nullptr, *yaw_ = nullptr;
  const uint64_t* id_ = nullptr;
};

class Chunk {
 public:
  // From the wire message and the world's catalogue (the SDK does this).
  Chunk(std::shared_ptr<const chunkforge::v1::Chunk> message, WorldInfo world);

  ChunkCoord coord() const;
  uint32_t chunk_size() const;
  uint32_t generator_version() const;
  const std::string& world_fingerprint() const;
  // World position of the chunk's lowest corner.
  double origin_x() const;
  double origin_z() const;

  ObjectRange objects() const;
  std::vector<Structure> structures() const;
  // Present only when the request asked for terrain (and the grid is whole: a grid whose arrays
  // do not hold size() * size() samples, which no server sends, shows as absent).
  std::optional<TerrainView> terrain() const;

  // Edits (docs/edits.md): the chunk's edit version (0: never edited; one more per committed
  // change), and an object's opaque state as an edit set it (empty: none).
  uint64_t edit_version() const;
  std::string_view object_state(uint64_t object_id) const;

  // Size of the chunk's encoding on the wire: what a local cache accounts for.
  size_t encoded_bytes() const { return encoded_bytes_; }
  const WorldInfo& world() const { return world_; }
  // The message as received (include "chunkforge/v1/chunk.pb.h" to use it).
  const chunkforge::v1::Chunk& message() const { return *message_; }

 private:
  std::shared_ptr<const chunkforge::v1::Chunk> message_;
  WorldInfo world_;
  size_t encoded_bytes_ = 0;
};

}  // namespace chunkforge::client
