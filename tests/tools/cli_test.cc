// The `chunkforge` command, run as a real process: exit codes, stdout and stderr. `edit` runs
// against the server binary (when it is built) with a store of its own.
//
// Each run goes through the shell with stdout and stderr redirected to files of its own under
// testing::TempDir(), named after the test and the process, so tests may run in parallel.
#include <google/protobuf/descriptor.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "chunkforge/chunk.h"
#include "chunkforge/encode.h"
#include "chunkforge/v1/edit.pb.h"
#include "chunkforge/world.h"
#ifdef CHUNKFORGE_SERVER
#include "support/server_process.h"
#include "support/temp_dir.h"
#endif

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
  return test::unique_temp_dir("cli_" + name) + std::string(suffix);
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

bool contains(const std::string& text, std::string_view fragment) { return text.find(fragment) != std::string::npos; }

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

TEST(CliValidateTest, WarnsAboutAnUnpinnedGeneratorVersion) {
  const TempFile file(replaced(read_file(kDefaultWorldFile), R"("generator_version": 2,)", ""));
  const CliResult r = run_cli({"validate", file.path()});
  EXPECT_EQ(r.exit_code, 0) << r;
  EXPECT_TRUE(contains(r.err, "warning: generator_version: not pinned")) << r;
  EXPECT_FALSE(contains(run_cli({"validate", kDefaultWorldFile}).err, "warning")) << "the shipped world is pinned";
}

TEST(CliValidateTest, AcceptsBuiltInWorldWithoutFile) {
  const CliResult r = run_cli({"validate"});
  EXPECT_EQ(r.exit_code, 0) << r;
  EXPECT_TRUE(contains(r.out, "built-in world: ok")) << r;
}

TEST(CliValidateTest, RejectsSemanticErrorsWithTheirPaths) {
  // Two independent faults: iron's minimum density (resources[1]) and the chunk size.
  const TempFile file(
      replaced(replaced(read_file(kDefaultWorldFile), R"("min": 0.4, "max": 1 }, "density_threshold": 0.6)",
                        R"("min": 0, "max": 1 }, "density_threshold": 0.6)"),
               R"("chunk_size": 64)", R"("chunk_size": 8)"));
  const CliResult r = run_cli({"validate", file.path()});
  EXPECT_EQ(r.exit_code, 2) << r;
  EXPECT_TRUE(contains(r.err, "resources[1].density_range.min: must be in (0, 16] (got 0)")) << r;
  EXPECT_TRUE(contains(r.err, "chunk_size: must be in [16, 1024] (got 8)")) << r;
  EXPECT_TRUE(contains(r.err, "invalid world definition")) << r;
  EXPECT_FALSE(contains(r.out, "ok")) << r;
}

TEST(CliValidateTest, SaysWhetherAWorldMayFollowAnotherAsItsNextEpoch) {
  const std::string next_epoch = std::string(CHUNKFORGE_SOURCE_DIR) + "/tests/lib/worlds/epoch_next.json";
  const CliResult ok = run_cli({"validate", next_epoch, "--previous", kDefaultWorldFile});
  EXPECT_EQ(ok.exit_code, 0) << ok;
  EXPECT_TRUE(contains(ok.out, "may follow")) << ok;

  const TempFile renamed(replaced(replaced(read_file(kDefaultWorldFile), R"("name": "cabin")", R"("name": "hut")"),
                                  R"("chunk_size": 64)", R"("chunk_size": 32)"));
  const CliResult r = run_cli({"validate", renamed.path(), "--previous", kDefaultWorldFile});
  EXPECT_EQ(r.exit_code, 2) << r;
  EXPECT_TRUE(contains(r.err, "chunk_size: must stay 64, the previous epoch's (got 32)")) << r;
  EXPECT_TRUE(contains(r.err, "structures[1].name: must stay \"cabin\"")) << r;
  EXPECT_TRUE(contains(r.err, "cannot follow")) << r;
}

TEST(CliValidateTest, RejectsUnknownFieldWithItsPath) {
  const TempFile file(R"({"name": "x", "resources": [{}, {"bogus": 1}]})");
  const CliResult r = run_cli({"validate", "--world", file.path()});
  EXPECT_EQ(r.exit_code, 2) << r;
  EXPECT_TRUE(contains(r.err, "resources[1].bogus: unknown field")) << r;
}

