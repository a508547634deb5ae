// The client SDK against a real server: an in-process WorldServer on a loopback port, the SDK's
// Client and ViewSession talking to it over gRPC, and the `chunkforge` command with --server.
#include "chunkforge/client.h"

#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "chunkforge/encode.h"
#include "chunkforge/structures.h"
#include "chunkforge/v1/chunk.pb.h"
#include "chunkforge/v1/info.pb.h"
#include "support/certificate.h"
#include "support/eventually.h"
#include "support/free_port.h"
#include "world_server.h"

namespace chunkforge::client {
namespace {

using namespace std::chrono_literals;

using test::free_port;

server::ServerOptions server_options(int port) {
  server::ServerOptions options;
  options.listen = "127.0.0.1:" + std::to_string(port);
  options.http = "";
  options.threads = 2;
  options.cache_mb = 64;
  options.limits.max_radius = 8;
  return options;
}

std::unique_ptr<server::WorldServer> start_server(int port, const World& world = default_world()) {
  auto server = std::make_unique<server::WorldServer>(world, server_options(port));
  return server->start() ? std::move(server) : nullptr;
}

using test::eventually;

std::string offline_bytes(int64_t x, int64_t z) {
  return canonical_bytes(encode_chunk(default_world(), Generator(default_world()).generate({x, z})));
}

class ClientTest : public testing::Test {
 protected:
  void SetUp() override {
    port_ = free_port();
    server_ = start_server(port_);
    ASSERT_TRUE(server_);
    Result<Client> client = Client::connect(target());
    ASSERT_TRUE(client) << client.status().to_string();
    client_.emplace(std::move(*client));
  }
  void TearDown() override {
    if (server_) server_->shutdown(1s);
  }
  std::string target() const { return "127.0.0.1:" + std::to_string(port_); }

