// StreamPool: borrowing and giving back ChunkStreams under one mutex; a borrower that finds
// every stream busy waits, watching its abandon flag.
#include "stream_pool.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <utility>

namespace chunkforge::client {
namespace {

// Chebyshev distance in chunks, saturating: coordinates reach +-2^40, whose squares overflow.
uint64_t distance(chunkforge::ChunkCoord a, chunkforge::ChunkCoord b) {
  const auto axis = [](int64_t p, int64_t q) {
    return p > q ? static_cast<uint64_t>(p) - static_cast<uint64_t>(q)
                 : static_cast<uint64_t>(q) - static_cast<uint64_t>(p);
  };
  return std::max(axis(a.x, b.x), axis(a.z, b.z));
}

// How often a waiter with an abandon flag looks at it: the flag has no way to wake us.
constexpr std::chrono::milliseconds kAbandonPoll{5};

}  // namespace

StreamPool::StreamPool(const World& world, size_t max_streams, size_t memo_cells)
    : world_(world), max_streams_(max_streams), memo_cells_(memo_cells) {}

StreamPool::Lease::Lease(Lease&& other) noexcept
    : pool_(std::exchange(other.pool_, nullptr)), idle_(std::move(other.idle_)) {}

StreamPool::Lease::~Lease() {
  if (pool_ != nullptr && idle_) pool_->give_back(std::move(idle_));
}

ChunkStream& StreamPool::Lease::stream() { return *idle_->stream; }

void StreamPool::Lease::discard() {
  if (pool_ == nullptr || !idle_) return;
  idle_.reset();
  pool_->forget_one();
}

std::optional<StreamPool::Lease> StreamPool::acquire(chunkforge::ChunkCoord near, const std::atomic<bool>* abandon) {
  std::unique_lock lock(mutex_);
  for (;;) {
    if (abandon != nullptr && abandon->load()) return std::nullopt;
    if (!idle_.empty()) {
      std::unique_ptr<Lease::Idle> idle = take_nearest(near);
      idle->last = near;
      return Lease(this, std::move(idle));
    }
    if (streams_ < max_streams_) {
      ++streams_;
      lock.unlock();  // a new stream allocates; others need not wait for that
      try {
        return Lease(
            this, std::make_unique<Lease::Idle>(Lease::Idle{std::make_unique<ChunkStream>(world_, memo_cells_), near}));
      } catch (...) {
        forget_one();
        throw;
      }
    }
    if (abandon != nullptr) {
      returned_.wait_for(lock, kAbandonPoll);
    } else {
      returned_.wait(lock);
    }
  }
}

std::unique_ptr<StreamPool::Lease::Idle> StreamPool::take_nearest(chunkforge::ChunkCoord near) {
  const auto nearest = std::min_element(idle_.begin(), idle_.end(), [&](const auto& a, const auto& b) {
    return distance(a->last, near) < distance(b->last, near);
  });
  std::unique_ptr<Lease::Idle> idle = std::move(*nearest);
  idle_.erase(nearest);
  return idle;
}

void StreamPool::give_back(std::unique_ptr<Lease::Idle> idle) {
  {
    std::lock_guard lock(mutex_);
    idle_.push_back(std::move(idle));
  }
  returned_.notify_one();
}

void StreamPool::forget_one() {
  {
    std::lock_guard lock(mutex_);
    --streams_;
  }
  returned_.notify_one();
}

size_t StreamPool::streams() const {
  std::lock_guard lock(mutex_);
  return streams_;
}

}  // namespace chunkforge::client
