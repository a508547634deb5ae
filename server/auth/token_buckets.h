// File: server/auth/token_buckets.h
//
// A token bucket per key, refilled at `rate` a second up to `burst`. Two uses (docs/edits.md,
// "Who may edit"): a key token's edits a second (the key is the key; an edit with no token
// left is refused at once with RESOURCE_EXHAUSTED, before anything is generated for it), and
// the key tokens an address may send that fail their check (each costs a signature check:
// once its bucket is empty, that address's unknown tokens are refused unchecked for a while).
//
//   TokenBuckets rates(20, 40);
//   if (!rates.take("alice")) ... refuse
//
// Memory is bounded: past kMaxKeys buckets, those that are full again (idle for burst / rate
// seconds) are dropped, which changes nothing for them. Thread safety: every method may be
// called from any thread.
#pragma once

#include <algorithm>
#include <chrono>
#include <mutex>
#include <string>
#include <unordered_map>

namespace chunkforge::server {

class TokenBuckets {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr size_t kMaxKeys = 65536;

  // rate 0: no limit.
  TokenBuckets(double rate, double burst) : rate_(rate), burst_(std::max(burst, 1.0)) {}

  // Takes one token from the key's bucket; false when it is empty.
  bool take(const std::string& key, Clock::time_point now = Clock::now()) {
    if (rate_ <= 0) return true;
    std::lock_guard lock(mutex_);
    Bucket& b = refilled(key, now);
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }
  // Whether the key's bucket is empty now (take() would refuse), taking nothing.
  bool empty(const std::string& key, Clock::time_point now = Clock::now()) {
    if (rate_ <= 0) return false;
    std::lock_guard lock(mutex_);
    return refilled(key, now).tokens < 1;
  }

  double rate() const { return rate_; }
  size_t keys() const {
    std::lock_guard lock(mutex_);
    return buckets_.size();
  }

 private:
  struct Bucket {
    double tokens;
    Clock::time_point at;
  };
  Bucket& refilled(const std::string& key, Clock::time_point now) {
    if (buckets_.size() >= kMaxKeys) drop_full(now);
    if (buckets_.size() >= kMaxKeys) buckets_.clear();  // that many keys all busy: start over
    Bucket& b = buckets_.try_emplace(key, Bucket{burst_, now}).first->second;
    b.tokens = std::min(burst_, b.tokens + rate_ * std::chrono::duration<double>(now - b.at).count());
    b.at = now;
    return b;
  }
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
