#include "session_reactor.h"

#include <spdlog/spdlog.h>

#include <atomic>
#include <cmath>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <tuple>

#include "byte_buffer.h"
#include "world_service.h"

namespace chunkforge::server {
namespace {

constexpr size_t kInFlight = 8;  // generations one session may hold at once

using Key = std::pair<int64_t, int64_t>;  // (x, z) of a chunk

std::string varint(uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
  return out;
}

// SessionEvent{load: chunk} around the chunk's canonical bytes (field 1, length-delimited).
std::string load_event(const std::string& chunk) { return "\x0a" + varint(chunk.size()) + chunk; }

std::string unload_event(Key k) {
  v1::SessionEvent e;
  e.mutable_unload()->set_x(k.first);
  e.mutable_unload()->set_z(k.second);
  return e.SerializeAsString();
}

class SessionReactor final : public grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer> {
 public:
  SessionReactor(WorldService& service, grpc::CallbackServerContext* context)
      : service_(service), state_(std::make_shared<State>()) {
    state_->reactor = this;
    service_.metrics().session_started();
    if (const grpc::Status auth = service.authenticate(*context); !auth.ok()) {
      finish(auth);
      return;
    }
    if (!service.enter_session()) {
      finish(grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                          "too many sessions: at most " + std::to_string(service.limits().max_sessions) +
                              " at once; retry later"));
      return;
    }
    holds_slot_ = true;
    spdlog::info("session started ({})", context->peer());
    StartRead(&incoming_);
  }

