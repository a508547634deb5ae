// ViewSession's chunks generated here (view_session_impl.h, docs/client-generation.md): the
// stream's first update asks the server to send only what players changed; `pristine` and
// `edited` events go to the generation threads (LocalLoads), and what they finish is loaded as a
// server's load would be. Changes to a chunk still being generated wait for it.
#include "view_session_impl.h"

#include "local_chunk.h"

namespace chunkforge::client {

void ViewSession::Impl::ask_local(v1::SessionUpdate& update, std::vector<Action>& actions) {
  stats.generating_locally = false;
  if (!local) return;
  const std::string fingerprint = options.generator->fingerprint();
  if (fingerprint != world.fingerprint()) {
    return refused("the generator makes the world with fingerprint " + fingerprint + ", the server's is " +
                       world.fingerprint() + ": chunks come from the server",
                   actions);
  }
  v1::LocalGeneration& ask = *update.mutable_local_generation();
  describe_generator(*options.generator, ask);
  ask.set_generates_tiles(options.generator->generates_tiles());
}

void ViewSession::Impl::receive_local_answer(const v1::LocalGenerationAnswer& answer,
                                             std::unique_lock<std::mutex>& lock) {
  std::vector<Action> actions;
  stats.generating_locally = answer.accepted();
  if (answer.accepted()) {
    stats.local_generation_refused.clear();
  } else {
    refused("the server sends chunks whole: " + answer.reason(), actions);
  }
  run_unlocked(std::move(actions), lock);
}

void ViewSession::Impl::refused(const std::string& reason, std::vector<Action>& actions) {
  stats.local_generation_refused = reason;
  if (reason == refusal_reported) return;
  refusal_reported = reason;
  actions.push_back([this, reason] {
    if (callbacks.on_error) callbacks.on_error({StatusCode::failed_precondition, "local generation: " + reason});
  });
}

void ViewSession::Impl::receive_older_land(const std::string& bytes, std::unique_lock<std::mutex>& lock) {
  if (!options.generator) return;
  Status kept = options.generator->add_older_land(bytes);
  if (kept.ok()) return;
  std::vector<Action> actions;
  actions.push_back([this, kept = std::move(kept)] {
    if (callbacks.on_error)
      callbacks.on_error({kept.code, "local generation: the server's older land: " + kept.message});
  });
  run_unlocked(std::move(actions), lock);
}

void ViewSession::Impl::receive_pristine(const v1::PristineChunks& pristine) {
  if (!local) return;  // a server that ignored what it was not asked: nothing to generate with
  backoff.reset();     // the connection works
  const auto& offsets = pristine.offsets();
  for (int k = 0; k + 1 < offsets.size(); k += 2) {
    const ChunkCoord c{pristine.origin().x() + offsets[k], pristine.origin().z() + offsets[k + 1]};
    awaiting.erase(c);  // a chunk loaded again from its base: changes before it are in it
    local->request(c, std::nullopt);
  }
}

void ViewSession::Impl::receive_edited(const v1::ChunkChange& edited) {
  if (!local) return;
  backoff.reset();
  const ChunkCoord c{edited.chunk().x(), edited.chunk().z()};
  awaiting.erase(c);
  local->request(c, edited);
}

void ViewSession::Impl::receive_generated(std::unique_lock<std::mutex>& lock) {
  local_done = false;
  if (!local) return;
  for (LocalLoads::Done& done : local->take()) {
    const ChunkCoord c = done.coord;
    Awaiting waited;
    if (const auto entry = awaiting.find(c); entry != awaiting.end()) {
      waited = std::move(entry->second);
      awaiting.erase(entry);
    }
    if (done.mismatch) {
      ++stats.edited_mismatches;
      if (!refetching.count(c)) refetch(c, std::max(done.version, waited.overflow), lock);
      continue;
    }
    if (!done.chunk) continue;  // abandoned: the session is ending
    stats.edited_verified += done.verified ? 1 : 0;
    receive_load(std::move(done.chunk), lock, /*generated=*/true);
    if (waited.overflow > 0 && !refetching.count(c)) refetch(c, waited.overflow, lock);
    for (const v1::ChunkChange& change : waited.changes) receive_change(change, lock);
  }
  receive_generated_tiles(lock);
}

bool ViewSession::Impl::await_generation(const v1::ChunkChange& change) {
  const ChunkCoord c{change.chunk().x(), change.chunk().z()};
  if (!local || !local->pending(c)) return false;
  Awaiting& waiting = awaiting[c];
  if (waiting.overflow > 0 || waiting.changes.size() >= kMaxAwaiting) {
    waiting.overflow = std::max(waiting.overflow, change.version());
    waiting.changes.clear();
  } else {
    waiting.changes.push_back(change);
  }
  return true;
}

void ViewSession::Impl::forget_local() {
  if (!local) return;
  local->forget_if([&](ChunkCoord c) { return !in_view(c); });
  std::erase_if(awaiting, [&](const auto& entry) { return !in_view(entry.first); });
}

void ViewSession::Impl::end_local(std::unique_lock<std::mutex>& lock) {
  std::unique_ptr<LocalLoads> ending = std::move(local);
  lock.unlock();
  ending.reset();
  lock.lock();
}

}  // namespace chunkforge::client
