// File: server/http/http_endpoint.h
//
// The HTTP side port (Boost.Beast on Asio): GET /healthz answers "ok" while the server serves,
// GET /metrics the Prometheus text page; any other GET goes to an optional handler (the live
// map, server/map/map_service.h) that answers asynchronously.
//
//   HttpEndpoint http("0.0.0.0:8080", [&] { return metrics_page(); });
//   if (!http.start()) ...;   // http.port() is the bound port
//
// No client can stall it, and none can shut out the health check. Every connection is served
// asynchronously on the endpoint's one thread, one request per connection (Connection: close).
// A request's header must arrive within header_timeout of the accept and its response be
// written within request_timeout: a client that sends nothing, or a byte at a time, is cut off
// then, while others are served. Headers beyond header_limit get 431; bodies are never read
// (GET only, else 405). A response is charged to its connection in the server's output budget
// while it is written (options.budget): with no room, 503 and Retry-After instead.
//
// Admission, so that /healthz and /metrics are answered whatever other clients do:
//   - one client address holds at most max_per_address connections; more are closed at once
//     (an attacker's sockets cannot fill the port; a load balancer probes from its own address);
//   - up to max_connections + health_reserve are open at once. When that many are, a newcomer
//     closes the oldest idle connection (still waiting for its header, or lingering after its
//     answer: closing it loses nobody a reply) and is admitted; only when every connection is
//     owed a reply or being answered is the newcomer closed. At most max_connections can be
//     owed (below), so the reserve is always idle or answering health checks;
//   - once its header is read, a request other than /healthz and /metrics while more than
//     max_connections are open gets 503 with Retry-After: the reserve is the health check's.
//
// The handler runs on the endpoint's thread and must not block: it hands slow work elsewhere
// and calls its reply function once, from any thread. Meanwhile the connection watches the
// socket: when the client closes (a browser dropping a tile it no longer shows), the request's
// deadline passes or stop() runs, the request's `cancelled` flag rises so that the work can
// give up; a reply for a client that has gone is dropped. stop() (or the destructor) closes
// every connection at once except those owed a reply: those get stop_grace for the reply (the
// work sees `cancelled` and ends promptly), then 503, so stop() returns within about
// stop_grace plus a short write and never waits for a client. An owed reply never given (its
// function destroyed) is answered 503.
//
// Thread safety: start() from the owner's thread; stop() from any thread but the endpoint's
// own, any number of times. The metrics callback runs on the endpoint's thread. A reply
// function may outlive the endpoint: called then, it does nothing.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace chunkforge::server {

class HttpCounts;
class OutputBudget;

struct HttpOptions {
  std::chrono::milliseconds header_timeout{5000};    // from the accept to the header's end
  std::chrono::milliseconds request_timeout{10000};  // from the accept to the response written
  size_t max_connections = 64;                       // open at once for any request
  size_t health_reserve = 8;                         // beyond those, for /healthz and /metrics
  size_t max_per_address = 16;                       // open at once from one client address
  std::chrono::milliseconds stop_grace{1000};        // stop(): for replies still owed, then 503
  uint32_t header_limit = 8 * 1024;                  // bytes of request line and headers
  // Where responses are charged while they are written (the server's budget for every byte
  // held for a client); a connection without room gets 503. Null: not charged.
  OutputBudget* budget = nullptr;
  // Where every response is counted by route class and status code (/metrics). Null: not
  // counted.
  HttpCounts* counts = nullptr;
};

// What the handler sees of a request, and what it answers.
struct HttpRequestView {
  std::string target;  // path and query
  std::string if_none_match, cookie, authorization;
  std::string moderator;  // X-Chunkforge-Moderator (the live map's moderation view)
  std::string peer;       // the client's address
};
struct HttpReply {
  unsigned status = 200;
  std::string content_type;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // beyond Content-Type
};
using HttpReplyFn = std::function<void(HttpReply)>;
// Returns false when it does not serve `request.target` (then 404).
using HttpHandler = std::function<bool(const HttpRequestView& request, HttpReplyFn reply,
                                       std::shared_ptr<const std::atomic<bool>> cancelled)>;

// Why `address` (host:port, host an IP address, IPv6 optionally in brackets, port 0 to 65535)
// cannot be an HTTP side port address, as a message starting with "--http: "; nullopt if it
// can. start() parses addresses the same way; main() checks the flag with it before starting.
std::optional<std::string> http_address_error(const std::string& address);

class HttpEndpoint {
 public:
  HttpEndpoint(std::string address, std::function<std::string()> metrics, HttpOptions options = {},
               HttpHandler handler = {});
  ~HttpEndpoint();

  // Binds host:port (port 0: any free one); false with the reason logged if it cannot.
  bool start();
  int port() const { return port_; }
  // Closes the port and every connection, then waits for the endpoint's thread (promptly:
  // nothing it runs waits for a client).
  void stop();

 private:
  struct Impl;
  std::string address_;
  std::unique_ptr<Impl> impl_;
  std::mutex stop_mutex_;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace chunkforge::server
