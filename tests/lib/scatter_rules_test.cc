// The scatter rules of generator version 2 (docs/resources.md, "Generator version 2"), seen from
// the objects: each layer sampled apart, other layers' objects removing points rather than
// blocking them; sampling only where a layer's density reaches its threshold. Version 1 stays
// as it was (golden_test.cc pins both).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "chunkforge/chunk.h"
#include "chunkforge/world.h"

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

// d with only the layer named `keep` (and the layer its density correlates with).
v1::WorldDefinition only_layer(v1::WorldDefinition d, const std::string& keep) {
  std::string partner;
  for (const auto& l : d.resources()) {
    if (l.name() == keep && l.has_correlate_with()) partner = l.correlate_with().layer();
  }
  auto* layers = d.mutable_resources();
  layers->erase(std::remove_if(layers->begin(), layers->end(),
                               [&](const auto& l) { return l.name() != keep && l.name() != partner; }),
                layers->end());
  return d;
}

struct Placed {
  std::string layer;
  double x, z;  // world units
  uint64_t id;
  double footprint;
};

// Every object of chunks [x0, x0 + n) x [z0, z0 + n), in world coordinates.
std::vector<Placed> objects_in(const World& world, int64_t x0, int64_t z0, int64_t n) {
  std::vector<Placed> out;
  ChunkStream stream(world);
  const double size = static_cast<double>(world.chunk_size());
  for (int64_t z = z0; z < z0 + n; ++z) {
    for (int64_t x = x0; x < x0 + n; ++x) {
      for (const ResourceObject& o : stream.generate({x, z}).objects) {
        const ResourceLayer& l = world.resources().layer(o.layer);
        const double cx = static_cast<double>(x) * size, cz = static_cast<double>(z) * size;
        out.push_back(Placed{l.name, cx + o.x, cz + o.z, o.id, l.footprint});
      }
    }
  }
  return out;
}

bool contains(const std::vector<Placed>& objects, const Placed& p) {
  return std::any_of(objects.begin(), objects.end(), [&](const Placed& o) { return o.id == p.id && o.x == p.x; });
}

// Version 2: a layer's objects in the whole world are its objects alone, less the ones another
// layer's object stands on (within the footprint sum). Version 1 lets other layers block darts,
// so a layer's points move when another layer is added.
TEST(ScatterRulesTest, Version2SamplesEachLayerApart) {
  const v1::WorldDefinition d = at_version(default_world().definition(), 2);
  const World whole = build(d);
  const std::vector<Placed> all = objects_in(whole, 40, -12, 6);
  size_t removed = 0, kept = 0;
  for (const char* name : {"forest", "iron", "coal", "boulders"}) {
    SCOPED_TRACE(name);
    const std::vector<Placed> alone = objects_in(build(only_layer(d, name)), 40, -12, 6);
    for (const Placed& p : alone) {
      if (p.layer != name) continue;  // the correlated partner, compared on its own turn
      if (contains(all, p)) {
        ++kept;
        continue;
      }
      ++removed;
      const bool stood_on = std::any_of(all.begin(), all.end(), [&](const Placed& o) {
        const double reach = o.footprint + p.footprint;
        return o.layer != p.layer && (o.x - p.x) * (o.x - p.x) + (o.z - p.z) * (o.z - p.z) < reach * reach;
      });
      EXPECT_TRUE(stood_on) << "object " << p.id << " at " << p.x << ", " << p.z << " vanished with no rival";
    }
    for (const Placed& o : all) {
      if (o.layer != name) continue;
      EXPECT_TRUE(contains(alone, o)) << "object " << o.id << " is not the layer's own";
    }
  }
  EXPECT_GT(kept, 500u);
  EXPECT_GT(removed, 0u);  // the rule was exercised
}

// Version 2 samples only where the density reaches the threshold: no point below it blocks one
// above, so more objects stand along the threshold's edge than with version 1 (same world,
// same layer alone, so no other rule differs).
TEST(ScatterRulesTest, Version2SamplesOnlyWhereTheThresholdIsReached) {
  const v1::WorldDefinition forest = only_layer(default_world().definition(), "forest");
  const size_t v1_count = objects_in(build(at_version(forest, 1)), -4, -4, 8).size();
  const size_t v2_count = objects_in(build(at_version(forest, 2)), -4, -4, 8).size();
  EXPECT_GT(v2_count, v1_count + v1_count / 20) << "v1 " << v1_count << ", v2 " << v2_count;
}

}  // namespace
}  // namespace chunkforge