  void OnReadDone(bool ok) override {
    std::lock_guard lock(state_->mutex);
    if (!ok) {  // the client closed its side: end once the view is delivered
      reads_done_ = true;
      pump();
      return;
    }
    v1::SessionUpdate update;
    if (!update.ParseFromString(bytes_of(incoming_))) return finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "update: not a SessionUpdate"));
    if (update.view_radius() > service_.limits().max_radius) {
      return finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                                 "view_radius: must be in [0, " + std::to_string(service_.limits().max_radius) +
                                     "] (got " + std::to_string(update.view_radius()) + ")"));
    }
    const int64_t side = 2 * int64_t{service_.limits().max_radius} + 1;
    if (update.held_size() > side * side) {
      return finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                                 "held: at most " + std::to_string(side * side) + " chunks (got " +
                                     std::to_string(update.held_size()) + ")"));
    }
    constexpr double kWorld = 1099511627776.0;  // 2^40 units: the supported world
    if (!(std::abs(update.x()) <= kWorld) || !(std::abs(update.z()) <= kWorld)) {
      return finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                                 "x, z: must be within the supported world, |value| <= 2^40 units"));
    }
    if (!have_options_) {
      options_ = update.options();
      have_options_ = true;
    }
    move(update);
    if (finished_) return;
    StartRead(&incoming_);
  }

  void OnWriteDone(bool ok) override {
    std::lock_guard lock(state_->mutex);
    writing_ = false;
    if (!ok || cancelled_) return finish(grpc::Status(grpc::StatusCode::CANCELLED, "session cancelled"));
    pump();
  }

  void OnCancel() override {
    std::lock_guard lock(state_->mutex);
    cancelled_ = true;  // a write in flight ends first; OnWriteDone then finishes
    if (!writing_) finish(grpc::Status(grpc::StatusCode::CANCELLED, "session cancelled"));
  }

  void OnDone() override {
    {
      std::lock_guard lock(state_->mutex);
      state_->reactor = nullptr;
      state_->over = true;
    }
    spdlog::info("session ended: {} loads, {} unloads", loads_sent_, unloads_sent_);
    delete this;
  }

 private:
  struct State {
    std::mutex mutex;
    SessionReactor* reactor = nullptr;
    std::atomic<bool> over{false};
  };

  // The new view: unload what left it (or forget it if it was still queued), queue what
  // entered it. Called with the mutex held.
  void move(const v1::SessionUpdate& update) {
    const int64_t size = service_.world().chunk_size();
    centre_ = {static_cast<int64_t>(std::floor(update.x() / static_cast<double>(size))),
               static_cast<int64_t>(std::floor(update.z() / static_cast<double>(size)))};
    const int64_t r = update.view_radius();
    std::set<Key> view;
    for (int64_t z = centre_.second - r; z <= centre_.second + r; ++z) {
      for (int64_t x = centre_.first - r; x <= centre_.first + r; ++x) view.insert({x, z});
    }
    // What the client already holds counts as loaded: no load goes out for it.
    for (const v1::ChunkCoord& c : update.held()) {
      if (view.count({c.x(), c.z()})) loaded_.insert({c.x(), c.z()});
    }
    for (auto it = loaded_.begin(); it != loaded_.end();) {
      if (view.count(*it)) {
        ++it;
        continue;
      }
      outgoing_.push_back(unload_event(*it));
      it = loaded_.erase(it);
    }
    std::erase_if(wanted_, [&](const Key& k) { return !view.count(k) || loaded_.count(k); });
    // Generations under way for chunks that left the view are no longer wanted (they stay in
    // flight until they return, so the in-flight bound holds); back in view, wanted again.
    for (auto& [k, unwanted] : in_flight_) unwanted->store(!view.count(k) || loaded_.count(k));
    std::erase_if(ready_, [&](const auto& entry) { return !view.count(entry.first) || loaded_.count(entry.first); });
    for (const Key& k : view) {
      if (!loaded_.count(k) && !in_flight_.count(k) && !ready_.count(k)) wanted_.insert(k);
    }
    view_ = std::move(view);
    pump();
  }

  int64_t distance2(const Key& k) const {
    const int64_t dx = k.first - centre_.first, dz = k.second - centre_.second;
    return dx * dx + dz * dz;
  }

  // Requests generations (nearest first, up to kInFlight) and writes the next event: unloads
  // first, then the nearest ready load. Called with the mutex held.
  void pump() {
    while (in_flight_.size() < kInFlight && !wanted_.empty() && !finished_) {
      auto nearest = std::min_element(wanted_.begin(), wanted_.end(), [&](const Key& a, const Key& b) {
        return std::tuple(distance2(a), a.second, a.first) < std::tuple(distance2(b), b.second, b.first);
      });
      const Key k = *nearest;
      wanted_.erase(nearest);
      request(k);
    }
    if (writing_ || finished_) return;
    if (!outgoing_.empty()) {
      write(std::move(outgoing_.front()));
      outgoing_.pop_front();
      ++unloads_sent_;
      return;
    }
    if (!ready_.empty()) {
      auto nearest = std::min_element(ready_.begin(), ready_.end(), [&](const auto& a, const auto& b) {
        return std::tuple(distance2(a.first), a.first.second, a.first.first) <
               std::tuple(distance2(b.first), b.first.second, b.first.first);
      });
      loaded_.insert(nearest->first);
      write(load_event(*nearest->second));
      ready_.erase(nearest);
      ++loads_sent_;
      service_.metrics().chunk_sent();
      return;
    }
    if (reads_done_ && in_flight_.empty() && wanted_.empty()) finish(grpc::Status::OK);
  }

  void request(const Key& k) {
    v1::ChunkCoord coord;
    coord.set_x(k.first);
    coord.set_z(k.second);
    ChunkJob job;
    const grpc::Status status = service_.make_job(coord, options_, "position", job);
    if (!status.ok()) return finish(status);
    auto unwanted = std::make_shared<std::atomic<bool>>(false);
    in_flight_[k] = unwanted;
    std::weak_ptr<State> state = state_;
    Bytes hit = service_.fetch(
        job, static_cast<double>(distance2(k)),
        [state, unwanted] {
          const std::shared_ptr<State> s = state.lock();
          return !s || s->over.load() || unwanted->load();
        },
        [state, k](Bytes bytes) {  // later, on a worker thread
          const std::shared_ptr<State> s = state.lock();
          if (!s) return;
          std::lock_guard lock(s->mutex);
          if (s->reactor != nullptr) s->reactor->delivered(k, std::move(bytes));
        });
    if (hit) delivered_locked(k, std::move(hit));
  }

  void delivered(const Key& k, Bytes bytes) { delivered_locked(k, std::move(bytes)); pump(); }

  // Keeps the chunk if it is still in view; a dropped generation of a chunk that is back in
  // view is asked for again. Called with the mutex held.
  void delivered_locked(const Key& k, Bytes bytes) {
    in_flight_.erase(k);
    if (finished_ || !view_.count(k) || loaded_.count(k)) return;
    if (bytes) {
      ready_[k] = std::move(bytes);
    } else {
      wanted_.insert(k);
    }
  }

  void write(std::string event) {
    writing_ = true;
    outgoing_buffer_ = buffer_of(event);
    StartWrite(&outgoing_buffer_);
  }

  void finish(const grpc::Status& status) {
    if (finished_) return;
    finished_ = true;
    state_->over = true;
    service_.metrics().session_ended();
    if (holds_slot_) service_.leave_session();
    holds_slot_ = false;
    if (!status.ok() && status.error_code() != grpc::StatusCode::CANCELLED) {
      service_.metrics().error(Metrics::kSession);
      spdlog::info("session error: {}", status.error_message());
    }
    Finish(status);
  }

  WorldService& service_;
  std::shared_ptr<State> state_;
  grpc::ByteBuffer incoming_, outgoing_buffer_;
  v1::ChunkOptions options_;
  bool have_options_ = false;
  Key centre_{0, 0};
  std::set<Key> view_, loaded_, wanted_;
  std::map<Key, std::shared_ptr<std::atomic<bool>>> in_flight_;  // the flag: no longer wanted
  std::map<Key, Bytes> ready_;
  std::deque<std::string> outgoing_;  // unload events
  bool writing_ = false, reads_done_ = false, finished_ = false, holds_slot_ = false, cancelled_ = false;
  uint64_t loads_sent_ = 0, unloads_sent_ = 0;
};

}  // namespace

grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>* start_session(WorldService& service,
                                                                          grpc::CallbackServerContext* context) {
  return new SessionReactor(service, context);
}

}  // namespace chunkforge::server
