// PostgresStore: the edit store (edit_store.h) in a PostgreSQL database that every replica of a
// scale-out shares (libpq). Three connections: one writer, one reader, one that LISTENs.
//
// Commit order: every write transaction first takes one transaction-scoped advisory lock, so
// writers from all replicas (and the `chunkforge edits` command) commit one at a time and a
// change's seq (an identity column) grows in commit order. That is what lets each replica's
// tail read "changes with seq > the last I saw" and never miss one committed late.
// Each write ends with NOTIFY, delivered at COMMIT to every replica's listening connection:
// their tails wake at once instead of at their next poll.
// Durability: synchronous_commit is set on for the writer, whatever the database's default, so
// a commit is flushed to PostgreSQL's WAL when write() returns.
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <bit>
#include <mutex>
#include <type_traits>

#include "pg_connection.h"
#include "store_backends.h"

namespace chunkforge::server {
namespace {

// Schema migrations, in order: entry k takes the schema from version k to k + 1.
const char* const kMigrations[] = {
    // 1: the change log (seq is the commit order), remembered request ids, metadata.
    "CREATE TABLE changes(seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, cx BIGINT NOT NULL,"
    "  cz BIGINT NOT NULL, version BIGINT NOT NULL, change BYTEA NOT NULL);"
    "CREATE UNIQUE INDEX changes_by_chunk ON changes(cx, cz, version);"
    "CREATE TABLE requests(id TEXT PRIMARY KEY, answer BYTEA NOT NULL, seq BIGINT NOT NULL);"
    "CREATE INDEX requests_by_age ON requests(seq);",
    // 2: request ids are bytes (libpq's text parameters end at a NUL byte: "a\0b" was "a"),
    // each with the digest of the request that got its answer; stored ids keep their bytes.
    "ALTER TABLE requests ALTER COLUMN id TYPE BYTEA USING convert_to(id, 'UTF8');"
    "ALTER TABLE requests ADD COLUMN digest BYTEA;",
    // 3: nothing to do here. SQLite's seq needed AUTOINCREMENT not to give a deleted row's seq
    // again; an identity column never goes back (nextval, not max + 1), and nothing writes seq
    // explicitly (GENERATED ALWAYS refuses it).
    "SELECT 1;",
    // 4: authorship. Each change names its author by an id of the players dictionary and its
    // commit time in Unix seconds (12 bytes in all); changes stored before have 0 for both.
    "ALTER TABLE changes ADD COLUMN author INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE changes ADD COLUMN committed_at BIGINT NOT NULL DEFAULT 0;"
    "CREATE TABLE players(id INTEGER GENERATED ALWAYS AS IDENTITY PRIMARY KEY, name TEXT NOT NULL UNIQUE);",
    // 5: seen land, as SQLite's schema 5 (sqlite_store.cc).
    "CREATE TABLE seen(rx BIGINT NOT NULL, rz BIGINT NOT NULL, epoch BIGINT NOT NULL, b0 BIGINT NOT NULL,"
    "  b1 BIGINT NOT NULL, b2 BIGINT NOT NULL, b3 BIGINT NOT NULL, PRIMARY KEY (rx, rz, epoch));",
};
static_assert(std::size(kMigrations) == kStoreSchemaVersion, "one migration per schema version");

// The advisory lock every writer takes: an arbitrary key of our own ("chunkforge" in ASCII).
constexpr char kWriterLock[] = "SELECT pg_advisory_xact_lock(7522525445947909989)";
constexpr char kChannel[] = "chunkforge_edits";
constexpr int64_t kMaxRequests = 100000;  // remembered request ids; the oldest go first
constexpr int kExportPage = 1000;         // rows an export fetches at a time

constexpr char kChangeColumns[] = "SELECT seq, cx, cz, version, change, author::bigint, committed_at FROM changes ";
// The same with the author's name last.
constexpr char kNamedChangeColumns[] =
    "SELECT seq, cx, cz, version, change, author::bigint, committed_at, coalesce(players.name, '') FROM changes "
    "LEFT JOIN players ON players.id = changes.author ";

std::vector<StoredChange> read_changes(const PgResult& r) {
  std::vector<StoredChange> out;
  out.reserve(static_cast<size_t>(r.rows()));
  for (int row = 0; row < r.rows(); ++row) {
    out.push_back({r.int64(row, 0),
                   {r.int64(row, 1), r.int64(row, 2)},
                   static_cast<uint64_t>(r.int64(row, 3)),
                   r.bytes(row, 4),
                   static_cast<uint32_t>(r.int64(row, 5)),
                   r.int64(row, 6),
                   {}});
    if (r.columns() > 7) out.back().author_name = r.bytes(row, 7);
  }
  return out;
}

uint64_t chunk_version(PgConnection& c, ChunkCoord chunk) {
  const char* sql = "SELECT coalesce(max(version), 0)::bigint FROM changes WHERE cx = $1 AND cz = $2";
  return static_cast<uint64_t>(c.integer(sql, {PgParam::integer(chunk.x), PgParam::integer(chunk.z)}));
}

std::vector<StoredChange> chunk_log(PgConnection& c, ChunkCoord chunk, uint64_t after) {
  const std::string sql = std::string(kChangeColumns) + "WHERE cx = $1 AND cz = $2 AND version > $3 ORDER BY version";
  return read_changes(c.query(
      sql, {PgParam::integer(chunk.x), PgParam::integer(chunk.z), PgParam::integer(static_cast<int64_t>(after))}));
}

// `lock`: inside a write transaction, the row is held until it commits, so that what the
// transaction decides from the value (a seen-land merge from the bound world) cannot interleave
// with another that changes it (an upgrade rebinding the store).
std::optional<std::string> read_meta(PgConnection& c, const std::string& key, bool lock = false) {
  PgResult r =
      c.query(lock ? "SELECT value FROM meta WHERE key = $1 FOR SHARE" : "SELECT value FROM meta WHERE key = $1",
              {PgParam::text(key)});
  if (r.rows() == 0) return std::nullopt;
  return r.bytes(0, 0);
}

std::optional<uint32_t> find_player(PgConnection& c, const std::string& name) {
  PgResult r = c.query("SELECT id::bigint FROM players WHERE name = $1", {PgParam::text(name)});
  if (r.rows() == 0) return std::nullopt;
  return static_cast<uint32_t>(r.int64(0, 0));
}

class PgTransaction final : public EditStore::Transaction {
 public:
  explicit PgTransaction(PgConnection& c) : c_(c) {}
  uint64_t version(ChunkCoord chunk) override { return chunk_version(c_, chunk); }
  std::vector<StoredChange> log(ChunkCoord chunk, uint64_t after) override { return chunk_log(c_, chunk, after); }
  void append(ChunkCoord chunk, uint64_t version, const std::string& change, Authorship by) override {
    c_.query("INSERT INTO changes(cx, cz, version, change, author, committed_at) VALUES ($1, $2, $3, $4, $5, $6)",
             {PgParam::integer(chunk.x), PgParam::integer(chunk.z), PgParam::integer(static_cast<int64_t>(version)),
              PgParam::bytes(change), PgParam::integer(by.author), PgParam::integer(by.at)});
  }
  // Writers hold the advisory lock, so no other transaction adds the name meanwhile.
  uint32_t player(const std::string& name) override {
    if (std::optional<uint32_t> id = find_player(c_, name)) return *id;
    return static_cast<uint32_t>(
        c_.integer("INSERT INTO players(name) VALUES ($1) RETURNING id::bigint", {PgParam::text(name)}));
  }
  void merge_seen(int64_t region_x, int64_t region_z, uint32_t epoch, const SeenLand::Bits& bits) override {
    c_.query(
        "INSERT INTO seen(rx, rz, epoch, b0, b1, b2, b3) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (rx, rz, "
        "epoch) "
        "DO UPDATE SET b0 = seen.b0 | excluded.b0, b1 = seen.b1 | excluded.b1, b2 = seen.b2 | excluded.b2, "
        "b3 = seen.b3 | excluded.b3",
        {PgParam::integer(region_x), PgParam::integer(region_z), PgParam::integer(epoch),
         PgParam::integer(std::bit_cast<int64_t>(bits[0])), PgParam::integer(std::bit_cast<int64_t>(bits[1])),
         PgParam::integer(std::bit_cast<int64_t>(bits[2])), PgParam::integer(std::bit_cast<int64_t>(bits[3]))});
  }
  void erase_log(ChunkCoord chunk) override {
    c_.query("DELETE FROM changes WHERE cx = $1 AND cz = $2", {PgParam::integer(chunk.x), PgParam::integer(chunk.z)});
  }
  std::vector<ChunkCoord> edited_chunks(const ChunkRange& r) override {
    PgResult rows = c_.query(
        "SELECT DISTINCT cx, cz FROM changes WHERE cx BETWEEN $1 AND $2 AND cz BETWEEN $3 AND $4 ORDER BY cz, cx",
        {PgParam::integer(r.min.x), PgParam::integer(r.max.x), PgParam::integer(r.min.z), PgParam::integer(r.max.z)});
    std::vector<ChunkCoord> out;
    out.reserve(static_cast<size_t>(rows.rows()));
    for (int row = 0; row < rows.rows(); ++row) out.push_back({rows.int64(row, 0), rows.int64(row, 1)});
    return out;
  }
  std::optional<Remembered> remembered(const std::string& id) override {
    PgResult r = c_.query("SELECT answer, digest FROM requests WHERE id = $1", {PgParam::bytes(id)});
    if (r.rows() == 0) return std::nullopt;
    return Remembered{r.bytes(0, 0), r.null(0, 1) ? "" : r.bytes(0, 1)};
  }
  void remember(const std::string& id, const std::string& digest, const std::string& answer) override {
    // Writers hold the advisory lock, so max(seq) + 1 is not raced.
    const int64_t seq = c_.integer("SELECT coalesce(max(seq), 0)::bigint + 1 FROM requests");
    c_.query("INSERT INTO requests(id, digest, answer, seq) VALUES ($1, $2, $3, $4)",
             {PgParam::bytes(id), PgParam::bytes(digest), PgParam::bytes(answer), PgParam::integer(seq)});
    if (seq % 1024 == 0) {  // now and then, not per request: the oldest beyond the bound go
      c_.query("DELETE FROM requests WHERE seq <= $1", {PgParam::integer(seq - kMaxRequests)});
    }
  }
  std::optional<std::string> meta(const std::string& key) override { return read_meta(c_, key, true); }
  void set_meta(const std::string& key, const std::string& value) override {
    c_.query("INSERT INTO meta(key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
             {PgParam::text(key), PgParam::text(value)});
  }

