// EditMetrics: refusals by reason, commit time, and the EditService's counters, health and
// tail lag as Prometheus text.
#include "metrics/edit_metrics.h"

#include <grpcpp/support/status.h>

#include "edits/edit_service.h"

namespace chunkforge::server {
namespace {

// A group commit is one store transaction: SQLite's fsync, or PostgreSQL's round trips and
// its WAL flush.
const std::vector<double> kCommitBuckets = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                            0.1,    0.25,  0.5,    1.0,   2.5,  5.0,   10.0};

EditMetrics::Refusal refusal_of(int code, bool admitted) {
  switch (static_cast<grpc::StatusCode>(code)) {
    case grpc::StatusCode::INVALID_ARGUMENT:
      return EditMetrics::kInvalid;
    case grpc::StatusCode::UNAUTHENTICATED:
    case grpc::StatusCode::PERMISSION_DENIED:
      return EditMetrics::kUnauthorized;
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return admitted ? EditMetrics::kLimit : EditMetrics::kBusy;
    case grpc::StatusCode::FAILED_PRECONDITION:
      return EditMetrics::kConflict;
    case grpc::StatusCode::NOT_FOUND:
      return EditMetrics::kNotFound;
    case grpc::StatusCode::ALREADY_EXISTS:
      return EditMetrics::kRequestIdReused;
    case grpc::StatusCode::UNAVAILABLE:
      return EditMetrics::kUnavailable;
    case grpc::StatusCode::CANCELLED:
      return EditMetrics::kCancelled;
    default:
      return EditMetrics::kOther;
  }
}

void render_counts(MetricsPage& page, const EditStats& stats) {
  page.single("edit_commits_total", "counter",
              "Group commits made durable: store transactions, each of every batch waiting when it started.",
              stats.groups_committed);
  page.single("edit_batches_committed_total", "counter", "Edit requests (batches) committed.", stats.batches_committed);
  page.single("edit_ops_committed_total", "counter", "Operations of the committed edit requests.", stats.ops_committed);
  page.single("edit_changes_seen_total", "counter",
              "Committed chunk changes this server's tail read from the store (every writer's).", stats.changes_seen);
}

// The seen-land record (edits/seen_recorder.h).
void render_seen(MetricsPage& page, const SeenRecorder::Counts& seen) {
  page.single("seen_chunks_noted_total", "counter",
              "Chunks this server sent (or whose keys it sent) noted as seen land for the first time.",
              seen.chunks_noted);
  page.single("seen_maps_written_total", "counter", "Region maps of seen land merged into the store.",
              seen.maps_written);
  page.single("seen_flush_failures_total", "counter", "Seen-land writes the store refused or did not answer.",
              seen.flush_failures);
  page.single("seen_chunks_lost_total", "counter",
              "Seen chunks not recorded: too many regions waited for a store that was down.", seen.chunks_lost);
  page.single("seen_chunks_refused_total", "counter",
              "Seen chunks not recorded: their client was past its share of new regions a second.",
              seen.chunks_refused);
  page.single("seen_chunks_stale_total", "counter",
              "Seen chunks not recorded: the store's world was upgraded past the world this server serves.",
              seen.chunks_stale);
  page.single("seen_regions_pending", "gauge", "Regions of seen land waiting for the store.", seen.pending_regions);
}

}  // namespace

EditMetrics::EditMetrics() : commit_seconds_(kCommitBuckets) {}

void EditMetrics::refused(int code, bool admitted) { ++refused_[refusal_of(code, admitted)]; }

void EditMetrics::render(MetricsPage& page, const EditService* edits) const {
  if (edits == nullptr) return;
  render_counts(page, edits->stats());
  page.header("edit_commit_seconds", "histogram",
              "Wall time of one group commit's store transaction, from its start to durable.");
  commit_seconds_.render(page, "edit_commit_seconds", "");
  page.header("edit_refused_total", "counter", "Edit calls not applied, by reason (docs/deploy.md, \"Watching\").");
  for (size_t r = 0; r < kRefusalNames.size(); ++r) {
    page.out << "chunkforge_edit_refused_total{reason=\"" << kRefusalNames[r] << "\"} " << refused_[r] << '\n';
  }
  page.single("edit_store_up", "gauge", "1 while the edit store answers, 0 while it is down (edits get UNAVAILABLE).",
              edits->health().up() ? 1 : 0);
  const TailLag lag = edits->tail_lag();
  page.single("edit_tail_lag_seconds", "gauge",
              "How long ago this server's tail of the store last found nothing more to read (about its 0.25 s poll "
              "when idle; grows while behind or while the store is down).",
              lag.seconds);
  page.single("edit_tail_lag_seqs", "gauge",
              "Store sequence numbers past the tail's position as of its last read: 0 when caught up, else an upper "
              "bound on the changes not read yet.",
              lag.seqs);
  render_seen(page, edits->seen().counts());
}

}  // namespace chunkforge::server
