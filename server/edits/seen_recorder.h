// File: server/edits/seen_recorder.h
//
// What players were sent, recorded in the store as seen land (chunkforge/seen_land.h,
// docs/world-definition.md, "Epochs"): the record that lets a world change after launch
// without changing land anybody saw. Every chunk a client is sent (or, when it generates, the
// key of) is noted; once a second the chunks noted since are merged into the store's maps in
// one transaction, off the generation threads.
//
//   SeenRecorder seen(store, /*epoch=*/0, SeenRecorder::Limits{});
//   seen.note({3, -2}, client);   // cheap: a lookup, and a bit set the first time
//
// Bounded by design: the chunks this server already noted are remembered in at most
// max_known_regions regions (then it starts afresh: a chunk noted again merges an OR the store
// already holds), and at most max_pending_regions regions wait for the store; while the store
// is down, notes in new regions past that are counted as lost, never held. The store grows by
// a map per new region, so each client has its share of them: a token bucket of
// new_regions_per_second (a walking player enters a region every few seconds, a teleport
// spans a few), past which its notes in regions nobody brought in are refused and counted.
//
// Marks are for the world the server serves: once the store is bound to another (an upgrade
// added an epoch), a flush finds it in the same transaction and drops what waited, counted as
// stale, for land of an epoch that is no longer the newest must never grow (epochs.h).
//
// Thread safety: note() and counts() from any thread; flush() from one thread at a time.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>

#include "chunkforge/seen_land.h"
#include "edit_store.h"
#include "log/client_log.h"  // TokenBucket

namespace chunkforge::server {

class SeenRecorder {
 public:
  struct Limits {
    size_t max_known_regions = 65536;                            // ~8 MiB at most
    size_t max_pending_regions = 16384;                          // ~2 MiB at most
    double new_regions_per_second = 16, new_region_burst = 256;  // each client's
    size_t max_clients = 4096;                                   // buckets held, then afresh
    std::chrono::milliseconds interval{1000};
  };
  struct Counts {
    uint64_t chunks_noted = 0;    // first notes (per server, per start afresh)
    uint64_t maps_written = 0;    // region maps merged into the store
    uint64_t flush_failures = 0;  // transactions the store refused or did not answer
    uint64_t chunks_lost = 0;     // notes dropped while too many regions waited
    uint64_t chunks_refused = 0;  // notes of clients past their share of new regions
    uint64_t chunks_stale = 0;    // notes dropped: the store's world moved on (an upgrade)
    size_t pending_regions = 0;
  };

  // `store_up`: whether to try the store now (while it is down the edit service's tail alone
  // tries it); null: always. `world`: the fingerprint of the world served (the newest epoch),
  // which the store must still be bound to; empty: not checked.
  SeenRecorder(EditStore& store, uint32_t epoch, Limits limits, std::function<bool()> store_up = {},
               std::string world = {});
  ~SeenRecorder() { stop(); }
  SeenRecorder(const SeenRecorder&) = delete;
  SeenRecorder& operator=(const SeenRecorder&) = delete;

  // Starts the writer thread (a recorder never started writes only when flush() is called);
  // stop() ends it (once; no last flush: the caller flushes while the store may still answer).
  void start();
  void stop();
  // Chunk c was sent to `client` (the generation queue's id of its connection, client_of).
  void note(ChunkCoord c, uint64_t client);
  // Merges what waits into the store now: true once stored (or when nothing waited). On a
  // failure what waited waits again, within max_pending_regions.
  bool flush();
  Counts counts() const;

 private:
  void run();

  EditStore& store_;
  const uint32_t epoch_;
  const Limits limits_;
  const std::function<bool()> store_up_;
  const std::string world_;
  mutable std::mutex mutex_;
  SeenLand known_, pending_;
  std::unordered_map<uint64_t, TokenBucket> new_regions_;  // by client
  Counts counts_;
  bool failing_ = false;    // the last flush failed (one log line per change)
  bool stale_ = false;      // the store's world moved on (logged once)
  std::mutex flush_mutex_;  // one flush at a time: the writer's and a caller's
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread writer_;
};

}  // namespace chunkforge::server
