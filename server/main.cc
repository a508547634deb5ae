// chunkforge-server: the world server on its built-in default world, or on --world FILE.
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <csignal>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <limits>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "log/json_lines.h"
#include "startup/config_file.h"
#include "startup/flag_files.h"
#include "startup/memory_limit.h"
#include "startup/start_up_summary.h"
#include "startup/store_flags.h"
#include "startup/tls_files.h"
#include "world_server.h"

namespace {

using chunkforge::server::ServerOptions;

// What the command line and the CHUNKFORGE_* variables ask for; a flag wins over its variable.
// Values are checked as they are parsed, except the addresses and files (checked after).
struct Flags {
  ServerOptions server;  // listen, http, cache_mb, threads and limits; the TLS files and token below
  std::optional<std::string> world, tls_cert, tls_key, auth_token_file;
  std::optional<uint64_t> seed;
  std::optional<size_t> output_budget_mb;  // default: from the memory the process may use
  std::string log_level = "info";
  std::string log_format = "text";
  chunkforge::server::StoreFlags store;  // --data, --store, --write-token-file ...
  std::optional<std::string> config;     // --config FILE
  bool print_config = false;
};

// The options that are not configuration: a configuration file cannot hold them.
const std::vector<std::string> kNotConfiguration = {"help", "config", "print-config"};

// A whole decimal number in [lo, hi], leaving CLI11 the canonical spelling to convert: CLI11
// alone reads "0x10" as hex and "010" as octal, and wraps "-1" to 2^64 - 1.
CLI::Validator integer_in(uint64_t lo, uint64_t hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        uint64_t value = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec != std::errc() || end != text.data() + text.size() || value < lo || value > hi) {
          return "must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "] (got \"" + text +
                 "\")";
        }
        text = std::to_string(value);
        return "";
      },
      "", "integer");
}

CLI::Validator log_level_name() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (spdlog::level::from_str(text) != spdlog::level::off || text == "off") return "";
        return "must be trace, debug, info, warn, error or off (got \"" + text + "\")";
      },
      "", "log level");
}

// --cache-mb reads CHUNKFORGE_CACHE_MB: every option but --help, by this one rule, so that no
// flag lacks its variable.
void give_every_option_its_variable(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    if (option->get_lnames().empty() || option->get_lnames().front() == "help") continue;
    std::string variable = "CHUNKFORGE_" + option->get_lnames().front();
    for (char& c : variable) c = c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    option->envname(variable);
  }
}

template <typename T>
CLI::Option* add_value(CLI::App& app, const std::string& name, T& value, const std::string& type,
                       const std::string& description) {
  return app.add_option(name, value, description)->type_name(type);
}

CLI::Option* add_optional(CLI::App& app, const std::string& name, std::optional<std::string>& value,
                          const std::string& type, const std::string& description) {
  return app
      .add_option_function<std::string>(
          name, [&value](const std::string& text) { value = text; }, description)
      ->type_name(type);
}

// A feature turned on or off: the value "on" or "off".
CLI::Option* add_switch(CLI::App& app, const std::string& name, bool& value, const std::string& description) {
  return app
      .add_option_function<std::string>(
          name, [&value](const std::string& v) { value = v == "on"; }, description)
      ->type_name("on|off")
      ->default_function([&value] { return std::string(value ? "on" : "off"); })
      ->check(CLI::IsMember({"on", "off"}));
}

// The output budget (server/budget/output_budget.h): what the server holds for clients that
// have not read it yet.
void declare_output_flags(CLI::App& app, Flags& f) {
  app.add_option_function<size_t>(
         "--output-budget-mb", [&f](const size_t& mb) { f.output_budget_mb = mb; },
         "MiB of answers and events held for clients that have not\nread them yet, every connection together, 1 to "
         "65536\n(default: a sixteenth of the memory the process may use,\n64 to 1024); past it calls wait or are "
         "refused")
      ->type_name("N")
      ->transform(integer_in(1, 65536));
  app.add_option_function<size_t>(
         "--connection-output-mb", [&f](const size_t& mb) { f.server.output.connection_bytes = mb << 20; },
         "MiB of those one connection may hold, 1 to 65536 (default\n8): past it its unary calls get "
         "RESOURCE_EXHAUSTED and\nits streams wait until it reads")
      ->type_name("N")
      ->default_function([&f] { return std::to_string(f.server.output.connection_bytes >> 20); })
      ->transform(integer_in(1, 65536));
}

