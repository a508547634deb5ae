// HttpEndpoint: an asynchronous Beast server for /healthz, /metrics and a handler's routes
// (the live map) whose every wait is bounded by a deadline, whose connections are capped per
// address and in all with a reserve for the health check, and which stops within a bound.
#include "http/http_endpoint.h"

#include "budget/output_budget.h"
#include "http/http_counts.h"

#include <spdlog/spdlog.h>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <map>
#include <mutex>
#include <variant>

#include "log/client_log.h"

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

// How long an answer may take to write once stop() has begun (then the connection closes).
constexpr std::chrono::milliseconds kStopWrite{500};

class Connection;

// How a reply given on another thread reaches the io thread. Shared with every reply function,
// which may outlive the endpoint: `io` is cleared (under the mutex) before the io_context goes.
struct Gate {
  std::mutex mutex;
  asio::io_context* io = nullptr;
};

// What the connections share; touched only on the io thread once it runs.
struct Server {
  Server() { gate->io = &io; }
  ~Server() { close_gate(); }

  HttpOptions options;
  std::function<std::string()> metrics;
  HttpHandler handler;  // may be empty
  // Open connections in accept order (the oldest first), and how many each address holds.
  // Declared before io: a connection destroyed with the io_context unregisters itself here.
  std::map<uint64_t, Connection*> connections;
  std::map<asio::ip::address, size_t> per_address;
  uint64_t next_sequence = 0;
  size_t owed = 0;  // replies handlers still owe
  bool stopping = false, torn_down = false;
  std::shared_ptr<Gate> gate = std::make_shared<Gate>();
  asio::io_context io;
  tcp::acceptor acceptor{io};
  asio::steady_timer accept_retry{io}, stop_grace{io};

  void accept();
  void admit(tcp::socket socket);
  bool evict_one_idle();
  void close_all();
  void answer_owed();
  void settle();  // a reply is no longer owed
  void close_gate() {
    std::lock_guard lock(gate->mutex);
    gate->io = nullptr;
    torn_down = true;
  }
};

