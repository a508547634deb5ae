// The scatter method records (lib/src/scatter/method.h) against the proto's enumeration: every
// value world.proto names compiles to the method of that name, with that method's cell size,
// and a number the proto does not name is a validation error, never a silent default.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "chunkforge/v1/world.pb.h"
#include "chunkforge/world.h"
#include "scatter/method.h"

namespace chunkforge {
namespace {

v1::WorldDefinition with_method(int method) {
  v1::WorldDefinition d = default_world().definition();
  d.mutable_resources(0)->set_method(static_cast<v1::ResourceLayer::Method>(method));
  return d;
}

TEST(ScatterMethodTest, EveryProtoMethodCompilesToTheRecordOfItsName) {
  const auto* methods = v1::ResourceLayer::Method_descriptor();
  ASSERT_EQ(methods->value_count(), 5) << "a new method: add its record in lib/src/scatter/method.cc";
  for (int v = 0; v < methods->value_count(); ++v) {
    const std::string name = methods->value(v)->name();
    WorldResult r = World::create(with_method(methods->value(v)->number()));
    ASSERT_TRUE(r.ok()) << name;
    const ResourceLayer& layer = r.world->resources().layer(0);
    EXPECT_EQ(to_string(layer.method), name);
    const scatter::MethodRecord& record = scatter::method_record(layer.method);
    EXPECT_EQ(layer.cells_per_chunk, record.cells_per_chunk(layer, r.world->resources().chunk_size())) << name;
    // Only blue noise promises spacing within its layer, and only a spaced method may merge
    // cells: a coarse cell must still hold at most one accepted point.
    EXPECT_EQ(record.spaced, name == "blue_noise") << name;
    EXPECT_TRUE(!record.coarse_cells || record.spaced) << name;
  }
}

TEST(ScatterMethodTest, BlueNoiseCellsAreSmallEnoughToHoldOnePoint) {
  WorldResult r = World::create(with_method(v1::ResourceLayer::blue_noise));
  ASSERT_TRUE(r.ok());
  const ResourceLayer& layer = r.world->resources().layer(0);
  const double side = static_cast<double>(r.world->resources().chunk_size()) / layer.cells_per_chunk;
  EXPECT_LT(side * std::sqrt(2.0), layer.r_min());
}

// Blue noise keeps dart k iff its thinning draw is below keep = (r_min * span / r)^2; the record
// tests that on the draw's integer byte. Both must agree for every draw, also where keep * 256
// is a whole number (r = 2 r_min and 4 r_min: keep 1/4 and 1/16 exactly), where a draw equal to
// keep is not kept.
TEST(ScatterMethodTest, BlueNoiseThinningKeepsTheDartsWhoseDrawIsBelowKeep) {
  WorldResult created = World::create(with_method(v1::ResourceLayer::blue_noise));
  ASSERT_TRUE(created.ok());
  const ResourceLayer& layer = created.world->resources().layer(0);
  const scatter::MethodRecord& record = scatter::method_record(layer.method);
  for (int step = 0; step <= 192; ++step) {
    const double r = layer.r_min() * (1.0 + step / 64.0);
    const scatter::CellView cell{1, r, layer.spacing / r, false};
    const double ratio = layer.r_min() / r, keep = ratio * ratio;  // as the record computes it
    for (int64_t i = 0; i < 200; ++i) {
      const scatter::CellDraws draws(12345, i, step, 1);
      uint32_t expected = 0;
      for (uint32_t k = 0; k < scatter::kDartsPerCell; ++k) {
        if (keep >= 1.0 || draws.thinning(k) < keep) expected |= 1u << k;
      }
      ASSERT_EQ(record.kept(layer, cell, draws), expected) << "keep " << keep << " cell " << i;
    }
  }
}

TEST(ScatterMethodTest, AnUnknownMethodNumberIsAValidationError) {
  const WorldResult r = World::create(with_method(17));
  ASSERT_FALSE(r.ok());
  bool names_method = false;
  for (const FieldError& e : r.errors) names_method |= e.to_string().find("method") != std::string::npos;
  EXPECT_TRUE(names_method);
}

}  // namespace
}  // namespace chunkforge
