// ViewSession (view_session.h): the session thread that keeps a player's view loaded over the
// Session stream, its local cache and reconnection with resume (view_session_impl.h).
#include "chunkforge/client/view_session.h"

#include <atomic>
#include <utility>

#include "view_session_impl.h"
#include "view_session_testing.h"

namespace chunkforge::client {
namespace {

// Whether streams ask for unload batches: always, but in a test that compares what the game sees
// without them (ViewSessionTesting::accept_unload_batches).
std::atomic<bool> ask_unload_batches{true};

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

}  // namespace

void ViewSession::Impl::run() {
  bool first = true;
  std::unique_lock lock(mutex);
  apply_view(lock);
  while (!stopping) {
    if (!stream) {
      if (!first) {
        // Wait out the backoff; the view still follows the player meanwhile (from the cache),
        // including a move made while the last attempt to open was under way.
        const auto until = std::chrono::steady_clock::now() +
                           (std::exchange(reconnect_now, false) ? std::chrono::milliseconds(0) : backoff.next());
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
    const auto woken = [&] { return stopping || view_dirty || !inbox.empty() || !refetched.empty() || local_done; };
    if (const auto retry = next_refetch_retry()) {
      wake.wait_until(lock, *retry, woken);
    } else {
      wake.wait(lock, woken);
    }
    if (stopping) break;
    apply_view(lock);
    retry_refetches(lock);
    while (!refetched.empty()) {
      const ChunkCoord c = refetched.front();
      refetched.pop_front();
      receive_refetch(c, lock);
    }
    if (local_done) receive_generated(lock);
    while (!inbox.empty() && stream) {
      Incoming next = std::move(inbox.front());
      inbox.pop_front();
      if (auto* event = std::get_if<v1::SessionEvent>(&next)) {
        receive(std::move(*event), lock);
      } else if (!ended(lock)) {
        end_refetches(lock);
        end_local(lock);
        running = false;
        return;
      }
    }
    if (events) wake.notify_all();  // the reader waits for an empty inbox (wait_for_room)
  }
  close(lock, /*cancel=*/true);
  end_refetches(lock);
  end_local(lock);
  running = false;
}

ViewSession::Impl::Opened ViewSession::Impl::open(std::unique_lock<std::mutex>& lock) {
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
    const bool retry = retryable(static_cast<StatusCode>(status.error_code()));
    if (!(retry && quiet_retries-- > 0)) report(to_status(status), lock);
    return retry ? Opened::retry : Opened::fatal;
  }
  if (info.fingerprint() != world.fingerprint() || info.generator_version() != world.generator_version()) {
    switch_world(WorldInfo(std::move(info)), lock);
    std::lock_guard guard(client.impl()->mutex);  // the client's own calls see the new world too
    client.impl()->world = world;
  }
  context = std::make_unique<grpc::ClientContext>();
  client.impl()->prepare(*context, std::chrono::milliseconds(0));  // a session has no deadline
  stream = client.impl()->stub->Session(context.get());
  stream_heard = moving = false;
  reader = std::thread([this, s = stream.get()] {
    v1::SessionEvent event;
    while (wait_for_room() && s->Read(&event)) push(std::move(event));
    push(StreamEnded{});
  });
  view_dirty = true;  // the new server needs the view
  first_update_sent = false;
  apply_view(lock);
  return Opened::ok;
}

bool ViewSession::Impl::wait_for_room() {
  if (!events) return true;
  std::unique_lock lock(mutex);
  wake.wait(lock, [&] { return stopping || (inbox.empty() && events->has_room()); });
  return true;  // when stopping, the read that follows ends with the cancelled stream
}

void ViewSession::Impl::push(Incoming incoming) {
  const auto* event = std::get_if<v1::SessionEvent>(&incoming);
  const size_t bytes = event != nullptr ? event->ByteSizeLong() : 0;  // measured outside the lock
  std::lock_guard guard(mutex);
  stats.bytes_received += bytes;
  inbox.push_back(std::move(incoming));
  wake.notify_all();
}

bool ViewSession::Impl::ended(std::unique_lock<std::mutex>& lock) {
  const Status status = close(lock, /*cancel=*/false);
  if (stopping || moving) return true;
  const bool retry = retryable(status.code);
  if (!status.ok() && !(retry && quiet_retries-- > 0)) report(status, lock);
  return retry;
}

Status ViewSession::Impl::close(std::unique_lock<std::mutex>& lock, bool cancel) {
  if (!stream) return {};
  if (cancel) context->TryCancel();
  lock.unlock();
  reader.join();
  const Status status = to_status(stream->Finish());
  lock.lock();
  inbox.clear();  // anything left belongs to the old stream
  stream.reset();
  context.reset();
  tiles_outlive_stream();
  return status;
}

void ViewSession::Impl::receive(v1::SessionEvent event, std::unique_lock<std::mutex>& lock) {
  if (event.has_reconnect()) {  // the stream ends OK next: no error, and no backoff after a working stream
    moving = true;
    reconnect_now = stream_heard;
    quiet_retries = client.options().max_attempts - 1;
    ++stats.moves;
    return;
  }
  stream_heard = true;
  quiet_retries = 0;
  if (event.has_load()) receive_load(std::make_shared<v1::Chunk>(std::move(*event.mutable_load())), lock);
  if (event.has_loads()) {  // (mutable_loads() on another event would replace it with a batch)
    for (v1::Chunk& chunk : *event.mutable_loads()->mutable_chunks()) {
      receive_load(std::make_shared<v1::Chunk>(std::move(chunk)), lock);
    }
  }
  if (event.has_change()) receive_change(event.change(), lock);
  if (event.has_local_generation()) receive_local_answer(event.local_generation(), lock);
  if (!event.older_land().empty()) receive_older_land(event.older_land(), lock);
  if (event.has_pristine()) receive_pristine(event.pristine());
  if (event.has_edited()) receive_edited(event.edited());
  if (event.has_lod_tile()) receive_tile(std::make_shared<v1::LodTile>(std::move(*event.mutable_lod_tile())), lock);
  if (event.has_lod_unload()) receive_tile_unload(event.lod_unload(), lock);
  if (event.has_lod_unloads()) receive_tile_unloads(event.lod_unloads(), lock);
  if (event.has_lod_pristine()) receive_pristine_tiles(event.lod_pristine());
}

void ViewSession::Impl::receive_load(std::shared_ptr<v1::Chunk> message, std::unique_lock<std::mutex>& lock,
                                     bool generated) {
  backoff.reset();  // the connection works
  const ChunkCoord c{message->coord().x(), message->coord().z()};
  ++(generated ? stats.chunks_generated : stats.chunks_downloaded);
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

void ViewSession::Impl::apply_view(std::unique_lock<std::mutex>& lock) {
  if (!view_dirty) return;
  view_dirty = false;
  centre = chunk_at(position.x, position.z, world.chunk_size());
  applied_radius = radius;
  applied_lod_radius = lod_radius;
  applied_lod_finest = lod_finest;
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
  forget_local();
  release_stale_tiles(actions);
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
    update.set_lod_radius(applied_lod_radius);
    update.set_lod_finest_level(applied_lod_finest);
    set_options(options.chunk, *update.mutable_options());
    update.set_accept_load_batches(true);                  // a first view's chunks in a few events, not one each
    update.set_accept_unload_batches(ask_unload_batches);  // a jump's unloads too
    if (!std::exchange(first_update_sent, true)) ask_local(update, actions);
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

void ViewSession::Impl::switch_world(WorldInfo next, std::unique_lock<std::mutex>& lock) {
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
  drop_tiles(actions);
  world = std::move(next);
  view_dirty = true;
  run_unlocked(std::move(actions), lock);
}

void ViewSession::Impl::report(Status status, std::unique_lock<std::mutex>& lock) {
  run_unlocked({[this, status = std::move(status)] {
                 if (callbacks.on_error) callbacks.on_error(status);
               }},
               lock);
}

void ViewSession::Impl::run_unlocked(std::vector<Action>&& actions, std::unique_lock<std::mutex>& lock) {
  if (actions.empty()) return;
  lock.unlock();
  for (Action& action : actions) action();
  lock.lock();
}

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

void ViewSessionTesting::accept_unload_batches(bool accept) { ask_unload_batches = accept; }

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
  stats.held_tiles = impl_->tiles.size();
  stats.held_tile_bytes = impl_->held_tile_bytes;
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
