// EditService: the version index, group commit and the tail of committed changes (see
// edit_service.h).
#include "edits/edit_service.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <openssl/evp.h>

#include <algorithm>

#include "chunkforge/v1/service.pb.h"
#include "edits/chunk_log.h"
#include "log/client_log.h"
#include "world_epochs.h"

namespace chunkforge::server {
namespace {

// Batches in one group commit, at most: a bound on one transaction's work and on the wait of
// the batches at the front of the queue.
constexpr size_t kMaxGroup = 512;
// Changes the tail reads at a time.
constexpr size_t kTailPage = 1024;
// How long the tail waits for a notification before looking anyway (a notification lost with
// a dropped connection costs at most this much delay).
constexpr std::chrono::milliseconds kTailPoll{250};

// The digest a request id is remembered with: SHA-256 of the request as sent (deterministic
// serialization), so that the same id with other contents is told apart from a retry.
std::string digest_of(const v1::EditRequest& request) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    request.SerializeToCodedStream(&coded);
  }
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr);
  return std::string(reinterpret_cast<const char*>(digest), length);
}

// A request id remembered for another request: refused, and nothing of the new one applied
// (digests stored before schema 2 are empty: those ids answer as before).
grpc::Status check_request_id(EditStore::Transaction& tx, const v1::EditRequest& request) {
  const std::string digest = request.request_id().empty() ? "" : digest_of(request);
  tx.begin_request(digest);
  if (request.request_id().empty()) return grpc::Status::OK;
  const std::optional<EditStore::Transaction::Remembered> seen = tx.look_up(request.request_id());
  if (!seen || seen->digest.empty() || seen->digest == digest) return grpc::Status::OK;
  return {grpc::StatusCode::ALREADY_EXISTS,
          "request_id: reused with different contents (an id names one request; a retry must resend it as it was)"};
}

}  // namespace

std::string bind_store(EditStore& store, const World& world, bool rebind) {
  std::string error;
  store.write([&](EditStore::Transaction& tx) {
    const std::optional<std::string> bound = tx.meta(kWorldFingerprintKey);
    const bool upgraded = tx.meta(kWorldEpochsKey).value_or("0") != "0";
    if (bound && *bound != world.fingerprint() && upgraded && !rebind) {
      error = "the store " + store.describe() + " runs a world upgraded to the world with fingerprint " + *bound +
              " (its newest epoch), and this server's world has fingerprint " + world.fingerprint() +
              ". Start with the world of the store's last upgrade (chunkforge world upgrade --to); or pass "
              "--store-rebind to drop its epochs and serve this world alone";
      return;
    }
    if (bound && *bound != world.fingerprint() && store.last_seq() > 0 && !rebind) {
      error = "the store " + store.describe() + " holds edits of the world with fingerprint " + *bound +
              ", and this server's world has fingerprint " + world.fingerprint() +
              ". Start with the world it was made for; or pass --store-rebind to keep its edits over this world; or "
              "use another store (a new --data directory)";
      return;
    }
    if (bound != world.fingerprint()) {
      tx.set_meta(kWorldFingerprintKey, world.fingerprint());
      if (upgraded) tx.set_meta(kWorldEpochsKey, "0");  // rebound: the epochs were another world's
    }
  });
  return error;
}

EditService::EditService(const World& world, EditStore& store, CommitTimed commit_timed, uint32_t epoch)
    : world_(world),
      store_(store),
      health_(store.describe()),
      seen_(
          store, epoch, SeenRecorder::Limits{}, [this] { return health_.up(); }, world.fingerprint()),
      commit_timed_(std::move(commit_timed)) {}

EditService::~EditService() { stop(); }

void EditService::start() {
  // The tail starts where the index was read: nothing committed in between is missed, because
  // the index is read after the position.
  tail_seq_ = store_.last_seq();
  caught_up_at_ = std::chrono::steady_clock::now().time_since_epoch().count();
  for (const auto& [chunk, version] : store_.versions()) raise(chunk, version);
  writer_ = std::thread([this] { write_loop(); });
  tail_ = std::thread([this] { tail_loop(); });
  seen_.start();
}

void EditService::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  wake_writer_.notify_all();
  store_.wake();
  seen_.stop();
  if (writer_.joinable()) writer_.join();
  if (tail_.joinable()) tail_.join();
  std::deque<Pending> left;
  {
    std::lock_guard lock(mutex_);
    left.swap(pending_);
  }
  for (Pending& p : left) p.done({grpc::StatusCode::UNAVAILABLE, "the server is stopping: edit not applied"}, {});
}

uint64_t EditService::version(ChunkCoord chunk) const {
  std::shared_lock lock(index_mutex_);
  const auto it = index_.find(chunk);
  return it == index_.end() ? 0 : it->second;
}

