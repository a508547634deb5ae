// The load generator's session players and the threads that drive them (session_players.h).
#include "session_players.h"

#include <climits>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <queue>
#include <thread>

namespace chunkforge::loadgen {
namespace {

using v1::WorldService;

// One player's Session as a callback reactor: events are taken on gRPC's own threads as they
// arrive. (With a blocking reader thread per player, 200 players cost the load generator a
// thread hand-off per event: CPU taken from the server it measures on a shared machine.)
class SessionPlayer final : public grpc::ClientBidiReactor<v1::SessionUpdate, v1::SessionEvent> {
 public:
  using Key = std::pair<int64_t, int64_t>;

  // `local`: the player declares it; `pool`: and generates on it (local-generate).
  SessionPlayer(WorldService::Stub& stub, Results& r, const v1::LocalGeneration* local = nullptr,
                GenerationPool* pool = nullptr)
      : r_(r), local_(local), pool_(pool) {
    stub.async()->Session(&context_, this);
    // Writes start from the player's thread, outside any reaction: without a hold the call could
    // be done (OnDone) between move()'s check and its StartWrite. end() lets it go.
    AddHold();
    StartRead(&event_);
    StartCall();
  }

  // The player is at `p`: chunks new to its view enter now, and the update is written after
  // any still being written. False once the server has ended the stream.
  bool move(Key p, const Options& o) {
    std::unique_lock lock(mutex_);
    if (read_all_) return false;
    std::map<Key, Clock::time_point> view;
    for (int64_t z = p.second - o.radius; z <= p.second + o.radius; ++z) {
      for (int64_t x = p.first - o.radius; x <= p.first + o.radius; ++x) {
        auto it = entered_.find({x, z});
        view[{x, z}] = it != entered_.end() ? it->second : Clock::now();
      }
    }
    entered_ = std::move(view);
    v1::SessionUpdate update;
    update.set_x(static_cast<double>(p.first) * 64 + 32);
    update.set_z(static_cast<double>(p.second) * 64 + 32);
    update.set_view_radius(static_cast<uint32_t>(o.radius));
    update.set_accept_load_batches(o.load_batches);
    update.set_accept_unload_batches(o.unload_batches);
    if (local_ != nullptr && !asked_) *update.mutable_local_generation() = *local_;
    asked_ = true;
    unwritten_.push_back(std::move(update));
    if (take_next_write()) {
      lock.unlock();
      StartWrite(&outgoing_);
    }
    return true;
  }

  // The walk is over: ends the call without waiting for the rest of the view. Then wait() returns
  // its status once gRPC is done with it (a driver cancels all its players before it waits).
  void cancel() {
    context_.TryCancel();
    RemoveHold();
  }
  grpc::Status wait() {
    std::unique_lock lock(mutex_);
    finished_.wait(lock, [&] { return done_; });
    return status_;
  }

  void OnReadDone(bool ok) override {
    {
      std::lock_guard lock(mutex_);
      if (!ok) {  // the server ended the stream; OnDone follows end()
        read_all_ = true;
        return;
      }
      r_.event_bytes += event_.ByteSizeLong();
      ++r_.events;
      r_.unloads += (event_.has_unload() ? 1 : 0) + event_.unloads().offsets_size() / 2;
      if (event_.has_load()) arrived(event_.load().coord());
      for (const v1::Chunk& chunk : event_.loads().chunks()) arrived(chunk.coord());
      const auto& offsets = event_.pristine().offsets();
      for (int k = 0; k + 1 < offsets.size(); k += 2) {
        entered(event_.pristine().origin().x() + offsets[k], event_.pristine().origin().z() + offsets[k + 1], {});
      }
      if (event_.has_edited()) entered(event_.edited().chunk().x(), event_.edited().chunk().z(), event_.edited());
    }
    StartRead(&event_);  // outside the lock: gRPC may run OnReadDone inline
  }

  void OnWriteDone(bool ok) override {
    std::unique_lock lock(mutex_);
    writing_ = false;
    if (ok && take_next_write()) {
      lock.unlock();
      StartWrite(&outgoing_);
    }
  }

  void OnDone(const grpc::Status& status) override {
    std::lock_guard lock(mutex_);
    status_ = status;
    done_ = true;
    finished_.notify_all();
  }

