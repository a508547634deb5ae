// Audit: stored changes as a moderator reads them (edit_history.h).
#include "edits/edit_history.h"

#include <algorithm>
#include <cstdlib>

namespace chunkforge::server {
namespace {

grpc::Status invalid(const std::string& why) { return {grpc::StatusCode::INVALID_ARGUMENT, why}; }

bool names_object(const v1::ChunkEdit& e, uint64_t id) {
  switch (e.edit_case()) {
    case v1::ChunkEdit::kRemoveObject:
      return e.remove_object() == id;
    case v1::ChunkEdit::kAddObject:
      return e.add_object().id() == id;
    case v1::ChunkEdit::kMoveObject:
      return e.move_object().id() == id;
    case v1::ChunkEdit::kSetState:
      return e.set_state().id() == id;
    default:
      return false;
  }
}

// One stored change as an entry: what it did (a snapshot's own edits; nothing for a change that
// restates the chunk, whose edits are the chunk's net state, not an action).
v1::EditLogEntry entry_of(const StoredChange& stored, const std::string& player) {
  v1::ChunkChange change;
  change.ParseFromString(stored.change);
  v1::EditLogEntry e;
  e.mutable_chunk()->set_x(stored.chunk.x);
  e.mutable_chunk()->set_z(stored.chunk.z);
  e.set_version(stored.version);
  e.set_player(player);
  e.set_at(stored.at);
  e.set_rollback_id(change.rollback_id());
  if (change.change_edits_size() > 0) {
    *e.mutable_edits() = std::move(*change.mutable_change_edits());
  } else if (change.reset()) {
    e.set_reset(true);
  } else {
    *e.mutable_edits() = std::move(*change.mutable_edits());
  }
  return e;
}

}  // namespace

grpc::Status check_area(const v1::ChunkArea& area, int64_t chunk_limit) {
  for (const auto& [name, c] : {std::pair{"area.min", &area.min()}, std::pair{"area.max", &area.max()}}) {
    if (std::max(std::abs(c->x()), std::abs(c->z())) > chunk_limit) {
      return invalid(std::string(name) + ": coordinates must be in [" + std::to_string(-chunk_limit) + ", " +
                     std::to_string(chunk_limit) + "]");
    }
  }
  if (area.min().x() > area.max().x() || area.min().z() > area.max().z()) {
    return invalid("area: min must not exceed max");
  }
  return grpc::Status::OK;
}

grpc::Status check_edit_log(const v1::EditLogRequest& r, int64_t chunk_limit) {
  if (r.has_area()) {
    if (grpc::Status status = check_area(r.area(), chunk_limit); !status.ok()) return status;
  }
  if (r.until() != 0 && r.until() <= r.since()) return invalid("until: must be after since (or 0: unbounded)");
  if (r.limit() > kMaxLogEntries) {
    return invalid("limit: at most " + std::to_string(kMaxLogEntries) + " (got " + std::to_string(r.limit()) + ")");
  }
  if (r.object() != 0) {
    const int64_t chunks =
        !r.has_area() ? 0
                      : (r.area().max().x() - r.area().min().x() + 1) * (r.area().max().z() - r.area().min().z() + 1);
    if (chunks == 0 || chunks > kMaxObjectLogChunks) {
      return invalid("object: name its chunk in area (at most " + std::to_string(kMaxObjectLogChunks) + " chunks)");
    }
  }
  return grpc::Status::OK;
}

v1::EditLogResponse edit_log(EditStore& store, const v1::EditLogRequest& r) {
  v1::EditLogResponse out;
  HistoryQuery query;
  if (r.has_area()) {
    query.area = {{r.area().min().x(), r.area().min().z()}, {r.area().max().x(), r.area().max().z()}};
  }
  if (!r.player().empty()) {
    query.author = store.player_id(r.player());
    if (!query.author) return out;  // the store never recorded the name: nothing matches
  }
  query.since = r.since();
  query.until = r.until();
  const size_t limit = r.limit() == 0 ? kDefaultLogEntries : r.limit();
  // Read a page of rows at a time (a snapshot row may hold 1.5 MiB): what is held is one page
  // and the answer. An object's changes are found among its chunks' (a bounded area), at most
  // kMaxLogEntries rows searched.
  query.limit = kLogPage;
  size_t bytes = 0, searched = 0;
  while (true) {
    const std::vector<StoredChange> page = store.history(query);
    for (const StoredChange& stored : page) {
      if (r.object() != 0 && searched++ == kMaxLogEntries) {
        out.set_truncated(true);  // older ones not searched
        return out;
      }
      v1::EditLogEntry e = entry_of(stored, stored.author_name);
      if (r.object() != 0 && std::none_of(e.edits().begin(), e.edits().end(),
                                          [&](const v1::ChunkEdit& x) { return names_object(x, r.object()); })) {
        continue;
      }
      bytes += e.ByteSizeLong();
      if (static_cast<size_t>(out.entries_size()) == limit || bytes > kMaxLogAnswerBytes) {
        out.set_truncated(true);
        return out;
      }
      *out.add_entries() = std::move(e);
    }
    if (page.size() < kLogPage) return out;
    query.before_seq = page.back().seq;
  }
}

}  // namespace chunkforge::server
