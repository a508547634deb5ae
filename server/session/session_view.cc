// SessionView: the bookkeeping of one player's view (see session_view.h).
#include "session/session_view.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <tuple>
#include <vector>

#include "chunkforge/lod.h"
#include "chunkforge/world_extent.h"

namespace chunkforge::server {

std::string update_error(const v1::SessionUpdate& update, uint32_t max_radius, uint32_t max_lod_radius,
                         double world_units) {
  if (update.view_radius() > max_radius) {
    return "view_radius: must be in [0, " + std::to_string(max_radius) + "] (got " +
           std::to_string(update.view_radius()) + ")";
  }
  if (update.lod_radius() > max_lod_radius) {
    return "lod_radius: must be in [0, " + std::to_string(max_lod_radius) + "] (got " +
           std::to_string(update.lod_radius()) + ")";
  }
  if (update.lod_finest_level() > static_cast<uint32_t>(kLodMaxLevel)) {
    return "lod_finest_level: must be in [0, " + std::to_string(kLodMaxLevel) + "] (got " +
           std::to_string(update.lod_finest_level()) + ")";
  }
  const int64_t side = 2 * int64_t{max_radius} + 1;
  if (update.held_size() > side * side) {
    return "held: at most " + std::to_string(side * side) + " chunks (got " + std::to_string(update.held_size()) + ")";
  }
  if (update.held_versions_size() > update.held_size()) {
    return "held_versions: at most one per held chunk (" + std::to_string(update.held_size()) + "; got " +
           std::to_string(update.held_versions_size()) + ")";
  }
  if (!(std::abs(update.x()) <= world_units) || !(std::abs(update.z()) <= world_units)) {
    return "x, z: must be within the supported world, |value| <= 2^40 units";
  }
  return "";
}

SessionView::SessionView(int64_t chunk_size, int64_t chunk_limit, size_t window)
    : chunk_size_(chunk_size), chunk_limit_(chunk_limit), window_(window) {}

int64_t SessionView::distance2(ChunkCoord key) const {
  const int64_t dx = key.x - centre_.x, dz = key.z - centre_.z;
  return dx * dx + dz * dz;
}

int64_t SessionView::ring(ChunkCoord key) const {
  return std::max(std::abs(key.x - centre_.x), std::abs(key.z - centre_.z));
}

void SessionView::move(double x, double z, uint32_t radius, std::span<const ChunkCoord> held,
                       std::span<const uint64_t> held_versions) {
  const auto chunk_size = static_cast<uint32_t>(chunk_size_);
  centre_ = {chunk_coordinate(x, chunk_size), chunk_coordinate(z, chunk_size)};
  // Clipped, not refused: a player standing at the edge of the world sees what exists.
  box_ = ChunkBox::around(centre_, radius, chunk_limit_);

  // What the client holds counts as loaded, at the version it says, and it is owed no unload
  // for it.
  for (size_t i = 0; i < held.size(); ++i) {
    const ChunkCoord k = held[i];
    if (!in_view(k)) continue;
    const uint64_t version = i < held_versions.size() ? held_versions[i] : 0;
    const auto [it, fresh] = loaded_.try_emplace(k, version);
    if (fresh) newly_held_.emplace_back(k, version);
    owed_unloads_.erase(k);
  }
  for (auto it = loaded_.begin(); it != loaded_.end();) {
    if (in_view(it->first)) {
      ++it;
    } else {
      if (send_unloads_) owed_unloads_.insert(it->first);
      it = loaded_.erase(it);
    }
  }
  const auto unneeded = [&](ChunkCoord k) { return !in_view(k) || loaded_.count(k) > 0; };
  std::erase_if(wanted_, unneeded);
  std::erase_if(ready_, [&](const auto& entry) { return unneeded(entry.first); });
  std::erase_if(changes_, [&](const auto& change) { return !in_view(change.first); });
  std::erase_if(newly_held_, [&](const auto& entry) { return !in_view(entry.first); });
  std::erase_if(newest_, [&](const auto& entry) { return unneeded(entry.first); });
  // Generations under way stay counted until they return, so the window holds; a chunk back in
  // view is wanted again.
  for (auto& [k, unwanted] : in_flight_) unwanted->store(unneeded(k));
  for (int64_t cz = box_.low.z; cz <= box_.high.z; ++cz) {
    for (int64_t cx = box_.low.x; cx <= box_.high.x; ++cx) {
      const ChunkCoord k{cx, cz};
      if (!loaded_.count(k) && !in_flight_.count(k) && !ready_.count(k)) wanted_.insert(k);
    }
  }
  rank_all();
}

SessionView::Ranked SessionView::rank(ChunkCoord key) const { return {distance2(key), key.z, key.x}; }

// Both orders afresh around the new centre: what the last one held is stale (another centre,
// keys gone). Linear: make_heap.
void SessionView::rank_all() {
  std::vector<Ranked> wanted, ready;
  wanted.reserve(wanted_.size());
  ready.reserve(ready_.size());
  for (const ChunkCoord k : wanted_) wanted.push_back(rank(k));
  for (const auto& entry : ready_) ready.push_back(rank(entry.first));
  wanted_order_ = Order(std::greater<>(), std::move(wanted));
  ready_order_ = Order(std::greater<>(), std::move(ready));
}

void SessionView::want(ChunkCoord key) {
  if (wanted_.insert(key).second) wanted_order_.push(rank(key));
}

// The nearest key of `order` still in `set` (entries whose key left it are dropped on the way).
template <typename Set>
std::optional<ChunkCoord> SessionView::pop_nearest(Order& order, const Set& set) {
  while (!order.empty()) {
    const auto [distance, z, x] = order.top();
    order.pop();
    if (set.count(ChunkCoord{x, z}) > 0) return ChunkCoord{x, z};
  }
  return std::nullopt;
}

void SessionView::move(const v1::SessionUpdate& update) {
  std::vector<ChunkCoord> held;
  held.reserve(static_cast<size_t>(update.held_size()));
  for (const v1::ChunkCoord& c : update.held()) held.push_back({c.x(), c.z()});
  const std::vector<uint64_t> versions(update.held_versions().begin(), update.held_versions().end());
  move(update.x(), update.z(), update.view_radius(), held, versions);
}

std::optional<SessionView::Generation> SessionView::next_generation() {
  if (wanted_.empty() || in_flight_.size() + ready_.size() >= window_) return std::nullopt;
  const std::optional<ChunkCoord> nearest = pop_nearest(wanted_order_, wanted_);
  if (!nearest) return std::nullopt;  // cannot be: every wanted key is ranked
  Generation generation{*nearest, std::make_shared<std::atomic<bool>>(false)};
  wanted_.erase(*nearest);
  in_flight_.emplace(generation.key, generation.unwanted);
  return generation;
}

void SessionView::generated(ChunkCoord key, Bytes bytes, uint64_t version) {
  if (in_flight_.erase(key) == 0 || !in_view(key) || loaded_.count(key)) return;
  const auto newest = newest_.find(key);
  if (!bytes || (newest != newest_.end() && newest->second > version)) {
    // Dropped by the queue while it was unwanted, or older than a change heard of meanwhile:
    // wanted again.
    want(key);
    return;
  }
  if (!ready_.count(key)) ready_order_.push(rank(key));
  ready_[key] = {std::move(bytes), version};
}

void SessionView::changed(ChunkCoord key, uint64_t version, Bytes event, bool reset) {
  if (!in_view(key)) return;
  if (const auto it = loaded_.find(key); it != loaded_.end()) {
    if (version <= it->second) return;
    if (!reset && event && version == it->second + 1) {
      changes_.emplace_back(key, std::move(event));
      it->second = version;
      if (changes_.size() > kMaxQueuedChanges) reload_queued_changes();
      return;
    }
    replace(key);
  }
  if (!in_flight_.count(key) && !wanted_.count(key) && !ready_.count(key)) return;
  uint64_t& newest = newest_[key];
  newest = std::max(newest, version);
  if (const auto r = ready_.find(key); r != ready_.end() && r->second.version < version) {
    ready_.erase(r);
    want(key);
  }
}

std::optional<uint64_t> SessionView::loaded_version(ChunkCoord key) const {
  const auto it = loaded_.find(key);
  if (it == loaded_.end()) return std::nullopt;
  return it->second;
}

// The client keeps its copy until the new load replaces it: no unload.
void SessionView::replace(ChunkCoord key) {
  if (loaded_.erase(key) == 0) return;
  want(key);
}

// A client that does not read its changes gets whole chunks instead, once each: what it is
// owed stays bounded by its view.
void SessionView::reload_queued_changes() {
  for (const auto& [key, event] : changes_) {
    replace(key);
  }
  changes_.clear();
}

std::optional<SessionView::Event> SessionView::next_event() {
  if (const std::optional<ChunkCoord> unload = next_unload()) return Event{Kind::unload, *unload, nullptr};
  if (!changes_.empty()) {
    Event event{Kind::change, changes_.front().first, std::move(changes_.front().second)};
    changes_.pop_front();
    return event;
  }
  return next_load();
}

std::optional<ChunkCoord> SessionView::next_unload() {
  if (owed_unloads_.empty()) return std::nullopt;
  const ChunkCoord k = *owed_unloads_.begin();
  owed_unloads_.erase(owed_unloads_.begin());
  return k;
}

std::optional<SessionView::Event> SessionView::next_load() {
  if (ready_.empty() || !owed_unloads_.empty() || !changes_.empty()) return std::nullopt;
  const std::optional<ChunkCoord> key = pop_nearest(ready_order_, ready_);
  if (!key) return std::nullopt;  // cannot be: every ready key is ranked
  const auto nearest = ready_.find(*key);
  Event event{Kind::load, nearest->first, std::move(nearest->second.bytes)};
  loaded_[event.key] = nearest->second.version;
  newest_.erase(event.key);
  ready_.erase(nearest);
  return event;
}

bool SessionView::settled() const {
  return wanted_.empty() && in_flight_.empty() && ready_.empty() && owed_unloads_.empty() && changes_.empty();
}

}  // namespace chunkforge::server