// One connection: read the header (by its deadline), answer, linger briefly, close.
class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(Server& server, tcp::socket socket, asio::ip::address from)
      : server_(server),
        stream_(std::move(socket)),
        from_(std::move(from)),
        buffer_(2 * server.options.header_limit),
        deadline_(Clock::now() + server.options.request_timeout),
        sequence_(server.next_sequence++) {
    server_.connections.emplace(sequence_, this);
    ++server_.per_address[from_];
  }
  ~Connection() { unregister(); }

  void start() {
    parser_.header_limit(server_.options.header_limit);
    stream_.expires_at(std::min(deadline_, Clock::now() + server_.options.header_timeout));
    http::async_read_header(stream_, buffer_, parser_,
                            [self = shared_from_this()](beast::error_code ec, size_t) { self->on_header(ec); });
  }
  // Waiting for its header, or lingering after its answer: nothing owed to anyone.
  bool idle() const { return phase_ == Phase::kHeader || phase_ == Phase::kLingering; }
  bool owed() const { return phase_ == Phase::kOwed; }
  void close() {
    cancelled_->store(true);
    stream_.close();
  }
  // Closed to make room: it no longer counts as open.
  void evict() {
    close();
    unregister();
  }
  void cancel_work() { cancelled_->store(true); }
  // The handler's reply (or stop()'s 503), on the io thread; ignored once answered.
  void answer(HttpReply reply);

 private:
  enum class Phase { kHeader, kOwed, kAnswering, kLingering };

  void unregister() {
    if (!registered_) return;
    registered_ = false;
    server_.connections.erase(sequence_);
    const auto found = server_.per_address.find(from_);
    if (found != server_.per_address.end() && --found->second == 0) server_.per_address.erase(found);
    if (phase_ == Phase::kOwed) server_.settle();
  }

  void on_header(beast::error_code ec) {
    phase_ = Phase::kAnswering;
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
    route_class_ = HttpCounts::route_class_of({request.target().data(), request.target().size()});
    if (request.method() != http::verb::get) {
      response_.set(http::field::allow, "GET");
      return respond(http::status::method_not_allowed, "only GET\n");
    }
    if (request.target() == "/healthz") return respond(http::status::ok, "ok\n");
    if (request.target() == "/metrics") return serve_metrics();
    if (server_.connections.size() > server_.options.max_connections) {  // the rest is the health reserve
      response_.set(http::field::retry_after, "1");
      return respond(http::status::service_unavailable,
                     "busy: more than " + std::to_string(server_.options.max_connections) + " connections open\n");
    }
    if (server_.handler && hand_over(request)) return;
    respond(http::status::not_found, "not found: try /healthz or /metrics\n");
  }

  void serve_metrics() {
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
      if (ec == asio::error::operation_aborted && self->phase_ == Phase::kAnswering) {
        if (self->written_) self->after_write();  // the write finished first
        return;
      }
      if (ec) return self->cancelled_->store(true);
      self->watch_client();
    });
  }

  void respond(http::status status, std::string body) {
    if (!charge(body.size())) {
      response_.set(http::field::retry_after, "1");
      status = http::status::service_unavailable;
      body = "busy: answers to this connection are waiting to be read\n";
    }
    if (server_.options.counts != nullptr) server_.options.counts->count(route_class_, static_cast<unsigned>(status));
    response_.result(status);
    response_.version(11);
    response_.keep_alive(false);
    response_.body() = std::move(body);
    response_.prepare_payload();
    stream_.expires_at(server_.stopping ? std::min(deadline_, Clock::now() + kStopWrite) : deadline_);
    http::async_write(stream_, response_,
                      [self = shared_from_this()](beast::error_code ec, size_t) { self->on_written(ec); });
  }

  // Charges a response of `bytes` to this connection until it is written; false without room.
  bool charge(size_t bytes) {
    OutputBudget* budget = server_.options.budget;
    if (budget == nullptr) return true;
    const std::string connection = "http " + from_.to_string() + " #" + std::to_string(sequence_);
    charge_ = budget->charge(connection, bytes, nullptr);  // request_timeout bounds the write
    if (!charge_) budget->refuse(connection);
    return charge_.has_value();
  }

  void on_written(beast::error_code ec) {
    written_ = true;
    charge_.reset();
    if (ec) return;
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    if (watching_) return;  // its cancelled read finishes the connection once it completes
    after_write();
  }

  // Linger for the client to close first (unless stopping: then close now).
  void after_write() {
    if (server_.stopping) return stream_.close();
    phase_ = Phase::kLingering;
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
  const asio::ip::address from_;
  beast::flat_buffer buffer_;
  http::request_parser<http::empty_body> parser_;
  http::response<http::string_body> response_;
  const Clock::time_point deadline_;  // the accept plus request_timeout
  const uint64_t sequence_;
  std::array<char, 1024> discard_;
  std::shared_ptr<std::atomic<bool>> cancelled_ = std::make_shared<std::atomic<bool>>(false);
  std::optional<OutputBudget::Charge> charge_;  // of the response being written
  Phase phase_ = Phase::kHeader;
  HttpCounts::RouteClass route_class_ = HttpCounts::kOther;  // kOther until the header is read
  bool registered_ = true, watching_ = false, written_ = false;
};

// A reply the handler owes, to a connection it does not keep alive: a client that left is
// not answered, and the reply may come after the endpoint is gone. Destroyed unanswered: 503.
class PendingReply {
 public:
  PendingReply(std::weak_ptr<Connection> connection, std::shared_ptr<Gate> gate)
      : connection_(std::move(connection)), gate_(std::move(gate)) {}
  ~PendingReply() { complete({503, "text/plain", "not answered\n", {}}); }
  void complete(HttpReply reply) {
    if (done_.exchange(true)) return;
    std::lock_guard lock(gate_->mutex);
    if (gate_->io == nullptr) return;
    // The connection is locked on the io thread only: its destructor touches the server.
    asio::post(*gate_->io, [connection = connection_, reply = std::move(reply)]() mutable {
      if (auto alive = connection.lock()) alive->answer(std::move(reply));
    });
  }
  // The handler declined the request: nothing is owed.
  void dismiss() { done_ = true; }

