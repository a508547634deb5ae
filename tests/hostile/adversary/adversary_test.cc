// File: tests/hostile/adversary/adversary_test.cc
//
// The generated adversary in the test suite (docs/server.md, "The generated adversary"): the
// short matrix, every method x behaviour pair once with the store states and session kinds in
// rotation (cells.h), against the server binary; a cell that breaks a bound fails the test and
// says which. Under a sanitizer, a slice of one cell per behaviour (its time bounds scaled, no
// RSS or latency bounds, as harness.h does).
//
// The whole matrix, every method x behaviour x store state (x session kind), is the same binary
// with --matrix=full (scripts/hostile-matrix): it prints a line per cell as it goes, then the
// markdown table for docs/server.md, and exits 1 if a cell broke a bound. --seconds=N sets each
// cell's attack (default 4); --only=TEXT keeps the cells whose name holds TEXT
// ("Session x never_reads", "/ snapshots").
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "matrix.h"

namespace chunkforge::hostile::adversary {
namespace {

TEST(GeneratedAdversary, ShortMatrix) {
  const std::vector<Method> methods = service_methods();
  MatrixOptions options;
  if (sanitized()) {  // a slice of about a minute: shorter attacks, probes on the slice's empty store
    options.attack = 1500ms;
    options.fan_out_window = 100ms;
    options.probe_store = StoreState::empty;
  }
  const std::vector<CellResult> results =
      run_matrix(sanitized() ? sanitizer_cells(methods) : short_cells(methods), options, stdout);
  std::printf("%s", markdown_table(results).c_str());
  for (const CellResult& r : results) {
    if (r.cell.behaviour != Behaviour::idle) {
      EXPECT_GT(r.calls, 0) << r.cell.name() << ": the attackers started no call";
    }
    if (!r.broken.empty()) ADD_FAILURE() << r.cell.name() << ":\n" << r.line();
  }
}

// The whole matrix: every cell on a server of its own, `seconds` of attack each; only the cells
// whose name holds `only` (and the control), if given.
int full_matrix(double seconds, const std::string& only) {
  MatrixOptions options;
  options.attack = std::chrono::milliseconds(static_cast<int>(seconds * 1000));
  options.server_per_cell = true;
  std::vector<Cell> cells;
  for (const Cell& c : full_cells(service_methods())) {
    if (c.behaviour == Behaviour::idle || c.name().find(only) != std::string::npos) cells.push_back(c);
  }
  const std::vector<CellResult> results = run_matrix(cells, options, stdout);
  std::printf("\n%s", markdown_table(results).c_str());
  int failed = 0;
  for (const CellResult& r : results) failed += r.broken.empty() ? 0 : 1;
  std::printf("\n%d of %zu cells within every bound; %d fail\n", static_cast<int>(results.size()) - failed,
              results.size(), failed);
  return failed == 0 ? 0 : 1;
}

}  // namespace
}  // namespace chunkforge::hostile::adversary

int main(int argc, char** argv) {
  double seconds = 4;
  bool full = false;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--matrix=full") == 0) full = true;
    if (std::strncmp(argv[i], "--seconds=", 10) == 0) seconds = std::atof(argv[i] + 10);
    if (std::strncmp(argv[i], "--only=", 7) == 0) only = argv[i] + 7;
  }
  if (full) return chunkforge::hostile::adversary::full_matrix(seconds, only);
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
