// Every RPC ends through the counted paths: a unary call through UnaryCall::finish
// (server/rpc/rpc_call.cc), a stream through StreamCall::finish (server/rpc/stream_call.h). Both
// record the status (close_call) before gRPC's Finish, so a handler that called Finish itself
// would end calls nobody counts or logs; this test reads the server's sources and fails on one.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

namespace {

TEST(CallsEndCountedTest, OnlyTheCountedPathsCallFinish) {
  const std::filesystem::path root = CHUNKFORGE_SOURCE_DIR "/server";
  const std::set<std::string> allowed = {"rpc/rpc_call.cc", "rpc/stream_call.h"};
  size_t files = 0, finishes = 0;
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
      if (line.find("Finish(") == std::string::npos) continue;
      ++finishes;
      EXPECT_TRUE(allowed.count(name)) << "server/" << name << ":" << number
                                       << " calls Finish; end the call through UnaryCall or StreamCall instead";
    }
  }
  EXPECT_GT(files, 50u) << "read the server's sources from " << root;
  EXPECT_EQ(finishes, allowed.size()) << "each counted path calls Finish once";
}

}  // namespace