  int port_ = 0;
  std::unique_ptr<server::WorldServer> server_;
  std::optional<Client> client_;
};

TEST_F(ClientTest, WorldInfoIsTheServersWorld) {
  Result<WorldInfo> info = client_->world_info();
  ASSERT_TRUE(info) << info.status().to_string();
  const v1::WorldInfo expected = describe_world(default_world());
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(info->message(), expected));
  EXPECT_EQ(info->name(), expected.name());
  EXPECT_EQ(info->chunk_size(), expected.chunk_size());
  EXPECT_EQ(info->fingerprint(), expected.fingerprint());
  ASSERT_EQ(info->resources().size(), static_cast<size_t>(expected.resources_size()));
  for (const CatalogEntry& layer : info->resources()) {
    EXPECT_EQ(info->resource_name(layer.id), expected.resources(static_cast<int>(layer.id)).name());
  }
  EXPECT_EQ(info->structure_name(1000), "");
}

TEST_F(ClientTest, ChunkIsTheOfflineChunkAndReadsWithoutProtobuf) {
  Result<Chunk> chunk = client_->chunk({3, -2});
  ASSERT_TRUE(chunk) << chunk.status().to_string();
  EXPECT_EQ(canonical_bytes(chunk->message()), offline_bytes(3, -2));
  EXPECT_EQ(chunk->coord(), (ChunkCoord{3, -2}));
  const v1::Objects& wire = chunk->message().objects();
  ASSERT_EQ(chunk->objects().size(), static_cast<size_t>(wire.layer_size()));
  ASSERT_GT(chunk->objects().size(), 0u);
  size_t k = 0;
  for (const Object& object : chunk->objects()) {
    const int i = static_cast<int>(k++);
    EXPECT_EQ(object.layer_name, chunk->world().resources()[wire.layer(i)].name);
    EXPECT_EQ(object.x, 3.0 * 64 + wire.x(i));
    EXPECT_EQ(object.z, -2.0 * 64 + wire.z(i));
    EXPECT_GE(object.x, chunk->origin_x());
    EXPECT_LT(object.x, chunk->origin_x() + 64);
    EXPECT_EQ(object.id, wire.id(i));
  }
  const std::vector<Structure> structures = chunk->structures();
  ASSERT_EQ(structures.size(), static_cast<size_t>(chunk->message().structures_size()));
  for (const Structure& s : structures) EXPECT_FALSE(s.type_name.empty());
  EXPECT_FALSE(chunk->terrain());
}

TEST_F(ClientTest, ChunkOptionsAddTerrainAndFilterLayers) {
  ChunkOptions options;
  options.include_terrain = true;
  options.terrain_step = 8;
  options.layers = {0};
  Result<Chunk> chunk = client_->chunk({1, 1}, options);
  ASSERT_TRUE(chunk) << chunk.status().to_string();
  const std::optional<TerrainView> terrain = chunk->terrain();
  ASSERT_TRUE(terrain);
  EXPECT_EQ(terrain->step(), 8u);
  ASSERT_EQ(terrain->size(), 8u);
  const v1::TerrainGrid& wire = chunk->message().terrain();
  EXPECT_EQ(terrain->elevation(3, 5), wire.elevation(5 * 8 + 3));
  EXPECT_EQ(terrain->biome(7, 0), wire.biome(7));
  EXPECT_EQ(terrain->material(0, 7), wire.material(7 * 8));
  for (const Object& object : chunk->objects()) EXPECT_EQ(object.layer, 0u);
}

TEST_F(ClientTest, BadRequestsSurfaceTheStatusAndTheServersMessage) {
  Result<Chunk> far = client_->chunk({int64_t{1} << 50, 0});
  ASSERT_FALSE(far);
  EXPECT_EQ(far.status().code, StatusCode::invalid_argument);
  EXPECT_NE(far.status().message.find("coord.x"), std::string::npos) << far.status().message;

  ChunkOptions odd;
  odd.include_terrain = true;
  odd.terrain_step = 3;
  Result<Chunk> step = client_->chunk({0, 0}, odd);
  ASSERT_FALSE(step);
  EXPECT_EQ(step.status().code, StatusCode::invalid_argument);
  EXPECT_NE(step.status().message.find("terrain_step"), std::string::npos) << step.status().message;

  const Status wide = client_->stream_region({0, 0}, 100, {}, [](const Chunk&) { return true; });
  EXPECT_EQ(wide.code, StatusCode::invalid_argument);
  EXPECT_NE(wide.message.find("radius"), std::string::npos) << wide.message;
  EXPECT_EQ(wide.to_string().rfind("INVALID_ARGUMENT: ", 0), 0u);

  EXPECT_EQ(Client::connect("").status().code, StatusCode::invalid_argument);
}

TEST_F(ClientTest, StreamRegionIsNearestFirstAndTheSameAsSingleChunks) {
  std::vector<Chunk> chunks;
  const Status status = client_->stream_region({5, 5}, 2, {}, [&](const Chunk& c) {
    chunks.push_back(c);
    return true;
  });
  ASSERT_TRUE(status.ok()) << status.to_string();
  ASSERT_EQ(chunks.size(), 25u);
  std::set<ChunkCoord> seen;
  int64_t last = -1;
  for (const Chunk& c : chunks) {
    const int64_t dx = c.coord().x - 5, dz = c.coord().z - 5;
    EXPECT_GE(dx * dx + dz * dz, last);
    last = dx * dx + dz * dz;
    seen.insert(c.coord());
    EXPECT_EQ(canonical_bytes(c.message()), offline_bytes(c.coord().x, c.coord().z));
  }
  EXPECT_EQ(seen.size(), 25u);

  // The iterator form gives the same chunks; stopping early is not an error.
  RegionStream stream = client_->open_region({5, 5}, 2);
  size_t k = 0;
  while (std::optional<Chunk> c = stream.next()) EXPECT_EQ(c->coord(), chunks[k++].coord());
  EXPECT_TRUE(stream.status().ok());
  EXPECT_EQ(k, 25u);
  int taken = 0;
  EXPECT_TRUE(client_->stream_region({5, 5}, 2, {}, [&](const Chunk&) { return ++taken < 3; }).ok());
  EXPECT_EQ(taken, 3);
}

TEST_F(ClientTest, LocateFindsWhatTheOfflinePlannerFinds) {
  Result<std::vector<Structure>> found = client_->locate("castle", 100, -40, 3000, 5);
  ASSERT_TRUE(found) << found.status().to_string();
  const StructureType* castle = nullptr;
  for (const StructureType& t : default_world().structures().all()) {
    if (t.name == "castle") castle = &t;
  }
  ASSERT_NE(castle, nullptr);
  std::vector<StructureInstance> offline =
      StructurePlanner(default_world()).locate(castle->id, Coord{100, 0.0}, Coord{-40, 0.0}, 3000);
  offline.resize(std::min<size_t>(offline.size(), 5));
  ASSERT_EQ(found->size(), offline.size());
  ASSERT_FALSE(found->empty());
  for (size_t k = 0; k < offline.size(); ++k) {
    EXPECT_EQ((*found)[k].id, offline[k].id);
    EXPECT_EQ((*found)[k].x, offline[k].x);
    EXPECT_EQ((*found)[k].z, offline[k].z);
    EXPECT_EQ((*found)[k].type_name, "castle");
  }
  Result<std::vector<Structure>> unknown = client_->locate("tower of babel", 0, 0);
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.status().code, StatusCode::invalid_argument);
  EXPECT_NE(unknown.status().message.find("type: the world has no structure type"), std::string::npos);
  EXPECT_EQ(client_->locate("castle", 0, 0, 1e6).status().code, StatusCode::invalid_argument);
}