 private:
  PgConnection& c_;
};

class PostgresStore final : public EditStore {
 public:
  explicit PostgresStore(const std::string& uri)
      : abort_fd_(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)),
        // OK means durable, whatever the database's default.
        writer_(uri, "SET synchronous_commit = on", abort_fd_.fd),
        reader_(uri, "", abort_fd_.fd),
        listener_(uri, std::string("LISTEN ") + kChannel, abort_fd_.fd) {
    migrate();
    wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (wake_fd_ < 0) throw writer_.error("eventfd failed");
  }
  ~PostgresStore() override { close(wake_fd_); }

  void write(const std::function<void(Transaction&)>& body) override;

  uint64_t version(ChunkCoord chunk) override {
    return read([&] { return chunk_version(reader_, chunk); });
  }
  std::vector<StoredChange> log(ChunkCoord chunk, uint64_t after_version) override {
    return read([&] { return chunk_log(reader_, chunk, after_version); });
  }
  std::vector<StoredChange> changes_after(int64_t after_seq, size_t limit) override {
    return read([&] {
      return read_changes(reader_.query(std::string(kChangeColumns) + "WHERE seq > $1 ORDER BY seq LIMIT $2",
                                        {PgParam::integer(after_seq), PgParam::integer(static_cast<int64_t>(limit))}));
    });
  }
  int64_t last_seq() override {
    return read([&] { return reader_.integer("SELECT coalesce(max(seq), 0)::bigint FROM changes"); });
  }
  std::vector<std::pair<ChunkCoord, uint64_t>> versions() override;
  std::optional<std::string> meta(const std::string& key) override {
    return read([&] { return read_meta(reader_, key); });
  }
  SeenLand seen_land() override {
    return read([&] {
      PgResult rows = reader_.query("SELECT rx, rz, epoch, b0, b1, b2, b3 FROM seen");
      SeenLand seen;
      for (int row = 0; row < rows.rows(); ++row) {
        SeenLand::Bits bits{};
        for (int w = 0; w < 4; ++w) bits[w] = std::bit_cast<uint64_t>(rows.int64(row, 3 + w));
        seen.merge(rows.int64(row, 0), rows.int64(row, 1), static_cast<uint32_t>(rows.int64(row, 2)), bits);
      }
      return seen;
    });
  }
  void snapshot(const std::function<void(const StoredChange&)>& each) override;
  StoreStats stats() override;
  std::vector<StoredChange> history(const HistoryQuery& query) override;
  std::vector<ChunkCoord> chunks_changed(const HistoryQuery& query) override;
  std::optional<uint32_t> player_id(const std::string& name) override {
    return read([&] { return find_player(reader_, name); });
  }
  std::string player_name(uint32_t id) override {
    return read([&] {
      PgResult r = reader_.query("SELECT name FROM players WHERE id = $1", {PgParam::integer(id)});
      return r.rows() == 0 ? std::string() : r.bytes(0, 0);
    });
  }

