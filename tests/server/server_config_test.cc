// chunkforge-server's configuration (docs/deploy.md, "Configuration"), through the binary: a
// TOML file under the variables under the flags, every problem of a file at once, the effective
// configuration printed and read back, and --help against the documented table of variables.
#include <gtest/gtest.h>
#include <signal.h>  // NOLINT(modernize-deprecated-headers): kill() is POSIX's
#include <stdlib.h>  // NOLINT(modernize-deprecated-headers): setenv is POSIX's

#include <chrono>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "support/server_process.h"
#include "support/temp_dir.h"

namespace {

using namespace chunkforge::test;

std::string temp(const std::string& name) {
  static const std::string dir = chunkforge::test::unique_temp_dir("server_config");
  return dir + name;
}

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = temp(name);
  std::ofstream(path) << text;
  return path;
}

// The server's output for `args`, with its exit code.
std::string run(const std::vector<std::string>& args, const std::string& log, int& code) {
  const Process p = spawn(CHUNKFORGE_SERVER, args, temp(log));
  code = wait_for(p, std::chrono::seconds(10));
  return read_text(p.log);
}

// The printed configuration's value of `key` ("" if it is not set).
std::string value_of(const std::string& printed, const std::string& key) {
  std::smatch m;
  if (!std::regex_search(printed, m, std::regex("\n" + key + " = ([^\n]*)"))) return "";
  return m[1];
}

TEST(ServerConfigTest, AFlagWinsOverItsVariableWhichWinsOverTheFile) {
  const std::string file = write_file("precedence.toml",
                                      "cache-mb = 512\nthreads = 3\nmax-radius = 9\nlook-ahead = false\n"
                                      "open-edits = true\nhttp = \"\"\n");
  setenv("CHUNKFORGE_THREADS", "5", 1);
  setenv("CHUNKFORGE_MAX_RADIUS", "7", 1);
  setenv("CHUNKFORGE_STORE_REBIND", "", 1);  // a plain flag's empty variable is unset
  int code = -1;
  const std::string printed = run({"--config", file, "--max-radius", "4", "--print-config"}, "precedence.log", code);
  unsetenv("CHUNKFORGE_THREADS");
  unsetenv("CHUNKFORGE_MAX_RADIUS");
  unsetenv("CHUNKFORGE_STORE_REBIND");
  ASSERT_EQ(code, 0) << printed;
  EXPECT_EQ(value_of(printed, "cache-mb"), "512") << printed;        // the file over the default
  EXPECT_EQ(value_of(printed, "threads"), "5") << printed;           // the variable over the file
  EXPECT_EQ(value_of(printed, "max-radius"), "4") << printed;        // the flag over both
  EXPECT_EQ(value_of(printed, "look-ahead"), "'off'") << printed;    // a switch from a boolean
  EXPECT_EQ(value_of(printed, "open-edits"), "true") << printed;     // a plain flag
  EXPECT_EQ(value_of(printed, "http"), "''") << printed;             // "" is a value: no side port
  EXPECT_EQ(value_of(printed, "max-sessions"), "1000") << printed;   // the default
  EXPECT_EQ(value_of(printed, "store-rebind"), "false") << printed;  // "" for a plain flag: unset
}

TEST(ServerConfigTest, EveryProblemOfAFileIsNamedAtOnceAndNothingStarts) {
  const std::string file = write_file("bad.toml",
                                      "cache-mb = 512\n"
                                      "cache-size = 1\n"
                                      "threads = \"many\"\n"
                                      "max-radius = 99\n"
                                      "open-edits = \"yes\"\n"
                                      "tls-cert = \"/etc/cert.pem\"\n"
                                      "[map]\nplayers = true\n");
  int code = -1;
  const std::string out = run({"--config", file, "--listen", "127.0.0.1:0", "--http", "127.0.0.1:0"}, "bad.log", code);
  EXPECT_EQ(code, 2) << out;
  for (const char* line :
       {":2: cache-size: unknown key", ":3: threads: must be an integer in [1, 256]",
        ":4: max-radius: must be an integer in [0, 64] (got \"99\")", ":5: open-edits: is true or false",
        ":7: map: is a table", ":6: tls-cert: needs tls-key too"}) {
    EXPECT_NE(out.find(file + line), std::string::npos) << line << "\n" << out;
  }
  EXPECT_EQ(out.find("on port"), std::string::npos) << out;

  const std::string malformed = write_file("malformed.toml", "cache-mb = \n");
  const std::string why = run({"--config", malformed}, "malformed.log", code);
  EXPECT_EQ(code, 2) << why;
  EXPECT_NE(why.find(malformed + ":1:"), std::string::npos) << why;
  const std::string missing = run({"--config", temp("none.toml")}, "missing.log", code);
  EXPECT_EQ(code, 2) << missing;
  EXPECT_NE(missing.find("--config \"" + temp("none.toml") + "\": cannot read it"), std::string::npos) << missing;
}

