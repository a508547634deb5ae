// Golden values of a world with two epochs (tests/lib/two_epochs.h): the exact bytes of chunks
// on seen land, on new land at the seam, and far out, terrain grids included. Built beside
// golden_test.cc, against the library at the project's optimisation level and at -O0. A
// failure means a chunk of a world that changed after launch changed: the seam's rules are part
// of the contract (docs/world-definition.md, "Epochs"); CHUNKFORGE_PRINT_GOLDEN=1 prints the
// current values.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "chunkforge/encode.h"
#include "chunkforge/hash.h"
#include "two_epochs.h"

namespace chunkforge {
namespace {

TEST(EpochGoldenTest, TwoEpochChunks) {
  struct Golden {
    int64_t x, z;
    uint64_t hash;
  };
  constexpr Golden kGoldens[] = {
      {0, 0, 0x7189b1e24e098e6bULL},           // seen: epoch 0's
      {-5, 0, 0x71ed390b822370beULL},          // seen, at the disc's edge
      {6, 0, 0x4693b9ed45262bf0ULL},           // new land beside the disc: blended, structures and objects ruled
      {4, 4, 0xc6a3f29c41915464ULL},           // new land at a corner of the disc
      {-3, -5, 0xd20cd7b5a81d891eULL},         // new land between seen chunks
      {40, -30, 0x19514eaf8c2cba2cULL},        // beyond the seam's reach: epoch 1's own
      {-900000, 12345, 0x28ecb92f1766a2ebULL}  // far out
  };
  const Epochs& epochs = test::two_epochs();
  for (const Golden& g : kGoldens) {
    const std::string bytes = canonical_bytes(epochs.encode({g.x, g.z}, 2));
    const uint64_t got = hash_bytes(0, salt("golden.epochs"), bytes);
    if (std::getenv("CHUNKFORGE_PRINT_GOLDEN") != nullptr) {
      std::printf("(%lld, %lld) = 0x%016llxULL\n", static_cast<long long>(g.x), static_cast<long long>(g.z),
                  static_cast<unsigned long long>(got));
    }
    EXPECT_EQ(got, g.hash) << "(" << g.x << ", " << g.z << ")" << std::hex << ": got 0x" << got << ", golden 0x"
                           << g.hash;
  }
}

}  // namespace
}  // namespace chunkforge
