// File: server/map/tile_pool.h
//
// The threads tiles are rendered on, off the HTTP thread: a fixed number of workers (the bound
// on concurrent renders) and a bounded queue, served first in, first out, which keeps the
// order Leaflet asks in (nearest the view's centre first).
//
//   TilePool pool(2, 256);
//   if (!pool.submit([] { render(); })) answer_503();
//
// Thread safety: submit() from any thread. The destructor finishes the running jobs and
// destroys the queued ones without running them.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace chunkforge::map {

class TilePool {
 public:
  TilePool(int threads, size_t max_queued);
  ~TilePool();
  // False (and `job` destroyed) when the queue is full.
  bool submit(std::function<void()> job);
  size_t queued() const;

 private:
  void work();

  const size_t max_queued_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> jobs_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;  // last: started once the rest exists
};

}  // namespace chunkforge::map
