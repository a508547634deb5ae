// PgConnection and PgResult: libpq as RAII, every call within a deadline (see pg_connection.h).
#include "pg_connection.h"

#include <endian.h>
#include <poll.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <regex>
#include <vector>

namespace chunkforge::server {
namespace {

using Clock = std::chrono::steady_clock;

// PostgreSQL's messages span lines ("...failed\n\tIs the server running..."); the store's
// errors are one line each.
std::string one_line(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c != '\n' && c != '\t' && c != ' ') {
      out += c;
    } else if (!out.empty() && out.back() != ' ') {
      out += ' ';
    }
  }
  if (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::string milliseconds(std::chrono::milliseconds d) { return std::to_string(d.count()); }

// Session settings that bound every statement on the server's side; they run before `setup`.
std::string timeout_settings(const PgTimeouts& t) {
  return "SET statement_timeout = " + milliseconds(t.statement) + "; SET lock_timeout = " + milliseconds(t.lock) +
         "; SET idle_in_transaction_session_timeout = " + milliseconds(t.idle_in_transaction) + ";";
}

// The connect timeout libpq took for `conn`, in seconds: the URI's connect_timeout if it set
// one, else `fallback` (the default we passed). libpq reads a value below 2 as 2; 0, no limit,
// would leave the wait unbounded, so the default bounds it then.
int effective_connect_seconds(PGconn* conn, int fallback) {
  PQconninfoOption* options = PQconninfo(conn);
  int seconds = fallback;
  for (PQconninfoOption* o = options; o != nullptr && o->keyword != nullptr; ++o) {
    if (std::strcmp(o->keyword, "connect_timeout") != 0 || o->val == nullptr) continue;
    const int value = std::atoi(o->val);
    if (value > 0) seconds = std::max(value, 2);
  }
  PQconninfoFree(options);
  return seconds;
}

}  // namespace

std::string redact_password(const std::string& uri) {
  // postgres://user:secret@host/db -> postgres://user@host/db; ?password=secret&x -> ?x
  static const std::regex user_password(R"(^([a-z]+://[^:/@?]*):[^@/?]*@)");
  static const std::regex password_parameter(R"(([?&])password=[^&]*(&|$))");
  std::string out = std::regex_replace(uri, user_password, "$1@");
  return std::regex_replace(out, password_parameter, "$1");
}

int64_t PgResult::int64(int row, int column) const {
  if (null(row, column) || PQgetlength(result_, row, column) != 8) return 0;
  uint64_t big_endian = 0;
  std::memcpy(&big_endian, PQgetvalue(result_, row, column), 8);
  return static_cast<int64_t>(be64toh(big_endian));
}

PgConnection::PgConnection(const std::string& uri, const std::string& setup, int abort_fd, PgTimeouts timeouts)
    : uri_(uri),
      describe_(redact_password(uri)),
      setup_(timeout_settings(timeouts) + setup),
      abort_fd_(abort_fd),
      timeouts_(timeouts) {
  connect();
}

// Non-blocking, so that the abort descriptor can end it; the keepalive settings let the kernel
// notice a peer that vanished while the connection idles (the listener's does, for long). The
// URI comes last: what it sets wins over these defaults.
void PgConnection::connect() {
  const std::string connect_timeout = std::to_string(timeouts_.connect_seconds);
  const char* keys[] = {"connect_timeout",  "keepalives",       "keepalives_idle", "keepalives_interval",
                        "keepalives_count", "tcp_user_timeout", "dbname",          nullptr};
  const char* values[] = {connect_timeout.c_str(), "1", "5", "2", "3", "5000", uri_.c_str(), nullptr};
  conn_ = PQconnectStartParams(keys, values, /*expand_dbname=*/1);
  if (conn_ == nullptr) throw error("cannot connect: out of memory");
  // Our own deadline follows libpq's (a URI's connect_timeout wins, as its other settings do).
  const std::chrono::seconds bound{effective_connect_seconds(conn_, timeouts_.connect_seconds)};
  const auto deadline = Clock::now() + bound;
  PostgresPollingStatusType state = PGRES_POLLING_WRITING;
  while (state != PGRES_POLLING_OK) {
    if (state == PGRES_POLLING_FAILED || PQstatus(conn_) == CONNECTION_BAD) {
      const std::string reason = one_line(PQerrorMessage(conn_));
      drop(reason);
      throw error("cannot connect: " + reason);
    }
    if (!wait_for(state == PGRES_POLLING_READING ? POLLIN : POLLOUT, deadline, bound)) {
      throw error("cannot connect: " + dropped_);
    }
    state = PQconnectPoll(conn_);
  }
  PQsetnonblocking(conn_, 1);
  // NOTICEs ("relation already exists, skipping") would go to stderr; they are not errors.
  PQsetNoticeProcessor(
      conn_, [](void*, const char*) {}, nullptr);
  dropped_.clear();
  exec(setup_);
}

void PgConnection::drop(const std::string& why) {
  PQfinish(conn_);
  conn_ = nullptr;
  dropped_ = why;
}

bool PgConnection::wait_for(short events, Clock::time_point deadline, std::chrono::milliseconds bound) {
  while (true) {
    pollfd fds[2] = {{PQsocket(conn_), events, 0}, {abort_fd_, POLLIN, 0}};
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    const int ready = left > 0 ? poll(fds, 2, static_cast<int>(left)) : 0;
    if (ready < 0 && errno == EINTR) continue;
    if (ready > 0 && (fds[1].revents & POLLIN)) {
      drop("the server is stopping");
      return false;
    }
    if (ready > 0) return true;
    drop("no answer within " + milliseconds(bound) + " ms (connection dropped)");
    return false;
  }
}

PGresult* PgConnection::run(const std::string& sql, const std::vector<const char*>& values,
                            const std::vector<int>& lengths, const std::vector<int>& formats, bool with_params) {
  if (broken()) throw error(dropped_.empty() ? "connection lost" : dropped_);
  const int sent = with_params ? PQsendQueryParams(conn_, sql.c_str(), static_cast<int>(values.size()), nullptr,
                                                   values.data(), lengths.data(), formats.data(), /*resultFormat=*/1)
                               : PQsendQuery(conn_, sql.c_str());
  if (sent == 0) throw error(one_line(PQerrorMessage(conn_)));
  const auto deadline = Clock::now() + timeouts_.answer;
  for (int flushed = PQflush(conn_); flushed != 0; flushed = PQflush(conn_)) {
    if (flushed < 0) throw error(one_line(PQerrorMessage(conn_)));
    if (!wait_for(POLLOUT, deadline, timeouts_.answer)) throw error(dropped_);
  }
  // As PQexec: the last result, or the first error.
  PGresult* kept = nullptr;
  while (true) {
    while (PQisBusy(conn_)) {
      if (!wait_for(POLLIN, deadline, timeouts_.answer) || PQconsumeInput(conn_) == 0) {
        PQclear(kept);
        throw error(conn_ == nullptr ? dropped_ : one_line(PQerrorMessage(conn_)));
      }
    }
    PGresult* next = PQgetResult(conn_);
    if (next == nullptr) return kept;
    const ExecStatusType status = PQresultStatus(kept);
    if (kept != nullptr && status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
      PQclear(next);
    } else {
      PQclear(kept);
      kept = next;
    }
  }
}

void PgConnection::ensure_connected() {
  if (!broken()) return;
  PQfinish(conn_);
  conn_ = nullptr;
  connect();
}

void PgConnection::check(PGresult* result, const std::string& sql) {
  const ExecStatusType status = PQresultStatus(result);
  if (result != nullptr && (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK)) return;
  std::string reason = result ? PQresultErrorMessage(result) : conn_ ? PQerrorMessage(conn_) : dropped_;
  if (reason.empty()) reason = "connection lost";
  PQclear(result);
  throw error(one_line(reason) + " (in: " + sql.substr(0, 60) + (sql.size() > 60 ? "..." : "") + ")");
}

void PgConnection::exec(const std::string& sql) {
  PGresult* result = run(sql, {}, {}, {}, false);
  check(result, sql);
  PQclear(result);
}

void PgConnection::exec_quietly(const std::string& sql) noexcept {
  try {
    if (!broken()) PQclear(run(sql, {}, {}, {}, false));
  } catch (const StoreError&) {  // a clean-up's own failure would hide the first one
  }
}

PgResult PgConnection::query(const std::string& sql, const std::vector<PgParam>& params) {
  std::vector<const char*> values;
  std::vector<int> lengths, formats;
  for (const PgParam& p : params) {
    values.push_back(p.value.data());
    lengths.push_back(static_cast<int>(p.value.size()));
    formats.push_back(p.binary ? 1 : 0);
  }
  PGresult* result = run(sql, values, lengths, formats, true);
  check(result, sql);
  return PgResult(result);
}

}  // namespace chunkforge::server
