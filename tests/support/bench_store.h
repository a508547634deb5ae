// File: tests/support/bench_store.h
//
// A new empty edit store for a benchmark: kind 0 a SQLite file in `dir`, kind 1 a database of a
// throwaway PostgreSQL cluster started once per run (the first call names it), a database per
// store.
//
//   const std::string location = test::bench_store(state.range(0), dir, "edit_bench");
#pragma once

#include <stdexcept>
#include <string>

#include "support/postgres_cluster.h"

namespace chunkforge::test {

inline std::string bench_store(int64_t kind, const std::string& dir, const std::string& cluster_name) {
  if (kind == 0) return "sqlite:" + dir + "/edits.db";
  static PostgresCluster cluster(cluster_name);
  static int databases = 0;
  if (!cluster.started()) throw std::runtime_error(cluster.failure());
  return cluster.create_database("bench_" + std::to_string(++databases));
}

}  // namespace chunkforge::test
