// File: server/store/edit_store.h
//
// Where edits live (docs/edits.md): an append-only log of committed chunk changes, one row per
// (chunk, version), in the order of a store-wide sequence number. Two implementations:
// SqliteStore (one file, the embedded default) and PostgresStore (shared by replicas). The
// server's EditService does everything above this: validation, group commit, fan-out.
//
//   std::unique_ptr<EditStore> store = open_store("sqlite:/var/lib/chunkforge/edits.db");
//   store->write([&](EditStore::Transaction& tx) {
//     tx.append(coord, tx.version(coord) + 1, change_bytes);
//   });  // durable when write() returns
//
// Thread safety: every method may be called from any thread. One write transaction runs at a
// time per process; reads run beside it and see only committed changes.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "chunkforge/chunk.h"
#include "chunkforge/seen_land.h"

namespace chunkforge::server {

// A store that cannot be opened, read or written: the message says which and why.
class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One committed change to one chunk, as stored.
struct StoredChange {
  // Store-wide commit order: increasing, committed in this order, and never given again, even
  // once its row is deleted (a reset, an import), so that a tail reading "after the last seq I
  // saw" sees every change committed after it.
  int64_t seq = 0;
  ChunkCoord chunk;
  uint64_t version = 0;  // the chunk's version after this change: 1, 2, 3 ...
  // A serialized v1::ChunkChange holding only `edits` and `reset` (chunk and version are the
  // columns above).
  std::string change;
  // Who the change was made for (an id of the store's player dictionary; 0: the service itself,
  // or stored before authors were) and when it was committed (Unix seconds; 0: before times were).
  uint32_t author = 0;
  int64_t at = 0;
  // The author's name: filled by snapshot() and history() only ("" for author 0).
  std::string author_name;
};

// Now in Unix seconds: a change's commit time.
inline int64_t unix_seconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// A change's author and commit time, as append() stores them.
struct Authorship {
  uint32_t author = 0;
  int64_t at = 0;
};

// Which stored changes a moderator asks about (history()): every filter set must match.
struct HistoryQuery {
  std::optional<std::pair<ChunkCoord, ChunkCoord>> area;  // min and max corners, included
  std::optional<uint32_t> author;
  int64_t since = 0, until = 0;  // at >= since, at < until; 0: unbounded
  int64_t before_seq = 0;        // seq < before_seq (the next page); 0: unbounded
  size_t limit = 1000;           // newest first, at most this many
};

struct StoreStats {
  uint64_t chunks = 0;        // chunks with at least one stored change
  uint64_t changes = 0;       // stored changes (rows)
  uint64_t change_bytes = 0;  // sum of the change blobs
  uint64_t disk_bytes = 0;    // the store's size on disk (tables and indexes)
  uint64_t requests = 0;      // remembered request ids
};

// A rectangle of chunks, corners included.
struct ChunkRange {
  ChunkCoord min, max;
  bool contains(ChunkCoord c) const { return c.x >= min.x && c.x <= max.x && c.z >= min.z && c.z <= max.z; }
};

class EditStore {
 public:
  virtual ~EditStore() = default;

  // What a write transaction can see and do. Its reads see its own writes.
  class Transaction {
   public:
    virtual ~Transaction() = default;
    // The chunk's current version: 0 if it has no stored change.
    virtual uint64_t version(ChunkCoord chunk) = 0;
    // The chunk's changes with version > after_version, oldest first.
    virtual std::vector<StoredChange> log(ChunkCoord chunk, uint64_t after_version) = 0;
    // Appends a change; `version` must be version(chunk) + 1.
    virtual void append(ChunkCoord chunk, uint64_t version, const std::string& change, Authorship by = {}) = 0;
    // The id of a player's name in the store's dictionary, added if new (never 0). Ids are
    // never reused or renumbered.
    virtual uint32_t player(const std::string& name) = 0;
    // Deletes every stored change of the chunk (a reset appends its marker after).
    virtual void erase_log(ChunkCoord chunk) = 0;
    // Chunks with stored changes inside the range.
    virtual std::vector<ChunkCoord> edited_chunks(const ChunkRange& range) = 0;
    // A request id (any bytes) as remembered: the answer it got and the digest of the request
    // that got it ("" for ids stored before digests were).
    struct Remembered {
      std::string answer, digest;
    };
    virtual std::optional<Remembered> remembered(const std::string& id) = 0;
    virtual void remember(const std::string& id, const std::string& digest, const std::string& answer) = 0;

