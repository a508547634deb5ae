// The benchmarks' Bridson reference (tests/bench/bridson.cc) beside the header-only libraries it
// is modelled on, on the same task: constant r = 2 over 512 x 512 units, 30 candidates per
// active point, a fresh seed for every set, points per second of CPU time (the thread's, as
// Google Benchmark's items_per_second in blue_noise_bench: other tenants' load counts less).
// Built and run only by scripts/bench-peers, from the peers' sources in a directory a person
// provides; never by CMake.
//
//   peer_bench reference|thinks|tph [seconds]
//
// Prints one line: "<name> points/s <rate> sets <n> points/set <mean> min-spacing/r <ratio>".
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "bridson.h"
#include "thinks/poisson_disk_sampling/poisson_disk_sampling.h"
#include "thinks/tph_poisson.h"

namespace {

constexpr double kSide = 512, kRadius = 2;
constexpr int kAttempts = 30;

using Points = std::vector<std::array<double, 2>>;

// Each implementation returns its number of points, and copies them out only if asked (the check
// below), so that the timed loop measures the sampling alone.
size_t reference(uint32_t seed, Points* out) {
  const auto points = chunkforge::bench::bridson(kSide, kSide, kRadius, seed, kAttempts);
  if (out != nullptr) {
    for (const auto& p : points) out->push_back({p.x, p.z});
  }
  return points.size();
}

// thinks v0.3 with its default vector type, std::array<float, 2>, as its README uses it.
size_t thinks_v03(uint32_t seed, Points* out) {
  const std::array<float, 2> lo{0, 0}, hi{kSide, kSide};
  const auto points = thinks::PoissonDiskSampling(static_cast<float>(kRadius), lo, hi, kAttempts, seed);
  if (out != nullptr) {
    for (const auto& p : points) out->push_back({p[0], p[1]});
  }
  return points.size();
}

// tph_poisson with its default real type (float) and allocator.
size_t tph(uint32_t seed, Points* out) {
  const tph_poisson_real lo[2] = {0, 0}, hi[2] = {kSide, kSide};
  tph_poisson_args args = {};
  args.bounds_min = lo;
  args.bounds_max = hi;
  args.seed = seed;
  args.radius = static_cast<tph_poisson_real>(kRadius);
  args.ndims = 2;
  args.max_sample_attempts = kAttempts;
  tph_poisson_sampling sampling = {};
  if (tph_poisson_create(&args, nullptr, &sampling) != TPH_POISSON_SUCCESS) std::abort();
  const tph_poisson_real* xy = tph_poisson_get_samples(&sampling);
  if (out != nullptr) {
    for (ptrdiff_t i = 0; i < sampling.nsamples; ++i) out->push_back({xy[2 * i], xy[2 * i + 1]});
  }
  const auto count = static_cast<size_t>(sampling.nsamples);
  tph_poisson_destroy(&sampling);
  return count;
}

// The smallest distance between two points over r, by brute force over a coarse bucket grid:
// a check that every implementation does what it claims, outside the timed loop.
double min_spacing_ratio(const Points& points) {
  const int n = static_cast<int>(kSide / kRadius) + 1;
  std::vector<std::vector<int>> buckets(static_cast<size_t>(n) * n);
  auto bucket = [&](double v) { return std::min(n - 1, static_cast<int>(v / kRadius)); };
  for (size_t i = 0; i < points.size(); ++i) {
    buckets[static_cast<size_t>(bucket(points[i][1])) * n + bucket(points[i][0])].push_back(static_cast<int>(i));
  }
  double best = INFINITY;
  for (size_t i = 0; i < points.size(); ++i) {
    const int bi = bucket(points[i][0]), bj = bucket(points[i][1]);
    for (int j = std::max(0, bj - 1); j <= std::min(n - 1, bj + 1); ++j) {
      for (int k = std::max(0, bi - 1); k <= std::min(n - 1, bi + 1); ++k) {
        for (int q : buckets[static_cast<size_t>(j) * n + k]) {
          if (static_cast<size_t>(q) == i) continue;
          best = std::min(best, std::hypot(points[q][0] - points[i][0], points[q][1] - points[i][1]));
        }
      }
    }
  }
  return best / kRadius;
}

double thread_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string name = argc > 1 ? argv[1] : "";
  const double seconds = argc > 2 ? std::atof(argv[2]) : 1.0;
  size_t (*sample)(uint32_t, Points*) = name == "reference" ? reference
                                        : name == "thinks"  ? thinks_v03
                                        : name == "tph"     ? tph
                                                            : nullptr;
  if (sample == nullptr) {
    std::fprintf(stderr, "usage: peer_bench reference|thinks|tph [seconds]\n");
    return 2;
  }
  Points check;
  sample(12345, &check);  // also warms the caches and the allocator
  const double spacing = min_spacing_ratio(check);
  uint32_t seed = 1;
  uint64_t points = 0, sets = 0;
  const double start = thread_seconds();
  double elapsed = 0;
  while (elapsed < seconds || sets < 3) {
    points += sample(seed++, nullptr);
    ++sets;
    elapsed = thread_seconds() - start;
  }
  std::printf("%s points/s %.0f sets %llu points/set %.0f min-spacing/r %.6f\n", name.c_str(),
              static_cast<double>(points) / elapsed, static_cast<unsigned long long>(sets),
              static_cast<double>(points) / static_cast<double>(sets), spacing);
  return 0;
}
