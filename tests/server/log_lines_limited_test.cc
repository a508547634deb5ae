// Every log line a client can cause goes through log_client (server/log/client_log.h): short,
// escaped and rate limited per kind. Only lines an operator causes (start-up, flags, shutdown,
// the edit store going down or coming back) call spdlog directly, in the files and as many times
// as listed below; this test reads the server's sources and fails on any other direct call, so
// that a new handler, route or failure path cannot log a client's input unbounded.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <regex>
#include <string>

#include "support/source_lines.h"

namespace {

TEST(LogLinesLimitedTest, OnlyOperatorLinesCallSpdlogDirectly) {
  const std::filesystem::path root = CHUNKFORGE_SOURCE_DIR "/server";
  // File -> the spdlog calls it may make, each an operator's line.
  const std::map<std::string, int> allowed = {
      {"main.cc", 8},  // world warnings, the output budget, signals, the watchdog, the start-up summary, stopped
      {"world_server.cc", 3},         // client generation off, the store at start, cannot listen
      {"startup/store_flags.cc", 1},  // a store that could not be opened, with --store-optional
      {"edits/store_health.h", 2},    // the edit store down, and up again
      {"edits/seen_recorder.cc", 3},  // seen land not stored, stored again, and refused once (an upgrade)
      {"http/http_endpoint.cc", 2},   // a bad --http address, cannot listen
      {"log/client_log.cc", 1},       // write_client_line: where the client's lines go
  };
  const std::regex call(R"(spdlog::(trace|debug|info|warn|error|critical|log)\s*\(|SPDLOG_[A-Z]+\s*\()");
  std::map<std::string, int> found;
  const size_t files =
      chunkforge::test::for_each_code_line(root, [&](const std::string& name, int number, const std::string& line) {
        if (!std::regex_search(line, call)) return;
        ++found[name];
        EXPECT_TRUE(allowed.count(name)) << "server/" << name << ":" << number
                                         << " calls spdlog directly; a line a client can cause goes through "
                                            "log_client (server/log/client_log.h)";
      });
  EXPECT_GT(files, 50u) << "read the server's sources from " << root;
  for (const auto& [name, count] : allowed) {
    EXPECT_EQ(found[name], count) << "server/" << name
                                  << ": its direct spdlog calls changed; a new line a client can cause goes through "
                                     "log_client, a new operator's line needs its count raised here";
  }
}

}  // namespace
