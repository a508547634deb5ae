// File: server/session/look_ahead.h
//
// A Session's look-ahead: the chunks a walking player's next step will bring into view, to be
// generated into the cache before the player takes that step (docs/server.md, "Look-ahead").
// The next step is predicted as a repeat of the last one; with no last step to repeat (the
// first view) it is any step of one chunk, which lands in the ring just outside the view. A
// jump (a step longer than the radius) predicts nothing: a player sending far positions would
// otherwise queue a whole ring, 8 (radius + 1) chunks, per position. Each chunk looked ahead
// at gets a flag, raised once the chunk is neither in the view nor ahead of it any more, so
// that a player who turned or stopped leaves behind prefetches that leave the queue unmade.
//
//   LookAhead ahead(chunk_limit);
//   for (const LookAhead::Chunk& c : ahead.move(centre, radius)) prefetch(c.key, c.ring, c.unwanted);
//
// Bounded: it tracks at most the view and the next one, (2 radius + 1)^2 + (2 radius + 3)^2
// chunks.
//
// Thread safety: none; the session calls it under its own mutex. The flags are read anywhere.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "session/session_view.h"

namespace chunkforge::server {

class LookAhead {
 public:
  // `chunk_limit`: the largest |chunk coordinate| of the supported world.
  explicit LookAhead(int64_t chunk_limit) : chunk_limit_(chunk_limit) {}

  struct Chunk {
    ChunkCoord key;
    int64_t ring = 0;  // max(|dx|, |dz|) from the predicted centre
    std::shared_ptr<std::atomic<bool>> unwanted;
  };
  // The view is now `radius` chunks around `centre`. Returns the chunks to prefetch now, not
  // looked ahead at already, nearest the predicted centre first: those of the view one more
  // such step away that are not in this view; the ring just outside the view for the first
  // view; none after a step longer than the radius (a jump: every earlier one is then
  // unwanted) or for a step within the same chunk (the prediction stands).
  std::vector<Chunk> move(ChunkCoord centre, int64_t radius);

  size_t tracked() const { return flags_.size(); }

 private:
  int64_t chunk_limit_;
  std::optional<ChunkCoord> centre_;
  std::map<ChunkCoord, std::shared_ptr<std::atomic<bool>>> flags_;  // in view or ahead
};

}  // namespace chunkforge::server
