// File: chunkforge/lod.h
//
// LOD tiles: the far world as a renderer draws it, sampled from the terrain's pure functions,
// the structure planner and the resource density fields, never generated (docs/lod.md).
//
//   for (const LodKey& key : lod_view(world.chunk_size(), player_x, player_z, /*radius_chunks=*/1024)) {
//     const std::string bytes = lod_tile_bytes(world, key);  // the same bytes everywhere
//   }
//
// A tile at level k covers 2^k x 2^k chunks and holds kLodSamples x kLodSamples terrain
// samples whatever k, so a tile costs the same at every level and a view grows with its number
// of levels, not with its area. Its samples are bit for bit Chunk.terrain's and
// Terrain::sample's at the same points (as floats, the wire's type for elevation).
// Thread safety: pure functions of an immutable World; call them from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "chunkforge/v1/lod.pb.h"

namespace chunkforge {

class World;

// Terrain samples per tile side, at every level.
inline constexpr int kLodSamples = 32;
// Resource density cells per tile side (each kLodSamples / kLodDensityCells samples a side).
inline constexpr int kLodDensityCells = 8;
// The coarsest level: a tile of 2^24 chunks a side is wider than the supported world.
inline constexpr int kLodMaxLevel = 24;
// Tiles up to this level carry their structures: planning costs per chunk covered (some
// 5 us), so coarser tiles would grow with their area (docs/lod.md, "Structures").
inline constexpr int kLodStructureMaxLevel = 4;

struct LodKey {
  int level = 0;
  int64_t x = 0, z = 0;  // tile index: chunks [x * 2^level, (x + 1) * 2^level) along x
  int64_t chunks() const { return int64_t{1} << level; }
  friend bool operator==(const LodKey&, const LodKey&) = default;
  friend bool operator<(const LodKey& a, const LodKey& b) {
    return std::tie(a.level, a.z, a.x) < std::tie(b.level, b.z, b.x);
  }
};

// The finest level of a world: the smallest k with 2^k * chunk_size a multiple of kLodSamples,
// so that samples lie whole units apart (0 for chunk sizes that are multiples of 32).
int lod_finest_level(int64_t chunk_size);
// World units between a tile's samples at `level` (>= lod_finest_level).
int64_t lod_step(int64_t chunk_size, int level);
// Why a key is not a tile of the world ("" when it is): the level within [finest, kLodMaxLevel],
// the tile inside the supported world (|x|, |z| <= 2^40 units). Names the field, the range and
// the value, as the server's status messages do.
std::string lod_key_error(int64_t chunk_size, const LodKey& key);

// The tile, canonical. Throws std::invalid_argument (lod_key_error's message) for a bad key,
// GenerationAbandoned once `abandon` (may be null) reads true.
v1::LodTile lod_tile(const World& world, const LodKey& key, const std::atomic<bool>* abandon = nullptr);
// Its canonical bytes (deterministic serialization): what a server would cache and send.
std::string lod_tile_bytes(const World& world, const LodKey& key, const std::atomic<bool>* abandon = nullptr);

// The rings of a view: a tile of level k is split into its four children while the player's
// chunk lies closer than `split_tiles` tiles of level k to it (Chebyshev distance in chunks),
// down to `finest_level` (-1: the world's finest). So a level's tiles lie between split_tiles
// and 2 * split_tiles + 1 of its tiles away, and a sample spans at most 1 / (32 * split_tiles)
// radians seen from the player. Larger: finer tiles farther out, more bytes (docs/lod.md).
struct LodRings {
  double split_tiles = 1.5;
  int finest_level = -1;
};

// The tiles a player at world position (x, z) needs to see `radius_chunks` chunks around its
// chunk (a square, as StreamRegion's radius): a quadtree refined near the player, so the tiles
// cover the square without gaps or overlaps, coarse far out and fine near. Ordered by level,
// finest first, and within a level nearest first (then by z, x). Tiles outside the supported
// world are left out.
std::vector<LodKey> lod_view(int64_t chunk_size, double x, double z, int64_t radius_chunks, const LodRings& rings = {});

}  // namespace chunkforge
