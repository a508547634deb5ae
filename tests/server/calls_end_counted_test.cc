// Every RPC writes and ends through the counted paths: a unary call through UnaryCall
// (server/rpc/unary_call.cc), a stream through StreamCall (server/rpc/stream_call.h). Both
// charge what they write to the output budget before gRPC gets it, and record the status
// (close_call) before gRPC's Finish; the HTTP side port writes in one place, charged too. A
// handler that wrote or finished by itself would hold bytes for a client that nothing bounds,
// or end calls nobody counts or logs; this test reads the server's sources and fails on one.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "support/source_lines.h"

namespace {

// Where each gRPC call that writes or ends may appear, and how often in all.
struct Rule {
  std::set<std::string> allowed;
  size_t uses;
  const char* instead;
};

TEST(CallsEndCountedTest, OnlyTheCountedPathsWriteAndFinish) {
  const std::map<std::string, Rule> rules = {
      {"Finish(", {{"rpc/unary_call.cc", "rpc/stream_call.h"}, 2, "end the call through UnaryCall or StreamCall"}},
      {"StartWrite(", {{"rpc/stream_call.h"}, 1, "write through StreamCall::write"}},
      // The only way to make a buffer to send: its callers charge it first.
      {"buffer_of(",
       {{"rpc/byte_buffer.h", "rpc/unary_call.cc", "rpc/stream_call.h"},
        3,
        "answer through UnaryCall::answer or StreamCall::write"}},
      // The HTTP side port's one write, charged the same way.
      {"async_write(", {{"http/http_endpoint.cc"}, 1, "answer through the HTTP endpoint's respond()"}},
  };
  const std::filesystem::path root = CHUNKFORGE_SOURCE_DIR "/server";
  std::map<std::string, size_t> uses;
  const size_t files =
      chunkforge::test::for_each_code_line(root, [&](const std::string& name, int number, const std::string& line) {
        for (const auto& [call, rule] : rules) {
          if (line.find(call) == std::string::npos) continue;
          ++uses[call];
          EXPECT_TRUE(rule.allowed.count(name))
              << "server/" << name << ":" << number << " calls " << call << "; " << rule.instead << " instead";
        }
      });
  EXPECT_GT(files, 50u) << "read the server's sources from " << root;
  for (const auto& [call, rule] : rules) EXPECT_EQ(uses[call], rule.uses) << call << " in the counted paths";
}

}  // namespace
