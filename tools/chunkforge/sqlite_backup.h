// `chunkforge edits backup` for a SQLite store: an online copy of the database file through
// SQLite's backup API, taken while servers serve from it (docs/deploy.md, "Edits: back up and
// restore"). The copy is one consistent snapshot of the store, on disk (fsynced, then renamed
// into place) before the call returns.
//
//   SqliteBackup result = backup_sqlite("/var/lib/chunkforge/edits.db", "/backup/edits.db", false);
//   if (!result.error.empty()) ...
#pragma once

#include <cstdint>
#include <string>

namespace chunkforge::tool {

struct SqliteBackup {
  std::string error;           // "" when the copy is in place, else what failed
  bool output_exists = false;  // refused: the output exists and `replace` was false
  int64_t pages = 0;           // the database's pages, copied
  int64_t bytes = 0;           // the copy's size
  int restarts = 0;            // copies begun again because a server committed meanwhile
  double seconds = 0;
};

// Copies the store at `source` into `destination` (replacing a file there only if `replace`).
// A few pages a step, pausing between steps, so that each step holds the database only briefly;
// a commit by another connection between steps starts the copy again, and after a few such
// restarts the rest is copied in one step (a reader of a WAL database blocks no writer).
SqliteBackup backup_sqlite(const std::string& source, const std::string& destination, bool replace);

}  // namespace chunkforge::tool
