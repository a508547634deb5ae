// File: tests/support/source_lines.h
//
// The code lines of a source tree, for tests that hold the server's sources to a rule (every
// call ends through one path, every client-caused log line through log_client): each line of
// every .cc and .h file under a root that is neither blank nor a // comment.
//
//   const size_t files = for_each_code_line(root, [&](const std::string& name, int number,
//                                                     const std::string& line) { ... });
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

namespace chunkforge::test {

// Calls fn(name relative to root, 1-based line number, line) for each code line; returns the
// number of files read.
template <typename Fn>
size_t for_each_code_line(const std::filesystem::path& root, Fn fn) {
  size_t files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    const std::string ext = entry.path().extension().string();
    if (ext != ".cc" && ext != ".h") continue;
    ++files;
    const std::string name = std::filesystem::relative(entry.path(), root).generic_string();
    std::ifstream in(entry.path());
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
      const size_t code = line.find_first_not_of(' ');
      if (code == std::string::npos || line.compare(code, 2, "//") == 0) continue;
      fn(name, number, line);
    }
  }
  return files;
}

}  // namespace chunkforge::test
