// Generator version 3's rule (docs/resources.md, "Generator version 3"): a blue_noise point
// keeps its own spacing from the earlier points of its layer, not the larger of the two. Seen
// from the objects (the spacing each pair keeps, and where the rule changes nothing), and from
// inside the scatter field: the arrival-order sweep, whose inner cells look only as far as
// their own spacing, places what the lazy resolution places.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "chunkforge/chunk.h"
#include "chunkforge/hash.h"
#include "chunkforge/quality.h"
#include "chunkforge/world.h"
#include "scatter/field.h"

namespace chunkforge {
namespace {

World build(const v1::WorldDefinition& definition) {
  WorldResult r = World::create(definition);
  if (!r.ok()) throw std::runtime_error("invalid test world: " + r.errors.front().to_string());
  return *r.world;
}

v1::WorldDefinition at_version(v1::WorldDefinition d, uint32_t version) {
  d.set_generator_version(version);
  return d;
}

// The default world's forest alone, without threshold, filters or structures, whose spacing
// goes from 3 to 12 (`steep`: from 2 to 16 within a few units, a sharp high-frequency density).
v1::WorldDefinition forest_only(bool steep) {
  v1::WorldDefinition d = default_world().definition();
  v1::ResourceLayer forest = d.resources(0);
  forest.clear_biomes();
  forest.clear_materials();
  forest.clear_max_slope();
  forest.set_density_threshold(0);
  if (steep) {
    forest.mutable_density_range()->set_min(1.0 / 8);
    forest.mutable_density_range()->set_max(1);
    forest.set_spacing_scale(2);
    forest.set_sharpness(8);
    forest.set_sparsity(0.1);
  }
  d.clear_resources();
  *d.add_resources() = forest;
  d.clear_structures();
  d.set_seed(7);
  return d;
}

// Same-layer pairs of blue_noise objects (brute force over a window): how many are closer than
// the smaller of their spacings (never allowed) and closer than the larger (version 2 never
// allows it; version 3 does where spacing varies).
struct SameLayerPairs {
  uint64_t checked = 0, cross_chunk = 0, below_min = 0, below_max = 0;
};

SameLayerPairs same_layer_pairs(const World& world, const RegionPoints& points) {
  SameLayerPairs out;
  for (size_t a = 0; a < points.objects.size(); ++a) {
    const PlacedObject& pa = points.objects[a];
    if (world.resources().layer(pa.layer).method != ScatterMethod::kBlueNoise) continue;
    for (size_t b = a + 1; b < points.objects.size(); ++b) {
      const PlacedObject& pb = points.objects[b];
      if (pb.layer != pa.layer) continue;
      const double d = std::hypot(pa.x - pb.x, pa.z - pb.z);
      if (d >= 2 * std::max(pa.r, pb.r)) continue;
      ++out.checked;
      if (!(pa.chunk == pb.chunk)) ++out.cross_chunk;
      if (d < std::min(pa.r, pb.r) - 1e-9) ++out.below_min;
      if (d < std::max(pa.r, pb.r) - 1e-9) ++out.below_max;
    }
  }
  return out;
}

TEST(ScatterOwnSpacingTest, Version3KeepsEachPointsOwnSpacingAcrossChunkBorders) {
  const v1::WorldDefinition d = default_world().definition();
  const World v2 = build(at_version(d, 2)), v3 = build(at_version(d, 3));
  const RegionPoints p2 = generate_region(v2, {-3, 2}, 6), p3 = generate_region(v3, {-3, 2}, 6);
  const SameLayerPairs s2 = same_layer_pairs(v2, p2), s3 = same_layer_pairs(v3, p3);
  EXPECT_GT(s3.checked, 1000u);
  EXPECT_GT(s3.cross_chunk, 100u);
  EXPECT_EQ(s3.below_min, 0u);
  EXPECT_GT(s3.below_max, 0u) << "version 3's rule was not exercised";
  EXPECT_EQ(s2.below_max, 0u) << "version 2 keeps the larger spacing";
  // check_spacing knows each version's promise: nothing to report for either.
  for (const auto* points : {&p2, &p3}) {
    const SpacingReport report = check_spacing(points == &p2 ? v2 : v3, *points);
    EXPECT_EQ(report.violations, 0u);
    EXPECT_GT(report.pairs_checked, 1000u);
  }
}

// Where the spacing does not vary the larger spacing is the own one: the same objects.
TEST(ScatterOwnSpacingTest, Version3PlacesVersion2sObjectsAtConstantDensity) {
  v1::WorldDefinition d = forest_only(false);
  d.mutable_resources(0)->mutable_density_range()->set_min(1);
  d.mutable_resources(0)->mutable_density_range()->set_max(1);
  d.mutable_resources(0)->set_spacing_scale(2);
  const World v2 = build(at_version(d, 2)), v3 = build(at_version(d, 3));
  size_t objects = 0;
  for (const ChunkCoord c : {ChunkCoord{0, 0}, ChunkCoord{-5, 3}, ChunkCoord{1000, -7}}) {
    const ChunkData a = Generator(v2).generate(c), b = Generator(v3).generate(c);
    ASSERT_EQ(a.objects.size(), b.objects.size());
    for (size_t k = 0; k < a.objects.size(); ++k) {
      EXPECT_EQ(a.objects[k].id, b.objects[k].id);
      EXPECT_EQ(a.objects[k].x, b.objects[k].x);
      EXPECT_EQ(a.objects[k].z, b.objects[k].z);
    }
    objects += a.objects.size();
  }
  EXPECT_GT(objects, 1000u);
}

// One layer's objects of `chunks` straight from a ScatterField: a fresh field per chunk (cold)
// or one for all (streamed).
std::vector<ResourceObject> field_objects(const World& world, ScatterRules rules, const std::vector<ChunkCoord>& chunks,
                                          bool streamed) {
  std::vector<ResourceObject> out;
  ScatterField shared(world.resources(), world.terrain(), world.seed(), nullptr, rules);
  for (const ChunkCoord& c : chunks) {
    ScatterField cold(world.resources(), world.terrain(), world.seed(), nullptr, rules);
    for (const ResourceObject& o : (streamed ? shared : cold).objects_in_chunk(c)) {
      if (o.layer == 0) out.push_back(o);
    }
  }
  return out;
}

std::vector<ChunkCoord> shuffled_window(ChunkCoord origin, int64_t n) {
  std::vector<ChunkCoord> out;
  for (int64_t z = 0; z < n; ++z) {
    for (int64_t x = 0; x < n; ++x) out.push_back({origin.x + x, origin.z + z});
  }
  for (size_t i = out.size(); i > 1; --i) std::swap(out[i - 1], out[hash(4, salt("test.shuffle"), i) % i]);
  return out;
}

// A layer alone is swept in arrival order (sweep.cc: inner cells decided by one scan within
// their own spacing); beside a second layer, under rules that let other layers block, it is
// resolved lazily cell by cell. A second layer that is never viable blocks nothing, so both
// place the same objects, at varying and steeply varying spacing, cold and streamed. (Taking
// every cell as inner makes this fail.)
TEST(ScatterOwnSpacingTest, TheArrivalOrderSweepPlacesWhatTheLazyResolutionPlaces) {
  const ScatterRules swept_rules{.threshold_gates_sampling = true, .layers_sampled_apart = true, .own_spacing = true};
  const ScatterRules lazy_rules{.own_spacing = true};
  for (const bool steep : {false, true}) {
    SCOPED_TRACE(steep ? "steep" : "forest");
    const v1::WorldDefinition alone = at_version(forest_only(steep), 3);
    v1::WorldDefinition with_inert = alone;
    v1::ResourceLayer& inert = *with_inert.add_resources();
    inert = alone.resources(0);
    inert.set_name("inert");
    inert.set_spacing_scale(8);
    inert.set_footprint_radius(0.1);
    inert.mutable_elevation()->set_min(1e8);  // never met: no candidate of it is viable
    const std::vector<ChunkCoord> chunks = shuffled_window({-3, 2}, 5);
    const std::vector<ResourceObject> expected = field_objects(build(with_inert), lazy_rules, chunks, false);
    ASSERT_GT(expected.size(), 200u);
    for (const bool streamed : {false, true}) {
      const std::vector<ResourceObject> got = field_objects(build(alone), swept_rules, chunks, streamed);
      ASSERT_EQ(got.size(), expected.size()) << "streamed " << streamed;
      for (size_t k = 0; k < got.size(); ++k) {
        ASSERT_EQ(got[k].id, expected[k].id) << "object " << k << ", streamed " << streamed;
        ASSERT_EQ(got[k].x, expected[k].x);
        ASSERT_EQ(got[k].z, expected[k].z);
      }
    }
  }
}

}  // namespace
}  // namespace chunkforge
