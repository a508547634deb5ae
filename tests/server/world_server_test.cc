// The world server for real: an in-process WorldServer on a loopback port (0: any free one)
// and the generated gRPC stub as the client.
#include "world_server.h"

#include <google/protobuf/util/message_differencer.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <atomic>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <set>
#include <thread>

#include "chunkforge/encode.h"
#include "chunkforge/v1/service.grpc.pb.h"
#include "support/certificate.h"
#include "support/server_process.h"
#include "support/temp_dir.h"

namespace chunkforge::server {
namespace {

class WorldServerTest : public testing::Test {
 protected:
  void SetUp() override {
    ServerOptions options;
    options.listen = "127.0.0.1:0";
    options.http = "127.0.0.1:0";
    options.threads = 2;
    options.cache_mb = 64;
    options.limits.max_radius = 8;
    options.limits.max_sessions = 2;
    start(options);
  }
  void TearDown() override { server_->shutdown(std::chrono::seconds(2)); }

  // Starts the server with `options` (replacing the running one), and the stub for it.
  void start(const ServerOptions& options) {
    if (server_) server_->shutdown(std::chrono::seconds(2));
    server_ = std::make_unique<WorldServer>(default_world(), options);
    ASSERT_TRUE(server_->start());
    channel_ = grpc::CreateChannel("127.0.0.1:" + std::to_string(server_->port()), grpc::InsecureChannelCredentials());
    stub_ = v1::WorldService::NewStub(channel_);
  }

  // The chunk as the library encodes it offline, canonical bytes.
  static std::string offline(int64_t x, int64_t z) {
    return canonical_bytes(encode_chunk(default_world(), Generator(default_world()).generate({x, z})));
  }

  grpc::Status get_chunk(int64_t x, int64_t z, v1::Chunk& out, const v1::ChunkOptions& options = {}) {
    grpc::ClientContext context;
    v1::GetChunkRequest request;
    request.mutable_coord()->set_x(x);
    request.mutable_coord()->set_z(z);
    *request.mutable_options() = options;
    return stub_->GetChunk(&context, request, &out);
  }

  std::vector<v1::Chunk> stream_region(int64_t x, int64_t z, uint32_t radius, grpc::Status& status) {
    grpc::ClientContext context;
    v1::StreamRegionRequest request;
    request.mutable_centre()->set_x(x);
    request.mutable_centre()->set_z(z);
    request.set_radius(radius);
    std::vector<v1::Chunk> chunks;
    auto reader = stub_->StreamRegion(&context, request);
    v1::Chunk chunk;
    while (reader->Read(&chunk)) chunks.push_back(chunk);
    status = reader->Finish();
    return chunks;
  }

  // Loads of a first view read from `session` until `count` chunks came, each checked against
  // offline generation; the number of events they came in.
  static int read_loads(grpc::ClientReaderWriter<v1::SessionUpdate, v1::SessionEvent>& session, size_t count,
                        std::set<std::pair<int64_t, int64_t>>& seen) {
    int events = 0;
    v1::SessionEvent event;
    while (seen.size() < count && session.Read(&event)) {
      ++events;
      EXPECT_TRUE(event.has_loads());
      for (const v1::Chunk& chunk : event.loads().chunks()) {
        EXPECT_TRUE(seen.insert({chunk.coord().x(), chunk.coord().z()}).second) << "loaded twice";
        EXPECT_EQ(canonical_bytes(chunk), offline(chunk.coord().x(), chunk.coord().z()));
      }
    }
    return events;
  }