// The ports, and the live map on the HTTP one.
void declare_port_flags(CLI::App& app, Flags& f) {
  add_value(app, "--listen", f.server.listen, "ADDR", "host:port to listen on (default 0.0.0.0:50051)");
  add_value(app, "--http", f.server.http, "ADDR",
            "host:port for GET /healthz, /metrics and /map/ (default\n0.0.0.0:8080; \"\": none)");
  add_switch(app, "--map", f.server.map,
             "the live map at /map/ on the --http port: on or off\n(default on; behind --auth-token-file when set)");
  app.add_flag("--map-players", f.server.map_players,
               "show live sessions' positions on the map (a number and\na position each; default off)");
  add_value(app, "--map-cache-mb", f.server.map_cache_mb, "N", "the map's tile cache in MiB, 1 to 65536 (default 64)")
      ->transform(integer_in(1, 65536));
}

// The world, and what the server spends making it.
void declare_world_flags(CLI::App& app, Flags& f) {
  add_optional(app, "--world", f.world, "FILE", "world definition JSON (default: the built-in world)");
  app.add_option_function<uint64_t>(
         "--seed", [&f](const uint64_t& seed) { f.seed = seed; }, "override the world's seed")
      ->type_name("N")
      ->transform(integer_in(0, std::numeric_limits<uint64_t>::max()));
  add_value(app, "--cache-mb", f.server.cache_mb, "N", "encoded-chunk cache budget in MiB, 1 to 1048576 (default 256)")
      ->transform(integer_in(1, 1 << 20));
  add_value(app, "--threads", f.server.threads, "N", "generation threads, 1 to 256 (default: the number of cores)")
      ->transform(integer_in(1, 256));
  add_value(
      app, "--generation-nice", f.server.generation_nice, "N",
      "nice levels the generation threads run below those that\nanswer calls, 0 to 19 (default 10): warm reads and "
      "/healthz\nstay prompt while every generation thread is busy")
      ->transform(integer_in(0, 19));
  add_value(app, "--log-level", f.log_level, "L", "trace, debug, info, warn, error or off (default info)")
      ->check(log_level_name());
  add_value(app, "--log-format", f.log_format, "text|json",
            "log lines as text, or as one JSON object each (time, level,\nmessage) for log pipelines (default text)")
      ->check(CLI::IsMember({"text", "json"}));
}

// What clients may ask for and are given.
void declare_client_flags(CLI::App& app, Flags& f) {
  add_value(app, "--max-radius", f.server.limits.max_radius, "N",
            "largest StreamRegion radius and Session view radius,\nchunks, 0 to 64 (default 16)")
      ->transform(integer_in(0, 64));
  add_value(app, "--max-lod-radius", f.server.limits.max_lod_radius, "N",
            "largest Session LOD radius, chunks, 0 to 65536 (default\n1024; 0: no LOD tiles) (docs/lod.md)")
      ->transform(integer_in(0, 65536));
  add_switch(app, "--publish-seed", f.server.publish_seed,
             "GetWorldInfo and the map tell clients the world's seed: on or\noff (default on). Off is not a "
             "secret: one object id reveals\nthe seed (docs/server.md, \"The seed\")");
  add_switch(app, "--client-generation", f.server.client_generation,
             "GetWorldInfo gives clients the world definition, to generate\nchunks themselves: on or off (default on; "
             "off with\n--publish-seed off) (docs/client-generation.md)");
  add_switch(app, "--look-ahead", f.server.limits.look_ahead,
             "sessions prefetch what a walking player's next step brings\ninto view: on or off (default on)");
  app.add_option_function<int>(
         "--load-gather-ms", [&f](const int& ms) { f.server.limits.load_gather = std::chrono::milliseconds(ms); },
         "how long a session's ready chunk may wait for the session's\nother chunks under way, to go in one "
         "event, 0 to 1000 (default\n40; 0: never)")
      ->type_name("MS")
      ->default_function([&f] { return std::to_string(f.server.limits.load_gather.count()); })
      ->transform(integer_in(0, 1000));
  add_value(app, "--max-sessions", f.server.limits.max_sessions, "N",
            "player sessions at once, 1 to 1000000 (default 1000)")
      ->transform(integer_in(1, 1000000));
  add_value(app, "--max-streams", f.server.limits.max_streams, "N",
            "StreamRegion calls at once, 1 to 1000000 (default 256)")
      ->transform(integer_in(1, 1000000));
}

