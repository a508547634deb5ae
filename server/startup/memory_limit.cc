// The memory this process may use, from its cgroup or the machine (memory_limit.h).
#include "startup/memory_limit.h"

#include <unistd.h>

#include <charconv>
#include <fstream>
#include <sstream>

namespace chunkforge::server {
namespace {

// A limit this large is cgroup v1's way of saying "none" (PAGE_COUNTER_MAX, page-rounded).
constexpr uint64_t kNoLimitAbove = uint64_t{1} << 60;

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

}  // namespace

uint64_t parse_cgroup_limit(const std::string& text) {
  uint64_t bytes = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), bytes);
  if (ec != std::errc() || end == text.data() || bytes >= kNoLimitAbove) return 0;
  return bytes;
}

MemoryLimit process_memory_limit() {
  const uint64_t physical =
      static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  for (const char* file : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    const uint64_t limit = parse_cgroup_limit(first_line(file));
    if (limit != 0 && limit < physical) return {limit, std::string("cgroup ") + file};
  }
  return {physical, "physical memory"};
}

}  // namespace chunkforge::server
