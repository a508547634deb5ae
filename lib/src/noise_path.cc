// The process-wide choice of Fractal::grid's implementation (noise_path.h).
#include "noise_path.h"

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace chunkforge::noise_path {
namespace {

// -1: not decided yet; 0: batched; 1: scalar. Atomic: grid() runs on many threads at once.
std::atomic<int> g_scalar{-1};

int from_environment() {
  const char* value = std::getenv("CHUNKFORGE_SCALAR_NOISE");
  return value != nullptr && std::strcmp(value, "1") == 0 ? 1 : 0;
}

}  // namespace

bool batched_enabled() {
  int scalar = g_scalar.load(std::memory_order_relaxed);
  if (scalar < 0) {
    // Several first callers may read the environment at once; they all get the same answer.
    int expected = -1;
    g_scalar.compare_exchange_strong(expected, from_environment(), std::memory_order_relaxed);
    scalar = g_scalar.load(std::memory_order_relaxed);
  }
  return scalar == 0;
}

void force_scalar(bool scalar) { g_scalar.store(scalar ? 1 : 0, std::memory_order_relaxed); }

}  // namespace chunkforge::noise_path
