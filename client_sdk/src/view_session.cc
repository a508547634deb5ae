// ViewSession (view_session.h): the session thread that keeps a player's view loaded over the
// Session stream, its local cache, reconnection with resume, and edits applied to its copies.
#include "chunkforge/client/view_session.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <variant>

#include "chunk_change.h"
#include "chunkforge/chunk_hash.h"
#include "chunkforge/v1/service.grpc.pb.h"
#include "client_impl.h"
#include "event_queue.h"
#include "local_cache.h"
#include "view_session_testing.h"

namespace chunkforge::client {
namespace {

// Errors a new session could get past: the server went away, was busy, or hiccuped.
bool retryable(StatusCode code) {
  switch (code) {
    case StatusCode::ok:  // the server ended the stream without being asked: start another
    case StatusCode::cancelled:
    case StatusCode::unknown:
    case StatusCode::deadline_exceeded:
    case StatusCode::resource_exhausted:
    case StatusCode::aborted:
    case StatusCode::internal:
    case StatusCode::unavailable:
      return true;
    default:
      return false;
  }
}

int64_t chebyshev(ChunkCoord a, ChunkCoord b) { return std::max(std::abs(a.x - b.x), std::abs(a.z - b.z)); }

}  // namespace

struct ViewSession::Impl {
  // What the reader thread hands to the session thread: one event, or the end of the stream.
  struct StreamEnded {};
  using Incoming = std::variant<v1::SessionEvent, StreamEnded>;
  // A callback to run outside the lock.
  using Action = std::function<void()>;

  Impl(Client c, WorldInfo w, Position p, ViewOptions o, ViewCallbacks cb)
      : client(std::move(c)),
        world(std::move(w)),
        options(std::move(o)),
        callbacks(std::move(cb)),
        layers(layer_filter(options.chunk)),
        cache(options.cache_bytes),
        position(p),
        radius(options.view_radius),
        backoff(options.initial_backoff, options.max_backoff) {}

  Client client;
  WorldInfo world;
  const ViewOptions options;
  const ViewCallbacks callbacks;
  const google::protobuf::RepeatedField<uint32_t> layers;  // the view's layer filter, for changes

  mutable std::mutex mutex;
  std::condition_variable wake;
  // Guarded by mutex. Written by callers (position, radius, stopping) and by the reader thread
  // (inbox); everything else by the session thread.
  LocalCache cache;
  std::map<ChunkCoord, Chunk> loaded;
  Position position;
  uint32_t radius;
  ChunkCoord centre{};
  uint32_t applied_radius = 0;
  bool view_dirty = true, stopping = false, running = true;
  std::deque<Incoming> inbox;
  ViewStats stats;
  grpc::ClientContext* pending_info = nullptr;  // the world-info call of open(), while under way
  std::unique_ptr<EventQueue> events;           // a polled session's (start_polled); null with callbacks

  // Chunks being fetched again (GetChunk) because a change could not be applied faithfully: at
  // most one fetch per chunk. `wanted` is the newest version a change to it named meanwhile.
  // The fetch's callback (a gRPC thread) queues its chunk in `refetched` for the session thread.
  struct Refetch {
    grpc::ClientContext context;
    v1::GetChunkRequest request;
    std::shared_ptr<v1::Chunk> response = std::make_shared<v1::Chunk>();
    grpc::Status status;
    uint64_t wanted = 0;
  };
  std::map<ChunkCoord, std::unique_ptr<Refetch>> refetching;
  std::deque<ChunkCoord> refetched;
  size_t refetch_callbacks_owed = 0;  // fetches whose callback has not run yet

  // The session thread's own.
  std::unique_ptr<grpc::ClientContext> context;
  std::unique_ptr<grpc::ClientReaderWriter<v1::SessionUpdate, v1::SessionEvent>> stream;
  std::thread reader;
  Backoff backoff;
  std::thread thread;

  bool in_view(ChunkCoord c) const { return chebyshev(c, centre) <= static_cast<int64_t>(applied_radius); }

  // --- the session thread ---

