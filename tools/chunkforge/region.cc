// A rectangle of chunks generated in a chosen order on several threads and printed in row order,
// for `region`.
#include "region.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "chunkforge/encode.h"
#include "chunkforge/hash.h"
#include "chunkforge/world.h"

namespace chunkforge::tool {

std::optional<Order> parse_order(const std::string& text) {
  if (text == "rows") return Order::kRows;
  if (text == "spiral") return Order::kSpiral;
  if (text == "shuffle") return Order::kShuffle;
  return std::nullopt;
}

std::optional<Rect> ordered_rect(const int64_t (&corners)[4], const std::string& command) {
  const Rect rect{corners[0], corners[1], corners[2], corners[3]};
  if (rect.x1 < rect.x0 || rect.z1 < rect.z0) {
    std::cerr << command << ": needs CX0 <= CX1, CZ0 <= CZ1\n";
    return std::nullopt;
  }
  return rect;
}

std::vector<ChunkCoord> ordered(const Rect& rect, Order order) {
  std::vector<ChunkCoord> out;
  for (int64_t z = rect.z0; z <= rect.z1; ++z) {
    for (int64_t x = rect.x0; x <= rect.x1; ++x) out.push_back({x, z});
  }
  if (order == Order::kSpiral) {
    // Nearest the centre first (ring by ring), ties in row order: a player's view filling in.
    const int64_t cx = (rect.x0 + rect.x1) / 2, cz = (rect.z0 + rect.z1) / 2;
    std::stable_sort(out.begin(), out.end(), [&](const ChunkCoord& a, const ChunkCoord& b) {
      return std::max(std::abs(a.x - cx), std::abs(a.z - cz)) < std::max(std::abs(b.x - cx), std::abs(b.z - cz));
    });
  } else if (order == Order::kShuffle) {
    std::sort(out.begin(), out.end(), [](const ChunkCoord& a, const ChunkCoord& b) {
      return hash(0, salt("tool.shuffle"), a.x, a.z) < hash(0, salt("tool.shuffle"), b.x, b.z);
    });
  }
  return out;
}

std::vector<v1::Chunk> generate_rect(const World& world, const Rect& rect, const RegionOptions& options) {
  const std::vector<ChunkCoord> order = ordered(rect, options.order);
  std::vector<v1::Chunk> result(order.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    ChunkStream stream(world);
    for (size_t k = next++; k < order.size(); k = next++) {
      const ChunkCoord c = order[k];
      v1::Chunk chunk = encode_chunk(world, stream.generate(c));
      if (options.terrain_step > 0) add_terrain(world, options.terrain_step, chunk);
      result[static_cast<size_t>((c.z - rect.z0) * rect.width() + (c.x - rect.x0))] = std::move(chunk);
    }
  };
  std::vector<std::thread> threads;
  for (int t = 1; t < options.threads; ++t) threads.emplace_back(work);
  work();
  for (std::thread& t : threads) t.join();
  return result;
}

}  // namespace chunkforge::tool
