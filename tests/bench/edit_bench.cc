// Edits measured (docs/edits.md, "Measured"): in-process servers on a store of each kind — a
// SQLite file in a temporary directory (store:0), or a fresh database of a throwaway PostgreSQL
// cluster the benchmark starts (store:1) — with the generated stub as the client.
//   BM_EditCommit/store:S/threads:N   edits/s with N clients at once (group commit gathers them)
//   BM_EditToEvent/store:S            edit sent -> change event at a session on the same server
//   BM_EditToEventAcrossReplicas/store:S   ... at a session on a second server on the same store
//   BM_WarmGetChunk/edited:E          a cached chunk, pristine (0) or edited (1)
//   BM_RemovalChangeBytes/store:S     stored bytes of a one-object removal, and on disk
//   BM_ChangeHash/bounds:B            the writer's chunk_hash of a changed chunk (what each change
//                                     stores for clients to check): a big default-world chunk
//                                     as served (0), or one at the edit bounds (1)
//   BM_LongLog/changes:N              after N changes to one chunk (SQLite): an edit of it and
//                                     a read of its new version (a cache miss), medians
#include <benchmark/benchmark.h>
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>  // mkdtemp (POSIX, declared there by glibc)
#include <filesystem>
#include <memory>
#include <thread>

#include "chunkforge/chunk_hash.h"
#include "chunkforge/v1/service.grpc.pb.h"
#include "edits/edit_service.h"
#include "support/bench_store.h"
#include "world_server.h"

namespace chunkforge::server {
namespace {

std::string new_store(int kind, const std::string& dir) { return test::bench_store(kind, dir, "edit_bench"); }

// A server on `location`, with edits open to all.
struct Replica {
  std::shared_ptr<EditStore> store;
  std::unique_ptr<WorldServer> server;
  std::unique_ptr<v1::WorldService::Stub> stub;

  explicit Replica(const std::string& location) {
    ServerOptions options;
    options.listen = "127.0.0.1:0";
    options.http = "";
    options.store = open_store(location);
    bind_store(*options.store, default_world(), false);
    options.open_edits = true;
    store = options.store;
    server = std::make_unique<WorldServer>(default_world(), options);
    server->start();
    stub = v1::WorldService::NewStub(
        grpc::CreateChannel("127.0.0.1:" + std::to_string(server->port()), grpc::InsecureChannelCredentials()));
  }
  ~Replica() { server->shutdown(std::chrono::seconds(1)); }
};

struct Rig {
  std::string dir, location;
  std::unique_ptr<Replica> replica;
  EditStore* store;
  v1::WorldService::Stub* stub;

