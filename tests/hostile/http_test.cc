// The HTTP side port and the live map under attack from 127.0.0.2 (docs/server.md, "Hostile
// scenarios"): structure searches whose clients leave at once, idle half-request sockets that
// reconnect as soon as they are closed, 80 map clients fetching tiles, and a flood of
// /api/edits and of the moderation view's queries. Each must leave /healthz, the gRPC client, memory and shutdown
// within the bounds.
#include <fcntl.h>

#include <random>

#include "harness.h"

namespace chunkforge::hostile {
namespace {

constexpr const char* kAttacker = "127.0.0.2";

int connect_from_attacker(int port) { return test::connect_from(kAttacker, port); }

// Connects, sends `request` once writable (within 200 ms) and closes at once without reading.
void send_and_leave(int port, const std::string& request) {
  const int fd = connect_from_attacker(port);
  if (fd < 0) return;
  pollfd p{fd, POLLOUT, 0};
  if (poll(&p, 1, 200) == 1 && (p.revents & POLLOUT)) send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  close(fd);
}

std::string get_line(const std::string& target) { return "GET " + target + " HTTP/1.1\r\nHost: localhost\r\n\r\n"; }

TEST(HostileScenario, LocateSearchesWhoseClientsLeave) {
  Scenario scenario("http_locate_leave", {});
  const int port = scenario.server().http_port();
  std::string body;
  EXPECT_EQ(http_get(port, "/api/locate?type=well&x=0&z=0&radius=65536", 5000ms, kAttacker, &body), 400);
  EXPECT_NE(body.find("radius: must be in (0, 4096]"), std::string::npos) << body;
  EXPECT_EQ(http_get(port, "/api/locate?type=well&x=0&z=0&radius=4096", 10000ms, kAttacker, &body), 200) << body;
  scenario.attack(8s, [port](const std::stop_token& stop) {
    while (!stop.stop_requested()) {
      for (int k = 0; k < 64 && !stop.stop_requested(); ++k) {  // half beyond the bound, half at it
        send_and_leave(port, get_line("/api/locate?type=well&x=" + std::to_string(k * 1000) +
                                      "&z=0&radius=" + (k % 2 ? "65536" : "4096")));
      }
      std::this_thread::sleep_for(100ms);
    }
  });
  scenario.expect_within_bounds();
}

TEST(HostileScenario, IdleHalfRequestsReconnectingAsTheyAreClosed) {
  Scenario scenario("http_idle_reconnect", {});
  const int port = scenario.server().http_port();
  std::atomic<int> reconnects{0};
  scenario.attack(8s, [port, &reconnects](const std::stop_token& stop) {
    const std::string partial = "GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Waiting: ";
    std::vector<pollfd> sockets(64, pollfd{-1, POLLIN, 0});
    while (!stop.stop_requested()) {
      for (pollfd& s : sockets) {
        if (s.fd >= 0) continue;
        s.fd = connect_from_attacker(port);
        pollfd out{s.fd, POLLOUT, 0};
        if (s.fd >= 0 && poll(&out, 1, 100) == 1) send(s.fd, partial.data(), partial.size(), MSG_NOSIGNAL);
        reconnects.fetch_add(1);
      }
      poll(sockets.data(), sockets.size(), 50);
      for (pollfd& s : sockets) {  // closed by the server: reconnect at the next round
        if (s.fd >= 0 && (s.revents & (POLLIN | POLLHUP | POLLERR))) {
          close(s.fd);
          s.fd = -1;
        }
        s.revents = 0;
      }
    }
    for (pollfd& s : sockets) {
      if (s.fd >= 0) close(s.fd);
    }
  });
  scenario.expect_within_bounds();
  std::printf("  idle sockets (re)connected: %d\n", reconnects.load());
}

TEST(HostileScenario, EightyMapClientsFetchingTiles) {
  Scenario scenario("http_map_clients", {});
  const int port = scenario.server().http_port();
  std::atomic<int> tiles{0}, busy{0}, refused{0};
  scenario.attack(8s, [&, port](std::stop_token stop) {
    std::vector<std::jthread> clients;
    clients.reserve(80);
    for (int c = 0; c < 80; ++c) {
      clients.emplace_back([&, c, port] {
        std::mt19937 random(static_cast<unsigned>(c));
        while (!stop.stop_requested()) {
          const std::string tile =
              "/tiles/materials/0/" + std::to_string(random() % 512) + "/" + std::to_string(random() % 512) + ".png";
          const int status = http_get(port, tile, 2000ms, kAttacker);
          (status == 200 ? tiles : status == 503 ? busy : refused).fetch_add(1);
          if (status != 200) std::this_thread::sleep_for(5ms);  // a browser would back off far longer
        }
      });
    }
  });
  scenario.expect_within_bounds();
  std::printf("  tiles: %d served, %d busy (503), %d refused or cut\n", tiles.load(), busy.load(), refused.load());
  EXPECT_GT(tiles.load(), 0) << "the admitted map clients are served";
}

TEST(HostileScenario, AFloodOfEditsQueries) {
  const std::string data = test::unique_temp_dir("hostile_http_edits_data");
  Scenario scenario("http_edits_flood", {"--data", data, "--open-edits"});
  const int port = scenario.server().http_port();
  const std::string edits = "/api/edits?x0=-1000000&z0=-1000000&x1=1000000&z1=1000000";
  ASSERT_EQ(http_get(port, edits, 5000ms, kAttacker), 200) << "the route exists";
  std::atomic<int> answered{0};
  scenario.attack(8s, [&, port](std::stop_token stop) {
    std::vector<std::jthread> clients;
    clients.reserve(32);
    for (int c = 0; c < 32; ++c) {
      clients.emplace_back([&, port] {
        while (!stop.stop_requested()) {
          if (http_get(port, edits, 2000ms, kAttacker) != 0) answered.fetch_add(1);
        }
      });
    }
  });
  scenario.expect_within_bounds();
  std::printf("  edits queries answered: %d\n", answered.load());
  EXPECT_GT(answered.load(), 0);
}

// Whole-world audits and rollback previews from 32 clients with a moderator's credential (open
// edits: any will do), and as many with none: the moderation lane's 8 waiting jobs bound the
// work, the rest are refused at once.
TEST(HostileScenario, AFloodOfModerationQueries) {
  const std::string data = test::unique_temp_dir("hostile_http_moderation_data");
  Scenario scenario("http_moderation_flood", {"--data", data, "--open-edits"});
  const int port = scenario.server().http_port();
  const std::string area =
      "%7B%22area%22%3A%7B%22min%22%3A%7B%22x%22%3A-100000%2C%22z%22%3A-100000%7D%2C%22max%22%3A%7B"
      "%22x%22%3A100000%2C%22z%22%3A100000%7D%7D%7D";  // {"area":{-100000..100000}}
  const std::vector<std::string> targets = {"/api/moderation/log?q=%7B%7D",
                                            "/api/moderation/rollback-preview?q=" + area};
  const std::string moderator = "X-Chunkforge-Moderator: anyone\r\n";
  for (const std::string& target : targets) {
    std::string body;
    ASSERT_EQ(http_get(port, target, 5000ms, kAttacker, &body, moderator), 200) << target << ": " << body;
  }
  std::atomic<int> answered{0}, refused{0};
  scenario.attack(8s, [&, port](std::stop_token stop) {
    std::vector<std::jthread> clients;
    clients.reserve(64);
    for (int c = 0; c < 64; ++c) {
      clients.emplace_back([&, c, port] {
        const std::string& target = targets[c % 2];
        const std::string headers = c < 32 ? moderator : "";
        while (!stop.stop_requested()) {
          const int status = http_get(port, target, 2000ms, kAttacker, nullptr, headers);
          (status == 200 ? answered : refused).fetch_add(1);
        }
      });
    }
  });
  scenario.expect_within_bounds();
  std::printf("  moderation queries answered: %d, refused or cut: %d\n", answered.load(), refused.load());
  EXPECT_GT(answered.load(), 0);
}

}  // namespace
}  // namespace chunkforge::hostile
