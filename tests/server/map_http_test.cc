// The live map over the real HTTP side port on loopback: tiles with ETags and 304, 400s with
// reasons, the JSON endpoints, the token when the server has one; and the bounds on its work
// (the search radius, searches at once, abandoned jobs leaving the queue).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <future>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "chunkforge/chunk.h"
#include "chunkforge/resource_layer.h"
#include "chunkforge/world.h"
#include "chunkforge/world_extent.h"
#include "http/http_endpoint.h"
#include "http/map_routes.h"
#include "map_service.h"
#include "support/http_response.h"
#include "world_server.h"

namespace chunkforge::server {
namespace {

using Response = test::HttpResponse;

// One GET with extra header lines; reads until the server closes.
Response get(int port, const std::string& target, const std::string& headers = "") {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  Response r;
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) return r;
  const std::string request = "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers + "\r\n";
  send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  std::string bytes;
  char chunk[65536];
  for (ssize_t n; (n = recv(fd, chunk, sizeof chunk, 0)) > 0;) bytes.append(chunk, static_cast<size_t>(n));
  close(fd);
  return test::parse_http_response(bytes);
}

class MapHttpTest : public ::testing::Test {
 protected:
  void start(const std::string& token = "", map::EditedChunksFn edited = {}, map::PlayersFn players = {},
             double max_locate_radius = map::kDefaultMaxLocateRadius) {
    map::MapOptions options;
    options.max_locate_radius = max_locate_radius;
    options.auth_token = token;
    options.edited_chunks = std::move(edited);
    options.players = std::move(players);
    service_ = std::make_unique<map::MapService>(options);
    service_->set_world(default_world(), "test");
    endpoint_ = std::make_unique<HttpEndpoint>(
        "127.0.0.1:0", [] { return "up 1\n"; }, HttpOptions{}, map_handler(*service_));
    ASSERT_TRUE(endpoint_->start());
  }
  int port() const { return endpoint_->port(); }

  std::unique_ptr<map::MapService> service_;  // outlives the endpoint that calls it
  std::unique_ptr<HttpEndpoint> endpoint_;
};

TEST_F(MapHttpTest, TileThenNotModifiedOnAMatchingETag) {
  start();
  const Response tile = get(port(), "/tiles/materials/0/0/0.png");
  ASSERT_EQ(tile.status, 200);
  EXPECT_EQ(tile.header("Content-Type"), "image/png");
  EXPECT_EQ(tile.body.substr(1, 3), "PNG");
  const std::string etag = tile.header("ETag");
  EXPECT_EQ(etag, "\"" + default_world().fingerprint() + "-materials-0-0-0-r2\"");

  const Response again = get(port(), "/tiles/materials/0/0/0.png", "If-None-Match: " + etag + "\r\n");
  EXPECT_EQ(again.status, 304);
  EXPECT_TRUE(again.body.empty());
  EXPECT_EQ(get(port(), "/tiles/materials/0/0/0.png", "If-None-Match: \"other\"\r\n").status, 200);
  EXPECT_EQ(service_->cache().entries(), 1u);  // the second 200 came from the cache
}

TEST_F(MapHttpTest, BadTileRequestsGet400WithAReason) {
  start();
  const struct {
    const char* target;
    const char* body;
  } cases[] = {
      {"/tiles/materials/99/0/0.png", "zoom must be in [-8, 4] (got 99)\n"},
      {"/tiles/materials/0/east/0.png", "tile x and y must be integers\n"},
      {"/tiles/materials/-8/1000000000/0.png", "the tile lies past the world limit of +-2^40 units\n"},
      {"/tiles/nope/0/0/0.png",
       "unknown layer \"nope\": one of materials, biomes, elevation, structures, objects, "
       "objects.<resource>, grid, density.<resource>, epochs\n"},
      {"/tiles/density.lava/0/0/0.png", "unknown resource layer \"lava\": one of forest, iron, coal, boulders\n"},
      {"/tiles/density/0/0/0.png",
       "layer density needs a resource layer: density.<resource>, <resource> one of "
       "forest, iron, coal, boulders\n"},
      {"/tiles/grid.iron/0/0/0.png", "layer grid takes no resource layer\n"},
  };
  for (const auto& c : cases) {
    const Response r = get(port(), c.target);
    EXPECT_EQ(r.status, 400) << c.target;
    EXPECT_EQ(r.body, c.body) << c.target;
  }
  EXPECT_EQ(get(port(), "/api/point?x=a&z=0").status, 400);
}

// Every resource layer of the world gets a density layer and an objects layer, listed for the
// page and served as tiles with their own ETags.
TEST_F(MapHttpTest, DensityAndObjectsLayersPerResourceLayer) {
  start();
  const std::string status = get(port(), "/api/status").body;
  for (const char* listed :
       {"{\"name\":\"density.forest\",\"title\":\"Density: forest\",\"overlay\":true,\"min_zoom\":-8}",
        "{\"name\":\"objects.boulders\",\"title\":\"Objects: boulders\",\"overlay\":true,\"min_zoom\":0}"}) {
    EXPECT_NE(status.find(listed), std::string::npos) << listed << " not in " << status;
  }
  const Response density = get(port(), "/tiles/density.iron/-5/0/0.png");
  ASSERT_EQ(density.status, 200);
  EXPECT_EQ(density.body.substr(1, 3), "PNG");
  EXPECT_EQ(density.header("ETag"), "\"" + default_world().fingerprint() + "-density.1--5-0-0-r2\"");
  EXPECT_EQ(get(port(), "/tiles/density.iron/-5/0/0.png", "If-None-Match: " + density.header("ETag") + "\r\n").status,
            304);
  EXPECT_EQ(get(port(), "/tiles/objects.coal/0/0/0.png").status, 200);
}

// A clicked chunk's objects and structures, as the generator makes them (no edits here).
TEST_F(MapHttpTest, AChunksObjectsAsJson) {
  start();
  const ChunkData expected = Generator(default_world()).generate({3, -2});
  ASSERT_FALSE(expected.objects.empty());
  const Response r = get(port(), "/api/chunk?cx=3&cz=-2");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.body.rfind("{\"chunk\":[3,-2],\"chunk_size\":64,\"edit_version\":0,\"objects\":[{\"id\":\"", 0), 0u)
      << r.body;
  size_t listed = 0;
  for (size_t at = r.body.find("\"layer\":"); at != std::string::npos; at = r.body.find("\"layer\":", at + 1)) ++listed;
  EXPECT_EQ(listed, expected.objects.size());
  const ResourceObject& first = expected.objects.front();
  char id[17];
  std::snprintf(id, sizeof id, "%016llx", static_cast<unsigned long long>(first.id));
  EXPECT_NE(r.body.find("{\"id\":\"" + std::string(id) + "\",\"layer\":\"" +
                        default_world().resources().layer(first.layer).name + "\""),
            std::string::npos)
      << r.body.substr(0, 300);
  for (const char* bad : {"/api/chunk?cx=a&cz=0", "/api/chunk?cx=0", "/api/chunk?cx=17179869185&cz=0"}) {
    EXPECT_EQ(get(port(), bad).status, 400) << bad;
  }
}