  std::unique_ptr<WorldServer> server_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::WorldService::Stub> stub_;
};

TEST_F(WorldServerTest, WorldInfoIsTheLibrarysDescription) {
  grpc::ClientContext context;
  v1::WorldInfo info;
  ASSERT_TRUE(stub_->GetWorldInfo(&context, v1::GetWorldInfoRequest{}, &info).ok());
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(info, describe_world(default_world())));
  EXPECT_EQ(info.fingerprint(), default_world().fingerprint());
}

TEST_F(WorldServerTest, ChunkIsByteIdenticalToOfflineGeneration) {
  for (auto [x, z] : {std::pair{0, 0}, std::pair{-3, 7}, std::pair{12, -5}}) {
    v1::Chunk chunk;
    ASSERT_TRUE(get_chunk(x, z, chunk).ok());
    EXPECT_EQ(canonical_bytes(chunk), offline(x, z)) << x << "," << z;
  }
}

TEST_F(WorldServerTest, OptionsAddTerrainAndFilterLayers) {
  v1::ChunkOptions options;
  options.set_include_terrain(true);
  options.set_terrain_step(4);
  options.add_layers(0);
  v1::Chunk chunk;
  ASSERT_TRUE(get_chunk(2, 3, chunk, options).ok());
  EXPECT_EQ(chunk.terrain().size(), 16u);
  EXPECT_EQ(chunk.terrain().elevation_size(), 256);
  ASSERT_GT(chunk.objects().layer_size(), 0);
  for (uint32_t layer : chunk.objects().layer()) EXPECT_EQ(layer, 0u);
  // The same objects of layer 0 as the unfiltered chunk.
  v1::Chunk all;
  ASSERT_TRUE(get_chunk(2, 3, all).ok());
  int forest = 0;
  for (uint32_t layer : all.objects().layer()) forest += layer == 0;
  EXPECT_EQ(chunk.objects().layer_size(), forest);
}

TEST_F(WorldServerTest, StreamRegionIsNearestFirstAndIdenticalToOffline) {
  grpc::Status status;
  const std::vector<v1::Chunk> chunks = stream_region(5, -2, 2, status);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(chunks.size(), 25u);
  int64_t previous = -1;
  for (const v1::Chunk& c : chunks) {
    const int64_t dx = c.coord().x() - 5, dz = c.coord().z() + 2;
    EXPECT_GE(dx * dx + dz * dz, previous);
    previous = dx * dx + dz * dz;
    EXPECT_EQ(canonical_bytes(c), offline(c.coord().x(), c.coord().z()));
  }
  EXPECT_EQ(chunks.front().coord().x(), 5);
  EXPECT_EQ(chunks.front().coord().z(), -2);
}

TEST_F(WorldServerTest, ConcurrentRequestsInAnyOrderGetTheSameBytes) {
  // Two overlapping streams and single chunks, all at once: every chunk equals offline output.
  std::vector<std::thread> clients;
  clients.reserve(3);
  std::atomic<int> mismatches{0}, failures{0};
  for (int k = 0; k < 3; ++k) {
    clients.emplace_back([&, k] {
      grpc::Status status;
      for (const v1::Chunk& c : stream_region(k - 1, 1, 2, status)) {
        mismatches += canonical_bytes(c) != offline(c.coord().x(), c.coord().z());
      }
      failures += !status.ok();
    });
  }
  clients.emplace_back([&] {
    for (int z = 3; z >= -1; --z) {
      v1::Chunk chunk;
      failures += !get_chunk(0, z, chunk).ok();
      mismatches += canonical_bytes(chunk) != offline(0, z);
    }
  });
  for (std::thread& t : clients) t.join();
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(mismatches, 0);
}

TEST_F(WorldServerTest, RepeatedChunkIsACacheHitAndConcurrentMissesShareOneGeneration) {
  std::vector<std::thread> clients;
  clients.reserve(8);
  for (int k = 0; k < 8; ++k) {
    clients.emplace_back([&] {
      v1::Chunk chunk;
      EXPECT_TRUE(get_chunk(40, 40, chunk).ok());
    });
  }
  for (std::thread& t : clients) t.join();
  const CacheStats stats = server_->cache().stats();
  EXPECT_EQ(stats.misses, 1u) << "one generation for eight concurrent requests";
  EXPECT_EQ(stats.misses + stats.joined + stats.hits, 8u);
  v1::Chunk again;
  ASSERT_TRUE(get_chunk(40, 40, again).ok());
  EXPECT_EQ(server_->cache().stats().hits, stats.hits + 1);
  EXPECT_EQ(server_->cache().stats().entries, 1u);
}

TEST_F(WorldServerTest, BadRequestsGetInvalidArgumentNamingTheField) {
  v1::Chunk chunk;
  grpc::Status s = get_chunk(int64_t{1} << 40, 0, chunk);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(s.error_message().find("coord.x: must be in"), std::string::npos) << s.error_message();

  v1::ChunkOptions options;
  options.set_include_terrain(true);
  options.set_terrain_step(3);
  s = get_chunk(0, 0, chunk, options);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(s.error_message().find("options.terrain_step"), std::string::npos) << s.error_message();

  v1::ChunkOptions layers;
  layers.add_layers(99);
  s = get_chunk(0, 0, chunk, layers);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(s.error_message().find("options.layers"), std::string::npos) << s.error_message();

  grpc::Status status;
  EXPECT_TRUE(stream_region(0, 0, 9, status).empty());
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message(), "radius: must be in [0, 8] (got 9)");
}

