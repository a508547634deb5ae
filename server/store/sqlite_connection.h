// File: server/store/sqlite_connection.h
//
// The little of SQLite's C API the store needs, as RAII: a connection and a prepared statement,
// every failure a StoreError naming the file and SQLite's reason.
//
//   Connection c("/data/edits.db");
//   Statement s(c, "SELECT value FROM meta WHERE key = ?");
//   s.bind(1, "schema_version");
//   if (s.step()) use(s.text(0));
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <utility>

#include "edit_store.h"

namespace chunkforge::server {

class Connection {
 public:
  explicit Connection(const std::string& path) : path_(path) {
    const int rc =
        sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
    if (rc != SQLITE_OK) {
      const std::string reason = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
      sqlite3_close(db_);
      throw StoreError("sqlite:" + path + ": cannot open: " + reason);
    }
  }
  Connection(Connection&& other) noexcept : path_(std::move(other.path_)), db_(std::exchange(other.db_, nullptr)) {}
  Connection& operator=(Connection&&) = delete;
  ~Connection() { sqlite3_close(db_); }

  void exec(const std::string& sql) {
    char* message = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
      const std::string reason = message ? message : sqlite3_errmsg(db_);
      sqlite3_free(message);
      throw error(reason);
    }
  }
  // For clean-up after a failure: its own failure would hide the first one.
  void exec_quietly(const std::string& sql) { sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr); }
  int64_t integer(const std::string& sql);

  StoreError error(const std::string& reason) const { return StoreError("sqlite:" + path_ + ": " + reason); }
  sqlite3* get() { return db_; }

 private:
  std::string path_;
  sqlite3* db_ = nullptr;
};

class Statement {
 public:
  Statement(Connection& c, const std::string& sql) : c_(c) {
    if (sqlite3_prepare_v2(c.get(), sql.c_str(), -1, &s_, nullptr) != SQLITE_OK) {
      throw c.error(sqlite3_errmsg(c.get()));
    }
  }
  Statement(const Statement&) = delete;
  ~Statement() { sqlite3_finalize(s_); }

  Statement& bind(int i, int64_t v) { return check(sqlite3_bind_int64(s_, i, v)); }
  int columns() const { return sqlite3_column_count(s_); }
  Statement& bind(int i, const std::string& v) {
    return check(sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
  }
  Statement& bind_blob(int i, const std::string& v) {
    return check(sqlite3_bind_blob(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
  }
  // True while there is a row.
  bool step() {
    const int rc = sqlite3_step(s_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    throw c_.error(sqlite3_errmsg(c_.get()));
  }
  int64_t int64(int column) { return sqlite3_column_int64(s_, column); }
  std::string text(int column) { return blob(column); }
  std::string blob(int column) {
    const void* data = sqlite3_column_blob(s_, column);
    return data ? std::string(static_cast<const char*>(data), static_cast<size_t>(sqlite3_column_bytes(s_, column)))
                : std::string();
  }

 private:
  Statement& check(int rc) {
    if (rc != SQLITE_OK) throw c_.error(sqlite3_errmsg(c_.get()));
    return *this;
  }
  Connection& c_;
  sqlite3_stmt* s_ = nullptr;
};

inline int64_t Connection::integer(const std::string& sql) {
  Statement s(*this, sql);
  return s.step() ? s.int64(0) : 0;
}

}  // namespace chunkforge::server
