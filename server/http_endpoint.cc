#include "http_endpoint.h"

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <spdlog/spdlog.h>

namespace chunkforge::server {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;

struct HttpEndpoint::Impl {
  asio::io_context io;
  tcp::acceptor acceptor{io};
};

HttpEndpoint::HttpEndpoint(std::string address, std::function<std::string()> metrics)
    : address_(std::move(address)), metrics_(std::move(metrics)), impl_(std::make_unique<Impl>()) {}

HttpEndpoint::~HttpEndpoint() { stop(); }

namespace {

// One request, one response, then the connection closes.
void serve(tcp::socket& socket, const std::function<std::string()>& metrics) {
  boost::beast::flat_buffer buffer;
  http::request<http::string_body> request;
  boost::beast::error_code ec;
  http::read(socket, buffer, request, ec);
  if (ec) return;
  http::response<http::string_body> response;
  response.version(request.version());
  response.keep_alive(false);
  if (request.method() != http::verb::get) {
    response.result(http::status::method_not_allowed);
    response.body() = "only GET\n";
  } else if (request.target() == "/healthz") {
    response.result(http::status::ok);
    response.body() = "ok\n";
  } else if (request.target() == "/metrics") {
    response.result(http::status::ok);
    response.set(http::field::content_type, "text/plain; version=0.0.4");
    response.body() = metrics();
  } else {
    response.result(http::status::not_found);
    response.body() = "not found: try /healthz or /metrics\n";
  }
  response.prepare_payload();
  http::write(socket, response, ec);
  socket.shutdown(tcp::socket::shutdown_both, ec);
}

}  // namespace

bool HttpEndpoint::start() {
  const size_t colon = address_.rfind(':');
  boost::system::error_code ec;
  const auto host = asio::ip::make_address(address_.substr(0, colon), ec);
  if (colon == std::string::npos || ec) {
    spdlog::error("--http: expected host:port (got \"{}\")", address_);
    return false;
  }
  const tcp::endpoint endpoint(host, static_cast<unsigned short>(std::stoi(address_.substr(colon + 1))));
  impl_->acceptor.open(endpoint.protocol(), ec);
  if (!ec) impl_->acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) impl_->acceptor.bind(endpoint, ec);
  if (!ec) impl_->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    spdlog::error("cannot listen for HTTP on {}: {}", address_, ec.message());
    return false;
  }
  port_ = impl_->acceptor.local_endpoint().port();
  accept();
  thread_ = std::thread([this] { impl_->io.run(); });
  return true;
}

void HttpEndpoint::accept() {
  impl_->acceptor.async_accept([this](boost::system::error_code ec, tcp::socket socket) {
    if (ec) return;  // stopped
    serve(socket, metrics_);
    accept();
  });
}

void HttpEndpoint::stop() {
  if (!thread_.joinable()) return;
  impl_->io.stop();  // thread-safe: run() returns and the thread ends
  thread_.join();
}

}  // namespace chunkforge::server
