// chunkforge-server: the world server on its built-in default world, or on --world FILE.
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <spdlog/spdlog.h>

#include <cctype>
#include <csignal>
#include <functional>
#include <charconv>
#include <fstream>
#include <cstdlib>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <thread>

#include "tls_files.h"
#include "world_server.h"

namespace {

using chunkforge::server::ServerOptions;

constexpr const char* kUsage =
    "usage: chunkforge-server [--listen ADDR] [--http ADDR] [--world FILE] [--seed N] [--cache-mb N]\n"
    "                         [--threads N] [--max-radius N] [--max-sessions N] [--log-level LEVEL]\n"
    "                         [--tls-cert FILE --tls-key FILE] [--auth-token-file FILE]\n"
    "\n"
    "Serves chunkforge.v1.WorldService (gRPC, with health checking and reflection).\n"
    "Each flag may also come from the environment: CHUNKFORGE_LISTEN, CHUNKFORGE_HTTP, CHUNKFORGE_WORLD,\n"
    "CHUNKFORGE_SEED, CHUNKFORGE_CACHE_MB, CHUNKFORGE_THREADS, CHUNKFORGE_MAX_RADIUS,\n"
    "CHUNKFORGE_LOG_LEVEL, CHUNKFORGE_TLS_CERT, CHUNKFORGE_TLS_KEY, CHUNKFORGE_AUTH_TOKEN_FILE,\n"
    "CHUNKFORGE_MAX_SESSIONS, CHUNKFORGE_MAX_STREAMS\n"
    "(a flag wins over its variable).\n"
    "\n"
    "  --listen ADDR     host:port to listen on (default 0.0.0.0:50051)\n"
    "  --http ADDR       host:port for GET /healthz and /metrics (default 0.0.0.0:8080; \"\": none)\n"
    "  --world FILE      world definition JSON (default: the built-in world)\n"
    "  --seed N          override the world's seed\n"
    "  --cache-mb N      encoded-chunk cache budget in MiB (default 256)\n"
    "  --threads N       generation threads (default: the number of cores)\n"
    "  --max-radius N    largest StreamRegion radius and Session view radius, chunks (default 16)\n"
    "  --max-sessions N  player sessions at once (default 1000)\n"
    "  --max-streams N   StreamRegion calls at once (default 256)\n"
    "  --log-level L     trace, debug, info, warn, error (default info)\n"
    "  --tls-cert FILE   PEM certificate chain: serve TLS (with --tls-key)\n"
    "  --tls-key FILE    PEM private key for --tls-cert\n"
    "  --auth-token-file FILE  require \"authorization: Bearer <token>\" with the token in FILE\n"
    "                    (health checking and reflection stay open)\n";

// Flags then environment; the value of each known option.
std::optional<std::map<std::string, std::string>> read_options(int argc, char** argv) {
  const char* names[] = {"listen",    "http",     "world",   "seed",           "cache-mb",    "threads",
                         "max-radius", "log-level", "tls-cert", "tls-key", "auth-token-file", "max-sessions",
                         "max-streams"};
  std::map<std::string, std::string> values;
  for (const char* name : names) {
    std::string variable = "CHUNKFORGE_" + std::string(name);
    for (char& c : variable) c = c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (const char* v = std::getenv(variable.c_str())) values[name] = v;
  }
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      std::exit(0);
    }
    bool known = false;
    for (const char* name : names) {
      if (arg == std::string("--") + name) {
        if (i + 1 >= argc) {
          std::cerr << arg << " needs a value\n";
          return std::nullopt;
        }
        values[name] = argv[++i];
        known = true;
      }
    }
    if (!known) {
      std::cerr << "unknown option " << arg << "\n\n" << kUsage;
      return std::nullopt;
    }
  }
  return values;
}

std::optional<uint64_t> number(const std::map<std::string, std::string>& values, const std::string& name,
                               uint64_t fallback, uint64_t lo, uint64_t hi) {
  auto it = values.find(name);
  if (it == values.end()) return fallback;
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(it->second.data(), it->second.data() + it->second.size(), v);
  if (ec != std::errc() || end != it->second.data() + it->second.size() || v < lo || v > hi) {
    std::cerr << "--" << name << ": must be an integer in [" << lo << ", " << hi << "] (got \"" << it->second
              << "\")\n";
    return std::nullopt;
  }
  return v;
}

// Whether the gRPC address is host:port with a port in [0, 65535] (the host, a name or an
// address, is resolved when listening); a malformed one is a bad flag (exit 2), not a failure to
// listen. (--http is checked by http_address_error: there the host must be an IP address.)
bool valid_address(const std::string& option, const std::string& address) {
  const size_t colon = address.rfind(':');
  unsigned port = 0;
  const char* first = address.data() + (colon == std::string::npos ? 0 : colon + 1);
  const char* last = address.data() + address.size();
  const auto [end, ec] = std::from_chars(first, last, port);
  if (colon == std::string::npos || colon == 0 || first == last || ec != std::errc() || end != last || port > 65535) {
    std::cerr << "--" << option << ": expected host:port with a port in [0, 65535] (got \"" << address << "\")\n";
    return false;
  }
  return true;
}