TEST_F(WorldServerTest, DeadlineEndsTheCallAndItsQueuedWork) {
  // 289 chunks cannot be generated in 30 ms: the call ends with DEADLINE_EXCEEDED and the
  // generations it had queued are dropped, not run for nobody.
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(30));
  v1::StreamRegionRequest request;
  request.mutable_centre()->set_x(500);
  request.set_radius(8);
  auto reader = stub_->StreamRegion(&context, request);
  v1::Chunk chunk;
  size_t received = 0;
  while (reader->Read(&chunk)) ++received;
  EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  EXPECT_LT(received, 289u);
  for (int k = 0; k < 200 && server_->queue().depth() > 0; ++k) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(server_->queue().depth(), 0u);
  EXPECT_LT(server_->cache().stats().entries, 289u) << "work for an expired call was not dropped";
}

TEST_F(WorldServerTest, CancelledStreamStopsAndTheServerStaysHealthy) {
  {
    grpc::ClientContext context;
    v1::StreamRegionRequest request;
    request.set_radius(8);  // 289 chunks
    auto reader = stub_->StreamRegion(&context, request);
    v1::Chunk chunk;
    ASSERT_TRUE(reader->Read(&chunk));
    context.TryCancel();
    while (reader->Read(&chunk)) {
    }
    EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::CANCELLED);
  }
  // Queued work of the cancelled stream is dropped, not left behind.
  for (int k = 0; k < 200 && server_->queue().depth() > 0; ++k) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(server_->queue().depth(), 0u);
  v1::Chunk chunk;
  EXPECT_TRUE(get_chunk(0, 0, chunk).ok());
}

