// One session's LOD tiles: the wanted set from lod_view, what is being made, ready, held or owed
// as an unload (tile_view.h).
#include "session/tile_view.h"

#include <algorithm>

#include "chunkforge/coord.h"
#include "chunkforge/world_extent.h"

namespace chunkforge::server {
namespace {

// Unloads held back while loads are owed, at most: past it they go at once. With a view of at
// most a few hundred tiles, the client then holds at most about a thousand tiles (some 8 MB)
// however it teleports.
constexpr size_t kMaxHeldBackUnloads = 512;

// Whether the tile's chunks all lie within `radius` chunks of (cx, cz): the session sends those
// as chunks, so the tile would draw nothing.
bool inside_chunk_view(const LodKey& key, int64_t cx, int64_t cz, uint32_t radius) {
  const int64_t n = key.chunks();
  const int64_t r = radius;
  return key.x * n >= cx - r && key.x * n + n - 1 <= cx + r && key.z * n >= cz - r && key.z * n + n - 1 <= cz + r;
}

}  // namespace

TileView::TileView(int64_t chunk_size, size_t window) : chunk_size_(chunk_size), window_(window) {}

void TileView::move(double x, double z, uint32_t view_radius, uint32_t lod_radius, uint32_t finest_level) {
  const auto size = static_cast<uint32_t>(chunk_size_);
  const int64_t cx = chunk_coordinate(x, size), cz = chunk_coordinate(z, size);
  // The view depends on the player's chunk, the radii and the finest level alone: most updates
  // change none.
  if (placed_ && cx == chunk_x_ && cz == chunk_z_ && view_radius == view_radius_ && lod_radius == lod_radius_ &&
      finest_level == finest_level_) {
    return;
  }
  placed_ = true;
  chunk_x_ = cx;
  chunk_z_ = cz;
  view_radius_ = view_radius;
  lod_radius_ = lod_radius;
  finest_level_ = finest_level;
  recompute(x, z);
}

void TileView::recompute(double x, double z) {
  order_.clear();
  wanted_.clear();
  if (lod_radius_ > 0) {
    LodRings rings;
    rings.finest_level = static_cast<int>(finest_level_);  // lod_view raises it to the world's finest
    for (const LodKey& key : lod_view(chunk_size_, x, z, lod_radius_, rings)) {
      if (inside_chunk_view(key, chunk_x_, chunk_z_, view_radius_)) continue;
      wanted_.emplace(key, order_.size());
      order_.push_back(key);
    }
  }
  // A tile being made stays counted in the window until made() hears of it; its flag follows
  // the view, so that one wanted again is not dropped.
  for (auto& [key, unwanted] : making_) unwanted->store(!wanted(key));
  std::erase_if(ready_, [this](const auto& entry) { return !wanted(entry.first); });
  for (const LodKey& key : held_) {
    if (!wanted(key)) owed_unloads_.insert(key);
  }
  std::erase_if(owed_unloads_, [this](const LodKey& key) { return wanted(key); });  // back in view: kept
  loads_owed_ = static_cast<size_t>(
      std::count_if(order_.begin(), order_.end(), [this](const LodKey& key) { return held_.count(key) == 0; }));
  cursor_ = 0;
}

std::optional<TileView::Request> TileView::next_request() {
  if (making_.size() + ready_.size() >= window_) return std::nullopt;
  for (; cursor_ < order_.size(); ++cursor_) {
    const LodKey& key = order_[cursor_];
    if (held_.count(key) > 0 || making_.count(key) > 0 || ready_.count(key) > 0) continue;
    auto unwanted = std::make_shared<std::atomic<bool>>(false);
    making_.emplace(key, unwanted);
    return Request{key, cursor_++, std::move(unwanted)};
  }
  return std::nullopt;
}

bool TileView::made(const LodKey& key, Bytes bytes) {
  const auto it = making_.find(key);
  if (it == making_.end()) return false;
  making_.erase(it);
  const bool stale = stale_.erase(key) > 0;  // from before a structure change: made again
  if (!wanted(key)) return false;
  // A tile is the same whichever view asked for it: one made after the view turned away and
  // back is as good. One dropped or stale is asked for again.
  if (!bytes || stale) {
    cursor_ = std::min(cursor_, order_of(key));
    return !bytes;
  }
  ready_.emplace(key, std::move(bytes));
  return false;
}

std::optional<TileView::Event> TileView::next_event() {
  if (const std::optional<LodKey> unload = next_unload()) return Event{*unload, nullptr};
  if (ready_.empty()) return std::nullopt;
  const auto first = std::min_element(ready_.begin(), ready_.end(), [this](const auto& a, const auto& b) {
    return order_of(a.first) < order_of(b.first);
  });
  Event event{first->first, std::move(first->second)};
  ready_.erase(first);
  held_.insert(event.key);
  --loads_owed_;
  return event;
}

std::optional<LodKey> TileView::next_unload() {
  // Unloads wait for the loads owed, unless too many are owed: then they go first, so that what
  // the client holds stays bounded however often the player teleports.
  if (owed_unloads_.size() <= kMaxHeldBackUnloads && (owed_unloads_.empty() || loads_owed_ > 0)) return std::nullopt;
  const LodKey key = *owed_unloads_.begin();
  owed_unloads_.erase(owed_unloads_.begin());
  held_.erase(key);
  return key;
}

void TileView::refresh_structures(int64_t chunk_x, int64_t chunk_z) {
  for (int level = 0; level <= kLodStructureMaxLevel; ++level) {
    const int64_t n = int64_t{1} << level;
    const LodKey key{level, floor_div(chunk_x, n), floor_div(chunk_z, n)};
    if (!wanted(key)) continue;  // a later load of it is made afresh
    if (making_.count(key) > 0) stale_.insert(key);
    ready_.erase(key);
    if (held_.erase(key) > 0) ++loads_owed_;  // sent again: the new copy replaces the client's
    cursor_ = std::min(cursor_, order_of(key));
  }
}

bool TileView::settled() const {
  return making_.empty() && ready_.empty() && owed_unloads_.empty() && loads_owed_ == 0;
}

}  // namespace chunkforge::server