TEST_F(ClientTest, HealthIsServing) {
  Result<Health> health = client_->health();
  ASSERT_TRUE(health) << health.status().to_string();
  EXPECT_EQ(*health, Health::serving);
}

// The chunk under a position, as the server computes it: clamped to the supported world, and
// defined for any input a bad world info or a game could give.
TEST(ChunkAtTest, FollowsTheServersRuleForAnyPosition) {
  EXPECT_EQ(chunk_at(-0.5, 64.0, 64), (ChunkCoord{-1, 1}));
  EXPECT_EQ(chunk_at(1e300, -1e300, 64), (ChunkCoord{17179869184, -17179869184}));
  EXPECT_EQ(chunk_at(std::nan(""), 5.0, 64), (ChunkCoord{0, 0}));
  EXPECT_EQ(chunk_at(5.0, -5.0, 0), (ChunkCoord{5, -5}));
}

TEST(ClientRetryTest, UnreachableServerIsUnavailableAfterTheRetries) {
  ConnectOptions options;
  options.max_attempts = 3;
  options.initial_backoff = 100ms;
  Result<Client> client = Client::connect("127.0.0.1:" + std::to_string(free_port()), options);
  ASSERT_TRUE(client);
  const auto start = std::chrono::steady_clock::now();
  Result<Chunk> chunk = client->chunk({0, 0});
  const auto elapsed = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(chunk);
  EXPECT_EQ(chunk.status().code, StatusCode::unavailable) << chunk.status().to_string();
  EXPECT_GE(elapsed, 80ms + 160ms);  // two waits of 100 ms and 200 ms, less 20 % jitter
  EXPECT_EQ(client->health().status().code, StatusCode::unavailable);
}

TEST(ClientRetryTest, RetriesCarryACallOverAServerThatIsStillStarting) {
  const int port = free_port();
  ConnectOptions options;
  options.max_attempts = 20;
  options.initial_backoff = 100ms;
  options.max_backoff = 200ms;
  Result<Client> client = Client::connect("127.0.0.1:" + std::to_string(port), options);
  ASSERT_TRUE(client);
  std::unique_ptr<server::WorldServer> server;
  std::thread later([&] {
    std::this_thread::sleep_for(500ms);
    server = start_server(port);
  });
  Result<Chunk> chunk = client->chunk({2, 2});
  later.join();
  ASSERT_TRUE(server);
  ASSERT_TRUE(chunk) << chunk.status().to_string();
  EXPECT_EQ(canonical_bytes(chunk->message()), offline_bytes(2, 2));
  server->shutdown(1s);
}

// --- ViewSession ---

// What the game sees through the callbacks.
struct Screen {
  std::mutex mutex;
  std::set<ChunkCoord> shown;
  int loaded_twice = 0, unloaded_unshown = 0;
  std::vector<Status> errors;

