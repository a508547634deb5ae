// OutputBudget: charges per connection and in all, the waiters of streams that found no room,
// and the watcher that cancels answers nobody reads (output_budget.h).
#include "budget/output_budget.h"

#include <algorithm>
#include <utility>

namespace chunkforge::server {

OutputLimits OutputLimits::for_memory(uint64_t memory_bytes) {
  OutputLimits limits;
  limits.total_bytes =
      static_cast<size_t>(std::clamp<uint64_t>(memory_bytes / 16, uint64_t{64} << 20, uint64_t{1} << 30));
  return limits;
}

OutputBudget::Charge& OutputBudget::Charge::operator=(Charge&& other) noexcept {
  if (this != &other) {
    release();
    budget_ = std::exchange(other.budget_, nullptr);
    id_ = std::exchange(other.id_, 0);
  }
  return *this;
}

void OutputBudget::Charge::release() {
  if (OutputBudget* budget = std::exchange(budget_, nullptr)) budget->release(id_);
}

OutputBudget::OutputBudget(OutputLimits limits)
    : limits_(limits), watcher_([this](std::stop_token stop) { watch(std::move(stop)); }) {}

OutputBudget::~OutputBudget() {
  watcher_.request_stop();
  tick_.notify_all();
}

bool OutputBudget::has_room_locked(const std::string& connection) const {
  if (total_ >= limits_.total_bytes) return false;
  const auto found = connections_.find(connection);
  return found == connections_.end() || found->second.bytes < limits_.connection_bytes;
}

bool OutputBudget::has_room(const std::string& connection) const {
  std::lock_guard lock(mutex_);
  return has_room_locked(connection);
}

std::optional<OutputBudget::Charge> OutputBudget::charge(const std::string& connection, size_t bytes,
                                                         std::function<void()> cancel) {
  std::lock_guard lock(mutex_);
  if (!has_room_locked(connection)) return std::nullopt;
  const uint64_t id = next_id_++;
  held_.emplace(id, Held{connection, bytes, std::chrono::steady_clock::now(), std::move(cancel)});
  connections_[connection].bytes += bytes;
  total_ += bytes;
  return Charge(this, id);
}

void OutputBudget::release(uint64_t id) {
  std::lock_guard lock(mutex_);
  const auto found = held_.find(id);
  if (found == held_.end()) return;
  const bool total_was_full = total_ >= limits_.total_bytes;
  const std::string connection = std::move(found->second.connection);
  total_ -= found->second.bytes;
  Connection& c = connections_[connection];
  c.bytes -= found->second.bytes;
  held_.erase(found);
  if (waiting_ > 0) wake_locked(connection, total_was_full);
  if (c.bytes == 0 && c.waiters.empty()) connections_.erase(connection);
}

void OutputBudget::wake_locked(const std::string& released_from, bool total_was_full) {
  const size_t before = wake_.size();
  const auto take = [&](Connection& c) {
    waiting_ -= c.waiters.size();
    for (auto& w : c.waiters) wake_.push_back(std::move(w));
    c.waiters.clear();
  };
  if (total_was_full && total_ < limits_.total_bytes) {  // room again for every connection under its share
    for (auto it = connections_.begin(); it != connections_.end();) {
      if (!it->second.waiters.empty() && it->second.bytes < limits_.connection_bytes) take(it->second);
      it = it->second.bytes == 0 && it->first != released_from ? connections_.erase(it) : std::next(it);
    }
  } else if (Connection& c = connections_[released_from]; !c.waiters.empty() && has_room_locked(released_from)) {
    take(c);
  }
  if (wake_.size() > before) tick_.notify_one();
}

void OutputBudget::when_room(const std::string& connection, std::function<void()> wake) {
  std::lock_guard lock(mutex_);
  ++waits_;
  if (has_room_locked(connection)) {
    wake_.push_back(std::move(wake));
    tick_.notify_one();
    return;
  }
  connections_[connection].waiters.push_back(std::move(wake));
  ++waiting_;
}

grpc::Status OutputBudget::refuse(const std::string& connection) {
  std::lock_guard lock(mutex_);
  ++refused_;
  const auto found = connections_.find(connection);
  const size_t held = found == connections_.end() ? 0 : found->second.bytes;
  std::string message;
  if (held >= limits_.connection_bytes) {
    message = "this connection holds " + std::to_string(held) + " bytes of answers its client has not read (at most " +
              std::to_string(limits_.connection_bytes) + "): read them, then retry";
  } else {
    message = "the server holds " + std::to_string(total_) + " bytes of answers not yet read by its clients (at most " +
              std::to_string(limits_.total_bytes) + "); retry later";
  }
  return {grpc::StatusCode::RESOURCE_EXHAUSTED, message};
}

OutputBudget::Stats OutputBudget::stats() const {
  std::lock_guard lock(mutex_);
  return {total_, held_.size(), connections_.size(), refused_, waits_, stalled_};
}

void OutputBudget::cancel_stalled() {
  std::vector<std::function<void()>> cancel;
  {
    std::lock_guard lock(mutex_);
    cancel = take_stalled_locked();
  }
  for (auto& c : cancel) c();
}

std::vector<std::function<void()>> OutputBudget::take_stalled_locked() {
  std::vector<std::function<void()>> cancel;
  const auto oldest_kept = std::chrono::steady_clock::now() - limits_.stall;
  for (auto& [id, held] : held_) {
    if (held.since > oldest_kept) break;
    if (held.cancelled || !held.cancel) continue;
    held.cancelled = true;
    ++stalled_;
    cancel.push_back(held.cancel);
  }
  return cancel;
}

// Wakes waiters as they come and looks for stalled answers every quarter of the stall timeout.
void OutputBudget::watch(std::stop_token stop) {
  const auto period = std::clamp<std::chrono::milliseconds>(limits_.stall / 4, std::chrono::milliseconds(10),
                                                            std::chrono::milliseconds(1000));
  auto next_look = std::chrono::steady_clock::now() + period;
  std::unique_lock lock(mutex_);
  while (!stop.stop_requested()) {
    tick_.wait_until(lock, stop, next_look, [this] { return !wake_.empty(); });
    std::vector<std::function<void()>> run = std::move(wake_);
    wake_.clear();
    if (std::chrono::steady_clock::now() >= next_look) {
      for (auto& c : take_stalled_locked()) run.push_back(std::move(c));
      next_look = std::chrono::steady_clock::now() + period;
    }
    lock.unlock();
    for (auto& r : run) r();
    lock.lock();
  }
}

}  // namespace chunkforge::server