TEST(CliValidateTest, ReportsEveryUnknownFieldAndBadValueAtOnce) {
  // Unknown fields at three levels, a value of the wrong type, an enum value that is none, and a
  // semantic fault (iron's minimum density): all six, each with its path.
  std::string world = read_file(kDefaultWorldFile);
  world = replaced(world, R"("chunk_size": 64)", R"("chunk_size": 64, "chunk_sise": 64)");
  world = replaced(world, R"("sea_level": 0,)", R"("sea_level": 0, "sea_levle": 1, "caves_on": true,)");
  world = replaced(world, R"("kind": "perlin", "octaves": 5)", R"("kind": "perlim", "octaves": 5)");
  world = replaced(world, R"({ "name": "beach", "color": "#e8d9a0")", R"({ "name": "beach", "color": 7)");
  world = replaced(world, R"("min": 0.4, "max": 1 }, "density_threshold": 0.6)",
                   R"("min": 0, "max": 1, "mx": 2 }, "density_threshold": 0.6)");
  const TempFile file(world);
  const CliResult r = run_cli({"validate", file.path()});
  EXPECT_EQ(r.exit_code, 2) << r;
  for (const char* expected : {"chunk_sise: unknown field", "terrain.sea_levle: unknown field",
                               "terrain.caves_on: unknown field", "resources[1].density_range.mx: unknown field",
                               "terrain.elevation.kind: invalid value \"perlim\": must be one of",
                               "biomes[1].color: invalid value 7: expected a string",
                               "resources[1].density_range.min: must be in (0, 16] (got 0)"}) {
    EXPECT_TRUE(contains(r.err, expected)) << expected << "\n" << r;
  }
  // Nothing of what was taken out is reported again as missing.
  EXPECT_FALSE(contains(r.err, "terrain.elevation.kind: must")) << r;
  EXPECT_FALSE(contains(r.err, "biomes[1].color: must")) << r;
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
  EXPECT_TRUE(contains(r.err, "validate: unexpected argument " + kDefaultWorldFile)) << r;
}

TEST(CliValidateTest, RejectsFileAndWorldOptionTogether) {
  const CliResult r = run_cli({"validate", kDefaultWorldFile, "--world", kDefaultWorldFile});
  EXPECT_EQ(r.exit_code, 2) << r;
  EXPECT_TRUE(contains(r.err, "--world excludes FILE")) << r;
}

// --- info ----------------------------------------------------------------------------------

TEST(CliInfoTest, JsonDescribesBuiltInWorld) {
  const CliResult r = run_cli({"info", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_TRUE(contains(r.out, "\"generator_version\":2")) << r;
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
  const TerrainPoint expected = default_world().terrain().sample(Coord::from_double(100), Coord::from_double(200));
  EXPECT_EQ(json_number(r.out, "elevation"), expected.elevation()) << r;
  EXPECT_EQ(json_number(r.out, "x"), 100.0) << r;
  EXPECT_EQ(json_number(r.out, "z"), 200.0) << r;
}

TEST(CliSampleTest, NegativeFractionalCoordinatesMatchLibrary) {
  const CliResult r = run_cli({"sample", "-12.5", "0.75", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r;
  const TerrainPoint expected = default_world().terrain().sample(Coord::from_double(-12.5), Coord::from_double(0.75));
  EXPECT_EQ(json_number(r.out, "elevation"), expected.elevation()) << r;
}

TEST(CliSampleTest, FarCoordinateIsExact) {
  const CliResult r = run_cli({"sample", "1099511627776.25", "-3", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r;
  const Coord x = Coord::from_parts(int64_t{1} << 40, 0.25);
  const TerrainPoint expected = default_world().terrain().sample(x, Coord::from_double(-3));
  EXPECT_EQ(json_number(r.out, "elevation"), expected.elevation()) << r;
  EXPECT_EQ(json_number(r.out, "x"), 1099511627776.25) << r;
}

TEST(CliSampleTest, ReportsDensityAtGivenHeight) {
  const CliResult r = run_cli({"sample", "100", "200", "--y", "-5.5", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r;
  const Terrain& terrain = default_world().terrain();
  EXPECT_EQ(json_number(r.out, "density_y"), -5.5) << r;
  EXPECT_EQ(json_number(r.out, "density"), terrain.density(Coord::from_double(100), -5.5, Coord::from_double(200)))
      << r;
}

TEST(CliSampleTest, RejectsNonNumber) {
  const CliResult r = run_cli({"sample", "abc", "200"});
  EXPECT_EQ(r.exit_code, 2) << r;
  EXPECT_TRUE(contains(r.err, "X: must be a decimal number with |value| <= 2^40 (got \"abc\")")) << r;
}

TEST(CliSampleTest, RejectsCoordinateBeyondTwoToTheForty) {
  const CliResult r = run_cli({"sample", "1099511627777", "0"});
  EXPECT_EQ(r.exit_code, 2) << r;
}

TEST(CliSampleTest, RejectsMissingCoordinate) {
  const CliResult r = run_cli({"sample", "100"});
  EXPECT_EQ(r.exit_code, 2) << r;
  EXPECT_TRUE(contains(r.err, "Z is required")) << r;
}

// A leading "-." is a negative decimal, not an option.
TEST(CliSampleTest, NegativeFractionWithoutLeadingZero) {
  const CliResult r = run_cli({"sample", "-.5", "0", "--json"});
  const CliResult spelled_out = run_cli({"sample", "-0.5", "0", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_EQ(r.out, spelled_out.out);
}

// --- chunk, region, render ----------------------------------------------------------------

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

size_t occurrences(const std::string& text, std::string_view fragment) {
  size_t n = 0;
  for (size_t at = text.find(fragment); at != std::string::npos; at = text.find(fragment, at + 1)) ++n;
  return n;
}

// The items of the JSON array "key":[...] (numbers only, no nesting).
size_t json_array_size(const std::string& json, const std::string& key) {
  const std::string needle = "\"" + key + "\":[";
  const size_t at = json.find(needle);
  if (at == std::string::npos) return 0;
  const size_t start = at + needle.size(), end = json.find(']', start);
  if (end == start) return 0;
  return static_cast<size_t>(std::count(json.begin() + static_cast<std::ptrdiff_t>(start),
                                        json.begin() + static_cast<std::ptrdiff_t>(end), ',')) +
         1;
}

std::string hex16(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

TEST(CliChunkTest, PrintsOneJsonLineWithObjectsAndHash) {
  const CliResult r = run_cli({"chunk", "0", "0"});
  ASSERT_EQ(r.exit_code, 0) << r;
  ASSERT_EQ(lines_of(r.out).size(), 1u) << r;
  EXPECT_EQ(r.out.back(), '\n');
  EXPECT_EQ(r.out.front(), '{');
  EXPECT_EQ(json_number(r.out, "x"), 0.0) << r;
  EXPECT_EQ(json_number(r.out, "chunk_size"), 64.0) << r;
  EXPECT_TRUE(contains(r.out, "\"objects\":[{")) << r;
  EXPECT_FALSE(contains(r.out, "\"terrain\"")) << r;
  // The same chunk as the library's, hash and object count.
  const World& world = default_world();
  const ChunkData data = Generator(world).generate({0, 0});
  EXPECT_EQ(json_string(r.out, "hash"), hex16(chunk_hash(encode_chunk(world, data)))) << r;
  EXPECT_EQ(occurrences(r.out, "\"layer\":"), data.objects.size()) << r;
  EXPECT_TRUE(contains(r.out, "\"layer\":\"forest\"")) << r;
}

TEST(CliChunkTest, ObjectsAreInWorldCoordinates) {
  const CliResult r = run_cli({"chunk", "-3", "2"});
  ASSERT_EQ(r.exit_code, 0) << r;
  const std::string objects = r.out.substr(r.out.find("\"objects\":["));
  const double x = json_number(objects, "x"), z = json_number(objects, "z");
  EXPECT_GE(x, -3 * 64.0) << r;
  EXPECT_LT(x, -2 * 64.0) << r;
  EXPECT_GE(z, 2 * 64.0) << r;
  EXPECT_LT(z, 3 * 64.0) << r;
}

TEST(CliChunkTest, TerrainAddsAGridOfTheRequestedStep) {
  const CliResult r = run_cli({"chunk", "0", "0", "--terrain", "4"});
  ASSERT_EQ(r.exit_code, 0) << r;
  ASSERT_EQ(lines_of(r.out).size(), 1u) << r;
  EXPECT_TRUE(contains(r.out, "\"terrain\":{\"step\":4,\"size\":16,")) << r;
  EXPECT_EQ(json_array_size(r.out, "elevation"), 256u) << r;
  EXPECT_EQ(json_array_size(r.out, "biome"), 256u) << r;
  EXPECT_EQ(json_array_size(r.out, "material"), 256u) << r;
  // The objects do not change with the terrain grid.
  const CliResult plain = run_cli({"chunk", "0", "0"});
  const std::string objects = plain.out.substr(plain.out.find("\"objects\""));
  EXPECT_TRUE(contains(r.out, objects.substr(0, objects.find(']') + 1))) << r;
}

TEST(CliChunkTest, FarChunkIsGenerated) {
  const CliResult r = run_cli({"chunk", "17179869183", "-17179869184"});
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_EQ(json_number(r.out, "x"), 17179869183.0) << r;
  EXPECT_EQ(json_string(r.out, "hash").size(), 16u) << r;
}

TEST(CliRegionTest, PrintsOneLinePerChunkInRowOrder) {
  const CliResult r = run_cli({"region", "-2", "-2", "2", "2"});
  ASSERT_EQ(r.exit_code, 0) << r;
  const std::vector<std::string> lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 25u) << r;
  for (size_t k = 0; k < lines.size(); ++k) {
    EXPECT_EQ(json_number(lines[k], "x"), -2.0 + static_cast<double>(k % 5)) << lines[k].substr(0, 80);
    EXPECT_EQ(json_number(lines[k], "z"),
              -2.0 + static_cast<double>(k / 5))  // NOLINT(bugprone-integer-division): the row
        << lines[k].substr(0, 80);
  }
  // A chunk of the region is the chunk on its own.
  const CliResult single = run_cli({"chunk", "0", "0"});
  EXPECT_EQ(lines[12] + "\n", single.out);
}

TEST(CliRegionTest, OutputIsIdenticalInEveryOrderAndOnEveryThreadCount) {
  const CliResult rows = run_cli({"region", "-2", "-2", "2", "2", "--order", "rows", "--threads", "1"});
  ASSERT_EQ(rows.exit_code, 0) << rows;
  for (const std::vector<std::string>& options : {std::vector<std::string>{"--order", "spiral"},
                                                  {"--order", "shuffle"},
                                                  {"--threads", "2"},
                                                  {"--order", "shuffle", "--threads", "2"},
                                                  {"--order", "spiral", "--threads", "2"}}) {
    std::vector<std::string> args = {"region", "-2", "-2", "2", "2"};
    args.insert(args.end(), options.begin(), options.end());
    const CliResult r = run_cli(args);
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(r.out == rows.out) << options[0] << " " << options[1] << (options.size() > 2 ? " ..." : "");
  }
}

TEST(CliRegionTest, TerrainOptionAddsGrids) {
  const CliResult r = run_cli({"region", "0", "0", "1", "0", "--terrain", "8"});
  ASSERT_EQ(r.exit_code, 0) << r;
  const std::vector<std::string> lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 2u) << r;
  for (const std::string& line : lines) EXPECT_TRUE(contains(line, "\"terrain\":{\"step\":8,\"size\":8,"));
}

// Parameter: arguments and a fragment the error message must hold.
struct BadInputCase {
  const char* name;
  std::vector<std::string> args;
  std::string message;
};

class CliBadInputTest : public testing::TestWithParam<BadInputCase> {};

TEST_P(CliBadInputTest, ExitsTwoWithAClearMessage) {
  const CliResult r = run_cli(GetParam().args);
  EXPECT_EQ(r.exit_code, 2) << r;
  EXPECT_TRUE(contains(r.err, GetParam().message)) << r;
  EXPECT_TRUE(r.out.empty()) << r;
}

const BadInputCase kBadInputCases[] = {
    {"ChunkNonInteger", {"chunk", "1.5", "0"}, "CX: must be an integer (got \"1.5\")"},
    {"ChunkWord", {"chunk", "0", "north"}, "CZ: must be an integer (got \"north\")"},
    {"ChunkOneCoordinate", {"chunk", "0"}, "CZ is required"},
    {"ChunkThreeCoordinates", {"chunk", "0", "1", "2"}, "unexpected argument 2"},
    {"ChunkBeyondTheWorld", {"chunk", "17179869185", "0"}, "beyond the supported world"},
    {"ChunkTerrainStepNotADivisor",
     {"chunk", "0", "0", "--terrain", "3"},
     "--terrain STEP must divide the chunk size 64"},
    {"ChunkTerrainStepZero", {"chunk", "0", "0", "--terrain", "0"}, "--terrain STEP must divide the chunk size 64"},
    {"RegionNonInteger", {"region", "0", "0", "x", "1"}, "CX1: must be an integer (got \"x\")"},
    {"RegionThreeCoordinates", {"region", "0", "0", "1"}, "CZ1 is required"},
    {"RegionCx1BelowCx0", {"region", "0", "0", "-1", "0"}, "CX0 <= CX1"},
    {"RegionCz1BelowCz0", {"region", "0", "0", "0", "-1"}, "CZ0 <= CZ1"},
    {"RegionUnknownOrder",
     {"region", "0", "0", "1", "1", "--order", "zigzag"},
     "--order: must be rows, spiral or shuffle (got \"zigzag\")"},
    {"RegionZeroThreads",
     {"region", "0", "0", "1", "1", "--threads", "0"},
     "--threads: must be an integer in [1, 64] (got \"0\")"},
    {"RegionOrderWithServer",
     {"region", "0", "0", "1", "1", "--order", "spiral", "--server", "127.0.0.1:1"},
     "--server excludes --order"},
    {"RegionTerrainStepNotADivisor",
     {"region", "0", "0", "1", "1", "--terrain", "3"},
     "--terrain STEP must divide the chunk size 64"},
    {"RegionTooLarge", {"region", "0", "0", "256", "255"}, "at most 65536 chunks"},
    {"RenderWithoutOut", {"render", "0", "0", "1", "1"}, "--out is required"},
    {"RenderCx1BelowCx0", {"render", "1", "0", "0", "1", "--out", "/nonexistent/x.png"}, "CX0 <= CX1"},
    {"RenderScaleZero",
     {"render", "0", "0", "1", "1", "--out", "/nonexistent/x.png", "--px-per-unit", "0"},
     "--px-per-unit: must be a number in [1/64, 64] (got \"0\")"},
    {"LocateLimitZero", {"locate", "village", "0", "0", "--limit", "0"}, "--limit: must be an integer in [1, 10000]"},
    {"LodWithoutOut", {"lod"}, "--out is required"},
    {"LodRadiusTooLarge",
     {"lod", "--radius", "65537", "--out", "/nonexistent/x.png"},
     "--radius: must be an integer in [1, 65536] (got \"65537\")"},
    {"LodOutsideTheWorld",
     {"lod", "--x", "2e12", "--out", "/nonexistent/x.png"},
     "--x: must be within [-2^40, 2^40] world units (got \"2e12\")"},
    {"LodSplitTilesBelowOne",
     {"lod", "--split-tiles", "0.5", "--out", "/nonexistent/x.png"},
     "--split-tiles: must be a number in [1, 8] (got \"0.5\")"},
    {"QualityUnknownMethod",
     {"quality", "--layer", "iron", "--method", "grid"},
     "--method: must be blue_noise, jittered_grid, noise_probability, noise_peaks or uniform (got \"grid\")"},
    {"QualityWithoutLayer", {"quality"}, "--layer is required"},
    {"TlsWithoutServer", {"info", "--tls"}, "--tls requires --server"},
    {"SeedWithServer", {"info", "--seed", "1", "--server", "127.0.0.1:1"}, "--seed excludes --server"},
    {"HealthWithoutServer", {"health"}, "--server is required"},
    {"HealthWithWorld", {"health", "--server", "127.0.0.1:1", "--world", "w.json"}, "unknown option --world"},
    {"EditWithoutServer", {"edit", "0", "0", "remove", "1"}, "--server is required"},
    {"EditUnknownOperation",
     {"edit", "0", "0", "fell", "1", "--server", "127.0.0.1:1"},
     "OP: must be remove, add, move, remove-structure or set-state (got \"fell\")"},
    {"EditIdNotHex",
     {"edit", "0", "0", "remove", "tree", "--server", "127.0.0.1:1"},
     "OBJECT_ID: must be 1 to 16 hex digits (got \"tree\")"},
    {"EditMoveWithoutZ",
     {"edit", "0", "0", "move", "1f", "2", "--server", "127.0.0.1:1"},
     "move takes OBJECT_ID X Z (got 2 values)"},
    {"EditPositionNotANumber",
     {"edit", "0", "0", "move", "1f", "2", "east", "--server", "127.0.0.1:1"},
     "Z: must be a number (got \"east\")"},
    {"EditVariantOnRemove",
     {"edit", "0", "0", "remove", "1f", "--variant", "2", "--server", "127.0.0.1:1"},
     "--variant is for add"},
    {"EditStateOddHex",
     {"edit", "0", "0", "set-state", "1f", "abc", "--server", "127.0.0.1:1"},
     "HEX: must be bytes in hex, two digits each (got \"abc\")"},
    {"EditStateAndClear",
     {"edit", "0", "0", "set-state", "1f", "ab", "--clear", "--server", "127.0.0.1:1"},
     "set-state takes OBJECT_ID with --clear (got 2 values)"},
    {"EditNegativeExpect",
     {"edit", "0", "0", "remove", "1f", "--expect", "-1", "--server", "127.0.0.1:1"},
     "--expect: must be an integer in [0, 18446744073709551615] (got \"-1\")"},
};

INSTANTIATE_TEST_SUITE_P(Cli, CliBadInputTest, testing::ValuesIn(kBadInputCases),
                         [](const testing::TestParamInfo<BadInputCase>& test) { return std::string(test.param.name); });

// Width and height from a PNG's IHDR chunk; {0, 0} if the bytes are not a PNG.
std::pair<uint32_t, uint32_t> png_size(const std::string& bytes) {
  static const std::string kSignature = "\x89PNG\r\n\x1a\n";
  if (bytes.size() < 24 || bytes.compare(0, 8, kSignature) != 0 || bytes.compare(12, 4, "IHDR") != 0) {
    return {0, 0};
  }
  auto be32 = [&](size_t at) {
    uint32_t v = 0;
    for (size_t k = 0; k < 4; ++k) v = (v << 8) | static_cast<uint8_t>(bytes[at + k]);
    return v;
  };
  return {be32(16), be32(20)};
}

TEST(CliRenderTest, WritesAPngOfOnePixelPerUnit) {
  const std::string out = temp_path("map.png");
  const CliResult r = run_cli({"render", "0", "0", "1", "1", "--out", out});
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_EQ(png_size(read_file(out)), (std::pair<uint32_t, uint32_t>{128, 128})) << r;
  EXPECT_TRUE(contains(r.out, "128 x 128")) << r;
  std::filesystem::remove(out);
}

TEST(CliRenderTest, PixelsPerUnitScalesTheImage) {
  const std::string out = temp_path("half.png");
  const CliResult r = run_cli({"render", "0", "0", "1", "1", "--out", out, "--px-per-unit", "0.5"});
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_EQ(png_size(read_file(out)), (std::pair<uint32_t, uint32_t>{64, 64})) << r;
  std::filesystem::remove(out);
}

TEST(CliRenderTest, UnwritableOutputFails) {
  const std::string out = temp_path("no_such_dir") + "/map.png";
  const CliResult r = run_cli({"render", "0", "0", "0", "0", "--out", out});
  EXPECT_NE(r.exit_code, 0) << r;
  EXPECT_TRUE(contains(r.err, "cannot open")) << r;
}

// --- options and usage ---------------------------------------------------------------------

// Parameter: the subcommand.
class CliSubcommandTest : public testing::TestWithParam<const char*> {};

TEST_P(CliSubcommandTest, HelpPrintsUsageAndExitsZero) {
  const CliResult r = run_cli({GetParam(), "--help"});
  EXPECT_EQ(r.exit_code, 0) << r;
  EXPECT_TRUE(contains(r.out, std::string("usage: chunkforge ") + GetParam())) << r;
}

// Named even where required arguments are missing too (CLI11 checks those first).
TEST_P(CliSubcommandTest, UnknownOptionExitsTwo) {
  const CliResult r = run_cli({GetParam(), "--bogus"});
  EXPECT_EQ(r.exit_code, 2) << r;
  EXPECT_TRUE(contains(r.err, "unknown option --bogus")) << r;
}

// The help is answered before any value is checked.
TEST_P(CliSubcommandTest, HelpWinsOverABadValue) {
  const CliResult r = run_cli({GetParam(), "--seed", "x", "--help"});
  EXPECT_EQ(r.exit_code, 0) << r;
  EXPECT_TRUE(contains(r.out, std::string("usage: chunkforge ") + GetParam())) << r;
}

// Every subcommand; CliTest.TheSubcommandListIsWhatHelpLists holds it to `chunkforge --help`.
constexpr const char* kSubcommands[] = {"validate", "info", "sample", "chunk", "region", "render", "quality",
                                        "locate",   "lod",  "health", "edit",  "edits",  "map",    "world"};

INSTANTIATE_TEST_SUITE_P(Cli, CliSubcommandTest, testing::ValuesIn(kSubcommands),
                         [](const testing::TestParamInfo<const char*>& test) { return std::string(test.param); });

// The names under "Subcommands:" in `chunkforge --help` (the command's own list, built from
// what main.cc declares) are kSubcommands: a new command fails here until the tests above take it.
TEST(CliTest, TheSubcommandListIsWhatHelpLists) {
  const CliResult r = run_cli({"--help"});
  ASSERT_EQ(r.exit_code, 0) << r;
  std::istringstream lines(r.out.substr(std::min(r.out.size(), r.out.find("Subcommands:\n"))));
  std::set<std::string> listed;
  std::string line;
  std::getline(lines, line);  // the heading
  while (std::getline(lines, line) && line.rfind("  ", 0) == 0) {
    std::istringstream words(line);
    std::string name;
    words >> name;
    listed.insert(name);
  }
  EXPECT_EQ(listed, std::set<std::string>(std::begin(kSubcommands), std::end(kSubcommands))) << r;
}

// Each of `chunkforge edits`' own subcommands answers --help with its usage (they once said
// "unknown option").
TEST(CliTest, EveryEditsSubcommandAnswersHelp) {
  for (const std::string sub : {"export", "import", "reset", "stats", "backup"}) {
    const CliResult r = run_cli({"edits", sub, "--help"});
    EXPECT_EQ(r.exit_code, 0) << sub << ": " << r;
    EXPECT_TRUE(contains(r.out, "usage: chunkforge edits " + sub)) << r;
  }
}

// `chunkforge edit` spells each operation of edit.proto's EditOp: a new operation fails here
// until the command takes it (and this table names it).
TEST(CliTest, EditTakesEveryOperationOfTheProto) {
  const std::map<std::string, std::string> spelled = {{"remove_object", "remove"},
                                                      {"add_object", "add"},
                                                      {"move_object", "move"},
                                                      {"remove_structure", "remove-structure"},
                                                      {"set_state", "set-state"}};
  const CliResult help = run_cli({"edit", "--help"});
  ASSERT_EQ(help.exit_code, 0) << help;
  const google::protobuf::OneofDescriptor* ops = v1::EditOp::descriptor()->FindOneofByName("op");
  ASSERT_NE(ops, nullptr);
  for (int k = 0; k < ops->field_count(); ++k) {
    const std::string field(ops->field(k)->name());
    const auto op = spelled.find(field);
    ASSERT_NE(op, spelled.end()) << "EditOp." << field << " has no `chunkforge edit` operation";
    EXPECT_TRUE(contains(help.out, "chunkforge edit CX CZ " + op->second + " ")) << field << "\n" << help;
  }
}

// --- edit, against the server binary -------------------------------------------------------

#ifdef CHUNKFORGE_SERVER
// A chunkforge-server with a SQLite store and a write token in a directory of the test's own.
class CliEditTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = temp_path("edit/");
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ + "token") << "write-secret\n";
    std::ofstream(dir_ + "wrong") << "guess\n";
    server_ = test::spawn(CHUNKFORGE_SERVER,
                          {"--listen", "127.0.0.1:0", "--http", "", "--threads", "1", "--data", dir_ + "data",
                           "--write-token-file", dir_ + "token"},
                          dir_ + "server.log");
    const int port = test::wait_until_serving(server_);
    ASSERT_GT(port, 0) << test::read_text(dir_ + "server.log");
    address_ = "127.0.0.1:" + std::to_string(port);
  }
  void TearDown() override {
    kill(server_.pid, SIGTERM);
    test::wait_for(server_, std::chrono::seconds(10));
    std::filesystem::remove_all(dir_);
  }
  // `chunkforge edit CX CZ args...` with the write token (or `token`: a file name in the dir).
  CliResult edit(std::vector<std::string> args, const std::string& token = "token") {
    args.insert(args.begin(), "edit");
    args.insert(args.end(), {"--server", address_});
    if (!token.empty()) args.insert(args.end(), {"--token-file", dir_ + token});
    return run_cli(args);
  }
  std::string chunk_json(int64_t x, int64_t z) {
    return run_cli({"chunk", std::to_string(x), std::to_string(z), "--server", address_}).out;
  }

  std::string dir_, address_;
  test::Process server_;
};

// The first id in the "added_ids" list of an edit's answer.
std::string first_added_id(const std::string& json) {
  const std::string needle = "\"added_ids\":[\"";
  const size_t at = json.find(needle);
  return at == std::string::npos ? "" : json.substr(at + needle.size(), 16);
}

TEST_F(CliEditTest, EachOperationAppliesAndPrintsTheNewVersion) {
  const std::string tree = json_string(chunk_json(0, 0), "id");
  ASSERT_EQ(tree.size(), 16u);
  CliResult r = edit({"0", "0", "remove", tree});
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_TRUE(contains(r.out, "{\"versions\":[{\"x\":0,\"z\":0,\"version\":1}],\"added_ids\":[]")) << r;
  EXPECT_FALSE(contains(chunk_json(0, 0), tree));

  r = edit({"0", "0", "add", "forest", "10", "20.5", "--yaw", "45", "--variant", "1"});
  ASSERT_EQ(r.exit_code, 0) << r;
  const std::string added = first_added_id(r.out);
  EXPECT_EQ(json_number(r.out, "version"), 2) << r;
  EXPECT_TRUE(contains(chunk_json(0, 0), "\"yaw\":45,\"variant\":1,\"id\":\"" + added + "\"")) << r;
  for (const std::vector<std::string>& next : {std::vector<std::string>{"move", added, "5", "6"},
                                               {"set-state", added, "776f6f643d33"},
                                               {"set-state", added, "--clear"}}) {
    std::vector<std::string> args = {"0", "0"};
    args.insert(args.end(), next.begin(), next.end());
    r = edit(args);
    EXPECT_EQ(r.exit_code, 0) << r;
  }
  EXPECT_EQ(json_number(r.out, "version"), 5) << r;

  // A structure, found with locate, removed from its chunk.
  const std::string found = run_cli({"locate", "castle", "0", "0", "--json", "--radius", "4000"}).out;
  const std::string castle = found.substr(std::min(found.size(), found.find("\"instances\"")));
  const std::string id = json_string(castle, "id");
  ASSERT_FALSE(id.empty()) << found;
  const auto chunk_of = [&](const char* axis) {
    return std::to_string(static_cast<int64_t>(std::floor(json_number(castle, axis) / 64)));
  };
  r = edit({chunk_of("x"), chunk_of("z"), "remove-structure", id});
  EXPECT_EQ(r.exit_code, 0) << r;
  EXPECT_TRUE(contains(r.out, "\"version\":1")) << r;
}

// What `chunkforge edit` did shows in `chunkforge chunk`: the chunk's edit version and the
// states set on its objects (hex, as set-state takes them), on a server with a SQLite store.
TEST_F(CliEditTest, TheChunkShowsItsEditVersionAndObjectStates) {
  const std::string pristine = chunk_json(2, -1);
  EXPECT_TRUE(contains(pristine, "\"edit_version\":0,")) << pristine;
  EXPECT_TRUE(contains(pristine, "\"object_states\":[]")) << pristine;
  EXPECT_EQ(pristine, run_cli({"chunk", "2", "-1"}).out);  // unedited: the offline line

  CliResult r = edit({"2", "-1", "add", "iron", "3", "4"});
  ASSERT_EQ(r.exit_code, 0) << r;
  const std::string added = first_added_id(r.out);
  ASSERT_EQ(added.size(), 16u) << r;
  r = edit({"2", "-1", "set-state", added, "776f6f643d33"});  // "wood=3"
  ASSERT_EQ(r.exit_code, 0) << r;
  std::string now = chunk_json(2, -1);
  EXPECT_EQ(json_number(now, "edit_version"), 2) << now;
  EXPECT_TRUE(contains(now, "\"object_states\":[{\"id\":\"" + added + "\",\"state\":\"776f6f643d33\"}]")) << now;
  EXPECT_TRUE(contains(now, "\"id\":\"" + added + "\"}")) << now;  // the object itself

  ASSERT_EQ(edit({"2", "-1", "set-state", added, "--clear"}).exit_code, 0);
  now = chunk_json(2, -1);
  EXPECT_EQ(json_number(now, "edit_version"), 3) << now;
  EXPECT_TRUE(contains(now, "\"object_states\":[]")) << now;
}

TEST_F(CliEditTest, ExpectAndRequestIdAreSentAsGiven) {
  const std::vector<std::string> add = {"3", "-2", "add", "0", "1", "1", "--request-id", "cli/1"};
  const CliResult first = edit(add), again = edit(add);
  ASSERT_EQ(first.exit_code, 0) << first;
  EXPECT_EQ(again.out, first.out);  // applied once, the same answer
  EXPECT_TRUE(contains(first.out, "\"request_id\":\"cli/1\"")) << first;
  EXPECT_EQ(json_number(first.out, "version"), 1) << first;

  const CliResult stale = edit({"3", "-2", "add", "0", "2", "2", "--expect", "0"});
  EXPECT_EQ(stale.exit_code, 1) << stale;
  EXPECT_TRUE(contains(stale.err, "FAILED_PRECONDITION")) << stale;
  EXPECT_TRUE(contains(stale.err, "at version 1")) << stale;
  EXPECT_TRUE(stale.out.empty()) << stale;
  EXPECT_EQ(edit({"3", "-2", "add", "0", "2", "2", "--expect", "1"}).exit_code, 0);
}

TEST_F(CliEditTest, RefusalsExitOneWithTheServersStatus) {
  CliResult r = edit({"0", "0", "remove", "1f"}, "wrong");
  EXPECT_EQ(r.exit_code, 1) << r;
  EXPECT_TRUE(contains(r.err, "edit: " + address_ + ": PERMISSION_DENIED")) << r;
  r = edit({"0", "0", "remove", "1f"});
  EXPECT_EQ(r.exit_code, 1) << r;
  EXPECT_TRUE(contains(r.err, "NOT_FOUND: ops[0].remove_object")) << r;
  r = edit({"0", "0", "add", "forest", "64", "0"});
  EXPECT_EQ(r.exit_code, 1) << r;
  EXPECT_TRUE(contains(r.err, "INVALID_ARGUMENT: ops[0].add_object.x")) << r;
  // Bad input the server's catalogue shows: exit 2.
  r = edit({"0", "0", "add", "granite", "1", "1"});
  EXPECT_EQ(r.exit_code, 2) << r;
  EXPECT_TRUE(contains(r.err, "LAYER: the world has no layer \"granite\" (forest, iron, coal, boulders)")) << r;
}
#endif  // CHUNKFORGE_SERVER

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
  EXPECT_TRUE(contains(r.err, "info: --seed: 1 required N missing")) << r;
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

// Numbers are decimal: CLI11 alone would read "010" as octal 8 and "0x10" as hex.
TEST(CliTest, NumbersAreDecimal) {
  const CliResult leading_zero = run_cli({"info", "--json", "--seed", "010"});
  ASSERT_EQ(leading_zero.exit_code, 0) << leading_zero;
  EXPECT_EQ(json_string(leading_zero.out, "seed"), "10") << leading_zero;
  const CliResult hex = run_cli({"info", "--json", "--seed", "0x10"});
  EXPECT_EQ(hex.exit_code, 2) << hex;
  EXPECT_TRUE(contains(hex.err, "--seed: must be an integer")) << hex;
}

TEST(CliTest, HelpWordPrintsUsage) {
  const CliResult r = run_cli({"help"});
  EXPECT_EQ(r.exit_code, 0) << r;
  EXPECT_TRUE(contains(r.out, "usage: chunkforge COMMAND")) << r;
}

}  // namespace
}  // namespace chunkforge