  void run() {
    bool first = true;
    std::unique_lock lock(mutex);
    apply_view(lock);
    while (!stopping) {
      if (!stream) {
        if (!first) {
          // Wait out the backoff; the view still follows the player meanwhile (from the cache),
          // including a move made while the last attempt to open was under way.
          const auto until = std::chrono::steady_clock::now() + backoff.next();
          do {
            apply_view(lock);
          } while (wake.wait_until(lock, until, [&] { return stopping || view_dirty; }) && !stopping);
          if (stopping) break;
          ++stats.reconnects;
        }
        first = false;
        const Opened opened = open(lock);
        if (opened == Opened::fatal) break;
        if (opened == Opened::retry) continue;
      }
      wake.wait(lock, [&] { return stopping || view_dirty || !inbox.empty() || !refetched.empty(); });
      if (stopping) break;
      apply_view(lock);
      while (!refetched.empty()) {
        const ChunkCoord c = refetched.front();
        refetched.pop_front();
        receive_refetch(c, lock);
      }
      while (!inbox.empty() && stream) {
        Incoming next = std::move(inbox.front());
        inbox.pop_front();
        if (auto* event = std::get_if<v1::SessionEvent>(&next)) {
          receive(std::move(*event), lock);
        } else if (!ended(lock)) {
          end_refetches(lock);
          running = false;
          return;
        }
      }
      if (events) wake.notify_all();  // the reader waits for an empty inbox (wait_for_room)
    }
    close(lock, /*cancel=*/true);
    end_refetches(lock);
    running = false;
  }

  enum class Opened { ok, retry, fatal };

  // Opens a session stream and sends the view with the chunks already held. If the world could
  // not be checked, reports why: retry (after a backoff) or fatal (the session ends).
  Opened open(std::unique_lock<std::mutex>& lock) {
    // A fresh look at the world: after a restart it may be another one. stop() cancels it.
    grpc::ClientContext info_context;
    client.impl()->prepare(info_context);
    pending_info = &info_context;
    lock.unlock();
    v1::WorldInfo info;
    const grpc::Status status = client.impl()->stub->GetWorldInfo(&info_context, v1::GetWorldInfoRequest{}, &info);
    lock.lock();
    pending_info = nullptr;
    if (stopping) return Opened::retry;  // the loop sees `stopping` and ends
    if (!status.ok()) {
      report(to_status(status), lock);
      return retryable(static_cast<StatusCode>(status.error_code())) ? Opened::retry : Opened::fatal;
    }
    if (info.fingerprint() != world.fingerprint() || info.generator_version() != world.generator_version()) {
      switch_world(WorldInfo(std::move(info)), lock);
      std::lock_guard guard(client.impl()->mutex);  // the client's own calls see the new world too
      client.impl()->world = world;
    }
    context = std::make_unique<grpc::ClientContext>();
    client.impl()->prepare(*context, std::chrono::milliseconds(0));  // a session has no deadline
    stream = client.impl()->stub->Session(context.get());
    reader = std::thread([this, s = stream.get()] {
      v1::SessionEvent event;
      while (wait_for_room() && s->Read(&event)) push(std::move(event));
      push(StreamEnded{});
    });
    view_dirty = true;  // the new server needs the view
    apply_view(lock);
    return Opened::ok;
  }

  // A polled session reads the next message only once the last one was handled and the game
  // has drained the queue below its bound; until then the server waits (HTTP/2 flow control).
  bool wait_for_room() {
    if (!events) return true;
    std::unique_lock lock(mutex);
    wake.wait(lock, [&] { return stopping || (inbox.empty() && events->has_room()); });
    return true;  // when stopping, the read that follows ends with the cancelled stream
  }

  void push(Incoming incoming) {
    std::lock_guard guard(mutex);
    inbox.push_back(std::move(incoming));
    wake.notify_all();
  }

  // The stream ended. Reports why; true to go on with a new stream.
  bool ended(std::unique_lock<std::mutex>& lock) {
    const Status status = close(lock, /*cancel=*/false);
    if (stopping) return true;
    if (!status.ok()) report(status, lock);
    return retryable(status.code);
  }