  ViewCallbacks callbacks() {
    ViewCallbacks c;
    c.on_load = [this](const Chunk& chunk) {
      std::lock_guard lock(mutex);
      if (!shown.insert(chunk.coord()).second) ++loaded_twice;
    };
    c.on_unload = [this](ChunkCoord coord) {
      std::lock_guard lock(mutex);
      if (shown.erase(coord) == 0) ++unloaded_unshown;
    };
    c.on_error = [this](const Status& s) {
      std::lock_guard lock(mutex);
      errors.push_back(s);
    };
    return c;
  }
  bool shows(const std::set<ChunkCoord>& expected) {
    std::lock_guard lock(mutex);
    return shown == expected;
  }
  size_t error_count() {
    std::lock_guard lock(mutex);
    return errors.size();
  }
};

std::set<ChunkCoord> view_of(ChunkCoord centre, int64_t r) {
  std::set<ChunkCoord> out;
  for (int64_t z = centre.z - r; z <= centre.z + r; ++z) {
    for (int64_t x = centre.x - r; x <= centre.x + r; ++x) out.insert({x, z});
  }
  return out;
}

Position centre_of(ChunkCoord c) { return {static_cast<double>(c.x) * 64 + 32, static_cast<double>(c.z) * 64 + 32}; }

// A session of `radius` at chunk (0, 0) that has loaded its whole view, quick to reconnect
// (backoff 50 to 200 ms); null if it did not get there.
std::unique_ptr<ViewSession> settled_session(Client& client, Screen& screen, uint32_t radius) {
  ViewOptions options;
  options.view_radius = radius;
  options.initial_backoff = 50ms;
  options.max_backoff = 200ms;
  auto session = ViewSession::start(client, centre_of({0, 0}), options, screen.callbacks());
  if (!session || !eventually([&] { return screen.shows(view_of({0, 0}, radius)); })) return nullptr;
  return std::move(*session);
}

TEST_F(ClientTest, SessionWalking100ChunksShowsExactlyTheViewAndReusesItsCache) {
  Screen screen;
  ViewOptions options;
  options.view_radius = 2;
  auto session = ViewSession::start(*client_, centre_of({0, 0}), options, screen.callbacks());
  ASSERT_TRUE(session) << session.status().to_string();
  ASSERT_TRUE(eventually([&] { return screen.shows(view_of({0, 0}, 2)); }));
  for (int64_t step = 1; step <= 100; ++step) {
    (*session)->set_position(centre_of({step, step / 3}));
    ASSERT_TRUE(eventually([&] { return screen.shows(view_of({step, step / 3}, 2)); })) << "step " << step;
  }
  ViewStats stats = (*session)->stats();
  // Every chunk that was ever in view, downloaded once; nothing else.
  std::set<ChunkCoord> ever;
  for (int64_t step = 0; step <= 100; ++step) {
    const std::set<ChunkCoord> v = view_of({step, step / 3}, 2);
    ever.insert(v.begin(), v.end());
  }
  EXPECT_EQ(stats.chunks_downloaded, ever.size());
  EXPECT_EQ(stats.duplicates_ignored, 0u);
  EXPECT_EQ(stats.loaded_chunks, 25u);

  // Back ten chunks: all of it is in the local cache, nothing is downloaded again.
  for (int64_t step = 99; step >= 90; --step) {
    (*session)->set_position(centre_of({step, step / 3}));
    ASSERT_TRUE(eventually([&] { return screen.shows(view_of({step, step / 3}, 2)); })) << "back to " << step;
  }
  const ViewStats back = (*session)->stats();
  EXPECT_EQ(back.chunks_downloaded, stats.chunks_downloaded);
  EXPECT_GT(back.chunks_from_cache, 0u);
  EXPECT_LE(back.cached_bytes, options.cache_bytes);

  std::lock_guard lock(screen.mutex);
  EXPECT_EQ(screen.loaded_twice, 0);
  EXPECT_EQ(screen.unloaded_unshown, 0);
  EXPECT_TRUE(screen.errors.empty());
}

TEST_F(ClientTest, SessionCacheStaysWithinItsBudget) {
  Screen screen;
  ViewOptions options;
  options.view_radius = 1;
  options.cache_bytes = 4096;
  auto session = ViewSession::start(*client_, centre_of({0, 0}), options, screen.callbacks());
  ASSERT_TRUE(session);
  for (int64_t step = 0; step <= 12; ++step) {
    (*session)->set_position(centre_of({step, 0}));
    ASSERT_TRUE(eventually([&] { return screen.shows(view_of({step, 0}, 1)); }));
    EXPECT_LE((*session)->stats().cached_bytes, 4096u);
  }
  // Far back: evicted long ago, so downloaded again.
  const uint64_t before = (*session)->stats().chunks_downloaded;
  (*session)->set_position(centre_of({0, 0}));
  ASSERT_TRUE(eventually([&] { return screen.shows(view_of({0, 0}, 1)); }));
  EXPECT_EQ((*session)->stats().chunks_downloaded, before + 9);
}