TEST_F(WorldServerTest, ShutdownDuringAStreamReturnsPromptly) {
  std::thread client([&] {
    grpc::Status status;
    stream_region(100, 100, 8, status);  // ends one way or another
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const auto start = std::chrono::steady_clock::now();
  server_->shutdown(std::chrono::milliseconds(200));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
  client.join();
}

// A server that shuts down closes the connections left once no call is under way (an idle one
// would hold it for the whole grace: ServerBinaryTest.AnIdleClientConnectionDoesNotHoldTheStop),
// but a call under way still has the grace: a stream of 289 chunks that was running when the
// shutdown began ends OK with every chunk.
TEST_F(WorldServerTest, ACallUnderWayFinishesBeforeTheConnectionsClose) {
  grpc::ClientContext context;
  v1::StreamRegionRequest request;
  request.mutable_centre()->set_x(-300);
  request.mutable_centre()->set_z(40);
  request.set_radius(8);
  auto reader = stub_->StreamRegion(&context, request);
  v1::Chunk chunk;
  ASSERT_TRUE(reader->Read(&chunk));
  size_t chunks = 1;
  // The client reads nothing for a while: the stream, held by flow control, is still under way
  // when the shutdown begins.
  std::thread stopping([&] { server_->shutdown(std::chrono::seconds(20)); });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  while (reader->Read(&chunk)) ++chunks;
  const grpc::Status status = reader->Finish();
  stopping.join();
  EXPECT_TRUE(status.ok()) << status.error_code() << ": " << status.error_message();
  EXPECT_EQ(chunks, 289u);
}

// A rolling update's drain (docs/server.md, "Shutdown"): the health service turns NOT_SERVING,
// a session gets the chunks already on their way, then `reconnect` as its last event, and ends
// OK; its client reconnects elsewhere with what it holds, and sees no error.
TEST_F(WorldServerTest, ShutdownTellsEverySessionToReconnectAndEndsItOk) {
  grpc::ClientContext context;
  auto session = stub_->Session(&context);
  v1::SessionUpdate update;
  update.set_view_radius(1);
  ASSERT_TRUE(session->Write(update));
  v1::SessionEvent event;
  ASSERT_TRUE(session->Read(&event));  // the view is under way
  std::thread stopping([&] { server_->shutdown(std::chrono::seconds(2)); });
  std::vector<v1::SessionEvent> events;
  while (session->Read(&event)) events.push_back(event);
  stopping.join();
  ASSERT_FALSE(events.empty());
  EXPECT_TRUE(events.back().has_reconnect()) << events.back().DebugString();
  EXPECT_FALSE(events.back().reconnect().reason().empty());
  for (size_t k = 0; k + 1 < events.size(); ++k) EXPECT_FALSE(events[k].has_reconnect()) << k;
  const grpc::Status status = session->Finish();
  EXPECT_TRUE(status.ok()) << status.error_code() << ": " << status.error_message();
}

// The chunks an event brings: its `load`, or each chunk of its `loads` batch.
std::vector<const v1::Chunk*> chunks_of(const v1::SessionEvent& event) {
  std::vector<const v1::Chunk*> out;
  if (event.has_load()) out.push_back(&event.load());
  for (const v1::Chunk& chunk : event.loads().chunks()) out.push_back(&chunk);
  return out;
}

// A player walking east then north with view radius 2: after each move the client has received
// exactly the chunks in view (loads for those entering, unloads for those leaving), none twice,
// each byte-identical to offline generation. The same with batches of loads accepted; without,
// no batch is ever sent.
TEST_F(WorldServerTest, SessionFollowsAWalkingPlayer) {
  for (const bool batches : {false, true}) {
    SCOPED_TRACE(batches ? "batches accepted" : "one load per event");
    grpc::ClientContext context;
    auto session = stub_->Session(&context);
    const int64_t radius = 2, size = default_world().chunk_size();
    std::set<std::pair<int64_t, int64_t>> loaded, view;
    auto expect_view = [&](int64_t cx, int64_t cz) {
      std::set<std::pair<int64_t, int64_t>> next;
      for (int64_t z = cz - radius; z <= cz + radius; ++z) {
        for (int64_t x = cx - radius; x <= cx + radius; ++x) next.insert({x, z});
      }
      // Chunks due: one per chunk entering the view, an unload per chunk leaving it.
      size_t due = 0;
      for (const auto& k : next) due += !view.count(k);
      for (const auto& k : view) due += !next.count(k);
      view = next;
      v1::SessionUpdate update;
      update.set_x(static_cast<double>(cx * size) + 10.5);
      update.set_z(static_cast<double>(cz * size) + 40.25);
      update.set_view_radius(static_cast<uint32_t>(radius));
      update.set_accept_load_batches(batches);
      ASSERT_TRUE(session->Write(update));
      for (size_t k = 0; k < due;) {
        v1::SessionEvent event;
        ASSERT_TRUE(session->Read(&event)) << "chunk " << k << " of " << due;
        EXPECT_EQ(event.has_loads(), batches && !event.has_unload());
        for (const v1::Chunk* chunk : chunks_of(event)) {
          const auto key = std::pair{chunk->coord().x(), chunk->coord().z()};
          EXPECT_TRUE(view.count(key)) << "loaded a chunk outside the view";
          EXPECT_TRUE(loaded.insert(key).second) << "loaded twice";
          EXPECT_EQ(canonical_bytes(*chunk), offline(key.first, key.second));
          ++k;
        }
        if (event.has_unload()) {
          EXPECT_EQ(loaded.erase({event.unload().x(), event.unload().z()}), 1u) << "unloaded a chunk not loaded";
          ++k;
        }
      }
      EXPECT_EQ(loaded, view);
    };
    int64_t cx = 0, cz = 0;
    expect_view(cx, cz);
    for (int step = 0; step < 6; ++step) expect_view(++cx, cz);
    for (int step = 0; step < 6; ++step) expect_view(cx, ++cz);
    expect_view(cx + 20, cz);  // a jump: everything unloads and reloads
    session->WritesDone();
    v1::SessionEvent extra;
    EXPECT_FALSE(session->Read(&extra)) << "no events beyond the view";
    EXPECT_TRUE(session->Finish().ok());
  }
}

// Chunks that are ready together go together: with the view in the cache, a session that
// accepts batches gets its 49 chunks in batches of up to the session's window (8), nearest
// first throughout.
TEST_F(WorldServerTest, ASessionThatAcceptsBatchesGetsReadyChunksTogether) {
  grpc::Status status;
  ASSERT_EQ(stream_region(0, 0, 3, status).size(), 49u);  // the view, cached
  ASSERT_TRUE(status.ok());
  grpc::ClientContext context;
  auto session = stub_->Session(&context);
  v1::SessionUpdate update;
  update.set_view_radius(3);
  update.set_accept_load_batches(true);
  ASSERT_TRUE(session->Write(update));
  session->WritesDone();
  v1::SessionEvent event;
  int events = 0;
  std::vector<std::pair<int64_t, int64_t>> order;
  while (session->Read(&event)) {
    ++events;
    ASSERT_TRUE(event.has_loads());
    EXPECT_LE(event.loads().chunks_size(), 8);
    for (const v1::Chunk& chunk : event.loads().chunks()) {
      order.emplace_back(chunk.coord().x(), chunk.coord().z());
      EXPECT_EQ(canonical_bytes(chunk), offline(chunk.coord().x(), chunk.coord().z()));
    }
  }
  EXPECT_TRUE(session->Finish().ok());
  ASSERT_EQ(order.size(), 49u);
  EXPECT_EQ(events, 7) << "49 cached chunks, 8 at a time, in " << events << " events";
  const auto distance2 = [](std::pair<int64_t, int64_t> k) { return k.first * k.first + k.second * k.second; };
  for (size_t k = 1; k < order.size(); ++k) EXPECT_LE(distance2(order[k - 1]), distance2(order[k])) << k;
}

// Chunks made for a session wait for the others of its window under way (--load-gather-ms) and
// go out together: a first view of 49 chunks, none cached, in a few events rather than one per
// chunk, as each went when it was made.
TEST_F(WorldServerTest, ChunksMadeForASessionGoOutTogether) {
  ServerOptions options;
  options.listen = "127.0.0.1:0";
  options.http = "";
  options.threads = 2;
  options.limits.load_gather = std::chrono::milliseconds(1000);  // far above a window's generation, even under TSan
  ASSERT_NO_FATAL_FAILURE(start(options));
  grpc::ClientContext context;
  auto session = stub_->Session(&context);
  v1::SessionUpdate update;
  update.set_x(40 * 64 + 32);
  update.set_z(-70 * 64 + 32);
  update.set_view_radius(3);
  update.set_accept_load_batches(true);
  ASSERT_TRUE(session->Write(update));
  std::set<std::pair<int64_t, int64_t>> seen;
  const int events = read_loads(*session, 49, seen);
  EXPECT_EQ(seen.size(), 49u);
  // 8 chunks under way or ready at a time: at least 7 events, and without gathering about 49.
  EXPECT_LE(events, 12) << "49 chunks made for the session came in " << events << " events";
  context.TryCancel();
}

// The wait is bounded: a ready chunk whose window's other chunks cannot be made yet (the only
// worker is planning a long Locate) goes out once --load-gather-ms has passed, alone, long
// before they are made.
TEST_F(WorldServerTest, AReadyChunkWaitsForTheOthersAtMostTheGatherTime) {
  ServerOptions options;
  options.listen = "127.0.0.1:0";
  options.http = "";
  options.threads = 1;
  options.limits.load_gather = std::chrono::milliseconds(200);
  options.limits.max_locate_radius = 65536;
  ASSERT_NO_FATAL_FAILURE(start(options));
  {
    grpc::ClientContext context;
    v1::GetChunkRequest request;  // the view's centre, cached: ready as soon as the session asks
    v1::Chunk chunk;
    ASSERT_TRUE(stub_->GetChunk(&context, request, &chunk).ok());
  }
  // The worker plans wells over a radius of 32,768 units: seconds of work (7.6 s here, outside
  // sanitizers), until the call is cancelled.
  grpc::ClientContext locate_context;
  v1::LocateRequest locate;
  locate.set_type("well");
  locate.set_radius(32768);
  v1::LocateResponse located;
  std::atomic<bool> locate_done = false;
  stub_->async()->Locate(&locate_context, &locate, &located, [&](const grpc::Status&) { locate_done = true; });
  struct EndLocate {  // before what its callback uses goes, even when an assertion returns early
    grpc::ClientContext& context;
    std::atomic<bool>& done;
    ~EndLocate() {
      context.TryCancel();
      while (!done) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  } end_locate{locate_context, locate_done};
  // Planning once a chunk nobody asked for before cannot be made within half a second.
  bool worker_busy = false;
  for (int k = 1; k <= 50 && !worker_busy; ++k) {
    grpc::ClientContext probe_context;
    probe_context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(500));
    v1::GetChunkRequest probe;
    probe.mutable_coord()->set_x(1000 + k);
    v1::Chunk chunk;
    worker_busy = stub_->GetChunk(&probe_context, probe, &chunk).error_code() == grpc::StatusCode::DEADLINE_EXCEEDED;
  }
  ASSERT_TRUE(worker_busy) << "the Locate never occupied the worker";
  grpc::ClientContext context;
  auto session = stub_->Session(&context);
  v1::SessionUpdate update;
  update.set_x(32);
  update.set_z(32);
  update.set_view_radius(1);
  update.set_accept_load_batches(true);
  const auto sent = std::chrono::steady_clock::now();
  ASSERT_TRUE(session->Write(update));
  v1::SessionEvent event;
  ASSERT_TRUE(session->Read(&event));
  const auto waited = std::chrono::steady_clock::now() - sent;
  EXPECT_FALSE(locate_done) << "the worker was free: nothing was under way to wait for";
  ASSERT_EQ(event.loads().chunks_size(), 1);
  EXPECT_EQ(event.loads().chunks(0).coord().x(), 0);
  EXPECT_EQ(event.loads().chunks(0).coord().z(), 0);
  EXPECT_GE(waited, std::chrono::milliseconds(190)) << "the ready chunk did not wait for the others";
  EXPECT_LT(waited, std::chrono::seconds(3));
  locate_context.TryCancel();  // the worker is free: the rest of the view comes
  std::set<std::pair<int64_t, int64_t>> seen{{0, 0}};
  read_loads(*session, 9, seen);
  EXPECT_EQ(seen.size(), 9u);
  context.TryCancel();
}

// A session generates ahead of its player: the ring around a first view (where any first step
// lands), then the edge that repeating the last step brings into view. Each step east then finds
// its five new chunks in the cache.
TEST_F(WorldServerTest, SessionPrefetchesWhatAWalkingPlayersNextStepBringsIntoView) {
  grpc::ClientContext context;
  auto session = stub_->Session(&context);
  const int64_t radius = 2, size = default_world().chunk_size();
  auto step_to = [&](int64_t cx, int events) {
    v1::SessionUpdate update;
    update.set_x(static_cast<double>(cx * size) + 1);
    update.set_view_radius(static_cast<uint32_t>(radius));
    ASSERT_TRUE(session->Write(update));
    v1::SessionEvent event;
    for (int k = 0; k < events; ++k) ASSERT_TRUE(session->Read(&event)) << "event " << k;
  };
  auto cached_once = [&](uint64_t expected) {  // waits for the generations under way
    for (int k = 0; k < 1000 && server_->cache().stats().entries < expected; ++k) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return server_->cache().stats().entries;
  };
  step_to(0, 25);
  EXPECT_EQ(cached_once(49), 49u) << "the view's 25 chunks and the 24 of the ring around it";
  uint64_t hits = server_->cache().stats().hits;
  step_to(1, 10);  // 5 loads, 5 unloads
  EXPECT_EQ(server_->cache().stats().hits, hits + 5) << "the first step's new chunks were made ahead";
  EXPECT_EQ(cached_once(54), 54u) << "and column x = 4";
  hits = server_->cache().stats().hits;
  step_to(2, 10);
  EXPECT_EQ(server_->cache().stats().hits, hits + 5) << "so were the second step's";
  EXPECT_EQ(cached_once(59), 59u) << "and column x = 5 is next";
  EXPECT_EQ(server_->cache().stats().misses, 59u);
  EXPECT_NE(server_->metrics_page().find("chunkforge_look_ahead_fetches_total 34\n"), std::string::npos);
  session->WritesDone();
  EXPECT_TRUE(session->Finish().ok());
}

TEST_F(WorldServerTest, SessionDeliversTheWholeViewAfterTheClientHalfCloses) {
  grpc::ClientContext context;
  auto session = stub_->Session(&context);
  v1::SessionUpdate update;
  update.set_view_radius(3);
  ASSERT_TRUE(session->Write(update));
  session->WritesDone();  // at once: the 49 chunks in view still arrive
  v1::SessionEvent event;
  int loads = 0;
  while (session->Read(&event)) loads += event.has_load();
  EXPECT_TRUE(session->Finish().ok());
  EXPECT_EQ(loads, 49);
}

TEST_F(WorldServerTest, PositionsBeyondTheWorldAreRejectedBeforeAnyArithmetic) {
  grpc::Status status;
  grpc::ClientContext context;
  v1::StreamRegionRequest request;
  request.mutable_centre()->set_x(INT64_MIN + 3);
  request.set_radius(4);
  auto reader = stub_->StreamRegion(&context, request);
  v1::Chunk chunk;
  while (reader->Read(&chunk)) {
  }
  status = reader->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("centre.x"), std::string::npos) << status.error_message();

  grpc::ClientContext session_context;
  auto session = stub_->Session(&session_context);
  v1::SessionUpdate update;
  update.set_x(1e300);
  session->Write(update);
  session->WritesDone();
  v1::SessionEvent event;
  while (session->Read(&event)) {
  }
  status = session->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("2^40"), std::string::npos) << status.error_message();
}

