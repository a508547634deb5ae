// File: server/http_endpoint.h
//
// The HTTP side port (Boost.Beast): GET /healthz answers "ok" while the server serves, GET
// /metrics the Prometheus text page. For load balancers and monitoring, not for clients.
//
//   HttpEndpoint http("0.0.0.0:8080", [&] { return metrics_page(); });
//   if (!http.start()) ...;   // http.port() is the bound port
//
// One thread of its own; requests are answered one at a time (they are tiny). stop() (or the
// destructor) closes it.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <thread>

namespace chunkforge::server {

class HttpEndpoint {
 public:
  HttpEndpoint(std::string address, std::function<std::string()> metrics);
  ~HttpEndpoint();

  // Binds host:port (port 0: any free one); false with the reason logged if it cannot.
  bool start();
  int port() const { return port_; }
  void stop();

 private:
  struct Impl;
  void accept();
  std::string address_;
  std::function<std::string()> metrics_;
  std::unique_ptr<Impl> impl_;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace chunkforge::server