  // Ends the stream and returns its status. `cancel` when it may still be open (stop()); not
  // once the reader saw it end, since a cancel then would hide the server's status.
  Status close(std::unique_lock<std::mutex>& lock, bool cancel) {
    if (!stream) return {};
    if (cancel) context->TryCancel();
    lock.unlock();
    reader.join();
    const Status status = to_status(stream->Finish());
    lock.lock();
    inbox.clear();  // anything left belongs to the old stream
    stream.reset();
    context.reset();
    return status;
  }

  // A server event. Unloads need nothing: the view is computed here, from the same rule.
  void receive(v1::SessionEvent event, std::unique_lock<std::mutex>& lock) {
    if (event.has_load()) receive_load(std::make_shared<v1::Chunk>(std::move(*event.mutable_load())), lock);
    if (event.has_loads()) {  // (mutable_loads() on another event would replace it with a batch)
      for (v1::Chunk& chunk : *event.mutable_loads()->mutable_chunks()) {
        receive_load(std::make_shared<v1::Chunk>(std::move(chunk)), lock);
      }
    }
    if (event.has_change()) receive_change(event.change(), lock);
  }

  // Loads of chunks out of view go to the cache (the server has not yet seen the latest
  // position). A load of a chunk held at another version replaces it (docs/edits.md).
  void receive_load(std::shared_ptr<v1::Chunk> message, std::unique_lock<std::mutex>& lock) {
    backoff.reset();  // the connection works
    const ChunkCoord c{message->coord().x(), message->coord().z()};
    ++stats.chunks_downloaded;
    Chunk chunk(std::move(message), world);
    if (const auto held = loaded.find(c); held != loaded.end()) {
      if (held->second.edit_version() == chunk.edit_version()) {
        ++stats.duplicates_ignored;
        return;
      }
      ChunkChangeInfo info;
      info.previous_version = held->second.edit_version();
      info.replaced = true;
      held->second = chunk;
      ++stats.chunks_replaced;
      return report_change(std::move(chunk), std::move(info), lock);
    }
    if (!in_view(c)) {
      cache.put(c, std::move(chunk));
      return;
    }
    loaded.emplace(c, chunk);
    run_unlocked({[this, chunk] {
                   if (callbacks.on_load) callbacks.on_load(chunk);
                 }},
                 lock);
  }

  // A committed change: applied to the loaded copy and reported once it hashes to the event's
  // chunk_hash. A loaded copy that the change cannot be applied to faithfully (a mismatch, an
  // edit unknown here, missed versions) is fetched again instead; while that fetch is under
  // way, later changes to the chunk wait for it. A reset is left to the server, which sends the
  // chunk whole.
  void receive_change(const v1::ChunkChange& change, std::unique_lock<std::mutex>& lock) {
    using Outcome = AppliedChange::Outcome;
    const ChunkCoord c{change.chunk().x(), change.chunk().z()};
    const auto held = loaded.find(c);
    if (held == loaded.end()) return receive_cached_change(c, change);
    if (const auto fetching = refetching.find(c); fetching != refetching.end()) {
      ++stats.changes_coalesced;
      fetching->second->wanted = std::max(fetching->second->wanted, change.version());
      return;
    }
    AppliedChange result = apply_checked(held->second, change, layers);
    switch (result.outcome) {
      case Outcome::already_held:
      case Outcome::reset:
        return;
      case Outcome::gap:
        ++stats.change_gaps;
        return refetch(c, change.version(), lock);
      case Outcome::not_understood:
        ++stats.changes_not_understood;
        return refetch(c, change.version(), lock);
      case Outcome::hash_mismatch:
        ++stats.change_hash_mismatches;
        return refetch(c, change.version(), lock);
      case Outcome::applied:
        break;
    }
    ++stats.changes_applied;
    stats.changes_verified += result.checked ? 1 : 0;
    ChunkChangeInfo info = describe(change, held->second.edit_version());
    held->second = *result.chunk;
    report_change(std::move(*result.chunk), std::move(info), lock);
  }

