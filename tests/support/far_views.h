// The attack of a session client that never reads: two far views of radius 16, each holding
// its whole view (1,089 chunks), to alternate between. Every update then moves the view far and
// owes the client a whole view of unloads, the most one update can make the server do.
#pragma once

#include <array>
#include <cstdint>

#include "chunkforge/v1/service.pb.h"

namespace chunkforge::test {

inline std::array<v1::SessionUpdate, 2> alternating_far_views() {
  std::array<v1::SessionUpdate, 2> views;
  for (int v = 0; v < 2; ++v) {
    views[v].set_x(v * 6400000.0);
    views[v].set_view_radius(16);
    for (int64_t z = -16; z <= 16; ++z) {
      for (int64_t x = v * 100000 - 16; x <= v * 100000 + 16; ++x) {
        auto* held = views[v].add_held();
        held->set_x(x);
        held->set_z(z);
      }
    }
  }
  return views;
}

}  // namespace chunkforge::test