 private:
  std::weak_ptr<Connection> connection_;
  std::shared_ptr<Gate> gate_;
  std::atomic<bool> done_{false};
};

bool Connection::hand_over(const http::request<http::empty_body>& request) {
  HttpRequestView view{std::string(request.target()),
                       std::string(request[http::field::if_none_match]),
                       std::string(request[http::field::cookie]),
                       std::string(request[http::field::authorization]),
                       std::string(request["X-Chunkforge-Moderator"]),
                       from_.to_string()};
  auto pending = std::make_shared<PendingReply>(weak_from_this(), server_.gate);
  phase_ = Phase::kOwed;
  ++server_.owed;
  bool handled = false;
  try {
    handled = server_.handler(
        view, [pending](HttpReply reply) { pending->complete(std::move(reply)); }, cancelled_);
  } catch (const std::exception& e) {  // never let it end the endpoint's thread
    pending->complete({500, "text/plain", std::string("failed: ") + e.what() + "\n", {}});
    handled = true;
  }
  if (!handled) {
    pending->dismiss();
    phase_ = Phase::kAnswering;
    server_.settle();
    return false;
  }
  stream_.expires_at(deadline_);
  watch_client();
  return true;
}

void Connection::answer(HttpReply reply) {
  if (phase_ != Phase::kOwed) return;  // stop() answered it already
  phase_ = Phase::kAnswering;
  server_.settle();
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
      log_client(LogKind::kHttpAcceptFailed, spdlog::level::warn, "HTTP side port: accept failed: {}", ec.message());
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

// Closing a refused socket at once costs the endpoint microseconds, however often it comes.
void Server::admit(tcp::socket socket) {
  beast::error_code ec;
  const tcp::endpoint remote = socket.remote_endpoint(ec);
  if (ec) return;  // already gone
  const auto held = per_address.find(remote.address());
  if (held != per_address.end() && held->second >= options.max_per_address) {
    log_client(LogKind::kHttpConnectionRefused, spdlog::level::debug,
               "HTTP side port: {} holds {} connections, closing a new one", remote.address().to_string(),
               held->second);
    return;
  }
  if (connections.size() >= options.max_connections + options.health_reserve && !evict_one_idle()) {
    log_client(LogKind::kHttpConnectionRefused, spdlog::level::debug,
               "HTTP side port: {} connections open, none idle, closing a new one", connections.size());
    return;
  }
  std::make_shared<Connection>(*this, std::move(socket), remote.address())->start();
}

// Closes the oldest connection still waiting for its header or lingering after its answer;
// false if there is none.
bool Server::evict_one_idle() {
  for (const auto& [sequence, connection] : connections) {
    if (connection->idle()) {
      connection->evict();
      return true;
    }
  }
  return false;
}

// Every pending operation then completes with an error, and no handler starts another, but
// for the replies still owed: their work is cancelled, and they get options.stop_grace.
void Server::close_all() {
  stopping = true;
  beast::error_code ignored;
  acceptor.close(ignored);
  accept_retry.cancel();
  for (const auto& [sequence, connection] : connections) {
    if (connection->owed()) {
      connection->cancel_work();
    } else {
      connection->close();
    }
  }
  if (owed == 0) return;
  stop_grace.expires_after(options.stop_grace);
  stop_grace.async_wait([this](beast::error_code ec) {
    if (!ec) answer_owed();
  });
}

void Server::answer_owed() {
  std::vector<Connection*> waiting;
  for (const auto& [sequence, connection] : connections) {
    if (connection->owed()) waiting.push_back(connection);
  }
  for (Connection* connection : waiting) {
    connection->answer({503, "text/plain", "the server is stopping\n", {{"Retry-After", "1"}}});
  }
}

void Server::settle() {
  --owed;
  if (stopping && owed == 0 && !torn_down) stop_grace.cancel();
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
  thread_.join();       // run() returns once the closed connections' handlers have run
  impl_->close_gate();  // replies given from now on go nowhere
}

}  // namespace chunkforge::server