// Who may connect: TLS and the bearer token.
void declare_access_flags(CLI::App& app, Flags& f) {
  CLI::Option* cert =
      add_optional(app, "--tls-cert", f.tls_cert, "FILE", "PEM certificate chain: serve TLS (with --tls-key)");
  CLI::Option* key = add_optional(app, "--tls-key", f.tls_key, "FILE", "PEM private key for --tls-cert");
  cert->needs(key);
  key->needs(cert);
  add_optional(
      app, "--auth-token-file", f.auth_token_file, "FILE",
      "require \"authorization: Bearer <token>\" with the token in FILE\n(health checking and reflection stay open)");
}

// Every flag, in the order --help lists them.
void declare_flags(CLI::App& app, Flags& f) {
  add_optional(app, "--config", f.config, "FILE",
               "a TOML file of settings, a key per flag named without its\ndashes (cache-mb = 512); a flag or its "
               "variable wins over\nthe file (docs/deploy.md, \"Configuration\")");
  app.add_flag("--print-config", f.print_config,
               "print the configuration these flags, variables and --config\ngive, as a file for --config, and exit");
  declare_port_flags(app, f);
  declare_world_flags(app, f);
  declare_client_flags(app, f);
  declare_access_flags(app, f);
  chunkforge::server::declare_store_flags(app, f.store, add_optional);
  declare_output_flags(app, f);
}

// CLI11 skips a variable that is set but empty; here it is the value "", as it always was:
// CHUNKFORGE_HTTP="" turns the side port off (docs/deploy.md), and an empty CHUNKFORGE_TLS_CERT
// or CHUNKFORGE_AUTH_TOKEN_FILE stops start-up instead of serving without TLS or token.
void apply_empty_variables(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    const std::string variable = option->get_envname();
    const char* value = variable.empty() ? nullptr : std::getenv(variable.c_str());
    const bool plain_flag = option->get_expected() == 0;  // --open-edits: empty is unset
    if (option->count() == 0 && value != nullptr && *value == '\0' && !plain_flag) {
      option->add_result(std::string());
      option->run_callback();  // checks "" and stores it, as parsing would have
    }
  }
}

// The line for a parse error. Words no flag takes are named first: CLI11 checks that --tls-cert
// and --tls-key come together before it looks for them.
std::string parse_error(const CLI::App& app, const CLI::ParseError& error) {
  const std::vector<std::string> unexpected = app.remaining();
  if (unexpected.empty()) return error.what();
  const std::string& word = unexpected.front();
  return (word.rfind('-', 0) == 0 ? "unknown option " : "unexpected argument ") + word;
}

// The configuration file under what the flags and variables set, then --print-config; nullopt to
// go on, else the exit code (every problem of the file printed: 2).
std::optional<int> apply_config(CLI::App& app, const Flags& flags) {
  if (flags.config) {
    const std::vector<std::string> problems =
        chunkforge::server::apply_config_file(app, *flags.config, kNotConfiguration);
    for (const std::string& problem : problems) std::cerr << problem << '\n';
    if (!problems.empty()) return 2;
  }
  if (flags.print_config) {
    std::cout << chunkforge::server::print_config(app, kNotConfiguration);
    return 0;
  }
  return std::nullopt;
}

