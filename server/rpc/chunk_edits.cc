// WorldService::GetChunkEdits: for a client that generates pristine chunks itself
// (docs/client-generation.md, "Single chunks and regions"), which of the asked chunks players
// changed, each as one change from its generated base. Nothing is generated: the version index
// says which chunks were edited, on the gRPC thread (a lookup each); their logs are read from
// the store on the generation queue, as a view's chunks are, never on a gRPC thread.
//
// Bounded: at most two regions' squares of chunks asked (the listed ones and a region), at most
// kMaxAnswerBytes of changes answered (the rest named in not_sent, unread) and about
// kMaxOlderLandMaps maps of older land, one queued job per call at a time under the queue's
// bound, each reading at most kLogsPerJob logs, abandoned once its client leaves.
#include <atomic>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "edits/chunk_log.h"
#include "edits/store_health.h"
#include "log/client_log.h"
#include "rpc/unary_call.h"
#include "rpc/world_service.h"
#include "session/older_land_sent.h"
#include "session/session_events.h"

namespace chunkforge::server {
namespace {

// As large as the largest chunk GetChunk sends (a terrain grid of 65536 samples): what one answer
// holds in memory until the client has read it.
constexpr size_t kMaxAnswerBytes = size_t{512} << 10;
// Logs one queued job reads; the rest are read by another, queued behind the jobs queued
// meanwhile, so that a call over many edited chunks never holds a worker long (a session reads
// at most 8 at once too).
constexpr size_t kLogsPerJob = 8;

// The older land the answer carries (ChunkEdits.older_land): about this many (region, epoch)
// maps at most, 52 bytes each (one chunk's land may pass it by a few). Once reached, the chunks
// left that need more are named in not_sent instead.
constexpr size_t kMaxOlderLandMaps = 4096;

// The older land of one answer, gathered region by region: each asked chunk's region is looked
// at once, whatever the number of chunks asked in it.
class OlderLandAnswer {
 public:
  explicit OlderLandAnswer(const Epochs& epochs) : epochs_(epochs) {}

  // Adds the land `coord` needs; false, adding nothing, once the answer holds kMaxOlderLandMaps
  // maps and `coord` needs more.
  bool add(ChunkCoord coord) {
    const RegionKey region{coord.x >> SeenLand::kRegionShift, coord.z >> SeenLand::kRegionShift};
    if (const auto it = decided_.find(region); it != decided_.end()) return it->second;
    std::vector<std::pair<RegionKey, SeenLand>> needed;
    for_each_region_near(epochs_, region, [&](RegionKey k) {
      if (added_.contains(k)) return;
      SeenLand maps = older_maps(epochs_, k);
      if (maps.maps() > 0) needed.emplace_back(k, std::move(maps));
    });
    const bool fits = needed.empty() || land_.maps() < kMaxOlderLandMaps;
    for (auto& [k, maps] : needed) {
      if (!fits) break;
      land_.merge(maps);
      added_.insert(k);
    }
    decided_.emplace(region, fits);
    return fits;
  }
  std::string bytes() const { return land_.maps() == 0 ? std::string() : land_.encode(); }

 private:
  const Epochs& epochs_;
  std::map<RegionKey, bool> decided_;  // an asked chunk's region: whether its land is in
  std::set<RegionKey> added_;
  SeenLand land_;
};

// One call: the client's leaving raises the call's cancellation flag, which the reading job
// watches. Every path ends through answer_edits() or fail(), exactly once.
class ChunkEditsReactor final : public UnaryCall {
 public:
  ChunkEditsReactor(WorldService& service, grpc::CallbackServerContext* context, grpc::ByteBuffer* response)
      : UnaryCall(service, context, response, Metrics::kGetChunkEdits) {}

  // Checks the request and answers, or queues the reading of the edited chunks' logs.
  void start(const grpc::ByteBuffer* raw);

 private:
  void queue_reading();  // read_logs as a view job on the generation queue
  void read_logs();
  void answer_without(size_t from);  // edited_ from `from` on named in not_sent, unread
  void answer_edits();

