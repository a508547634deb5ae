// Rollback: replaying a chunk without the undone changes (rollback.h).
#include "edits/rollback.h"

#include <algorithm>
#include <map>
#include <set>

#include "chunkforge/chunk_edits.h"
#include "chunkforge/chunk_hash.h"
#include "chunkforge/hex_text.h"
#include "edits/chunk_log.h"
#include "edits/edit_batch.h"

namespace chunkforge::server {
namespace {

using Edits = google::protobuf::RepeatedPtrField<v1::ChunkEdit>;

// A later edit that could not stand as it was.
struct Conflict {
  uint64_t version = 0;
  uint32_t author = 0;
  std::string reason;
};

// What rolling back one chunk does.
struct ChunkPlan {
  v1::Chunk result;        // the chunk with the matching changes undone
  bool changes = false;    // result differs from the chunk as it is
  bool too_large = false;  // result over the bounds: left as it is
  uint64_t version = 0;    // the chunk's version now (or of this request's change, if done)
  bool done = false;       // an earlier run of this request rolled it back already
  uint64_t changes_undone = 0, edits_undone = 0;
  std::vector<Conflict> conflicts;
};

// What a change did: a snapshot's own edits, else its edits.
const Edits& own_edits(const v1::ChunkChange& c) { return c.change_edits_size() > 0 ? c.change_edits() : c.edits(); }
// A change that restates the chunk from its base (a reset marker, an import's reset, a rollback),
// as opposed to a snapshot, whose own edits are known.
bool restates(const v1::ChunkChange& c) { return c.reset() && c.change_edits_size() == 0; }

// The object an edit names, if it names one it did not add.
std::optional<uint64_t> named_object(const v1::ChunkEdit& e) {
  switch (e.edit_case()) {
    case v1::ChunkEdit::kRemoveObject:
      return e.remove_object();
    case v1::ChunkEdit::kMoveObject:
      return e.move_object().id();
    case v1::ChunkEdit::kSetState:
      return e.set_state().id();
    default:
      return std::nullopt;
  }
}

bool holds_object(const v1::Chunk& chunk, uint64_t id) {
  const auto& ids = chunk.objects().id();
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

// Whether applying `e` to `chunk` does what it did when it was committed.
bool applies(const v1::Chunk& chunk, const v1::ChunkEdit& e) {
  switch (e.edit_case()) {
    case v1::ChunkEdit::kAddObject:
      return !holds_object(chunk, e.add_object().id());
    case v1::ChunkEdit::kRemoveStructure:
      return std::any_of(chunk.structures().begin(), chunk.structures().end(),
                         [&](const v1::StructureInstance& s) { return s.id() == e.remove_structure(); });
    default:
      return holds_object(chunk, *named_object(e));
  }
}

void apply_edit(v1::Chunk& chunk, const v1::ChunkEdit& e) {
  v1::ChunkChange one;
  *one.add_edits() = e;
  apply_change(chunk, one, {});
}

// Replays `later` (the chunk's changes from the first matching one on, parsed) over `start`.
class Replay {
 public:
  Replay(const v1::Chunk& base, const std::vector<StoredChange>& stored, const std::vector<v1::ChunkChange>& later,
         const std::function<bool(const StoredChange&)>& matches)
      : base_(base), stored_(stored), later_(later), matches_(matches) {}

  void run(v1::Chunk chunk, ChunkPlan& plan) {
    find_kept(plan);
    for (size_t k = 0; k < later_.size(); ++k) {
      const v1::ChunkChange& c = later_[k];
      if (matches_(stored_[k])) {
        skip(c, chunk, plan);
      } else if (restates(c)) {
        chunk = base_;
        for (const v1::ChunkEdit& e : c.edits()) apply_edit(chunk, e);
      } else {
        for (const v1::ChunkEdit& e : own_edits(c)) keep_if_it_applies(chunk, e, stored_[k], plan);
      }
    }
    plan.result = std::move(chunk);
  }

 private:
  // The objects matching changes added that a later change of someone else names: kept. A
  // change that restates the chunk added nothing of its own.
  void find_kept(ChunkPlan& plan) {
    std::set<uint64_t> added;
    for (size_t k = 0; k < later_.size(); ++k) {
      if (matches_(stored_[k])) {
        if (restates(later_[k])) continue;
        for (const v1::ChunkEdit& e : own_edits(later_[k])) {
          if (e.has_add_object()) added.insert(e.add_object().id());
        }
        continue;
      }
      for (const v1::ChunkEdit& e : own_edits(later_[k])) {
        const std::optional<uint64_t> id = named_object(e);
        if (!id || !added.count(*id) || !kept_.insert(*id).second) continue;
        plan.conflicts.push_back(
            {stored_[k].version, stored_[k].author,
             "kept object " + hex_id(*id) + ": an undone change added it and a later edit names it"});
      }
    }
  }

  // A matching change is undone but for the objects it added that others built on, which are
  // added where they were. A change that restates the chunk (a reset, a rollback) is undone whole.
  void skip(const v1::ChunkChange& c, v1::Chunk& chunk, ChunkPlan& plan) {
    ++plan.changes_undone;
    if (restates(c)) return;
    for (const v1::ChunkEdit& e : own_edits(c)) {
      if (e.has_add_object() && kept_.count(e.add_object().id())) {
        apply_edit(chunk, e);
      } else {
        ++plan.edits_undone;
      }
    }
  }

  void keep_if_it_applies(v1::Chunk& chunk, const v1::ChunkEdit& e, const StoredChange& at, ChunkPlan& plan) {
    if (applies(chunk, e)) return apply_edit(chunk, e);
    const std::optional<uint64_t> id = named_object(e);
    plan.conflicts.push_back({at.version, at.author,
                              "dropped a later edit: " + (id ? "object " + hex_id(*id) : std::string("its structure")) +
                                  " is not there once the undone changes are"});
  }

  const v1::Chunk& base_;
  const std::vector<StoredChange>& stored_;
  const std::vector<v1::ChunkChange>& later_;
  const std::function<bool(const StoredChange&)>& matches_;
  std::set<uint64_t> kept_;
};

// The chunk's content, whatever its version.
std::string content(v1::Chunk chunk) {
  chunk.set_edit_version(0);
  return chunk.SerializeAsString();
}

bool over_bounds(const v1::Chunk& base, const v1::Chunk& chunk) {
  const std::set<uint64_t> generated(base.objects().id().begin(), base.objects().id().end());
  size_t added = 0, state_bytes = 0;
  for (uint64_t id : chunk.objects().id()) added += !generated.count(id);
  for (const v1::ObjectState& s : chunk.object_states()) state_bytes += s.state().size();
  return added > kMaxAddedObjects || state_bytes > kMaxChunkStateBytes || chunk.ByteSizeLong() > kMaxEditedChunkBytes;
}

// Plans one chunk from its whole stored log.
ChunkPlan plan_chunk(const v1::Chunk& base, std::vector<StoredChange> log, const RollbackSpec& spec,
                     const std::function<bool(const StoredChange&)>& matches) {
  ChunkPlan plan;
  plan.version = log.empty() ? 0 : log.back().version;
  std::vector<v1::ChunkChange> parsed(log.size());
  for (size_t k = 0; k < log.size(); ++k) parsed[k].ParseFromString(log[k].change);
  for (size_t k = 0; k < log.size(); ++k) {
    if (!spec.request_id.empty() && parsed[k].rollback_id() == spec.request_id) {
      plan.done = true;  // planned as it was then: the log up to this request's change
      plan.version = log[k].version;
      log.resize(k);
      parsed.resize(k);
      break;
    }
  }
  // A later reset or rollback of someone else restates the chunk with everything before it
  // baked in: only matching changes after the last one can be undone.
  size_t restated = 0;
  for (size_t k = 0; k < log.size(); ++k) {
    if (restates(parsed[k]) && !matches(log[k])) restated = k + 1;
  }
  if (std::any_of(log.begin(), log.begin() + static_cast<std::ptrdiff_t>(restated), matches)) {
    plan.conflicts.push_back(
        {log[restated - 1].version, log[restated - 1].author,
         "not undone: changes before this version, a reset or a rollback that restates the chunk"});
  }
  const auto first = std::find_if(log.begin() + static_cast<std::ptrdiff_t>(restated), log.end(), matches);
  if (first == log.end()) return plan;
  const size_t from = static_cast<size_t>(first - log.begin());
  const std::vector<StoredChange> before(log.begin(), first);
  const v1::Chunk start = current_chunk(base,
                                        read_log(first->version - 1,
                                                 [&](uint64_t after) {
                                                   std::vector<StoredChange> out;
                                                   for (const StoredChange& c : before) {
                                                     if (c.version > after) out.push_back(c);
                                                   }
                                                   return out;
                                                 }),
                                        {});
  const std::vector<StoredChange> stored(log.begin() + static_cast<std::ptrdiff_t>(from), log.end());
  const std::vector<v1::ChunkChange> later(parsed.begin() + static_cast<std::ptrdiff_t>(from), parsed.end());
  Replay(base, stored, later, matches).run(start, plan);
  const v1::Chunk now = current_chunk(base, log, {});
  plan.changes = content(plan.result) != content(now);
  plan.too_large = plan.changes && over_bounds(base, plan.result);
  if (plan.too_large) {
    plan.conflicts.push_back({plan.version, 0, "not rolled back: the chunk would exceed its bounds (docs/edits.md)"});
  }
  return plan;
}

// The change that stores a plan's result as `version`.
v1::ChunkChange rollback_change(const v1::Chunk& base, v1::Chunk result, uint64_t version, const std::string& id) {
  result.set_edit_version(version);
  v1::ChunkChange change = snapshot_change(base, result);
  change.set_rollback_id(id);
  change.set_chunk_hash(chunk_hash(result));
  change.set_chunk_bytes(result.ByteSizeLong());
  return change;
}

// What a rollback tells its caller, filled chunk by chunk.
class Answer {
 public:
  Answer(EditStore& store, v1::RollbackResponse& answer) : store_(store), answer_(answer) {}

  void add(ChunkCoord chunk, const ChunkPlan& plan, uint64_t version) {
    answer_.set_changes_undone(answer_.changes_undone() + plan.changes_undone);
    answer_.set_edits_undone(answer_.edits_undone() + plan.edits_undone);
    if ((plan.changes || plan.done) && !plan.too_large) {
      answer_.set_chunks(answer_.chunks() + 1);
      if (static_cast<size_t>(answer_.versions_size()) < kMaxListedVersions) {
        v1::ChunkVersion* v = answer_.add_versions();
        v->mutable_chunk()->set_x(chunk.x);
        v->mutable_chunk()->set_z(chunk.z);
        v->set_version(version);
      }
    }
    for (const Conflict& c : plan.conflicts) {
      answer_.set_conflict_count(answer_.conflict_count() + 1);
      if (static_cast<size_t>(answer_.conflicts_size()) >= kMaxListedConflicts) continue;
      v1::RollbackConflict* out = answer_.add_conflicts();
      out->mutable_chunk()->set_x(chunk.x);
      out->mutable_chunk()->set_z(chunk.z);
      out->set_version(c.version);
      out->set_player(name(c.author));
      out->set_reason(c.reason);
    }
  }

 private:
  std::string name(uint32_t id) {
    if (id == 0) return "";
    auto [it, added] = names_.try_emplace(id);
    if (added) it->second = store_.player_name(id);
    return it->second;
  }

  EditStore& store_;
  v1::RollbackResponse& answer_;
  std::map<uint32_t, std::string> names_;
};

grpc::Status check_spec(const RollbackSpec& spec) {
  const ChunkRange& a = spec.area;
  if (a.min.x > a.max.x || a.min.z > a.max.z) {
    return {grpc::StatusCode::INVALID_ARGUMENT, "area: min must not exceed max"};
  }
  if (spec.until != 0 && spec.until <= spec.since) {
    return {grpc::StatusCode::INVALID_ARGUMENT, "until: must be after since (or 0: unbounded)"};
  }
  if (!spec.preview && spec.request_id.empty()) {
    return {grpc::StatusCode::INVALID_ARGUMENT, "request_id: required to apply a rollback (so a retry applies once)"};
  }
  if (spec.request_id.size() > kMaxRequestIdBytes) {
    return {grpc::StatusCode::INVALID_ARGUMENT, "request_id: at most " + std::to_string(kMaxRequestIdBytes) + " bytes"};
  }
  return grpc::Status::OK;
}

// What identifies a rollback request: a retry must ask the same.
std::string digest(const RollbackSpec& s) {
  return "rollback " + std::to_string(s.area.min.x) + " " + std::to_string(s.area.min.z) + " " +
         std::to_string(s.area.max.x) + " " + std::to_string(s.area.max.z) + " " +
         (s.author ? std::to_string(*s.author) : std::string("*")) + " " + std::to_string(s.since) + " " +
         std::to_string(s.until);
}

// One rollback run: the chunks it works on, a group at a time.
class Run {
 public:
  Run(EditStore& store, const BaseOf& base_of, const RollbackSpec& spec, v1::RollbackResponse& answer)
      : store_(store), base_of_(base_of), spec_(spec), answer_(answer), told_(store, answer) {}

  // The remembered answer of this request id, if it finished before; ALREADY_EXISTS for an id
  // another request used.
  grpc::Status remembered(bool& finished) {
    std::optional<EditStore::Transaction::Remembered> seen;
    store_.write([&](EditStore::Transaction& tx) { seen = tx.look_up(spec_.request_id); });
    finished = seen.has_value();
    if (seen && seen->digest != digest(spec_)) {
      return {grpc::StatusCode::ALREADY_EXISTS, "request_id: reused with different contents"};
    }
    if (seen) answer_.ParseFromString(seen->answer);  // the same answer, nothing new
    return grpc::Status::OK;
  }

  // The chunks holding matching changes; RESOURCE_EXHAUSTED past kMaxRollbackChunks.
  grpc::Status find_chunks() {
    HistoryQuery query;
    query.area = std::pair(spec_.area.min, spec_.area.max);
    query.author = spec_.author;
    query.since = spec_.since;
    query.until = spec_.until;
    query.limit = kMaxRollbackChunks + 1;
    chunks_ = store_.chunks_changed(query);
    if (chunks_.size() > kMaxRollbackChunks) {
      return {grpc::StatusCode::RESOURCE_EXHAUSTED, "more than " + std::to_string(kMaxRollbackChunks) +
                                                        " chunks hold matching changes: narrow the area or the window"};
    }
    return grpc::Status::OK;
  }

  // Plans (preview) or commits the chunks [from, to) in one transaction; the last group also
  // remembers the answer under the request id.
  void group(size_t from, size_t to) {
    bases_.clear();  // generated outside the transaction: it holds every writer
    for (size_t k = from; k < to; ++k) bases_.emplace(chunks_[k], base_of_(chunks_[k]));
    if (spec_.preview)
      return plan(
          from, to, [&](ChunkCoord c) { return store_.log(c, 0); }, nullptr);
    const v1::RollbackResponse before = answer_;
    store_.write([&](EditStore::Transaction& tx) {
      answer_ = before;  // a transaction tried again starts over
      plan(
          from, to, [&](ChunkCoord c) { return tx.log(c, 0); }, &tx);
      if (to == chunks_.size()) {
        tx.begin_request(digest(spec_));
        tx.remember(spec_.request_id, answer_.SerializeAsString());
      }
    });
  }

  size_t chunks() const { return chunks_.size(); }

 private:
  bool matches(const StoredChange& c) const {
    return (!spec_.author || c.author == *spec_.author) && c.at >= spec_.since &&
           (spec_.until == 0 || c.at < spec_.until);
  }

  void plan(size_t from, size_t to, const std::function<std::vector<StoredChange>(ChunkCoord)>& log,
            EditStore::Transaction* tx) {
    const uint32_t by = tx != nullptr && !spec_.by.empty() ? tx->player(spec_.by) : 0;
    const std::function<bool(const StoredChange&)> matching = [this](const StoredChange& c) { return matches(c); };
    for (size_t k = from; k < to; ++k) {
      const ChunkCoord c = chunks_[k];
      const ChunkPlan p = plan_chunk(bases_.at(c), log(c), spec_, matching);
      uint64_t version = p.version;
      if (tx != nullptr && p.changes && !p.too_large && !p.done) {
        version = p.version + 1;
        tx->append(c, version, rollback_change(bases_.at(c), p.result, version, spec_.request_id).SerializeAsString(),
                   {by, unix_seconds()});
      }
      told_.add(c, p, version);
    }
  }

  EditStore& store_;
  const BaseOf& base_of_;
  const RollbackSpec& spec_;
  v1::RollbackResponse& answer_;
  Answer told_;
  std::vector<ChunkCoord> chunks_;
  std::map<ChunkCoord, v1::Chunk> bases_;
};

// The answer of a rollback stopped before the group at `done`.
grpc::Status stopped(const RollbackSpec& spec, size_t done, size_t total) {
  const std::string where = "stopped after " + std::to_string(done) + " of " + std::to_string(total) + " chunks";
  if (spec.preview) return {grpc::StatusCode::CANCELLED, where + " (the client left or the server is stopping)"};
  return {grpc::StatusCode::CANCELLED, where +
                                           " (the client left or the server is stopping): those stay rolled back; "
                                           "the same request_id again finishes the rest"};
}

}  // namespace

grpc::Status roll_back(EditStore& store, const BaseOf& base_of, const RollbackSpec& spec, v1::RollbackResponse& answer,
                       const RollbackProgress& progress, const RollbackStop& stop) {
  if (grpc::Status status = check_spec(spec); !status.ok()) return status;
  answer.Clear();
  Run run(store, base_of, spec, answer);
  if (!spec.preview) {
    bool finished = false;
    if (grpc::Status status = run.remembered(finished); !status.ok() || finished) return status;
  }
  if (grpc::Status status = run.find_chunks(); !status.ok()) return status;
  // An empty rollback is one empty group: its answer is remembered all the same.
  for (size_t from = 0; from < std::max<size_t>(run.chunks(), 1); from += kRollbackGroup) {
    const size_t to = std::min(run.chunks(), from + kRollbackGroup);
    if (stop && stop()) return stopped(spec, from, run.chunks());
    run.group(from, to);
    if (progress && to > from) progress(to, run.chunks());
  }
  return grpc::Status::OK;
}

}  // namespace chunkforge::server
