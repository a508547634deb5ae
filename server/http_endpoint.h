// File: server/http_endpoint.h
//
// The HTTP side port (Boost.Beast on Asio): GET /healthz answers "ok" while the server serves,
// GET /metrics the Prometheus text page; any other GET goes to an optional handler (the live
// map, server/map/map_service.h) that answers asynchronously.
//
//   HttpEndpoint http("0.0.0.0:8080", [&] { return metrics_page(); });
//   if (!http.start()) ...;   // http.port() is the bound port
//
// No client can stall it. Every connection is served asynchronously on the endpoint's one
// thread, one request per connection (Connection: close). A request's header must arrive
// within header_timeout of the accept and its response be written within request_timeout: a
// client that sends nothing, or a byte at a time, is cut off then, while others are served.
// At most max_connections are open at once; more are closed as soon as they are accepted.
// Headers beyond header_limit get 431; bodies are never read (GET only, else 405). stop() (or
// the destructor) closes every connection at once and never waits for a client.
//
// The handler runs on the endpoint's thread and must not block: it hands slow work elsewhere
// and calls its reply function once, from any thread. Meanwhile the connection watches the
// socket: when the client closes (a browser dropping a tile it no longer shows) or stop() runs,
// the request's `cancelled` flag rises so that the work can give up. stop() waits for replies
// still owed (the handler's work sees `cancelled` and ends promptly); an owed reply never
// given (its function destroyed) is answered 503.
//
// Thread safety: start() from the owner's thread; stop() from any thread but the endpoint's
// own, any number of times. The metrics callback runs on the endpoint's thread.
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

struct HttpOptions {
  std::chrono::milliseconds header_timeout{5000};   // from the accept to the header's end
  std::chrono::milliseconds request_timeout{10000};  // from the accept to the response written
  size_t max_connections = 64;                        // open at once
  uint32_t header_limit = 8 * 1024;                   // bytes of request line and headers
};

// What the handler sees of a request, and what it answers.
struct HttpRequestView {
  std::string target;  // path and query
  std::string if_none_match, cookie, authorization;
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
