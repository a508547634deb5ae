// File: server/session/player_positions.h
//
// The live sessions' latest positions, for the live map's players overlay (--map-players): each
// Session takes a number when it opens, reports every position update and leaves when it ends.
// Only a number and a position are kept, never who the player is (no peer address, no token).
//
//   const uint64_t me = players.join();
//   players.move(me, update.x(), update.z());
//   players.leave(me);
//   for (const PlayerPosition& p : players.snapshot()) ...
//
// Thread safety: every method from any thread (one mutex; an update costs one lock).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

namespace chunkforge::server {

struct PlayerPosition {
  uint64_t session = 0;  // numbered from 1 in the order sessions opened
  double x = 0, z = 0;   // world units, as the session's latest update gave them
};

class PlayerPositions {
 public:
  uint64_t join();
  // The session's position from now on; it appears in snapshots from its first move.
  void move(uint64_t session, double x, double z);
  void leave(uint64_t session);
  // Every session that has a position, ordered by number.
  std::vector<PlayerPosition> snapshot() const;

 private:
  mutable std::mutex mutex_;
  std::map<uint64_t, PlayerPosition> positions_;
  uint64_t next_ = 1;
};

}  // namespace chunkforge::server
