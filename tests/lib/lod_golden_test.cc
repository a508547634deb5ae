// Golden values of LOD tiles (docs/lod.md): the exact bytes of tiles at every level that plans
// structures and above, for the default world and the everything world, near the origin and
// far out. Built beside golden_test.cc, against the library at the project's optimisation level
// and at -O0. A tile is a pure function of (world, level, position) that clients making their
// own tiles must reproduce: a failure means tile output changed. If that was deliberate, it
// belongs to a new generator version; CHUNKFORGE_PRINT_GOLDEN=1 prints the current values.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "chunkforge/hash.h"
#include "chunkforge/lod.h"
#include "chunkforge/world.h"

namespace chunkforge {
namespace {

// The hash of the canonical bytes of a row of tiles at `level`, from (x, z) eastwards.
uint64_t tiles_hash(const World& world, int level, int64_t x, int64_t z, int count) {
  std::string bytes;
  for (int k = 0; k < count; ++k) bytes += lod_tile_bytes(world, {level, x + k, z});
  return hash_bytes(0, salt("golden.lod"), bytes);
}

struct LodGolden {
  int level;
  int64_t x, z;
  uint64_t hash;  // of 3 tiles from (x, z)
};

void check(const World& world, const char* name, const LodGolden (&goldens)[7]) {
  for (const LodGolden& g : goldens) {
    const uint64_t got = tiles_hash(world, g.level, g.x, g.z, 3);
    if (std::getenv("CHUNKFORGE_PRINT_GOLDEN") != nullptr) {
      std::printf("%s level %d (%lld, %lld) = 0x%016llxULL\n", name, g.level, static_cast<long long>(g.x),
                  static_cast<long long>(g.z), static_cast<unsigned long long>(got));
    }
    EXPECT_EQ(got, g.hash) << name << " level " << g.level << " at (" << g.x << ", " << g.z << ")" << std::hex
                           << ": got 0x" << got << ", golden 0x" << g.hash;
  }
}

// tests/lib/worlds/golden_everything.json: every scatter method, rotated, tilted and padded
// structures (golden_test.cc says what else), loaded once.
const World& everything_world() {
  static const WorldResult result =
      load_world_file(std::string(CHUNKFORGE_SOURCE_DIR) + "/tests/lib/worlds/golden_everything.json");
  if (!result.ok()) std::abort();
  return *result.world;
}

// Levels 0 to 4 plan structures (kLodStructureMaxLevel), 5 and 9 do not.
TEST(LodGoldenTest, DefaultWorldTiles) {
  constexpr LodGolden kGoldens[] = {
      {0, -2, 3, 0xd95b3466e7ac32beULL},
      {1, 5, -4, 0x3e9b99bf335c2005ULL},
      {2, -1, -1, 0x06da7323af6c4a80ULL},
      {3, 2, 0, 0x18fdf137cbedfaeeULL},   // 24 to 32 structures a tile
      {4, -3, 1, 0xa542828630e091c6ULL},  // 94 to 124
      {5, 0, -2, 0x5b849d4bc6de56d5ULL},  // none planned
      {9, -30000000, 25000000, 0x70dfd2abb807afefULL},
  };
  check(default_world(), "default", kGoldens);
}

TEST(LodGoldenTest, EverythingWorldTiles) {
  constexpr LodGolden kGoldens[] = {
      {0, 4, -6, 0x7f60e26a80332524ULL},     {1, -3, 2, 0xbedc941beccd1e87ULL}, {2, 0, 0, 0x64f4abe03dd3e314ULL},
      {3, -2, 1, 0xd0a88faf4be2f49fULL},     {4, 1, -1, 0x445a3ede4660af77ULL}, {5, -1, 0, 0x5a1741d1c161faaeULL},
      {9, 100, -200, 0xa0710db556151e1eULL},
  };
  check(everything_world(), "everything", kGoldens);
}

}  // namespace
}  // namespace chunkforge
