// Resource scattering throughput: chunkforge's seamless chunked blue noise against Bridson's
// algorithm over one bounding box (tests/bench/bridson.h: at constant r as the header-only
// libraries do it, scripts/bench-peers measures it beside them; with a radius per point as the
// resource article does it), on the same area in the same run. Items/s are points per second.
//
//   ./build/tests/bench/blue_noise_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only
//
// Cases: constant spacing r = 2 (the quality window) and the default world's forest density
// (r from 3 to 12 following its density noise), over 8 x 8 chunks = 512 x 512 units, chunkforge
// by generator version 2 and 3 (which differ only where the spacing varies). At constant r both
// sides also report rho, NN CV and Clark-Evans R of their points (as `chunkforge quality` takes
// them), computed after the timed loop.
#include <benchmark/benchmark.h>

#include "bridson.h"
#include "chunkforge/chunk.h"
#include "chunkforge/quality.h"
#include "chunkforge/world.h"

namespace chunkforge {
namespace {

constexpr int64_t kChunks = 8;

// The default world reduced to its forest layer without threshold, filters or structures;
// constant density if `constant`; generator version 2, or `version`.
World make_world(const v1::WorldDefinition& d) { return *World::create(d).world; }

const World& forest_world(bool constant, int64_t version = 2) {
  static const v1::WorldDefinition variable = [] {
    v1::WorldDefinition d = default_world().definition();
    v1::ResourceLayer forest = d.resources(0);
    forest.clear_biomes();
    forest.clear_materials();
    forest.clear_max_slope();
    forest.set_density_threshold(0);
    d.clear_resources();
    *d.add_resources() = forest;
    d.clear_structures();
    return d;
  }();
  static const World variable_world = make_world(variable);
  static const World constant_world = [] {
    v1::WorldDefinition d = variable;
    d.mutable_resources(0)->mutable_density_range()->set_min(1);
    d.mutable_resources(0)->mutable_density_range()->set_max(1);
    d.mutable_resources(0)->set_spacing_scale(2);
    return make_world(d);
  }();
  static const World constant_v3 = [] {
    v1::WorldDefinition d = constant_world.definition();
    d.set_generator_version(3);
    return make_world(d);
  }();
  static const World variable_v3 = [] {
    v1::WorldDefinition d = variable;
    d.set_generator_version(3);
    return make_world(d);
  }();
  if (version == 3) return constant ? constant_v3 : variable_v3;
  return constant ? constant_world : variable_world;
}

// The quality figures of one window of points, with `chunkforge quality`'s margin (3 r_min).
void report_quality(benchmark::State& state, const RegionPoints& points, double r_min) {
  const PointStats stats = point_stats(points, 0, 3 * r_min);
  state.counters["rho"] = stats.rho;
  state.counters["nn_cv"] = stats.nn_cv;
  state.counters["R"] = stats.clark_evans;
}

void BM_ChunkedBlueNoise(benchmark::State& state) {
  const World& world = forest_world(state.range(0) == 1, state.range(1));
  const Generator generator(world);
  int64_t offset = 0, points = 0;
  for (auto _ : state) {
    // Fresh chunks every iteration: each chunk is a cold request with its own halo.
    for (int64_t cz = 0; cz < kChunks; ++cz) {
      for (int64_t cx = 0; cx < kChunks; ++cx) {
        points += static_cast<int64_t>(generator.generate({offset + cx, cz}).objects.size());
      }
    }
    offset += kChunks;
  }
  state.SetItemsProcessed(points);
  if (state.range(0) == 1)
    report_quality(state, generate_region(world, {0, 0}, kChunks), world.resources().layer(0).r_min());
}
BENCHMARK(BM_ChunkedBlueNoise)
    ->ArgNames({"constant", "version"})
    ->ArgsProduct({{1, 0}, {2, 3}})
    ->Unit(benchmark::kMillisecond);

// The same chunks through one ChunkStream (a region request): neighbours share the halo.
void BM_ChunkStreamBlueNoise(benchmark::State& state) {
  const World& world = forest_world(state.range(0) == 1, state.range(1));
  int64_t offset = 0, points = 0;
  for (auto _ : state) {
    ChunkStream stream(world);
    for (int64_t cz = 0; cz < kChunks; ++cz) {
      for (int64_t cx = 0; cx < kChunks; ++cx) {
        points += static_cast<int64_t>(stream.generate({offset + cx, cz}).objects.size());
      }
    }
    offset += kChunks;
  }
  state.SetItemsProcessed(points);
}
BENCHMARK(BM_ChunkStreamBlueNoise)
    ->ArgNames({"constant", "version"})
    ->ArgsProduct({{1, 0}, {2, 3}})
    ->Unit(benchmark::kMillisecond);

// A set of the reference's points as a window of points, for report_quality.
RegionPoints as_region(const std::vector<bench::Point>& points, const World& world, double r) {
  RegionPoints region;
  region.chunks = kChunks;
  region.chunk_size = static_cast<double>(world.chunk_size());
  for (const bench::Point& p : points) region.objects.push_back({0, p.x, p.z, r, {}});
  return region;
}

void BM_BridsonReference(benchmark::State& state) {
  const bool constant = state.range(0) == 1;
  const World& world = forest_world(constant);
  const ResourceLayer& layer = world.resources().layer(0);
  const double side = static_cast<double>(kChunks * world.chunk_size());
  const std::function<double(double, double)> r = [&](double x, double z) {
    return layer.spacing / world.resources().density(0, Coord::from_double(x), Coord::from_double(z));
  };
  int64_t points = 0;
  uint64_t seed = 1;
  for (auto _ : state) {
    // The constant case takes the constant-radius sampler: no radius function at all.
    const auto pts = constant ? bench::bridson(side, side, layer.r_min(), seed++)
                              : bench::bridson(side, side, layer.r_min(), layer.r_max(), r, seed++);
    points += static_cast<int64_t>(pts.size());
  }
  state.SetItemsProcessed(points);
  // One fixed seed, so that the figures do not depend on how many iterations ran.
  if (constant)
    report_quality(state, as_region(bench::bridson(side, side, layer.r_min(), 1), world, layer.r_min()), layer.r_min());
}
BENCHMARK(BM_BridsonReference)->ArgName("constant")->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace chunkforge
