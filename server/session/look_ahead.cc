// LookAhead: the chunks a walking player's next step brings into view (see look_ahead.h).
#include "session/look_ahead.h"

#include <algorithm>
#include <cstdlib>
#include <tuple>
#include <utility>

namespace chunkforge::server {

std::vector<LookAhead::Chunk> LookAhead::move(ChunkCoord centre, int64_t radius) {
  if (centre_ == centre) return {};
  const std::optional<ChunkCoord> last = std::exchange(centre_, centre);
  const ChunkBox view = ChunkBox::around(centre, radius, chunk_limit_);
  ChunkCoord predicted = centre;  // the first view: any step of one chunk
  int64_t next_radius = radius + 1;
  if (last) {
    const int64_t dx = centre.x - last->x, dz = centre.z - last->z;
    predicted = {centre.x + dx, centre.z + dz};
    next_radius = radius;
    // A jump predicts nothing: a player who jumps once may jump again (a teleport, a client
    // sending far positions), and a whole ring per jump is work nobody walks into.
    if (std::max(std::abs(dx), std::abs(dz)) > radius) next_radius = -1;
  }
  const ChunkBox next = next_radius < 0 ? ChunkBox{} : ChunkBox::around(predicted, next_radius, chunk_limit_);
  for (auto it = flags_.begin(); it != flags_.end();) {
    if (view.contains(it->first) || next.contains(it->first)) {
      ++it;
    } else {
      it->second->store(true);
      it = flags_.erase(it);
    }
  }
  std::vector<Chunk> out;
  for (int64_t z = next.low.z; z <= next.high.z; ++z) {
    for (int64_t x = next.low.x; x <= next.high.x; ++x) {
      const ChunkCoord k{x, z};
      if (view.contains(k) || flags_.contains(k)) continue;
      const int64_t ring = std::max(std::abs(x - predicted.x), std::abs(z - predicted.z));
      out.push_back({k, ring, std::make_shared<std::atomic<bool>>(false)});
      flags_.emplace(k, out.back().unwanted);
    }
  }
  std::sort(out.begin(), out.end(), [](const Chunk& a, const Chunk& b) {
    return std::tuple(a.ring, a.key.z, a.key.x) < std::tuple(b.ring, b.key.z, b.key.x);
  });
  return out;
}

}  // namespace chunkforge::server
