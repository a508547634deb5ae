// HttpEndpoint over real loopback sockets: its routes, and that no client can stall it (idle
// and trickling clients, too many connections, oversized headers, stop() with clients stuck).
#include "http_endpoint.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "support/http_response.h"

namespace chunkforge::server {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

milliseconds since(Clock::time_point start) {
  return std::chrono::duration_cast<milliseconds>(Clock::now() - start);
}

// A blocking loopback TCP client that sends what it is told and notices when the server closes.
class RawClient {
 public:
  explicit RawClient(int port) : fd_(socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  }
  ~RawClient() { close(fd_); }
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;

  bool connected() const { return connected_; }
  bool send(const std::string& bytes) {
    return ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size());
  }
  // Reads what arrives for up to `limit`; true once the server closed (end of stream or reset).
  bool closed_within(milliseconds limit) {
    const auto end = Clock::now() + limit;
    for (;;) {
      pollfd p{fd_, POLLIN, 0};
      const auto left = std::max<int64_t>(0, std::chrono::duration_cast<milliseconds>(end - Clock::now()).count());
      if (poll(&p, 1, static_cast<int>(left)) <= 0) return false;
      char chunk[4096];
      const ssize_t n = recv(fd_, chunk, sizeof chunk, 0);
      if (n <= 0) return true;
      received_.append(chunk, static_cast<size_t>(n));
    }
  }
  const std::string& received() const { return received_; }

 private:
  int fd_;
  bool connected_ = false;
  std::string received_;
};

using Response = test::HttpResponse;
const auto parse = test::parse_http_response;

Response request(int port, const std::string& method, const std::string& target) {
  RawClient client(port);
  client.send(method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  client.closed_within(milliseconds(2000));
  return parse(client.received());
}

const std::string kPartialHeader = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Waiting: ";

// Sends a header a byte every `interval` and never finishes it; how long until the server
// closed the connection, or nullopt if it had not after `cap`.
std::optional<milliseconds> trickle(int port, milliseconds interval, milliseconds cap) {
  RawClient client(port);
  const auto start = Clock::now();
  const std::string header = kPartialHeader + std::string(4000, 'a');
  for (size_t i = 0; since(start) < cap; ++i) {
    if (!client.send(std::string(1, header[i % header.size()]))) return since(start);
    if (client.closed_within(interval)) return since(start);
  }
  return std::nullopt;
}

std::unique_ptr<HttpEndpoint> started(HttpOptions options = {}) {
  auto endpoint = std::make_unique<HttpEndpoint>("127.0.0.1:0", [] { return "chunkforge_up 1\n"; }, options);
  EXPECT_TRUE(endpoint->start());
  return endpoint;
}

TEST(HttpEndpointTest, ServesHealthMetricsAndErrors) {
  auto endpoint = started();
  const Response health = request(endpoint->port(), "GET", "/healthz");
  EXPECT_EQ(health.status, 200);
  EXPECT_EQ(health.body, "ok\n");
  EXPECT_NE(health.head.find("Connection: close"), std::string::npos) << health.head;

  const Response metrics = request(endpoint->port(), "GET", "/metrics");
  EXPECT_EQ(metrics.status, 200);
  EXPECT_EQ(metrics.body, "chunkforge_up 1\n");
  EXPECT_NE(metrics.head.find("Content-Type: text/plain; version=0.0.4"), std::string::npos) << metrics.head;

  const Response missing = request(endpoint->port(), "GET", "/nope");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.body, "not found: try /healthz or /metrics\n");

  const Response post = request(endpoint->port(), "POST", "/healthz");
  EXPECT_EQ(post.status, 405);
  EXPECT_EQ(post.body, "only GET\n");
}

TEST(HttpEndpointTest, HealthAnswersWhileTenClientsSitOnPartialHeaders) {
  auto endpoint = started();  // the default 5 s header deadline: the idle ones are still there
  std::vector<std::unique_ptr<RawClient>> idle;
  for (int i = 0; i < 10; ++i) {
    idle.push_back(std::make_unique<RawClient>(endpoint->port()));
    ASSERT_TRUE(idle.back()->send(kPartialHeader));
  }
  const auto start = Clock::now();
  EXPECT_EQ(request(endpoint->port(), "GET", "/healthz").status, 200);
  EXPECT_LT(since(start), milliseconds(1000));
}

