// File: chunkforge/region_order.h
//
// The order of a region's chunks (StreamRegion in service.proto): nearest first by the squared
// distance between chunk centres, ties by z then x. Header-only, so that the server and the SDK,
// which makes regions itself when it generates (docs/client-generation.md), order them alike.
#pragma once

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <vector>

namespace chunkforge {

// The chunks of the square of `radius` around `centre`. Coord: any type with int64_t members x
// and z that Coord{x, z} builds (chunkforge::ChunkCoord, the SDK's).
template <class Coord>
std::vector<Coord> nearest_first(Coord centre, int64_t radius) {
  std::vector<Coord> out;
  out.reserve(static_cast<size_t>((2 * radius + 1) * (2 * radius + 1)));
  for (int64_t z = centre.z - radius; z <= centre.z + radius; ++z) {
    for (int64_t x = centre.x - radius; x <= centre.x + radius; ++x) out.push_back(Coord{x, z});
  }
  const auto rank = [&](const Coord& c) {
    return std::tuple((c.x - centre.x) * (c.x - centre.x) + (c.z - centre.z) * (c.z - centre.z), c.z, c.x);
  };
  std::sort(out.begin(), out.end(), [&](const Coord& a, const Coord& b) { return rank(a) < rank(b); });
  return out;
}

}  // namespace chunkforge
