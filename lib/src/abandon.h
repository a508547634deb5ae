// Polling the flag that abandons a generation (chunk.h: GenerationAbandoned). Internal to lib/.
//
// The generation stages keep a pointer to the caller's flag (null: never abandoned) and poll
// it between units of work small enough that a raised flag is noticed within a few
// milliseconds: each resource layer, each scatter decision step, each structure origin cell.
// A relaxed load: the flag carries no data, and noticing it one step later is harmless.
#pragma once

#include <atomic>

#include "chunkforge/chunk.h"

namespace chunkforge {

inline void poll_abandon(const std::atomic<bool>* flag) {
  if (flag != nullptr && flag->load(std::memory_order_relaxed)) throw GenerationAbandoned();
}

}  // namespace chunkforge
