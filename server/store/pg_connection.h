// File: server/store/pg_connection.h
//
// The little of libpq the PostgreSQL store needs, as RAII: a connection that reconnects when
// the server went away, a query with typed parameters, and its result. Every failure is a
// StoreError naming the database (without its password) and PostgreSQL's reason.
//
//   PgConnection c("postgres://chunkforge@db/world");
//   PgResult r = c.query("SELECT change FROM changes WHERE cx = $1 AND cz = $2",
//                        {PgParam::integer(3), PgParam::integer(-2)});
//   for (int row = 0; row < r.rows(); ++row) use(r.bytes(row, 0));
//
// Results come back in binary form: integers are 8-byte big-endian (BIGINT columns only) and
// BYTEA is the raw bytes, so nothing is escaped or parsed as text.
//
// Thread safety: none; one thread at a time per connection (the store keeps a mutex for each).
#pragma once

#include <libpq-fe.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "edit_store.h"

namespace chunkforge::server {

// `uri` without the password of its user information, for logs and errors.
std::string redact_password(const std::string& uri);

// One query parameter: text (integers, strings) or binary (BYTEA).
struct PgParam {
  std::string value;
  bool binary = false;
  static PgParam integer(int64_t v) { return {std::to_string(v), false}; }
  static PgParam text(std::string v) { return {std::move(v), false}; }
  static PgParam bytes(std::string v) { return {std::move(v), true}; }
};

class PgResult {
 public:
  explicit PgResult(PGresult* result) : result_(result) {}
  PgResult(PgResult&& other) noexcept : result_(std::exchange(other.result_, nullptr)) {}
  PgResult& operator=(PgResult&&) = delete;
  ~PgResult() { PQclear(result_); }

  int rows() const { return PQntuples(result_); }
  bool null(int row, int column) const { return PQgetisnull(result_, row, column) != 0; }
  // A BIGINT column (binary: 8 bytes, big-endian); 0 for NULL.
  int64_t int64(int row, int column) const;
  // A BYTEA or TEXT column's bytes.
  std::string bytes(int row, int column) const {
    return std::string(PQgetvalue(result_, row, column), static_cast<size_t>(PQgetlength(result_, row, column)));
  }

 private:
  PGresult* result_;
};

class PgConnection {
 public:
  // `setup` runs after every (re)connect: session settings and LISTENs do not survive one.
  explicit PgConnection(const std::string& uri, std::string setup = "");
  PgConnection(const PgConnection&) = delete;
  ~PgConnection() { PQfinish(conn_); }

  // Runs one or more statements without parameters or rows (BEGIN, COMMIT, DDL).
  void exec(const std::string& sql);
  // For clean-up after a failure: its own failure would hide the first one.
  void exec_quietly(const std::string& sql) noexcept;
  // One statement with parameters ($1, $2 ...), results in binary form.
  PgResult query(const std::string& sql, std::initializer_list<PgParam> params = {});
  // The first column of the first row as a BIGINT; 0 when there is no row or it is NULL.
  int64_t integer(const std::string& sql, std::initializer_list<PgParam> params = {}) {
    PgResult r = query(sql, params);
    return r.rows() > 0 ? r.int64(0, 0) : 0;
  }

  // Reconnects if the connection was lost (a restarted database); throws StoreError if it
  // cannot. Outside a transaction only: a lost transaction is lost.
  void ensure_connected();
  bool broken() const { return PQstatus(conn_) != CONNECTION_OK; }

  StoreError error(const std::string& reason) const { return StoreError(describe_ + ": " + reason); }
  const std::string& describe() const { return describe_; }
  PGconn* get() { return conn_; }

 private:
  void check(PGresult* result, const std::string& sql);

  std::string describe_, setup_;
  PGconn* conn_ = nullptr;
};

}  // namespace chunkforge::server
