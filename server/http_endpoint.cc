// HttpEndpoint: an asynchronous Beast server for /healthz, /metrics and a handler's routes
// (the live map) whose every wait is bounded by a deadline, whose connections are capped, and
// which stops without waiting for its clients.
#include "http_endpoint.h"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <set>
#include <variant>

namespace chunkforge::server {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

// After the response, the connection lingers this long at most for the client to close first,
// so that bytes it sent and we never read (an oversized header) do not turn our close into a
// reset that could destroy the response before the client reads it.
constexpr std::chrono::milliseconds kLinger{1000};

// host:port as an endpoint, or why it is not one.
std::variant<tcp::endpoint, std::string> parse_address(const std::string& address) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos || colon == 0) return "--http: expected host:port (got \"" + address + "\")";
  std::string host = address.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  boost::system::error_code ec;
  const asio::ip::address ip = asio::ip::make_address(host, ec);
  if (ec) return "--http: the host must be an IP address (got \"" + host + "\")";
  const std::string port_text = address.substr(colon + 1);
  unsigned port = 0;
  const char* last = port_text.data() + port_text.size();
  const auto [end, error] = std::from_chars(port_text.data(), last, port);
  if (port_text.empty() || error != std::errc() || end != last || port > 65535) {
    return "--http: the port must be a number in [0, 65535] (got \"" + port_text + "\")";
  }
  return tcp::endpoint(ip, static_cast<unsigned short>(port));
}

class Connection;

// What the connections share; touched only on the io thread once it runs.
struct Server {
  HttpOptions options;
  std::function<std::string()> metrics;
  HttpHandler handler;  // may be empty
  // Open connections, for stop(). Declared before io: connections still referenced by
  // handlers are destroyed with the io_context, and unregister themselves here.
  std::set<Connection*> connections;
  asio::io_context io;
  tcp::acceptor acceptor{io};
  asio::steady_timer accept_retry{io};
  bool stopping = false;

  void accept();
  void admit(tcp::socket socket);
  void close_all();
};

// One connection: read the header (by its deadline), answer, linger briefly, close.
class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(Server& server, tcp::socket socket)
      : server_(server), stream_(std::move(socket)), buffer_(2 * server.options.header_limit),
        deadline_(Clock::now() + server.options.request_timeout) {
    server_.connections.insert(this);
  }
  ~Connection() { server_.connections.erase(this); }

  void start() {
    parser_.header_limit(server_.options.header_limit);
    stream_.expires_at(std::min(deadline_, Clock::now() + server_.options.header_timeout));
    http::async_read_header(stream_, buffer_, parser_,
                            [self = shared_from_this()](beast::error_code ec, size_t) { self->on_header(ec); });
  }
  void close() {
    cancelled_->store(true);
    stream_.close();
  }
  // The handler's reply, on the io thread.
  void answer(HttpReply reply);

 private:
  void on_header(beast::error_code ec) {
    if (ec == http::error::header_limit || ec == http::error::buffer_overflow) {
      return respond(http::status::request_header_fields_too_large, "request header too large\n");
    }
    // Timed out, closed, reset or stopped: nobody to answer.
    if (ec == http::error::end_of_stream || ec == http::error::partial_message ||
        (ec && ec.category() != http::make_error_code(http::error::bad_target).category())) {
      return;
    }
    if (ec) return respond(http::status::bad_request, "bad request\n");
    route(parser_.get());
  }

  void route(const http::request<http::empty_body>& request) {
    if (request.method() != http::verb::get) {
      response_.set(http::field::allow, "GET");
      return respond(http::status::method_not_allowed, "only GET\n");
    }
    if (request.target() == "/healthz") return respond(http::status::ok, "ok\n");
    if (request.target() != "/metrics") {
      if (server_.handler && hand_over(request)) return;
      return respond(http::status::not_found, "not found: try /healthz or /metrics\n");
    }
    std::string page;
    try {
      page = server_.metrics();
    } catch (const std::exception& e) {  // never let it end the endpoint's thread
      return respond(http::status::internal_server_error, std::string("metrics failed: ") + e.what() + "\n");
    }
    response_.set(http::field::content_type, "text/plain; version=0.0.4");
    respond(http::status::ok, std::move(page));
  }

  // Gives the request to the handler; false if it does not serve the target.
  bool hand_over(const http::request<http::empty_body>& request);

  // Reads and discards while the handler works: an error means the client went (or the
  // deadline passed), and raises `cancelled`. answer() cancels it before writing.
  void watch_client() {
    watching_ = true;
    stream_.async_read_some(asio::buffer(discard_), [self = shared_from_this()](beast::error_code ec, size_t) {
      self->watching_ = false;
      if (ec == asio::error::operation_aborted && self->answering_) {
        if (self->written_) {  // the write finished first; linger as usual
          self->stream_.expires_at(std::min(self->deadline_, Clock::now() + kLinger));
          self->linger();
        }
        return;
      }
      if (ec) return self->cancelled_->store(true);
      self->watch_client();
    });
  }

  void respond(http::status status, std::string body) {
    response_.result(status);
    response_.version(11);
    response_.keep_alive(false);
    response_.body() = std::move(body);
    response_.prepare_payload();
    stream_.expires_at(deadline_);
    http::async_write(stream_, response_,
                      [self = shared_from_this()](beast::error_code ec, size_t) { self->on_written(ec); });
  }

  void on_written(beast::error_code ec) {
    written_ = true;
    if (ec) return;
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    if (watching_) return;  // its cancelled read lingers once it completes
    stream_.expires_at(std::min(deadline_, Clock::now() + kLinger));
    linger();
  }

  // Reads and discards until the client closes (or the linger ends): then the close is clean.
  void linger() {
    stream_.async_read_some(asio::buffer(discard_), [self = shared_from_this()](beast::error_code ec, size_t) {
      if (!ec) self->linger();
    });
  }

  Server& server_;
  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  http::request_parser<http::empty_body> parser_;
  http::response<http::string_body> response_;
  const Clock::time_point deadline_;  // the accept plus request_timeout
  std::array<char, 1024> discard_;
  std::shared_ptr<std::atomic<bool>> cancelled_ = std::make_shared<std::atomic<bool>>(false);
  bool watching_ = false, answering_ = false, written_ = false;
};