  // A cached copy is kept current, or dropped if it cannot follow faithfully: it would come
  // back into view wrong or stale, and the server sends a dropped chunk whole.
  void receive_cached_change(ChunkCoord c, const v1::ChunkChange& change) {
    const Chunk* cached = cache.find(c);
    if (cached == nullptr) return;
    AppliedChange result = apply_checked(*cached, change, layers);
    if (result.outcome == AppliedChange::Outcome::already_held) return;
    if (result.outcome != AppliedChange::Outcome::applied) {
      if (result.outcome == AppliedChange::Outcome::hash_mismatch) ++stats.change_hash_mismatches;
      if (result.outcome == AppliedChange::Outcome::not_understood) ++stats.changes_not_understood;
      return cache.erase(c);
    }
    ++stats.changes_applied;
    stats.changes_verified += result.checked ? 1 : 0;
    cache.put(c, std::move(*result.chunk));
  }

  // Asks the server for `c` again (GetChunk with the view's options), in the background: the
  // answer comes back through `refetched`. The caller made sure no fetch of `c` is under way.
  void refetch(ChunkCoord c, uint64_t wanted, std::unique_lock<std::mutex>& lock) {
    auto owned = std::make_unique<Refetch>();
    Refetch& r = *owned;
    r.wanted = wanted;
    client.impl()->prepare(r.context);
    r.context.AddMetadata("x-chunkforge-chunk-key", std::to_string(c.x) + "," + std::to_string(c.z));
    r.request.mutable_coord()->set_x(c.x);
    r.request.mutable_coord()->set_z(c.z);
    set_options(options.chunk, *r.request.mutable_options());
    refetching.emplace(c, std::move(owned));
    ++refetch_callbacks_owed;
    // Started without the lock: gRPC may run the callback at once, on this thread.
    run_unlocked({[this, c, &r] {
                   client.impl()->stub->async()->GetChunk(&r.context, &r.request, r.response.get(),
                                                          [this, c, &r](grpc::Status status) {
                                                            std::lock_guard guard(mutex);
                                                            r.status = std::move(status);
                                                            refetched.push_back(c);
                                                            --refetch_callbacks_owed;
                                                            wake.notify_all();
                                                          });
                 }},
                 lock);
  }

  // A chunk fetched again replaces the copy (on_change, replaced) unless the copy is newer by
  // now (a load came meanwhile). An answer still older than a change heard of meanwhile (from a
  // replica behind the one that sent the change) is fetched once more, but only while each
  // answer is newer than the copy: a chunk is never fetched in a loop.
  void receive_refetch(ChunkCoord c, std::unique_lock<std::mutex>& lock) {
    const std::unique_ptr<Refetch> r = std::move(refetching.extract(c).mapped());
    if (!r->status.ok()) {
      ++stats.refetches_failed;  // the copy stays; the next change (a gap) or a resume fetches it
      return;
    }
    if (r->response->world_fingerprint() != world.fingerprint()) return;  // the world changed meanwhile
    Chunk fetched(std::move(r->response), world);
    const auto held = loaded.find(c);
    if (held == loaded.end()) {  // it left the view meanwhile
      const Chunk* cached = cache.find(c);
      if (cached != nullptr && cached->edit_version() <= fetched.edit_version()) cache.put(c, std::move(fetched));
      return;
    }
    const uint64_t previous = held->second.edit_version();
    if (fetched.edit_version() < previous) return;
    const bool same = fetched.edit_version() == previous &&
                      canonical_bytes(fetched.message()) == canonical_bytes(held->second.message());
    if (same) return;
    ++stats.changes_refetched;
    ChunkChangeInfo info;
    info.previous_version = previous;
    info.replaced = true;
    held->second = fetched;
    if (fetched.edit_version() < r->wanted && fetched.edit_version() > previous) refetch(c, r->wanted, lock);
    report_change(std::move(fetched), std::move(info), lock);
  }

  // The session ends: fetches under way are cancelled and waited for (their callbacks use this).
  void end_refetches(std::unique_lock<std::mutex>& lock) {
    std::vector<grpc::ClientContext*> under_way;
    for (const auto& entry : refetching) under_way.push_back(&entry.second->context);
    lock.unlock();
    for (grpc::ClientContext* call : under_way) call->TryCancel();
    lock.lock();
    wake.wait(lock, [&] { return refetch_callbacks_owed == 0; });
    refetching.clear();
    refetched.clear();
  }

