// File: server/edits/player_rates.h
//
// Edits per second per player (docs/edits.md, "Limits"): a token bucket for each player who
// edits with a player's token, refilled at `rate` edits a second up to `burst`. An edit with no
// token left is refused at once with RESOURCE_EXHAUSTED, before anything is generated for it.
// The service (the write token) is not limited here: it edits for many players and limits them
// itself; its edits under way are bounded by EditAdmission like everyone's.
//
//   PlayerRates rates(20, 40);
//   if (!rates.take("alice")) ... refuse
//
// Memory is bounded: past kMaxPlayers buckets, those that are full again (their players idle
// for burst / rate seconds) are dropped, which changes nothing for them. Thread safety: every
// method may be called from any thread.
#pragma once

#include <algorithm>
#include <chrono>
#include <mutex>
#include <string>
#include <unordered_map>

namespace chunkforge::server {

class PlayerRates {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr size_t kMaxPlayers = 65536;

  // rate 0: no limit.
  PlayerRates(double rate, double burst) : rate_(rate), burst_(std::max(burst, 1.0)) {}

  // Takes one edit from the player's bucket; false when it is empty.
  bool take(const std::string& player, Clock::time_point now = Clock::now()) {
    if (rate_ <= 0) return true;
    std::lock_guard lock(mutex_);
    if (buckets_.size() >= kMaxPlayers) drop_full(now);
    if (buckets_.size() >= kMaxPlayers) buckets_.clear();  // that many players all busy: start over
    auto [it, added] = buckets_.try_emplace(player, Bucket{burst_, now});
    Bucket& b = it->second;
    b.tokens = std::min(burst_, b.tokens + rate_ * std::chrono::duration<double>(now - b.at).count());
    b.at = now;
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }

  double rate() const { return rate_; }
  size_t players() const {
    std::lock_guard lock(mutex_);
    return buckets_.size();
  }

 private:
  struct Bucket {
    double tokens;
    Clock::time_point at;
  };
  void drop_full(Clock::time_point now) {
    std::erase_if(buckets_, [&](const auto& entry) {
      const Bucket& b = entry.second;
      return b.tokens + rate_ * std::chrono::duration<double>(now - b.at).count() >= burst_;
    });
  }

  const double rate_, burst_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Bucket> buckets_;
};

}  // namespace chunkforge::server
