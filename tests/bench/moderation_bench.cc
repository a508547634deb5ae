// Moderation measured (docs/edits.md, "Moderation", "Measured"): in-process servers on a store of
// each kind (store:0 a SQLite file, store:1 a database of a throwaway PostgreSQL cluster).
//   BM_TokenVerify/cached:C        a player token's check: the signature (0) or the cache (1)
//   BM_Rollback/store:S            100,000 edits of one player over 1,000 chunks (among another
//                                  player's) rolled back, 200 live sessions watching: the
//                                  rollback's wall time, and each chunk's commit to its session
//   BM_ChunkHistory/store:S        the audit of a chunk with 10,000 changes
//   BM_PlayerEdits/store:S         one player's newest 1,000 changes in a store of 1,000,000
//                                  and what the author and time columns cost per stored
//                                  change (the store's size with them, then without them)
#include <benchmark/benchmark.h>
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <condition_variable>
#include <cstdlib>  // mkdtemp
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "auth/player_tokens.h"
#include "chunkforge/chunk.h"
#include "chunkforge/encode.h"
#include "chunkforge/v1/service.grpc.pb.h"
#include "edits/edit_history.h"
#include "edits/edit_service.h"
#include "edits/rollback.h"
#include "pg_connection.h"
#include "support/bench_store.h"
#include "support/jwt_signer.h"
#include "world_server.h"

namespace chunkforge::server {
namespace {

std::string new_store(int kind, const std::string& dir) { return test::bench_store(kind, dir, "moderation_bench"); }

struct Rig {
  std::string dir;
  std::shared_ptr<EditStore> store;
  std::unique_ptr<WorldServer> server;
  std::unique_ptr<v1::WorldService::Stub> stub;

  explicit Rig(int kind) {
    char pattern[] = "/tmp/chunkforge_moderation_bench_XXXXXX";
    dir = mkdtemp(pattern);
    ServerOptions options;
    options.listen = "127.0.0.1:0";
    options.http = "";
    options.store = open_store(new_store(kind, dir));
    bind_store(*options.store, default_world(), false);
    options.open_edits = true;
    store = options.store;
    server = std::make_unique<WorldServer>(default_world(), options);
    server->start();
    stub = v1::WorldService::NewStub(
        grpc::CreateChannel("127.0.0.1:" + std::to_string(server->port()), grpc::InsecureChannelCredentials()));
  }
  ~Rig() {
    server->shutdown(std::chrono::seconds(1));
    std::filesystem::remove_all(dir);
  }
  void edit(const v1::EditRequest& request) {
    grpc::ClientContext context;
    v1::EditResponse ignored;
    if (!stub->Edit(&context, request, &ignored).ok()) throw std::runtime_error("edit failed");
  }
};

void BM_TokenVerify(benchmark::State& state) {
  const test::JwtSigner auth;
  const std::string token = auth.sign({{"sub", "alice"}, {"iss", "game"}, {"aud", "world"}}, 3600);
  const bool cached = state.range(0) == 1;
  PlayerTokens tokens({auth.public_pem(), "game", "world"});
  Caller caller;
  for (auto _ : state) {
    if (!cached) {
      state.PauseTiming();
      tokens.~PlayerTokens();
      new (&tokens) PlayerTokens({auth.public_pem(), "game", "world"});
      state.ResumeTiming();
    }
    if (!tokens.verify(token, caller).ok()) state.SkipWithError("refused");
  }
}
BENCHMARK(BM_TokenVerify)->ArgName("cached")->Arg(0)->Arg(1);

// A session's receipts: when each chunk arrived at each version.
class Watcher {
 public:
  Watcher(v1::WorldService::Stub& stub, int64_t cx, int64_t cz) : stream_(stub.Session(&context_)) {
    v1::SessionUpdate update;
    update.set_x(static_cast<double>(cx * 64 + 32));
    update.set_z(static_cast<double>(cz * 64 + 32));
    update.set_view_radius(3);
    stream_->Write(update);
    reader_ = std::thread([this] {
      v1::SessionEvent e;
      while (stream_->Read(&e)) {
        const auto now = std::chrono::steady_clock::now();
        std::lock_guard lock(mutex_);
        if (e.has_load()) seen_[{e.load().coord().x(), e.load().coord().z()}] = {e.load().edit_version(), now};
        for (const v1::Chunk& c : e.loads().chunks()) seen_[{c.coord().x(), c.coord().z()}] = {c.edit_version(), now};
      }
    });
  }
  ~Watcher() {
    context_.TryCancel();
    reader_.join();
  }
  std::map<std::pair<int64_t, int64_t>, std::pair<uint64_t, std::chrono::steady_clock::time_point>> seen() {
    std::lock_guard lock(mutex_);
    return seen_;
  }

