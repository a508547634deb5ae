// File: chunkforge/seen_land.h
//
// Which chunks players have seen, and in which epoch of the world each was first seen: the
// record that decides a chunk's epoch in a world that changed after launch
// (chunkforge/epochs.h, docs/world-definition.md, "Epochs"). A chunk first seen while epoch e
// was the newest belongs to epoch e forever; a chunk nobody has seen belongs to the newest.
//
//   SeenLand seen;
//   seen.mark({3, -2}, 0);                  // delivered while epoch 0 was the newest
//   std::optional<uint32_t> e = seen.epoch_of({3, -2});   // 0
//   std::string bytes = seen.encode();      // what a store keeps; SeenLand::decode reads it
//
// Compact by construction: a region of 16 x 16 chunks holds one 256-bit map per epoch that has
// a chunk first seen in it there (32 bytes), so seen land costs one bit per chunk of the
// regions players walked, plus the region's key, and land nobody saw costs nothing.
//
// Thread safety: const methods may run on any number of threads at once; mark() needs the
// caller's exclusion (a store's writer, or a snapshot built before it is shared).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "chunkforge/chunk.h"

namespace chunkforge {

class SeenLand {
 public:
  static constexpr int kRegionShift = 4;  // 16 x 16 chunks a region
  static constexpr int64_t kRegionSide = int64_t{1} << kRegionShift;
  using Bits = std::array<uint64_t, 4>;  // one bit per chunk of a region, row-major in z

  // Records that c was first seen in `epoch`; a chunk already seen keeps its epoch (first
  // sight wins). Returns the chunk's epoch after the call.
  uint32_t mark(ChunkCoord c, uint32_t epoch);
  // The epoch c was first seen in, or nothing if nobody has seen it.
  std::optional<uint32_t> epoch_of(ChunkCoord c) const;
  // A region's map for an epoch merged in (a store's row; region coordinates are chunk
  // coordinates divided by kRegionSide, rounded down): its chunks nobody saw become the epoch's,
  // and a chunk recorded in a later epoch moves to this one, since a sight in an earlier epoch
  // came first (two replicas may record one chunk in two epochs around an epoch's addition).
  void merge(int64_t region_x, int64_t region_z, uint32_t epoch, const Bits& bits);
  // Every map of `other` merged in, as merge() merges each.
  void merge(const SeenLand& other);
  // The maps of epochs below `epoch` of every region holding a chunk of [lo, hi] (inclusive
  // corners; whole regions). Its cost grows with the regions [lo, hi] spans: keep it small.
  SeenLand excerpt(ChunkCoord lo, ChunkCoord hi, uint32_t epoch) const;
  // Calls fn(region_x, region_z, epoch, bits) for every map, by (z, x, epoch).
  void for_each_map(const std::function<void(int64_t, int64_t, uint32_t, const Bits&)>& fn) const;
  // Whether the region holding c has a chunk seen.
  bool region_seen(ChunkCoord c) const { return regions_.contains(region_of(c)); }
  // Whether any chunk of [lo, hi] (inclusive corners) was first seen in an epoch below
  // `epoch`: what a chunk of that epoch asks before it looks for a seam at all.
  bool any_before(ChunkCoord lo, ChunkCoord hi, uint32_t epoch) const;

  size_t chunks_seen() const { return chunks_; }
  // Regions holding a seen chunk, and the (region, epoch) maps stored.
  size_t regions() const { return regions_.size(); }
  size_t maps() const;
  // One more than the highest epoch a chunk was seen in (0: none seen).
  size_t epochs() const;

  // Bytes: a version byte, then per (region, epoch) map its region x, z and epoch as
  // little-endian integers (8 + 8 + 4 bytes) and its 32 bytes, ordered by (z, x, epoch): equal
  // sets give equal bytes. decode() refuses anything else with the reason in `error`.
  std::string encode() const;
  static std::optional<SeenLand> decode(std::string_view bytes, std::string& error);

  friend bool operator==(const SeenLand& a, const SeenLand& b) { return a.encode() == b.encode(); }

 private:
  struct RegionKey {
    int64_t x = 0, z = 0;
    friend bool operator==(const RegionKey&, const RegionKey&) = default;
  };
  struct RegionHash {
    size_t operator()(const RegionKey& k) const;
  };
  struct EpochBits {
    uint32_t epoch = 0;
    Bits bits{};
  };
  using Region = std::vector<EpochBits>;  // by epoch, ascending

  static RegionKey region_of(ChunkCoord c);
  static unsigned bit_of(ChunkCoord c);  // index within its region's map
  std::optional<uint32_t> epoch_in(const Region& region, unsigned bit) const;
  // Calls fn(region_x, region_z, map) for each map of an epoch below `epoch` of the regions
  // holding a chunk of [lo, hi], until fn returns true; whether one did.
  template <typename Fn>
  bool find_map_before(ChunkCoord lo, ChunkCoord hi, uint32_t epoch, Fn&& fn) const;
  // The region's map for `epoch`, added (empty, in epoch order) if it has none.
  static EpochBits& map_for(Region& region, uint32_t epoch);

  std::unordered_map<RegionKey, Region, RegionHash> regions_;
  size_t chunks_ = 0;
};

}  // namespace chunkforge