// Flags, environment, then the configuration file into `flags`; nullopt to go on, else the exit code (--help: 0, a bad
// or unknown flag: 2, with one line naming it).
std::optional<int> parse_flags(int argc, char** argv, Flags& flags) {
  CLI::App app(
      "Serves chunkforge.v1.WorldService (gRPC, with health checking and reflection).\n"
      "Each flag may also come from the environment variable shown beside it, and from a\n"
      "--config file: a flag wins over its variable, which wins over the file (a variable set\n"
      "but empty means the value \"\").\n",
      "chunkforge-server");
  app.get_formatter()->label("Usage", "usage");
  app.get_formatter()->column_width(40);
  // Answered as soon as it is parsed, before any value is checked: a bad CHUNKFORGE_* variable
  // must not hide the help.
  app.set_help_flag();
  app.add_flag_callback(
         "-h,--help", [] { throw CLI::CallForHelp(); }, "print this help and exit")
      ->trigger_on_parse();
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // the last one wins, as before
  flags.server.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  declare_flags(app, flags);
  give_every_option_its_variable(app);
  try {
    app.parse(argc, argv);
    apply_empty_variables(app);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return 0;
  } catch (const CLI::ParseError& e) {
    std::cerr << parse_error(app, e) << '\n';
    return 2;
  }
  return apply_config(app, flags);
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

// A whole file, or nullopt after printing why, naming the option.
std::optional<std::string> read_file(const std::string& option, const std::string& path) {
  std::string error;
  std::optional<std::string> bytes = chunkforge::server::read_flag_file("--" + option, path, error);
  if (!bytes) std::cerr << error << '\n';
  return bytes;
}

// The world: file or built-in, then the seed override; nullopt after printing why.
std::optional<chunkforge::World> load_world(const Flags& flags) {
  std::vector<chunkforge::FieldError> errors;
  std::optional<chunkforge::v1::WorldDefinition> definition =
      flags.world ? chunkforge::read_world_file(*flags.world, errors)
                  : chunkforge::parse_world_json(chunkforge::default_world_json(), errors);
  chunkforge::WorldResult world;
  if (definition) {
    if (flags.seed) definition->set_seed(*flags.seed);
    world = chunkforge::World::create(*definition);
  }
  for (const auto& e : errors) world.errors.push_back(e);
  if (!world.ok()) {
    for (const auto& e : world.errors) std::cerr << e.to_string() << '\n';
    std::cerr << "chunkforge-server: invalid world definition\n";
    return std::nullopt;
  }
  // Loudly, at every start: an unpinned world changes under players when the server upgrades.
  for (const auto& w : world.warnings) spdlog::warn("world definition: {}", w.to_string());
  return std::move(world.world);
}

// The TLS files into `options`, checked with OpenSSL; false after printing why.
bool read_tls_files(const Flags& flags, ServerOptions& options) {
  if (!flags.tls_cert) return true;  // --tls-cert and --tls-key come together (checked at parse)
  const auto cert_pem = read_file("tls-cert", *flags.tls_cert), key_pem = read_file("tls-key", *flags.tls_key);
  if (!cert_pem || !key_pem) return false;
  if (const auto error = chunkforge::server::tls_files_error(*flags.tls_cert, *cert_pem, *flags.tls_key, *key_pem)) {
    std::cerr << *error << '\n';
    return false;
  }
  options.tls_cert_pem = *cert_pem;
  options.tls_key_pem = *key_pem;
  return true;
}

bool read_token(const Flags& flags, ServerOptions& options) {
  if (!flags.auth_token_file) return true;
  const auto token = chunkforge::server::read_token_file("--auth-token-file", *flags.auth_token_file);
  if (token) options.auth_token = *token;
  return token.has_value();
}

// The server's options: the flags with their addresses and files checked; nullopt after
// printing why (a bad flag, exit 2).
std::optional<ServerOptions> server_options(const Flags& flags) {
  ServerOptions options = flags.server;
  const chunkforge::server::MemoryLimit memory = chunkforge::server::process_memory_limit();
  options.output.total_bytes = flags.output_budget_mb
                                   ? *flags.output_budget_mb << 20
                                   : chunkforge::server::OutputLimits::for_memory(memory.bytes).total_bytes;
  if (!flags.output_budget_mb) {
    spdlog::info("output budget {} MiB, from the {} MiB this process may use ({})", options.output.total_bytes >> 20,
                 memory.bytes >> 20, memory.source);
  }
  if (!valid_address("listen", options.listen)) return std::nullopt;
  if (const auto error = options.http.empty() ? std::nullopt : chunkforge::server::http_address_error(options.http)) {
    std::cerr << *error << '\n';
    return std::nullopt;
  }
  if (!read_tls_files(flags, options) || !read_token(flags, options)) return std::nullopt;
  return options;
}

// Shutdown's bounds (docs/server.md, "Shutdown"): running calls get kShutdownGrace to finish,
// then the rest is cancelled. Whatever still runs at kShutdownLimit (a part that failed to end
// its work: a bug) is cut off with the process, logged by name. Nothing acknowledged is lost
// either way: an edit is acknowledged only once its commit is durable.
constexpr std::chrono::milliseconds kShutdownGrace{3000}, kShutdownLimit{4500};

// The last resort of a shutdown that does not end: exits 0 at kShutdownLimit, saying so.
void start_shutdown_watchdog() {
  std::thread([] {
    std::this_thread::sleep_for(kShutdownLimit);
    spdlog::error("shutdown forced: still not done {} ms after the signal (a part did not end its work)",
                  kShutdownLimit.count());
    spdlog::shutdown();
    std::_Exit(0);
  }).detach();
}

// SIGTERM / SIGINT: stop accepting, give running calls kShutdownGrace (on a thread of its own,
// so that signals are still heard), cancel the rest, then return from io.run() and exit 0. A
// second one exits at once. SIGHUP is ignored: the server reads its files only at start, and a
// closed terminal must not take it down.
void handle_signal(int signal, chunkforge::server::WorldServer& server, boost::asio::io_context& io,
                   std::thread& stopper) {
  if (signal == SIGHUP) {
    spdlog::info("SIGHUP ignored: the server reads its world and files only at start; restart it to change them");
  } else if (!stopper.joinable()) {
    spdlog::info("signal {}: shutting down (a second signal exits at once)", signal);
    start_shutdown_watchdog();
    stopper = std::thread([&server, &io] {
      server.shutdown(kShutdownGrace);
      io.stop();
    });
  } else {
    spdlog::warn("signal {} during shutdown: exiting now", signal);
    spdlog::shutdown();
    std::_Exit(1);
  }
}

// Serves until SIGTERM or SIGINT; the exit code.
int serve(const chunkforge::World& world, const ServerOptions& options) {
  // Installed before serving, so a signal never finds the default handler.
  boost::asio::io_context io;
  boost::asio::signal_set signals(io, SIGINT, SIGTERM, SIGHUP);
  chunkforge::server::WorldServer server(world, options);
  std::thread stopper;
  std::function<void(const boost::system::error_code&, int)> on_signal = [&](const boost::system::error_code& ec,
                                                                             int signal) {
    if (ec) return;
    handle_signal(signal, server, io, stopper);
    signals.async_wait(on_signal);
  };
  signals.async_wait(on_signal);
  if (!server.start()) return 1;
  for (const auto& line : chunkforge::server::start_up_summary(world, options, server.port(), server.http_port())) {
    spdlog::log(line.warning ? spdlog::level::warn : spdlog::level::info, "{}", line.text);
  }
  io.run();
  if (stopper.joinable()) stopper.join();
  spdlog::info("chunkforge-server: stopped");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  if (const std::optional<int> exit_code = parse_flags(argc, argv, flags)) return *exit_code;
  spdlog::set_level(spdlog::level::from_str(flags.log_level));
  if (flags.log_format == "json") chunkforge::server::log_json_lines();
  const std::optional<chunkforge::World> world = load_world(flags);
  if (!world) return 2;
  std::optional<ServerOptions> options = server_options(flags);
  if (!options) return 2;
  if (const std::optional<int> failed = chunkforge::server::apply_store_flags(flags.store, *world, *options)) {
    return *failed;
  }
  return serve(*world, *options);
}