 private:
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReaderWriter<v1::SessionUpdate, v1::SessionEvent>> stream_;
  std::mutex mutex_;
  std::map<std::pair<int64_t, int64_t>, std::pair<uint64_t, std::chrono::steady_clock::time_point>> seen_;
  std::thread reader_;
};

// 32 x 32 chunks (1,024; 1,000 of them griefed, 100 edits each: 100,000), bob's work among them.
void grief(Rig& rig) {
  for (int64_t k = 0; k < 1000; ++k) {
    v1::EditRequest grief;
    grief.set_author("mallory");
    for (int n = 0; n < 100; ++n) {
      v1::EditOp* op = grief.add_ops();
      op->mutable_chunk()->set_x(k % 32);
      op->mutable_chunk()->set_z(k / 32);
      op->mutable_add_object()->set_x(static_cast<float>(n % 10) * 6 + 1);
      op->mutable_add_object()->set_z(static_cast<float>(n - n % 10) * 0.6F + 1);
    }
    rig.edit(grief);
    if (k % 10 == 0) {
      v1::EditRequest bob;
      bob.set_author("bob");
      v1::EditOp* op = bob.add_ops();
      op->mutable_chunk()->set_x(k % 32);
      op->mutable_chunk()->set_z(k / 32);
      op->mutable_add_object()->set_x(63);
      rig.edit(bob);
    }
  }
}

// 200 players over the area, 20 to a connection (a connection carries at most 100 streams).
struct Players {
  std::vector<std::unique_ptr<v1::WorldService::Stub>> connections;
  std::vector<std::unique_ptr<Watcher>> sessions;

  explicit Players(int port) {
    connections.reserve(10);
    sessions.reserve(200);
    for (int k = 0; k < 10; ++k) {
      grpc::ChannelArguments args;
      args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);  // a connection of its own
      connections.push_back(v1::WorldService::NewStub(
          grpc::CreateCustomChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials(), args)));
    }
    for (int p = 0; p < 200; ++p) {
      sessions.push_back(
          std::make_unique<Watcher>(*connections[static_cast<size_t>(p % 10)], (p * 7) % 32, (p * 13) % 32));
    }
  }
};  // sessions end before their connections (members go in reverse order)

// Each chunk's new version at each session that holds it, against its group's commit time:
// the slowest, how many took over a second, and how many never came.
void count_receipts(const v1::RollbackResponse& answer,
                    const std::vector<std::chrono::steady_clock::time_point>& committed, Players& players,
                    benchmark::State& state) {
  double worst = 0;
  size_t late = 0, missing = 0;
  for (auto& watcher : players.sessions) {
    const auto seen = watcher->seen();
    for (int k = 0; k < answer.versions_size(); ++k) {  // in the rollback's order: group k / 64
      const v1::ChunkVersion& v = answer.versions(k);
      const auto it = seen.find({v.chunk().x(), v.chunk().z()});
      if (it == seen.end()) continue;  // not in this player's view
      if (it->second.first != v.version()) {
        ++missing;
        continue;
      }
      const auto at = committed[static_cast<size_t>(k) / kRollbackGroup];
      const double delay = std::chrono::duration<double>(it->second.second - at).count();
      worst = std::max(worst, delay);
      late += delay > 1.0;
    }
  }
  state.counters["commit_to_session_max_s"] = worst;
  state.counters["later_than_1s"] = static_cast<double>(late);
  state.counters["not_received"] = static_cast<double>(missing);
}

void BM_Rollback(benchmark::State& state) {
  for (auto _ : state) {
    state.PauseTiming();
    Rig rig(static_cast<int>(state.range(0)));
    grief(rig);
    Players players(rig.server->port());
    std::this_thread::sleep_for(std::chrono::seconds(5));          // their views loaded
    std::vector<std::chrono::steady_clock::time_point> committed;  // per group of 64 chunks
    RollbackSpec spec{{{0, 0}, {31, 31}}, rig.store->player_id("mallory"), 0, 0, "bench", "mod", false};
    const Generator generator(default_world());
    v1::RollbackResponse answer;
    state.ResumeTiming();
    const grpc::Status s = roll_back(
        *rig.store, [&](ChunkCoord c) { return encode_chunk(default_world(), generator.generate(c)); }, spec, answer,
        [&](size_t, size_t) {
          committed.push_back(std::chrono::steady_clock::now());
          rig.store->wake();
        });
    state.PauseTiming();
    if (!s.ok() || answer.edits_undone() != 100000) state.SkipWithError("the rollback did not undo 100,000 edits");
    std::this_thread::sleep_for(std::chrono::seconds(3));
    count_receipts(answer, committed, players, state);
    state.ResumeTiming();
  }
}
BENCHMARK(BM_Rollback)->ArgName("store")->Arg(0)->Arg(1)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