TEST_F(WorldServerTest, SessionRejectsATooLargeView) {
  grpc::ClientContext context;
  auto session = stub_->Session(&context);
  v1::SessionUpdate update;
  update.set_view_radius(9);
  session->Write(update);
  session->WritesDone();
  v1::SessionEvent event;
  while (session->Read(&event)) {
  }
  const grpc::Status status = session->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message(), "view_radius: must be in [0, 8] (got 9)");
}

TEST_F(WorldServerTest, SessionsBeyondTheLimitGetResourceExhausted) {
  // Two sessions hold the two slots (each has received an event, so each has started).
  grpc::ClientContext c1, c2, c3;
  auto s1 = stub_->Session(&c1), s2 = stub_->Session(&c2);
  v1::SessionUpdate update;
  v1::SessionEvent event;
  for (auto* s : {s1.get(), s2.get()}) {
    ASSERT_TRUE(s->Write(update));
    ASSERT_TRUE(s->Read(&event));
  }
  auto s3 = stub_->Session(&c3);
  s3->Write(update);
  while (s3->Read(&event)) {
  }
  const grpc::Status status = s3->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(status.error_message().find("at most 2 at once"), std::string::npos) << status.error_message();
  for (auto* s : {s1.get(), s2.get()}) {
    s->WritesDone();
    while (s->Read(&event)) {
    }
    EXPECT_TRUE(s->Finish().ok());
  }
  // The slots are free again.
  grpc::ClientContext c4;
  auto s4 = stub_->Session(&c4);
  ASSERT_TRUE(s4->Write(update));
  EXPECT_TRUE(s4->Read(&event));
  s4->WritesDone();
  while (s4->Read(&event)) {
  }
  EXPECT_TRUE(s4->Finish().ok());
}