TEST(HttpEndpointTest, ATricklingClientIsCutOffAtTheHeaderDeadline) {
  // The whole-request deadline is far enough that only the header's can cut it off in time.
  auto endpoint = started({.header_timeout = milliseconds(300), .request_timeout = milliseconds(2000)});
  auto trickler = std::async(std::launch::async, trickle, endpoint->port(), milliseconds(50), milliseconds(3000));
  std::this_thread::sleep_for(milliseconds(100));
  const auto start = Clock::now();
  EXPECT_EQ(request(endpoint->port(), "GET", "/healthz").status, 200) << "health must answer meanwhile";
  EXPECT_LT(since(start), milliseconds(1000));
  const std::optional<milliseconds> cut = trickler.get();
  ASSERT_TRUE(cut) << "a client sending a byte every 50 ms was never cut off";
  EXPECT_GE(*cut, milliseconds(250));
  EXPECT_LT(*cut, milliseconds(300 + 700));
}

TEST(HttpEndpointTest, StopReturnsPromptlyWithStalledClientsConnected) {
  auto endpoint = started();
  std::vector<std::unique_ptr<RawClient>> stalled;
  for (int i = 0; i < 10; ++i) {
    stalled.push_back(std::make_unique<RawClient>(endpoint->port()));
    ASSERT_TRUE(stalled.back()->send(kPartialHeader));
  }
  auto trickler = std::async(std::launch::async, trickle, endpoint->port(), milliseconds(50), milliseconds(5000));
  std::this_thread::sleep_for(milliseconds(200));
  const auto start = Clock::now();
  endpoint->stop();
  EXPECT_LT(since(start), milliseconds(1000));
  for (auto& client : stalled) EXPECT_TRUE(client->closed_within(milliseconds(1000))) << "stop() left a client open";
  const std::optional<milliseconds> cut = trickler.get();
  ASSERT_TRUE(cut);
  EXPECT_LT(*cut, milliseconds(200 + 1000));
  endpoint->stop();  // again: nothing to do
}

TEST(HttpEndpointTest, ConnectionsBeyondTheLimitAreClosedAtOnce) {
  auto endpoint = started({.header_timeout = milliseconds(2000), .request_timeout = milliseconds(4000),
                           .max_connections = 4});
  std::vector<std::unique_ptr<RawClient>> clients;
  for (int i = 0; i < 4 + 5; ++i) clients.push_back(std::make_unique<RawClient>(endpoint->port()));
  std::this_thread::sleep_for(milliseconds(500));  // well before the header deadline
  std::vector<RawClient*> open;
  int closed = 0;
  for (auto& client : clients) {
    if (client->closed_within(milliseconds(0))) {
      ++closed;
    } else {
      open.push_back(client.get());
    }
  }
  EXPECT_EQ(closed, 5);
  ASSERT_EQ(open.size(), 4u);
  EXPECT_EQ(request(endpoint->port(), "GET", "/healthz").status, 0) << "full: a new connection is closed";

  // The open ones are served as usual; then the idle ones reach their deadline and free room.
  ASSERT_TRUE(open[0]->send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
  ASSERT_TRUE(open[0]->closed_within(milliseconds(1000)));
  EXPECT_EQ(parse(open[0]->received()).status, 200);
  for (size_t i = 1; i < open.size(); ++i) EXPECT_TRUE(open[i]->closed_within(milliseconds(3000)));
  EXPECT_EQ(request(endpoint->port(), "GET", "/healthz").status, 200);
}

TEST(HttpEndpointTest, AnOversizedHeaderGets431) {
  auto endpoint = started();
  RawClient client(endpoint->port());
  const auto start = Clock::now();
  ASSERT_TRUE(client.send("GET /healthz HTTP/1.1\r\nX-Pad: " + std::string(16 * 1024, 'a') + "\r\n\r\n"));
  EXPECT_TRUE(client.closed_within(milliseconds(2000)));
  EXPECT_EQ(parse(client.received()).status, 431);
  EXPECT_LT(since(start), milliseconds(1000)) << "refused for its size, not at the deadline";
}

TEST(HttpEndpointTest, AddressesAreCheckedBeforeAnythingStarts) {
  EXPECT_EQ(http_address_error("127.0.0.1:8080"), std::nullopt);
  EXPECT_EQ(http_address_error("0.0.0.0:0"), std::nullopt);
  EXPECT_EQ(http_address_error("[::1]:8080"), std::nullopt);
  EXPECT_EQ(http_address_error("x"), "--http: expected host:port (got \"x\")");
  EXPECT_EQ(http_address_error(":80"), "--http: expected host:port (got \":80\")");
  EXPECT_EQ(http_address_error("localhost:80"), "--http: the host must be an IP address (got \"localhost\")");
  EXPECT_EQ(http_address_error("127.0.0.1:65536"), "--http: the port must be a number in [0, 65535] (got \"65536\")");
  EXPECT_EQ(http_address_error("127.0.0.1:"), "--http: the port must be a number in [0, 65535] (got \"\")");
  HttpEndpoint bad("127.0.0.1:http", [] { return ""; });
  EXPECT_FALSE(bad.start());
  bad.stop();  // never started: nothing to do
}

}  // namespace
}  // namespace chunkforge::server
