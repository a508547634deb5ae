// The peer side of scripts/bench-noise-peers: FastNoise2's 4-octave Perlin fBm over the same
// grids as noise_bench's BM_PerlinGridPeer (64 x 64 and 256 x 256 samples, first-octave frequency
// 0.05 and 0.004, each iteration a fresh tile further along x), so that the two benchmarks' items
// per second compare directly. Built out of tree against a FastNoise2 source directory by
// tests/bench/peers/CMakeLists.txt; FastNoise2 itself is never committed here.
#include <FastNoise/FastNoise.h>
#include <benchmark/benchmark.h>

#include <vector>

namespace {

// Args: frequency in thousandths, grid side. FastNoise2 1.1 takes a frequency as its feature
// scale (1 / frequency); octaves, gain 0.5 and lacunarity 2 as chunkforge's FractalSpec.
void BM_PerlinGridPeer(benchmark::State& state) {
  const float frequency = static_cast<float>(state.range(0)) / 1000.0f;
  const int side = static_cast<int>(state.range(1));
  auto perlin = FastNoise::New<FastNoise::Perlin>();
  perlin->SetScale(1.0f / frequency);
  auto fbm = FastNoise::New<FastNoise::FractalFBm>();
  fbm->SetSource(perlin);
  fbm->SetOctaveCount(4);
  fbm->SetGain(0.5f);
  fbm->SetLacunarity(2.0f);
  std::vector<float> out(static_cast<size_t>(side) * static_cast<size_t>(side));
  int64_t tile = 0;
  for (auto _ : state) {
    fbm->GenUniformGrid2D(out.data(), static_cast<float>(side * tile++), 0.0f, side, side, 1.0f, 1.0f, 1);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * side * side);
  state.SetLabel(FastSIMD::GetFeatureSetString(fbm->GetActiveFeatureSet()));
}
BENCHMARK(BM_PerlinGridPeer)->ArgNames({"freq_milli", "side"})->ArgsProduct({{50, 4}, {64, 256}});

}  // namespace
