// File: bindings/c/src/session.cc
//
// The C ABI's session: a polled ViewSession whose events are laid out as cf_event structs that
// borrow from the session until its next poll. cf_session_open starts it on a thread of its own
// (start.cc) and hands it over at the first poll or setting after it is ready.
#include "abi.h"
#include "start.h"

struct cf_session {
  std::unique_ptr<chunkforge::client::ViewSession> session;
  // cf_session_open's start under way (null once taken, and for cf_session_start), and what
  // the game set meanwhile, for the session once it runs.
  std::shared_ptr<chunkforge::capi::Starting> starting;
  chunkforge::capi::Settings pending;
  bool failed = false;  // the start failed: no session, running() is 0
  // What a start has to say (its failure, a refused local generation), for the next poll.
  std::vector<chunkforge::client::ViewEvent> start_events;
  // The last poll's events and what their cf_event views point into.
  std::vector<chunkforge::client::ViewEvent> events;
  std::vector<cf_chunk> chunks;
  std::vector<std::shared_ptr<chunkforge::capi::TileData>> tiles;  // by event, null but for tiles
  std::vector<cf_event> c_events;
};

using namespace chunkforge::capi;

namespace {

cf_event event_of(cf::ViewEvent& e, cf_chunk* chunk) {
  cf_event out{};
  out.kind = static_cast<int32_t>(e.kind);  // the same order as CF_EVENT_*
  out.x = e.coord.x;
  out.z = e.coord.z;
  if (e.kind == cf::ViewEvent::Kind::tile || e.kind == cf::ViewEvent::Kind::tile_unload) {
    out.x = e.tile_key.x;
    out.z = e.tile_key.z;
    out.tile_level = e.tile_key.level;
  }
  out.chunk = chunk;
  if (e.kind == cf::ViewEvent::Kind::error) {
    out.error_code = static_cast<cf_status>(e.error.code);
    e.error.message = e.error.to_string();  // "UNAVAILABLE: ...", as cf_last_error() reads
    out.error_message = e.error.message.c_str();
  }
  out.previous_version = e.change.previous_version;
  out.replaced = e.change.replaced ? 1 : 0;
  out.removed_objects = e.change.removed_objects.data();
  out.removed_object_count = e.change.removed_objects.size();
  out.placed_objects = e.change.placed_objects.data();
  out.placed_object_count = e.change.placed_objects.size();
  out.states_changed = e.change.states_changed.data();
  out.states_changed_count = e.change.states_changed.size();
  out.removed_structures = e.change.removed_structures.data();
  out.removed_structure_count = e.change.removed_structures.size();
  return out;
}

cf::ViewEvent error_event(const cf::Status& status) {
  cf::ViewEvent e;
  e.kind = cf::ViewEvent::Kind::error;
  e.error = status;
  return e;
}

// Takes over a started session once its start is done, applying what was set meanwhile; or
// keeps its failure as an error event for the next poll. Nothing while it is still starting.
void settle(cf_session& s) {
  if (!s.starting) return;
  std::optional<Started> started = s.starting->take();
  if (!started) return;
  s.starting.reset();
  if (!started->session) {
    s.failed = true;
    s.start_events.push_back(error_event(started->failure));
    return;
  }
  s.session = std::move(started->session);
  s.pending.apply_to(*s.session);
  if (!started->failure.ok()) s.start_events.push_back(error_event(started->failure));  // runs, generating nothing
}

// The session, taken over if its start is done; null while starting or after a failed start.
cf::ViewSession* running_session(cf_session& s) {
  settle(s);
  return s.session.get();
}

cf_status start(cf_client* client, double x, double z, const cf_session_options* options, cf_session** out, bool wait) {
  return guarded([&]() -> cf_status {
    if (out == nullptr) return null_argument("out");
    *out = nullptr;
    if (client == nullptr) return null_argument("client");
    StartSpec spec{client->client, {x, z}, {}, false};
    if (const cf_status refused = read_session_options(options, spec.view, spec.generate_locally); refused != CF_OK)
      return refused;
    auto session = std::make_unique<cf_session>();
    if (wait) {
      Started started = start_now(std::move(spec));
      if (!started.session) return fail(started.failure);
      session->session = std::move(started.session);
      if (!started.failure.ok()) session->start_events.push_back(error_event(started.failure));
    } else {
      session->starting = start_in_background(std::move(spec));
    }
    *out = session.release();
    return CF_OK;
  });
}

}  // namespace