// One chunk with 10,000 changes (a state set each), written straight into the store.
void BM_ChunkHistory(benchmark::State& state) {
  Rig rig(static_cast<int>(state.range(0)));
  rig.store->write([&](EditStore::Transaction& tx) {
    const uint32_t alice = tx.player("alice");
    for (uint64_t v = 1; v <= 10000; ++v) {
      v1::ChunkChange change;
      v1::ObjectState* s = change.add_edits()->mutable_set_state();
      s->set_id(v);
      s->set_state("x");
      tx.append({5, 5}, v, change.SerializeAsString(), {alice, 1765000000 + static_cast<int64_t>(v)});
    }
  });
  v1::EditLogRequest ask;
  ask.mutable_area()->mutable_min()->set_x(5);
  ask.mutable_area()->mutable_min()->set_z(5);
  *ask.mutable_area()->mutable_max() = ask.area().min();
  ask.set_limit(10000);
  for (auto _ : state) {
    const v1::EditLogResponse log = edit_log(*rig.store, ask);
    if (log.entries_size() != 10000) state.SkipWithError("not 10,000 entries");
  }
}
BENCHMARK(BM_ChunkHistory)
    ->ArgName("store")
    ->Arg(0)
    ->Arg(1)
    ->Iterations(20)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// 1,000,000 changes by 1,000 players over 10,000 chunks; one player's newest 1,000. SQLite through
// the store as the writer appends; PostgreSQL by one INSERT ... SELECT (a round trip a row would
// take minutes), the same rows, on a connection given the minutes it takes.
PgTimeouts patient() {
  PgTimeouts t;
  t.statement = t.answer = t.idle_in_transaction = std::chrono::minutes(10);
  return t;
}

void fill_million(EditStore& store, bool sqlite) {
  if (!sqlite) {
    PgConnection c(store.describe(), "", -1, patient());
    c.exec("INSERT INTO players(name) SELECT 'player-' || p FROM generate_series(0, 999) AS p");
    c.exec(
        "INSERT INTO changes(cx, cz, version, change, author, committed_at) SELECT n % 100, (n / 100) % 100, "
        "n / 10000 + 1, '\\x09'::bytea || int8send(n), (SELECT id FROM players WHERE name = 'player-' || "
        "(n * 7919 % 1000)), 1765000000 + n / 100 FROM generate_series(0::bigint, 999999) AS n");
    return;
  }
  for (int part = 0; part < 10; ++part) {
    store.write([&](EditStore::Transaction& tx) {
      std::vector<uint32_t> players;
      players.reserve(1000);
      for (int p = 0; p < 1000; ++p) players.push_back(tx.player("player-" + std::to_string(p)));
      for (int64_t k = 0; k < 100000; ++k) {
        const int64_t n = part * 100000 + k;
        v1::ChunkChange change;
        change.add_edits()->set_remove_object(static_cast<uint64_t>(n) * 0x9e3779b97f4a7c15ULL);
        tx.append({n % 100, (n / 100) % 100}, static_cast<uint64_t>(n / 10000) + 1, change.SerializeAsString(),
                  {players[static_cast<size_t>(n * 7919 % 1000)], 1765000000 + n / 100});
      }
    });
  }
}

// The store's bytes with the author and time columns less its bytes without them: dropped from a
// copy of the SQLite file; on PostgreSQL the rows' size with and without the two columns
// (alignment included): a VACUUM FULL of the table outlasts the connection's statement timeout.
int64_t authorship_bytes(EditStore& store, bool sqlite, const std::string& dir) {
  if (sqlite) {
    const std::string db = dir + "/edits.db", copy = dir + "/copy.db";
    const auto size = [](const std::string& path) { return static_cast<int64_t>(std::filesystem::file_size(path)); };
    const std::string sql = "sqlite3 " + copy + " ";
    if (std::system(("sqlite3 " + db + " \"VACUUM INTO '" + copy + "'\"").c_str()) != 0) return -1;
    const int64_t with = size(copy);
    if (std::system((sql + "'ALTER TABLE changes DROP COLUMN author'").c_str()) != 0 ||
        std::system((sql + "'ALTER TABLE changes DROP COLUMN committed_at'").c_str()) != 0 ||
        std::system((sql + "'VACUUM'").c_str()) != 0) {
      return -1;
    }
    return with - size(copy);
  }
  PgConnection c(store.describe(), "", -1, patient());
  return c.integer(
      "SELECT (sum(pg_column_size(ROW(seq, cx, cz, version, change, author, committed_at))) - "
      "sum(pg_column_size(ROW(seq, cx, cz, version, change))))::bigint FROM changes");
}

void BM_PlayerEdits(benchmark::State& state) {
  Rig rig(static_cast<int>(state.range(0)));
  fill_million(*rig.store, state.range(0) == 0);
  v1::EditLogRequest ask;
  ask.set_player("player-417");
  for (auto _ : state) {
    const v1::EditLogResponse log = edit_log(*rig.store, ask);
    if (log.entries_size() != 1000) state.SkipWithError("not 1,000 entries");
  }
  const StoreStats stats = rig.store->stats();
  state.counters["changes"] = static_cast<double>(stats.changes);
  state.counters["authorship_bytes_per_change"] =
      static_cast<double>(authorship_bytes(*rig.store, state.range(0) == 0, rig.dir)) /
      static_cast<double>(stats.changes);
}
// A fixed count: the store is filled once per run of the function, and that is the long part.
BENCHMARK(BM_PlayerEdits)
    ->ArgName("store")
    ->Arg(0)
    ->Arg(1)
    ->Iterations(10)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace chunkforge::server
