// WorldService::Session for a client that generates pristine chunks itself
// (docs/client-generation.md; session_reactor.h): the server's answer, pristine chunks as
// offsets, many per event, and edited chunks as one change from the generated base, their logs
// read from the store on the generation queue.
#include <memory>
#include <string>
#include <vector>

#include "edits/chunk_log.h"
#include "log/client_log.h"
#include "rpc/session_reactor.h"
#include "session/older_land_sent.h"
#include "session/session_events.h"

namespace chunkforge::server {

void SessionReactor::answer_local(const v1::LocalGeneration& client) {
  const std::string refusal = service_.local_generation_refusal(client);
  local_ = refusal.empty();
  local_tiles_ = local_ && client.generates_tiles();
  if (local_ && !client.older_epochs().empty()) older_land_.emplace(service_.source().epochs());
  answer_ = local_answer_event(local_, refusal);
  if (local_) {
    view_.set_window(kLocalWindow);
    view_.set_unloads(false);  // a jump would otherwise owe one event per chunk of the view
  }
  if (!local_) {
    log_client(LogKind::kLocalGenerationRefused, spdlog::level::info, "session: local generation refused: {}", refusal);
  }
}

void SessionReactor::request_local(const SessionView::Generation& generation) {
  const ChunkCoord key = generation.key;
  if (!service_.source().client_generates(key, older_land_.has_value())) {
    return request_chunk(generation);  // older land, or a seam's, for a client with the newest world only
  }
  if (service_.edits() != nullptr) service_.edits()->seen().note(key, client_);  // its key is what it sees
  const uint64_t version = service_.edits() ? service_.edits()->version({key.x, key.z}) : 0;
  if (version == 0) return view_.generated(key, pristine_marker(), 0);
  edited_waiting_.emplace_back(generation, version);
}

Bytes SessionReactor::pristine_marker() {
  static const Bytes empty = std::make_shared<const std::string>();
  return empty;
}

void SessionReactor::read_edited() {
  while (!finished_ && !edited_waiting_.empty() && edited_reading_ < kWindow && view_.ready() < kWindow) {
    // Not a structured binding: clang 14 cannot capture one in the lambda below.
    const SessionView::Generation generation = edited_waiting_.front().first;
    const uint64_t version = edited_waiting_.front().second;
    edited_waiting_.pop_front();
    ++edited_reading_;
    // Sent whole with every edited chunk, not remembered: the event may yet give way to the chunk.
    std::string older_land;
    if (older_land_) older_land = older_land_bytes(*service_.source().epochs(), generation.key);
    service_.source().submit(
        static_cast<double>(view_.ring(generation.key)),
        [state = std::weak_ptr<State>(state_), generation, version, edits = service_.edits(),
         gone = unwanted(generation.unwanted), older_land = std::move(older_land)] {  // on a worker thread
          Bytes bytes;
          if (!gone()) bytes = edited_bytes(*edits, generation.key, version, older_land);
          State::with_reactor(state, [&](SessionReactor& reactor) { reactor.edited_read(generation, bytes, version); });
        });
  }
}

Bytes SessionReactor::edited_bytes(EditService& edits, ChunkCoord key, uint64_t version,
                                   const std::string& older_land) {
  v1::SessionEvent event;
  try {
    *event.mutable_edited() = edited_change({key.x, key.z}, version, edits.log({key.x, key.z}, version));
  } catch (const std::exception&) {
    return nullptr;
  }
  if (outgrows_chunk(event.edited())) return whole_chunk();
  if (!older_land.empty()) event.set_older_land(older_land);
  return std::make_shared<const std::string>(event.SerializeAsString());
}

Bytes SessionReactor::whole_chunk() {
  static const Bytes marker = std::make_shared<const std::string>("whole chunk");
  return marker;
}

void SessionReactor::edited_read(const SessionView::Generation& generation, Bytes bytes, uint64_t version) {
  --edited_reading_;
  if (bytes != whole_chunk()) return delivered(generation.key, std::move(bytes), version);
  request_chunk(generation);
  pump();
}

std::string SessionReactor::local_loads(const SessionView::Event& first) {
  ++loads_sent_;
  if (!first.bytes->empty()) {
    service_.metrics().chunk_sent();
    return *first.bytes;
  }
  std::vector<ChunkCoord> chunks{first.key};
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
  return pristine_event(view_.centre(), chunks, older_land_ ? older_land_->take(chunks) : std::string());
}

}  // namespace chunkforge::server