extern "C" {

void cf_session_options_init(cf_session_options* options) {
  if (options == nullptr) return;
  const cf::ViewOptions defaults;
  *options = {};
  options->struct_size = sizeof(cf_session_options);
  options->view_radius = defaults.view_radius;
  options->cache_bytes = defaults.cache_bytes;
  options->event_queue_bytes = defaults.event_queue_bytes;
  options->generator_threads = defaults.generator_threads;
}

cf_status cf_session_start(cf_client* client, double x, double z, const cf_session_options* options, cf_session** out) {
  return start(client, x, z, options, out, true);
}

cf_status cf_session_open(cf_client* client, double x, double z, const cf_session_options* options, cf_session** out) {
  return start(client, x, z, options, out, false);
}

cf_status cf_session_set_position(cf_session* session, double x, double z) {
  return guarded([&]() -> cf_status {
    if (session == nullptr) return null_argument("session");
    if (cf::ViewSession* s = running_session(*session)) {
      s->set_position({x, z});
    } else {
      session->pending.position = cf::Position{x, z};
    }
    return CF_OK;
  });
}

cf_status cf_session_set_radius(cf_session* session, uint32_t view_radius) {
  return guarded([&]() -> cf_status {
    if (session == nullptr) return null_argument("session");
    if (cf::ViewSession* s = running_session(*session)) {
      s->set_radius(view_radius);
    } else {
      session->pending.view_radius = view_radius;
    }
    return CF_OK;
  });
}

cf_status cf_session_set_lod(cf_session* session, uint32_t lod_radius, uint32_t lod_finest_level) {
  return guarded([&]() -> cf_status {
    if (session == nullptr) return null_argument("session");
    if (const cf_status refused = check_lod("", lod_radius, lod_finest_level); refused != CF_OK) return refused;
    if (cf::ViewSession* s = running_session(*session)) {
      s->set_lod_radius(lod_radius);
      s->set_lod_finest_level(lod_finest_level);
    } else {
      session->pending.lod = {lod_radius, lod_finest_level};
    }
    return CF_OK;
  });
}

int32_t cf_session_running(const cf_session* session) {
  try {
    if (session == nullptr || session->failed) return 0;
    if (session->session) return session->session->running() ? 1 : 0;
    return session->starting && !session->starting->failed() ? 1 : 0;
  } catch (...) {  // a mutex that failed to lock: say it no longer runs
    return 0;
  }
}

void cf_session_free(cf_session* session) {
  if (session == nullptr) return;
  if (session->starting) session->starting->abandon();  // its thread stops what it starts
  // Stopped here, where a failure to join its threads can be caught: in the destructor
  // (noexcept) it would end the process.
  guarded([&]() -> cf_status {
    if (session->session) session->session->stop();
    return CF_OK;
  });
  delete session;
}

cf_status cf_session_poll(cf_session* session, size_t max_events, const cf_event** events, size_t* count) {
  return guarded([&]() -> cf_status {
    if (session == nullptr) return null_argument("session");
    if (events == nullptr) return null_argument("events");
    if (count == nullptr) return null_argument("count");
    *events = nullptr;
    *count = 0;
    session->c_events.clear();
    session->chunks.clear();
    session->tiles.clear();
    session->events.clear();
    cf::ViewSession* running = running_session(*session);
    // What a start had to say comes first.
    while (!session->start_events.empty() && session->events.size() < max_events) {
      session->events.push_back(std::move(session->start_events.front()));
      session->start_events.erase(session->start_events.begin());
    }
    if (running != nullptr && session->events.size() < max_events) {
      running->poll(session->events, max_events - session->events.size());
    }
    session->chunks.reserve(session->events.size());  // no reallocation: events point into it
    for (cf::ViewEvent& e : session->events) {
      cf_chunk* chunk = nullptr;
      if (e.chunk) chunk = &session->chunks.emplace_back(cf_chunk{std::make_shared<ChunkData>(std::move(*e.chunk))});
      session->tiles.push_back(e.tile ? std::make_shared<TileData>(std::move(*e.tile)) : nullptr);
      session->c_events.push_back(event_of(e, chunk));
    }
    *events = session->c_events.data();
    *count = session->c_events.size();
    return CF_OK;
  });
}

cf_status cf_session_event_tile(cf_session* session, size_t index, cf_tile** out) {
  return guarded([&]() -> cf_status {
    if (out == nullptr) return null_argument("out");
    *out = nullptr;
    if (session == nullptr) return null_argument("session");
    if (index >= session->tiles.size() || !session->tiles[index]) {
      return fail(CF_INVALID_ARGUMENT, "INVALID_ARGUMENT: index: event " + std::to_string(index) +
                                           " of the last poll is not a CF_EVENT_TILE");
    }
    *out = new cf_tile{session->tiles[index]};
    return CF_OK;
  });
}

cf_status cf_session_get_stats(const cf_session* session, cf_session_stats* out) {
  return guarded([&]() -> cf_status {
    if (session == nullptr) return null_argument("session");
    if (out == nullptr) return null_argument("out");
    *out = {};
    if (!session->session) return CF_OK;  // starting, or failed to: nothing yet
    const cf::ViewStats s = session->session->stats();
    *out = {s.chunks_downloaded, s.chunks_from_cache, s.duplicates_ignored, s.changes_applied, s.chunks_replaced,
            s.reconnects,        s.cached_bytes,      s.loaded_chunks,      s.queued_events,   s.queued_bytes};
    return CF_OK;
  });
}

cf_status cf_session_get_counters(const cf_session* session, cf_session_counters* out) {
  return guarded([&]() -> cf_status {
    if (session == nullptr) return null_argument("session");
    if (out == nullptr) return null_argument("out");
    if (out->struct_size < sizeof(cf_session_counters)) {
      return fail(CF_INVALID_ARGUMENT, "INVALID_ARGUMENT: out->struct_size: must be at least " +
                                           std::to_string(sizeof(cf_session_counters)) + " (got " +
                                           std::to_string(out->struct_size) + ")");
    }
    const uint32_t size = out->struct_size;
    *out = {};
    out->struct_size = size;
    if (!session->session) return CF_OK;  // starting, or failed to: nothing yet
    const cf::ViewStats s = session->session->stats();
    out->generating_locally = s.generating_locally ? 1 : 0;
    out->bytes_received = s.bytes_received;
    out->chunks_generated = s.chunks_generated;
    out->tiles_loaded = s.tiles_loaded;
    out->tiles_generated = s.tiles_generated;
    out->tile_bytes_received = s.tile_bytes_received;
    out->held_tiles = s.held_tiles;
    return CF_OK;
  });
}

}  // extern "C"
