// File: bindings/c/src/session.cc
//
// The C ABI's session: a polled ViewSession whose events are laid out as cf_event structs that
// borrow from the session until its next poll.
#include "abi.h"

struct cf_session {
  std::unique_ptr<chunkforge::client::ViewSession> session;
  // The last poll's events and what their cf_event views point into.
  std::vector<chunkforge::client::ViewEvent> events;
  std::vector<cf_chunk> chunks;
  std::vector<cf_event> c_events;
};

using namespace chunkforge::capi;

namespace {

cf_event event_of(cf::ViewEvent& e, cf_chunk* chunk) {
  cf_event out{};
  out.kind = static_cast<int32_t>(e.kind);  // the same order as CF_EVENT_*
  out.x = e.coord.x;
  out.z = e.coord.z;
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
}

cf_status cf_session_start(cf_client* client, double x, double z, const cf_session_options* options, cf_session** out) {
  return guarded([&]() -> cf_status {
    if (out == nullptr) return null_argument("out");
    *out = nullptr;
    if (client == nullptr) return null_argument("client");
    cf::ViewOptions view;
    if (const cf_status refused = read_session_options(options, view); refused != CF_OK) return refused;
    cf::Result<std::unique_ptr<cf::ViewSession>> session = cf::ViewSession::start_polled(client->client, {x, z}, view);
    if (!session) return fail(session.status());
    *out = new cf_session{std::move(*session), {}, {}, {}};
    return CF_OK;
  });
}

cf_status cf_session_set_position(cf_session* session, double x, double z) {
  return guarded([&]() -> cf_status {
    if (session == nullptr) return null_argument("session");
    session->session->set_position({x, z});
    return CF_OK;
  });
}

cf_status cf_session_set_radius(cf_session* session, uint32_t view_radius) {
  return guarded([&]() -> cf_status {
    if (session == nullptr) return null_argument("session");
    session->session->set_radius(view_radius);
    return CF_OK;
  });
}

int32_t cf_session_running(const cf_session* session) {
  try {
    return session != nullptr && session->session->running() ? 1 : 0;
  } catch (...) {  // a mutex that failed to lock: say it no longer runs
    return 0;
  }
}

void cf_session_free(cf_session* session) {
  if (session == nullptr) return;
  // Stopped here, where a failure to join its threads can be caught: in the destructor
  // (noexcept) it would end the process.
  guarded([&]() -> cf_status {
    session->session->stop();
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
    session->events.clear();
    session->session->poll(session->events, max_events);
    session->chunks.reserve(session->events.size());  // no reallocation: events point into it
    for (cf::ViewEvent& e : session->events) {
      cf_chunk* chunk = nullptr;
      if (e.chunk) chunk = &session->chunks.emplace_back(cf_chunk{std::make_shared<ChunkData>(std::move(*e.chunk))});
      session->c_events.push_back(event_of(e, chunk));
    }
    *events = session->c_events.data();
    *count = session->c_events.size();
    return CF_OK;
  });
}

cf_status cf_session_get_stats(const cf_session* session, cf_session_stats* out) {
  return guarded([&]() -> cf_status {
    if (session == nullptr) return null_argument("session");
    if (out == nullptr) return null_argument("out");
    const cf::ViewStats s = session->session->stats();
    *out = {s.chunks_downloaded, s.chunks_from_cache, s.duplicates_ignored, s.changes_applied, s.chunks_replaced,
            s.reconnects,        s.cached_bytes,      s.loaded_chunks,      s.queued_events,   s.queued_bytes};
    return CF_OK;
  });
}

}  // extern "C"
