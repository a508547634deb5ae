// An online copy of a SQLite store through sqlite3_backup_* (sqlite_backup.h): into a temporary
// file beside the output, fsynced, then moved into place, so that the output is either absent
// or a whole snapshot.
#include "sqlite_backup.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

namespace chunkforge::tool {
namespace {

// Pages a step: 4 MiB at SQLite's default 4 KiB page, a few milliseconds of copying.
constexpr int kPagesPerStep = 1024;
// Between steps, the writers' turn.
constexpr std::chrono::milliseconds kPause(2);
// Restarts (a commit between two steps) before the rest is copied in one step.
constexpr int kMaxRestarts = 3;
// Waits for a lock (SQLITE_BUSY) before giving up.
constexpr int kBusyTimeoutMs = 5000;

std::string sqlite_error(sqlite3* db, const std::string& what) {
  return what + ": " + (db != nullptr ? sqlite3_errmsg(db) : "out of memory");
}

// Closes a connection at the end of a scope.
struct Connection {
  sqlite3* db = nullptr;
  ~Connection() { sqlite3_close(db); }
};

// "" when the file at `path` is on disk (its data and, for a new name, its directory entry).
std::string sync_file(const std::string& path, bool directory) {
  const int fd = ::open(path.c_str(), directory ? O_RDONLY | O_DIRECTORY : O_RDONLY);
  if (fd < 0) return "cannot open " + path + " to sync it";
  const bool synced = ::fsync(fd) == 0;
  ::close(fd);
  return synced ? "" : "fsync " + path + " failed";
}

// "" when `source` is a chunkforge edit store (it has the change log), opened in `c`.
std::string open_source(const std::string& source, Connection& c) {
  if (!std::filesystem::is_regular_file(source)) return source + ": no such store file";
  if (sqlite3_open_v2(source.c_str(), &c.db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
    return sqlite_error(c.db, "cannot open " + source);
  }
  sqlite3_busy_timeout(c.db, kBusyTimeoutMs);
  sqlite3_stmt* s = nullptr;
  const char* sql = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'changes'";
  if (sqlite3_prepare_v2(c.db, sql, -1, &s, nullptr) != SQLITE_OK) return sqlite_error(c.db, "cannot read " + source);
  const int rc = sqlite3_step(s);
  sqlite3_finalize(s);
  if (rc != SQLITE_ROW) return source + ": not a chunkforge edit store (no change log)";
  return "";
}

// Runs the backup steps to the end; "" or what failed.
std::string copy_pages(sqlite3* from, sqlite3* to, SqliteBackup& result) {
  sqlite3_backup* backup = sqlite3_backup_init(to, "main", from, "main");
  if (backup == nullptr) return sqlite_error(to, "cannot start the backup");
  int pages_per_step = kPagesPerStep;
  int remaining = -1;
  int rc = SQLITE_OK;
  while (true) {
    rc = sqlite3_backup_step(backup, pages_per_step);
    if (rc == SQLITE_DONE) break;
    if (rc != SQLITE_OK && rc != SQLITE_BUSY && rc != SQLITE_LOCKED) break;
    const int now = sqlite3_backup_remaining(backup);
    // A commit by another connection since the last step begins the copy again.
    if (rc == SQLITE_OK && remaining >= 0 && now >= remaining && ++result.restarts >= kMaxRestarts) {
      pages_per_step = -1;
    }
    remaining = now;
    std::this_thread::sleep_for(kPause);
  }
  result.pages = sqlite3_backup_pagecount(backup);
  sqlite3_backup_finish(backup);
  if (rc != SQLITE_DONE) return "the backup failed: " + std::string(sqlite3_errstr(rc));
  return sqlite3_errcode(to) == SQLITE_OK ? "" : sqlite_error(to, "the backup failed");
}

// Moves the finished copy into place: without `replace`, never over an existing file (link
// refuses one that appeared meanwhile). A replaced database's own journal and WAL go first: left
// beside the new file, SQLite would read them as its own.
std::string move_into_place(const std::string& partial, const std::string& destination, bool replace) {
  if (replace) {
    for (const char* suffix : {"-wal", "-shm", "-journal"}) std::filesystem::remove(destination + suffix);
    if (::rename(partial.c_str(), destination.c_str()) != 0) return "cannot rename the copy to " + destination;
  } else {
    if (::link(partial.c_str(), destination.c_str()) != 0) return "cannot create " + destination;
    std::filesystem::remove(partial);
  }
  const std::filesystem::path parent = std::filesystem::absolute(destination).parent_path();
  return sync_file(parent.string(), true);
}

}  // namespace

SqliteBackup backup_sqlite(const std::string& source, const std::string& destination, bool replace) {
  const auto start = std::chrono::steady_clock::now();
  SqliteBackup result;
  std::error_code ignored;
  if (!replace && std::filesystem::exists(destination, ignored)) {
    result.output_exists = true;
    result.error = destination + " exists (--force replaces it)";
    return result;
  }
  Connection from, to;
  if ((result.error = open_source(source, from)) != "") return result;
  const std::string partial = destination + ".partial";
  for (const char* suffix : {"", "-journal"}) std::filesystem::remove(partial + suffix, ignored);
  if (sqlite3_open_v2(partial.c_str(), &to.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
    result.error = sqlite_error(to.db, "cannot create " + partial);
    return result;
  }
  result.error = copy_pages(from.db, to.db, result);
  if (result.error.empty() && sqlite3_close(to.db) != SQLITE_OK) result.error = "cannot close " + partial;
  to.db = nullptr;
  if (result.error.empty()) result.error = sync_file(partial, false);
  if (result.error.empty()) result.error = move_into_place(partial, destination, replace);
  if (!result.error.empty()) {
    std::filesystem::remove(partial, ignored);
    return result;
  }
  result.bytes = static_cast<int64_t>(std::filesystem::file_size(destination, ignored));
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace chunkforge::tool
