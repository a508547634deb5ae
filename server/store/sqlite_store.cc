// SqliteStore: the embedded edit store (edit_store.h) in one SQLite file. WAL mode, so that
// reads (chunk logs, the tail, an export) run beside the one writer; synchronous=FULL, so that
// a commit is on disk when write() returns. Other processes' commits (the `chunkforge edits`
// command) show as a change of PRAGMA data_version, which wait_for_commits polls.
// A file deleted or replaced under the running server would take every later commit with it
// (SQLite writes on through its open descriptors): each commit first checks that the database
// and its write-ahead log at the path are still the files it opened, and refuses for good if not.
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bit>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <optional>

#include "sqlite_connection.h"
#include "store_backends.h"

namespace chunkforge::server {
namespace {

// Schema migrations, in order: entry k takes the schema from version k to k + 1.
const char* const kMigrations[] = {
    // 1: the change log (seq is the commit order), remembered request ids, metadata.
    "CREATE TABLE changes(seq INTEGER PRIMARY KEY, cx INTEGER NOT NULL, cz INTEGER NOT NULL,"
    "  version INTEGER NOT NULL, change BLOB NOT NULL);"
    "CREATE UNIQUE INDEX changes_by_chunk ON changes(cx, cz, version);"
    "CREATE TABLE requests(id TEXT PRIMARY KEY, answer BLOB NOT NULL, seq INTEGER NOT NULL);"
    "CREATE INDEX requests_by_age ON requests(seq);",
    // 2: request ids are bytes, each with the digest of the request that got its answer; stored
    // ids keep their bytes.
    "CREATE TABLE requests_v2(id BLOB PRIMARY KEY, digest BLOB, answer BLOB NOT NULL, seq INTEGER NOT NULL);"
    "INSERT INTO requests_v2(id, answer, seq) SELECT CAST(id AS BLOB), answer, seq FROM requests;"
    "DROP TABLE requests;"
    "ALTER TABLE requests_v2 RENAME TO requests;"
    "CREATE INDEX requests_by_age ON requests(seq);",
    // 3: seq never goes back. A plain INTEGER PRIMARY KEY reuses the largest seq once its row is
    // deleted (a reset or an import of the chunk holding the newest change), and running
    // servers' tails, which read changes after the last seq they saw, would miss the row stored
    // under it. AUTOINCREMENT keeps the largest seq ever given in sqlite_sequence instead. The
    // rows keep their seq; the copy sets sqlite_sequence to the largest.
    "CREATE TABLE changes_v3(seq INTEGER PRIMARY KEY AUTOINCREMENT, cx INTEGER NOT NULL,"
    "  cz INTEGER NOT NULL, version INTEGER NOT NULL, change BLOB NOT NULL);"
    "INSERT INTO changes_v3(seq, cx, cz, version, change) SELECT seq, cx, cz, version, change FROM changes;"
    "DROP TABLE changes;"
    "ALTER TABLE changes_v3 RENAME TO changes;"
    "CREATE UNIQUE INDEX changes_by_chunk ON changes(cx, cz, version);",
    // 4: authorship. Each change names its author by an id of the players dictionary (a varint
    // of one to three bytes) and its commit time in Unix seconds; changes stored before have 0
    // for both. No index: a player's changes are found by a scan (docs/edits.md, "Moderation").
    "ALTER TABLE changes ADD COLUMN author INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE changes ADD COLUMN committed_at INTEGER NOT NULL DEFAULT 0;"
    "CREATE TABLE players(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);",
    // 5: seen land (chunkforge/seen_land.h): per region of 16 x 16 chunks and epoch, the map of
    // its chunks first seen then, as four 64-bit words (integers, so that a merge is an OR).
    // (One statement in parentheses: clang warns of a last element made of two literals.)
    ("CREATE TABLE seen(rx INTEGER NOT NULL, rz INTEGER NOT NULL, epoch INTEGER NOT NULL, b0 INTEGER NOT NULL,"
     "  b1 INTEGER NOT NULL, b2 INTEGER NOT NULL, b3 INTEGER NOT NULL, PRIMARY KEY (rx, rz, epoch));"),
};
static_assert(std::size(kMigrations) == kStoreSchemaVersion, "one migration per schema version");

// Remembered request ids, at most: the oldest go first.
constexpr int64_t kMaxRequests = 100000;

// The columns of a StoredChange, in its order (row_change).
constexpr char kChangeColumns[] = "SELECT seq, cx, cz, version, change, author, committed_at FROM changes ";
// The same with the author's name last.
constexpr char kNamedChangeColumns[] =
    "SELECT seq, cx, cz, version, change, author, committed_at, coalesce(players.name, '') FROM changes "
    "LEFT JOIN players ON players.id = changes.author ";

class SqliteTransaction;

// Which file a path names now (none if it names nothing).
struct FileIdentity {
  dev_t device = 0;
  ino_t inode = 0;
  bool operator==(const FileIdentity&) const = default;
};
std::optional<FileIdentity> identity_of(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return std::nullopt;
  return FileIdentity{st.st_dev, st.st_ino};
}

class SqliteStore final : public EditStore {
 public:
  explicit SqliteStore(const std::string& path) : path_(path), writer_(open(path)), reader_(open(path)) {
    migrate();
    database_file_ = identity_of(path_);
    log_file_ = identity_of(path_ + "-wal");
  }

