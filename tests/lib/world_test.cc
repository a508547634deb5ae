#include "chunkforge/world.h"

#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

namespace chunkforge {
namespace {

std::string errors_of(const std::vector<FieldError>& errors) {
  std::string out;
  for (const FieldError& e : errors) out += e.to_string() + "\n";
  return out;
}

TEST(WorldTest, ShippedDefaultJsonIsTheBuiltInWorld) {
  // The binary embeds docs/worlds/default.json at build time; a stale build or an edit that
  // bypassed CMake shows up here.
  const std::string path = std::string(CHUNKFORGE_SOURCE_DIR) + "/docs/worlds/default.json";
  WorldResult shipped = load_world_file(path);
  ASSERT_TRUE(shipped.ok()) << errors_of(shipped.errors);
  EXPECT_TRUE(
      google::protobuf::util::MessageDifferencer::Equals(shipped.world->definition(), default_world().definition()));
  EXPECT_EQ(shipped.world->fingerprint(), default_world().fingerprint());
}

TEST(WorldTest, DefaultWorldHasTheResourceArticlesLayers) {
  const v1::WorldDefinition& d = default_world().definition();
  std::map<std::string, std::string> colours;
  for (const auto& r : d.resources()) colours[r.name()] = r.color();
  ASSERT_TRUE(colours.count("forest") && colours.count("iron") && colours.count("coal"));
  EXPECT_GE(d.biomes_size(), 4);
  EXPECT_GE(d.structures_size(), 4);
  // Pinned to version 2 (docs/worlds/default.json): version 3 is for worlds that name it or leave
  // their version out (docs/resources.md, "Generator version 3").
  EXPECT_EQ(default_world().generator_version(), 2u);
}

TEST(WorldTest, DefaultsAreResolved) {
  std::vector<FieldError> errors;
  auto def = parse_world_json(R"({
    "terrain": {"elevation": {"frequency": 0.01}, "temperature": {"frequency": 0.01},
                "moisture": {"frequency": 0.01}},
    "biomes": [{"name": "all", "color": "#000000"}],
    "materials": [{"name": "rock", "color": "#ffffff"}],
    "resources": [{"name": "trees", "color": "#00ff00", "density_range": {"min": 0.5, "max": 1},
                   "sparsity": 0.01, "spacing_scale": 2, "footprint_radius": 1}],
    "structures": [{"name": "hut", "color": "#ff0000", "size_x": 4, "size_z": 4, "height": 3,
                    "frequency": 0.5}]
  })",
                              errors);
  ASSERT_TRUE(def) << errors_of(errors);
  WorldResult r = World::create(*def);
  ASSERT_TRUE(r.ok()) << errors_of(r.errors);
  const v1::WorldDefinition& d = r.world->definition();
  EXPECT_EQ(d.generator_version(), kGeneratorVersion);
  EXPECT_EQ(d.chunk_size(), 64u);
  EXPECT_EQ(d.terrain().elevation().octaves(), 4u);
  EXPECT_EQ(d.terrain().elevation().lacunarity(), 2.0);
  EXPECT_EQ(d.terrain().elevation().gain(), 0.5);
  EXPECT_EQ(d.terrain().elevation().amplitude(), 1.0);
  EXPECT_EQ(d.resources(0).sharpness(), 1.0);
  EXPECT_EQ(d.resources(0).octaves(), 3u);
  EXPECT_EQ(d.resources(0).variants(), 1u);
  EXPECT_FALSE(d.resources(0).has_jitter());  // only for jittered_grid
  EXPECT_EQ(d.structures(0).yaw_degrees_size(), 4);
  EXPECT_EQ(d.structures(0).depth().max(), 0.0);
  // A resolved definition is itself valid and resolves to itself.
  EXPECT_TRUE(validate_world(d).empty()) << errors_of(validate_world(d));
  v1::WorldDefinition again = d;
  apply_defaults(again);
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(again, d));
}

TEST(WorldTest, FingerprintFollowsTheDefinition) {
  v1::WorldDefinition d = default_world().definition();
  WorldResult same = World::create(d);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same.world->fingerprint(), default_world().fingerprint());
  d.set_seed(d.seed() + 1);
  WorldResult other = World::create(d);
  ASSERT_TRUE(other.ok());
  EXPECT_NE(other.world->fingerprint(), default_world().fingerprint());
  EXPECT_EQ(other.world->fingerprint().size(), 16u);
}

TEST(WorldTest, SeedChangesTheTerrain) {
  v1::WorldDefinition d = default_world().definition();
  d.set_seed(12345);
  WorldResult other = World::create(d);
  ASSERT_TRUE(other.ok());
  const Coord x = Coord::from_double(100), z = Coord::from_double(200);
  EXPECT_NE(other.world->terrain().elevation(x, z), default_world().terrain().elevation(x, z));
}

TEST(WorldTest, UnreadableFileIsOneClearError) {
  WorldResult r = load_world_file("/nonexistent/world.json");
  ASSERT_FALSE(r.ok());
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_NE(r.errors[0].message.find("cannot read world file"), std::string::npos);
}

}  // namespace
}  // namespace chunkforge