TEST_F(ClientTest, SessionResumesAfterTheServerRestartsWithoutDownloadingWhatItHolds) {
  Screen screen;
  std::unique_ptr<ViewSession> session = settled_session(*client_, screen, 2);
  ASSERT_TRUE(session);
  EXPECT_EQ(session->stats().chunks_downloaded, 25u);

  server_->shutdown(100ms);
  server_.reset();
  ASSERT_TRUE(eventually([&] { return screen.error_count() > 0; }));
  // While the server is away the view still follows the player, from what it holds.
  session->set_position(centre_of({1, 0}));
  std::set<ChunkCoord> held;
  for (const ChunkCoord& c : view_of({1, 0}, 2)) {
    if (c.x <= 2) held.insert(c);
  }
  ASSERT_TRUE(eventually([&] { return screen.shows(held); }));

  server_ = start_server(port_);  // a new process would be the same: empty cache, same port
  ASSERT_TRUE(server_);
  ASSERT_TRUE(eventually([&] { return screen.shows(view_of({1, 0}, 2)); }));
  const ViewStats stats = session->stats();
  EXPECT_EQ(stats.chunks_downloaded, 25u + 5u);  // only the column that entered the view
  EXPECT_GE(stats.reconnects, 1u);
  EXPECT_TRUE(session->running());
  std::lock_guard lock(screen.mutex);
  EXPECT_EQ(screen.loaded_twice, 0);
  EXPECT_EQ(screen.errors.front().code, StatusCode::unavailable) << screen.errors.front().to_string();
}

TEST_F(ClientTest, SessionOnAnotherWorldAfterRestartReloadsTheView) {
  Screen screen;
  std::unique_ptr<ViewSession> session = settled_session(*client_, screen, 1);
  ASSERT_TRUE(session);
  server_->shutdown(100ms);
  v1::WorldDefinition other = default_world().definition();
  other.set_seed(other.seed() + 1);
  static const World other_world = *World::create(other).world;  // the server keeps a reference
  server_ = start_server(port_, other_world);
  ASSERT_TRUE(server_);
  ASSERT_TRUE(eventually([&] {
    std::lock_guard lock(screen.mutex);
    return std::any_of(screen.errors.begin(), screen.errors.end(),
                       [](const Status& s) { return s.message.find("world changed") != std::string::npos; });
  }));
  ASSERT_TRUE(eventually([&] { return screen.shows(view_of({0, 0}, 1)); }));
  EXPECT_EQ(session->stats().chunks_downloaded, 18u);
}

TEST_F(ClientTest, SessionEndsWhenTheRestartedServerRefusesItsCredentials) {
  Screen screen;
  std::unique_ptr<ViewSession> session = settled_session(*client_, screen, 1);
  ASSERT_TRUE(session);
  server_->shutdown(100ms);
  server::ServerOptions with_token = server_options(port_);
  with_token.auth_token = "now-required";
  server_ = std::make_unique<server::WorldServer>(default_world(), with_token);
  ASSERT_TRUE(server_->start());
  ASSERT_TRUE(eventually([&] { return !session->running(); }));
  std::lock_guard lock(screen.mutex);
  EXPECT_EQ(screen.errors.back().code, StatusCode::unauthenticated) << screen.errors.back().to_string();
}

TEST_F(ClientTest, SessionErrorThatARetryCannotFixEndsTheSession) {
  Screen screen;
  ViewOptions options;
  options.view_radius = 100;  // the server allows 8
  auto session = ViewSession::start(*client_, centre_of({0, 0}), options, screen.callbacks());
  ASSERT_TRUE(session);
  ASSERT_TRUE(eventually([&] { return !(*session)->running(); }));
  std::lock_guard lock(screen.mutex);
  ASSERT_EQ(screen.errors.size(), 1u);
  EXPECT_EQ(screen.errors[0].code, StatusCode::invalid_argument);
  EXPECT_NE(screen.errors[0].message.find("view_radius"), std::string::npos) << screen.errors[0].message;
}