// The chunks gRPC GetChunk serves, no more, no fewer: at chunk size 64 the world's last chunk
// on each side is 2^34 (the one /api/point at x = 2^40 names); 2^34 + 1 is refused, naming the
// parameter and the range.
TEST_F(MapHttpTest, AChunkIsServedExactlyWithinTheWorldGrpcServes) {
  start();
  const int64_t last = chunk_limit(static_cast<uint32_t>(default_world().chunk_size()));
  ASSERT_EQ(last, int64_t{1} << 34);
  for (const auto& [cx, cz] : {std::pair{last, int64_t{0}}, std::pair{-last, -last}, std::pair{int64_t{3}, last}}) {
    const Response r = get(port(), "/api/chunk?cx=" + std::to_string(cx) + "&cz=" + std::to_string(cz));
    EXPECT_EQ(r.status, 200) << cx << ", " << cz << ": " << r.body;
    EXPECT_EQ(r.body.rfind("{\"chunk\":[" + std::to_string(cx) + "," + std::to_string(cz) + "],", 0), 0u) << r.body;
  }
  EXPECT_EQ(get(port(), "/api/chunk?cx=17179869185&cz=0").body,
            "{\"error\":\"cx: must be in [-17179869184, 17179869184] (the supported world, 2^40 units) (got "
            "17179869185)\"}");
  EXPECT_EQ(get(port(), "/api/chunk?cx=0&cz=-17179869185").body,
            "{\"error\":\"cz: must be in [-17179869184, 17179869184] (the supported world, 2^40 units) (got "
            "-17179869185)\"}");
  const Response point = get(port(), "/api/point?x=1099511627776&z=0");  // x = 2^40 lies in that chunk
  EXPECT_NE(point.body.find("\"chunk\":[17179869184,0]"), std::string::npos) << point.body;
}

