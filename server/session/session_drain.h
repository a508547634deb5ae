// File: server/session/session_drain.h
//
// The live sessions a draining server tells to reconnect elsewhere (docs/server.md, "Shutdown"):
// each session joins with what to do, and start() does it for every one, once. A session that
// joins after start() is told at once (join returns 0), so none slips through the drain.
//
//   const uint64_t id = drain.join([weak] { ...tell the session... });
//   if (id == 0) ...tell it now: the server is draining already
//   drain.leave(id);  // the session finished
//
// Thread safety: every method from any thread. start() calls the callbacks without its lock
// held, so a callback may take its session's lock, and a session may leave() under its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <vector>

namespace chunkforge::server {

class SessionDrain {
 public:
  // A session's reconnect callback; its number for leave(). 0 (nothing kept) once draining.
  uint64_t join(std::function<void()> reconnect) {
    std::lock_guard lock(mutex_);
    if (draining_) return 0;
    sessions_.emplace(++last_, std::move(reconnect));
    return last_;
  }
  void leave(uint64_t id) {
    std::lock_guard lock(mutex_);
    sessions_.erase(id);
  }
  // Calls every joined session's callback once (a session gone meanwhile finds nothing to do);
  // how many it told.
  size_t start() {
    std::vector<std::function<void()>> told;
    {
      std::lock_guard lock(mutex_);
      if (draining_) return 0;
      draining_ = true;
      for (auto& [id, reconnect] : sessions_) told.push_back(std::move(reconnect));
      sessions_.clear();
    }
    for (const auto& reconnect : told) reconnect();
    return told.size();
  }

 private:
  std::mutex mutex_;
  bool draining_ = false;
  uint64_t last_ = 0;
  std::map<uint64_t, std::function<void()>> sessions_;
};

}  // namespace chunkforge::server