  v1::GetChunkEditsRequest request_;
  std::vector<std::pair<ChunkCoord, uint64_t>> edited_;  // asked, edited, in the order asked
  size_t next_ = 0;                                      // edited_ read up to here
  size_t bytes_ = 0;                                     // of the changes in answer_
  v1::ChunkEdits answer_;
};

}  // namespace

grpc::Status WorldService::check_chunk_edits(const v1::GetChunkEditsRequest& request,
                                             std::vector<ChunkCoord>& asked) const {
  const uint64_t side = 2 * uint64_t{limits_.max_radius} + 1;
  if (static_cast<uint64_t>(request.coords_size()) > side * side) {
    return {grpc::StatusCode::INVALID_ARGUMENT,
            "coords: at most " + std::to_string(side * side) + " chunks (a region of radius " +
                std::to_string(limits_.max_radius) + ", the server's --max-radius) (got " +
                std::to_string(request.coords_size()) + ")"};
  }
  ChunkJob job;
  for (int k = 0; k < request.coords_size(); ++k) {
    const std::string field = "coords[" + std::to_string(k) + "]";
    if (grpc::Status status = make_job(request.coords(k), {}, field, job); !status.ok()) return status;
    asked.push_back(job.coord);
  }
  if (request.has_centre()) {
    v1::StreamRegionRequest region;
    *region.mutable_centre() = request.centre();
    region.set_radius(request.radius());
    Region checked;
    if (grpc::Status status = check_region(region, checked); !status.ok()) return status;
    asked.insert(asked.end(), checked.coords.begin(), checked.coords.end());
  }
  if (const std::string refusal = local_generation_refusal(request.local_generation()); !refusal.empty()) {
    return {grpc::StatusCode::FAILED_PRECONDITION, "local generation: " + refusal};
  }
  return grpc::Status::OK;
}

grpc::ServerUnaryReactor* WorldService::GetChunkEdits(grpc::CallbackServerContext* context, const grpc::ByteBuffer* raw,
                                                      grpc::ByteBuffer* response) {
  auto* reactor = new ChunkEditsReactor(*this, context, response);
  reactor->start(raw);
  return reactor;
}

namespace {

void ChunkEditsReactor::start(const grpc::ByteBuffer* raw) {
  grpc::Status status = open(raw, &request_);
  std::vector<ChunkCoord> asked;
  if (status.ok()) status = service().check_chunk_edits(request_, asked);
  if (!status.ok()) return fail(status);
  if (EditService* edits = service().edits()) {
    const bool holds_epochs = !request_.local_generation().older_epochs().empty();
    std::optional<OlderLandAnswer> older_land;
    if (holds_epochs) older_land.emplace(*service().source().epochs());
    std::set<std::pair<int64_t, int64_t>> once;
    for (const ChunkCoord& coord : asked) {
      if (!once.emplace(coord.x, coord.z).second) continue;
      const bool makes =
          service().source().client_generates(coord, holds_epochs) && (!older_land || older_land->add(coord));
      if (!makes) {  // older land or a seam's: GetChunk sends it whole
        v1::ChunkCoord& whole = *answer_.add_not_sent();
        whole.set_x(coord.x);
        whole.set_z(coord.z);
        continue;
      }
      edits->seen().note(coord, client_of(context()));  // told to make it: what the client sees
      if (const uint64_t version = edits->version(coord); version > 0) edited_.emplace_back(coord, version);
    }
    if (older_land) answer_.set_older_land(older_land->bytes());
  }
  if (edited_.empty()) return answer_edits();
  // The answer grows over many jobs: its most is held from the start, as if written.
  if (grpc::Status room = reserve(kMaxAnswerBytes); !room.ok()) return fail(room);
  queue_reading();
}

void ChunkEditsReactor::queue_reading() {
  QueuedJob job{Work::view, 0, [this] { read_logs(); },
                [this]() -> std::function<void()> {
                  if (!cancelled()) return nullptr;
                  return [this] { fail({grpc::StatusCode::CANCELLED, "cancelled"}); };
                },
                client_of(context())};
  // The job may run (and end the call) before offer returns: nothing touches `this` after it.
  if (!service().source().offer(std::move(job))) fail(WorldService::queue_full());
}

// On a generation worker: up to kLogsPerJob logs, then the rest in a job of its own. A change
// larger than its chunk is named in not_sent (the client asks GetChunk); once a change does not
// fit the answer, it and every later edited chunk are named there too, unread.
void ChunkEditsReactor::read_logs() {
  for (size_t read = 0; next_ < edited_.size(); ++next_, ++read) {
    if (read == kLogsPerJob) return queue_reading();
    if (cancelled()) return fail({grpc::StatusCode::CANCELLED, "cancelled"});
    const auto& [coord, version] = edited_[next_];
    v1::ChunkChange change;
    try {
      change = edited_change(coord, version, service().edits()->log(coord, version));
    } catch (const StoreUnavailable&) {  // logged once, by the store's health
      return fail(service().edits()->health().unavailable());
    } catch (const std::exception& e) {
      log_client(LogKind::kEditLogReadFailed, spdlog::level::err,
                 "GetChunkEdits: reading the log of chunk ({}, {}) failed: {}", coord.x, coord.z, e.what());
      return fail({grpc::StatusCode::INTERNAL, "reading the edits failed; see the server log"});
    }
    if (outgrows_chunk(change)) {  // the chunk is smaller: the client asks GetChunk for it
      *answer_.add_not_sent() = change.chunk();
      continue;
    }
    bytes_ += change.ByteSizeLong();
    if (bytes_ > kMaxAnswerBytes) return answer_without(next_);
    *answer_.add_edited() = std::move(change);
  }
  answer_edits();
}

void ChunkEditsReactor::answer_without(size_t from) {
  for (size_t k = from; k < edited_.size(); ++k) {
    v1::ChunkCoord& skipped = *answer_.add_not_sent();
    skipped.set_x(edited_[k].first.x);
    skipped.set_z(edited_[k].first.z);
  }
  answer_edits();
}

void ChunkEditsReactor::answer_edits() { answer(answer_); }

}  // namespace
}  // namespace chunkforge::server
