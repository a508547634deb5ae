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
// Every call is bounded (docs/edits.md, "When the store fails"): connecting by libpq's
// connect_timeout, each statement by the server's statement_timeout and lock_timeout, and, for
// a server that stops answering altogether (its process stopped, a partition: the kernel still
// ACKs, so TCP timeouts do not fire), by a deadline of our own: the query is sent without
// blocking and its answer polled for; past the deadline the connection is dropped (a cancel
// request would wait on the same dead server) and the call throws. An abort descriptor, when
// readable, ends every wait at once (shutdown).
//
// Thread safety: none; one thread at a time per connection (the store keeps a mutex for each).
#pragma once

#include <libpq-fe.h>

#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "edit_store.h"

namespace chunkforge::server {

// `uri` without the password of its user information, for logs and errors.
std::string redact_password(const std::string& uri);

// The bounds of every call (docs/edits.md). The server-side ones come first, so that a slow
// statement normally ends with PostgreSQL's own error rather than with a dropped connection.
struct PgTimeouts {
  int connect_seconds = 2;                    // libpq's connect_timeout (its minimum is 2; a URI's wins)
  std::chrono::milliseconds statement{2000};  // statement_timeout
  std::chrono::milliseconds lock{1500};       // lock_timeout (the writers' advisory lock too)
  std::chrono::milliseconds idle_in_transaction{10000};
  std::chrono::milliseconds answer{2500};  // our deadline for any answer to arrive
};

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
  int columns() const { return PQnfields(result_); }
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
  // `abort_fd`: an eventfd that, once readable, ends every wait of this connection (-1: none).
  PgConnection(const std::string& uri, const std::string& setup = "", int abort_fd = -1, PgTimeouts timeouts = {});
  PgConnection(const PgConnection&) = delete;
  ~PgConnection() { PQfinish(conn_); }

  // Runs one or more statements without parameters or rows (BEGIN, COMMIT, DDL).
  void exec(const std::string& sql);
  // For clean-up after a failure: its own failure would hide the first one.
  void exec_quietly(const std::string& sql) noexcept;
  // One statement with parameters ($1, $2 ...), results in binary form.
  PgResult query(const std::string& sql, std::initializer_list<PgParam> params = {}) {
    return query(sql, std::vector<PgParam>(params));
  }
  PgResult query(const std::string& sql, const std::vector<PgParam>& params);
  // The first column of the first row as a BIGINT; 0 when there is no row or it is NULL.
  int64_t integer(const std::string& sql, std::initializer_list<PgParam> params = {}) {
    PgResult r = query(sql, params);
    return r.rows() > 0 ? r.int64(0, 0) : 0;
  }

  // Reconnects if the connection was lost (a restarted database); throws StoreError if it
  // cannot. Outside a transaction only: a lost transaction is lost.
  void ensure_connected();
  bool broken() const { return conn_ == nullptr || PQstatus(conn_) != CONNECTION_OK; }

  StoreError error(const std::string& reason) const { return StoreError(describe_ + ": " + reason); }
  const std::string& describe() const { return describe_; }
  PGconn* get() { return conn_; }

 private:
  void connect();
  // Waits until the socket is ready for `events` or the deadline passes; false on timeout or
  // abort (the connection is then dropped, its reason naming `bound`, the wait's length).
  bool wait_for(short events, std::chrono::steady_clock::time_point deadline, std::chrono::milliseconds bound);
  // Sends a query without blocking and collects its one result, within the answer deadline.
  PGresult* run(const std::string& sql, const std::vector<const char*>& values, const std::vector<int>& lengths,
                const std::vector<int>& formats, bool with_params);
  void drop(const std::string& why);
  void check(PGresult* result, const std::string& sql);

  std::string uri_, describe_, setup_;
  int abort_fd_ = -1;
  PgTimeouts timeouts_;
  std::string dropped_;  // why the connection was dropped, for the next error
  PGconn* conn_ = nullptr;
};

}  // namespace chunkforge::server
