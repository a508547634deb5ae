// File: client_sdk/src/local_loads.h
//
// The chunks a ViewSession generates itself (docs/client-generation.md), on threads of its own:
// a pristine chunk is the generator's; an edited one is the generator's base with the server's
// change applied (chunkforge::apply_change, as the server builds it) and checked against the
// server's hash. Pristine LOD tiles too (docs/lod.md), after every chunk asked for. The session
// asks, and takes what is done on its own thread.
//
// Bounded: requests are what the server sent for the view (one per chunk or tile: a newer
// request replaces the queued one, and forget_if / forget_tile drop what left the view); results
// wait only until the session takes them. The destructor abandons the generation under way and
// joins.
//
// Thread safety: every method from any thread; `on_done` runs on a worker thread, without this
// object's lock held.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "chunkforge/client/base_generator.h"
#include "chunkforge/client/chunk.h"
#include "chunkforge/client/lod_tile.h"
#include "chunkforge/v1/edit.pb.h"
#include "local_chunk.h"

namespace chunkforge::client {

class LocalLoads {
 public:
  struct Done : LocalChunk {
    ChunkCoord coord;
  };

  LocalLoads(std::shared_ptr<BaseGenerator> generator, ChunkOptions options, size_t threads,
             std::function<void()> on_done);
  ~LocalLoads();
  LocalLoads(const LocalLoads&) = delete;
  LocalLoads& operator=(const LocalLoads&) = delete;

  // Generate `c`: pristine when `edited` is empty, else its base with `edited` (a change from
  // the base, reset set) applied. Replaces an earlier request of `c` not yet done.
  void request(ChunkCoord c, std::optional<v1::ChunkChange> edited);
  // Drops the requests (queued, under way or done) of the chunks `gone` says left the view.
  void forget_if(const std::function<bool(ChunkCoord)>& gone);
  // Whether `c` was requested and not yet taken.
  bool pending(ChunkCoord c) const;
  // What is done, oldest first.
  std::vector<Done> take();

  struct TileDone {
    LodKey key;
    std::shared_ptr<const v1::LodTile> tile;  // null: abandoned, or the generator could not make it
  };
  // Make the tile at `key` (BaseGenerator::generate_tile). Replaces an earlier request not yet done.
  void request_tile(const LodKey& key);
  // Drops the request of `key` (queued, under way or done).
  void forget_tile(const LodKey& key);
  // Drops every tile request.
  void forget_tiles();
  // Tiles requested and not yet taken.
  size_t tiles_pending() const;
  std::vector<TileDone> take_tiles();

 private:
  struct Request {
    ChunkCoord coord;
    std::optional<v1::ChunkChange> edited;
    uint64_t ticket = 0;
  };
  void work();
  Done make(const Request& request);
  TileDone make_tile(const LodKey& key);

  const std::shared_ptr<BaseGenerator> generator_;
  const ChunkOptions options_;
  const std::function<void()> on_done_;
  std::atomic<bool> stopping_{false};

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Request> queue_;
  std::map<ChunkCoord, uint64_t> latest_;  // every chunk requested and not yet taken: its newest ticket
  std::vector<std::pair<uint64_t, Done>> done_;
  std::deque<std::pair<LodKey, uint64_t>> tile_queue_;  // asked for after every chunk
  std::map<LodKey, uint64_t> latest_tiles_;             // as latest_, for tiles
  std::vector<std::pair<uint64_t, TileDone>> tiles_done_;
  uint64_t next_ticket_ = 1;
  std::vector<std::thread> threads_;
};

}  // namespace chunkforge::client
