// File: server/edits/store_health.h
//
// Whether the edit store answers, as this server last found it (docs/edits.md, "When the store
// fails"). Every store call reports here; while the store is down, what needs it fails fast
// with UNAVAILABLE instead of calling it again, and only the tail thread tries it again, after
// a backoff that doubles up to a cap. One log line per change of state, not one per failure.
//
// Thread safety: every method may be called from any thread.
#pragma once

#include <grpcpp/support/status.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <string>

namespace chunkforge::server {

class StoreHealth {
 public:
  static constexpr std::chrono::milliseconds kFirstBackoff{100}, kMaxBackoff{2000};

  explicit StoreHealth(std::string store) : store_(std::move(store)) {}

  bool up() const { return up_.load(std::memory_order_acquire); }

  // A call failed for a reason of the store's own (unreachable, no answer, its file gone).
  void failed(const std::string& reason) {
    {
      std::lock_guard lock(mutex_);
      reason_ = reason;
      if (!up()) {
        backoff_ = std::min(kMaxBackoff, backoff_ * 2);
        return;
      }
      up_.store(false, std::memory_order_release);
      backoff_ = kFirstBackoff;
      if (on_change_) on_change_(false);
    }
    spdlog::error("edit store {} is unreachable: {} (edits get UNAVAILABLE until it answers again)", store_, reason);
  }

  void succeeded() {
    if (up()) return;
    {
      std::lock_guard lock(mutex_);
      if (up()) return;
      up_.store(true, std::memory_order_release);
      if (on_change_) on_change_(true);
    }
    spdlog::info("edit store {} answers again", store_);
  }

  // How long to wait before trying a store that is down again.
  std::chrono::milliseconds backoff() const {
    std::lock_guard lock(mutex_);
    return backoff_;
  }

  // What a call that needs the store gets while it is down.
  grpc::Status unavailable() const {
    std::lock_guard lock(mutex_);
    return {grpc::StatusCode::UNAVAILABLE, "the edit store is unreachable (" + reason_ + "); retry later"};
  }

  // Called each time the state changes (true: it answers again), under this object's lock, so
  // that once on_change(nullptr) returns no call is under way.
  void on_change(std::function<void(bool up)> tell) {
    std::lock_guard lock(mutex_);
    on_change_ = std::move(tell);
  }

 private:
  const std::string store_;
  std::atomic<bool> up_{true};
  mutable std::mutex mutex_;
  std::string reason_;
  std::chrono::milliseconds backoff_ = kFirstBackoff;
  std::function<void(bool)> on_change_;
};

// Thrown where a read needs the store while it is down (or it failed just now); the health
// has already logged it, so catchers do not.
class StoreUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace chunkforge::server
