// WorldService::Session's LOD tiles (docs/lod.md, "Sessions"; session_reactor.h): asked for
// within the TileView's window, shared through the chunk cache, written when no chunk event is
// waiting; a dropped tile is asked for again after a pause. A client that makes tiles itself
// gets the pristine ones as keys, many per event; one that reads unload batches, its unloads.
#include <grpcpp/alarm.h>

#include <chrono>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "rpc/session_reactor.h"
#include "session/session_events.h"

namespace chunkforge::server {

void SessionReactor::request_tiles() {
  while (!finished_ && !tile_alarm_) {
    const std::optional<TileView::Request> next = tiles_.next_request();
    if (!next) return;
    const LodKey key = next->key;
    if (local_tiles_ && service_.source().tile_pristine(key)) {
      tiles_.made(key, pristine_marker());  // the client makes it: ready at once
      continue;
    }
    ChunkSource::Fetched fetched = service_.source().fetch_tile(
        key, unwanted(next->unwanted),
        [state = std::weak_ptr<State>(state_), key](Bytes bytes) {  // a worker
          State::with_reactor(state, [&](SessionReactor& reactor) { reactor.tile_made(key, std::move(bytes)); });
        },
        client_);
    if (fetched.refused) return take_tile(key, nullptr);  // no pump here: a caller may be mid-event
    if (fetched.hit) tiles_.made(key, std::move(fetched.hit));
  }
}

void SessionReactor::tile_made(const LodKey& key, Bytes bytes) {
  if (finished_) return;
  take_tile(key, std::move(bytes));
  pump();
}

void SessionReactor::take_tile(const LodKey& key, Bytes bytes) {
  if (tiles_.made(key, std::move(bytes)) && !tile_alarm_) {
    tile_alarm_ = std::make_unique<grpc::Alarm>();
    tile_alarm_->Set(std::chrono::system_clock::now() + kTileRetry, [weak = std::weak_ptr<State>(state_)](bool ok) {
      if (!ok) return;
      State::with_reactor(weak, [](SessionReactor& reactor) {
        reactor.tile_alarm_.reset();  // safe inside its own callback
        reactor.pump();
      });
    });
  }
}

void SessionReactor::write_tile(const TileView::Event& tile) {
  if (!tile.bytes) return send(tile_unloads(tile.key));
  if (tile.bytes->empty()) return send(pristine_tiles(tile.key));
  ++tiles_sent_;
  service_.metrics().tile_sent();
  send(tile_event(*tile.bytes));
}

std::string SessionReactor::tile_unloads(const LodKey& first) {
  ++tile_unloads_sent_;
  if (!batch_unloads_) return tile_unload_event(first);
  std::vector<LodKey> keys{first};
  while (keys.size() < kMaxUnloadKeys) {
    const std::optional<LodKey> next = tiles_.next_unload();
    if (!next) break;
    keys.push_back(*next);
  }
  tile_unloads_sent_ += keys.size() - 1;
  return tile_unloads_event(keys);
}

// Pristine tiles are ready as soon as asked for, so the window refills as each is taken: one
// event carries up to kMaxPristineTiles keys. A tile with bytes or an unload met on the way is
// written next.
std::string SessionReactor::pristine_tiles(const LodKey& first) {
  const ChunkCoord origin{first.x * first.chunks(), first.z * first.chunks()};  // its offsets are 0
  std::vector<LodKey> keys{first};
  while (keys.size() < kMaxPristineTiles) {
    request_tiles();
    std::optional<TileView::Event> next = tiles_.next_event();
    if (!next) break;
    if (!next->bytes || !next->bytes->empty() || !tile_offsets_fit(origin, next->key)) {
      stashed_tile_ = std::move(next);
      break;
    }
    keys.push_back(next->key);
  }
  pristine_tiles_sent_ += keys.size();
  return pristine_tiles_event(origin, keys);
}

}  // namespace chunkforge::server