  explicit Rig(int kind) {
    char pattern[] = "/tmp/chunkforge_edit_bench_XXXXXX";
    dir = mkdtemp(pattern);
    location = new_store(kind, dir);
    replica = std::make_unique<Replica>(location);
    store = replica->store.get();
    stub = replica->stub.get();
  }
  ~Rig() {
    replica.reset();
    std::filesystem::remove_all(dir);
  }
  bool edit(const v1::EditRequest& request, v1::EditResponse* response = nullptr) {
    grpc::ClientContext context;
    v1::EditResponse ignored;
    return stub->Edit(&context, request, response ? response : &ignored).ok();
  }
  v1::Chunk chunk(int64_t x, int64_t z) {
    grpc::ClientContext context;
    v1::GetChunkRequest request;
    request.mutable_coord()->set_x(x);
    request.mutable_coord()->set_z(z);
    v1::Chunk out;
    stub->GetChunk(&context, request, &out);
    return out;
  }
};

v1::EditRequest add_at(int64_t x, int64_t z, int k) {
  v1::EditRequest request;
  v1::EditOp* op = request.add_ops();
  op->mutable_chunk()->set_x(x);
  op->mutable_chunk()->set_z(z);
  op->mutable_add_object()->set_x(static_cast<float>(k % 64));
  op->mutable_add_object()->set_z(static_cast<float>((k / 64) % 64));
  return request;
}

Rig* shared_rig = nullptr;

void BM_EditCommit(benchmark::State& state) {
  if (state.thread_index() == 0) {
    shared_rig = new Rig(static_cast<int>(state.range(0)));
    // Chunks players edit are the ones they look at: cached. 16 per client, warmed here.
    for (int row = 0; row < state.threads(); ++row) {
      for (int x = 0; x < 16; ++x) shared_rig->chunk(x, 100 + row);
    }
  }
  // Each client edits the 16 chunks of its own row in turn.
  int k = 0;
  for (auto _ : state) {
    if (!shared_rig->edit(add_at(k % 16, 100 + state.thread_index(), k))) state.SkipWithError("edit failed");
    ++k;
  }
  state.SetItemsProcessed(state.iterations());
  if (state.thread_index() == 0) {
    delete shared_rig;
    shared_rig = nullptr;
  }
}
BENCHMARK(BM_EditCommit)->ArgName("store")->Arg(0)->Arg(1)->Threads(1)->Threads(8)->Threads(32)->UseRealTime();

// Edit through `writer`, change event at a session on `watcher` (the same server or another).
void edit_to_event(benchmark::State& state, Rig& rig, v1::WorldService::Stub& watcher) {
  grpc::ClientContext context;
  auto session = watcher.Session(&context);
  v1::SessionUpdate update;
  update.set_x(32);
  update.set_z(32);
  update.set_view_radius(0);
  session->Write(update);
  v1::SessionEvent event;
  session->Read(&event);  // the load of chunk (0, 0)
  std::vector<double> ms;
  int k = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    rig.edit(add_at(0, 0, k++));
    if (!session->Read(&event) || !event.has_change()) state.SkipWithError("no change event");
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
  state.counters["p50_ms"] = ms[ms.size() / 2];
  state.counters["p99_ms"] = ms[ms.size() * 99 / 100];
  context.TryCancel();
}

void BM_EditToEvent(benchmark::State& state) {
  Rig rig(static_cast<int>(state.range(0)));
  edit_to_event(state, rig, *rig.stub);
}
BENCHMARK(BM_EditToEvent)->ArgName("store")->Arg(0)->Arg(1)->UseRealTime();

void BM_EditToEventAcrossReplicas(benchmark::State& state) {
  Rig rig(static_cast<int>(state.range(0)));
  Replica other(rig.location);
  edit_to_event(state, rig, *other.stub);
}
BENCHMARK(BM_EditToEventAcrossReplicas)->ArgName("store")->Arg(0)->Arg(1)->UseRealTime();

void BM_WarmGetChunk(benchmark::State& state) {
  Rig rig(0);
  const bool edited = state.range(0) == 1;
  if (edited) rig.edit(add_at(0, 0, 1));
  rig.chunk(0, 0);  // warm
  for (auto _ : state) benchmark::DoNotOptimize(rig.chunk(0, 0));
}
BENCHMARK(BM_WarmGetChunk)->ArgName("edited")->Arg(0)->Arg(1)->UseRealTime();

// The cost a change's chunk_hash adds to the writer, per changed chunk of a batch: one
// serialization and hash of the chunk as the batch left it. At the bounds: 4096 added objects
// and 256 KiB of object states (docs/edits.md, "Limits").
void BM_ChangeHash(benchmark::State& state) {
  Rig rig(0);
  v1::Chunk chunk;  // the biggest of a 4 x 4 block: a forest chunk rather than open water
  for (int64_t z = 0; z < 4; ++z) {
    for (int64_t x = 0; x < 4; ++x) {
      v1::Chunk c = rig.chunk(x, z);
      if (c.ByteSizeLong() > chunk.ByteSizeLong()) chunk = std::move(c);
    }
  }
  if (state.range(0) == 1) {
    v1::Objects& o = *chunk.mutable_objects();
    for (int i = 0; i < 4096; ++i) {
      o.add_layer(0);
      o.add_x(static_cast<float>(i % 64));
      o.add_z(static_cast<float>(i >> 6));  // the row: i / 64
      o.add_y(12.5f);
      o.add_yaw(90);
      o.add_variant(0);
      o.add_id(0x9e3779b97f4a7c15ULL * static_cast<uint64_t>(i + 1));
    }
    for (int i = 0; i < 1024; ++i) {
      v1::ObjectState* s = chunk.add_object_states();
      s->set_id(o.id(i));
      s->set_state(std::string(256, 'w'));
    }
  }
  for (auto _ : state) benchmark::DoNotOptimize(chunk_hash(chunk));
  state.counters["chunk_bytes"] = static_cast<double>(chunk.ByteSizeLong());
}
BENCHMARK(BM_ChangeHash)->ArgName("bounds")->Arg(0)->Arg(1);

// Bytes of the stored change per one-object removal, and what the store grew on disk per
// removal (rows, indexes, page slack) from its empty schema.
void BM_RemovalChangeBytes(benchmark::State& state) {
  Rig rig(static_cast<int>(state.range(0)));
  const StoreStats empty = rig.store->stats();  // the schema's own pages are not the edits'
  uint64_t removals = 0;
  for (auto _ : state) {
    const int64_t x = static_cast<int64_t>(removals++);
    const v1::Chunk c = rig.chunk(x, 7);
    if (c.objects().id_size() == 0) continue;
    v1::EditRequest request;
    v1::EditOp* op = request.add_ops();
    op->mutable_chunk()->set_x(x);
    op->mutable_chunk()->set_z(7);
    op->set_remove_object(c.objects().id(0));
    rig.edit(request);
  }
  const StoreStats stats = rig.store->stats();
  const double changes = static_cast<double>(std::max<uint64_t>(stats.changes, 1));
  state.counters["change_bytes_per_removal"] = static_cast<double>(stats.change_bytes) / changes;
  state.counters["disk_bytes_per_removal"] = static_cast<double>(stats.disk_bytes - empty.disk_bytes) / changes;
}
BENCHMARK(BM_RemovalChangeBytes)->ArgName("store")->Arg(0)->Arg(1)->Iterations(500)->UseRealTime();

// Writes `changes` one-op changes (a state set and cleared in turn) to chunk (0, 0) straight
// through the store, as the server's writer would (commit_batch: snapshots included), 10,000 to
// a transaction; the chunk holds one added object. Returns that object's id.
uint64_t write_long_log(Rig& rig, int64_t changes) {
  const v1::Chunk base = rig.chunk(0, 0);  // pristine: the generated base itself
  v1::EditResponse added;
  rig.edit(add_at(0, 0, 1), &added);
  const uint64_t id = added.added_ids(0);
  const BaseChunks bases{{ChunkCoord{0, 0}, base}};
  for (int64_t done = 1; done < changes;) {
    rig.store->write([&](EditStore::Transaction& tx) {
      GroupChunks group;
      for (int k = 0; k < 10000 && done < changes; ++k, ++done) {
        v1::EditRequest request;
        v1::EditOp* op = request.add_ops();
        op->mutable_set_state()->set_id(id);
        op->mutable_set_state()->set_state(done % 2 ? "lit" : "");
        v1::EditResponse response;
        std::vector<v1::ChunkChange> out;
        commit_batch(default_world(), tx, request, bases, group, response, out);
      }
    });
  }
  EditService& edits = *rig.replica->server->edits();
  while (edits.version({0, 0}) < static_cast<uint64_t>(changes)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));  // the tail raises the index
  }
  return id;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

void BM_LongLog(benchmark::State& state) {
  Rig rig(0);
  const uint64_t id = write_long_log(rig, state.range(0));
  std::vector<double> edit_ms, read_ms;
  int k = 0;
  for (auto _ : state) {
    v1::EditRequest request;
    v1::EditOp* op = request.add_ops();
    op->mutable_chunk();
    op->mutable_set_state()->set_id(id);
    op->mutable_set_state()->set_state(std::to_string(k++));
    auto start = std::chrono::steady_clock::now();
    if (!rig.edit(request)) state.SkipWithError("edit failed");
    edit_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    start = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(rig.chunk(0, 0));  // its new version: not cached yet
    read_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  state.counters["edit_ms"] = median(edit_ms);
  state.counters["read_ms"] = median(read_ms);
}
BENCHMARK(BM_LongLog)->ArgName("changes")->Arg(10)->Arg(1000)->Arg(100000)->Iterations(200)->UseRealTime();

}  // namespace
}  // namespace chunkforge::server
