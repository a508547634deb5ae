// LOD tiles through real Sessions (docs/lod.md, "Sessions", "Measured"): an in-process server
// on a loopback port (two generation threads, as this machine has cores), players on the
// generated stub, one thread each.
//   BM_LodTeleport/players:P/view:V/shared:S/finest:F/local:L   P players jump at once to fresh
//       ground (each to its own place, or S = 1: all to one place), LOD radius 1,024 chunks,
//       finest tile level F, a chunk view of radius V: the time until every player holds exactly
//       its new view (tiles and chunks). L = 1: players that generate locally, tiles too
//       (LocalGeneration.generates_tiles), which get pristine tiles as keys; these players make
//       nothing, so the time is the server's alone. Counters: LOD bytes (tiles, or keys) and
//       tiles per player per teleport.
//   BM_LodWalk/view:V/finest:F/local:L   one player walks one chunk at a time (LOD radius
//       1,024): the LOD bytes each step costs, and those per second at 10 chunks a second.
// The positions are fresh for every teleport, so the cache never holds their tiles (except
// the coarsest, which neighbouring teleports may share).
#include <benchmark/benchmark.h>
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "chunkforge/lod.h"
#include "chunkforge/v1/service.grpc.pb.h"
#include "chunkforge/world_extent.h"
#include "support/lod_expected.h"
#include "world_server.h"

namespace chunkforge::server {
namespace {

constexpr uint32_t kLodRadius = 1024;

// One server per benchmark, shut down as the benchmark ends (after its players): a server still
// running at exit would meet the static destructors (ASan saw a use after free).
class BenchServer {
 public:
  BenchServer() {
    ServerOptions options;
    options.listen = "127.0.0.1:0";
    options.http = "";
    options.threads = 2;
    options.cache_mb = 256;
    options.limits.max_sessions = 200;
    server_ = std::make_unique<WorldServer>(default_world(), options);
    if (!server_->start()) std::abort();
  }
  ~BenchServer() { server_->shutdown(std::chrono::seconds(2)); }
  std::unique_ptr<v1::WorldService::Stub> new_stub() const {
    return v1::WorldService::NewStub(
        grpc::CreateChannel("127.0.0.1:" + std::to_string(server_->port()), grpc::InsecureChannelCredentials()));
  }

 private:
  std::unique_ptr<WorldServer> server_;
};

// One player: its session, what it holds, and the tile bytes it read.
class Player {
 public:
  Player(v1::WorldService::Stub& stub, bool makes_tiles) : stream_(stub.Session(&context_)) {
    if (!makes_tiles) return;
    v1::LocalGeneration& local = *first_.mutable_local_generation();
    local.add_generator_versions(default_world().generator_version());
    local.set_fingerprint(default_world().fingerprint());
    local.set_generates_tiles(true);
  }
  ~Player() {
    stream_->WritesDone();
    context_.TryCancel();
    stream_->Finish().IgnoreError();
  }

  // Moves to (x, z) and reads until it holds exactly the view there: false if the stream ended.
  bool go(double x, double z, uint32_t view_radius, uint32_t finest_level) {
    v1::SessionUpdate update = std::exchange(first_, {});
    update.set_x(x);
    update.set_z(z);
    update.set_view_radius(view_radius);
    update.set_lod_radius(kLodRadius);
    update.set_lod_finest_level(finest_level);
    if (!stream_->Write(update)) return false;
    const std::set<LodKey> tiles = expected_tiles(x, z, view_radius, static_cast<int>(finest_level));
    const size_t side = 2 * size_t{view_radius} + 1;
    // A session that generates gets no chunk unloads: it drops what left its view itself.
    const auto size = static_cast<uint32_t>(default_world().chunk_size());
    const int64_t cx = chunk_coordinate(x, size), cz = chunk_coordinate(z, size);
    std::erase_if(chunks_, [&](const auto& c) {
      return std::max(std::abs(c.first - cx), std::abs(c.second - cz)) > int64_t{view_radius};
    });
    v1::SessionEvent event;
    while (tiles_ != tiles || chunks_.size() != side * side) {
      if (!stream_->Read(&event)) return false;
      take(event);
    }
    return true;
  }

  uint64_t tile_bytes = 0, tiles_loaded = 0;

 private:
  static std::set<LodKey> expected_tiles(double x, double z, int64_t view_radius, int finest_level) {
    return test::expected_session_tiles(default_world().chunk_size(), x, z, view_radius, kLodRadius, finest_level);
  }

