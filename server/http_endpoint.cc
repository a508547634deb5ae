#include "http_endpoint.h"

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <charconv>
#include <sstream>

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

// One request, one response, then the connection closes. Reads and writes go straight to the
// socket with a two-second timeout (Asio's synchronous reads would wait forever on a client
// that connects and sends nothing); Beast parses the request and formats the response.
void serve(tcp::socket& socket, const std::function<std::string()>& metrics) {
  const int fd = socket.native_handle();
  const timeval timeout{2, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
  http::request_parser<http::empty_body> parser;
  std::string pending;
  char chunk[4096];
  while (!parser.is_header_done()) {
    const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
    if (n <= 0 || pending.size() > 65536) return;  // closed, timed out, or not HTTP
    pending.append(chunk, static_cast<size_t>(n));
    boost::beast::error_code ec;
    pending.erase(0, parser.put(asio::buffer(pending), ec));
    if (ec && ec != http::error::need_more) return;
  }
  const auto& request = parser.get();
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
  std::ostringstream out;
  out << response;
  const std::string bytes = out.str();
  for (size_t sent = 0; sent < bytes.size();) {
    const ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return;
    sent += static_cast<size_t>(n);
  }
  boost::system::error_code ignored;
  socket.shutdown(tcp::socket::shutdown_both, ignored);
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
  const std::string port_text = address_.substr(colon + 1);
  unsigned port = 0;
  auto [end, port_error] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_error != std::errc() || end != port_text.data() + port_text.size() || port > 65535) {
    spdlog::error("--http: the port must be a number in [0, 65535] (got \"{}\")", port_text);
    return false;
  }
  const tcp::endpoint endpoint(host, static_cast<unsigned short>(port));
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