// A reply the handler owes. It keeps the io_context running (stop() waits for it) and the
// connection alive; the reply is carried to the io thread. Destroyed unanswered: 503.
class PendingReply {
 public:
  PendingReply(std::shared_ptr<Connection> connection, asio::io_context& io)
      : connection_(std::move(connection)), work_(io.get_executor()) {}
  ~PendingReply() {
    if (connection_) complete({503, "text/plain", "not answered\n", {}});
  }
  void complete(HttpReply reply) {
    std::shared_ptr<Connection> connection = std::exchange(connection_, nullptr);
    if (!connection) return;
    // Moved, not copied: the connection must never be released on the caller's thread (its
    // destructor touches the io thread's connection set).
    asio::post(work_.get_executor(), [connection = std::move(connection), reply = std::move(reply)]() mutable {
      connection->answer(std::move(reply));
    });
    work_.reset();
  }
  // The handler declined the request: nothing is owed.
  void dismiss() {
    connection_.reset();
    work_.reset();
  }

 private:
  std::shared_ptr<Connection> connection_;
  asio::executor_work_guard<asio::io_context::executor_type> work_;
};

bool Connection::hand_over(const http::request<http::empty_body>& request) {
  HttpRequestView view{std::string(request.target()), std::string(request[http::field::if_none_match]),
                       std::string(request[http::field::cookie]), std::string(request[http::field::authorization])};
  auto pending = std::make_shared<PendingReply>(shared_from_this(), server_.io);
  bool handled = false;
  try {
    handled = server_.handler(view, [pending](HttpReply reply) { pending->complete(std::move(reply)); }, cancelled_);
  } catch (const std::exception& e) {  // never let it end the endpoint's thread
    pending->complete({500, "text/plain", std::string("failed: ") + e.what() + "\n", {}});
    handled = true;
  }
  if (!handled) {
    pending->dismiss();
    return false;
  }
  stream_.expires_at(deadline_);
  watch_client();
  return true;
}

void Connection::answer(HttpReply reply) {
  answering_ = true;
  if (watching_) {
    beast::error_code ignored;
    stream_.socket().cancel(ignored);
  }
  if (!reply.content_type.empty()) response_.set(http::field::content_type, reply.content_type);
  for (const auto& [name, value] : reply.headers) response_.set(name, value);
  respond(static_cast<http::status>(reply.status), std::move(reply.body));
}

void Server::accept() {
  acceptor.async_accept([this](beast::error_code ec, tcp::socket socket) {
    if (stopping) return;
    if (ec) {  // out of descriptors and the like: try again shortly rather than spin
      spdlog::warn("HTTP side port: accept failed: {}", ec.message());
      accept_retry.expires_after(std::chrono::milliseconds(100));
      accept_retry.async_wait([this](beast::error_code wait_error) {
        if (!wait_error && !stopping) accept();
      });
      return;
    }
    admit(std::move(socket));
    accept();
  });
}

void Server::admit(tcp::socket socket) {
  if (connections.size() >= options.max_connections) {
    spdlog::debug("HTTP side port: {} connections open, closing a new one", connections.size());
    beast::error_code ignored;
    socket.close(ignored);
    return;
  }
  std::make_shared<Connection>(*this, std::move(socket))->start();
}

// Every pending operation then completes with an error, and no handler starts another.
void Server::close_all() {
  stopping = true;
  beast::error_code ignored;
  acceptor.close(ignored);
  accept_retry.cancel();
  for (Connection* connection : connections) connection->close();
}

}  // namespace

std::optional<std::string> http_address_error(const std::string& address) {
  auto parsed = parse_address(address);
  if (auto* message = std::get_if<std::string>(&parsed)) return *message;
  return std::nullopt;
}

struct HttpEndpoint::Impl : Server {};

HttpEndpoint::HttpEndpoint(std::string address, std::function<std::string()> metrics, HttpOptions options,
                           HttpHandler handler)
    : address_(std::move(address)), impl_(std::make_unique<Impl>()) {
  impl_->options = options;
  impl_->metrics = std::move(metrics);
  impl_->handler = std::move(handler);
}

HttpEndpoint::~HttpEndpoint() { stop(); }

bool HttpEndpoint::start() {
  auto parsed = parse_address(address_);
  if (auto* message = std::get_if<std::string>(&parsed)) {
    spdlog::error("{}", *message);
    return false;
  }
  const tcp::endpoint endpoint = std::get<tcp::endpoint>(parsed);
  tcp::acceptor& acceptor = impl_->acceptor;
  beast::error_code ec;
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    spdlog::error("cannot listen for HTTP on {}: {}", address_, ec.message());
    return false;
  }
  port_ = acceptor.local_endpoint().port();
  impl_->accept();
  thread_ = std::thread([this] { impl_->io.run(); });
  return true;
}

void HttpEndpoint::stop() {
  std::lock_guard lock(stop_mutex_);
  if (!thread_.joinable()) return;
  asio::post(impl_->io, [this] { impl_->close_all(); });
  thread_.join();  // run() returns once the closed connections' handlers have run
}

}  // namespace chunkforge::server
