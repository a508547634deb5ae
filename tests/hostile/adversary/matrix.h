// File: tests/hostile/adversary/matrix.h
//
// Runs cells of the generated adversary (cells.h) and reports them: the store templates made,
// the requests derived from a probe server on a copy of the thousand-chunk store (where
// GetChunkEdits has edits to answer; probed anew every run: nothing is cached), then the cells, on one server per store
// state (only the state's last cell ends with SIGTERM; the peak RSS is reset between cells) or on a server each. Every
// cell is held to the harness's bounds with the log, the cold client and /healthz at 100 %, its p99s reported, not
// bound (harness.h, Bounds; matrix.cc, kBounds).
#pragma once

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "cells.h"
#include "hostile/harness.h"

namespace chunkforge::hostile::adversary {

struct MatrixOptions {
  std::chrono::milliseconds attack{2000};                // each cell's attack
  bool server_per_cell = false;                          // every cell on a server of its own, its SIGTERM measured
  std::chrono::milliseconds fan_out_window{250};         // a streamed answer's bytes counted for the fan-out
  StoreState probe_store = StoreState::thousand_chunks;  // what the probe server's store holds
};

struct CellResult {
  Cell cell;
  Report report;
  int64_t messages = 0, bytes = 0, calls = 0, server_resets = 0;  // what the attackers received and made
  std::vector<std::string> broken;                                // the bounds it broke
  std::vector<std::string> known;                                 // those a known hole breaks
  std::string verdict() const;                                    // "ok" or "**FAIL**: ...", and the known
  std::string line() const;
  std::string table_row() const;
};

// Runs `cells` in order (grouped by store state unless server_per_cell), printing the
// derivation and one line per cell to `progress` as it goes.
std::vector<CellResult> run_matrix(const std::vector<Cell>& cells, const MatrixOptions& options, std::FILE* progress);

// A markdown table, one row per cell with every measure.
std::string markdown_table(const std::vector<CellResult>& results);

}  // namespace chunkforge::hostile::adversary