// --- the command-line client ---

struct CommandResult {
  int exit_code;
  std::string out;
};

CommandResult run(const std::string& args) {
  const std::string command = std::string(CHUNKFORGE_CLI) + " " + args + " 2>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  std::string out;
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
  const int status = pclose(pipe);
  return {WEXITSTATUS(status), out};
}

TEST_F(ClientTest, CommandLinePrintsTheSameOnlineAsOffline) {
  const std::string server = " --server " + target();
  for (const std::string command : {"chunk 3 -2", "chunk -7 11 --terrain 16", "info --json", "info", "region -1 -1 1 0",
                                    "locate castle 0 0 --json", "locate village 900 -300 --radius 3000"}) {
    const CommandResult offline = run(command);
    const CommandResult online = run(command + server);
    EXPECT_EQ(offline.exit_code, 0) << command;
    EXPECT_EQ(online.exit_code, 0) << command;
    EXPECT_FALSE(online.out.empty()) << command;
    EXPECT_EQ(online.out, offline.out) << command;
  }
  const std::string png = test::unique_temp_dir("sdk_render");
  ASSERT_EQ(run("render 0 0 2 1 --out " + png + "offline.png").exit_code, 0);
  ASSERT_EQ(run("render 0 0 2 1 --out " + png + "online.png" + server).exit_code, 0);
  auto read_all = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  EXPECT_EQ(read_all(png + "online.png"), read_all(png + "offline.png"));
  EXPECT_GT(read_all(png + "online.png").size(), 100u);
  const CommandResult health = run("health" + server);
  EXPECT_EQ(health.exit_code, 0);
  EXPECT_EQ(health.out, "SERVING\n");
  EXPECT_EQ(run("health --server 127.0.0.1:" + std::to_string(free_port())).exit_code, 1);
  EXPECT_EQ(run("chunk 0 0 --seed 4" + server).exit_code, 2);
}

// TLS and a bearer token, through the SDK and through the command.
TEST(ClientSecurityTest, TlsAndTokenFromTheSdkAndTheCommand) {
  const std::string dir = test::unique_temp_dir("sdk_tls"), token = dir + "sdk_token";
  const test::CertificateFiles files = test::make_certificate(dir);
  ASSERT_FALSE(files.cert.empty()) << "openssl could not make a certificate";
  const std::string &cert = files.cert, &key = files.key;
  auto read_all = [](const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  std::ofstream(token) << "s3cret\n";
  const int port = free_port();
  server::ServerOptions options = server_options(port);
  options.tls_cert_pem = read_all(cert);
  options.tls_key_pem = read_all(key);
  options.auth_token = "s3cret";
  server::WorldServer server(default_world(), options);
  ASSERT_TRUE(server.start());

  ConnectOptions connect;
  connect.tls = true;
  connect.tls_root_certificates = options.tls_cert_pem;
  connect.tls_server_name = "localhost";
  connect.max_attempts = 1;
  {
    Result<Chunk> chunk = Client::connect("127.0.0.1:" + std::to_string(port), connect)->chunk({0, 0});
    ASSERT_FALSE(chunk);
    EXPECT_EQ(chunk.status().code, StatusCode::unauthenticated) << chunk.status().to_string();
  }
  connect.bearer_token = "s3cret";
  Result<Chunk> chunk = Client::connect("127.0.0.1:" + std::to_string(port), connect)->chunk({0, 0});
  ASSERT_TRUE(chunk) << chunk.status().to_string();
  EXPECT_EQ(canonical_bytes(chunk->message()), offline_bytes(0, 0));

  const std::string server_args = " --server localhost:" + std::to_string(port) + " --tls-ca " + cert;
  EXPECT_EQ(run("chunk 0 0" + server_args + " --token-file " + token).out, run("chunk 0 0").out);
  EXPECT_EQ(run("health" + server_args + " --token-file " + token).exit_code, 0);
  EXPECT_EQ(run("chunk 0 0" + server_args).exit_code, 1);  // no token: UNAUTHENTICATED
  server.shutdown(1s);
}

}  // namespace
}  // namespace chunkforge::client
