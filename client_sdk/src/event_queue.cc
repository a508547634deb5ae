// File: client_sdk/src/event_queue.cc
//
// EventQueue (event_queue.h) and what a ViewEvent weighs.
#include "event_queue.h"

#include <algorithm>

namespace chunkforge::client {

size_t ViewEvent::queued_bytes() const {
  const size_t ids = change.removed_objects.size() + change.placed_objects.size() + change.states_changed.size() +
                     change.removed_structures.size();
  return sizeof(ViewEvent) + (chunk ? chunk->encoded_bytes() : 0) + (tile ? tile->encoded_bytes() : 0) +
         ids * sizeof(uint64_t) + error.message.size();
}

void EventQueue::push(ViewEvent event) {
  std::lock_guard lock(mutex_);
  bytes_ += event.queued_bytes();
  events_.push_back(std::move(event));
}

size_t EventQueue::poll(std::vector<ViewEvent>& out, size_t max_events) {
  size_t taken = 0;
  {
    std::lock_guard lock(mutex_);
    taken = std::min(max_events, events_.size());
    for (size_t k = 0; k < taken; ++k) {
      bytes_ -= events_.front().queued_bytes();
      out.push_back(std::move(events_.front()));
      events_.pop_front();
    }
  }
  if (taken > 0 && on_room_) on_room_();
  return taken;
}

bool EventQueue::has_room() const {
  std::lock_guard lock(mutex_);
  return bytes_ < budget_;
}

size_t EventQueue::bytes() const {
  std::lock_guard lock(mutex_);
  return bytes_;
}

size_t EventQueue::size() const {
  std::lock_guard lock(mutex_);
  return events_.size();
}

namespace {
ViewEvent event_of(ViewEvent::Kind kind, ChunkCoord coord) {
  ViewEvent event;
  event.kind = kind;
  event.coord = coord;
  return event;
}
}  // namespace

ViewCallbacks queueing_callbacks(EventQueue& queue) {
  ViewCallbacks callbacks;
  callbacks.on_load = [&queue](const Chunk& chunk) {
    ViewEvent event = event_of(ViewEvent::Kind::load, chunk.coord());
    event.chunk = chunk;
    queue.push(std::move(event));
  };
  callbacks.on_unload = [&queue](ChunkCoord coord) { queue.push(event_of(ViewEvent::Kind::unload, coord)); };
  callbacks.on_change = [&queue](const Chunk& chunk, const ChunkChangeInfo& info) {
    ViewEvent event = event_of(ViewEvent::Kind::change, chunk.coord());
    event.chunk = chunk;
    event.change = info;
    queue.push(std::move(event));
  };
  callbacks.on_error = [&queue](const Status& status) {
    ViewEvent event = event_of(ViewEvent::Kind::error, {});
    event.error = status;
    queue.push(std::move(event));
  };
  callbacks.on_tile = [&queue](const LodTile& tile) {
    ViewEvent event = event_of(ViewEvent::Kind::tile, {});
    event.tile = tile;
    event.tile_key = tile.key();
    queue.push(std::move(event));
  };
  callbacks.on_tile_unload = [&queue](LodKey key) {
    ViewEvent event = event_of(ViewEvent::Kind::tile_unload, {});
    event.tile_key = key;
    queue.push(std::move(event));
  };
  return callbacks;
}

}  // namespace chunkforge::client