  void write(const std::function<void(Transaction&)>& body) override;

  uint64_t version(ChunkCoord chunk) override {
    std::lock_guard lock(read_mutex_);
    return chunk_version(reader_, chunk);
  }
  std::vector<StoredChange> log(ChunkCoord chunk, uint64_t after_version) override {
    std::lock_guard lock(read_mutex_);
    return chunk_log(reader_, chunk, after_version);
  }
  // The tail's read: it fails too once the file is gone, so that the store is reported down.
  std::vector<StoredChange> changes_after(int64_t after_seq, size_t limit) override {
    check_files();
    std::lock_guard lock(read_mutex_);
    Statement s(reader_, std::string(kChangeColumns) + "WHERE seq > ? ORDER BY seq LIMIT ?");
    s.bind(1, after_seq).bind(2, static_cast<int64_t>(limit));
    return read_changes(s);
  }
  int64_t last_seq() override {
    std::lock_guard lock(read_mutex_);
    return reader_.integer("SELECT coalesce(max(seq), 0) FROM changes");
  }
  std::vector<std::pair<ChunkCoord, uint64_t>> versions() override {
    std::lock_guard lock(read_mutex_);
    Statement s(reader_, "SELECT cx, cz, max(version) FROM changes GROUP BY cx, cz");
    std::vector<std::pair<ChunkCoord, uint64_t>> out;
    while (s.step()) out.push_back({{s.int64(0), s.int64(1)}, static_cast<uint64_t>(s.int64(2))});
    return out;
  }
  std::optional<std::string> meta(const std::string& key) override {
    std::lock_guard lock(read_mutex_);
    return read_meta(reader_, key);
  }
  SeenLand seen_land() override {
    std::lock_guard lock(read_mutex_);
    Statement s(reader_, "SELECT rx, rz, epoch, b0, b1, b2, b3 FROM seen");
    SeenLand seen;
    while (s.step()) {
      SeenLand::Bits bits{};
      for (int w = 0; w < 4; ++w) bits[w] = std::bit_cast<uint64_t>(s.int64(3 + w));
      seen.merge(s.int64(0), s.int64(1), static_cast<uint32_t>(s.int64(2)), bits);
    }
    return seen;
  }
  void snapshot(const std::function<void(const StoredChange&)>& each) override {
    std::lock_guard lock(read_mutex_);
    reader_.exec("BEGIN");  // one read transaction: one snapshot of the WAL
    try {
      Statement s(reader_, std::string(kNamedChangeColumns) + "ORDER BY seq");
      while (s.step()) each(row_change(s));
    } catch (...) {
      reader_.exec("ROLLBACK");
      throw;
    }
    reader_.exec("COMMIT");
  }
  StoreStats stats() override;
  std::vector<StoredChange> history(const HistoryQuery& query) override;
  std::vector<ChunkCoord> chunks_changed(const HistoryQuery& query) override;
  std::optional<uint32_t> player_id(const std::string& name) override {
    std::lock_guard lock(read_mutex_);
    return find_player(reader_, name);
  }
  std::string player_name(uint32_t id) override {
    std::lock_guard lock(read_mutex_);
    Statement s(reader_, "SELECT name FROM players WHERE id = ?");
    s.bind(1, static_cast<int64_t>(id));
    return s.step() ? s.text(0) : std::string();
  }

  void wait_for_commits(std::chrono::milliseconds timeout) override;
  void wake() override {
    std::lock_guard lock(wake_mutex_);
    ++wakes_;
    woken_.notify_all();
  }
  void abort() override {
    std::lock_guard lock(lost_mutex_);
    if (lost_.empty()) lost_ = "the server is stopping";
  }
  std::string describe() const override { return "sqlite:" + path_; }

