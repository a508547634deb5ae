// The process's memory, not the cache's own count: a ChunkCache filled to four times its budget
// with small (160-byte) or large (25 KB) chunks must not grow the resident set past the budget
// by more than a quarter plus a little. Each fill runs in a fresh process (a death-test child,
// re-executed from scratch), so no other test's heap hides or adds growth.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "generation/chunk_cache.h"

namespace chunkforge::server {
namespace {

constexpr size_t kMiB = 1 << 20;
constexpr size_t kBudget = 32 * kMiB;

// A line "Name:   N kB" of /proc/self/status, bytes.
size_t status_bytes(const std::string& name) {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind(name + ":", 0) == 0) return std::stoull(line.substr(name.size() + 1)) * 1024;
  }
  return 0;
}

// Fills a cache with chunks of `payload` bytes until four budgets' worth went in, then exits 0
// if the resident set's peak grew by at most budget × 1.25 + 4 MiB, else 1; prints the figures.
[[noreturn]] void fill_and_exit(size_t payload) {
  const size_t before = status_bytes("VmRSS");
  ChunkCache cache(kBudget);
  for (size_t inserted = 0, i = 0; inserted < 4 * kBudget; inserted += payload, ++i) {
    // Keys as WorldService makes them: "x,z/" and the options; some too long for the string.
    const std::string key = std::to_string(i * 7919 % 2000003) + "," + std::to_string(-int64_t(i)) + "/";
    cache.fulfil(key, std::make_shared<const std::string>(payload, static_cast<char>('a' + i % 26)));
  }
  const size_t grown = status_bytes("VmHWM") - before, bound = kBudget * 5 / 4 + 4 * kMiB;
  const CacheStats stats = cache.stats();
  std::fprintf(stderr,
               "%zu-byte chunks: peak RSS grew %.1f MiB (bound %.1f MiB) for a %zu MiB budget; %llu entries, "
               "%.1f MiB charged\n",
               payload, double(grown) / kMiB, double(bound) / kMiB, kBudget / kMiB,
               static_cast<unsigned long long>(stats.entries), double(stats.bytes) / kMiB);
  std::fprintf(stderr, grown <= bound ? "within the bound\n" : "over the bound\n");
  std::exit(grown <= bound ? 0 : 1);
}

class ChunkCacheMemoryTest : public testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }  // re-executes: fresh
};

TEST_F(ChunkCacheMemoryTest, SmallChunksStayWithinTheBudget) {
  EXPECT_EXIT(fill_and_exit(160), testing::ExitedWithCode(0), "within the bound");
}

TEST_F(ChunkCacheMemoryTest, LargeChunksStayWithinTheBudget) {
  EXPECT_EXIT(fill_and_exit(25000), testing::ExitedWithCode(0), "within the bound");
}

}  // namespace
}  // namespace chunkforge::server