  void wait_for_commits(std::chrono::milliseconds timeout) override;
  void wake() override {
    const uint64_t one = 1;
    (void)!::write(wake_fd_, &one, sizeof one);
  }
  // Readable for good: every wait of the three connections ends, and no reconnect waits.
  void abort() override {
    const uint64_t one = 1;
    (void)!::write(abort_fd_.fd, &one, sizeof one);
    wake();
  }
  std::string describe() const override { return writer_.describe(); }

 private:
  struct OwnedFd {
    explicit OwnedFd(int owned) : fd(owned) {}
    OwnedFd(const OwnedFd&) = delete;
    OwnedFd& operator=(const OwnedFd&) = delete;
    ~OwnedFd() { close(fd); }
    int fd;
  };
  // A read on the reader connection, reconnecting first if the database went away.
  template <typename F>
  std::invoke_result_t<F> read(F&& f) {
    std::lock_guard lock(read_mutex_);
    reader_.ensure_connected();
    return f();
  }

  void migrate();
  bool drain_notifications();

  std::mutex write_mutex_, read_mutex_, listen_mutex_;
  OwnedFd abort_fd_;  // before the connections, which poll it
  PgConnection writer_, reader_, listener_;
  int wake_fd_ = -1;  // wake() writes it, wait_for_commits polls it
};

void PostgresStore::migrate() {
  std::lock_guard lock(write_mutex_);
  writer_.exec("BEGIN");
  try {
    writer_.exec(kWriterLock);  // replicas starting together migrate one at a time
    writer_.exec("CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)");
    const std::optional<std::string> text = read_meta(writer_, "schema_version");
    const int64_t from = text ? std::stoll(*text) : 0;
    if (from > kStoreSchemaVersion) {
      throw writer_.error("schema version " + std::to_string(from) + " is newer than this build's " +
                          std::to_string(kStoreSchemaVersion) + " (written by a newer chunkforge)");
    }
    for (int64_t v = from; v < kStoreSchemaVersion; ++v) writer_.exec(kMigrations[v]);
    PgTransaction(writer_).set_meta("schema_version", std::to_string(kStoreSchemaVersion));
    writer_.exec("COMMIT");
  } catch (...) {
    writer_.exec_quietly("ROLLBACK");
    throw;
  }
}

// A COMMIT that fails with the connection leaves the outcome unknown; the caller gets the
// StoreError (UNAVAILABLE), and a retry with the same request id gets the first answer if the
// commit did happen.
void PostgresStore::write(const std::function<void(Transaction&)>& body) {
  std::lock_guard lock(write_mutex_);
  writer_.ensure_connected();
  writer_.exec("BEGIN");
  try {
    writer_.exec(kWriterLock);
    PgTransaction tx(writer_);
    body(tx);
    writer_.exec(std::string("NOTIFY ") + kChannel);
    writer_.exec("COMMIT");
  } catch (...) {
    writer_.exec_quietly("ROLLBACK");
    throw;
  }
}

std::vector<std::pair<ChunkCoord, uint64_t>> PostgresStore::versions() {
  return read([&] {
    PgResult r = reader_.query("SELECT cx, cz, max(version) FROM changes GROUP BY cx, cz");
    std::vector<std::pair<ChunkCoord, uint64_t>> out;
    out.reserve(static_cast<size_t>(r.rows()));
    for (int row = 0; row < r.rows(); ++row) {
      out.push_back({{r.int64(row, 0), r.int64(row, 1)}, static_cast<uint64_t>(r.int64(row, 2))});
    }
    return out;
  });
}

// One REPEATABLE READ transaction is one snapshot; a cursor keeps memory to one page of rows.
void PostgresStore::snapshot(const std::function<void(const StoredChange&)>& each) {
  read([&] {
    reader_.exec("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    try {
      reader_.exec(std::string("DECLARE export NO SCROLL CURSOR FOR ") + kNamedChangeColumns + "ORDER BY seq");
      while (true) {
        const std::vector<StoredChange> page =
            read_changes(reader_.query("FETCH " + std::to_string(kExportPage) + " FROM export"));
        for (const StoredChange& change : page) each(change);
        if (page.size() < static_cast<size_t>(kExportPage)) break;
      }
      reader_.exec("COMMIT");
    } catch (...) {
      reader_.exec_quietly("ROLLBACK");
      throw;
    }
  });
}

StoreStats PostgresStore::stats() {
  return read([&] {
    StoreStats out;
    PgResult r = reader_.query(
        "SELECT (SELECT count(*) FROM (SELECT DISTINCT cx, cz FROM changes) AS chunks),"
        "  (SELECT count(*) FROM changes), (SELECT coalesce(sum(length(change)), 0)::bigint FROM changes),"
        "  (SELECT count(*) FROM requests),"
        "  (pg_total_relation_size('changes') + pg_total_relation_size('requests') +"
        "   pg_total_relation_size('meta'))::bigint");
    out.chunks = static_cast<uint64_t>(r.int64(0, 0));
    out.changes = static_cast<uint64_t>(r.int64(0, 1));
    out.change_bytes = static_cast<uint64_t>(r.int64(0, 2));
    out.requests = static_cast<uint64_t>(r.int64(0, 3));
    out.disk_bytes = static_cast<uint64_t>(r.int64(0, 4));
    return out;
  });
}

// The WHERE clause of a history query; its parameters appended to `params`.
std::string history_filter(const HistoryQuery& q, std::vector<PgParam>& params) {
  std::string sql = " WHERE true";
  const auto where = [&](const char* condition, int64_t value) {
    params.push_back(PgParam::integer(value));
    sql += std::string(" AND ") + condition + " $" + std::to_string(params.size());
  };
  if (q.area) {
    where("cx >=", q.area->first.x);
    where("cx <=", q.area->second.x);
    where("cz >=", q.area->first.z);
    where("cz <=", q.area->second.z);
  }
  if (q.author) where("author =", *q.author);
  if (q.since != 0) where("committed_at >=", q.since);
  if (q.until != 0) where("committed_at <", q.until);
  if (q.before_seq != 0) where("seq <", q.before_seq);
  params.push_back(PgParam::integer(static_cast<int64_t>(q.limit)));
  return sql;
}

std::vector<StoredChange> PostgresStore::history(const HistoryQuery& q) {
  std::vector<PgParam> params;
  const std::string filter = history_filter(q, params);
  const std::string sql =
      std::string(kNamedChangeColumns) + filter + " ORDER BY seq DESC LIMIT $" + std::to_string(params.size());
  return read([&] { return read_changes(reader_.query(sql, params)); });
}

std::vector<ChunkCoord> PostgresStore::chunks_changed(const HistoryQuery& q) {
  std::vector<PgParam> params;
  const std::string filter = history_filter(q, params);
  const std::string sql =
      "SELECT DISTINCT cx, cz FROM changes" + filter + " ORDER BY cz, cx LIMIT $" + std::to_string(params.size());
  return read([&] {
    PgResult r = reader_.query(sql, params);
    std::vector<ChunkCoord> out;
    out.reserve(static_cast<size_t>(r.rows()));
    for (int row = 0; row < r.rows(); ++row) out.push_back({r.int64(row, 0), r.int64(row, 1)});
    return out;
  });
}

// True if a notification had arrived; frees them all.
bool PostgresStore::drain_notifications() {
  bool any = false;
  while (PGnotify* notify = PQnotifies(listener_.get())) {
    PQfreemem(notify);
    any = true;
  }
  return any;
}

// After a lost connection the listener reconnects and LISTENs again (its setup); what was
// notified in between is found by the tail all the same, since it reads by seq, not by message.
void PostgresStore::wait_for_commits(std::chrono::milliseconds timeout) {
  std::lock_guard lock(listen_mutex_);
  bool listening = true;
  try {
    listener_.ensure_connected();
  } catch (const StoreError&) {
    listening = false;  // the database is away: wait out the timeout (or a wake) and try again
  }
  if (listening && drain_notifications()) return;
  pollfd fds[2] = {{wake_fd_, POLLIN, 0}, {listening ? PQsocket(listener_.get()) : -1, POLLIN, 0}};
  if (poll(fds, 2, static_cast<int>(timeout.count())) <= 0) return;
  if (fds[0].revents & POLLIN) {
    uint64_t count = 0;
    (void)!::read(wake_fd_, &count, sizeof count);
  }
  if (listening && fds[1].revents != 0) {  // data, or a hang-up that PQconsumeInput marks broken
    PQconsumeInput(listener_.get());
    drain_notifications();
  }
}

}  // namespace

std::unique_ptr<EditStore> open_postgres_store(const std::string& uri) { return std::make_unique<PostgresStore>(uri); }

}  // namespace chunkforge::server
