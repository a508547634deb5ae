// The table of terrain fields (chunkforge/terrain_fields.h) against the protos: each row's
// accessors reach the proto fields of its name, no rule message has a Range over a field that
// the table does not wire to it, and `chunkforge sample` (info.proto) has a value for each.
#include "chunkforge/terrain_fields.h"

#include <gtest/gtest.h>

#include <string>

#include "chunkforge/v1/info.pb.h"
#include "chunkforge/v1/world.pb.h"

namespace chunkforge {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

const FieldDescriptor* field_named(const Message& message, std::string_view name) {
  return message.GetDescriptor()->FindFieldByName(std::string(name));
}

bool is_range(const FieldDescriptor* field) {
  return field != nullptr && field->message_type() == v1::Range::descriptor();
}

// Sets the Range named after field `f` through reflection and reads it back through the
// table's column: the column must be that very Range, and every other field unbounded.
template <typename Rule>
void expect_column_reaches_its_range(RangeAccessor<Rule> TerrainFieldSpec::*column, const char* rule_name) {
  for (size_t f = 0; f < kTerrainFieldCount; ++f) {
    Rule rule;
    const FieldDescriptor* range = field_named(rule, kTerrainFields[f].name);
    if (kTerrainFields[f].*column == nullptr) {
      // A Range of this name that the table leaves out would be read by nothing.
      EXPECT_FALSE(is_range(range)) << rule_name << "." << kTerrainFields[f].name << " is not in kTerrainFields";
      continue;
    }
    ASSERT_TRUE(is_range(range)) << rule_name << " has no Range " << kTerrainFields[f].name;
    auto* bounds = static_cast<v1::Range*>(rule.GetReflection()->MutableMessage(&rule, range));
    bounds->set_min(-2.5);
    bounds->set_max(7.0);
    const TerrainBounds read = terrain_bounds(rule, column);
    for (size_t g = 0; g < kTerrainFieldCount; ++g) {
      EXPECT_EQ(read.of(g).bounded(), g == f) << rule_name << " row " << kTerrainFields[f].name;
    }
    EXPECT_EQ(read.of(f).min, -2.5) << rule_name << "." << kTerrainFields[f].name;
    EXPECT_EQ(read.of(f).max, 7.0) << rule_name << "." << kTerrainFields[f].name;
  }
}

TEST(TerrainFieldsTest, RuleColumnsReachTheRangesOfTheirNames) {
  expect_column_reaches_its_range(&TerrainFieldSpec::biome, "Biome");
  expect_column_reaches_its_range(&TerrainFieldSpec::material, "Material");
  expect_column_reaches_its_range(&TerrainFieldSpec::check, "Check");
  expect_column_reaches_its_range(&TerrainFieldSpec::resource, "ResourceLayer");
}

TEST(TerrainFieldsTest, NoiseColumnReachesTheNoiseFieldOfItsName) {
  for (size_t f = 0; f < kTerrainFieldCount; ++f) {
    const TerrainFieldSpec& spec = kTerrainFields[f];
    v1::Terrain terrain;
    const FieldDescriptor* noise = field_named(terrain, spec.name);
    if (spec.noise == nullptr) {
      EXPECT_EQ(noise, nullptr) << "Terrain." << spec.name << " is not wired in kTerrainFields";
      continue;
    }
    ASSERT_NE(noise, nullptr) << spec.name;
    ASSERT_EQ(noise->message_type(), v1::NoiseField::descriptor()) << spec.name;
    static_cast<v1::NoiseField*>(terrain.GetReflection()->MutableMessage(&terrain, noise))
        ->set_offset(static_cast<double>(f) + 0.5);
    EXPECT_EQ((terrain.*spec.noise)().offset(), static_cast<double>(f) + 0.5) << spec.name;
  }
}

// terrain.cc computes slope from elevation and samples every other field from its own noise.
TEST(TerrainFieldsTest, SlopeIsTheOnlyFieldWithoutANoise) {
  for (size_t f = 0; f < kTerrainFieldCount; ++f) {
    EXPECT_EQ(kTerrainFields[f].noise == nullptr, f == kSlope) << kTerrainFields[f].name;
  }
}

TEST(TerrainFieldsTest, EveryNoiseFieldOfTerrainIsARow) {
  const google::protobuf::Descriptor& terrain = *v1::Terrain::descriptor();
  for (int i = 0; i < terrain.field_count(); ++i) {
    const FieldDescriptor& field = *terrain.field(i);
    if (field.message_type() != v1::NoiseField::descriptor()) continue;
    bool found = false;
    for (const TerrainFieldSpec& spec : kTerrainFields) found = found || spec.name == field.name();
    EXPECT_TRUE(found) << "Terrain." << field.name() << " has no row in kTerrainFields";
  }
}

TEST(TerrainFieldsTest, SampleMessageHasEveryField) {
  for (const TerrainFieldSpec& spec : kTerrainFields) {
    const FieldDescriptor* field = field_named(v1::TerrainSample(), spec.name);
    ASSERT_NE(field, nullptr) << "info.proto TerrainSample lacks " << spec.name;
    EXPECT_EQ(field->cpp_type(), FieldDescriptor::CPPTYPE_DOUBLE) << spec.name;
  }
}

TEST(TerrainFieldsTest, NamesFindTheirRows) {
  EXPECT_EQ(kTerrainFields[kElevation].name, "elevation");
  EXPECT_EQ(kTerrainFields[kSlope].name, "slope");
  EXPECT_EQ(kTerrainFields[terrain_field("moisture")].name, "moisture");
}

TEST(TerrainFieldsTest, BoundsHoldOnlyInsideEveryInterval) {
  TerrainBounds bounds;
  EXPECT_FALSE(bounds.bounded());
  TerrainValues values{};
  EXPECT_TRUE(bounds.contains(values));
  bounds.set(kSlope, Interval{.max = 0.5});
  EXPECT_TRUE(bounds.bounded());
  EXPECT_EQ(bounds.of(kSlope).max, 0.5);
  EXPECT_FALSE(bounds.of(kElevation).bounded());
  values[kSlope] = 0.5;
  EXPECT_TRUE(bounds.contains(values));
  values[kSlope] = 0.75;
  EXPECT_FALSE(bounds.contains(values));
  bounds.set(kSlope, Interval{});  // unbounded: the condition goes
  EXPECT_FALSE(bounds.bounded());
  EXPECT_TRUE(bounds.contains(values));
}

}  // namespace
}  // namespace chunkforge
