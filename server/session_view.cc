// SessionView: the bookkeeping of one player's view (see session_view.h).
#include "session_view.h"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <vector>

namespace chunkforge::server {

std::string update_error(const v1::SessionUpdate& update, uint32_t max_radius, double world_units) {
  if (update.view_radius() > max_radius) {
    return "view_radius: must be in [0, " + std::to_string(max_radius) + "] (got " +
           std::to_string(update.view_radius()) + ")";
  }
  const int64_t side = 2 * int64_t{max_radius} + 1;
  if (update.held_size() > side * side) {
    return "held: at most " + std::to_string(side * side) + " chunks (got " + std::to_string(update.held_size()) + ")";
  }
  if (!(std::abs(update.x()) <= world_units) || !(std::abs(update.z()) <= world_units)) {
    return "x, z: must be within the supported world, |value| <= 2^40 units";
  }
  return "";
}

SessionView::SessionView(int64_t chunk_size, int64_t chunk_limit, size_t window)
    : chunk_size_(chunk_size), chunk_limit_(chunk_limit), window_(window), low_{1, 1}, high_{0, 0} {}

bool SessionView::in_view(ChunkKey key) const {
  return key.x >= low_.x && key.x <= high_.x && key.z >= low_.z && key.z <= high_.z;
}

int64_t SessionView::distance2(ChunkKey key) const {
  const int64_t dx = key.x - centre_.x, dz = key.z - centre_.z;
  return dx * dx + dz * dz;
}

// Nearest first; ties by z, then x, so that the order never depends on container order.
bool SessionView::nearer(ChunkKey a, ChunkKey b) const {
  return std::tuple(distance2(a), a.z, a.x) < std::tuple(distance2(b), b.z, b.x);
}

void SessionView::move(double x, double z, uint32_t radius, std::span<const ChunkKey> held) {
  const auto chunk_of = [&](double v) {
    const auto c = static_cast<int64_t>(std::floor(v / static_cast<double>(chunk_size_)));
    return std::clamp(c, -chunk_limit_, chunk_limit_);
  };
  centre_ = {chunk_of(x), chunk_of(z)};
  // Clipped, not refused: a player standing at the edge of the world sees what exists.
  const int64_t r = radius;
  low_ = {std::max(centre_.x - r, -chunk_limit_), std::max(centre_.z - r, -chunk_limit_)};
  high_ = {std::min(centre_.x + r, chunk_limit_), std::min(centre_.z + r, chunk_limit_)};

  // What the client holds counts as loaded, and it is owed no unload for it.
  for (const ChunkKey& k : held) {
    if (!in_view(k)) continue;
    loaded_.insert(k);
    owed_unloads_.erase(k);
  }
  for (auto it = loaded_.begin(); it != loaded_.end();) {
    if (in_view(*it)) {
      ++it;
    } else {
      owed_unloads_.insert(*it);
      it = loaded_.erase(it);
    }
  }
  const auto unneeded = [&](ChunkKey k) { return !in_view(k) || loaded_.count(k) > 0; };
  std::erase_if(wanted_, unneeded);
  std::erase_if(ready_, [&](const auto& entry) { return unneeded(entry.first); });
  // Generations under way stay counted until they return, so the window holds; a chunk back in
  // view is wanted again.
  for (auto& [k, unwanted] : in_flight_) unwanted->store(unneeded(k));
  for (int64_t cz = low_.z; cz <= high_.z; ++cz) {
    for (int64_t cx = low_.x; cx <= high_.x; ++cx) {
      const ChunkKey k{cx, cz};
      if (!loaded_.count(k) && !in_flight_.count(k) && !ready_.count(k)) wanted_.insert(k);
    }
  }
}

void SessionView::move(const v1::SessionUpdate& update) {
  std::vector<ChunkKey> held;
  held.reserve(static_cast<size_t>(update.held_size()));
  for (const v1::ChunkCoord& c : update.held()) held.push_back({c.x(), c.z()});
  move(update.x(), update.z(), update.view_radius(), held);
}

std::optional<SessionView::Generation> SessionView::next_generation() {
  if (wanted_.empty() || in_flight_.size() + ready_.size() >= window_) return std::nullopt;
  const auto nearest = std::min_element(wanted_.begin(), wanted_.end(),
                                        [&](ChunkKey a, ChunkKey b) { return nearer(a, b); });
  Generation generation{*nearest, std::make_shared<std::atomic<bool>>(false)};
  wanted_.erase(nearest);
  in_flight_.emplace(generation.key, generation.unwanted);
  return generation;
}

void SessionView::generated(ChunkKey key, Bytes bytes) {
  if (in_flight_.erase(key) == 0 || !in_view(key) || loaded_.count(key)) return;
  if (bytes) {
    ready_[key] = std::move(bytes);
  } else {
    wanted_.insert(key);  // dropped by the queue while it was unwanted; wanted again now
  }
}

std::optional<SessionView::Event> SessionView::next_event() {
  if (!owed_unloads_.empty()) {
    const ChunkKey k = *owed_unloads_.begin();
    owed_unloads_.erase(owed_unloads_.begin());
    return Event{false, k, nullptr};
  }
  if (ready_.empty()) return std::nullopt;
  const auto nearest = std::min_element(ready_.begin(), ready_.end(),
                                        [&](const auto& a, const auto& b) { return nearer(a.first, b.first); });
  Event event{true, nearest->first, std::move(nearest->second)};
  ready_.erase(nearest);
  loaded_.insert(event.key);
  return event;
}

bool SessionView::settled() const {
  return wanted_.empty() && in_flight_.empty() && ready_.empty() && owed_unloads_.empty();
}

}  // namespace chunkforge::server
