// File: server/map/tile_pool.h
//
// The threads tiles are rendered on, off the HTTP thread: a fixed number of workers (the bound
// on concurrent renders) and a bounded queue. Jobs carry the world place they draw; once the
// viewer's focus is known (set_focus, from the page's /api/view), the waiting job nearest to it
// runs next, so after a pan or a zoom the tiles in the middle of the screen come first. Without
// a focus, or between equally near jobs, first in, first out (Leaflet asks centre first too).
// Jobs without a place (structure searches) count as at the focus. A job whose `cancelled`
// flag rose (its client left) is dropped unrun at the next submit or pick, so abandoned jobs
// never take the room of live ones.
//
//   TilePool pool(2, 256);
//   if (!pool.submit([] { render(); }, TilePlace{x, z})) answer_503();
//   pool.set_focus(x, z);  // the viewer moved
//
// Thread safety: every method from any thread. The destructor finishes the running jobs and
// destroys the queued ones without running them.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace chunkforge::map {

// A world position (x east, z south, world units): a tile's centre, or the viewer's.
struct TilePlace {
  double x = 0, z = 0;
};

class TilePool {
 public:
  TilePool(int threads, size_t max_queued);
  ~TilePool();
  // False (and `job` destroyed) when the queue is full of live jobs. `cancelled` (may be null):
  // once it reads true, the job is dropped (destroyed) instead of run.
  bool submit(std::function<void()> job, std::optional<TilePlace> place = std::nullopt,
              std::shared_ptr<const std::atomic<bool>> cancelled = nullptr);
  // The place the viewer looks at: orders the waiting jobs from now on.
  void set_focus(TilePlace focus);
  size_t queued() const;

 private:
  struct Waiting {
    std::function<void()> job;
    std::optional<TilePlace> place;
    uint64_t sequence;
    std::shared_ptr<const std::atomic<bool>> cancelled;
    bool abandoned() const { return cancelled && cancelled->load(); }
  };
  void work();
  // Moves the abandoned jobs out of the queue (to be destroyed outside the lock); lock held.
  void drop_abandoned(std::vector<Waiting>& dropped);
  // The waiting job to run next; the lock is held.
  size_t next_index() const;

  const size_t max_queued_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<Waiting> jobs_;
  std::optional<TilePlace> focus_;
  uint64_t next_sequence_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;  // last: started once the rest exists
};

}  // namespace chunkforge::map
