// File: server/startup/memory_limit.h
//
// How much memory this process may use: the limit of its cgroup (a container's memory limit,
// v2 or v1), or the machine's memory when there is none. Defaults that should scale with a
// deployment (the output budget, server/budget/output_budget.h) derive from it.
#pragma once

#include <cstdint>
#include <string>

namespace chunkforge::server {

struct MemoryLimit {
  uint64_t bytes = 0;
  std::string source;  // "cgroup memory.max", "physical memory", ... for the start-up log
};

MemoryLimit process_memory_limit();

// A cgroup limit file's text ("max", or a number of bytes) as bytes; 0 for no limit or unreadable
// text. Exposed for its unit test.
uint64_t parse_cgroup_limit(const std::string& text);

}  // namespace chunkforge::server
