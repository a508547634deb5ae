// Malformed world definitions are rejected with the JSON field path and a reason.
//
// Semantic errors start from the built-in world, break one thing in the parsed proto and run
// validate_world; JSON-level errors go through parse_world_json. Every failure prints the full
// error list, so a wrong path shows what was reported instead.
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <vector>

#include "chunkforge/encode.h"
#include "chunkforge/quote.h"
#include "chunkforge/world.h"
#include "chunkforge/world_limits.h"
#include "world_at_limits.h"

namespace chunkforge {
namespace {

using v1::WorldDefinition;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInfinity = std::numeric_limits<double>::infinity();

std::string describe(const std::vector<FieldError>& errors) {
  if (errors.empty()) return "(no errors)";
  std::string out;
  for (const FieldError& e : errors) out += "\n  " + e.to_string();
  return out;
}

// `json`, which must parse (semantic validity aside).
WorldDefinition parsed(std::string_view json) {
  std::vector<FieldError> errors;
  std::optional<WorldDefinition> definition = parse_world_json(json, errors);
  EXPECT_TRUE(definition.has_value()) << describe(errors);
  return definition.value_or(WorldDefinition{});
}

// The built-in world, parsed but not resolved: exactly what a designer's file would give.
WorldDefinition default_definition() { return parsed(default_world_json()); }

// Passes when some error has exactly `path` and a message containing `fragment`.
testing::AssertionResult HasError(const std::vector<FieldError>& errors, std::string_view path,
                                  std::string_view fragment) {
  const bool found = std::any_of(errors.begin(), errors.end(), [&](const FieldError& e) {
    return e.path == path && e.message.find(fragment) != std::string::npos;
  });
  if (found) return testing::AssertionSuccess();
  return testing::AssertionFailure() << "expected an error at \"" << path << "\" containing \"" << fragment
                                     << "\"; got:" << describe(errors);
}

testing::AssertionResult IsValid(const WorldDefinition& definition) {
  const std::vector<FieldError> errors = validate_world(definition);
  if (errors.empty()) return testing::AssertionSuccess();
  return testing::AssertionFailure() << "expected no errors; got:" << describe(errors);
}

// --- Semantic errors -----------------------------------------------------------------------

struct SemanticCase {
  const char* name;  // the test's name: Rejects/<name>
  std::function<void(WorldDefinition&)> mutate;
  const char* path;
  const char* fragment;
};

std::ostream& operator<<(std::ostream& out, const SemanticCase& c) { return out << c.name; }

class SemanticErrorTest : public testing::TestWithParam<SemanticCase> {};

TEST_P(SemanticErrorTest, Rejects) {
  WorldDefinition definition = default_definition();
  GetParam().mutate(definition);
  EXPECT_TRUE(HasError(validate_world(definition), GetParam().path, GetParam().fragment));
}

// `list` grown to `count` entries by copying its first one (names repeat: for the limits, which
// are checked first).
template <typename List>
void grow(List& list, int count) {
  const std::decay_t<decltype(list.Get(0))> first = list.Get(0);
  while (list.size() < count) list.Add(std::decay_t<decltype(first)>(first));
}

// Indices refer to docs/worlds/default.json: resources forest, iron, coal (correlates with
// iron), boulders; biomes[7] is plains (no ranges); materials[6] is gravel (noise + range),
// materials[8] grass (no conditions); structures[2] watchtower (yaw [0, 90]), structures[3]
// ruins (surface_falloff x 0, 12).
const SemanticCase kSemanticCases[] = {
    {"ZeroMinimumDensity", [](WorldDefinition& d) { d.mutable_resources(1)->mutable_density_range()->set_min(0); },
     "resources[1].density_range.min", "(got 0)"},
    {"MissingMinimumDensity", [](WorldDefinition& d) { d.mutable_resources(1)->mutable_density_range()->clear_min(); },
     "resources[1].density_range.min", "required"},
    {"DensityAboveSixteen", [](WorldDefinition& d) { d.mutable_resources(0)->mutable_density_range()->set_max(17); },
     "resources[0].density_range.max", "must be in (0, 16] (got 17)"},
    {"DensityMinimumAboveMaximum",
     [](WorldDefinition& d) {
       d.mutable_resources(0)->mutable_density_range()->set_min(0.9);
       d.mutable_resources(0)->mutable_density_range()->set_max(0.5);
     },
     "resources[0].density_range", "min must be <= max (got min 0.9, max 0.5)"},
    {"BiomeRangeMinimumAboveMaximum", [](WorldDefinition& d) { d.mutable_biomes(0)->mutable_elevation()->set_min(5); },
     "biomes[0].elevation", "min must be <= max (got min 5, max 0)"},
    {"ChunkSizeTooSmall", [](WorldDefinition& d) { d.set_chunk_size(8); }, "chunk_size",
     "must be in [16, 1024] (got 8)"},
    {"ChunkSizeTooLarge", [](WorldDefinition& d) { d.set_chunk_size(2048); }, "chunk_size", "(got 2048)"},
    {"UnknownGeneratorVersion", [](WorldDefinition& d) { d.set_generator_version(kGeneratorVersion + 1); },
     "generator_version", "unknown version 4"},
    {"MissingTerrain", [](WorldDefinition& d) { d.clear_terrain(); }, "terrain", "required"},
    {"MissingElevation", [](WorldDefinition& d) { d.mutable_terrain()->clear_elevation(); }, "terrain.elevation",
     "required"},
    {"MissingCaveNoise", [](WorldDefinition& d) { d.mutable_terrain()->mutable_caves()->clear_noise(); },
     "terrain.caves.noise", "required"},
    {"ZeroNoiseFrequency", [](WorldDefinition& d) { d.mutable_terrain()->mutable_temperature()->set_frequency(0); },
     "terrain.temperature.frequency", "required"},
    {"NoiseFrequencyAboveOne",
     [](WorldDefinition& d) { d.mutable_terrain()->mutable_temperature()->set_frequency(1.5); },
     "terrain.temperature.frequency", "must be in (0, 1] (got 1.5)"},
    {"SeventeenOctaves", [](WorldDefinition& d) { d.mutable_terrain()->mutable_elevation()->set_octaves(17); },
     "terrain.elevation.octaves", "must be in [1, 16] (got 17)"},
    {"FinestOctaveTooFine",
     [](WorldDefinition& d) {
       d.mutable_terrain()->mutable_elevation()->set_frequency(1);
       d.mutable_terrain()->mutable_elevation()->set_octaves(16);
     },
     "terrain.elevation", "finest octave frequency"},
    {"LacunarityTooLarge", [](WorldDefinition& d) { d.mutable_terrain()->mutable_moisture()->set_lacunarity(5); },
     "terrain.moisture.lacunarity", "must be in [1.1, 4] (got 5)"},
    {"LacunarityTooSmall", [](WorldDefinition& d) { d.mutable_terrain()->mutable_moisture()->set_lacunarity(1); },
     "terrain.moisture.lacunarity", "(got 1)"},
    {"ZeroGain", [](WorldDefinition& d) { d.mutable_terrain()->mutable_moisture()->set_gain(0); },
     "terrain.moisture.gain", "must be in (0, 1] (got 0)"},
    {"BadColour", [](WorldDefinition& d) { d.mutable_biomes(2)->set_color("red"); }, "biomes[2].color",
     "must be \"#rrggbb\" (got \"red\")"},
    {"ColourWithoutHash", [](WorldDefinition& d) { d.mutable_structures(0)->set_color("4a6fa5a"); },
     "structures[0].color", "#rrggbb"},
    {"UppercaseName", [](WorldDefinition& d) { d.mutable_materials(0)->set_name("Water"); }, "materials[0].name",
     "must match [a-z][a-z0-9_]* (got \"Water\")"},
    {"EmptyName", [](WorldDefinition& d) { d.mutable_structures(1)->set_name(""); }, "structures[1].name",
     "must match"},
    {"DuplicateName", [](WorldDefinition& d) { d.mutable_resources(3)->set_name("iron"); }, "resources[3].name",
     "duplicate name \"iron\""},
    {"NoBiomes", [](WorldDefinition& d) { d.clear_biomes(); }, "biomes", "at least one biome is required"},
    {"UnknownBiomeInResource", [](WorldDefinition& d) { d.mutable_resources(0)->set_biomes(1, "jungle"); },
     "resources[0].biomes[1]", "unknown biome \"jungle\""},
    {"UnknownMaterialInResource", [](WorldDefinition& d) { d.mutable_resources(0)->set_materials(2, "lava"); },
     "resources[0].materials[2]", "unknown material \"lava\""},
    {"UnknownMaterialInStructureCheck",
     [](WorldDefinition& d) { d.mutable_structures(4)->mutable_checks(0)->set_materials(1, "moss"); },
     "structures[4].checks[0].materials[1]", "unknown material \"moss\""},
    {"LastBiomeWithRange", [](WorldDefinition& d) { d.mutable_biomes(7)->mutable_moisture()->set_max(0.3); },
     "biomes[7]", "the last biome must have no ranges"},
    {"LastMaterialWithCondition", [](WorldDefinition& d) { d.mutable_materials(8)->add_biomes("forest"); },
     "materials[8]", "the last material must have no conditions"},
    {"MaterialNoiseWithoutRange", [](WorldDefinition& d) { d.mutable_materials(6)->clear_noise_range(); },
     "materials[6].noise_range", "give both or neither"},
    {"MaterialRangeWithoutNoise", [](WorldDefinition& d) { d.mutable_materials(6)->clear_noise(); },
     "materials[6].noise", "give both or neither"},
    {"CorrelationWithItself",
     [](WorldDefinition& d) { d.mutable_resources(2)->mutable_correlate_with()->set_layer("coal"); },
     "resources[2].correlate_with.layer", "cannot correlate with itself"},
    {"CorrelationWithUnknownLayer",
     [](WorldDefinition& d) { d.mutable_resources(2)->mutable_correlate_with()->set_layer("gold"); },
     "resources[2].correlate_with.layer", "unknown resource layer \"gold\""},
    {"CorrelationChain",
     [](WorldDefinition& d) {
       v1::Correlation& c = *d.mutable_resources(1)->mutable_correlate_with();  // iron -> forest
       c.set_layer("forest");
       c.set_weight(0.5);
     },
     "resources[2].correlate_with.layer", "chains are not supported"},
    {"CorrelationWithoutWeight",
     [](WorldDefinition& d) { d.mutable_resources(2)->mutable_correlate_with()->set_weight(0); },
     "resources[2].correlate_with.weight", "required"},
    {"JitterOnBlueNoise", [](WorldDefinition& d) { d.mutable_resources(0)->set_jitter(0.3); }, "resources[0].jitter",
     "only used by method jittered_grid"},
    {"JitterAboveHalf",
     [](WorldDefinition& d) {
       d.mutable_resources(0)->set_method(v1::ResourceLayer::jittered_grid);
       d.mutable_resources(0)->set_jitter(0.6);
     },
     "resources[0].jitter", "must be in [0, 0.5] (got 0.6)"},
    {"PeakWindowOnBlueNoise", [](WorldDefinition& d) { d.mutable_resources(3)->set_peak_window(16); },
     "resources[3].peak_window", "only used by method noise_peaks"},
    {"SpacingBelowHalfAUnit",
     [](WorldDefinition& d) {
       d.mutable_resources(0)->set_spacing_scale(0.6);
       d.mutable_resources(0)->mutable_density_range()->set_max(2);
     },
     "resources[0].spacing_scale", "must be >= 0.5 world units (got 0.3)"},
    {"SpacingBeyond128Units",
     [](WorldDefinition& d) { d.mutable_resources(0)->mutable_density_range()->set_min(0.01); },
     "resources[0].spacing_scale", "must be <= 128 world units (got 300)"},
    {"TiltedStructureTallerThanSixteenChunks", [](WorldDefinition& d) { d.mutable_structures(3)->set_height(2000); },
     "structures[3].height", "must be in [1, 1024] (got 2000)"},
    {"DensityThresholdAboveMaximum", [](WorldDefinition& d) { d.mutable_resources(3)->set_density_threshold(0.7); },
     "resources[3].density_threshold", "must be in [0, 0.6] (got 0.7)"},
    {"MissingSpacingScale", [](WorldDefinition& d) { d.mutable_resources(1)->set_spacing_scale(0); },
     "resources[1].spacing_scale", "required"},
    {"StructureYaw45", [](WorldDefinition& d) { d.mutable_structures(2)->set_yaw_degrees(1, 45); },
     "structures[2].yaw_degrees[1]", "must be one of 0, 90, 180, 270 (got 45)"},
    {"StructureYaw360", [](WorldDefinition& d) { d.mutable_structures(2)->add_yaw_degrees(360); },
     "structures[2].yaw_degrees[2]", "(got 360)"},
    {"StructureDuplicateYaw", [](WorldDefinition& d) { d.mutable_structures(2)->set_yaw_degrees(1, 0); },
     "structures[2].yaw_degrees[1]", "duplicate angle 0"},
    {"StructureLargerThanSixteenChunks", [](WorldDefinition& d) { d.mutable_structures(5)->set_size_x(1025); },
     "structures[5].size_x", "must be in [1, 1024] (got 1025)"},
    {"SurfaceFalloffNotIncreasing",
     [](WorldDefinition& d) { d.mutable_structures(3)->mutable_surface_falloff(1)->set_x(0); },
     "structures[3].surface_falloff[1].x", "must be greater than the previous point's x (0)"},
    {"SurfaceFalloffAboveOne",
     [](WorldDefinition& d) { d.mutable_structures(3)->mutable_surface_falloff(0)->set_y(1.5); },
     "structures[3].surface_falloff[0].y", "must be in [0, 1] (got 1.5)"},
    {"NaNSeaLevel", [](WorldDefinition& d) { d.mutable_terrain()->set_sea_level(kNaN); }, "terrain.sea_level",
     "(got nan)"},
    {"NaNNoiseFrequency", [](WorldDefinition& d) { d.mutable_terrain()->mutable_elevation()->set_frequency(kNaN); },
     "terrain.elevation.frequency", "(got nan)"},
    {"NaNRangeBound", [](WorldDefinition& d) { d.mutable_biomes(1)->mutable_elevation()->set_max(kNaN); },
     "biomes[1].elevation.max", "(got nan)"},
    {"NaNDensity", [](WorldDefinition& d) { d.mutable_resources(1)->mutable_density_range()->set_max(kNaN); },
     "resources[1].density_range.max", "(got nan)"},
    {"InfiniteStructureHeight", [](WorldDefinition& d) { d.mutable_structures(0)->set_height(kInfinity); },
     "structures[0].height", "(got inf)"},
    {"NegativeInfiniteCaveThreshold",
     [](WorldDefinition& d) { d.mutable_terrain()->mutable_caves()->set_threshold(-kInfinity); },
     "terrain.caves.threshold", "(got -inf)"},
    {"InfiniteCheckOffset",
     [](WorldDefinition& d) { d.mutable_structures(0)->mutable_checks(1)->mutable_offset()->set_y(kInfinity); },
     "structures[0].checks[1].offset.y", "(got inf)"},
    // Limits (chunkforge/world_limits.h): each list, each string, the layers' cost rules.
    {"TooManyResourceLayers", [](WorldDefinition& d) { grow(*d.mutable_resources(), 65); }, "resources",
     "at most 64 layers (got 65)"},
    {"TooManyStructures", [](WorldDefinition& d) { grow(*d.mutable_structures(), 65); }, "structures",
     "at most 64 structures (got 65)"},
    {"TooManyBiomes", [](WorldDefinition& d) { grow(*d.mutable_biomes(), 257); }, "biomes",
     "at most 256 biomes (got 257)"},
    {"TooManyMaterials", [](WorldDefinition& d) { grow(*d.mutable_materials(), 257); }, "materials",
     "at most 256 materials (got 257)"},
    {"TooManyChecks", [](WorldDefinition& d) { grow(*d.mutable_structures(0)->mutable_checks(), 17); },
     "structures[0].checks", "at most 16 checks (got 17)"},
    {"TooManyYawAngles", [](WorldDefinition& d) { grow(*d.mutable_structures(2)->mutable_yaw_degrees(), 5); },
     "structures[2].yaw_degrees", "at most 4 angles (got 5)"},
    {"TooManyFalloffPoints", [](WorldDefinition& d) { grow(*d.mutable_structures(3)->mutable_surface_falloff(), 17); },
     "structures[3].surface_falloff", "at most 16 points (got 17)"},
    {"TooManyNamesInALayerFilter", [](WorldDefinition& d) { grow(*d.mutable_resources(0)->mutable_biomes(), 257); },
     "resources[0].biomes", "at most 256 names (got 257)"},
    {"TooManyNamesInACheck",
     [](WorldDefinition& d) { grow(*d.mutable_structures(4)->mutable_checks(0)->mutable_materials(), 257); },
     "structures[4].checks[0].materials", "at most 256 names (got 257)"},
    {"NameTooLong", [](WorldDefinition& d) { d.mutable_biomes(0)->set_name(std::string(65, 'o')); }, "biomes[0].name",
     "at most 64 characters (got 65"},
    {"WorldNameTooLong", [](WorldDefinition& d) { d.set_name(std::string(257, 'w')); }, "name",
     "at most 256 bytes (got 257)"},
    {"DefinitionTooLarge", [](WorldDefinition& d) { d.set_name(std::string(size_t{1} << 20, 'w')); }, "",
     "protobuf encoding must be at most 1048576 bytes"},
    {"TooManyDetailNoiseOctaves",
     [](WorldDefinition& d) {
       for (int i = 0; i < 4; ++i) {
         v1::Material& m = *d.mutable_materials()->Add();
         m = d.materials(6);  // gravel: a detail noise of 2 octaves
         m.set_name("patch" + std::to_string(i));
         m.mutable_noise()->set_octaves(16);
       }
       d.mutable_materials()->SwapElements(8, d.materials_size() - 1);  // grass stays last
     },
     "materials", "at most 64 detail-noise octaves summed over all materials (got 68)"},
    {"DensityRangeWiderThanSixteenfold",
     [](WorldDefinition& d) { d.mutable_resources(0)->mutable_density_range()->set_min(0.05); },
     "resources[0].density_range", "max must be at most 16 times min (got min 0.05, max 1)"},
    {"FootprintCrowdingOtherLayers",
     [](WorldDefinition& d) { d.mutable_resources(3)->set_footprint_radius(6); },  // boulders near 3-unit forest
     "resources[3].footprint_radius", "most from layer \"forest\""},
    {"ScatterCostAboveBudget",
     [](WorldDefinition& d) {
       d.mutable_resources(1)->set_spacing_scale(0.5);  // iron: 182 x 182 scatter cells a chunk
       d.mutable_resources(1)->set_footprint_radius(0.1);
     },
     "resources", "scatter cost (layers x scatter cells per chunk of all layers) must be at most 65536"},
};

INSTANTIATE_TEST_SUITE_P(WorldValidation, SemanticErrorTest, testing::ValuesIn(kSemanticCases),
                         [](const testing::TestParamInfo<SemanticCase>& test) { return std::string(test.param.name); });

TEST(WorldValidationTest, AcceptsBuiltInWorld) { EXPECT_TRUE(IsValid(default_definition())); }

TEST(WorldValidationTest, AcceptsDocumentedWorldFile) {
  std::vector<FieldError> errors;
  const std::optional<WorldDefinition> definition =
      read_world_file(CHUNKFORGE_SOURCE_DIR "/docs/worlds/default.json", errors);
  ASSERT_TRUE(definition.has_value()) << describe(errors);
  EXPECT_TRUE(IsValid(*definition));
}

TEST(WorldValidationTest, ReportsAllErrorsAtOnce) {
  WorldDefinition definition = default_definition();
  definition.set_chunk_size(8);
  definition.mutable_biomes(2)->set_color("grey");
  definition.mutable_resources(1)->mutable_density_range()->set_min(0);
  const std::vector<FieldError> errors = validate_world(definition);
  EXPECT_TRUE(HasError(errors, "chunk_size", "(got 8)"));
  EXPECT_TRUE(HasError(errors, "biomes[2].color", "(got \"grey\")"));
  EXPECT_TRUE(HasError(errors, "resources[1].density_range.min", "(got 0)"));
}

// Resolved definitions stay valid: defaults never produce a value validation rejects.
TEST(WorldValidationTest, AcceptsDefinitionAfterApplyDefaults) {
  WorldDefinition definition = default_definition();
  apply_defaults(definition);
  EXPECT_TRUE(IsValid(definition));

  WorldDefinition twice = definition;
  apply_defaults(twice);
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(definition, twice))
      << "apply_defaults is not idempotent";
}

// Method-specific defaults (jitter, peak_window) are filled in only where they are valid.
TEST(WorldValidationTest, AcceptsMethodDefaultsAfterApplyDefaults) {
  WorldDefinition definition = default_definition();
  definition.mutable_resources(0)->set_method(v1::ResourceLayer::jittered_grid);
  definition.mutable_resources(1)->set_method(v1::ResourceLayer::noise_peaks);
  definition.mutable_resources(1)->set_spacing_scale(50);  // default window 4 * 50 = 200
  ASSERT_TRUE(IsValid(definition));
  apply_defaults(definition);
  EXPECT_DOUBLE_EQ(definition.resources(0).jitter(), 0.4);
  EXPECT_DOUBLE_EQ(definition.resources(1).peak_window(), 200);
  EXPECT_TRUE(IsValid(definition));
}

// --- Limits as a whole ------------------------------------------------------------------------

// A list beyond its limit is one error, not one per entry: a hostile file cannot flood the log.
TEST(WorldLimitsTest, AnOversizedListIsOneError) {
  WorldDefinition definition = default_definition();
  v1::ResourceLayer& forest = *definition.mutable_resources(0);
  forest.clear_biomes();
  for (int i = 0; i < 100000; ++i) forest.add_biomes("nowhere");
  const std::vector<FieldError> errors = validate_world(definition);
  EXPECT_TRUE(HasError(errors, "resources[0].biomes", "at most 256 names (got 100000)"));
  EXPECT_EQ(errors.size(), 1u) << describe(errors);
}

// Every limit reached at once is still a valid world, and what the server sends about it stays
// far below gRPC's 4 MB default message size, as does its JSON below the file limit.
TEST(WorldLimitsTest, AWorldAtEveryLimitIsValidAndSmall) {
  const WorldDefinition definition = test::world_at_limits();
  ASSERT_TRUE(IsValid(definition));
  const WorldResult r = World::create(definition);
  ASSERT_TRUE(r.ok());
  const size_t definition_bytes = r.world->definition().ByteSizeLong();
  const size_t info_bytes = describe_world(*r.world).ByteSizeLong();
  std::string json;
  ASSERT_TRUE(google::protobuf::util::MessageToJsonString(definition, &json).ok());
  std::cout << "[ measure  ] at_limits.definition_bytes = " << definition_bytes << "\n"
            << "[ measure  ] at_limits.world_info_bytes = " << info_bytes << "\n"
            << "[ measure  ] at_limits.json_bytes = " << json.size() << "\n";
  EXPECT_LT(definition_bytes, size_t{1} << 20);
  EXPECT_LT(info_bytes, size_t{1} << 20);
  EXPECT_LE(json.size(), kMaxWorldFileBytes);
  EXPECT_TRUE(load_world_json(json).ok());
}

// One step beyond the scatter cost or the crowding of the world at the limits is rejected.
TEST(WorldLimitsTest, TheWorldAtTheLimitsHasNoRoomLeft) {
  WorldDefinition denser = test::world_at_limits();
  denser.mutable_resources(5)->set_spacing_scale(22);  // 5 x 5 cells instead of 4 x 4
  EXPECT_TRUE(HasError(validate_world(denser), "resources", "(got 64 x 1033 = 66112)"));
  WorldDefinition wider = test::world_at_limits();
  wider.mutable_resources(5)->set_footprint_radius(3);
  EXPECT_TRUE(HasError(validate_world(wider), "resources[5].footprint_radius", "footprint crowding"));
}

// --- Input quoted in errors --------------------------------------------------------------------

// Whether every character of every error is printable ASCII (no newline, no escape code).
testing::AssertionResult AllPrintable(const std::vector<FieldError>& errors) {
  for (const FieldError& e : errors) {
    for (const char c : e.to_string()) {
      if (c < 0x20 || c > 0x7e) {
        return testing::AssertionFailure()
               << "byte " << static_cast<int>(static_cast<unsigned char>(c)) << " in: " << e.to_string();
      }
    }
  }
  return testing::AssertionSuccess();
}

TEST(QuoteInputTest, EscapesEverythingButPrintableAscii) {
  EXPECT_EQ(quote_input("forest_2"), "\"forest_2\"");
  EXPECT_EQ(quote_input("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(quote_input("\x1b[31mred\n\t\r"), "\"\\x1b[31mred\\n\\t\\r\"");
  EXPECT_EQ(quote_input(std::string("nul\0del\x7f", 8)), "\"nul\\x00del\\x7f\"");
  EXPECT_EQ(quote_input("caf\xc3\xa9"), "\"caf\\xc3\\xa9\"");
}

TEST(QuoteInputTest, CutsLongInputAndMarksIt) {
  EXPECT_EQ(quote_input(std::string(64, 'a')), "\"" + std::string(64, 'a') + "\"");
  EXPECT_EQ(quote_input(std::string(65, 'a')), "\"" + std::string(64, 'a') + "\"...");
  // Cut before escaping: an escape sequence is never split.
  EXPECT_EQ(quote_input(std::string(70, '\n'), 2), "\"\\n\\n\"...");
}

TEST(WorldValidationQuotingTest, UnknownNamesAreEscaped) {
  WorldDefinition definition = default_definition();
  definition.mutable_resources(0)->set_biomes(1, "\x1b[31mjungle\nresources[9]: forged");
  definition.mutable_resources(2)->mutable_correlate_with()->set_layer("\x1b]0;title\x07");
  definition.mutable_structures(4)->mutable_checks(0)->set_materials(1, std::string(100000, '\n'));
  const std::vector<FieldError> errors = validate_world(definition);
  EXPECT_TRUE(HasError(errors, "resources[0].biomes[1]", "unknown biome \"\\x1b[31mjungle\\nresources[9]: forged\""));
  EXPECT_TRUE(HasError(errors, "resources[2].correlate_with.layer", "\"\\x1b]0;title\\x07\""));
  EXPECT_TRUE(HasError(errors, "structures[4].checks[0].materials[1]", "\"..."));
  EXPECT_TRUE(AllPrintable(errors));
  for (const FieldError& e : errors) EXPECT_LT(e.message.size(), 400u) << e.path;
}

TEST(WorldValidationQuotingTest, BadNamesAndColoursAreEscaped) {
  WorldDefinition definition = default_definition();
  definition.mutable_biomes(0)->set_name("Ocean\r\n");
  definition.mutable_materials(0)->set_name(std::string(5000000, '\x1b'));
  definition.mutable_resources(1)->set_color("#\x1b[2J\"");
  const std::vector<FieldError> errors = validate_world(definition);
  EXPECT_TRUE(HasError(errors, "biomes[0].name", "(got \"Ocean\\r\\n\")"));
  EXPECT_TRUE(HasError(errors, "materials[0].name", "at most 64 characters (got 5000000: \"\\x1b"));
  EXPECT_TRUE(HasError(errors, "resources[1].color", "(got \"#\\x1b[2J\\\"\")"));
  EXPECT_TRUE(AllPrintable(errors));
}

// --- JSON-level errors -----------------------------------------------------------------------

// What parse_world_json reports for `json`, which must fail with exactly one error.
std::vector<FieldError> parse_errors(std::string_view json) {
  std::vector<FieldError> errors;
  EXPECT_FALSE(parse_world_json(json, errors).has_value()) << "parsed: " << json;
  EXPECT_EQ(errors.size(), 1u) << describe(errors);
  return errors;
}

// `text` with the first `from` (which must occur in it) replaced by `to`.
std::string replaced(std::string text, std::string_view from, std::string_view to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

std::string edited_default_json(std::string_view from, std::string_view to) {
  return replaced(std::string(default_world_json()), from, to);
}

// Malformed JSON is one document-level error: no path, "malformed JSON: <protobuf's reason>".
void ExpectMalformed(std::string_view json) {
  SCOPED_TRACE(json);
  const std::vector<FieldError> errors = parse_errors(json);
  ASSERT_FALSE(errors.empty());
  EXPECT_EQ(errors[0].path, "") << describe(errors);
  EXPECT_EQ(errors[0].message.rfind("malformed JSON: ", 0), 0u) << describe(errors);
}

TEST(WorldValidationJsonTest, RejectsUnknownTopLevelField) {
  EXPECT_TRUE(HasError(parse_errors(R"({"name": "x", "foo": 1})"), "foo", "unknown field"));
}

TEST(WorldValidationJsonTest, RejectsUnknownNestedField) {
  const std::string json = edited_default_json(R"("name": "iron",)", R"("name": "iron", "bogus": 1,)");
  EXPECT_TRUE(HasError(parse_errors(json), "resources[1].bogus", "unknown field"));
}

TEST(WorldValidationJsonTest, RejectsBadEnumValue) {
  const std::string json = R"({"terrain": {"elevation": {"kind": "perlim"}}})";
  EXPECT_TRUE(HasError(parse_errors(json), "terrain.elevation.kind", "perlin, simplex"));
}

TEST(WorldValidationJsonTest, RejectsBadEnumValueInList) {
  const std::string json = edited_default_json(R"("name": "coal", "color": "#7d3c98", "method": "blue_noise")",
                                               R"("name": "coal", "color": "#7d3c98", "method": "bluenoise")");
  EXPECT_TRUE(HasError(parse_errors(json), "resources[2].method", "must be one of blue_noise"));
}

TEST(WorldValidationJsonTest, RejectsWrongType) {
  EXPECT_TRUE(HasError(parse_errors(R"({"chunk_size": "abc"})"), "chunk_size",
                       "invalid value \"abc\": expected a non-negative integer"));
  EXPECT_TRUE(HasError(parse_errors(R"({"terrain": {"sea_level": true}})"), "terrain.sea_level", "expected a number"));
  EXPECT_TRUE(HasError(parse_errors(R"({"structures": [{"yaw_degrees": [0, -90]}]})"), "structures[0].yaw_degrees[1]",
                       "invalid value -90"));
}

TEST(WorldValidationJsonTest, RejectsMalformedJson) {
  ExpectMalformed("");
  ExpectMalformed(R"({"name": "x",)");
  ExpectMalformed("{,}");
  ExpectMalformed("nul");
  const std::string_view json = default_world_json();
  ExpectMalformed(json.substr(0, json.size() / 2));
}

// A syntax error whose protobuf message holds ": " (in the reason or the echoed input) is
// still malformed JSON, not a field path.
TEST(WorldValidationJsonTest, RejectsMalformedJsonContainingColonSpace) {
  ExpectMalformed(R"({"name" "x"})");             // missing colon
  ExpectMalformed(R"({"name": "x" "seed": 1})");  // missing comma
  ExpectMalformed(R"({"name": "x"} trailing)");   // text after the document
}

// An element of a list of messages expects an object, not a list.
TEST(WorldValidationJsonTest, ReportsObjectExpectedForListElement) {
  EXPECT_TRUE(HasError(parse_errors(R"({"resources": [{}, 5]})"), "resources[1]", "expected an object"));
}

// protobuf's JSON mapping accepts "NaN" and "Infinity" for doubles; validation rejects them.
TEST(WorldValidationJsonTest, RejectsNaNAndInfinityStrings) {
  const std::string json = replaced(edited_default_json(R"("sea_level": 0)", R"("sea_level": "NaN")"),
                                    R"("height": 4,)", R"("height": "Infinity",)");
  const std::vector<FieldError> errors = validate_world(parsed(json));
  EXPECT_TRUE(HasError(errors, "terrain.sea_level", "(got nan)"));
  EXPECT_TRUE(HasError(errors, "structures[0].height", "(got inf)"));
}

// Enum values may be given by number in protobuf's JSON mapping; known numbers are fine.
TEST(WorldValidationJsonTest, AcceptsKnownEnumNumbers) {
  const std::string json = edited_default_json(R"("kind": "perlin", "octaves": 5)", R"("kind": 1, "octaves": 5)");
  const WorldDefinition definition = parsed(json);
  EXPECT_EQ(definition.terrain().elevation().kind(), v1::NoiseField::simplex);
  EXPECT_TRUE(IsValid(definition));
}

// proto3 enums are open, so an unknown number parses; validation rejects it.
TEST(WorldValidationJsonTest, RejectsUnknownEnumNumbers) {
  const std::string json =
      replaced(edited_default_json(R"("kind": "perlin", "octaves": 5)", R"("kind": 5, "octaves": 5)"),
               R"("method": "blue_noise")", R"("method": 7)");
  const std::vector<FieldError> errors = validate_world(parsed(json));
  EXPECT_TRUE(HasError(errors, "terrain.elevation.kind", "perlin, simplex"));
  EXPECT_TRUE(HasError(errors, "resources[0].method", "blue_noise"));
}

// Whatever protobuf echoes of the input (a value, a key, a stretch of a malformed document)
// reaches the error escaped.
TEST(WorldValidationJsonTest, EchoedInputIsEscaped) {
  const std::vector<FieldError> value = parse_errors(R"({"chunk_size": "\u001b[2J\nabc"})");
  EXPECT_TRUE(HasError(value, "chunk_size", "invalid value \"\\x1b[2J\\nabc\": expected a non-negative integer"));
  EXPECT_TRUE(AllPrintable(value));
  EXPECT_TRUE(AllPrintable(parse_errors(R"({"\u001b[31mevil\n": 1})")));
  EXPECT_TRUE(AllPrintable(parse_errors(R"({"resources": [{"(x) \u001b": 1}]})")));
  EXPECT_TRUE(AllPrintable(parse_errors("{\"name\": \"x\n\u001b\x01\"")));
  const std::vector<FieldError> long_value = parse_errors(R"({"seed": ")" + std::string(100000, '9') + R"(x"})");
  EXPECT_TRUE(AllPrintable(long_value));
  EXPECT_LT(long_value[0].message.size(), 400u) << describe(long_value);
}

// --- Size of the document ----------------------------------------------------------------------

TEST(WorldFileSizeTest, JsonAboveTheLimitIsRejectedBeforeParsing) {
  std::string json(default_world_json());
  json.resize(kMaxWorldFileBytes + 1, ' ');  // valid JSON, one byte too long
  EXPECT_TRUE(HasError(parse_errors(json), "", "at most 1048576 bytes of JSON (got 1048577)"));
  json.resize(kMaxWorldFileBytes);
  std::vector<FieldError> errors;
  EXPECT_TRUE(parse_world_json(json, errors).has_value()) << describe(errors);
}

// A temporary file holding `text`, removed at the end of the test.
class TempFile {
 public:
  explicit TempFile(const std::string& text) : path_(testing::TempDir() + "chunkforge_world_size_test.json") {
    std::ofstream(path_, std::ios::binary) << text;
  }
  ~TempFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(WorldFileSizeTest, FileAboveTheLimitIsRejectedUnread) {
  const TempFile file(R"({"name": ")" + std::string(50 << 20, 'n') + R"("})");
  std::vector<FieldError> errors;
  EXPECT_FALSE(read_world_file(file.path(), errors).has_value());
  ASSERT_EQ(errors.size(), 1u) << describe(errors);
  EXPECT_TRUE(HasError(errors, "", "is larger than the limit of 1048576 bytes (got 52428812)"));
}

// A FIFO has no size to check first: the reader must stop one byte past the limit by itself.
TEST(WorldFileSizeTest, PipeAboveTheLimitIsRejected) {
  const std::string path = testing::TempDir() + "chunkforge_world_size_test.fifo";
  std::remove(path.c_str());
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  std::thread writer([&] { std::ofstream(path, std::ios::binary) << std::string(kMaxWorldFileBytes + 1, ' '); });
  std::vector<FieldError> errors;
  EXPECT_FALSE(read_world_file(path, errors).has_value());
  writer.join();
  std::remove(path.c_str());
  ASSERT_EQ(errors.size(), 1u) << describe(errors);
  EXPECT_EQ(errors[0].message, "world file \"" + path + "\" is larger than the limit of 1048576 bytes");
}

}  // namespace
}  // namespace chunkforge

namespace chunkforge {
namespace {

// The finest-octave limit (frequency * lacunarity^(octaves - 1) <= 64) is checked on the
// frequencies generation really uses, which Fractal builds by repeated multiplication. These
// inputs are where std::pow and the repeated product round to different sides of 64.
TEST(WorldValidationTest, FinestOctaveLimitIsTheRepeatedProductGenerationUses) {
  struct Case {
    double lacunarity, frequency;
  };
  const Case cases[] = {
      {2.8312999999999997, 0.99594743669774632},  // pow: 64 + 1 ulp, product: 64 - 1 ulp
      {2.8327499999999999, 0.99390981903874853},  // pow: 64, product: 64 + 1 ulp
  };
  for (const Case& c : cases) {
    double product = c.frequency;
    for (int o = 1; o < 5; ++o) product *= c.lacunarity;
    WorldDefinition def = default_definition();
    v1::NoiseField& elevation = *def.mutable_terrain()->mutable_elevation();
    elevation.set_octaves(5);
    elevation.set_lacunarity(c.lacunarity);
    elevation.set_frequency(c.frequency);
    const std::vector<FieldError> errors = validate_world(def);
    const bool rejected = std::any_of(errors.begin(), errors.end(), [](const FieldError& e) {
      return e.path == "terrain.elevation" && e.message.find("finest octave") != std::string::npos;
    });
    EXPECT_EQ(rejected, product > 64) << std::hexfloat << "product " << product << ": " << describe(errors);
  }
}

}  // namespace
}  // namespace chunkforge