  // Shared with the transaction.
  static uint64_t chunk_version(Connection& c, ChunkCoord chunk) {
    Statement s(c, "SELECT coalesce(max(version), 0) FROM changes WHERE cx = ? AND cz = ?");
    s.bind(1, chunk.x).bind(2, chunk.z);
    s.step();
    return static_cast<uint64_t>(s.int64(0));
  }
  static std::vector<StoredChange> chunk_log(Connection& c, ChunkCoord chunk, uint64_t after) {
    Statement s(c, std::string(kChangeColumns) + "WHERE cx = ? AND cz = ? AND version > ? ORDER BY version");
    s.bind(1, chunk.x).bind(2, chunk.z).bind(3, static_cast<int64_t>(after));
    return read_changes(s);
  }
  static std::optional<uint32_t> find_player(Connection& c, const std::string& name) {
    Statement s(c, "SELECT id FROM players WHERE name = ?");
    s.bind(1, name);
    if (!s.step()) return std::nullopt;
    return static_cast<uint32_t>(s.int64(0));
  }
  static std::optional<std::string> read_meta(Connection& c, const std::string& key) {
    Statement s(c, "SELECT value FROM meta WHERE key = ?");
    s.bind(1, key);
    if (!s.step()) return std::nullopt;
    return s.text(0);
  }

 private:
  static Connection open(const std::string& path);
  void migrate();
  void check_files();
  static StoredChange row_change(Statement& s) {
    StoredChange c{s.int64(0), {s.int64(1), s.int64(2)},          static_cast<uint64_t>(s.int64(3)),
                   s.blob(4),  static_cast<uint32_t>(s.int64(5)), s.int64(6),
                   {}};
    if (s.columns() > 7) c.author_name = s.text(7);
    return c;
  }
  static std::vector<StoredChange> read_changes(Statement& s) {
    std::vector<StoredChange> out;
    while (s.step()) out.push_back(row_change(s));
    return out;
  }

  std::string path_;
  std::optional<FileIdentity> database_file_, log_file_;  // as opened
  std::mutex lost_mutex_;
  std::string lost_;  // why the store refuses everything from now on ("": it does not)
  std::mutex write_mutex_, read_mutex_;
  Connection writer_, reader_;
  std::mutex wake_mutex_;
  std::condition_variable woken_;
  uint64_t wakes_ = 0;
};

class SqliteTransaction final : public EditStore::Transaction {
 public:
  explicit SqliteTransaction(Connection& c) : c_(c) {}
  uint64_t version(ChunkCoord chunk) override { return SqliteStore::chunk_version(c_, chunk); }
  std::vector<StoredChange> log(ChunkCoord chunk, uint64_t after) override {
    return SqliteStore::chunk_log(c_, chunk, after);
  }
  void append(ChunkCoord chunk, uint64_t version, const std::string& change, Authorship by) override {
    Statement s(c_, "INSERT INTO changes(cx, cz, version, change, author, committed_at) VALUES (?, ?, ?, ?, ?, ?)");
    s.bind(1, chunk.x).bind(2, chunk.z).bind(3, static_cast<int64_t>(version)).bind_blob(4, change);
    s.bind(5, static_cast<int64_t>(by.author)).bind(6, by.at);
    s.step();
  }
  uint32_t player(const std::string& name) override {
    if (std::optional<uint32_t> id = SqliteStore::find_player(c_, name)) return *id;
    Statement s(c_, "INSERT INTO players(name) VALUES (?)");
    s.bind(1, name);
    s.step();
    return static_cast<uint32_t>(sqlite3_last_insert_rowid(c_.get()));
  }
  void merge_seen(int64_t region_x, int64_t region_z, uint32_t epoch, const SeenLand::Bits& bits) override {
    Statement s(
        c_,
        "INSERT INTO seen(rx, rz, epoch, b0, b1, b2, b3) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (rx, rz, epoch) "
        "DO UPDATE SET b0 = b0 | excluded.b0, b1 = b1 | excluded.b1, b2 = b2 | excluded.b2, b3 = b3 | excluded.b3");
    s.bind(1, region_x).bind(2, region_z).bind(3, static_cast<int64_t>(epoch));
    for (int w = 0; w < 4; ++w) s.bind(4 + w, std::bit_cast<int64_t>(bits[w]));
    s.step();
  }
  void erase_log(ChunkCoord chunk) override {
    Statement s(c_, "DELETE FROM changes WHERE cx = ? AND cz = ?");
    s.bind(1, chunk.x).bind(2, chunk.z);
    s.step();
  }
  std::vector<ChunkCoord> edited_chunks(const ChunkRange& r) override {
    Statement s(c_,
                "SELECT DISTINCT cx, cz FROM changes WHERE cx BETWEEN ? AND ? AND cz BETWEEN ? AND ? "
                "ORDER BY cz, cx");
    s.bind(1, r.min.x).bind(2, r.max.x).bind(3, r.min.z).bind(4, r.max.z);
    std::vector<ChunkCoord> out;
    while (s.step()) out.push_back({s.int64(0), s.int64(1)});
    return out;
  }
  std::optional<Remembered> remembered(const std::string& id) override {
    Statement s(c_, "SELECT answer, digest FROM requests WHERE id = ?");
    s.bind_blob(1, id);
    if (!s.step()) return std::nullopt;
    return Remembered{s.blob(0), s.blob(1)};
  }
  void remember(const std::string& id, const std::string& digest, const std::string& answer) override {
    const int64_t seq = c_.integer("SELECT coalesce(max(seq), 0) + 1 FROM requests");
    Statement s(c_, "INSERT INTO requests(id, digest, answer, seq) VALUES (?, ?, ?, ?)");
    s.bind_blob(1, id).bind_blob(2, digest).bind_blob(3, answer).bind(4, seq);
    s.step();
    if (seq % 1024 == 0) {  // now and then, not per request: the oldest beyond the bound go
      Statement prune(c_, "DELETE FROM requests WHERE seq <= ?");
      prune.bind(1, seq - kMaxRequests);
      prune.step();
    }
  }
  std::optional<std::string> meta(const std::string& key) override { return SqliteStore::read_meta(c_, key); }
  void set_meta(const std::string& key, const std::string& value) override {
    Statement s(c_, "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)");
    s.bind(1, key).bind(2, value);
    s.step();
  }

