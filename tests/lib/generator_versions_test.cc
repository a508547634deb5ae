// The generator version table: one row per version the build keeps, and a pinned world's
// chunks come from its own row's pipeline, in any order and whatever its memo bound.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "chunkforge/chunk.h"
#include "chunkforge/encode.h"
#include "chunkforge/world.h"
#include "generator_versions.h"

namespace chunkforge {
namespace {

TEST(GeneratorVersionsTest, OneRowPerVersionFromOldestToNewest) {
  const auto versions = generator_versions();
  ASSERT_EQ(versions.size(), kGeneratorVersion - kOldestGeneratorVersion + 1);
  for (uint32_t n = kOldestGeneratorVersion; n <= kGeneratorVersion; ++n) {
    EXPECT_EQ(generator_version(n).number, n);
    EXPECT_NE(generator_version(n).open_pipeline, nullptr) << n;
  }
  EXPECT_THROW(generator_version(kOldestGeneratorVersion - 1), std::out_of_range);
  EXPECT_THROW(generator_version(kGeneratorVersion + 1), std::out_of_range);
}

World pinned_default_world(uint32_t version) {
  v1::WorldDefinition definition = default_world().definition();
  definition.set_generator_version(version);
  WorldResult r = World::create(definition);
  if (!r.ok()) throw std::runtime_error(r.errors.front().to_string());
  return *r.world;
}

std::string bytes_of(const World& world, const ChunkData& chunk) { return canonical_bytes(encode_chunk(world, chunk)); }

TEST(GeneratorVersionsTest, EachVersionsPipelineGivesItsWorldsChunksInAnyOrder) {
  for (const GeneratorVersion& version : generator_versions()) {
    const World world = pinned_default_world(version.number);
    // A bound of a few cells makes the pipeline start afresh between chunks.
    auto pipeline = version.open_pipeline(world, 8);
    for (int64_t x = 1; x >= -1; --x) {
      for (int64_t z = 1; z >= -1; --z) {
        const ChunkCoord c{x, z};
        EXPECT_EQ(bytes_of(world, pipeline->generate(c, nullptr)), bytes_of(world, Generator(world).generate(c)))
            << "version " << version.number << ", chunk " << x << "," << z;
      }
    }
  }
}

}  // namespace
}  // namespace chunkforge