  void report_change(Chunk chunk, ChunkChangeInfo info, std::unique_lock<std::mutex>& lock) {
    run_unlocked({[this, chunk = std::move(chunk), info = std::move(info)] {
                   if (callbacks.on_change) callbacks.on_change(chunk, info);
                 }},
                 lock);
  }

  // Brings the view to the latest position and radius: unloads what left it (into the cache),
  // loads what the cache has of what entered it (nearest first), and tells the server, listing
  // every chunk of the view already held with its edit version: the server sends a chunk held
  // at an old version again (one back from the cache, or held across a reconnection).
  void apply_view(std::unique_lock<std::mutex>& lock) {
    if (!view_dirty) return;
    view_dirty = false;
    centre = chunk_at(position.x, position.z, world.chunk_size());
    applied_radius = radius;
    std::vector<Action> actions;
    for (auto it = loaded.begin(); it != loaded.end();) {
      if (in_view(it->first)) {
        ++it;
        continue;
      }
      const ChunkCoord c = it->first;
      cache.put(c, std::move(it->second));
      it = loaded.erase(it);
      actions.push_back([this, c] {
        if (callbacks.on_unload) callbacks.on_unload(c);
      });
    }
    std::vector<Chunk> from_cache = cache.take_if([&](ChunkCoord c) { return in_view(c); });
    std::sort(from_cache.begin(), from_cache.end(), [&](const Chunk& a, const Chunk& b) {
      const auto key = [&](const Chunk& k) {
        const int64_t dx = k.coord().x - centre.x, dz = k.coord().z - centre.z;
        return std::tuple(dx * dx + dz * dz, k.coord().z, k.coord().x);
      };
      return key(a) < key(b);
    });
    for (Chunk& chunk : from_cache) {
      ++stats.chunks_from_cache;
      loaded.emplace(chunk.coord(), chunk);
      actions.push_back([this, chunk = std::move(chunk)] {
        if (callbacks.on_load) callbacks.on_load(chunk);
      });
    }
    if (stream) {
      v1::SessionUpdate update;
      update.set_x(position.x);
      update.set_z(position.z);
      update.set_view_radius(applied_radius);
      set_options(options.chunk, *update.mutable_options());
      update.set_accept_load_batches(true);  // a first view's chunks in a few events, not one each
      for (const auto& [c, chunk] : loaded) {
        v1::ChunkCoord* held = update.add_held();
        held->set_x(c.x);
        held->set_z(c.z);
        update.add_held_versions(chunk.edit_version());
      }
      // A failed write means the stream broke; the reader sees the end and reports it.
      actions.push_back([s = stream.get(), update = std::move(update)] { s->Write(update); });
    }
    run_unlocked(std::move(actions), lock);
  }

  // The world changed under the session (another server, another world): nothing held is valid.
  void switch_world(WorldInfo next, std::unique_lock<std::mutex>& lock) {
    std::vector<Action> actions;
    actions.push_back([this, message = "the server's world changed (fingerprint " + world.fingerprint() + ", now " +
                                       next.fingerprint() + "): reloading the view"] {
      if (callbacks.on_error) callbacks.on_error({StatusCode::aborted, message});
    });
    for (const auto& [c, chunk] : loaded) {
      actions.push_back([this, c = c] {
        if (callbacks.on_unload) callbacks.on_unload(c);
      });
    }
    loaded.clear();
    cache.clear();
    world = std::move(next);
    view_dirty = true;
    run_unlocked(std::move(actions), lock);
  }

  void report(Status status, std::unique_lock<std::mutex>& lock) {
    run_unlocked({[this, status = std::move(status)] {
                   if (callbacks.on_error) callbacks.on_error(status);
                 }},
                 lock);
  }