 private:
  Connection& c_;
};

Connection SqliteStore::open(const std::string& path) {
  Connection c(path);
  c.exec("PRAGMA busy_timeout = 5000");
  c.exec("PRAGMA journal_mode = WAL");
  c.exec("PRAGMA synchronous = FULL");  // durable at COMMIT, not only consistent
  return c;
}

void SqliteStore::migrate() {
  std::lock_guard lock(write_mutex_);
  writer_.exec("BEGIN IMMEDIATE");  // two processes opening a new file migrate one at a time
  try {
    writer_.exec("CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)");
    const std::optional<std::string> text = read_meta(writer_, "schema_version");
    const int64_t from = text ? std::stoll(*text) : 0;
    if (from > kStoreSchemaVersion) {
      throw StoreError(describe() + ": schema version " + std::to_string(from) + " is newer than this build's " +
                       std::to_string(kStoreSchemaVersion) + " (written by a newer chunkforge)");
    }
    for (int64_t v = from; v < kStoreSchemaVersion; ++v) writer_.exec(kMigrations[v]);
    SqliteTransaction(writer_).set_meta("schema_version", std::to_string(kStoreSchemaVersion));
    writer_.exec("COMMIT");
  } catch (...) {
    writer_.exec_quietly("ROLLBACK");
    throw;
  }
}

// The files are checked before the commit (nothing is acknowledged into a deleted file) and
// after it (one deleted during the commit: its outcome is lost, and the caller must not say OK).
void SqliteStore::write(const std::function<void(Transaction&)>& body) {
  std::lock_guard lock(write_mutex_);
  check_files();
  writer_.exec("BEGIN IMMEDIATE");
  try {
    SqliteTransaction tx(writer_);
    body(tx);
    check_files();
    writer_.exec("COMMIT");
  } catch (...) {
    writer_.exec_quietly("ROLLBACK");
    throw;
  }
  check_files();
}

// Once lost, lost for good: a new file at the path holds none of the acknowledged edits, and
// the old one is readable only through this process's descriptors. A restart sees what is left.
void SqliteStore::check_files() {
  std::lock_guard lock(lost_mutex_);
  if (lost_.empty()) {
    if (identity_of(path_) != database_file_) {
      lost_ = "the database file was deleted or replaced under the running server";
    } else if (log_file_ && identity_of(path_ + "-wal") != log_file_) {
      lost_ = "its write-ahead log (" + path_ + "-wal) was deleted or replaced under the running server";
    }
    if (lost_.empty()) {
      // Not for good: a file made writable again takes commits again.
      if (access(path_.c_str(), W_OK) == 0) return;
      throw StoreError(describe() + ": the database file is not writable");
    }
    lost_ += "; edits are refused until it is restored and the server restarted";
  }
  throw StoreError(describe() + ": " + lost_);
}

StoreStats SqliteStore::stats() {
  std::lock_guard lock(read_mutex_);
  StoreStats out;
  out.chunks = static_cast<uint64_t>(reader_.integer("SELECT count(*) FROM (SELECT DISTINCT cx, cz FROM changes)"));
  out.changes = static_cast<uint64_t>(reader_.integer("SELECT count(*) FROM changes"));
  out.change_bytes = static_cast<uint64_t>(reader_.integer("SELECT coalesce(sum(length(change)), 0) FROM changes"));
  out.requests = static_cast<uint64_t>(reader_.integer("SELECT count(*) FROM requests"));
  // The database file once the write-ahead log is copied into it (the log itself is reused
  // space, not growth: SQLite checkpoints it at 1000 pages by default).
  reader_.exec_quietly("PRAGMA wal_checkpoint(PASSIVE)");
  std::error_code error;
  const std::uintmax_t size = std::filesystem::file_size(path_, error);
  out.disk_bytes = error ? 0 : size;
  return out;
}

// The WHERE clause of a history query, and its parameters bound from 1 on (the next index).
std::string history_filter(const HistoryQuery& q) {
  std::string sql = " WHERE 1";
  if (q.area) sql += " AND cx BETWEEN ? AND ? AND cz BETWEEN ? AND ?";
  if (q.author) sql += " AND author = ?";
  if (q.since != 0) sql += " AND committed_at >= ?";
  if (q.until != 0) sql += " AND committed_at < ?";
  if (q.before_seq != 0) sql += " AND seq < ?";
  return sql;
}
int bind_history(Statement& s, const HistoryQuery& q) {
  int k = 1;
  if (q.area) {
    for (const int64_t v : {q.area->first.x, q.area->second.x, q.area->first.z, q.area->second.z}) s.bind(k++, v);
  }
  if (q.author) s.bind(k++, static_cast<int64_t>(*q.author));
  if (q.since != 0) s.bind(k++, q.since);
  if (q.until != 0) s.bind(k++, q.until);
  if (q.before_seq != 0) s.bind(k++, q.before_seq);
  return k;
}

std::vector<StoredChange> SqliteStore::history(const HistoryQuery& q) {
  std::lock_guard lock(read_mutex_);
  Statement s(reader_, std::string(kNamedChangeColumns) + history_filter(q) + " ORDER BY seq DESC LIMIT ?");
  s.bind(bind_history(s, q), static_cast<int64_t>(q.limit));
  return read_changes(s);
}

std::vector<ChunkCoord> SqliteStore::chunks_changed(const HistoryQuery& q) {
  std::lock_guard lock(read_mutex_);
  Statement s(reader_, "SELECT DISTINCT cx, cz FROM changes" + history_filter(q) + " ORDER BY cz, cx LIMIT ?");
  s.bind(bind_history(s, q), static_cast<int64_t>(q.limit));
  std::vector<ChunkCoord> out;
  while (s.step()) out.push_back({s.int64(0), s.int64(1)});
  return out;
}

void SqliteStore::wait_for_commits(std::chrono::milliseconds timeout) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  const auto data_version = [&] {
    std::lock_guard lock(read_mutex_);
    return reader_.integer("PRAGMA data_version");
  };
  const int64_t seen = data_version();
  std::unique_lock lock(wake_mutex_);
  const uint64_t wakes = wakes_;
  while (std::chrono::steady_clock::now() < until) {
    const auto next = std::min(until, std::chrono::steady_clock::now() + std::chrono::milliseconds(20));
    if (woken_.wait_until(lock, next, [&] { return wakes_ != wakes; })) return;
    lock.unlock();
    const bool changed = data_version() != seen;
    lock.lock();
    if (changed) return;
  }
}

}  // namespace

std::unique_ptr<EditStore> open_sqlite_store(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty() && !std::filesystem::is_directory(parent)) {
    throw StoreError("sqlite:" + path + ": the directory " + parent.string() + " does not exist");
  }
  return std::make_unique<SqliteStore>(path);
}

}  // namespace chunkforge::server
