// A bounded pool of ChunkStreams shared by the threads that generate: each generation borrows
// one, so that a thread's next chunk reuses the memo of the scatter cells its neighbours built,
// and the number of streams (so the memory of their memos) never grows past a bound.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "chunkforge/chunk.h"

namespace chunkforge::client {

class StreamPool {
 public:
  // `world` must outlive the pool.
  StreamPool(const World& world, size_t max_streams, size_t memo_cells);
  StreamPool(const StreamPool&) = delete;
  StreamPool& operator=(const StreamPool&) = delete;

  // One stream, borrowed until the lease ends.
  class Lease {
   public:
    Lease(Lease&& other) noexcept;
    Lease& operator=(Lease&&) = delete;
    ~Lease();  // gives the stream back
    ChunkStream& stream();
    // The stream failed in a way that may have left its memo half built: drop it, not give it back.
    void discard();

   private:
    friend class StreamPool;
    struct Idle;
    Lease(StreamPool* pool, std::unique_ptr<Idle> idle) : pool_(pool), idle_(std::move(idle)) {}
    StreamPool* pool_;
    std::unique_ptr<Idle> idle_;
  };

  // The idle stream that last generated nearest to `near` (its memo is the likeliest to hold
  // what `near` needs), or a new one while fewer than max_streams exist; otherwise waits for
  // one. Nullopt if `abandon` (may be null) reads true while waiting.
  std::optional<Lease> acquire(chunkforge::ChunkCoord near, const std::atomic<bool>* abandon);

  // Streams that exist now, idle or borrowed: never more than max_streams.
  size_t streams() const;

 private:
  void give_back(std::unique_ptr<Lease::Idle> idle);
  void forget_one();
  std::unique_ptr<Lease::Idle> take_nearest(chunkforge::ChunkCoord near);

  const World& world_;
  const size_t max_streams_;
  const size_t memo_cells_;
  mutable std::mutex mutex_;
  std::condition_variable returned_;
  std::vector<std::unique_ptr<Lease::Idle>> idle_;
  size_t streams_ = 0;
};

// A stream with the chunk it generated last.
struct StreamPool::Lease::Idle {
  std::unique_ptr<ChunkStream> stream;
  chunkforge::ChunkCoord last;
};

}  // namespace chunkforge::client
