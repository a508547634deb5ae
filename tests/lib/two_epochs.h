// The two-epoch world of the epoch tests and goldens: the built-in world as epoch 0, and
// tests/lib/worlds/epoch_next.json as epoch 1 (generator version 3, higher and rougher land,
// a retuned forest). Players saw a disc of chunks around the origin (radius 5 chunks) while
// epoch 0 was the newest; everything else is epoch 1's.
#pragma once

#include <cstdlib>
#include <memory>
#include <string>

#include "chunkforge/epochs.h"
#include "chunkforge/world.h"

namespace chunkforge::test {

inline constexpr int64_t kSeenRadius = 5;

inline bool in_seen_disc(ChunkCoord c) { return c.x * c.x + c.z * c.z <= kSeenRadius * kSeenRadius; }

inline const World& next_epoch_world() {
  static const WorldResult result =
      load_world_file(std::string(CHUNKFORGE_SOURCE_DIR) + "/tests/lib/worlds/epoch_next.json");
  if (!result.ok()) std::abort();
  return *result.world;
}

inline SeenLand seen_disc() {
  SeenLand seen;
  for (int64_t z = -kSeenRadius; z <= kSeenRadius; ++z) {
    for (int64_t x = -kSeenRadius; x <= kSeenRadius; ++x) {
      if (in_seen_disc({x, z})) seen.mark({x, z}, 0);
    }
  }
  return seen;
}

inline std::shared_ptr<const Epochs> two_epochs_shared() {
  static const EpochsResult result = Epochs::create({default_world(), next_epoch_world()}, seen_disc());
  if (!result.ok()) std::abort();
  return result.epochs;
}

inline const Epochs& two_epochs() { return *two_epochs_shared(); }

}  // namespace chunkforge::test