    // The request being committed next: remember(id, answer) records its digest with the answer.
    void begin_request(std::string digest) {
      digest_ = std::move(digest);
      looked_up_.reset();
    }
    // The id's remembered request; a second lookup of the same id in one request is not a
    // second round trip (the id is checked for reuse first, then answered from).
    std::optional<Remembered> look_up(const std::string& id) {
      if (!looked_up_ || looked_up_->first != id) looked_up_.emplace(id, remembered(id));
      return looked_up_->second;
    }
    // A request id's remembered answer, if it was seen; remember() records one.
    std::optional<std::string> request(const std::string& id) {
      std::optional<Remembered> r = look_up(id);
      return r ? std::optional<std::string>(std::move(r->answer)) : std::nullopt;
    }
    void remember(const std::string& id, const std::string& answer) {
      looked_up_.reset();
      remember(id, digest_, answer);
    }
    // Merges one region's map of chunks seen in `epoch` into the store's seen land (a bitwise
    // OR: marks are never taken back), docs/world-definition.md, "Epochs".
    virtual void merge_seen(int64_t region_x, int64_t region_z, uint32_t epoch, const SeenLand::Bits& bits) = 0;
    // Key-value metadata (the world binding).
    virtual std::optional<std::string> meta(const std::string& key) = 0;
    virtual void set_meta(const std::string& key, const std::string& value) = 0;

   private:
    std::string digest_;
    std::optional<std::pair<std::string, std::optional<Remembered>>> looked_up_;
  };

  // Runs `body` in one write transaction and commits it durably: when write() returns, the
  // changes survive a crash or power loss. If `body` throws, nothing is written and the
  // exception propagates; a failure of the store itself throws StoreError.
  virtual void write(const std::function<void(Transaction&)>& body) = 0;

  // Reads of committed state, each consistent on its own.
  virtual uint64_t version(ChunkCoord chunk) = 0;
  virtual std::vector<StoredChange> log(ChunkCoord chunk, uint64_t after_version) = 0;
  // Changes with seq > after_seq, in seq order, at most `limit`.
  virtual std::vector<StoredChange> changes_after(int64_t after_seq, size_t limit) = 0;
  // The largest seq of a stored change (0 for an empty store); a later commit gets a larger one
  // even if the change that had it was deleted.
  virtual int64_t last_seq() = 0;
  // Every chunk with a stored change and its version.
  virtual std::vector<std::pair<ChunkCoord, uint64_t>> versions() = 0;
  virtual std::optional<std::string> meta(const std::string& key) = 0;
  // The chunks players were sent, each in the epoch it was first seen in (SeenLand::merge
  // resolves a chunk two replicas recorded in two epochs).
  virtual SeenLand seen_land() = 0;
  // Every stored change in seq order, with its author's name, from one snapshot, while writers
  // go on (export).
  virtual void snapshot(const std::function<void(const StoredChange&)>& each) = 0;
  virtual StoreStats stats() = 0;
  // Moderation (docs/edits.md): the changes matching `query` with their authors' names, newest
  // first; the distinct chunks of those changes, by (z, x), at most query.limit; a player's id
  // in the dictionary (none if the store never recorded the name); the name of an id.
  virtual std::vector<StoredChange> history(const HistoryQuery& query) = 0;
  virtual std::vector<ChunkCoord> chunks_changed(const HistoryQuery& query) = 0;
  virtual std::optional<uint32_t> player_id(const std::string& name) = 0;
  virtual std::string player_name(uint32_t id) = 0;

  // Blocks until another process may have committed (PostgreSQL: a notification; SQLite: the
  // file changed) or the timeout passes. Commits of this process wake nobody here: the caller
  // knows about them. wake() ends a wait early (shutdown).
  virtual void wait_for_commits(std::chrono::milliseconds timeout) = 0;
  virtual void wake() = 0;

  // Ends every call under way at once and fails every later one (StoreError): for shutdown,
  // so that no thread stays behind a store that stopped answering.
  virtual void abort() = 0;

  // "sqlite:PATH" or "postgres://..." / "postgresql://...", for logs (no password).
  virtual std::string describe() const = 0;
};

// Opens (creating or migrating its schema) the store at `location`: "sqlite:PATH" (a file) or
// a PostgreSQL connection URI. Throws StoreError naming the location and the reason.
std::unique_ptr<EditStore> open_store(const std::string& location);

// The metadata key of the world a store is bound to (its fingerprint; bind_store).
inline constexpr char kWorldFingerprintKey[] = "world_fingerprint";

// The schema version this build writes; a store with a newer one is refused. 2: request ids
// are bytes (any byte value) and stored with the digest of their request. 3: a change's seq is
// never given twice, whatever is deleted (SQLite: AUTOINCREMENT; PostgreSQL's identity column
// already was so). 4: every change records its author (a per-store dictionary of players) and
// its commit time. 5: seen land, a 256-bit map of chunks per region of 16 x 16 chunks and epoch.
inline constexpr int kStoreSchemaVersion = 5;

}  // namespace chunkforge::server