std::vector<std::pair<ChunkCoord, uint64_t>> EditService::edited_in(ChunkCoord lo, ChunkCoord hi, size_t limit) const {
  std::vector<std::pair<ChunkCoord, uint64_t>> found;
  if (hi.x < lo.x || hi.z < lo.z) return found;
  std::shared_lock lock(index_mutex_);
  // In doubles: a zoomed-out view spans up to 2^35 chunks a side, whose area overflows int64.
  const double width = static_cast<double>(hi.x) - static_cast<double>(lo.x) + 1;
  const double depth = static_cast<double>(hi.z) - static_cast<double>(lo.z) + 1;
  const double area = width * depth;
  if (area <= static_cast<double>(index_.size())) {
    for (int64_t z = lo.z; z <= hi.z; ++z) {
      for (int64_t x = lo.x; x <= hi.x; ++x) {
        const auto it = index_.find(ChunkCoord{x, z});
        if (it != index_.end() && it->second > 0) found.push_back(*it);
      }
    }
  } else {
    for (const auto& [chunk, version] : index_) {
      if (version > 0 && chunk.x >= lo.x && chunk.x <= hi.x && chunk.z >= lo.z && chunk.z <= hi.z)
        found.push_back({chunk, version});
    }
  }
  lock.unlock();
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    return a.first.z != b.first.z ? a.first.z < b.first.z : a.first.x < b.first.x;
  });
  if (found.size() > limit) found.resize(limit);
  return found;
}

void EditService::raise(ChunkCoord chunk, uint64_t version) {
  std::unique_lock lock(index_mutex_);
  uint64_t& known = index_[chunk];
  known = std::max(known, version);
}

void EditService::submit(v1::EditRequest request, BaseChunks bases, Done done, std::function<bool()> cancelled) {
  if (!health_.up()) return done(health_.unavailable(), {});  // no queueing behind a store that is down
  {
    std::lock_guard lock(mutex_);
    if (!stopping_) {
      pending_.push_back({std::move(request), std::move(bases), std::move(done), std::move(cancelled)});
      wake_writer_.notify_one();
      return;
    }
  }
  done({grpc::StatusCode::UNAVAILABLE, "the server is stopping: edit not applied"}, {});
}

std::vector<StoredChange> EditService::log(ChunkCoord chunk, uint64_t version) {
  if (!health_.up()) throw StoreUnavailable(health_.unavailable().error_message());
  try {
    return read_log(version, [&](uint64_t after) { return store_.log(chunk, after); });
  } catch (const StoreError& e) {
    health_.failed(e.what());
    throw StoreUnavailable(health_.unavailable().error_message());
  }
}

void EditService::listen(std::weak_ptr<const void> owner, Listener listener) {
  std::lock_guard lock(mutex_);
  listeners_.push_back({std::move(owner), std::move(listener)});
  // Sessions end without saying so: their entries go here, and at each tail round.
  if (listeners_.size() >= prune_at_) {
    std::erase_if(listeners_, [](const Listening& l) { return l.owner.expired(); });
    prune_at_ = std::max<size_t>(64, 2 * listeners_.size());
  }
}

EditStats EditService::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

TailLag EditService::tail_lag() const {
  const std::chrono::steady_clock::duration behind =
      std::chrono::steady_clock::now().time_since_epoch() - std::chrono::steady_clock::duration(caught_up_at_.load());
  return {std::max(0.0, std::chrono::duration<double>(behind).count()), lag_seqs_.load()};
}

// A short page reached the store's end as of when its read started; a full one may not have:
// the store's last sequence number says how much is left (one more read, only while behind).
void EditService::measure_lag(std::chrono::steady_clock::time_point read_at, const std::vector<StoredChange>& page) {
  if (page.size() < kTailPage) {
    caught_up_at_ = read_at.time_since_epoch().count();
    lag_seqs_ = 0;
    return;
  }
  try {
    lag_seqs_ = std::max<int64_t>(0, store_.last_seq() - page.back().seq);
  } catch (const std::exception&) {
    // The next read tries the store again and reports its health.
  }
}

void EditService::write_loop() {
  std::unique_lock lock(mutex_);
  while (true) {
    wake_writer_.wait(lock, [&] { return stopping_ || !pending_.empty(); });
    if (stopping_) return;
    std::vector<Pending> group;
    while (!pending_.empty() && group.size() < kMaxGroup) {
      group.push_back(std::move(pending_.front()));
      pending_.pop_front();
    }
    lock.unlock();
    drop_cancelled(group);
    if (health_.up()) {
      if (!group.empty()) commit_group(group);
    } else {
      refuse(group, health_.unavailable());  // the store went down while these waited
    }
    lock.lock();
  }
}

// A client that left before its batch's group started has nobody to tell: its batch is not
// committed (and costs the group nothing).
void EditService::drop_cancelled(std::vector<Pending>& group) {
  std::erase_if(group, [](Pending& p) {
    if (!p.cancelled || !p.cancelled()) return false;
    p.done({grpc::StatusCode::CANCELLED, "the client left before its edit was committed: not applied"}, {});
    return true;
  });
}

