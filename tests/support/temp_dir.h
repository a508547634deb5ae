// Directories of the test's own. Each test process makes one root under testing::TempDir(),
// "chunkforge_<pid>_XXXXXX/", and every unique_temp_dir is a fresh mkdtemp inside it, so two
// runs of the suite, or tests run in parallel by ctest -j, never write the same file. The root
// and everything under it (PostgreSQL clusters, SQLite files, server logs) is removed when the
// process exits, unless a test failed (its logs are then worth reading) or
// CHUNKFORGE_KEEP_TEST_DIRS is set. Without this a run of the suite left gigabytes behind, and
// a machine's disk filled up across runs.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace chunkforge::test {

// mkdtemp on a "..._XXXXXX" pattern; the path made, without a trailing slash.
inline std::string make_temp_dir(const std::string& pattern) {
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (mkdtemp(buffer.data()) == nullptr) throw std::runtime_error("mkdtemp failed for " + pattern);
  return buffer.data();
}

class TempRoot {
 public:
  // The process's root, made on first use; destroyed after anything that made a directory in it
  // (static objects are destroyed in the reverse order of their construction's end).
  static const std::string& path() {
    static const TempRoot root;
    return root.path_;
  }
  TempRoot(const TempRoot&) = delete;
  ~TempRoot() {
    const testing::UnitTest* tests = testing::UnitTest::GetInstance();
    if (getenv("CHUNKFORGE_KEEP_TEST_DIRS") != nullptr || tests->Failed()) return;
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }

 private:
  TempRoot() {
    path_ = make_temp_dir(testing::TempDir() + "chunkforge_" + std::to_string(getpid()) + "_XXXXXX") + "/";
    chmod(path_.c_str(), 0711);  // PostgreSQL runs as "nobody" in a directory below
  }
  std::string path_;
};

// "<root>/<name>_XXXXXX/" made fresh; the path ends with a slash.
inline std::string unique_temp_dir(const std::string& name) {
  return make_temp_dir(TempRoot::path() + name + "_XXXXXX") + "/";
}

}  // namespace chunkforge::test
