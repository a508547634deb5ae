// WorldService::StreamRegion: the square of chunks around a centre, nearest first. Generation
// runs ahead of the writes by a bounded window; writes go out one at a time in nearest-first
// order, each charged to the client's connection (HTTP/2 flow control and the output budget pace
// them); a client that stops reading is ended by the budget's stall timeout.
#include <algorithm>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <tuple>
#include <vector>

#include "rpc/rpc_call.h"
#include "rpc/stream_call.h"
#include "rpc/world_service.h"

namespace chunkforge::server {
namespace {

class RegionReactor final : public StreamCall<RegionReactor, grpc::ServerWriteReactor<grpc::ByteBuffer>> {
 public:
  static constexpr size_t kAhead = 16;  // generations requested beyond the next write

  RegionReactor(WorldService& service, grpc::CallbackServerContext* context, const grpc::ByteBuffer* raw)
      : StreamCall(service, context, Metrics::kStreamRegion, "chunk") {
    state_->reactor = this;
    service_.metrics().stream_started();
    std::lock_guard lock(state_->mutex);
    if (const grpc::Status status = open(raw); !status.ok()) {
      finish(status);
      return;
    }
    request_more();
    write_next();
  }

  void OnWriteDone(bool ok) override {
    std::lock_guard lock(state_->mutex);
    written();
    if (!ok || context_->IsCancelled()) return finish({grpc::StatusCode::CANCELLED, "stream cancelled"});
    service_.metrics().chunk_sent();
    if (finished_) return;  // ended while this was written: released() let go of the region
    ready_[next_].reset();
    ++next_;
    request_more();
    write_next();
  }

  void OnCancel() override {
    client_left();
    std::lock_guard lock(state_->mutex);
    if (!in_flight()) finish({grpc::StatusCode::CANCELLED, "stream cancelled"});
  }

  void OnDone() override {
    {
      std::lock_guard lock(state_->mutex);
      detach();
    }
    done_finishing();
    delete this;
  }

 private:
  friend StreamCall;

  // The request checked and turned into jobs, nearest first; a slot taken.
  grpc::Status open(const grpc::ByteBuffer* raw) {
    v1::StreamRegionRequest request;
    if (grpc::Status status = open_call(service_, Metrics::kStreamRegion, *context_, raw, &request); !status.ok()) {
      return status;
    }
    if (grpc::Status status = service_.check_region(request, region_); !status.ok()) return status;
    if (grpc::Status status = take_slot(service_.streams(), "region streams"); !status.ok()) return status;
    ready_.resize(region_.coords.size());
    return grpc::Status::OK;
  }

  // A chunk's ring around the centre (the first chunk): its generation priority, as in a
  // session, so that a stream's inner rings and a player's go before either's outer ones.
  int64_t ring(ChunkCoord c) const {
    const ChunkCoord centre = region_.coords.front();
    return std::max(std::abs(c.x - centre.x), std::abs(c.z - centre.z));
  }

  // Called with the state's mutex held (as every method below). Generations run ahead of the
  // writes only while the connection has room: a client that reads nothing holds a few chunks.
  void request_more() {
    while (requested_ < ready_.size() && requested_ < next_ + kAhead && !finished_ && room_for_more()) {
      const size_t index = requested_++;
      const ChunkJob job = service_.source().job(region_.coords[index], region_.options);
      std::weak_ptr<State> state = state_;
      // The context dies with the call, which may end before this waiter is dropped: the
      // waiter asks the shared state instead (an atomic, no lock: the cache calls it under its
      // own lock).
      ChunkSource::Fetched fetched = service_.source().fetch(
          job, Work::view, ring(job.coord),
          [state] {
            const std::shared_ptr<State> s = state.lock();
            return !s || s->over.load();
          },
          [state, index, job](Bytes bytes) {  // later, on a worker thread
            State::with_reactor(state, [&](auto& reactor) { reactor.delivered(job, index, std::move(bytes)); });
          },
          client_);
      if (fetched.refused) return finish(WorldService::queue_full());
      if (fetched.hit) ready_[index] = std::move(fetched.hit);
    }
  }

  void delivered(const ChunkJob& job, size_t index, Bytes bytes) {
    if (finished_) return;
    if (!bytes) return finish(service_.dropped_status(job, "generation dropped"));
    ready_[index] = std::move(bytes);
    write_next();
  }

  void write_next() {
    if (finished_ || writing()) return;
    if (next_ == ready_.size()) return finish(grpc::Status::OK);
    if (!ready_[next_]) return;
    write(ready_[next_]);
  }

  void resumed() {
    request_more();
    write_next();
  }
  // A finished stream may wait long for its end (its status queued behind the data its client
  // has not read): it keeps nothing meanwhile.
  void released() {
    service_.metrics().stream_ended();
    region_ = {};
    ready_ = {};
  }

  WorldService::Region region_;
  std::vector<Bytes> ready_;  // by the index of the chunk in region_.coords
  size_t requested_ = 0, next_ = 0;
};

}  // namespace

grpc::ServerWriteReactor<grpc::ByteBuffer>* WorldService::StreamRegion(grpc::CallbackServerContext* context,
                                                                       const grpc::ByteBuffer* request) {
  return new RegionReactor(*this, context, request);
}

}  // namespace chunkforge::server
