// Hostile LOD sessions from the review of unloads (docs/lod.md, "Sessions"; docs/server.md,
// "Limits and what a client cannot do"): 10 sessions whose client makes its own LOD tiles
// (LocalGeneration.generates_tiles: the server sends keys, makes nothing) at the largest LOD
// radius, each teleporting to ground nobody saw every 50 ms (the pace a LOD session's updates
// are read at), beside 40 ordinary LOD sessions (old clients: the server makes their tiles, and
// sends their unloads one per event) walking in four groups. Each teleport turns over a whole
// LOD view, 400 to 455 tiles: one `lod_unload` event per tile was about 90,000 events a second
// from the ten in the review (37,000 to 44,000 here, the readers on the server's two cores),
// and a warm GetChunk's p99 went to seconds beside them. The tile makers accept unload batches
// (SessionEvent.lod_unloads): a teleport's unloads are one event. Besides the harness's bounds:
// the tile makers' events a second stay below a tenth of the review's, and tiles were made,
// sent and unloaded, so the attack measured that path.
#include "harness.h"

#include <atomic>

namespace chunkforge::hostile {
namespace {

struct Seen {
  std::atomic<int64_t> maker_events{0}, maker_unload_events{0}, maker_unloads{0}, maker_keys{0};
  std::atomic<int64_t> walker_tiles{0}, walker_unloads{0}, walker_tile_unloads{0};
  std::atomic<int64_t> teleports{0};
  // The tile makers' events in the attack's first kMeasured seconds (before the harness's SIGTERM).
  int64_t measured_events = 0;
  double measured_seconds = 0;
};

constexpr double kMeasured = 7;

using Stream = grpc::ClientReaderWriter<v1::SessionUpdate, v1::SessionEvent>;

struct Player {
  std::unique_ptr<v1::WorldService::Stub> stub;  // a connection of its own, as a game's player has
  grpc::ClientContext context;
  std::unique_ptr<Stream> stream;
  std::jthread reader;
};

// What a client that makes its tiles asks in its first update.
v1::LocalGeneration makes_tiles(v1::WorldService::Stub& stub) {
  grpc::ClientContext context;
  v1::WorldInfo info;
  EXPECT_TRUE(stub.GetWorldInfo(&context, {}, &info).ok());
  v1::LocalGeneration local;
  local.add_generator_versions(info.generator_version());
  local.set_fingerprint(info.fingerprint());
  local.set_generates_tiles(true);
  return local;
}

// The tile makers' reader: every event counted, and the tile unloads in it, one a key.
void read_as_maker(Stream& stream, Seen& seen) {
  v1::SessionEvent event;
  while (stream.Read(&event)) {
    ++seen.maker_events;
    seen.maker_keys += event.lod_pristine().levels_size();
    const int unloads = (event.has_lod_unload() ? 1 : 0) + event.lod_unloads().levels_size();
    seen.maker_unload_events += unloads > 0 ? 1 : 0;
    seen.maker_unloads += unloads;
  }
}

void read_as_walker(Stream& stream, Seen& seen) {
  v1::SessionEvent event;
  while (stream.Read(&event)) {
    seen.walker_tiles += event.has_lod_tile() ? 1 : 0;
    seen.walker_unloads += event.has_unload() ? 1 : 0;
    seen.walker_tile_unloads += event.has_lod_unload() ? 1 : 0;
  }
}

// An ordinary player's update: group g's place, walking east a chunk every 500 ms. An old
// client: one unload per event.
v1::SessionUpdate walker_update(int group, int64_t step) {
  v1::SessionUpdate update;
  update.set_x(static_cast<double>(step) * 64 + 32);
  update.set_z(static_cast<double>(group) * 2e6 + 32);
  update.set_view_radius(4);
  update.set_lod_radius(1024);
  update.set_lod_finest_level(5);  // docs/lod.md: the level a game that walks picks
  return update;
}

v1::SessionUpdate maker_update(int maker, int64_t teleport, const v1::LocalGeneration* first) {
  v1::SessionUpdate update;
  if (first != nullptr) *update.mutable_local_generation() = *first;
  update.set_x(static_cast<double>(teleport + 1) * 3e6);
  update.set_z(static_cast<double>(maker) * 1e8 + 5e9);
  update.set_view_radius(0);
  update.set_lod_radius(1024);
  update.set_accept_unload_batches(true);
  return update;
}

void attack(ServerProcess& server, Seen& seen, const std::stop_token& stop) {
  auto stub = v1::WorldService::NewStub(server.channel());
  const v1::LocalGeneration local = makes_tiles(*stub);
  std::vector<std::unique_ptr<Player>> makers, walkers;
  for (int s = 0; s < 40; ++s) {
    auto p = std::make_unique<Player>();
    p->stub = v1::WorldService::NewStub(server.channel());
    p->stream = p->stub->Session(&p->context);
    p->stream->Write(walker_update(s % 4, 0));
    p->reader = std::jthread([stream = p->stream.get(), &seen] { read_as_walker(*stream, seen); });
    walkers.push_back(std::move(p));
  }
  for (int s = 0; s < 10; ++s) {
    auto p = std::make_unique<Player>();
    p->stub = v1::WorldService::NewStub(server.channel());
    p->stream = p->stub->Session(&p->context);
    p->reader = std::jthread([stream = p->stream.get(), &seen] { read_as_maker(*stream, seen); });
    makers.push_back(std::move(p));
  }
  const auto start = Clock::now();
  for (int64_t k = 0; !stop.stop_requested(); ++k) {
    if (seen.measured_seconds == 0 && seconds_since(start) >= kMeasured) {
      seen.measured_events = seen.maker_events;
      seen.measured_seconds = seconds_since(start);
    }
    for (size_t s = 0; s < makers.size(); ++s) {
      makers[s]->stream->Write(maker_update(static_cast<int>(s), k, k == 0 ? &local : nullptr));  // may fail: goes on
    }
    ++seen.teleports;
    if (k % 10 == 9) {
      for (size_t s = 0; s < walkers.size(); ++s) walkers[s]->stream->Write(walker_update(s % 4, k / 10 + 1));
    }
    std::this_thread::sleep_for(50ms);
  }
  for (auto* group : {&makers, &walkers}) {
    for (auto& p : *group) p->context.TryCancel();
  }
  for (auto* group : {&makers, &walkers}) {
    for (auto& p : *group) p->reader.join();
  }
}

TEST(HostileScenario, TileMakersTeleportingBesideOrdinaryLodSessions) {
  Scenario scenario("tile_unloads", {"--cache-mb", "128"});
  ASSERT_TRUE(scenario.server().serving()) << scenario.server().log();
  Seen seen;
  scenario.attack(8s, [&](const std::stop_token& stop) { attack(scenario.server(), seen, stop); });
  scenario.expect_within_bounds();  // the attacker's thread has ended: its figures are in `seen`
  const double seconds = seen.measured_seconds;
  ASSERT_GT(seconds, 0);
  const double per_second = static_cast<double>(seen.measured_events) / seconds;
  std::printf(
      "hostile tile_unloads: tile makers: %lld events in %.1f s (%.0f a second), %lld teleports each; in all %lld "
      "pristine keys, %lld tile unloads in %lld events; walkers: %lld tiles, %lld chunk and %lld tile unloads\n",
      static_cast<long long>(seen.measured_events), seconds, per_second, static_cast<long long>(seen.teleports),
      static_cast<long long>(seen.maker_keys), static_cast<long long>(seen.maker_unloads),
      static_cast<long long>(seen.maker_unload_events), static_cast<long long>(seen.walker_tiles),
      static_cast<long long>(seen.walker_unloads), static_cast<long long>(seen.walker_tile_unloads));
  EXPECT_LT(per_second, 9000) << "a tenth of the review's 90,000 events a second";
  EXPECT_GT(seen.maker_keys, 0);
  EXPECT_GT(seen.maker_unloads, 0);
  // A walker's tiles come after every chunk of its view. Under ASan, with a second run of this
  // test on the two cores, the walkers' views were not all sent within the attack (0 tiles, as
  // in CI): their tiles are reported there, not held.
  if (!sanitized()) {
    EXPECT_GT(seen.walker_tiles, 0);
  }
  EXPECT_GT(seen.walker_unloads, 0) << "the old clients got their unloads one per event";
}

}  // namespace
}  // namespace chunkforge::hostile
