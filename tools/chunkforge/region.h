// Offline generation of a rectangle of chunks for the `chunkforge` command, in a chosen order
// and on several threads; results come back in canonical (row) order whatever the order of
// generation, so outputs can be compared byte for byte.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "chunkforge/chunk.h"
#include "chunkforge/v1/chunk.pb.h"

namespace chunkforge {
class World;
}

namespace chunkforge::tool {

enum class Order { kRows, kSpiral, kShuffle };
std::optional<Order> parse_order(const std::string& text);

struct Rect {
  int64_t x0, z0, x1, z1;  // inclusive
  int64_t width() const { return x1 - x0 + 1; }
  int64_t height() const { return z1 - z0 + 1; }
};

// The rectangle CX0 CZ0 CX1 CZ1 of add_corner_arguments (args.h); nullopt, after printing
// "<command>: needs CX0 <= CX1, CZ0 <= CZ1", when the corners are out of order.
std::optional<Rect> ordered_rect(const int64_t (&corners)[4], const std::string& command);

// The chunks of the rectangle in generation order.
std::vector<ChunkCoord> ordered(const Rect& rect, Order order);

struct RegionOptions {
  Order order = Order::kRows;
  int threads = 1;
  int64_t terrain_step = 0;  // 0: no terrain grid
};

// Chunks of the rectangle, row by row (z outer), generated in `options.order` on
// `options.threads` threads, each thread streaming its share through one ChunkStream.
std::vector<v1::Chunk> generate_rect(const World& world, const Rect& rect, const RegionOptions& options);

}  // namespace chunkforge::tool
