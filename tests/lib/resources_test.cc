// Resource layers (docs/resources.md) through the public API: spacing with no
// violations across chunk borders and layers, byte-identical chunks in any order and on any
// thread, blue-noise quality, seam-band density, density fidelity, the other scatter methods,
// filters, thresholds, correlation between layers, and object invariants, near the origin and
// 2^40 units away.
//
// The measured figures are printed as "[ measure ] name = value" lines (and recorded as test
// properties), so a run shows how far each bar is from failing.
#include <google/protobuf/descriptor.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "chunkforge/chunk.h"
#include "chunkforge/encode.h"
#include "chunkforge/hash.h"
#include "chunkforge/quality.h"
#include "chunkforge/world.h"
#include "world_at_limits.h"

namespace chunkforge {
namespace {

// --- helpers -------------------------------------------------------------------------------

void measure(const std::string& name, double value) {
  testing::Test::RecordProperty(name, std::to_string(value));
  std::cout << "[ measure  ] " << name << " = " << value << '\n';
}

World build(const v1::WorldDefinition& definition) {
  WorldResult r = World::create(definition);
  if (!r.ok()) {
    std::string errors;
    for (const FieldError& e : r.errors) errors += e.to_string() + "\n";
    throw std::runtime_error("invalid test world:\n" + errors);
  }
  return *r.world;
}

int layer_index(const v1::WorldDefinition& d, const std::string& name) {
  for (int i = 0; i < d.resources_size(); ++i) {
    if (d.resources(i).name() == name) return i;
  }
  throw std::runtime_error("no layer " + name);
}

uint32_t layer_id(const World& world, const std::string& name) {
  return static_cast<uint32_t>(layer_index(world.definition(), name));
}

v1::WorldDefinition with_seed(v1::WorldDefinition d, uint64_t seed) {
  d.set_seed(seed);
  return d;
}

void clear_filters_and_threshold(v1::ResourceLayer& layer) {
  layer.clear_biomes();
  layer.clear_materials();
  layer.clear_elevation();
  layer.clear_max_slope();
  layer.set_density_threshold(0);
}

// The default world reduced to its forest layer, without threshold, filters or structures
// (structures leave holes); density range, spacing and noise as in the default world.
v1::WorldDefinition forest_only(uint64_t seed) {
  v1::WorldDefinition d = default_world().definition();
  v1::ResourceLayer forest = d.resources(layer_index(d, "forest"));
  clear_filters_and_threshold(forest);
  d.clear_resources();
  *d.add_resources() = forest;
  d.clear_structures();
  d.set_seed(seed);
  return d;
}

// forest_only at constant density 1 and spacing 2: the quality window of docs/resources.md.
v1::WorldDefinition constant_forest(uint64_t seed) {
  v1::WorldDefinition d = forest_only(seed);
  v1::ResourceLayer& forest = *d.mutable_resources(0);
  forest.mutable_density_range()->set_min(1);
  forest.mutable_density_range()->set_max(1);
  forest.set_spacing_scale(2);
  return d;
}

v1::WorldDefinition with_method(v1::WorldDefinition d, v1::ResourceLayer::Method method) {
  d.mutable_resources(0)->set_method(method);
  return d;
}

std::vector<ChunkCoord> window(ChunkCoord origin, int64_t chunks) {
  std::vector<ChunkCoord> out;
  for (int64_t dz = 0; dz < chunks; ++dz) {
    for (int64_t dx = 0; dx < chunks; ++dx) out.push_back({origin.x + dx, origin.z + dz});
  }
  return out;
}

// Centre first, ring by ring (a player's view filling in).
std::vector<ChunkCoord> spiral(ChunkCoord origin, int64_t chunks) {
  std::vector<ChunkCoord> out = window(origin, chunks);
  const int64_t cx = origin.x + chunks / 2, cz = origin.z + chunks / 2;
  auto ring = [&](const ChunkCoord& c) { return std::max(std::abs(c.x - cx), std::abs(c.z - cz)); };
  std::stable_sort(out.begin(), out.end(), [&](const ChunkCoord& a, const ChunkCoord& b) { return ring(a) < ring(b); });
  return out;
}

// A fixed pseudo-random permutation (Fisher-Yates over counter-based hashes).
std::vector<ChunkCoord> shuffled(std::vector<ChunkCoord> coords, uint64_t seed) {
  for (size_t i = coords.size(); i > 1; --i) {
    const size_t j = static_cast<size_t>(hash(seed, salt("test.shuffle"), i) % i);
    std::swap(coords[i - 1], coords[j]);
  }
  return coords;
}

// Canonical chunk hashes keyed by chunk coordinate.
using Hashes = std::map<std::pair<int64_t, int64_t>, uint64_t>;

uint64_t hash_of(const World& world, const ChunkData& data) { return chunk_hash(encode_chunk(world, data)); }

Hashes cold_hashes(const World& world, const std::vector<ChunkCoord>& coords) {
  const Generator generator(world);
  Hashes out;
  for (const ChunkCoord& c : coords) out[{c.x, c.z}] = hash_of(world, generator.generate(c));
  return out;
}

Hashes streamed_hashes(const World& world, const std::vector<ChunkCoord>& coords, size_t max_cells = 65536) {
  ChunkStream stream(world, max_cells);
  Hashes out;
  for (const ChunkCoord& c : coords) out[{c.x, c.z}] = hash_of(world, stream.generate(c));
  return out;
}

// Two threads, each with its own ChunkStream, taking alternate chunks of `coords`.
Hashes two_thread_hashes(const World& world, const std::vector<ChunkCoord>& coords) {
  Hashes part[2];
  auto work = [&](int t) {
    ChunkStream stream(world);
    for (size_t k = static_cast<size_t>(t); k < coords.size(); k += 2) {
      part[t][{coords[k].x, coords[k].z}] = hash_of(world, stream.generate(coords[k]));
    }
  };
  std::thread other(work, 1);
  work(0);
  other.join();
  Hashes out = part[0];
  out.insert(part[1].begin(), part[1].end());
  return out;
}

// Like generate_region, but through one ChunkStream (same objects, cheaper): for properties
// that are not about cold generation.
RegionPoints streamed_region(const World& world, ChunkCoord origin, int64_t chunks) {
  RegionPoints out;
  out.origin = origin;
  out.chunks = chunks;
  out.chunk_size = static_cast<double>(world.chunk_size());
  ChunkStream stream(world);
  for (const ChunkCoord& c : window(origin, chunks)) {
    const double ox = static_cast<double>(c.x - origin.x) * out.chunk_size;
    const double oz = static_cast<double>(c.z - origin.z) * out.chunk_size;
    for (const ResourceObject& o : stream.generate(c).objects) {
      const ResourceLayer& l = world.resources().layer(o.layer);
      out.objects.push_back(PlacedObject{o.layer, ox + o.x, oz + o.z, l.spacing / o.density, c});
    }
  }
  return out;
}

// The chunks of a window with their objects, through one ChunkStream.
std::vector<ChunkData> streamed_chunks(const World& world, ChunkCoord origin, int64_t chunks) {
  ChunkStream stream(world);
  std::vector<ChunkData> out;
  for (const ChunkCoord& c : window(origin, chunks)) out.push_back(stream.generate(c));
  return out;
}

size_t count_of(const RegionPoints& points, uint32_t layer) {
  return static_cast<size_t>(std::count_if(points.objects.begin(), points.objects.end(),
                                           [&](const PlacedObject& p) { return p.layer == layer; }));
}

// An independent brute-force spacing check (a bucket grid, every pair once), counting per pair
// of layers the pairs within twice their conflict distance ("near") and those closer than it.
struct PairCounts {
  uint64_t near = 0, near_cross_chunk = 0, violations = 0;
};
using PairTable = std::map<std::pair<uint32_t, uint32_t>, PairCounts>;

PairTable reference_spacing(const World& world, const RegionPoints& points) {
  const ResourceLayers& layers = world.resources();
  double reach = 0;
  for (const ResourceLayer& l : layers.all()) reach = std::max({reach, 2 * l.footprint, l.r_max()});
  const double cell = 2 * reach;
  std::map<std::pair<int64_t, int64_t>, std::vector<size_t>> grid;
  auto key = [&](double x, double z) {
    return std::pair<int64_t, int64_t>(static_cast<int64_t>(std::floor(x / cell)),
                                       static_cast<int64_t>(std::floor(z / cell)));
  };
  for (size_t k = 0; k < points.objects.size(); ++k) {
    grid[key(points.objects[k].x, points.objects[k].z)].push_back(k);
  }
  PairTable table;
  for (size_t a = 0; a < points.objects.size(); ++a) {
    const PlacedObject& pa = points.objects[a];
    const auto [i, j] = key(pa.x, pa.z);
    for (int64_t dj = -1; dj <= 1; ++dj) {
      for (int64_t di = -1; di <= 1; ++di) {
        auto it = grid.find({i + di, j + dj});
        if (it == grid.end()) continue;
        for (size_t b : it->second) {
          if (b <= a) continue;
          const PlacedObject& pb = points.objects[b];
          const ResourceLayer& la = layers.layer(pa.layer);
          const ResourceLayer& lb = layers.layer(pb.layer);
          double conflict = 0;
          if (pa.layer != pb.layer) {
            conflict = la.footprint + lb.footprint;
          } else if (la.method == ScatterMethod::kBlueNoise) {
            conflict = std::max(pa.r, pb.r);
          } else {
            continue;
          }
          const double d = std::hypot(pa.x - pb.x, pa.z - pb.z);
          if (d >= 2 * conflict) continue;
          PairCounts& c = table[{std::min(pa.layer, pb.layer), std::max(pa.layer, pb.layer)}];
          ++c.near;
          if (!(pa.chunk == pb.chunk)) ++c.near_cross_chunk;
          if (d < conflict - 1e-9) ++c.violations;
        }
      }
    }
  }
  return table;
}

std::string describe(const World& world, const PairTable& table) {
  std::string out;
  for (const auto& [pair, c] : table) {
    out += world.resources().layer(pair.first).name + "/" + world.resources().layer(pair.second).name + ": near " +
           std::to_string(c.near) + " (cross-chunk " + std::to_string(c.near_cross_chunk) + "), violations " +
           std::to_string(c.violations) + "\n";
  }
  return out;
}

// check_spacing finds nothing, and so does the reference check, with pairs actually checked.
void expect_well_spaced(const World& world, const RegionPoints& points, const std::string& label) {
  const SpacingReport report = check_spacing(world, points);
  measure(label + ".objects", static_cast<double>(points.objects.size()));
  measure(label + ".pairs_checked", static_cast<double>(report.pairs_checked));
  measure(label + ".violations", static_cast<double>(report.violations));
  EXPECT_EQ(report.violations, 0u) << label;
  EXPECT_EQ(report.cross_chunk, 0u) << label;
  EXPECT_EQ(report.same_layer_violations, 0u) << label;
  EXPECT_GT(report.pairs_checked, 0u) << label << ": the check would pass vacuously";

  const PairTable table = reference_spacing(world, points);
  uint64_t near = 0, cross = 0;
  for (const auto& [pair, c] : table) {
    EXPECT_EQ(c.violations, 0u) << label << "\n" << describe(world, table);
    near += c.near;
    cross += c.near_cross_chunk;
  }
  EXPECT_EQ(near, report.pairs_checked) << label << ": check_spacing and the reference disagree";
  EXPECT_GT(cross, 0u) << label << ": no pair across a chunk border was checked";
}

// Pearson correlation over square bins of side `bin` between the number of `layer`'s points
// and target(x, z) at the bin centre (window-relative world units).
template <typename Target>
double count_correlation(const RegionPoints& points, uint32_t layer, double bin, Target target) {
  const int bins = static_cast<int>(static_cast<double>(points.chunks) * points.chunk_size / bin);
  std::vector<double> count(static_cast<size_t>(bins) * bins, 0.0), want(count.size());
  for (const PlacedObject& p : points.objects) {
    if (p.layer != layer) continue;
    const int i = static_cast<int>(p.x / bin), j = static_cast<int>(p.z / bin);
    if (i < bins && j < bins) count[static_cast<size_t>(j) * bins + i] += 1;
  }
  for (int j = 0; j < bins; ++j) {
    for (int i = 0; i < bins; ++i) want[static_cast<size_t>(j) * bins + i] = target((i + 0.5) * bin, (j + 0.5) * bin);
  }
  const double n = static_cast<double>(count.size());
  double mc = 0, mw = 0;
  for (size_t k = 0; k < count.size(); ++k) {
    mc += count[k] / n;
    mw += want[k] / n;
  }
  double cov = 0, vc = 0, vw = 0;
  for (size_t k = 0; k < count.size(); ++k) {
    cov += (count[k] - mc) * (want[k] - mw);
    vc += (count[k] - mc) * (count[k] - mc);
    vw += (want[k] - mw) * (want[k] - mw);
  }
  return vc > 0 && vw > 0 ? cov / std::sqrt(vc * vw) : 0;
}

// --- spacing ---------------------------------------------------------------------------------

TEST(ResourceSpacingTest, DefaultWorldHasNoViolationsOver32x32ColdChunks) {
  const World& world = default_world();
  const RegionPoints points = generate_region(world, {-16, -16}, 32);
  measure("default_32x32.cold_seconds", points.seconds);
  expect_well_spaced(world, points, "default_32x32");
  // Every layer is present, and every pair of layers that share ground was checked.
  for (const ResourceLayer& l : world.resources().all()) EXPECT_GT(count_of(points, l.id), 0u) << l.name;
  const PairTable table = reference_spacing(world, points);
  const uint32_t forest = layer_id(world, "forest"), iron = layer_id(world, "iron"), coal = layer_id(world, "coal");
  for (auto pair : {std::pair{forest, forest}, std::pair{forest, iron}, std::pair{forest, coal}, std::pair{iron, iron},
                    std::pair{iron, coal}, std::pair{coal, coal}}) {
    const auto it = table.find(pair);
    ASSERT_NE(it, table.end()) << world.resources().layer(pair.first).name << "/"
                               << world.resources().layer(pair.second).name << " never near";
    EXPECT_GT(it->second.near_cross_chunk, 0u) << describe(world, table);
  }
}

class ResourceSeedTest : public testing::TestWithParam<uint64_t> {};

TEST_P(ResourceSeedTest, OtherSeedsHaveNoViolations) {
  const World world = build(with_seed(default_world().definition(), GetParam()));
  const RegionPoints points = generate_region(world, {-6, -5}, 12);
  expect_well_spaced(world, points, "seed_" + std::to_string(GetParam()) + "_12x12");
}

INSTANTIATE_TEST_SUITE_P(Resource, ResourceSeedTest, testing::Values(uint64_t{1}, uint64_t{0x9e3779b97f4a7c15}));

TEST(ResourceSpacingTest, FarAwayChunksHaveNoViolations) {
  const World& world = default_world();
  const int64_t far = (int64_t{1} << 40) / world.chunk_size();
  // The last chunks inside +2^40 units, and the first ones from -2^40 units.
  for (const ChunkCoord origin : {ChunkCoord{far - 6, far - 6}, ChunkCoord{-far, -far}, ChunkCoord{far - 6, -far}}) {
    const RegionPoints points = generate_region(world, origin, 6);
    const std::string label = "far_" + std::to_string(origin.x) + "_" + std::to_string(origin.z);
    expect_well_spaced(world, points, label);
    for (const PlacedObject& p : points.objects) {
      ASSERT_GE(p.x, 0.0);
      ASSERT_LT(p.x, 6 * points.chunk_size);
      ASSERT_GE(p.z, 0.0);
      ASSERT_LT(p.z, 6 * points.chunk_size);
    }
  }
}

TEST(ResourceSpacingTest, FarAwayConstantDensityKeepsItsQuality) {
  // Far Lands would show as snapped or clumped positions: the quality must not drop.
  const World world = build(constant_forest(7));
  const int64_t far = (int64_t{1} << 40) / world.chunk_size();
  const RegionPoints points = streamed_region(world, {far - 6, -far}, 6);
  const PointStats s = point_stats(points, 0, 6);
  measure("far_constant.rho", s.rho);
  measure("far_constant.nn_cv", s.nn_cv);
  measure("far_constant.clark_evans", s.clark_evans);
  EXPECT_GE(s.rho, 0.73);
  EXPECT_LE(s.nn_cv, 0.09);
  EXPECT_GE(s.clark_evans, 1.65);
}

// --- order independence ----------------------------------------------------------------------

// The default world (generator version 2) and the same world run by version 3.
class ResourceOrderVersionTest : public testing::TestWithParam<uint32_t> {
 protected:
  static World world() {
    v1::WorldDefinition d = default_world().definition();
    d.set_generator_version(GetParam());
    return build(d);
  }
};

INSTANTIATE_TEST_SUITE_P(Resource, ResourceOrderVersionTest, testing::Values(2u, 3u),
                         [](const testing::TestParamInfo<uint32_t>& v) { return "v" + std::to_string(v.param); });

TEST_P(ResourceOrderVersionTest, CanonicalBytesDoNotDependOnOrderOrThreads) {
  const World world = this->world();
  const ChunkCoord origin{-5, -4};
  const std::vector<ChunkCoord> rows = window(origin, 10);
  const Hashes cold = cold_hashes(world, rows);
  ASSERT_EQ(cold.size(), 100u);
  EXPECT_EQ(streamed_hashes(world, rows), cold) << "one ChunkStream, row order";
  EXPECT_EQ(streamed_hashes(world, spiral(origin, 10)), cold) << "spiral order";
  EXPECT_EQ(streamed_hashes(world, shuffled(rows, 1)), cold) << "shuffled order";
  std::vector<ChunkCoord> backwards(rows.rbegin(), rows.rend());
  EXPECT_EQ(streamed_hashes(world, backwards), cold) << "reverse row order";
  // A tiny memo starts afresh every few chunks: warm and cold halves mixed.
  EXPECT_EQ(streamed_hashes(world, shuffled(rows, 2), 256), cold) << "shuffled, memo reset";
  EXPECT_EQ(two_thread_hashes(world, shuffled(rows, 3)), cold) << "two threads";
  // The chunks differ from each other (a constant hash would pass all of the above).
  std::set<uint64_t> distinct;
  for (const auto& [c, h] : cold) distinct.insert(h);
  EXPECT_GT(distinct.size(), 90u);
}

// The objects of `chunks` (one layer's, in canonical order), cold or through one ChunkStream.
std::vector<ResourceObject> objects_of(const World& world, const std::vector<ChunkCoord>& chunks, bool streamed) {
  const Generator generator(world);
  ChunkStream stream(world);
  std::vector<ResourceObject> out;
  for (const ChunkCoord& c : chunks) {
    for (const ResourceObject& o : (streamed ? stream.generate(c) : generator.generate(c)).objects) {
      if (o.layer == 0) out.push_back(o);
    }
  }
  return out;
}

// forest_only with a spacing that changes fast (from 2 to 16 within a few units: a sharp,
// high-frequency density), yet whose largest spacing leaves a chunk inner cells: a candidate
// there is now and then blocked only by a neighbour whose own, larger spacing reaches it from
// beyond the candidate's (the sweep's scan of far accepted cells).
v1::WorldDefinition steep_forest(uint64_t seed) {
  v1::WorldDefinition d = forest_only(seed);
  v1::ResourceLayer& forest = *d.mutable_resources(0);
  forest.mutable_density_range()->set_min(1.0 / 8);
  forest.mutable_density_range()->set_max(1);
  forest.set_spacing_scale(2);
  forest.set_sharpness(8);
  forest.set_sparsity(0.1);
  return d;
}

// A spaced layer whose acceptance depends on its own candidates alone is decided a chunk at a
// time in arrival order (lib/src/scatter/sweep.cc); with version 1's rules and a second layer it
// is decided by the lazy resolution, cell by cell. A second layer that is never viable (its
// elevation range is never met) blocks nothing, so both must place the same objects: the same
// forest at constant, varying and steeply varying density, cold and streamed.
TEST(ResourceOrderTest, TheArrivalOrderSweepPlacesWhatTheLazyResolutionPlaces) {
  const std::pair<const char*, v1::WorldDefinition> cases[] = {
      {"constant", constant_forest(7)}, {"forest", forest_only(7)}, {"steep", steep_forest(7)}};
  for (const auto& [name, definition] : cases) {
    v1::WorldDefinition alone = definition;
    alone.set_generator_version(1);
    v1::WorldDefinition with_inert = alone;
    v1::ResourceLayer& inert = *with_inert.add_resources();
    inert = alone.resources(0);
    inert.set_name("inert");
    inert.set_spacing_scale(8);
    inert.set_footprint_radius(0.1);
    inert.mutable_elevation()->set_min(1e8);  // never met: no candidate of it is viable
    const World swept = build(alone), lazy = build(with_inert);
    const std::vector<ChunkCoord> chunks = shuffled(window({-3, 2}, 5), 4);
    const std::vector<ResourceObject> expected = objects_of(lazy, chunks, false);
    ASSERT_GT(expected.size(), 300u) << name;
    for (const bool streamed : {false, true}) {
      const std::vector<ResourceObject> got = objects_of(swept, chunks, streamed);
      ASSERT_EQ(got.size(), expected.size()) << name << ", streamed " << streamed;
      for (size_t k = 0; k < got.size(); ++k) {
        ASSERT_EQ(got[k].id, expected[k].id) << "object " << k << ", " << name;
        ASSERT_EQ(got[k].x, expected[k].x);
        ASSERT_EQ(got[k].z, expected[k].z);
      }
    }
  }
}

TEST_P(ResourceOrderVersionTest, ChunkStreamEqualsColdChunkAfterAFarJump) {
  // Neighbours first, then a chunk far from them, then back: the memo must not leak.
  const World world = this->world();
  const Generator generator(world);
  ChunkStream stream(world);
  for (const ChunkCoord c : {ChunkCoord{0, 0}, ChunkCoord{1, 0}, ChunkCoord{1000, -1000}, ChunkCoord{0, 1},
                             ChunkCoord{-1, 0}, ChunkCoord{1000, -999}}) {
    EXPECT_EQ(hash_of(world, stream.generate(c)), hash_of(world, generator.generate(c))) << c.x << "," << c.z;
  }
}

// --- abandonment -----------------------------------------------------------------------------

// The world at every limit: a tenth of a second or more a chunk, long enough to abandon.
const World& world_at_limits() {
  static const World world = build(test::world_at_limits());
  return world;
}

TEST(GenerationAbandonTest, ARaisedFlagStopsAtOnceAndTheStreamRecovers) {
  const World& world = default_world();
  const std::atomic<bool> stop{true};
  EXPECT_THROW(Generator(world).generate({0, 0}, &stop), GenerationAbandoned);
  ChunkStream stream(world);
  EXPECT_THROW(stream.generate({0, 0}, &stop), GenerationAbandoned);
  EXPECT_EQ(hash_of(world, stream.generate({0, 0})), hash_of(world, Generator(world).generate({0, 0})));
}

TEST(GenerationAbandonTest, AFlagThatStaysDownChangesNothing) {
  const World& world = default_world();
  const std::atomic<bool> go_on{false};
  const Generator generator(world);
  ChunkStream stream(world);
  for (const ChunkCoord& c : window({-2, -2}, 4)) {
    EXPECT_EQ(hash_of(world, stream.generate(c, &go_on)), hash_of(world, generator.generate(c))) << c.x << "," << c.z;
    EXPECT_EQ(hash_of(world, generator.generate(c, &go_on)), hash_of(world, generator.generate(c)));
  }
}

// Raised from another thread while a stream works through chunks of the costliest world the
// limits allow: the generation in progress stops within milliseconds, and the stream then
// generates exactly what a fresh Generator does, the chunk that was cut off included.
TEST(GenerationAbandonTest, ARunningGenerationStopsPromptlyAndTheStreamRecovers) {
  using Clock = std::chrono::steady_clock;
  const World& world = world_at_limits();
  ChunkStream stream(world);
  std::atomic<bool> stop{false};
  Clock::time_point raised;
  std::thread raiser([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    raised = Clock::now();
    stop.store(true);
  });
  int64_t done = 0;
  std::optional<Clock::time_point> stopped;
  try {
    for (; done < 1000; ++done) stream.generate({done, 0}, &stop);
  } catch (const GenerationAbandoned&) {
    stopped = Clock::now();
  }
  raiser.join();
  ASSERT_TRUE(stopped.has_value()) << "1000 chunks took less than 150 ms: the world is no longer expensive";
  const double latency_ms = std::chrono::duration<double, std::milli>(*stopped - raised).count();
  measure("abandon.latency_ms", latency_ms);
  EXPECT_LT(latency_ms, 50) << "a generation must notice the flag within milliseconds";
  const Generator fresh(world);
  for (const ChunkCoord c : {ChunkCoord{done, 0}, ChunkCoord{done + 1, 0}, ChunkCoord{done, 1}}) {
    EXPECT_EQ(hash_of(world, stream.generate(c)), hash_of(world, fresh.generate(c))) << c.x << "," << c.z;
  }
}

// --- quality ---------------------------------------------------------------------------------

class ResourceQualityTest : public testing::TestWithParam<uint64_t> {};

TEST_P(ResourceQualityTest, ConstantDensityIsBlueNoiseWithoutSeams) {
  const World world = build(constant_forest(GetParam()));
  const double r = 2;
  const RegionPoints points = streamed_region(world, {-8, -8}, 16);
  const PointStats s = point_stats(points, 0, 3 * r);
  const double seam = seam_ratio(points, 0, r);
  const std::string label = "constant_seed_" + std::to_string(GetParam());
  measure(label + ".points", static_cast<double>(s.points));
  measure(label + ".rho", s.rho);
  measure(label + ".nn_cv", s.nn_cv);
  measure(label + ".clark_evans", s.clark_evans);
  measure(label + ".seam_ratio", seam);
  ASSERT_GT(s.points, 100000u);
  EXPECT_GE(s.rho, 0.73);
  EXPECT_LE(s.nn_cv, 0.09);
  EXPECT_GE(s.clark_evans, 1.65);
  EXPECT_GE(seam, 0.97);
  EXPECT_LE(seam, 1.03);
}

INSTANTIATE_TEST_SUITE_P(Resource, ResourceQualityTest,
                         testing::Values(uint64_t{20261122}, uint64_t{1}, uint64_t{0xfeedface12345678}));

TEST(ResourceQualityTest, VariableDensityFollowsTheTargetWithoutSeams) {
  const World world = build(forest_only(default_world().seed()));
  const ResourceLayer& forest = world.resources().layer(0);
  // 32 x 32 chunks, not 16 x 16: with variable density a 16 x 16 window holds ~14k points and
  // the seam ratio's sampling noise alone spans 0.978-1.038 over seeds; at 32 x 32 it is
  // 0.991-1.010, so the +-3% bar measures seams rather than luck.
  const RegionPoints points = streamed_region(world, {-16, -16}, 32);
  const double fidelity = density_fidelity(world, points, 0, 32);
  const double seam = seam_ratio(points, 0, forest.r_min());
  measure("variable.points", static_cast<double>(points.objects.size()));
  measure("variable.fidelity", fidelity);
  measure("variable.seam_ratio", seam);
  EXPECT_GE(fidelity, 0.9);
  EXPECT_GE(seam, 0.97);
  EXPECT_LE(seam, 1.03);
  // Variable spacing holds too.
  expect_well_spaced(world, points, "variable");
}

// --- scatter methods -------------------------------------------------------------------------

struct MethodCase {
  std::string name;
  v1::ResourceLayer::Method method;
};
void PrintTo(const MethodCase& c, std::ostream* out) { *out << c.name; }

// Every method world.proto names, from its descriptor: a new one is tested without anyone
// listing it here.
std::vector<MethodCase> every_method() {
  const google::protobuf::EnumDescriptor* methods = v1::ResourceLayer::Method_descriptor();
  std::vector<MethodCase> out;
  for (int k = 0; k < methods->value_count(); ++k) {
    const google::protobuf::EnumValueDescriptor* value = methods->value(k);
    out.push_back({std::string(value->name()), static_cast<v1::ResourceLayer::Method>(value->number())});
  }
  return out;
}

class ResourceMethodTest : public testing::TestWithParam<MethodCase> {};

TEST_P(ResourceMethodTest, GeneratesDeterministicOrderIndependentChunks) {
  const World world = build(with_method(forest_only(default_world().seed()), GetParam().method));
  const ChunkCoord origin{-2, -2};
  const std::vector<ChunkCoord> rows = window(origin, 5);
  const Generator generator(world);
  size_t objects = 0;
  for (const ChunkCoord& c : rows) {
    const ChunkData a = generator.generate(c), b = generator.generate(c);
    objects += a.objects.size();
    EXPECT_EQ(hash_of(world, a), hash_of(world, b)) << c.x << "," << c.z;
  }
  measure(std::string(GetParam().name) + ".objects_5x5", static_cast<double>(objects));
  EXPECT_GT(objects, 25u);
  const Hashes cold = cold_hashes(world, rows);
  EXPECT_EQ(streamed_hashes(world, shuffled(rows, 4)), cold);
  EXPECT_EQ(streamed_hashes(world, spiral(origin, 5)), cold);
}

INSTANTIATE_TEST_SUITE_P(Resource, ResourceMethodTest, testing::ValuesIn(every_method()),
                         [](const testing::TestParamInfo<MethodCase>& test) { return test.param.name; });

TEST(ResourceMethodTest, UniformIgnoresTheDensityThatBlueNoiseFollows) {
  const v1::WorldDefinition base = forest_only(default_world().seed());
  const World blue = build(base);
  const World uniform = build(with_method(base, v1::ResourceLayer::uniform));
  const double blue_fidelity = density_fidelity(blue, streamed_region(blue, {0, 0}, 12), 0, 32);
  const double uniform_fidelity = density_fidelity(uniform, streamed_region(uniform, {0, 0}, 12), 0, 32);
  measure("blue_noise.fidelity_12x12", blue_fidelity);
  measure("uniform.fidelity_12x12", uniform_fidelity);
  EXPECT_GE(blue_fidelity, 0.85);
  EXPECT_LT(uniform_fidelity, 0.3);
  EXPECT_GT(blue_fidelity - uniform_fidelity, 0.5);
}

TEST(ResourceMethodTest, LargerPeakWindowGivesFewerPeaks) {
  v1::WorldDefinition d = with_method(forest_only(default_world().seed()), v1::ResourceLayer::noise_peaks);
  d.mutable_resources(0)->set_peak_window(12);
  const World narrow = build(d);
  d.mutable_resources(0)->set_peak_window(48);
  const World wide = build(d);
  const size_t narrow_count = streamed_region(narrow, {0, 0}, 8).objects.size();
  const size_t wide_count = streamed_region(wide, {0, 0}, 8).objects.size();
  measure("noise_peaks.window_12", static_cast<double>(narrow_count));
  measure("noise_peaks.window_48", static_cast<double>(wide_count));
  EXPECT_GT(wide_count, 0u);
  EXPECT_LT(2 * wide_count, narrow_count);
}

// --- filters and thresholds ------------------------------------------------------------------

bool allows(const google::protobuf::RepeatedPtrField<std::string>& names, const std::string& name) {
  return names.empty() || std::find(names.begin(), names.end(), name) != names.end();
}

// Checks every object of `chunks` against its layer's filters, by names from the definition,
// sampling the terrain at exactly the reported (double) position; returns the objects checked
// per layer name.
std::map<std::string, size_t> expect_on_allowed_ground(const World& world, const std::vector<ChunkData>& chunks) {
  const v1::WorldDefinition& d = world.definition();
  const int64_t size = world.chunk_size();
  std::map<std::string, size_t> checked;
  for (const ChunkData& chunk : chunks) {
    for (const ResourceObject& o : chunk.objects) {
      const TerrainPoint p = world.terrain().sample(Coord::from_parts(chunk.coord.x * size, o.x),
                                                    Coord::from_parts(chunk.coord.z * size, o.z));
      const v1::ResourceLayer& l = d.resources(static_cast<int>(o.layer));
      const std::string& biome = d.biomes(static_cast<int>(p.biome)).name();
      const std::string& material = d.materials(static_cast<int>(p.material)).name();
      const std::string where = l.name() + " at chunk " + std::to_string(chunk.coord.x) + "," +
                                std::to_string(chunk.coord.z) + " (" + std::to_string(o.x) + ", " +
                                std::to_string(o.z) + ")";
      EXPECT_TRUE(allows(l.biomes(), biome)) << where << ": biome " << biome;
      EXPECT_TRUE(allows(l.materials(), material)) << where << ": material " << material;
      if (l.has_max_slope()) {
        EXPECT_LE(p.slope(), l.max_slope()) << where;
      }
      if (l.elevation().has_min()) {
        EXPECT_GE(p.elevation(), l.elevation().min()) << where;
      }
      if (l.elevation().has_max()) {
        EXPECT_LE(p.elevation(), l.elevation().max()) << where;
      }
      // y is the terrain's elevation there (to the rounding of the reported position: y is
      // computed at the exact sub-cell position, x and z are rounded to double).
      EXPECT_NEAR(o.y, p.elevation(), 1e-9) << where;
      ++checked[l.name()];
    }
  }
  return checked;
}

TEST(ResourceFilterTest, ObjectsStandWhereTheirLayerAllows) {
  const World& world = default_world();
  std::map<std::string, size_t> checked = expect_on_allowed_ground(world, streamed_chunks(world, {-8, -8}, 16));
  for (const char* name : {"forest", "iron", "coal", "boulders"}) {
    measure(std::string("filters.") + name, static_cast<double>(checked[name]));
    EXPECT_GT(checked[name], 50u) << name;
  }
}

// One filter alone on the forest layer, tight enough to remove a good share of the objects.
struct FilterCase {
  const char* name;
  void (*apply)(v1::ResourceLayer&);
};

class ResourceFilterAloneTest : public testing::TestWithParam<FilterCase> {};

TEST_P(ResourceFilterAloneTest, HoldsForEveryObjectAndRemovesSome) {
  const v1::WorldDefinition open = forest_only(default_world().seed());
  v1::WorldDefinition d = open;
  GetParam().apply(*d.mutable_resources(0));
  const World filtered = build(d);
  const World unfiltered = build(open);
  const std::vector<ChunkData> chunks = streamed_chunks(filtered, {-4, -4}, 8);
  const size_t kept = expect_on_allowed_ground(filtered, chunks)["forest"];
  const size_t all = streamed_region(unfiltered, {-4, -4}, 8).objects.size();
  measure(std::string("filter_alone.") + GetParam().name + ".kept", static_cast<double>(kept));
  measure(std::string("filter_alone.") + GetParam().name + ".unfiltered", static_cast<double>(all));
  EXPECT_GT(kept, 100u);
  EXPECT_LT(kept * 10, all * 9) << "the filter should bite";
}

INSTANTIATE_TEST_SUITE_P(Resource, ResourceFilterAloneTest,
                         testing::Values(FilterCase{"max_slope", [](v1::ResourceLayer& l) { l.set_max_slope(0.2); }},
                                         FilterCase{"elevation",
                                                    [](v1::ResourceLayer& l) {
                                                      l.mutable_elevation()->set_min(4);
                                                      l.mutable_elevation()->set_max(14);
                                                    }},
                                         FilterCase{"biomes",
                                                    [](v1::ResourceLayer& l) {
                                                      l.add_biomes("forest");
                                                      l.add_biomes("plains");
                                                    }},
                                         FilterCase{"materials",
                                                    [](v1::ResourceLayer& l) { l.add_materials("grass"); }}),
                         [](const testing::TestParamInfo<FilterCase>& test) { return std::string(test.param.name); });

// ResourceLayer::admits_at computes only what a layer's filters read; it must answer as
// admits() of the whole sample, for every layer of a world that uses every kind of filter.
TEST(ResourceFilterTest, AdmitsAtAnswersAsTheWholeSample) {
  WorldResult golden = load_world_file(CHUNKFORGE_SOURCE_DIR "/tests/lib/worlds/golden_everything.json");
  ASSERT_TRUE(golden.world);
  for (const World* world : {&default_world(), static_cast<const World*>(&*golden.world)}) {
    const Terrain& terrain = world->terrain();
    for (const ResourceLayer& l : world->resources().all()) {
      if (!l.filtered()) continue;
      size_t admitted = 0;
      constexpr int kPoints = 4000;
      for (int k = 0; k < kPoints; ++k) {
        const uint64_t h = hash(11, salt("test.admits_at"), static_cast<uint64_t>(k));
        const Coord x = Coord::from_double(unit_double(h) * 4000.0 - 2000.0);
        const Coord z = Coord::from_double(unit_double(mix64(h)) * 4000.0 - 2000.0);
        const TerrainPoint p = terrain.sample(x, z);
        const bool whole = l.admits(p.values, p.biome, p.material);
        ASSERT_EQ(l.admits_at(terrain, x, z), whole)
            << l.name << " at (" << x.to_double() << ", " << z.to_double() << ")";
        admitted += whole ? 1 : 0;
      }
      // Both answers occur, so the comparison was not trivial.
      EXPECT_GT(admitted, 0u) << l.name;
      EXPECT_LT(admitted, static_cast<size_t>(kPoints)) << l.name;
    }
  }
}

TEST(ResourceFilterTest, FiltersRemoveObjectsThatWouldOtherwiseStand) {
  // Without filters the forest grows on ground its filters forbid: the filters do work.
  const World& world = default_world();
  const World unfiltered = [] {
    v1::WorldDefinition d = default_world().definition();
    clear_filters_and_threshold(*d.mutable_resources(layer_index(d, "forest")));
    return build(d);
  }();
  const uint32_t forest = layer_id(world, "forest");
  const RegionPoints filtered_points = streamed_region(world, {-4, -4}, 8);
  const RegionPoints all_points = streamed_region(unfiltered, {-4, -4}, 8);
  measure("forest.filtered_8x8", static_cast<double>(count_of(filtered_points, forest)));
  measure("forest.unfiltered_8x8", static_cast<double>(count_of(all_points, forest)));
  EXPECT_LT(count_of(filtered_points, forest), count_of(all_points, forest));
}

TEST(ResourceThresholdTest, EveryObjectMeetsItsLayersThreshold) {
  const World& world = default_world();
  std::map<uint32_t, double> lowest;
  for (const ChunkData& chunk : streamed_chunks(world, {-6, -6}, 12)) {
    for (const ResourceObject& o : chunk.objects) {
      const ResourceLayer& l = world.resources().layer(o.layer);
      EXPECT_GE(o.density, l.threshold) << l.name;
      EXPECT_GE(o.density, l.dmin) << l.name;
      EXPECT_LE(o.density, l.dmax) << l.name;
      lowest[o.layer] = lowest.count(o.layer) ? std::min(lowest[o.layer], o.density) : o.density;
    }
  }
  for (const ResourceLayer& l : world.resources().all()) {
    ASSERT_TRUE(lowest.count(l.id)) << l.name << " has no objects";
    measure("threshold." + l.name + ".lowest_density", lowest[l.id]);
    EXPECT_GT(l.threshold, l.dmin) << l.name << ": the default world's thresholds should bite";
  }
}

TEST(ResourceFilterTest, ObjectsKeepOutOfStructureFootprints) {
  // An object stays at least its footprint radius outside every kept structure's box (the
  // box widened by the radius on each side, as a square).
  const World& world = default_world();
  const int64_t size = world.chunk_size();
  const std::vector<ChunkData> chunks = streamed_chunks(world, {-8, -8}, 16);
  std::map<uint64_t, StructureInstance> structures;
  for (const ChunkData& chunk : chunks) {
    for (const StructureInstance& s : chunk.structures) structures[s.id] = s;
  }
  measure("structures_16x16", static_cast<double>(structures.size()));
  ASSERT_GE(structures.size(), 3u) << "too few structures for the property to mean anything";
  size_t near = 0;  // objects within 8 units of a box: the boundary was exercised
  for (const ChunkData& chunk : chunks) {
    for (const ResourceObject& o : chunk.objects) {
      const double margin = world.resources().layer(o.layer).footprint;
      for (const auto& [id, s] : structures) {
        const double px = static_cast<double>(chunk.coord.x * size - s.x) + o.x;
        const double pz = static_cast<double>(chunk.coord.z * size - s.z) + o.z;
        const bool inside = px > -margin && px < s.size_x + margin && pz > -margin && pz < s.size_z + margin;
        EXPECT_FALSE(inside) << world.resources().layer(o.layer).name << " object " << o.id << " in structure " << id
                             << " (" << px << ", " << pz << " from its origin)";
        near += px > -margin - 8 && px < s.size_x + margin + 8 && pz > -margin - 8 && pz < s.size_z + margin + 8;
      }
    }
  }
  measure("objects_near_structures_16x16", static_cast<double>(near));
  EXPECT_GT(near, 10u);
}

TEST(ResourceFilterTest, StructuresRemoveResourcesUnderThem) {
  // The same window without structures has more objects (none are removed for footprints).
  const World& world = default_world();
  v1::WorldDefinition d = world.definition();
  d.clear_structures();
  const World open = build(d);
  const size_t with = streamed_region(world, {-8, -8}, 16).objects.size();
  const size_t without = streamed_region(open, {-8, -8}, 16).objects.size();
  measure("objects_16x16.with_structures", static_cast<double>(with));
  measure("objects_16x16.without_structures", static_cast<double>(without));
  EXPECT_LT(with, without);
}

// --- density ---------------------------------------------------------------------------------

// density_grid skips the noise of a constant layer (min = max). Its grid must hold what the
// formula gives, which density() still computes in full: the same bits at every point, for a
// constant layer alone and one correlated with a varying layer; and a varying layer's grid too.
TEST(ResourceDensityTest, AConstantLayersGridHoldsTheFormulasBits) {
  v1::WorldDefinition d = default_world().definition();
  v1::ResourceLayer iron = d.resources(layer_index(d, "iron"));
  v1::ResourceLayer coal = d.resources(layer_index(d, "coal"));
  ASSERT_EQ(coal.correlate_with().layer(), "iron");
  coal.mutable_density_range()->set_min(0.75);
  coal.mutable_density_range()->set_max(0.75);
  v1::ResourceLayer alone = coal;
  alone.set_name("alone");
  alone.clear_correlate_with();
  alone.set_sharpness(3);
  d.clear_resources();
  *d.add_resources() = iron;
  *d.add_resources() = coal;
  *d.add_resources() = alone;
  const World world = build(d);
  std::vector<Coord> xs, zs;
  for (int k = 0; k < 9; ++k) {
    xs.push_back(Coord::from_parts(-(int64_t{1} << 39) + k * 7919, 0.125 * k));
    zs.push_back(Coord::from_parts(k * 104729, 0.1 * k));
  }
  for (uint32_t layer : {0u, 1u, 2u}) {
    std::vector<double> grid(xs.size() * zs.size());
    world.resources().density_grid(layer, xs.data(), 9, zs.data(), 9, grid.data());
    for (size_t j = 0; j < zs.size(); ++j) {
      for (size_t i = 0; i < xs.size(); ++i) {
        EXPECT_EQ(std::bit_cast<uint64_t>(grid[j * xs.size() + i]),
                  std::bit_cast<uint64_t>(world.resources().density(layer, xs[i], zs[j])))
            << "layer " << layer << " at (" << i << ", " << j << ")";
      }
    }
  }
  EXPECT_EQ(world.resources().density(1, xs[3], zs[5]), 0.75);
}

// --- correlation -----------------------------------------------------------------------------

TEST(ResourceCorrelationTest, CoalFollowsIronsDensityWhenCorrelated) {
  // Iron and coal alone, without filters, threshold or structures, so that coal's counts follow
  // its density.
  v1::WorldDefinition d = default_world().definition();
  v1::ResourceLayer iron = d.resources(layer_index(d, "iron"));
  v1::ResourceLayer coal = d.resources(layer_index(d, "coal"));
  clear_filters_and_threshold(iron);
  clear_filters_and_threshold(coal);
  ASSERT_TRUE(coal.has_correlate_with());
  ASSERT_EQ(coal.correlate_with().layer(), "iron");
  d.clear_resources();
  *d.add_resources() = iron;
  *d.add_resources() = coal;
  d.clear_structures();
  const World correlated = build(d);
  d.mutable_resources(1)->clear_correlate_with();
  const World independent = build(d);

  // Target: iron's intensity (density^2) at each bin centre.
  const int64_t size = correlated.chunk_size();
  // 24 x 24 chunks: over smaller windows two independent noise fields correlate by chance
  // up to about +-0.2.
  const ChunkCoord origin{-12, -12};
  auto iron_intensity = [&](double x, double z) {
    const double v =
        correlated.resources().density(0, Coord::from_parts(origin.x * size, x), Coord::from_parts(origin.z * size, z));
    return v * v;
  };
  const double with = count_correlation(streamed_region(correlated, origin, 24), 1, 64, iron_intensity);
  const double without = count_correlation(streamed_region(independent, origin, 24), 1, 64, iron_intensity);
  measure("coal_vs_iron.correlated", with);
  measure("coal_vs_iron.independent", without);
  // Measured over 8 seeds: 0.47-0.57 correlated, -0.07-0.13 independent (difference >= 0.42).
  EXPECT_GT(with, 0.35);
  EXPECT_GT(with - without, 0.3);
}

// --- objects ---------------------------------------------------------------------------------

TEST(ResourceObjectTest, ObjectsAreValidUniqueAndCanonicallyOrdered) {
  const World& world = default_world();
  const double size = static_cast<double>(world.chunk_size());
  std::set<uint64_t> ids;
  size_t objects = 0;
  for (const ChunkData& chunk : streamed_chunks(world, {-6, -6}, 12)) {
    for (size_t k = 0; k < chunk.objects.size(); ++k) {
      const ResourceObject& o = chunk.objects[k];
      ASSERT_LT(o.layer, world.resources().size());
      const ResourceLayer& l = world.resources().layer(o.layer);
      EXPECT_GE(o.x, 0.0);
      EXPECT_LT(o.x, size);
      EXPECT_GE(o.z, 0.0);
      EXPECT_LT(o.z, size);
      EXPECT_GE(o.yaw, 0.0);
      EXPECT_LT(o.yaw, 360.0);
      EXPECT_LT(o.variant, l.variants) << l.name;
      // An object lives in exactly one chunk: its id appears once over the window.
      EXPECT_TRUE(ids.insert(o.id).second)
          << "id " << o.id << " twice (chunk " << chunk.coord.x << "," << chunk.coord.z << ")";
      if (k > 0) {
        const ResourceObject& p = chunk.objects[k - 1];
        const bool ordered = p.layer < o.layer || (p.layer == o.layer && (p.z < o.z || (p.z == o.z && p.x <= o.x)));
        EXPECT_TRUE(ordered) << "objects " << k - 1 << " and " << k << " of chunk " << chunk.coord.x << ","
                             << chunk.coord.z;
      }
      ++objects;
    }
  }
  EXPECT_GT(objects, 1000u);
}

TEST(ResourceObjectTest, VariantsAndYawsAreSpread) {
  const World& world = default_world();
  std::map<uint32_t, std::set<uint32_t>> variants;
  int quadrant[4] = {0, 0, 0, 0};
  for (const ChunkData& chunk : streamed_chunks(world, {0, 0}, 6)) {
    for (const ResourceObject& o : chunk.objects) {
      variants[o.layer].insert(o.variant);
      ++quadrant[static_cast<int>(o.yaw / 90.0)];
    }
  }
  for (const ResourceLayer& l : world.resources().all()) {
    EXPECT_EQ(variants[l.id].size(), l.variants) << l.name;
  }
  for (int q = 0; q < 4; ++q) EXPECT_GT(quadrant[q], 50) << "yaw quadrant " << q;
}

TEST(ResourceObjectTest, ReorderingLayersKeepsEachLayersObjects) {
  // Reordering layers keeps each layer's points (salts come from names): same ids, positions.
  const World& world = default_world();
  v1::WorldDefinition d = world.definition();
  std::reverse(d.mutable_resources()->begin(), d.mutable_resources()->end());
  // coal correlates with iron: both keep their names, so the reference survives the reversal.
  const World reordered = build(d);
  auto key = [](const World& w, const ResourceObject& o) {
    return std::tuple(w.resources().layer(o.layer).name, o.id, o.x, o.z, o.y);
  };
  for (const ChunkCoord c : {ChunkCoord{0, 0}, ChunkCoord{-3, 2}}) {
    std::multiset<std::tuple<std::string, uint64_t, double, double, double>> a, b;
    for (const ResourceObject& o : Generator(world).generate(c).objects) a.insert(key(world, o));
    for (const ResourceObject& o : Generator(reordered).generate(c).objects) b.insert(key(reordered, o));
    EXPECT_EQ(a, b) << c.x << "," << c.z;
  }
}

}  // namespace
}  // namespace chunkforge
