// PlayerPositions: the sessions' latest positions under one mutex.
#include "session/player_positions.h"

namespace chunkforge::server {

uint64_t PlayerPositions::join() {
  std::lock_guard lock(mutex_);
  return next_++;
}

void PlayerPositions::move(uint64_t session, double x, double z) {
  std::lock_guard lock(mutex_);
  positions_[session] = PlayerPosition{session, x, z};
}

void PlayerPositions::leave(uint64_t session) {
  std::lock_guard lock(mutex_);
  positions_.erase(session);
}

std::vector<PlayerPosition> PlayerPositions::snapshot() const {
  std::lock_guard lock(mutex_);
  std::vector<PlayerPosition> out;
  out.reserve(positions_.size());
  for (const auto& [session, position] : positions_) out.push_back(position);
  return out;
}

}  // namespace chunkforge::server
