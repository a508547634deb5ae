// HttpEndpoint over real loopback sockets: its routes, and that no client can stall it or shut
// out the health check (idle and trickling clients, too many connections from one address or
// in all, oversized headers, stop() with clients stuck or replies owed).
#include "http/http_endpoint.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "support/http_response.h"

namespace chunkforge::server {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

milliseconds since(Clock::time_point start) { return std::chrono::duration_cast<milliseconds>(Clock::now() - start); }

// A blocking loopback TCP client that sends what it is told and notices when the server closes.
class RawClient {
 public:
  explicit RawClient(int port, const char* from = "127.0.0.1") : fd_(socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in local{}, address{};
    local.sin_family = AF_INET;
    inet_pton(AF_INET, from, &local.sin_addr);
    bind(fd_, reinterpret_cast<sockaddr*>(&local), sizeof local);
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

Response request(int port, const std::string& method, const std::string& target, const char* from = "127.0.0.1") {
  RawClient client(port, from);
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
  auto endpoint = std::make_unique<HttpEndpoint>(
      "127.0.0.1:0", [] { return "chunkforge_up 1\n"; }, options);
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

// Connections that are open, and those the server closed, after `wait`.
std::pair<std::vector<RawClient*>, int> open_and_closed(std::vector<std::unique_ptr<RawClient>>& clients,
                                                        milliseconds wait) {
  std::this_thread::sleep_for(wait);
  std::vector<RawClient*> open;
  int closed = 0;
  for (auto& client : clients) {
    if (client->closed_within(milliseconds(0))) {
      ++closed;
    } else {
      open.push_back(client.get());
    }
  }
  return {open, closed};
}

TEST(HttpEndpointTest, OneAddressHoldsAtMostMaxPerAddress) {
  auto endpoint = started({.header_timeout = milliseconds(3000), .max_per_address = 3});
  std::vector<std::unique_ptr<RawClient>> clients;
  for (int i = 0; i < 3 + 4; ++i) clients.push_back(std::make_unique<RawClient>(endpoint->port(), "127.0.0.2"));
  const auto [open, closed] = open_and_closed(clients, milliseconds(500));
  EXPECT_EQ(closed, 4);
  EXPECT_EQ(open.size(), 3u);
  EXPECT_EQ(request(endpoint->port(), "GET", "/healthz", "127.0.0.2").status, 0) << "its address is full";
  EXPECT_EQ(request(endpoint->port(), "GET", "/healthz").status, 200) << "another address is served";
  ASSERT_TRUE(open[0]->send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
  ASSERT_TRUE(open[0]->closed_within(milliseconds(2000)));
  EXPECT_EQ(parse(open[0]->received()).status, 200) << "the admitted ones are served as usual";
}

// A handler serving /work with 200 at once.
HttpHandler work_handler() {
  return [](const HttpRequestView& request, HttpReplyFn reply, std::shared_ptr<const std::atomic<bool>>) {
    if (request.target != "/work") return false;
    reply({200, "text/plain", "done\n", {}});
    return true;
  };
}

TEST(HttpEndpointTest, AtTheCapTheOldestIdleConnectionMakesRoomAndTheReserveIsHealths) {
  const HttpOptions options{.header_timeout = milliseconds(3000),
                            .request_timeout = milliseconds(4000),
                            .max_connections = 4,
                            .health_reserve = 2,
                            .max_per_address = 100};
  HttpEndpoint endpoint(
      "127.0.0.1:0", [] { return "up 1\n"; }, options, work_handler());
  ASSERT_TRUE(endpoint.start());
  std::vector<std::unique_ptr<RawClient>> idle;
  for (int i = 0; i < 9; ++i) {
    idle.push_back(std::make_unique<RawClient>(endpoint.port()));
    std::this_thread::sleep_for(milliseconds(20));  // accepted in this order
  }
  const auto [open, closed] = open_and_closed(idle, milliseconds(300));
  EXPECT_EQ(closed, 3);
  ASSERT_EQ(open.size(), 6u);
  EXPECT_EQ(open.front(), idle[3].get()) << "the oldest idle ones made room";

  EXPECT_EQ(request(endpoint.port(), "GET", "/healthz").status, 200) << "health is never shut out";
  EXPECT_EQ(request(endpoint.port(), "GET", "/metrics").status, 200);
  const Response busy = request(endpoint.port(), "GET", "/work");
  EXPECT_EQ(busy.status, 503) << "past max_connections the rest is for health";
  EXPECT_EQ(busy.header("Retry-After"), "1");
  EXPECT_TRUE(idle[3]->closed_within(milliseconds(0))) << "each newcomer closed the oldest idle one";

  idle.clear();  // the idle ones go: ordinary requests are served again
  std::this_thread::sleep_for(milliseconds(300));
  EXPECT_EQ(request(endpoint.port(), "GET", "/work").status, 200);
}

// Requests a handler holds without answering; the test answers (or not) when it likes.
struct HeldRequests {
  std::mutex mutex;
  std::vector<std::pair<HttpReplyFn, std::shared_ptr<const std::atomic<bool>>>> held;
  HttpHandler handler() {
    return [this](const HttpRequestView&, HttpReplyFn reply, std::shared_ptr<const std::atomic<bool>> cancelled) {
      std::lock_guard lock(mutex);
      held.emplace_back(std::move(reply), std::move(cancelled));
      return true;
    };
  }
  size_t count() {
    std::lock_guard lock(mutex);
    return held.size();
  }
  // Up to 5 s (a passing wait returns at once).
  bool wait_for(size_t n) {
    for (int k = 0; k < 500 && count() < n; ++k) std::this_thread::sleep_for(milliseconds(10));
    return count() >= n;
  }
};

TEST(HttpEndpointTest, AtTheCapAnAnsweredConnectionLingeringMakesRoomForHealth) {
  HeldRequests work;
  const HttpOptions options{.max_connections = 1, .health_reserve = 1, .max_per_address = 100};
  HttpEndpoint endpoint(
      "127.0.0.1:0", [] { return ""; }, options, work.handler());
  ASSERT_TRUE(endpoint.start());
  RawClient owed(endpoint.port());
  ASSERT_TRUE(owed.send("GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
  ASSERT_TRUE(work.wait_for(1));
  // Connected only now: connected earlier, it could arrive while `owed` was still idle (its
  // request unread, as happened under TSan), and the oldest idle connection makes room.
  RawClient refused(endpoint.port());
  ASSERT_TRUE(refused.send("GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
  std::this_thread::sleep_for(milliseconds(200));  // answered 503, and left open by its client
  EXPECT_EQ(request(endpoint.port(), "GET", "/healthz").status, 200) << "the lingering one made room";
  EXPECT_TRUE(refused.closed_within(milliseconds(1000)));
  EXPECT_EQ(parse(refused.received()).status, 503);
  EXPECT_FALSE(owed.closed_within(milliseconds(0))) << "a connection owed a reply is never the one closed";
  work.held[0].first({200, "text/plain", "done\n", {}});
  ASSERT_TRUE(owed.closed_within(milliseconds(2000)));
  EXPECT_EQ(parse(owed.received()).body, "done\n");
}

TEST(HttpEndpointTest, StopGivesAnOwedReplyTheGraceThen503) {
  HeldRequests work;  // outlives the endpoint: its reply functions are called after
  auto endpoint = std::make_unique<HttpEndpoint>(
      "127.0.0.1:0", [] { return ""; }, HttpOptions{.stop_grace = milliseconds(300)}, work.handler());
  ASSERT_TRUE(endpoint->start());
  RawClient client(endpoint->port());
  ASSERT_TRUE(client.send("GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
  ASSERT_TRUE(work.wait_for(1));
  const auto start = Clock::now();
  endpoint->stop();
  EXPECT_GE(since(start), milliseconds(250)) << "the owed reply had its grace";
  EXPECT_LT(since(start), milliseconds(300 + 1500)) << "and no more";
  EXPECT_TRUE(work.held[0].second->load()) << "the work was told to give up";
  ASSERT_TRUE(client.closed_within(milliseconds(1000)));
  const Response answer = parse(client.received());
  EXPECT_EQ(answer.status, 503);
  EXPECT_EQ(answer.body, "the server is stopping\n");
  endpoint.reset();
  work.held[0].first({200, "text/plain", "late\n", {}});  // the endpoint is gone: nothing happens
}

TEST(HttpEndpointTest, StopSendsTheReplyOfWorkThatGivesUpWhenCancelled) {
  std::jthread worker;
  auto handler = [&worker](const HttpRequestView&, HttpReplyFn reply,
                           std::shared_ptr<const std::atomic<bool>> cancelled) {
    worker = std::jthread([reply = std::move(reply), cancelled] {
      for (int k = 0; k < 1000 && !cancelled->load(); ++k) std::this_thread::sleep_for(milliseconds(5));
      reply({503, "text/plain", "cancelled\n", {}});
    });
    return true;
  };
  HttpEndpoint endpoint(
      "127.0.0.1:0", [] { return ""; }, HttpOptions{.stop_grace = milliseconds(5000)}, handler);
  ASSERT_TRUE(endpoint.start());
  RawClient client(endpoint.port());
  ASSERT_TRUE(client.send("GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
  std::this_thread::sleep_for(milliseconds(200));
  const auto start = Clock::now();
  endpoint.stop();
  EXPECT_LT(since(start), milliseconds(2500)) << "stop() waited for the grace, not for the work's reply";
  ASSERT_TRUE(client.closed_within(milliseconds(1000)));
  EXPECT_EQ(parse(client.received()).body, "cancelled\n");
}

TEST(HttpEndpointTest, AClientThatLeavesRaisesCancelledAndFreesItsSlot) {
  HeldRequests work;
  HttpEndpoint endpoint(
      "127.0.0.1:0", [] { return ""; }, HttpOptions{.max_per_address = 1}, work.handler());
  ASSERT_TRUE(endpoint.start());
  {
    RawClient client(endpoint.port());
    ASSERT_TRUE(client.send("GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
    ASSERT_TRUE(work.wait_for(1));
  }
  bool cancelled = false;
  for (int k = 0; k < 200 && !cancelled; ++k) {
    std::this_thread::sleep_for(milliseconds(10));
    cancelled = work.held[0].second->load();
  }
  EXPECT_TRUE(cancelled);
  work.held[0].first({200, "text/plain", "nobody reads this\n", {}});
  EXPECT_EQ(request(endpoint.port(), "GET", "/healthz").status, 200) << "the address's one slot is free again";
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
