// PgConnection and PgResult: libpq as RAII (see pg_connection.h).
#include "pg_connection.h"

#include <endian.h>

#include <cstring>
#include <regex>
#include <vector>

namespace chunkforge::server {
namespace {

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

PgConnection::PgConnection(const std::string& uri, std::string setup)
    : describe_(redact_password(uri)), setup_(std::move(setup)) {
  conn_ = PQconnectdb(uri.c_str());
  if (conn_ == nullptr) throw error("cannot connect: out of memory");
  // A constructor that throws runs no destructor: the connection is closed here.
  try {
    if (broken()) throw error("cannot connect: " + one_line(PQerrorMessage(conn_)));
    // NOTICEs ("relation already exists, skipping") would go to stderr; they are not errors.
    PQsetNoticeProcessor(conn_, [](void*, const char*) {}, nullptr);
    if (!setup_.empty()) exec(setup_);
  } catch (...) {
    PQfinish(conn_);
    throw;
  }
}

void PgConnection::ensure_connected() {
  if (!broken()) return;
  PQreset(conn_);
  if (broken()) throw error("connection lost and not re-established: " + one_line(PQerrorMessage(conn_)));
  if (!setup_.empty()) exec(setup_);
}

void PgConnection::check(PGresult* result, const std::string& sql) {
  const ExecStatusType status = PQresultStatus(result);
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return;
  const std::string reason = one_line(result ? PQresultErrorMessage(result) : PQerrorMessage(conn_));
  PQclear(result);
  throw error(reason + " (in: " + sql.substr(0, 60) + (sql.size() > 60 ? "..." : "") + ")");
}

void PgConnection::exec(const std::string& sql) {
  PGresult* result = PQexec(conn_, sql.c_str());
  check(result, sql);
  PQclear(result);
}

void PgConnection::exec_quietly(const std::string& sql) noexcept { PQclear(PQexec(conn_, sql.c_str())); }

PgResult PgConnection::query(const std::string& sql, std::initializer_list<PgParam> params) {
  std::vector<const char*> values;
  std::vector<int> lengths, formats;
  for (const PgParam& p : params) {
    values.push_back(p.value.data());
    lengths.push_back(static_cast<int>(p.value.size()));
    formats.push_back(p.binary ? 1 : 0);
  }
  PGresult* result = PQexecParams(conn_, sql.c_str(), static_cast<int>(values.size()), nullptr, values.data(),
                                  lengths.data(), formats.data(), /*resultFormat=*/1);
  check(result, sql);
  return PgResult(result);
}

}  // namespace chunkforge::server