  void take(const v1::SessionEvent& event) {
    if (event.has_lod_tile()) {
      const v1::LodTileKey& k = event.lod_tile().key();
      tiles_.insert({static_cast<int>(k.level()), k.x(), k.z()});
      tile_bytes += event.lod_tile().ByteSizeLong();
      ++tiles_loaded;
    } else if (event.has_lod_pristine()) {
      const std::vector<LodKey> keys = test::pristine_tile_keys(event.lod_pristine());
      tiles_.insert(keys.begin(), keys.end());
      tile_bytes += event.lod_pristine().ByteSizeLong();
      tiles_loaded += keys.size();
    } else if (event.has_pristine()) {
      const v1::PristineChunks& p = event.pristine();
      for (int k = 0; k + 1 < p.offsets_size(); k += 2) {
        chunks_.insert({p.origin().x() + p.offsets(k), p.origin().z() + p.offsets(k + 1)});
      }
    } else if (event.has_lod_unload()) {
      tiles_.erase({static_cast<int>(event.lod_unload().level()), event.lod_unload().x(), event.lod_unload().z()});
    } else if (event.has_load()) {
      chunks_.insert({event.load().coord().x(), event.load().coord().z()});
    } else if (event.has_unload()) {
      chunks_.erase({event.unload().x(), event.unload().z()});
    }
  }

  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReaderWriter<v1::SessionUpdate, v1::SessionEvent>> stream_;
  std::set<LodKey> tiles_;
  std::set<std::pair<int64_t, int64_t>> chunks_;
  v1::SessionUpdate first_;  // what the first update carries besides the place
};

// Fresh ground for every teleport: 2^21 units (32,768 chunks) apart.
double fresh_place() {
  static int64_t next = 1;
  return static_cast<double>(next++) * double(int64_t{1} << 21) + 1000.5;
}

void BM_LodTeleport(benchmark::State& state) {
  const auto players = static_cast<int>(state.range(0));
  const auto view_radius = static_cast<uint32_t>(state.range(1));
  const bool shared = state.range(2) != 0;
  const auto finest = static_cast<uint32_t>(state.range(3));
  const bool local = state.range(4) != 0;
  const BenchServer server;
  auto stub = server.new_stub();
  std::vector<std::unique_ptr<Player>> group;
  for (int i = 0; i < players; ++i) group.push_back(std::make_unique<Player>(*stub, local));
  uint64_t bytes = 0, tiles = 0, teleports = 0;
  for (auto _ : state) {
    std::vector<double> places(group.size());
    const double together = fresh_place();
    for (double& p : places) p = shared ? together : fresh_place();
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::thread> threads;
    bool ok = true;
    for (size_t i = 0; i < group.size(); ++i) {
      threads.emplace_back([&, i] {
        if (!group[i]->go(places[i], -places[i] / 2, view_radius, finest)) ok = false;
      });
    }
    for (std::thread& t : threads) t.join();
    state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (!ok) state.SkipWithError("a session ended");
    teleports += group.size();
  }
  for (const auto& p : group) bytes += p->tile_bytes, tiles += p->tiles_loaded;
  state.counters["tile_bytes_per_teleport"] = static_cast<double>(bytes) / static_cast<double>(teleports);
  state.counters["tiles_per_teleport"] = static_cast<double>(tiles) / static_cast<double>(teleports);
}
BENCHMARK(BM_LodTeleport)
    ->ArgNames({"players", "view", "shared", "finest", "local"})
    ->Args({1, 0, 0, 0, 0})
    ->Args({1, 8, 0, 0, 0})
    ->Args({1, 0, 0, 5, 0})
    ->Args({50, 0, 0, 0, 0})
    ->Args({50, 0, 0, 5, 0})
    ->Args({50, 0, 1, 0, 0})
    ->Args({1, 0, 0, 0, 1})
    ->Args({50, 0, 0, 0, 1})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(5);

void BM_LodWalk(benchmark::State& state) {
  const auto view_radius = static_cast<uint32_t>(state.range(0));
  const auto finest = static_cast<uint32_t>(state.range(1));
  const bool local = state.range(2) != 0;
  const BenchServer server;
  auto stub = server.new_stub();
  Player player(*stub, local);
  const double z = -fresh_place();
  double x = fresh_place();
  if (!player.go(x, z, view_radius, finest)) return state.SkipWithError("the session ended");
  const uint64_t before = player.tile_bytes;
  uint64_t steps = 0;
  for (auto _ : state) {
    x += static_cast<double>(default_world().chunk_size());
    if (!player.go(x, z, view_radius, finest)) return state.SkipWithError("the session ended");
    ++steps;
  }
  const double per_step = static_cast<double>(player.tile_bytes - before) / static_cast<double>(steps);
  state.counters["tile_bytes_per_step"] = per_step;
  state.counters["tile_bytes_per_s_at_10_chunks_per_s"] = 10 * per_step;
}
BENCHMARK(BM_LodWalk)
    ->ArgNames({"view", "finest", "local"})
    ->ArgsProduct({{0, 8}, {0, 3, 5}, {0}})
    ->Args({0, 0, 1})
    ->Iterations(200)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace chunkforge::server
