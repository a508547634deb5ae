// File: bindings/c/src/start.cc
//
// Starting sessions (start.h).
#include "start.h"

#include <chunkforge/client/local_generator.h>

#include <thread>

namespace chunkforge::capi {

std::optional<Started> Starting::take() {
  std::lock_guard lock(mutex_);
  std::optional<Started> out = std::move(done_);
  done_.reset();
  return out;
}

bool Starting::failed() const {
  std::lock_guard lock(mutex_);
  return failed_;
}

void Starting::abandon() {
  std::optional<Started> dropped;
  {
    std::lock_guard lock(mutex_);
    abandoned_ = true;
    dropped = std::move(done_);  // destroyed outside the lock: it joins the session's threads
  }
}

void Starting::finish(Started started) {
  {
    std::lock_guard lock(mutex_);
    if (!abandoned_) {
      failed_ = started.session == nullptr;
      done_ = std::move(started);
      return;
    }
  }
  // `started` goes here, on the start's thread: nobody waits for it.
}

void Settings::apply_to(cf::ViewSession& session) const {
  if (position) session.set_position(*position);
  if (view_radius) session.set_radius(*view_radius);
  if (lod) {
    session.set_lod_radius(lod->first);
    session.set_lod_finest_level(lod->second);
  }
}

Started start_now(StartSpec spec) {
  Started out;
  if (spec.generate_locally) {
    cf::Result<std::shared_ptr<cf::BaseGenerator>> generator = cf::make_local_generator(spec.client);
    if (generator) {
      spec.view.generator = *generator;
    } else {
      out.failure = cf::Status{generator.status().code,
                               "local generation refused, the server sends every chunk: " + generator.status().message};
    }
  }
  cf::Result<std::unique_ptr<cf::ViewSession>> session =
      cf::ViewSession::start_polled(spec.client, spec.position, std::move(spec.view));
  if (!session) return {nullptr, session.status()};
  out.session = std::move(*session);
  return out;
}

std::shared_ptr<Starting> start_in_background(StartSpec spec) {
  auto starting = std::make_shared<Starting>();
  std::thread([starting, spec = std::move(spec)]() mutable { starting->finish(start_now(std::move(spec))); }).detach();
  return starting;
}

}  // namespace chunkforge::capi
