// ViewSession's change events (view_session_impl.h): a committed change applied to a loaded or
// cached copy and checked against the event's hash, and a chunk fetched again (GetChunk) when a
// change cannot be applied faithfully, tried again after a backoff when that fetch fails.
#include <algorithm>

#include "chunkforge/chunk_hash.h"
#include "view_session_impl.h"

namespace chunkforge::client {
namespace {

// A fetch that failed for a while (the server or its store down, its queue full, a deadline);
// not one cancelled (the session is ending) or refused for what it asked.
bool worth_retrying(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::UNKNOWN:
    case grpc::StatusCode::DEADLINE_EXCEEDED:
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
    case grpc::StatusCode::ABORTED:
    case grpc::StatusCode::INTERNAL:
    case grpc::StatusCode::UNAVAILABLE:
      return true;
    default:
      return false;
  }
}

// The wait before a fetch's next try, after `waited` before this one: initial_backoff, doubling
// up to max_backoff, and at least 10 ms whatever the options say.
std::chrono::milliseconds next_wait(std::chrono::milliseconds waited, const ViewOptions& options) {
  return std::max(std::chrono::milliseconds(10),
                  std::min(std::max(waited * 2, options.initial_backoff), options.max_backoff));
}

}  // namespace

void ViewSession::Impl::receive_change(const v1::ChunkChange& change, std::unique_lock<std::mutex>& lock) {
  using Outcome = AppliedChange::Outcome;
  const ChunkCoord c{change.chunk().x(), change.chunk().z()};
  if (await_generation(change)) return;
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

void ViewSession::Impl::receive_cached_change(ChunkCoord c, const v1::ChunkChange& change) {
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

void ViewSession::Impl::refetch(ChunkCoord c, uint64_t wanted, std::unique_lock<std::mutex>& lock,
                                std::chrono::milliseconds waited) {
  auto owned = std::make_unique<Refetch>();
  Refetch& r = *owned;
  r.wanted = wanted;
  r.waited = waited;
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

void ViewSession::Impl::receive_refetch(ChunkCoord c, std::unique_lock<std::mutex>& lock) {
  const std::unique_ptr<Refetch> r = std::move(refetching.extract(c).mapped());
  if (!r->status.ok()) {
    ++stats.refetches_failed;  // the copy, if any, stays at its version meanwhile
    if (worth_retrying(r->status.error_code())) {
      const auto wait = next_wait(r->waited, options);
      refetch_retries.insert_or_assign(c, RefetchRetry{std::chrono::steady_clock::now() + wait, r->wanted, wait});
    }
    return;
  }
  if (r->response->world_fingerprint() != world.fingerprint()) return;  // the world changed meanwhile
  const auto held = loaded.find(c);
  if (held == loaded.end() && in_view(c)) {  // not loaded yet: an edited chunk that failed its check here
    return receive_load(std::move(r->response), lock);
  }
  Chunk fetched(std::move(r->response), world);
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

void ViewSession::Impl::retry_refetches(std::unique_lock<std::mutex>& lock) {
  const auto now = std::chrono::steady_clock::now();
  std::vector<std::pair<ChunkCoord, RefetchRetry>> due;
  for (auto it = refetch_retries.begin(); it != refetch_retries.end();) {
    if (it->second.due > now) {
      ++it;
      continue;
    }
    due.emplace_back(*it);
    it = refetch_retries.erase(it);
  }
  for (const auto& [c, retry] : due) {
    const auto held = loaded.find(c);
    const bool wanted = in_view(c) && (held == loaded.end() || held->second.edit_version() < retry.wanted);
    if (!wanted || refetching.count(c)) continue;
    ++stats.refetches_retried;
    refetch(c, retry.wanted, lock, retry.waited);
  }
}

std::optional<std::chrono::steady_clock::time_point> ViewSession::Impl::next_refetch_retry() const {
  std::optional<std::chrono::steady_clock::time_point> first;
  for (const auto& [c, retry] : refetch_retries) {
    if (!first || retry.due < *first) first = retry.due;
  }
  return first;
}

void ViewSession::Impl::end_refetches(std::unique_lock<std::mutex>& lock) {
  std::vector<grpc::ClientContext*> under_way;
  for (const auto& entry : refetching) under_way.push_back(&entry.second->context);
  lock.unlock();
  for (grpc::ClientContext* call : under_way) call->TryCancel();
  lock.lock();
  wake.wait(lock, [&] { return refetch_callbacks_owed == 0; });
  refetching.clear();
  refetched.clear();
  refetch_retries.clear();
}

void ViewSession::Impl::report_change(Chunk chunk, ChunkChangeInfo info, std::unique_lock<std::mutex>& lock) {
  run_unlocked({[this, chunk = std::move(chunk), info = std::move(info)] {
                 if (callbacks.on_change) callbacks.on_change(chunk, info);
               }},
               lock);
}

}  // namespace chunkforge::client
