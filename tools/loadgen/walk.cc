// The walk of the load generator's players (walk.h).
#include "walk.h"

#include <cmath>

namespace chunkforge::loadgen {

// Where in a step player p is at the start: 0, or with --stagger its own fraction of a step.
static double phase(int player, const Options& o) {
  return o.stagger ? std::fmod(player * 0.6180339887498949, 1.0) : 0.0;
}

std::pair<int64_t, int64_t> position(int player, double seconds, const Options& o) {
  static const int dirs[8][2] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}, {1, 1}, {-1, 1}, {1, -1}, {-1, -1}};
  const int64_t steps = static_cast<int64_t>(seconds * o.speed + phase(player, o));
  const auto* d = dirs[player % 8];
  const int64_t base = (player / 8) * 1000;  // players start far apart
  return {base + d[0] * steps, base * 3 + d[1] * steps};
}

double next_step(int player, double seconds, const Options& o) {
  const double steps = std::floor(seconds * o.speed + phase(player, o));
  return (steps + 1 - phase(player, o)) / o.speed;
}

}  // namespace chunkforge::loadgen