// A whole file, or nullopt with a message naming the option.
std::optional<std::string> read_file(const std::string& option, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::cerr << "--" << option << ": cannot read \"" << path << "\"\n";
    return std::nullopt;
  }
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// SIGTERM / SIGINT: stop accepting, give running calls a few seconds (on a thread of its own, so
// that signals are still heard), then return from io.run() and exit 0. A second one exits at
// once. SIGHUP is ignored: the server reads its files only at start, and a closed terminal must
// not take it down.
void handle_signal(int signal, chunkforge::server::WorldServer& server, boost::asio::io_context& io,
                   std::thread& stopper) {
  if (signal == SIGHUP) {
    spdlog::info("SIGHUP ignored: the server reads its world and files only at start; restart it to change them");
  } else if (!stopper.joinable()) {
    spdlog::info("signal {}: shutting down (a second signal exits at once)", signal);
    stopper = std::thread([&server, &io] {
      server.shutdown(std::chrono::seconds(3));
      io.stop();
    });
  } else {
    spdlog::warn("signal {} during shutdown: exiting now", signal);
    spdlog::shutdown();
    std::_Exit(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const auto values = read_options(argc, argv);
  if (!values) return 2;
  if (auto it = values->find("log-level"); it != values->end()) {
    const auto level = spdlog::level::from_str(it->second);
    if (level == spdlog::level::off && it->second != "off") {
      std::cerr << "--log-level: must be trace, debug, info, warn, error or off (got \"" << it->second << "\")\n";
      return 2;
    }
    spdlog::set_level(level);
  }

  // The world: file or built-in, then the seed override; invalid input stops start-up (exit 2).
  std::vector<chunkforge::FieldError> errors;
  std::optional<chunkforge::v1::WorldDefinition> definition;
  const auto world_file = values->find("world");
  definition = world_file == values->end() ? chunkforge::parse_world_json(chunkforge::default_world_json(), errors)
                                           : chunkforge::read_world_file(world_file->second, errors);
  const auto seed = number(*values, "seed", definition ? definition->seed() : 0, 0, UINT64_MAX);
  if (definition && seed) definition->set_seed(*seed);
  chunkforge::WorldResult world;
  if (definition && seed) world = chunkforge::World::create(*definition);
  for (const auto& e : errors) world.errors.push_back(e);
  if (!world.ok()) {
    for (const auto& e : world.errors) std::cerr << e.to_string() << '\n';
    std::cerr << "chunkforge-server: invalid world definition\n";
    return 2;
  }

  ServerOptions options;
  if (auto it = values->find("listen"); it != values->end()) options.listen = it->second;
  if (auto it = values->find("http"); it != values->end()) options.http = it->second;
  if (!valid_address("listen", options.listen)) return 2;
  if (const auto error = options.http.empty() ? std::nullopt : chunkforge::server::http_address_error(options.http)) {
    std::cerr << *error << '\n';
    return 2;
  }
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const auto cache_mb = number(*values, "cache-mb", options.cache_mb, 1, 1 << 20);
  const auto threads = number(*values, "threads", cores, 1, 256);
  const auto max_radius = number(*values, "max-radius", options.limits.max_radius, 0, 64);
  const auto max_sessions = number(*values, "max-sessions", options.limits.max_sessions, 1, 1000000);
  const auto max_streams = number(*values, "max-streams", options.limits.max_streams, 1, 1000000);
  if (!cache_mb || !threads || !max_radius || !max_sessions || !max_streams) return 2;
  options.limits.max_sessions = static_cast<uint32_t>(*max_sessions);
  options.limits.max_streams = static_cast<uint32_t>(*max_streams);
  options.cache_mb = *cache_mb;
  options.threads = static_cast<int>(*threads);
  options.limits.max_radius = static_cast<uint32_t>(*max_radius);
  const auto cert = values->find("tls-cert"), key = values->find("tls-key");
  if ((cert == values->end()) != (key == values->end())) {
    std::cerr << "--tls-cert and --tls-key go together\n";
    return 2;
  }
  if (cert != values->end()) {
    const auto cert_pem = read_file("tls-cert", cert->second), key_pem = read_file("tls-key", key->second);
    if (!cert_pem || !key_pem) return 2;
    if (const auto error = chunkforge::server::tls_files_error(cert->second, *cert_pem, key->second, *key_pem)) {
      std::cerr << *error << '\n';
      return 2;
    }
    options.tls_cert_pem = *cert_pem;
    options.tls_key_pem = *key_pem;
  }
  if (auto it = values->find("auth-token-file"); it != values->end()) {
    auto token = read_file("auth-token-file", it->second);
    if (!token) return 2;
    while (!token->empty() && std::isspace(static_cast<unsigned char>(token->back()))) token->pop_back();
    if (token->empty()) {
      std::cerr << "--auth-token-file: the file holds no token\n";
      return 2;
    }
    options.auth_token = *token;
  }

  // Installed before serving, so a signal never finds the default handler.
  boost::asio::io_context io;
  boost::asio::signal_set signals(io, SIGINT, SIGTERM, SIGHUP);
  chunkforge::server::WorldServer server(*world.world, options);
  std::thread stopper;
  std::function<void(const boost::system::error_code&, int)> on_signal =
      [&](const boost::system::error_code& ec, int signal) {
        if (ec) return;
        handle_signal(signal, server, io, stopper);
        signals.async_wait(on_signal);
      };
  signals.async_wait(on_signal);
  if (!server.start()) return 1;
  spdlog::info("chunkforge-server: world \"{}\" (seed {}, generator {}, fingerprint {}) on port {} (http {}), "
               "{} threads, cache {} MiB{}{}",
               world.world->definition().name(), world.world->seed(), world.world->generator_version(),
               world.world->fingerprint(), server.port(), server.http_port(), options.threads, options.cache_mb,
               options.tls_cert_pem.empty() ? "" : ", TLS", options.auth_token.empty() ? "" : ", token required");

  io.run();
  if (stopper.joinable()) stopper.join();
  spdlog::info("chunkforge-server: stopped");
  return 0;
}