// One transaction for the whole group. A refused batch has written nothing (commit_batch checks
// everything before its first write), so it leaves the others as they are; a failure of the
// store itself throws and fails the whole group. No savepoints: on PostgreSQL each is a round
// trip, two per batch. Answers go out after the commit: OK means durable.
void EditService::commit_group(std::vector<Pending>& group) {
  std::vector<grpc::Status> statuses(group.size());
  std::vector<v1::EditResponse> responses(group.size());
  std::vector<v1::ChunkChange> changes;
  const auto started = std::chrono::steady_clock::now();
  try {
    store_.write([&](EditStore::Transaction& tx) {
      changes.clear();
      GroupChunks chunks;  // each chunk read once per group, not once per batch
      for (size_t i = 0; i < group.size(); ++i) {
        responses[i].Clear();
        statuses[i] = check_request_id(tx, group[i].request);
        if (!statuses[i].ok()) continue;
        statuses[i] = commit_batch(world_, tx, group[i].request, group[i].bases, chunks, responses[i], changes);
        if (!statuses[i].ok()) responses[i].Clear();
      }
    });
  } catch (const StoreError& e) {
    health_.failed(e.what());  // logs once, when the store goes down
    return refuse(group, {grpc::StatusCode::UNAVAILABLE, std::string("edit store: ") + e.what()});
  } catch (const std::exception& e) {
    log_client(LogKind::kEditCommitFailed, spdlog::level::err, "edit store: a commit of {} batches failed: {}",
               group.size(), e.what());
    return refuse(group, {grpc::StatusCode::UNAVAILABLE, std::string("edit store: ") + e.what()});
  }
  if (commit_timed_) commit_timed_(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  // Read-your-writes on this replica: the index knows the new versions before anyone is told.
  for (const v1::ChunkChange& c : changes) raise({c.chunk().x(), c.chunk().z()}, c.version());
  store_.wake();  // the tail hands the changes to the sessions now
  size_t committed = 0, ops = 0;
  for (size_t i = 0; i < group.size(); ++i) {
    committed += statuses[i].ok();
    if (statuses[i].ok()) ops += group[i].request.ops_size();
  }
  {
    // Counted before anyone is answered: a client that saw its answer sees it in /metrics.
    std::lock_guard lock(mutex_);
    stats_.batches_committed += committed;
    stats_.ops_committed += ops;
    stats_.batches_rejected += group.size() - committed;
    ++stats_.groups_committed;
  }
  for (size_t i = 0; i < group.size(); ++i) group[i].done(statuses[i], std::move(responses[i]));
}

void EditService::refuse(std::vector<Pending>& group, const grpc::Status& status) {
  for (Pending& p : group) p.done(status, {});
}

// Also the store's prober: while it is down, each round is one try after the backoff.
void EditService::tail_loop() {
  while (true) {
    {
      std::lock_guard lock(mutex_);
      if (stopping_) return;
    }
    std::vector<StoredChange> page;
    const auto read_at = std::chrono::steady_clock::now();
    try {
      page = store_.changes_after(tail_seq_, kTailPage);
      health_.succeeded();
      measure_lag(read_at, page);
    } catch (const std::exception& e) {
      health_.failed(e.what());
      store_.wait_for_commits(health_.backoff());
      continue;
    }
    if (page.empty()) {
      store_.wait_for_commits(kTailPoll);
      continue;
    }
    deliver(page);
  }
}

// Raises the index and hands the page's changes to the listeners.
void EditService::deliver(std::vector<StoredChange>& page) {
  ChangeList list;
  for (StoredChange& stored : page) {
    auto committed = std::make_shared<CommittedChange>();
    v1::ChunkChange& change = committed->change;
    change.ParseFromString(stored.change);
    change.clear_change_edits();  // the store's alone (moderation): never sent
    change.clear_rollback_id();
    change.mutable_chunk()->set_x(stored.chunk.x);
    change.mutable_chunk()->set_z(stored.chunk.z);
    change.set_version(stored.version);
    if (!outgrows_chunk(change)) {  // else sessions send the chunk (null: a reload)
      v1::SessionEvent event;
      *event.mutable_change() = change;
      committed->event = std::make_shared<const std::string>(event.SerializeAsString());
    }
    raise(stored.chunk, stored.version);
    list.push_back(std::move(committed));
  }
  tail_seq_ = page.back().seq;
  std::vector<Listening> listeners;
  {
    std::lock_guard lock(mutex_);
    stats_.changes_seen += list.size();
    std::erase_if(listeners_, [](const Listening& l) { return l.owner.expired(); });
    listeners = listeners_;  // called without the lock: a listener may take its own
  }
  for (const Listening& l : listeners) {
    if (!l.owner.expired()) l.listener(list);
  }
}

}  // namespace chunkforge::server
