// WorldService::Session: one player's view over a bidirectional stream. Reads position updates,
// writes unloads, committed edits of loaded chunks (docs/edits.md) and loads (nearest to the
// latest position first, the cached chunk bytes wrapped in a SessionEvent without re-encoding),
// and prefetches what a walking player's next step brings into view (LookAhead). The
// bookkeeping is SessionView's; this file is the gRPC side: at most kWindow generations or ready
// chunks per session, no further reads while the client owes too many unloads, and a client
// that stops reading ended by the stall watch.
// A client that generates pristine chunks itself (docs/client-generation.md) gets, once the
// server accepts, no chunk bytes and no generation: pristine chunks as offsets, many per event,
// and edited chunks as one change from the generated base, read from the store on the queue.
#include <grpcpp/alarm.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <deque>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "rpc/byte_buffer.h"
#include "rpc/rpc_call.h"
#include "rpc/stream_call.h"
#include "rpc/world_service.h"
#include "session/local_events.h"
#include "session/look_ahead.h"
#include "session/session_view.h"

namespace chunkforge::server {
namespace {

constexpr size_t kWindow = 8;  // generations under way plus chunks ready to write, per session
// The same for a session whose client generates: a pristine chunk is ready at once and costs
// two bytes, so a first view goes in a few events. Edited chunks still take kWindow at most.
constexpr size_t kLocalWindow = 256;
// A batch of loads stops growing past this many bytes: far below a client's 4 MiB message limit
// (a batch holds at most kWindow chunks anyway).
constexpr size_t kMaxBatchBytes = size_t{1} << 20;
// A session reads its next update no sooner than this after the last one. Updates are applied
// on gRPC's callback threads, which every call's handlers share (two on this machine): a client
// that sent whole-view updates as fast as it could kept them busy, and everyone else's warm
// GetChunk took over a second. A player moves far less often; past this pace HTTP/2 flow
// control holds the client's updates back.
constexpr auto kMinUpdateInterval = std::chrono::milliseconds(10);
// A session whose client generates is answered at once from the version index, so nothing else
// paces its view: a client jumping a radius-16 view (1,089 chunks) every 10 ms kept the callback
// threads busy with bookkeeping alone. Its view may turn over at most this many chunks a
// second: a radius-16 view is read every 54 ms, a radius-3 one every 10 ms, as any session.
constexpr double kMaxLocalViewChunksPerSecond = 20000;

std::string varint(uint64_t v) {
  std::string out;
  for (; v >= 0x80; v >>= 7) out += static_cast<char>((v & 0x7f) | 0x80);
  out += static_cast<char>(v);
  return out;
}

// SessionEvent{load: chunk} around the chunk's canonical bytes (field 1, length-delimited).
// Also one entry of ChunkBatch.chunks, which is field 1 too.
std::string load_event(const std::string& chunk) { return "\x0a" + varint(chunk.size()) + chunk; }

// SessionEvent{loads: ChunkBatch{chunks}} around entries made by load_event (field 4).
std::string loads_event(const std::string& chunks) { return "\x22" + varint(chunks.size()) + chunks; }

std::string unload_event(ChunkKey k) {
  v1::SessionEvent e;
  e.mutable_unload()->set_x(k.x);
  e.mutable_unload()->set_z(k.z);
  return e.SerializeAsString();
}

class SessionReactor final
    : public StreamCall<SessionReactor, grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>> {
 public:
  SessionReactor(WorldService& service, grpc::CallbackServerContext* context)
      : StreamCall(service, context, Metrics::kSession, "event"),
        view_(service.world().chunk_size(), service.chunk_limit(), kWindow),
        ahead_(service.chunk_limit()) {
    state_->reactor = this;
    service_.metrics().session_started();
    std::lock_guard lock(state_->mutex);
    if (const grpc::Status status = open(); !status.ok()) {
      finish(status);
      return;
    }
    spdlog::info("session started ({})", context->peer());
    State::watch_stalls(watch_, state_);
    listen_for_edits();
    read_more();
  }

  void OnReadDone(bool ok) override {
    std::lock_guard lock(state_->mutex);
    reading_ = false;
    if (!ok) {  // the client closed its side: end once the view is delivered
      reads_done_ = true;
      return pump();
    }
    if (const grpc::Status status = apply(bytes_of(incoming_)); !status.ok()) return finish(status);
    pump();
    read_more();
  }

  void OnWriteDone(bool ok) override {
    std::lock_guard lock(state_->mutex);
    watch_.write_done();
    if (!ok || cancelled_) return finish({grpc::StatusCode::CANCELLED, "session cancelled"});
    pump();
    read_more();
  }

  void OnCancel() override {
    std::lock_guard lock(state_->mutex);
    cancelled_ = true;  // a write in flight ends first; OnWriteDone then finishes
    if (!watch_.writing()) finish({grpc::StatusCode::CANCELLED, "session cancelled"});
  }

  void OnDone() override {
    std::unique_ptr<grpc::Alarm> alarm, read_alarm, retry;
    {
      std::lock_guard lock(state_->mutex);
      alarm = detach();
      read_alarm = std::move(read_alarm_);
      retry = std::move(retry_alarm_);
    }
    alarm.reset();
    read_alarm.reset();
    retry.reset();
    spdlog::info("session ended: {} loads ({} pristine, generated by the client), {} unloads, {} changes", loads_sent_,
                 pristine_sent_, unloads_sent_, changes_sent_);
    delete this;
  }

 private:
  friend StreamCall;

  grpc::Status open() {
    if (grpc::Status status = open_call(service_, Metrics::kSession, *context_, nullptr, nullptr); !status.ok()) {
      return status;
    }
    if (grpc::Status status = take_slot(service_.sessions(), "sessions"); !status.ok()) return status;
    player_ = service_.players().join();
    return grpc::Status::OK;
  }

  // One update: checked, its options taken if it is the first, then the view moved. Called
  // with the mutex held, as every method below.
  grpc::Status apply(const std::string& bytes) {
    v1::SessionUpdate update;
    if (!update.ParseFromString(bytes)) return {grpc::StatusCode::INVALID_ARGUMENT, "update: not a SessionUpdate"};
    const std::string error = update_error(update, service_.limits().max_radius, static_cast<double>(kWorldUnits));
    if (!error.empty()) return {grpc::StatusCode::INVALID_ARGUMENT, error};
    if (!have_options_) {
      ChunkJob probe;  // checks the options once, with the field named as the client sent it
      if (grpc::Status status = service_.make_job({}, update.options(), "options", probe); !status.ok()) {
        return status;
      }
      options_ = update.options();
      have_options_ = true;
      batch_loads_ = update.accept_load_batches();
      if (update.has_local_generation()) answer_local(update.local_generation());
    }
    view_.move(update);
    view_radius_ = update.view_radius();
    service_.players().move(player_, update.x(), update.z());  // the live map's players overlay
    catch_up_held();
    look_ahead(update.view_radius());
    return grpc::Status::OK;
  }

  // Queues, into the cache only, the chunks the player's next step brings into view if it walks
  // on as it came: after every view's own chunks, so that a walking player finds them made. At
  // most one ring's worth outstanding (8 (radius + 1), what the first view looks ahead at):
  // a player who moves faster than they are made gets no more; their view still comes first.
  void look_ahead(uint32_t radius) {
    if (!service_.limits().look_ahead || local_) return;
    const int64_t most = 8 * (int64_t{radius} + 1);
    for (const LookAhead::Chunk& chunk : ahead_.move(view_.centre(), radius)) {
      if (prefetching_->load() >= most) break;  // the rest are made if the player steps there
      ChunkJob job;
      if (!service_.make_job(coord_of(chunk.key), options_, "position", job).ok()) continue;  // clipped: cannot fail
      prefetching_->fetch_add(1);
      const WorldService::Fetched fetched =
          service_.fetch(job, Work::prefetch, chunk.ring, unwanted(chunk.unwanted),
                         [count = prefetching_](Bytes) { count->fetch_sub(1); });  // made or dropped
      if (fetched.hit || fetched.refused) prefetching_->fetch_sub(1);
      if (fetched.refused) break;  // the queue is full: views need it more
      if (!fetched.hit) service_.metrics().looked_ahead();
    }
  }

  // The `cancelled` of this session's fetches: the call is over, or the flag is raised.
  std::function<bool()> unwanted(std::shared_ptr<std::atomic<bool>> flag) const {
    return [state = std::weak_ptr<State>(state_), flag = std::move(flag)] {
      const std::shared_ptr<State> s = state.lock();
      return !s || s->over.load() || flag->load();
    };
  }

  static v1::ChunkCoord coord_of(ChunkKey key) {
    v1::ChunkCoord coord;
    coord.set_x(key.x);
    coord.set_z(key.z);
    return coord;
  }

  // Committed edits reach the session from the EditService's tail thread; it stops listening
  // once the call is over.
  void listen_for_edits() {
    if (service_.edits() == nullptr) return;
    std::weak_ptr<State> weak = state_;
    service_.edits()->listen(weak, [weak](const ChangeList& changes) {
      State::with_reactor(weak, [&](SessionReactor& reactor) { reactor.receive(changes); });
    });
  }

  void receive(const ChangeList& changes) {
    if (finished_) return;
    for (const auto& c : changes) {
      view_.changed({c->change.chunk().x(), c->change.chunk().z()}, c->change.version(), c->event, c->change.reset());
    }
    pump();
  }

  // Chunks the client holds from before (a resumed session, its own cache) at another version
  // than the current one are sent again whole.
  void catch_up_held() {
    for (const auto& [key, version] : view_.take_newly_held()) {
      const uint64_t now = service_.edits() ? service_.edits()->version({key.x, key.z}) : 0;
      if (now != version) view_.replace(key);
    }
  }

  // Reads the next update unless the client owes too many unloads: it is then not reading, and
  // HTTP/2 flow control holds its updates back until it does.
  // Reads are paced too (update_interval): a read due later waits on an alarm.
  void read_more() {
    if (finished_ || reads_done_ || reading_ || read_waiting_) return;
    if (view_.owed_unloads() > service_.limits().max_owed_unloads) return;
    const auto now = std::chrono::steady_clock::now();
    const auto interval = update_interval();
    if (now < last_read_ + interval) {
      read_waiting_ = true;
      read_alarm_ = std::make_unique<grpc::Alarm>();  // replacing a fired alarm in its callback is safe
      read_alarm_->Set(std::chrono::system_clock::now() + (last_read_ + interval - now),
                       [weak = std::weak_ptr<State>(state_)](bool ok) {
                         if (!ok) return;
                         State::with_reactor(weak, [](SessionReactor& reactor) {
                           reactor.read_waiting_ = false;
                           reactor.read_more();
                         });
                       });
      return;
    }
    last_read_ = now;
    reading_ = true;
    StartRead(&incoming_);
  }

  std::chrono::steady_clock::duration update_interval() const {
    if (!local_) return kMinUpdateInterval;
    const double side = 2.0 * view_radius_ + 1;
    const auto local = std::chrono::duration<double>(side * side / kMaxLocalViewChunksPerSecond);
    return std::max<std::chrono::steady_clock::duration>(
        kMinUpdateInterval, std::chrono::duration_cast<std::chrono::steady_clock::duration>(local));
  }

  // Starts generations (nearest first, within the window) and writes the next event.
  void pump() {
    while (!finished_) {
      const std::optional<SessionView::Generation> next = view_.next_generation();
      if (!next) break;
      request(*next);
    }
    read_edited();
    if (finished_ || watch_.writing()) return;
    if (!answer_.empty()) return write(std::exchange(answer_, {}));
    std::optional<SessionView::Event> event = std::exchange(stashed_, std::nullopt);
    if (!event) event = view_.next_event();
    if (event) {
      switch (event->kind) {
        case SessionView::Kind::load:
          write(local_ ? local_loads(*event) : loads(*event->bytes));
          break;
        case SessionView::Kind::unload:
          write(unload_event(event->key));
          ++unloads_sent_;
          break;
        case SessionView::Kind::change:
          write(*event->bytes);
          ++changes_sent_;
          break;
      }
      return;
    }
    if (reads_done_ && view_.settled()) finish(grpc::Status::OK);
  }

  // The event for a ready chunk: a `load`, or for a client that reads batches, a `loads` with
  // every other chunk ready now (nearest first) as well. A burst of chunks (a first view) then
  // goes in a few writes, not one per chunk.
  std::string loads(const std::string& first) {
    std::string chunks = load_event(first);
    count_load();
    if (!batch_loads_) return chunks;
    while (chunks.size() < kMaxBatchBytes) {
      const std::optional<SessionView::Event> next = view_.next_load();
      if (!next) break;
      chunks += load_event(*next->bytes);
      count_load();
    }
    return loads_event(chunks);
  }

  void count_load() {
    ++loads_sent_;
    service_.metrics().chunk_sent();
  }

  void request(const SessionView::Generation& generation) {
    if (local_) return request_local(generation);
    ChunkJob job;
    if (grpc::Status status = service_.make_job(coord_of(generation.key), options_, "position", job); !status.ok()) {
      return finish(status);
    }
    std::weak_ptr<State> state = state_;
    const ChunkKey key = generation.key;
    const uint64_t version = job.version;
    WorldService::Fetched fetched = service_.fetch(
        job, Work::view, view_.ring(key), unwanted(generation.unwanted),
        [state, key, version](Bytes bytes) {  // later, on a worker thread
          State::with_reactor(state, [&](auto& reactor) { reactor.delivered(key, std::move(bytes), version); });
        });
    if (fetched.refused) return finish(WorldService::queue_full());
    if (fetched.hit) view_.generated(key, std::move(fetched.hit), version);
  }

  void delivered(ChunkKey key, Bytes bytes, uint64_t version) {
    if (finished_) return;
    if (!bytes && version > 0 && service_.edits() != nullptr && !service_.edits()->health().up()) {
      return retry_later(key, version);
    }
    view_.generated(key, std::move(bytes), version);
    pump();
  }

  // An edited chunk the store could not give: it stays in flight (holding its window slot) and
  // is asked for again after the store's backoff, not at once: a busy loop otherwise.
  void retry_later(ChunkKey key, uint64_t version) {
    retries_.emplace_back(key, version);
    if (retry_alarm_) return;
    retry_alarm_ = std::make_unique<grpc::Alarm>();
    std::weak_ptr<State> weak = state_;
    retry_alarm_->Set(std::chrono::system_clock::now() + service_.edits()->health().backoff(), [weak](bool ok) {
      if (ok) State::with_reactor(weak, [](SessionReactor& reactor) { reactor.retry_now(); });
    });
  }

  void retry_now() {
    retry_alarm_.reset();  // safe inside its own callback
    if (finished_) return;
    for (const auto& [key, version] : std::exchange(retries_, {})) view_.generated(key, nullptr, version);
    pump();
  }

  // The client asked to generate pristine chunks itself: the server's answer goes first.
  void answer_local(const v1::LocalGeneration& client) {
    const std::string refusal = service_.local_generation_refusal(client);
    local_ = refusal.empty();
    answer_ = local_answer_event(local_, refusal);
    if (local_) {
      view_.set_window(kLocalWindow);
      view_.set_unloads(false);  // a jump would otherwise owe one event per chunk of the view
    }
    if (!local_) spdlog::info("session: local generation refused: {}", refusal);
  }

  // A chunk for a client that generates: a pristine one (the version index says 0) is ready at
  // once, marked by empty bytes; an edited one waits for its log (read_edited).
  void request_local(const SessionView::Generation& generation) {
    const ChunkKey key = generation.key;
    const uint64_t version = service_.edits() ? service_.edits()->version({key.x, key.z}) : 0;
    if (version == 0) return view_.generated(key, pristine_marker(), 0);
    edited_waiting_.emplace_back(generation, version);
  }

  static Bytes pristine_marker() {
    static const Bytes empty = std::make_shared<const std::string>();
    return empty;
  }

  // Reads the logs of waiting edited chunks on the generation queue at the chunk's ring
  // priority, at most kWindow at a time and only while few chunks are ready to write: the
  // encoded changes a session holds stay bounded whatever the client reads.
  void read_edited() {
    while (!finished_ && !edited_waiting_.empty() && edited_reading_ < kWindow && view_.ready() < kWindow) {
      // Not a structured binding: clang 14 cannot capture one in the lambda below.
      const SessionView::Generation generation = edited_waiting_.front().first;
      const uint64_t version = edited_waiting_.front().second;
      edited_waiting_.pop_front();
      ++edited_reading_;
      service_.queue().submit(
          static_cast<double>(view_.ring(generation.key)),
          [state = std::weak_ptr<State>(state_), key = generation.key, version, edits = service_.edits(),
           gone = unwanted(generation.unwanted)] {  // on a worker thread
            Bytes bytes;
            if (!gone()) bytes = edited_bytes(*edits, key, version);
            State::with_reactor(state, [&](SessionReactor& reactor) { reactor.edited_read(key, bytes, version); });
          });
    }
  }

  // The edited chunk's event, or null when the store could not give its log (StoreUnavailable:
  // delivered() retries it after the store's backoff).
  static Bytes edited_bytes(EditService& edits, ChunkKey key, uint64_t version) {
    try {
      return std::make_shared<const std::string>(
          edited_event({key.x, key.z}, version, edits.log({key.x, key.z}, version)));
    } catch (const std::exception&) {
      return nullptr;
    }
  }

  void edited_read(ChunkKey key, Bytes bytes, uint64_t version) {
    --edited_reading_;
    delivered(key, std::move(bytes), version);
  }

  // The events of ready chunks for a client that generates: an edited chunk's own event, or one
  // `pristine` event with every pristine chunk ready now, in load order (an edited chunk met on
  // the way is written next).
  std::string local_loads(const SessionView::Event& first) {
    ++loads_sent_;
    if (!first.bytes->empty()) {
      service_.metrics().chunk_sent();
      return *first.bytes;
    }
    std::vector<ChunkKey> chunks{first.key};
    while (chunks.size() < kLocalWindow) {
      std::optional<SessionView::Event> next = view_.next_load();
      if (!next) break;
      if (!next->bytes->empty()) {
        stashed_ = std::move(next);
        break;
      }
      chunks.push_back(next->key);
      ++loads_sent_;
    }
    pristine_sent_ += chunks.size();
    return pristine_event(view_.centre(), chunks);
  }

  void write(std::string event) {
    watch_.write_started();
    outgoing_ = buffer_of(event);
    StartWrite(&outgoing_);
  }

  // What the session gives back as it finishes, besides its slot.
  void released() {
    service_.metrics().session_ended();
    if (player_ != 0) service_.players().leave(player_);
  }

  SessionView view_;
  LookAhead ahead_;
  grpc::ByteBuffer incoming_, outgoing_;
  v1::ChunkOptions options_;
  bool have_options_ = false, batch_loads_ = false, reading_ = false, reads_done_ = false;
  bool cancelled_ = false, read_waiting_ = false;
  // Local generation (answer_local): accepted; the answer still to write; edited chunks waiting
  // for their log and logs being read; a ready edited chunk met while batching pristine ones.
  bool local_ = false;
  uint32_t view_radius_ = 0;  // the last update's (update_interval)
  std::string answer_;
  std::deque<std::pair<SessionView::Generation, uint64_t>> edited_waiting_;
  size_t edited_reading_ = 0;
  std::optional<SessionView::Event> stashed_;
  std::chrono::steady_clock::time_point last_read_;  // when the last read started
  std::unique_ptr<grpc::Alarm> read_alarm_;          // a paced read waiting (read_more)
  uint64_t loads_sent_ = 0, unloads_sent_ = 0, changes_sent_ = 0, pristine_sent_ = 0;
  uint64_t player_ = 0;  // the session's number in service_.players(); 0 before it has one
  // Look-ahead prefetches queued or being made; their waiters count it down from worker threads.
  std::shared_ptr<std::atomic<int64_t>> prefetching_ = std::make_shared<std::atomic<int64_t>>(0);
  std::vector<std::pair<ChunkKey, uint64_t>> retries_;  // edited chunks to ask for again (retry_later)
  std::unique_ptr<grpc::Alarm> retry_alarm_;
};

}  // namespace

grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>* WorldService::Session(
    grpc::CallbackServerContext* context) {
  return new SessionReactor(*this, context);
}

}  // namespace chunkforge::server
