// File: server/session/older_land_sent.h
//
// The older land a session that makes every epoch's chunks itself has been sent
// (SessionEvent.older_land; docs/client-generation.md, "Worlds that changed"): before the keys
// of chunks near land seen in an older epoch, the client needs that land's maps, and a session
// sends each region's once. The client keeps what it gets, so sending a region again is only
// bytes: past kMaxRegions remembered the record starts afresh.
//
//   OlderLandSent sent(epochs);
//   std::string land = sent.take(chunks);   // empty when those chunks need nothing new
//
// Thread safety: one session's, on its reactor's thread.
// Memory: at most kMaxRegions keys, and nothing for land away from older epochs' land.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "chunkforge/epochs.h"

namespace chunkforge::server {

using RegionKey = std::pair<int64_t, int64_t>;  // a region of SeenLand, by its coordinates

class OlderLandSent {
 public:
  static constexpr size_t kMaxRegions = 256;

  explicit OlderLandSent(std::shared_ptr<const Epochs> epochs) : epochs_(std::move(epochs)) {}

  // The older land within the seam rules' reach of `chunks`' regions whose regions were not sent
  // yet (SeenLand::encode bytes), now counted as sent; empty when there is none.
  std::string take(const std::vector<ChunkCoord>& chunks);

 private:
  std::shared_ptr<const Epochs> epochs_;
  std::set<RegionKey> sent_;
};

// Calls fn for every region whose older land can change a chunk of `region`: those within the
// seam rules' reach (Epochs::reach) of it, rounded out to whole regions. A few: 9 at a reach of
// at most a region's side.
void for_each_region_near(const Epochs& epochs, RegionKey region, const std::function<void(RegionKey)>& fn);
// The older epochs' maps of one region (none when nobody saw it in an older epoch).
SeenLand older_maps(const Epochs& epochs, RegionKey region);

// The older land near `chunk`'s region, encoded: what one event carries when nothing is
// remembered. Empty when there is none.
std::string older_land_bytes(const Epochs& epochs, ChunkCoord chunk);

}  // namespace chunkforge::server