// GET `target` from the server's HTTP side port: (status, body).
std::pair<int, std::string> http_get(int port, const std::string& target) {
  namespace http = boost::beast::http;
  boost::asio::io_context io;
  boost::asio::ip::tcp::socket socket(io);
  socket.connect({boost::asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port)});
  http::request<http::empty_body> request(http::verb::get, target, 11);
  request.set(http::field::host, "127.0.0.1");
  http::write(socket, request);
  boost::beast::flat_buffer buffer;
  http::response<http::string_body> response;
  http::read(socket, buffer, response);
  return {static_cast<int>(response.result_int()), response.body()};
}

TEST_F(WorldServerTest, HttpSidePortServesHealthAndMetrics) {
  EXPECT_EQ(http_get(server_->http_port(), "/healthz"), (std::pair<int, std::string>{200, "ok\n"}));
  v1::Chunk chunk;
  ASSERT_TRUE(get_chunk(7, 7, chunk).ok());
  ASSERT_TRUE(get_chunk(7, 7, chunk).ok());
  ASSERT_EQ(get_chunk(int64_t{1} << 40, 0, chunk).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  const auto [status, page] = http_get(server_->http_port(), "/metrics");
  EXPECT_EQ(status, 200);
  for (const char* line : {"chunkforge_requests_total{method=\"GetChunk\"} 3",
                           "chunkforge_cache_hits_total 1",
                           "chunkforge_calls_total{method=\"GetChunk\",code=\"OK\"} 2",
                           "chunkforge_calls_total{method=\"GetChunk\",code=\"INVALID_ARGUMENT\"} 1",
                           "chunkforge_call_seconds_count{method=\"GetChunk\"} 3",
                           "chunkforge_call_seconds_bucket{method=\"GetChunk\",le=\"+Inf\"} 3",
                           "chunkforge_cache_limit_bytes 67108864",
                           "# TYPE process_resident_memory_bytes gauge",
                           "\nprocess_cpu_seconds_total ",
                           "\nprocess_open_fds ",
                           "chunkforge_build_info{version=\"",
                           "chunkforge_cache_misses_total 1",
                           "chunkforge_chunks_sent_total 2",
                           "chunkforge_generation_seconds_count 1",
                           "chunkforge_cache_entries 1",
                           "chunkforge_queue_depth 0",
                           "chunkforge_active_streams 0",
                           "chunkforge_active_sessions 0",
                           "# TYPE chunkforge_generation_seconds histogram",
                           "# TYPE chunkforge_log_lines_suppressed_total counter",
                           "chunkforge_log_lines_suppressed_total{kind=\"session_started\"} ",
                           "chunkforge_log_lines_suppressed_total{kind=\"call_failed\"} "}) {
    EXPECT_NE(page.find(line), std::string::npos) << line << "\n" << page;
  }
  EXPECT_EQ(http_get(server_->http_port(), "/nope").first, 404);
  // Prometheus' own linter: names, types, units and help as its conventions want them.
  const std::string file = test::unique_temp_dir("metrics_page") + "metrics.txt";
  std::ofstream(file) << page;
  const test::CommandResult lint = test::run_command("promtool check metrics < " + file);
  EXPECT_EQ(lint.exit_code, 0) << lint.output;
  EXPECT_EQ(lint.output, "") << lint.output;
}

TEST_F(WorldServerTest, AnIdleHttpConnectionDoesNotHoldTheEndpoint) {
  boost::asio::io_context io;
  boost::asio::ip::tcp::socket idle(io);
  idle.connect({boost::asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(server_->http_port())});
  // Sends nothing; the endpoint gives up on it and serves the next client.
  EXPECT_EQ(http_get(server_->http_port(), "/healthz").first, 200);
  const auto start = std::chrono::steady_clock::now();
  server_->shutdown(std::chrono::milliseconds(100));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(4));
}