 private:
  // Moves the next update into `outgoing_` if none is being written; the caller then starts
  // its write outside the lock (gRPC may run a reaction inline, and it takes the lock).
  bool take_next_write() {
    if (writing_ || unwritten_.empty()) return false;
    writing_ = true;
    outgoing_ = std::move(unwritten_.front());
    unwritten_.pop_front();
    return true;
  }

  void arrived(const v1::ChunkCoord& c) {
    ++r_.chunks;
    auto it = entered_.find({c.x(), c.z()});
    if (it != entered_.end()) r_.latency(ms_since(it->second));
  }

  // A chunk the player generates: arrived now, or once the pool made it.
  void entered(int64_t x, int64_t z, std::optional<v1::ChunkChange> edited) {
    v1::ChunkCoord c;
    c.set_x(x);
    c.set_z(z);
    if (pool_ == nullptr) return arrived(c);
    const auto it = entered_.find({x, z});
    const std::optional<Clock::time_point> since =
        it == entered_.end() ? std::nullopt : std::optional<Clock::time_point>(it->second);
    pool_->submit(x, z, std::move(edited), [&r = r_, since] {
      ++r.chunks;
      if (since) r.latency(ms_since(*since));
    });
  }

  Results& r_;
  const v1::LocalGeneration* local_;
  GenerationPool* pool_;
  bool asked_ = false;
  grpc::ClientContext context_;
  v1::SessionEvent event_;
  v1::SessionUpdate outgoing_;
  std::mutex mutex_;
  std::condition_variable finished_;
  std::map<Key, Clock::time_point> entered_;  // in view since
  std::deque<v1::SessionUpdate> unwritten_;
  bool writing_ = false, read_all_ = false, done_ = false;
  grpc::Status status_;
};

// One simulated player as a driver thread keeps it: when it joins (--ramp), and its session
// once it has joined, walking from that instant.
struct Walker {
  int player = 0;
  Clock::time_point joins;
  std::unique_ptr<SessionPlayer> session;
  std::pair<int64_t, int64_t> last{INT64_MIN, 0};
};

// When player p opens its session: all at once, or with --ramp spread evenly over that many seconds.
Clock::time_point join_time(int player, const Options& o, Clock::time_point start) {
  const double at = o.ramp * static_cast<double>(player) / static_cast<double>(o.players);
  return start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(at));
}

}  // namespace

// Drives the session players p with p % stride == first: opens each at its join time, moves it at
// each of its steps, asleep until the next one is due, and ends them all at `end`. A few such
// threads walk every player: with one thread per player, 2,000 players were 2,000 threads created
// in the same half second and woken at every step, on the cores of the server being measured.
void drive_sessions(const std::vector<std::unique_ptr<WorldService::Stub>>& stubs, int first, int stride,
                    const Options& o, Clock::time_point start, Clock::time_point end, Results& r,
                    const v1::LocalGeneration* local, GenerationPool* pool) {
  using Due = std::pair<Clock::time_point, size_t>;  // when, which walker
  std::vector<Walker> walkers;
  std::priority_queue<Due, std::vector<Due>, std::greater<>> due;
  for (int p = first; p < o.players; p += stride) {
    walkers.push_back({p, join_time(p, o, start), nullptr});
    due.emplace(walkers.back().joins, walkers.size() - 1);
  }
  while (!due.empty() && due.top().first < end) {
    if (Clock::now() < due.top().first) {
      std::this_thread::sleep_until(due.top().first);
      continue;
    }
    Walker& w = walkers[due.top().second];
    due.pop();
    if (!w.session) {
      w.session = std::make_unique<SessionPlayer>(*stubs[static_cast<size_t>(w.player) % stubs.size()], r, local, pool);
      w.joins = Clock::now();
      ++r.joined;
    }
    const double s = std::chrono::duration<double>(Clock::now() - w.joins).count();
    const auto p = position(w.player, s, o);
    if (p != w.last && !w.session->move(p, o)) continue;  // the server ended it: it walks no more
    w.last = p;
    const auto step =
        std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(next_step(w.player, s, o)));
    due.emplace(w.joins + step, &w - walkers.data());
  }
  if (!due.empty()) std::this_thread::sleep_until(end);  // players with no step left still hold their view
  for (Walker& w : walkers) {
    if (w.session) w.session->cancel();
  }
  for (Walker& w : walkers) {
    if (!w.session) continue;
    const grpc::Status s = w.session->wait();
    if (!s.ok() && s.error_code() != grpc::StatusCode::CANCELLED) r.error(s);
  }
}

}  // namespace chunkforge::loadgen
