// entry_points(): every RPC of the service descriptor and every HTTP route (the side port's and
// map::routes()) has its bounds written, and docs/server.md's table "Entry points and their
// bounds" has exactly one row per entry, with the same text; Metrics names every RPC.
#include "entry_points.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include <google/protobuf/descriptor.h>

#include "chunkforge/v1/service.grpc.pb.h"
#include "map_service.h"
#include "metrics/metrics.h"

namespace chunkforge::server {
namespace {

std::map<std::string, std::string> by_name() {
  std::map<std::string, std::string> out;
  for (const EntryPoint& e : entry_points()) {
    EXPECT_TRUE(out.emplace(e.name, e.bounds).second) << "listed twice: " << e.name;
  }
  return out;
}

TEST(EntryPointsTest, EveryRpcAndEveryRouteHasItsBounds) {
  const std::map<std::string, std::string> entries = by_name();
  const google::protobuf::ServiceDescriptor* service =
      v1::GetWorldInfoRequest::descriptor()->file()->FindServiceByName("WorldService");
  ASSERT_NE(service, nullptr);
  std::vector<std::string> expected = {"GET /healthz", "GET /metrics"};
  for (int k = 0; k < service->method_count(); ++k) {
    expected.push_back("WorldService." + std::string(service->method(k)->name()));
  }
  for (const map::MapRouteEntry& route : map::routes()) expected.push_back("GET " + std::string(route.name));
  for (const std::string& name : expected) {
    const auto found = entries.find(name);
    ASSERT_NE(found, entries.end()) << "no entry for " << name;
    EXPECT_FALSE(found->second.empty()) << "no bounds written for " << name << " (server/entry_points.cc)";
    EXPECT_EQ(found->second.find('|'), std::string::npos) << name << ": a '|' would break the docs' table";
  }
  EXPECT_EQ(entries.size(), expected.size());
  EXPECT_GE(service->method_count(), 6);
  EXPECT_EQ(map::find_route("/tiles/materials/0/0/0.png"), map::MapRoute::kTile) << "the dispatcher uses the table";
  EXPECT_EQ(map::find_route("/api/locate"), map::MapRoute::kLocate);
  EXPECT_EQ(map::find_route("/api/nope"), std::nullopt);
}

// Metrics::kMethodNames, typed in metrics.h beside its enum, names every RPC of the descriptor:
// /metrics and the logs label each call with it.
TEST(EntryPointsTest, MetricsNameEveryRpcOfTheService) {
  const google::protobuf::ServiceDescriptor* service =
      v1::GetWorldInfoRequest::descriptor()->file()->FindServiceByName("WorldService");
  ASSERT_NE(service, nullptr);
  std::set<std::string> rpcs, named;
  for (int k = 0; k < service->method_count(); ++k) rpcs.insert(std::string(service->method(k)->name()));
  for (const std::string_view name : Metrics::kMethodNames) named.insert(std::string(name));
  EXPECT_EQ(named, rpcs);
}

// The rows of the first table under the heading `heading` (before the next heading): first cell
// (without backticks) -> second cell.
std::multimap<std::string, std::string> table_rows(const std::string& text, const std::string& heading) {
  std::multimap<std::string, std::string> rows;
  const size_t at = text.find("# " + heading + "\n");
  if (at == std::string::npos) return rows;
  std::istringstream lines(text.substr(text.find('\n', at) + 1));
  std::string line;
  bool in_table = false;
  while (std::getline(lines, line) && line.rfind('#', 0) != 0) {
    if (line.rfind('|', 0) != 0) {
      if (in_table) break;
      continue;
    }
    in_table = true;
    const size_t second = line.find(" | ");
    if (second == std::string::npos || line.rfind("| ---", 0) == 0 || line.rfind("| entry", 0) == 0) continue;
    std::string name = line.substr(2, second - 2), bounds = line.substr(second + 3);
    std::erase(name, '`');
    if (bounds.size() >= 2 && bounds.substr(bounds.size() - 2) == " |") bounds.resize(bounds.size() - 2);
    rows.emplace(name, bounds);
  }
  return rows;
}

TEST(EntryPointsTest, TheDocsTableHasExactlyOneRowPerEntry) {
  std::ifstream in(CHUNKFORGE_SOURCE_DIR "/docs/server.md");  // one literal: GCC 12 warned falsely of a concatenation
  ASSERT_TRUE(in) << "docs/server.md";
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  const std::multimap<std::string, std::string> rows = table_rows(text, "Entry points and their bounds");
  std::string expected_table = "| entry | bounds |\n| --- | --- |\n";
  for (const EntryPoint& e : entry_points()) expected_table += "| `" + e.name + "` | " + e.bounds + " |\n";
  const std::map<std::string, std::string> entries = by_name();
  for (const auto& [name, bounds] : entries) {
    EXPECT_EQ(rows.count(name), 1u) << "docs/server.md: rows for " << name << "; the table should read:\n"
                                    << expected_table;
    const auto row = rows.find(name);
    if (row != rows.end()) {
      EXPECT_EQ(row->second, bounds) << name << "; the table should read:\n" << expected_table;
    }
  }
  for (const auto& [name, bounds] : rows) EXPECT_TRUE(entries.count(name)) << "docs/server.md: no such entry: " << name;
}

}  // namespace
}  // namespace chunkforge::server
