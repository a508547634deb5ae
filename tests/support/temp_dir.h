// A directory of the test's own under testing::TempDir(), made with mkdtemp, so that two runs
// of the suite, or tests run in parallel by ctest -j, never write the same file.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace chunkforge::test {

// "<TempDir>/chunkforge_<name>_XXXXXX/" made fresh; the path ends with a slash.
inline std::string unique_temp_dir(const std::string& name) {
  std::string pattern = testing::TempDir() + "chunkforge_" + name + "_XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (mkdtemp(buffer.data()) == nullptr) throw std::runtime_error("mkdtemp failed for " + pattern);
  return std::string(buffer.data()) + "/";
}

}  // namespace chunkforge::test
