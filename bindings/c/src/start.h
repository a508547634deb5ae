// File: bindings/c/src/start.h
//
// Starting a C ABI session: at once on the caller's thread (cf_session_start), or on a thread
// of its own (cf_session_open) that leaves the session in a Starting for the caller's next
// poll. Either way the world info is fetched and, with generate_locally, the local generator
// made from the server's definition; a generator the server refuses leaves the session running
// on the server's chunks, with the refusal to report.
//
//   std::shared_ptr<Starting> starting = start_in_background(spec);
//   ...later, on the caller's thread: if (auto started = starting->take()) use(*started);
#pragma once

#include <mutex>
#include <optional>

#include "abi.h"

namespace chunkforge::capi {

struct StartSpec {
  cf::Client client;
  cf::Position position;
  cf::ViewOptions view;
  bool generate_locally = false;
};

// A start's outcome: the session, and a failure (no session: why it could not start; with
// one: why it does not generate locally).
struct Started {
  std::unique_ptr<cf::ViewSession> session;
  cf::Status failure;
};

// What a start on a thread of its own shares with the session's owner.
class Starting {
 public:
  // The outcome once the start is done (once); nothing while it runs.
  std::optional<Started> take();
  bool failed() const;
  // The owner is gone: the start's thread stops and drops the session it made.
  void abandon();
  // The start's thread hands over; dropped at once when abandoned.
  void finish(Started started);

 private:
  mutable std::mutex mutex_;
  std::optional<Started> done_;
  bool failed_ = false, abandoned_ = false;
};

// What the caller set while its session was starting.
struct Settings {
  std::optional<cf::Position> position;
  std::optional<uint32_t> view_radius;
  std::optional<std::pair<uint32_t, uint32_t>> lod;  // radius, finest level
  void apply_to(cf::ViewSession& session) const;
};

Started start_now(StartSpec spec);
std::shared_ptr<Starting> start_in_background(StartSpec spec);

}  // namespace chunkforge::capi