TEST_F(MapHttpTest, PageAssetsAndJson) {
  start();
  const Response page = get(port(), "/map/");
  EXPECT_EQ(page.status, 200);
  EXPECT_NE(page.body.find("leaflet/leaflet.js"), std::string::npos);
  EXPECT_EQ(get(port(), "/map/leaflet/leaflet.js").status, 200);
  EXPECT_EQ(get(port(), "/map/leaflet/images/layers.png").header("Content-Type"), "image/png");
  EXPECT_EQ(get(port(), "/map").header("Location"), "/map/");
  const Response point = get(port(), "/api/point?x=10&z=-5");
  EXPECT_EQ(point.status, 200);
  EXPECT_NE(point.body.find("\"chunk\":[0,-1]"), std::string::npos) << point.body;
  EXPECT_EQ(get(port(), "/api/view?x=120.5&z=-3e3").status, 200);  // the page's centre
  EXPECT_EQ(get(port(), "/api/view?x=120.5&z=inf").status, 400);
  EXPECT_EQ(get(port(), "/healthz").body, "ok\n");  // the side port's own routes are unchanged
  EXPECT_EQ(get(port(), "/elsewhere").body, "not found: try /healthz or /metrics\n");
}

// The edits overlay's endpoint asks the index for the chunks under the bounds (world units
// floored to chunks) and lists them; without an index there is no such route.
TEST_F(MapHttpTest, EditedChunksUnderTheViewWhenTheServerHasAnIndex) {
  std::vector<std::array<int64_t, 4>> asked;
  start("", [&asked](int64_t x0, int64_t z0, int64_t x1, int64_t z1, size_t limit) {
    asked.push_back({x0, z0, x1, z1});
    EXPECT_GT(limit, 1000u);
    return std::vector<map::EditedChunk>{{0, 0, 3}, {-2, 5, 1}};
  });
  EXPECT_NE(get(port(), "/api/status").body.find("\"edits\":true"), std::string::npos);
  const int64_t cs = default_world().chunk_size();
  const Response r = get(port(), "/api/edits?x0=-1&z0=" + std::to_string(cs) + "&x1=" + std::to_string(3 * cs) +
                                     "&z1=" + std::to_string(cs + 1));
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "{\"chunk_size\":" + std::to_string(cs) + ",\"chunks\":[[0,0,3],[-2,5,1]],\"truncated\":false}");
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(asked[0], (std::array<int64_t, 4>{-1, 1, 3, 1}));
  EXPECT_EQ(get(port(), "/api/edits?x0=a&z0=0&x1=1&z1=1").status, 400);
}

TEST_F(MapHttpTest, NoEditsOrPlayersRoutesUnlessGiven) {
  start();
  const std::string status = get(port(), "/api/status").body;
  EXPECT_NE(status.find("\"edits\":false"), std::string::npos);
  EXPECT_NE(status.find("\"players\":false"), std::string::npos);
  EXPECT_EQ(get(port(), "/api/edits?x0=0&z0=0&x1=1&z1=1").status, 404);
  EXPECT_EQ(get(port(), "/api/players").status, 404);  // positions are opt-in
}

TEST_F(MapHttpTest, PlayersPositionsWhenTheServerOptsIn) {
  start("", {}, [] { return std::vector<map::PlayerMarker>{{1, 10.5, -3}, {4, -1e6, 0.25}}; });
  EXPECT_NE(get(port(), "/api/status").body.find("\"players\":true"), std::string::npos);
  const Response r = get(port(), "/api/players");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "{\"players\":[{\"id\":1,\"x\":10.5,\"z\":-3},{\"id\":4,\"x\":-1000000,\"z\":0.25}]}");
}

TEST_F(MapHttpTest, TheTokenGuardsEveryMapRoute) {
  start("s3cret");
  EXPECT_EQ(get(port(), "/map/").status, 401);
  EXPECT_EQ(get(port(), "/tiles/grid/0/0/0.png").status, 401);
  EXPECT_EQ(get(port(), "/api/status").status, 401);
  EXPECT_EQ(get(port(), "/healthz").status, 200);  // health stays open
  EXPECT_EQ(get(port(), "/api/status", "Authorization: Bearer s3cret\r\n").status, 200);
  const Response page = get(port(), "/map/?token=s3cret");
  EXPECT_EQ(page.status, 200);
  EXPECT_EQ(page.header("Set-Cookie"), "chunkforge_map_token=s3cret; Path=/; HttpOnly; SameSite=Strict");
  EXPECT_EQ(get(port(), "/tiles/grid/0/0/0.png", "Cookie: a=b; chunkforge_map_token=s3cret\r\n").status, 200);
  EXPECT_EQ(get(port(), "/tiles/grid/0/0/0.png", "Cookie: chunkforge_map_token=wrong\r\n").status, 401);
}