  // Callbacks run without the lock, so they may call set_position and loaded().
  void run_unlocked(std::vector<Action> actions, std::unique_lock<std::mutex>& lock) {
    if (actions.empty()) return;
    lock.unlock();
    for (Action& action : actions) action();
    lock.lock();
  }
};

Result<std::unique_ptr<ViewSession>> ViewSession::start(Client client, Position position, ViewOptions options,
                                                        ViewCallbacks callbacks) {
  Result<WorldInfo> world = client.world_info();
  if (!world) return world.status();
  auto impl = std::make_unique<Impl>(std::move(client), *world, position, std::move(options), std::move(callbacks));
  Impl* raw = impl.get();
  impl->thread = std::thread([raw] { raw->run(); });
  return std::unique_ptr<ViewSession>(new ViewSession(std::move(impl)));
}

bool ViewSessionTesting::rewrite_copy(ViewSession& session, ChunkCoord c, const std::function<void(v1::Chunk&)>& edit) {
  ViewSession::Impl& impl = *session.impl_;
  std::lock_guard lock(impl.mutex);
  const auto held = impl.loaded.find(c);
  if (held == impl.loaded.end()) return false;
  auto message = std::make_shared<v1::Chunk>(held->second.message());
  edit(*message);
  held->second = Chunk(std::move(message), impl.world);
  return true;
}

Result<std::unique_ptr<ViewSession>> ViewSession::start_polled(Client client, Position position, ViewOptions options) {
  Result<WorldInfo> world = client.world_info();
  if (!world) return world.status();
  auto events = std::make_unique<EventQueue>(options.event_queue_bytes);
  ViewCallbacks callbacks = queueing_callbacks(*events);
  auto impl = std::make_unique<Impl>(std::move(client), *world, position, std::move(options), std::move(callbacks));
  Impl* raw = impl.get();
  events->on_room([raw] {
    std::lock_guard lock(raw->mutex);
    raw->wake.notify_all();
  });
  impl->events = std::move(events);
  impl->thread = std::thread([raw] { raw->run(); });
  return std::unique_ptr<ViewSession>(new ViewSession(std::move(impl)));
}

size_t ViewSession::poll(std::vector<ViewEvent>& out, size_t max_events) {
  return impl_->events ? impl_->events->poll(out, max_events) : 0;
}

std::vector<ViewEvent> ViewSession::poll(size_t max_events) {
  std::vector<ViewEvent> out;
  poll(out, max_events);
  return out;
}

ViewSession::ViewSession(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

ViewSession::~ViewSession() { stop(); }

void ViewSession::set_position(Position position) {
  std::lock_guard lock(impl_->mutex);
  impl_->position = position;
  if (chunk_at(position.x, position.z, impl_->world.chunk_size()) != impl_->centre) {
    impl_->view_dirty = true;
    impl_->wake.notify_all();
  }
}

void ViewSession::set_radius(uint32_t view_radius) {
  std::lock_guard lock(impl_->mutex);
  impl_->radius = view_radius;
  if (view_radius != impl_->applied_radius) {
    impl_->view_dirty = true;
    impl_->wake.notify_all();
  }
}

std::vector<ChunkCoord> ViewSession::loaded() const {
  std::lock_guard lock(impl_->mutex);
  std::vector<ChunkCoord> out;
  out.reserve(impl_->loaded.size());
  for (const auto& entry : impl_->loaded) out.push_back(entry.first);
  return out;
}

ViewStats ViewSession::stats() const {
  std::lock_guard lock(impl_->mutex);
  ViewStats stats = impl_->stats;
  stats.cached_bytes = impl_->cache.bytes();
  stats.loaded_chunks = impl_->loaded.size();
  if (impl_->events) {
    stats.queued_events = impl_->events->size();
    stats.queued_bytes = impl_->events->bytes();
  }
  return stats;
}

bool ViewSession::running() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->running;
}

void ViewSession::stop() {
  {
    std::lock_guard lock(impl_->mutex);
    impl_->stopping = true;
    if (impl_->pending_info != nullptr) impl_->pending_info->TryCancel();
    impl_->wake.notify_all();
  }
  if (impl_->thread.joinable()) impl_->thread.join();
}

}  // namespace chunkforge::client
