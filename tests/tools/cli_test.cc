// The `chunkforge` command, run as a real process: exit codes, stdout and stderr.
//
// Each run goes through the shell with stdout and stderr redirected to files of its own under
// testing::TempDir(), named after the test and the process, so tests may run in parallel.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "chunkforge/world.h"

namespace chunkforge {
namespace {

const std::string kDefaultWorldFile = CHUNKFORGE_SOURCE_DIR "/docs/worlds/default.json";

// A path under the test temp dir unique to this test and process, ending in `suffix`.
std::string temp_path(std::string_view suffix) {
  const testing::TestInfo* test = testing::UnitTest::GetInstance()->current_test_info();
  std::string name = std::string(test->test_suite_name()) + "." + test->name();
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';  // parameterized names hold '/'
  }
  return testing::TempDir() + "chunkforge_cli_" + name + "_" + std::to_string(getpid()) + "_" +
         std::string(suffix);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A file with the given text under the test temp dir, removed when it goes out of scope.
class TempFile {
 public:
  explicit TempFile(std::string_view text) : path_(temp_path("world.json")) {
    std::ofstream(path_, std::ios::binary) << text;
  }
  ~TempFile() { std::filesystem::remove(path_); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// `text` with the first `from` (which must occur in it) replaced by `to`.
std::string replaced(std::string text, std::string_view from, std::string_view to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

std::string shell_quote(std::string_view word) {
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// For failure messages: everything a run printed.
std::ostream& operator<<(std::ostream& os, const CliResult& r) {
  return os << "exit " << r.exit_code << "\n--- stdout:\n" << r.out << "--- stderr:\n" << r.err;
}

CliResult run_cli(const std::vector<std::string>& args) {
  const std::string out_path = temp_path("stdout"), err_path = temp_path("stderr");
  std::string command = shell_quote(CHUNKFORGE_CLI);
  for (const std::string& a : args) command += " " + shell_quote(a);
  command += " >" + shell_quote(out_path) + " 2>" + shell_quote(err_path);
  const int status = std::system(command.c_str());
  CliResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = read_file(out_path);
  result.err = read_file(err_path);
  std::filesystem::remove(out_path);
  std::filesystem::remove(err_path);
  return result;
}

bool contains(const std::string& text, std::string_view fragment) {
  return text.find(fragment) != std::string::npos;
}

// The number after "key": in one line of JSON; NaN when absent.
double json_number(const std::string& json, const std::string& key) {
  const std::string needle = "\"" + key + "\":";
  const size_t at = json.find(needle);
  if (at == std::string::npos) return std::numeric_limits<double>::quiet_NaN();
  return std::strtod(json.c_str() + at + needle.size(), nullptr);
}

// The string value of "key" in one line of JSON; empty when absent.
std::string json_string(const std::string& json, const std::string& key) {
  const std::string needle = "\"" + key + "\":\"";
  const size_t at = json.find(needle);
  if (at == std::string::npos) return "";
  const size_t start = at + needle.size();
  return json.substr(start, json.find('"', start) - start);
}

// --- validate ------------------------------------------------------------------------------

TEST(CliValidateTest, AcceptsShippedWorld) {
  const CliResult r = run_cli({"validate", kDefaultWorldFile});
  EXPECT_EQ(r.exit_code, 0) << r;
  EXPECT_TRUE(contains(r.out, "ok")) << r;
  EXPECT_TRUE(contains(r.out, "\"Temperate\"")) << r;
}

TEST(CliValidateTest, AcceptsBuiltInWorldWithoutFile) {
  const CliResult r = run_cli({"validate"});
  EXPECT_EQ(r.exit_code, 0) << r;
  EXPECT_TRUE(contains(r.out, "built-in world: ok")) << r;
}

TEST(CliValidateTest, RejectsSemanticErrorsWithTheirPaths) {
  // Two independent faults: iron's minimum density (resources[1]) and the chunk size.
  const TempFile file(replaced(
      replaced(read_file(kDefaultWorldFile), R"("min": 0.4, "max": 1 }, "density_threshold": 0.6)",
               R"("min": 0, "max": 1 }, "density_threshold": 0.6)"),
      R"("chunk_size": 64)", R"("chunk_size": 8)"));
  const CliResult r = run_cli({"validate", file.path()});
  EXPECT_EQ(r.exit_code, 2) << r;
  EXPECT_TRUE(contains(r.err, "resources[1].density_range.min: must be in (0, 16] (got 0)")) << r;
  EXPECT_TRUE(contains(r.err, "chunk_size: must be in [16, 1024] (got 8)")) << r;
  EXPECT_TRUE(contains(r.err, "invalid world definition")) << r;
  EXPECT_FALSE(contains(r.out, "ok")) << r;
}

TEST(CliValidateTest, RejectsUnknownFieldWithItsPath) {
  const TempFile file(R"({"name": "x", "resources": [{}, {"bogus": 1}]})");
  const CliResult r = run_cli({"validate", "--world", file.path()});
  EXPECT_EQ(r.exit_code, 2) << r;
  EXPECT_TRUE(contains(r.err, "resources[1].bogus: unknown field")) << r;
}

TEST(CliValidateTest, RejectsMissingFile) {
  const std::string missing = temp_path("does_not_exist.json");
  const CliResult r = run_cli({"validate", missing});
  EXPECT_EQ(r.exit_code, 2) << r;
  EXPECT_TRUE(contains(r.err, "cannot read")) << r;
  EXPECT_TRUE(contains(r.err, missing)) << r;
}

TEST(CliValidateTest, RejectsTwoFiles) {
  const CliResult r = run_cli({"validate", kDefaultWorldFile, kDefaultWorldFile});
  EXPECT_EQ(r.exit_code, 2) << r;
  EXPECT_TRUE(contains(r.err, "usage:")) << r;
}

// --- info ----------------------------------------------------------------------------------

TEST(CliInfoTest, JsonDescribesBuiltInWorld) {
  const CliResult r = run_cli({"info", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_TRUE(contains(r.out, "\"generator_version\":1")) << r;
  EXPECT_TRUE(contains(r.out, "\"name\":\"forest\"")) << r;
  EXPECT_TRUE(contains(r.out, "\"name\":\"iron\"")) << r;
  EXPECT_TRUE(contains(r.out, "\"name\":\"coal\"")) << r;
  EXPECT_EQ(json_string(r.out, "seed"), std::to_string(default_world().seed())) << r;
  EXPECT_EQ(json_string(r.out, "fingerprint"), default_world().fingerprint()) << r;
}

TEST(CliInfoTest, SeedOptionChangesSeedAndFingerprint) {
  const CliResult base = run_cli({"info", "--json"});
  const CliResult seeded = run_cli({"info", "--json", "--seed", "42"});
  ASSERT_EQ(base.exit_code, 0) << base;
  ASSERT_EQ(seeded.exit_code, 0) << seeded;
  EXPECT_EQ(json_string(seeded.out, "seed"), "42") << seeded;
  EXPECT_EQ(json_string(seeded.out, "fingerprint").size(), 16u) << seeded;
  EXPECT_NE(json_string(seeded.out, "fingerprint"), json_string(base.out, "fingerprint"));
}

TEST(CliInfoTest, LargestSeedIsAccepted) {
  const CliResult r = run_cli({"info", "--json", "--seed", "18446744073709551615"});
  EXPECT_EQ(r.exit_code, 0) << r;
  EXPECT_EQ(json_string(r.out, "seed"), "18446744073709551615") << r;
}

TEST(CliInfoTest, TextOutputListsLayers) {
  const CliResult r = run_cli({"info", "--world", kDefaultWorldFile});
  EXPECT_EQ(r.exit_code, 0) << r;
  EXPECT_TRUE(contains(r.out, "world \"Temperate\"")) << r;
  EXPECT_TRUE(contains(r.out, "fingerprint " + default_world().fingerprint())) << r;
  EXPECT_TRUE(contains(r.out, "iron")) << r;
}

TEST(CliInfoTest, RejectsPositionalArgument) {
  const CliResult r = run_cli({"info", "extra"});
  EXPECT_EQ(r.exit_code, 2) << r;
}

// --- sample --------------------------------------------------------------------------------

TEST(CliSampleTest, ElevationMatchesLibrary) {
  const CliResult r = run_cli({"sample", "100", "200", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r;
  const TerrainPoint expected =
      default_world().terrain().sample(Coord::from_double(100), Coord::from_double(200));
  EXPECT_EQ(json_number(r.out, "elevation"), expected.elevation) << r;
  EXPECT_EQ(json_number(r.out, "x"), 100.0) << r;
  EXPECT_EQ(json_number(r.out, "z"), 200.0) << r;
}

TEST(CliSampleTest, NegativeFractionalCoordinatesMatchLibrary) {
  const CliResult r = run_cli({"sample", "-12.5", "0.75", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r;
  const TerrainPoint expected =
      default_world().terrain().sample(Coord::from_double(-12.5), Coord::from_double(0.75));
  EXPECT_EQ(json_number(r.out, "elevation"), expected.elevation) << r;
}

TEST(CliSampleTest, FarCoordinateIsExact) {
  const CliResult r = run_cli({"sample", "1099511627776.25", "-3", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r;
  const Coord x = Coord::from_parts(int64_t{1} << 40, 0.25);
  const TerrainPoint expected = default_world().terrain().sample(x, Coord::from_double(-3));
  EXPECT_EQ(json_number(r.out, "elevation"), expected.elevation) << r;
  EXPECT_EQ(json_number(r.out, "x"), 1099511627776.25) << r;
}

TEST(CliSampleTest, ReportsDensityAtGivenHeight) {
  const CliResult r = run_cli({"sample", "100", "200", "--y", "-5.5", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r;
  const Terrain& terrain = default_world().terrain();
  EXPECT_EQ(json_number(r.out, "density_y"), -5.5) << r;
  EXPECT_EQ(json_number(r.out, "density"),
            terrain.density(Coord::from_double(100), -5.5, Coord::from_double(200)))
      << r;
}

TEST(CliSampleTest, RejectsNonNumber) {
  const CliResult r = run_cli({"sample", "abc", "200"});
  EXPECT_EQ(r.exit_code, 2) << r;
  EXPECT_TRUE(contains(r.err, "decimal numbers")) << r;
}

TEST(CliSampleTest, RejectsCoordinateBeyondTwoToTheForty) {
  const CliResult r = run_cli({"sample", "1099511627777", "0"});
  EXPECT_EQ(r.exit_code, 2) << r;
}

TEST(CliSampleTest, RejectsMissingCoordinate) {
  const CliResult r = run_cli({"sample", "100"});
  EXPECT_EQ(r.exit_code, 2) << r;
  EXPECT_TRUE(contains(r.err, "needs X and Z")) << r;
}

// --- options and usage ---------------------------------------------------------------------

// Parameter: the subcommand.
class CliSubcommandTest : public testing::TestWithParam<const char*> {};

TEST_P(CliSubcommandTest, HelpPrintsUsageAndExitsZero) {
  const CliResult r = run_cli({GetParam(), "--help"});
  EXPECT_EQ(r.exit_code, 0) << r;
  EXPECT_TRUE(contains(r.out, std::string("usage: chunkforge ") + GetParam())) << r;
}

TEST_P(CliSubcommandTest, UnknownOptionExitsTwo) {
  const CliResult r = run_cli({GetParam(), "--bogus"});
  EXPECT_EQ(r.exit_code, 2) << r;
  EXPECT_TRUE(contains(r.err, "unknown option --bogus")) << r;
}

INSTANTIATE_TEST_SUITE_P(Cli, CliSubcommandTest, testing::Values("validate", "info", "sample"),
                         [](const testing::TestParamInfo<const char*>& test) {
                           return std::string(test.param);
                         });

TEST(CliTest, TopLevelHelpExitsZero) {
  const CliResult r = run_cli({"--help"});
  EXPECT_EQ(r.exit_code, 0) << r;
  EXPECT_TRUE(contains(r.out, "usage:")) << r;
}

TEST(CliTest, NoArgumentsExitsTwo) {
  const CliResult r = run_cli({});
  EXPECT_EQ(r.exit_code, 2) << r;
  EXPECT_TRUE(contains(r.err, "usage:")) << r;
}

TEST(CliTest, UnknownSubcommandExitsTwo) {
  const CliResult r = run_cli({"frobnicate"});
  EXPECT_EQ(r.exit_code, 2) << r;
  EXPECT_TRUE(contains(r.err, "unknown command \"frobnicate\"")) << r;
}

TEST(CliTest, OptionWithoutValueExitsTwo) {
  const CliResult r = run_cli({"info", "--seed"});
  EXPECT_EQ(r.exit_code, 2) << r;
  EXPECT_TRUE(contains(r.err, "--seed needs a value")) << r;
}

TEST(CliTest, NonNumericSeedExitsTwo) {
  const CliResult r = run_cli({"info", "--seed", "abc"});
  EXPECT_EQ(r.exit_code, 2) << r;
  EXPECT_TRUE(contains(r.err, "--seed")) << r;
  EXPECT_TRUE(contains(r.err, "\"abc\"")) << r;
}

TEST(CliTest, NegativeSeedExitsTwo) {
  const CliResult r = run_cli({"sample", "0", "0", "--seed", "-1"});
  EXPECT_EQ(r.exit_code, 2) << r;
}

}  // namespace
}  // namespace chunkforge
