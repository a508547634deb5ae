// Hostile LOD sessions (docs/lod.md, "Sessions") against the server binary: 16 sessions at the
// largest LOD radius (1,024 chunks), all but one teleporting to ground nobody saw (every tile
// of its view new), half of them every 10 ms and half every 500 ms, one switching its finest level
// between 0 and 24 at each move, two their LOD radius between 1,024 and 0, four making their
// pristine tiles themselves (LocalGeneration.generates_tiles: keys, nothing made, so they
// press the bookkeeping), one standing still, and one more that never reads. Their
// chunk view is one chunk: tiles come after every chunk, and radius-16 views teleporting every
// 10 ms would leave the tiles nothing (hostile_client_test.cc and the local sessions' scenario
// press the chunks). What bounds them: at most 4 tiles being made or ready per session, tiles
// after every view's chunks in the queue and dropped once no view wants them, unloads held back
// at most 512, an update read every 50 ms, the tiles' bytes in the chunk cache's budget. Besides
// the harness's bounds: tiles were sent and unloaded, so the attack measured that path.
#include "harness.h"

#include <atomic>

namespace chunkforge::hostile {
namespace {

struct Seen {
  std::atomic<int> tiles{0}, unloads{0}, pristine_tiles{0}, stayer_tiles{0};
};

// One traveller never moves: a player standing still while the others teleport gets its tiles.
// Under ASan in CI with the suite beside it, the travellers staying 500 ms once got no tile in
// the whole attack; this one measures the path however slow the machine, and is the fairness
// the attack must not break.
constexpr size_t kStayer = 5;

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

void teleport(ServerProcess& server, Seen& seen, const std::stop_token& stop) {
  struct Traveller {
    grpc::ClientContext context;
    std::unique_ptr<grpc::ClientReaderWriter<v1::SessionUpdate, v1::SessionEvent>> stream;
    std::jthread reader;
  };
  auto stub = v1::WorldService::NewStub(server.channel());
  std::vector<std::unique_ptr<Traveller>> travellers;
  for (size_t s = 0; s < 17; ++s) {
    auto t = std::make_unique<Traveller>();
    t->stream = stub->Session(&t->context);
    if (s > 0) {  // the first never reads
      t->reader = std::jthread([stream = t->stream.get(), &seen, stays = s == kStayer] {
        v1::SessionEvent event;
        while (stream->Read(&event)) {
          seen.tiles += event.has_lod_tile() ? 1 : 0;
          if (stays) seen.stayer_tiles += event.has_lod_tile() ? 1 : 0;
          seen.unloads += event.has_lod_unload() ? 1 : 0;
          seen.pristine_tiles += event.lod_pristine().levels_size();
        }
      });
    }
    travellers.push_back(std::move(t));
  }
  const v1::LocalGeneration local = makes_tiles(*stub);
  v1::SessionUpdate update;
  update.set_view_radius(0);
  for (int64_t k = 0; !stop.stop_requested(); ++k) {
    for (size_t s = 0; s < travellers.size(); ++s) {
      update.clear_local_generation();
      if (k == 0 && s >= 13) *update.mutable_local_generation() = local;
      // The odd travellers stay 500 ms at each place, so that some tiles arrive and are unloaded
      // however slow the server (under a sanitizer, 5 to 10 times); the even ones never wait.
      const bool slow = s % 2 == 1;
      if ((slow && k % 50 != 0) || (s == kStayer && k > 0)) continue;
      const int64_t move = slow ? k / 50 : k;
      update.set_x(static_cast<double>(move + 1) * 3e6);
      update.set_z(static_cast<double>(s) * 1e8);
      update.set_lod_finest_level(s == 1 ? static_cast<uint32_t>(24 * (move % 2)) : 0);
      update.set_lod_radius((s == 2 || s == 3) && move % 2 == 1 ? 0 : 1024);
      travellers[s]->stream->Write(update);  // may fail once the server ended it: it goes on
    }
    std::this_thread::sleep_for(10ms);
  }
  for (auto& t : travellers) t->context.TryCancel();
  for (auto& t : travellers) {
    if (t->reader.joinable()) t->reader.join();
  }
}

TEST(HostileScenario, LodSessionsTeleportingOverFreshGround) {
  // Tiles share the chunk cache's bytes: at 256 MB (the default), a form of this attack whose
  // travellers all moved every 10 ms filled it within its 8 s (45,000 tiles), and the harness's
  // bound on RSS growth is the default cache itself. With 128 MB the growth shows the cache's
  // bound and what the LOD path adds beside it.
  Scenario scenario("lod_sessions", {"--cache-mb", "128"});
  ASSERT_TRUE(scenario.server().serving()) << scenario.server().log();
  Seen seen;
  scenario.attack(8s, [&](const std::stop_token& stop) { teleport(scenario.server(), seen, stop); });
  scenario.expect_within_bounds();
  std::printf("hostile lod_sessions: %d tiles (%d to the one standing still), %d tile unloads, %d pristine tile keys\n",
              seen.tiles.load(), seen.stayer_tiles.load(), seen.unloads.load(), seen.pristine_tiles.load());
  EXPECT_GT(seen.stayer_tiles, 0);
  EXPECT_GT(seen.pristine_tiles, 0);
  EXPECT_GT(seen.unloads, 0);
}

}  // namespace
}  // namespace chunkforge::hostile