TEST(ServerConfigTest, ThePrintedConfigurationReadsBackTheSameWithItsPasswordMasked) {
  setenv("CHUNKFORGE_OPEN_EDITS", "1", 1);
  int code = -1;
  const std::string first = run({"--seed", "7", "--http", "", "--store-optional", "--store",
                                 "postgres://player:hunter2@db.invalid/world", "--print-config"},
                                "print.log", code);
  unsetenv("CHUNKFORGE_OPEN_EDITS");
  ASSERT_EQ(code, 0) << first;
  EXPECT_EQ(first.find("hunter2"), std::string::npos) << first;
  EXPECT_EQ(value_of(first, "store"), "'postgres://player:***@db.invalid/world'") << first;
  EXPECT_EQ(value_of(first, "open-edits"), "true") << first;
  const std::string file = write_file("printed.toml", first);
  const std::string second = run({"--config", file, "--print-config"}, "reprint.log", code);
  ASSERT_EQ(code, 0) << second;
  EXPECT_EQ(second, first);
}

// A served start's summary, logged as JSON: every line an object with time, level and message;
// open edits a warning.
TEST(ServerConfigTest, TheStartUpSummarySaysWhatRunsAndWarnsOfOpenEditsInJsonLines) {
#if defined(__SANITIZE_THREAD__)
  // The server's TSan build reports races inside Debian's uninstrumented gRPC and Abseil (an
  // Abseil mutex graph, gRPC's poller) into the very log this test reads, and exits 66.
  GTEST_SKIP() << "the log under TSan holds reports from uninstrumented libraries";
#endif
  const std::string data = temp("summary_data");
  const Process p = spawn(CHUNKFORGE_SERVER,
                          {"--listen", "127.0.0.1:0", "--http", "127.0.0.1:0", "--threads", "1", "--data", data,
                           "--open-edits", "--log-format", "json", "--max-sessions", "321"},
                          temp("summary.log"));
  ASSERT_GT(wait_until_serving(p), 0) << read_text(p.log);
  kill(p.pid, SIGTERM);
  EXPECT_EQ(wait_for(p, std::chrono::seconds(10)), 0) << read_text(p.log);
  std::map<std::string, std::string> level_of;  // a message's first words -> its level
  std::istringstream lines(read_text(p.log));
  for (std::string line; std::getline(lines, line);) {
    // The whole line, field by field (a regex, not protobuf's JSON parser: under TSan its
    // headers and Debian's uninstrumented library disagree on a map's layout).
    std::smatch m;
    const std::regex object(R"re(\{"time":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z","level":"([a-z]+)",)re"
                            R"re("message":"((?:[^"\\\x00-\x1f]|\\["\\u0-9a-f])*)"\})re");
    ASSERT_TRUE(std::regex_match(line, m, object)) << line;
    const std::string message = m[2];
    level_of[message.substr(0, message.find(' '))] = m[1];
    if (message.starts_with("edits:")) {
      EXPECT_NE(message.find("kept in sqlite:" + data), std::string::npos) << message;
      EXPECT_NE(message.find("ANYONE who may read may edit"), std::string::npos) << message;
    }
    if (message.starts_with("limits:")) {
      EXPECT_NE(message.find("sessions 321"), std::string::npos) << message;
    }
  }
  EXPECT_EQ(level_of["chunkforge-server:"], "info");
  EXPECT_EQ(level_of["edits:"], "warning");
  EXPECT_EQ(level_of["map:"], "info");
  EXPECT_EQ(level_of["limits:"], "info");
}

// Every flag --help lists with its variable is a row of docs/deploy.md's table, and the other
// way round: README and the docs send operators there.
TEST(ServerConfigTest, TheDocumentedVariablesAreExactlyTheFlagsOfHelp) {
  int code = -1;
  const std::string help = run({"--help"}, "help.log", code);
  ASSERT_EQ(code, 0) << help;
  std::map<std::string, std::string> from_help;  // flag -> variable
  const std::regex option("(--[a-z-]+)[^\n]*\\(Env:(CHUNKFORGE_[A-Z_]+)\\)");
  for (auto it = std::sregex_iterator(help.begin(), help.end(), option); it != std::sregex_iterator(); ++it) {
    from_help[(*it)[1]] = (*it)[2];
  }
  EXPECT_GT(from_help.size(), 30u) << help;

  std::map<std::string, std::string> documented;
  std::ifstream deploy(std::string(CHUNKFORGE_SOURCE_DIR) + "/docs/deploy.md");
  const std::regex variable("`(CHUNKFORGE_[A-Z_]+)`"), flag("`(--[a-z-]+)`");
  for (std::string line; std::getline(deploy, line);) {
    if (line.rfind("| `CHUNKFORGE_", 0) != 0) continue;
    const size_t cells = line.find(" | ", 2);
    const std::string names = line.substr(0, cells), flags = line.substr(cells, line.find(" | ", cells + 3) - cells);
    std::vector<std::string> vs, fs;
    for (auto it = std::sregex_iterator(names.begin(), names.end(), variable); it != std::sregex_iterator(); ++it) {
      vs.push_back((*it)[1]);
    }
    for (auto it = std::sregex_iterator(flags.begin(), flags.end(), flag); it != std::sregex_iterator(); ++it) {
      fs.push_back((*it)[1]);
    }
    ASSERT_EQ(vs.size(), fs.size()) << line;
    for (size_t k = 0; k < vs.size(); ++k) documented[fs[k]] = vs[k];
  }
  EXPECT_EQ(documented, from_help);
}

}  // namespace
