// WorldService::Session's LOD tiles (docs/lod.md, "Sessions"; session_reactor.h): asked for
// within the TileView's window, shared through the chunk cache, written when no chunk event is
// waiting; a dropped tile is asked for again after a pause.
#include <grpcpp/alarm.h>

#include <chrono>
#include <memory>

#include "rpc/session_reactor.h"
#include "session/session_events.h"

namespace chunkforge::server {

void SessionReactor::request_tiles() {
  while (!finished_ && !tile_alarm_) {
    const std::optional<TileView::Request> next = tiles_.next_request();
    if (!next) return;
    const LodKey key = next->key;
    WorldService::Fetched fetched = service_.fetch_tile(
        key, unwanted(next->unwanted), [state = std::weak_ptr<State>(state_), key](Bytes bytes) {  // a worker
          State::with_reactor(state, [&](SessionReactor& reactor) { reactor.tile_made(key, std::move(bytes)); });
        });
    if (fetched.refused) return tile_made(key, nullptr);
    if (fetched.hit) tiles_.made(key, std::move(fetched.hit));
  }
}

void SessionReactor::tile_made(const LodKey& key, Bytes bytes) {
  if (finished_) return;
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
  pump();
}

void SessionReactor::write_tile(const TileView::Event& tile) {
  if (!tile.bytes) {
    ++tile_unloads_sent_;
    return write(tile_unload_event(tile.key));
  }
  ++tiles_sent_;
  service_.metrics().tile_sent();
  write(tile_event(*tile.bytes));
}

}  // namespace chunkforge::server
