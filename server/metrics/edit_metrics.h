// File: server/metrics/edit_metrics.h
//
// The edit store's side of /metrics (docs/deploy.md, "Watching"): what the Edit RPC refused and
// why, each group commit's transaction time, and, read from the EditService when the page is
// rendered, commits, batches and operations committed, whether the store answers and how far
// this process's tail of the store is behind it. Nothing is rendered for a server without a
// store.
//
// Thread safety: record from any thread; render while they do.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string_view>

#include "metrics/histogram.h"

namespace chunkforge::server {

class EditService;

class EditMetrics {
 public:
  // Why an Edit call was not applied: a fixed set, so the label stays bounded.
  enum Refusal {
    kInvalid,          // INVALID_ARGUMENT: the request itself (check_request)
    kUnauthorized,     // UNAUTHENTICATED, PERMISSION_DENIED: no write token, edits off
    kBusy,             // RESOURCE_EXHAUSTED before the commit: too many edits under way
    kLimit,            // RESOURCE_EXHAUSTED at commit: a chunk would pass its bounds
    kConflict,         // FAILED_PRECONDITION: an `expect` version is stale
    kNotFound,         // NOT_FOUND: no such object or structure
    kRequestIdReused,  // ALREADY_EXISTS: a request id sent with other contents
    kUnavailable,      // UNAVAILABLE: the store is down, or the server is stopping
    kCancelled,        // CANCELLED: the client left before the commit
    kPlayerRate,       // RESOURCE_EXHAUSTED: a player token over --player-edits-per-second
    kOther,
    kRefusalCount
  };
  static constexpr auto kRefusalNames =
      std::to_array<std::string_view>({"invalid", "unauthorized", "busy", "limit", "conflict", "not_found",
                                       "request_id_reused", "unavailable", "cancelled", "player_rate", "other"});
  static_assert(kRefusalNames.size() == kRefusalCount, "one name per Refusal");

  EditMetrics();

  // An Edit call ended with gRPC status `code` (not OK); `admitted`: it got past the bounds on
  // edits under way (a RESOURCE_EXHAUSTED before that is kBusy).
  void refused(int code, bool admitted);
  void refused(Refusal reason) { ++refused_[reason]; }
  void commit_timed(double seconds) { commit_seconds_.observe(seconds); }

  // Appends the edit_* metrics; nothing when `edits` is null (no store).
  void render(MetricsPage& page, const EditService* edits) const;

 private:
  std::array<std::atomic<uint64_t>, kRefusalCount> refused_{};
  Histogram commit_seconds_;
};

}  // namespace chunkforge::server