std::string hex(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// TLS with a self-signed certificate made for the test, and a shared token.
TEST(WorldServerSecurityTest, TlsAndTokenAreEnforced) {
  const test::CertificateFiles files = test::make_certificate(test::unique_temp_dir("server_tls"));
  ASSERT_FALSE(files.cert.empty()) << "openssl could not make a certificate";
  const std::string &cert = files.cert, &key = files.key;
  ServerOptions options;
  options.listen = "127.0.0.1:0";
  options.http = "";
  options.threads = 1;
  options.tls_cert_pem = read_all(cert);
  options.tls_key_pem = read_all(key);
  options.auth_token = "s3cret";
  WorldServer server(default_world(), options);
  ASSERT_TRUE(server.start());
  const std::string target = "127.0.0.1:" + std::to_string(server.port());

  grpc::SslCredentialsOptions tls;
  tls.pem_root_certs = options.tls_cert_pem;
  grpc::ChannelArguments args;
  args.SetSslTargetNameOverride("localhost");
  auto stub = v1::WorldService::NewStub(grpc::CreateCustomChannel(target, grpc::SslCredentials(tls), args));
  {
    grpc::ClientContext context;
    v1::WorldInfo info;
    const grpc::Status s = stub->GetWorldInfo(&context, v1::GetWorldInfoRequest{}, &info);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAUTHENTICATED) << s.error_message();
  }
  {
    grpc::ClientContext context;
    context.AddMetadata("authorization", "Bearer wrong!");
    v1::Chunk chunk;
    EXPECT_EQ(stub->GetChunk(&context, v1::GetChunkRequest{}, &chunk).error_code(), grpc::StatusCode::UNAUTHENTICATED);
  }
  {
    grpc::ClientContext context;
    context.AddMetadata("authorization", "Bearer s3cret");
    v1::Chunk chunk;
    EXPECT_TRUE(stub->GetChunk(&context, v1::GetChunkRequest{}, &chunk).ok());
  }
  {  // A plaintext client cannot talk to the TLS port.
    auto plain = v1::WorldService::NewStub(grpc::CreateChannel(target, grpc::InsecureChannelCredentials()));
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(2));
    context.AddMetadata("authorization", "Bearer s3cret");
    v1::WorldInfo info;
    EXPECT_EQ(plain->GetWorldInfo(&context, v1::GetWorldInfoRequest{}, &info).error_code(),
              grpc::StatusCode::UNAVAILABLE);
  }
  server.shutdown(std::chrono::seconds(1));
}

// A client that shares no code with ours: Debian's python3-grpcio sending and reading raw
// protobuf bytes (tests/server/python_client.py).
TEST_F(WorldServerTest, IndependentPythonClientSeesHealthReflectionAndTheSameBytes) {
  const std::string command = "/usr/bin/python3 " + std::string(CHUNKFORGE_SOURCE_DIR) +
                              "/tests/server/python_client.py 127.0.0.1:" + std::to_string(server_->port()) +
                              " -3 7 2>&1";
  std::string out;
  {
    std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
    ASSERT_NE(pipe, nullptr);
    char buffer[4096];
    while (size_t n = fread(buffer, 1, sizeof buffer, pipe.get())) out.append(buffer, n);
  }
  EXPECT_NE(out.find("\"health\": 1"), std::string::npos) << out;
  EXPECT_NE(out.find("\"chunkforge.v1.WorldService\""), std::string::npos) << out;
  EXPECT_NE(out.find("\"grpc.health.v1.Health\""), std::string::npos) << out;
  EXPECT_NE(out.find("\"chunk_hex\": \"" + hex(offline(-3, 7)) + "\""), std::string::npos) << out;
}

}  // namespace
}  // namespace chunkforge::server
