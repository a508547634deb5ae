// Memo memory that outlives a scatter field on its thread, for the next field there. Internal to
// lib/.
//
// A field takes its blocks and candidates from fixed-size pools. Freed memory goes back to the
// system, and fresh memory costs a page fault per page on first touch (measured on this
// project's 2-core VMs: a third of a ChunkStream's time when each memo restart, every thirty-odd
// chunks at constant r = 2, allocated its pools anew). So a dropped field's pools stay with its
// thread: the next field there (the next cold chunk, or a stream's memo starting afresh) reuses
// them.
//
// Bounded by what the thread needed: a thread keeps at most as many pools as the largest memo
// it dropped held, so a worker whose memo is bounded (ChunkStream's max_cells) keeps no more
// than that memo, and a thread that only makes cold chunks keeps one chunk's memo.
//
// The spares are reached through a trivially destructible thread_local pointer, never a
// thread_local object: a field may be destroyed during thread exit after them (a server
// worker's thread_local ChunkStream), and must then find no spares rather than destroyed ones.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <vector>

namespace chunkforge::scatter {

template <typename T>
class SparePools {
 public:
  using Pool = std::unique_ptr<T[]>;

  // A pool of `size` elements, not initialised: a spare if there is one (every pool of T has
  // the same size), else new memory.
  static Pool take(size_t size) {
    Spares* spares = thread_spares();
    if (spares == nullptr || spares->pools.empty()) return std::make_unique_for_overwrite<T[]>(size);
    Pool pool = std::move(spares->pools.back());
    spares->pools.pop_back();
    return pool;
  }

  // Keeps a dropped field's pools for the thread's next field, up to the bound above; frees
  // the rest (and all of them once the thread is ending).
  static void keep(std::vector<Pool>& pools) {
    Spares* spares = thread_spares();
    if (spares == nullptr) return;
    spares->most = std::max(spares->most, pools.size());
    for (Pool& pool : pools) {
      if (spares->pools.size() < spares->most) spares->pools.push_back(std::move(pool));
    }
  }

 private:
  struct Spares {
    std::vector<Pool> pools;
    size_t most = 0;  // the most pools one dropped field held
  };
  // The thread's spares; null once they were destroyed at thread exit.
  static Spares* thread_spares() {
    if (spares_ == nullptr && !gone_) {
      thread_local Owner owner;  // destroyed at thread exit before anything constructed earlier
      spares_ = new Spares();
    }
    return spares_;
  }
  struct Owner {
    ~Owner() {
      delete spares_;
      spares_ = nullptr;
      gone_ = true;
    }
  };
  static inline thread_local Spares* spares_ = nullptr;
  static inline thread_local bool gone_ = false;
};

}  // namespace chunkforge::scatter
