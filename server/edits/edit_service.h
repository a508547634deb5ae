// File: server/edits/edit_service.h
//
// The server's side of edits (docs/edits.md), over an EditStore:
// - a version index: every edited chunk's current version, in memory (about 60 bytes per edited
//   chunk), so that a read of a chunk nobody edited never touches the store;
// - one writer thread that commits batches in groups: every batch waiting when a commit starts
//   goes into the same store transaction; a refused batch has written nothing (every check
//   comes before its first write), so it fails alone; a batch's answer is sent only once its
//   group is durable;
// - one tail thread that reads committed changes in store order (this process's and, through
//   the store's notification, other replicas' and the `chunkforge edits` command's), raises the
//   index and hands them to the listeners (the sessions);
// - the store's health (store_health.h): while it is down, edits and reads of edited chunks
//   get UNAVAILABLE at once, and the tail alone tries it again, with backoff.
//
// Thread safety: every method may be called from any thread.
#pragma once

#include <grpcpp/support/status.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "edit_store.h"
#include "edits/edit_admission.h"
#include "edits/edit_batch.h"
#include "edits/seen_recorder.h"
#include "edits/store_health.h"

namespace chunkforge::server {

// A committed change, and the SessionEvent that carries it to a session (encoded once); no
// event when the change is larger than its chunk (outgrows_chunk): sessions send the chunk.
struct CommittedChange {
  v1::ChunkChange change;
  std::shared_ptr<const std::string> event;
};
// Committed changes in store order, shared by every listener.
using ChangeList = std::vector<std::shared_ptr<const CommittedChange>>;

struct EditStats {
  uint64_t batches_committed = 0, batches_rejected = 0, groups_committed = 0;
  uint64_t ops_committed = 0;  // operations of the committed batches
  uint64_t changes_seen = 0;   // by the tail, from every writer
};

// How far this process's tail is behind the store (docs/deploy.md, "Watching"). The store
// keeps no commit times, so `seconds` is how long ago the tail last found nothing more to read
// (everything committed before then has been handed on): about the poll interval when idle,
// growing while it is behind or the store is down. `seqs` is the store's last sequence number
// minus the tail's, as of the tail's last read: 0 when that read reached the end; otherwise an
// upper bound on the changes not read yet (deleted changes leave gaps in the sequence).
struct TailLag {
  double seconds = 0;
  int64_t seqs = 0;
};

// Told of each group commit that the store made durable, on the writer thread: its
// transaction's wall time. Called without locks.
using CommitTimed = std::function<void(double seconds)>;

// Binds the store to the world: a new or empty store records the world's fingerprint; one
// that holds edits of another world is refused ("" when bound, else why and what to do),
// unless `rebind`, which records this world and keeps the edits (they apply as they are: ids
// the new world does not generate stay removed, i.e. nothing).
std::string bind_store(EditStore& store, const World& world, bool rebind);

class EditService {
 public:
  // `epoch`: the world's newest epoch, in which chunks sent now are recorded seen (0 for a
  // store whose world never changed).
  EditService(const World& world, EditStore& store, CommitTimed commit_timed = {}, uint32_t epoch = 0);
  ~EditService();  // stops the threads; batches still waiting get UNAVAILABLE

  // Loads the index and starts the threads. Throws StoreError.
  void start();
  void stop();

  // The chunk's current version as this process knows it: 0 if never edited.
  uint64_t version(ChunkCoord chunk) const;
  // Edited chunks (version > 0) with lo <= coord <= hi, ordered by (z, x), at most `limit`: for
  // the live map's edits overlay. Costs the smaller of the range's area and the index's size.
  std::vector<std::pair<ChunkCoord, uint64_t>> edited_in(ChunkCoord lo, ChunkCoord hi, size_t limit) const;

  // Commits a checked request (check_request) whose `bases` hold every chunk it needs; `done`
  // gets the status and the answer once the batch is durable or refused, on the writer thread.
  // A batch whose `cancelled` says true when its group starts (its client left) is dropped
  // with CANCELLED, uncommitted.
  using Done = std::function<void(grpc::Status, v1::EditResponse)>;
  void submit(v1::EditRequest request, BaseChunks bases, Done done, std::function<bool()> cancelled = {});

  // The bounds on edits under way (the Edit call admits and releases).
  EditAdmission& admission() { return admission_; }

  // The chunk's stored changes up to `version` from its newest snapshot or reset on, oldest
  // first. Throws StoreUnavailable while the store is down, or when this read finds it down.
  std::vector<StoredChange> log(ChunkCoord chunk, uint64_t version);

  // Read-your-writes for a commit made outside the writer (a rollback): the index knows the new
  // version before the answer goes out, as for the writer's own commits.
  void committed(ChunkCoord chunk, uint64_t version) { raise(chunk, version); }

  StoreHealth& health() { return health_; }
  const StoreHealth& health() const { return health_; }

  // Adds a listener for committed changes, called on the tail thread while `owner` lives.
  using Listener = std::function<void(const ChangeList&)>;
  void listen(std::weak_ptr<const void> owner, Listener listener);

  EditStats stats() const;
  TailLag tail_lag() const;
  EditStore& store() { return store_; }
  // The land players were sent, recorded in the store (seen_recorder.h).
  SeenRecorder& seen() { return seen_; }
  const SeenRecorder& seen() const { return seen_; }

 private:
  struct Pending {
    v1::EditRequest request;
    BaseChunks bases;
    Done done;
    std::function<bool()> cancelled;
  };
  void drop_cancelled(std::vector<Pending>& group);
  void write_loop();
  void commit_group(std::vector<Pending>& group);
  void refuse(std::vector<Pending>& group, const grpc::Status& status);
  void tail_loop();
  void deliver(std::vector<StoredChange>& page);
  void raise(ChunkCoord chunk, uint64_t version);
  void measure_lag(std::chrono::steady_clock::time_point read_at, const std::vector<StoredChange>& page);

  const World& world_;
  EditStore& store_;
  EditAdmission admission_;
  StoreHealth health_;
  SeenRecorder seen_;  // after health_: it asks it
  const CommitTimed commit_timed_;
  // The tail's lag (tail_lag()): when its last read that reached the store's end started, in
  // steady_clock ticks, and the sequence numbers it knew were left after its last read.
  std::atomic<int64_t> caught_up_at_{0}, lag_seqs_{0};

  struct CoordHash {
    size_t operator()(const ChunkCoord& c) const { return std::hash<int64_t>()(c.x * 0x9e3779b97f4a7c15LL ^ c.z); }
  };
  mutable std::shared_mutex index_mutex_;
  std::unordered_map<ChunkCoord, uint64_t, CoordHash> index_;

  mutable std::mutex mutex_;  // guards everything below
  std::condition_variable wake_writer_;
  std::deque<Pending> pending_;
  struct Listening {
    std::weak_ptr<const void> owner;
    Listener listener;
  };
  std::vector<Listening> listeners_;
  size_t prune_at_ = 64;  // listeners_ size at which listen() drops those whose owner is gone
  EditStats stats_;
  int64_t tail_seq_ = 0;
  bool stopping_ = false;
  std::thread writer_, tail_;
};

}  // namespace chunkforge::server