TEST_F(MapHttpTest, LocateHasGrpcLocatesRadiusBound) {
  start();
  const Response far = get(port(), "/api/locate?type=well&x=0&z=0&radius=65536");
  EXPECT_EQ(far.status, 400);
  EXPECT_EQ(far.body, "{\"error\":\"radius: must be in (0, 4096] world units on this server (got 65536)\"}");
  const Response at_cap = get(port(), "/api/locate?type=well&x=0&z=0&radius=4096");
  EXPECT_EQ(at_cap.status, 200);
  EXPECT_NE(at_cap.body.find("\"instances\":[{"), std::string::npos) << at_cap.body;
}

TEST_F(MapHttpTest, TheServerPassesItsOwnLocateBound) {
  start("", {}, {}, 100);
  EXPECT_EQ(get(port(), "/api/locate?type=well&x=0&z=0&radius=100").status, 200);
  EXPECT_NE(get(port(), "/api/locate?type=well&x=0&z=0&radius=101").body.find("(0, 100]"), std::string::npos);
}

// Replies of MapService::handle called directly, and whether a reply function was dropped unused.
struct Replies {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<map::MapReply> got;
  int dropped = 0;
  map::MapReplyFn fn() {
    auto sentinel = std::shared_ptr<void>(nullptr, [this](void*) {
      std::lock_guard lock(mutex);
      ++dropped;
      changed.notify_all();
    });
    return [this, sentinel](map::MapReply r) {
      std::lock_guard lock(mutex);
      got.push_back(std::move(r));
      changed.notify_all();
    };
  }
  bool wait(size_t replies, int drops = 0) {
    std::unique_lock lock(mutex);
    return changed.wait_for(lock, std::chrono::seconds(20), [&] { return got.size() >= replies && dropped >= drops; });
  }
};

TEST(MapJobsTest, SearchesBeyondMaxLocatesAtOnceGet503) {
  map::MapOptions options;
  options.max_locates = 1;
  Replies replies;  // before the service: its jobs' reply functions die with its pool
  map::MapService service(options);
  service.set_world(default_world(), "test");
  auto open = std::make_shared<std::atomic<bool>>(false);
  map::MapRequest search;
  search.target = "/api/locate?type=well&x=0&z=0&radius=4096";
  ASSERT_TRUE(service.handle(search, replies.fn(), open));
  ASSERT_TRUE(service.handle(search, replies.fn(), open));  // the first is still queued or running
  ASSERT_TRUE(replies.wait(2));
  std::lock_guard lock(replies.mutex);
  EXPECT_EQ(replies.got[0].status, 503);
  EXPECT_EQ(replies.got[0].body, "busy: 1 structure searches under way\n");
  EXPECT_EQ(replies.got[0].headers, (std::vector<std::pair<std::string, std::string>>{{"Retry-After", "1"}}));
  EXPECT_EQ(replies.got[1].status, 200);
}

TEST(MapJobsTest, ASearchWhoseClientLeftIsNeitherRunNorAnswered) {
  Replies replies;  // before the service: its jobs' reply functions die with its pool
  map::MapService service(map::MapOptions{});
  service.set_world(default_world(), "test");
  auto left = std::make_shared<std::atomic<bool>>(true);
  map::MapRequest search;
  search.target = "/api/locate?type=well&x=0&z=0&radius=4096";
  ASSERT_TRUE(service.handle(search, replies.fn(), left));
  ASSERT_TRUE(replies.wait(0, 1));  // the reply function was dropped
  std::lock_guard lock(replies.mutex);
  EXPECT_TRUE(replies.got.empty());
}

TEST(MapJobsTest, AbandonedJobsDoNotTakeTheQueuesRoom) {
  map::TilePool pool(1, 2);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  ASSERT_TRUE(pool.submit([released] { released.wait(); }));  // holds the one worker
  while (pool.queued() > 0) std::this_thread::yield();
  auto cancelled = std::make_shared<std::atomic<bool>>(false);
  std::atomic<int> ran{0};
  for (int k = 0; k < 2; ++k) ASSERT_TRUE(pool.submit([&ran] { ++ran; }, std::nullopt, cancelled));
  while (pool.queued() < 2) std::this_thread::yield();
  EXPECT_FALSE(pool.submit([&ran] { ++ran; })) << "full of live jobs";
  cancelled->store(true);  // their clients left
  EXPECT_TRUE(pool.submit([&ran] { ++ran; })) << "the abandoned ones made room";
  EXPECT_EQ(pool.queued(), 1u);
  release.set_value();
  for (int k = 0; k < 2000 && ran < 1; ++k) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(ran.load(), 1);
}

}  // namespace
}  // namespace chunkforge::server
