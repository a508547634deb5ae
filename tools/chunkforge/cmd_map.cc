// `chunkforge map`: the live map of a world file in the browser, re-read when the file changes.
// A designer edits the JSON and sees the world redrawn; a broken edit lists its field-path
// errors on the page while the last good world stays shown.
#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <iostream>
#include <thread>

#include "args.h"
#include "commands.h"
#include "http/http_endpoint.h"
#include "http/map_routes.h"
#include "map_service.h"
#include "world_options.h"

namespace chunkforge::tool {
namespace {

std::atomic<bool> stop_requested{false};

// What identifies a version of the file without reading it: its size and modification time.
struct FileStamp {
  int64_t size = -1, seconds = 0, nanoseconds = 0;
  bool operator==(const FileStamp&) const = default;
};

FileStamp stamp_of(const std::string& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) return {};
  return {info.st_size, info.st_mtim.tv_sec, info.st_mtim.tv_nsec};
}

class MapCommand final : public Command {
 public:
  CLI::App& declare(CLI::App& parent) override;
  int run() override;

 private:
  // Loads the world (file or built-in, then --seed) into the service; false if it has errors,
  // which the page then lists.
  bool reload(map::MapService& service);

  WorldOptions world_;
  std::string listen_ = "127.0.0.1:8090";
  int threads_ = 2;
};

CLI::App& MapCommand::declare(CLI::App& parent) {
  CLI::App& app = *parent.add_subcommand("map", "the live map of a world in the browser, redrawn as the file changes");
  set_help(app, "usage: chunkforge map [--world FILE] [--seed N] [--listen ADDR] [--threads N]\n",
           "Serves the live map (the page at http://ADDR/map/, its tiles and JSON endpoints, as\n"
           "chunkforge-server does on its --http port) for a world file, and re-reads the file when\n"
           "it changes: the page redraws, or lists the file's errors while the last good world stays\n"
           "shown. Runs until Ctrl-C.\n");
  add_world_options(app, world_);
  app.add_option("--listen", listen_, "host:port to serve on, the host an IP address (default 127.0.0.1:8090)")
      ->type_name("ADDR");
  app.add_option("--threads", threads_, "tile renders at once, 1 to 64 (default 2)")
      ->type_name("N")
      ->transform(integer_in<int64_t>(1, 64));
  return app;
}

bool MapCommand::reload(map::MapService& service) {
  std::vector<FieldError> errors;
  std::optional<v1::WorldDefinition> definition =
      world_.file ? read_world_file(*world_.file, errors) : parse_world_json(default_world_json(), errors);
  WorldResult result;
  if (definition) {
    if (world_.seed) definition->set_seed(*world_.seed);
    result = World::create(*definition);
  }
  for (const FieldError& e : errors) result.errors.push_back(e);
  if (!result.ok()) {
    std::vector<std::string> lines;
    for (const FieldError& e : result.errors) lines.push_back(e.to_string());
    for (const std::string& line : lines) std::cerr << "map: " << line << '\n';
    service.set_errors(std::move(lines));
    return false;
  }
  service.set_world(*result.world, world_.file ? *world_.file : "the built-in world");
  std::cerr << "map: showing " << (world_.file ? *world_.file : "the built-in world") << " (fingerprint "
            << result.world->fingerprint() << ")\n";
  return true;
}

int MapCommand::run() {
  if (const auto error = server::http_address_error(listen_)) {
    std::cerr << "map: " << *error << '\n';
    return kExitBadInput;
  }
  map::MapOptions options;
  options.threads = threads_;
  options.watching = true;
  map::MapService service(options);
  FileStamp seen = world_.file ? stamp_of(*world_.file) : FileStamp{};
  if (!reload(service)) return kExitBadInput;  // nothing good to show yet
  spdlog::set_level(spdlog::level::warn);
  server::HttpEndpoint endpoint(
      listen_, [] { return std::string(); }, {}, server::map_handler(service));
  if (!endpoint.start()) return kExitFailure;
  std::cout << "map on http://" << listen_.substr(0, listen_.rfind(':')) << ":" << endpoint.port() << "/map/"
            << std::endl;
  std::signal(SIGINT, [](int) { stop_requested = true; });
  std::signal(SIGTERM, [](int) { stop_requested = true; });
  // Polling is enough for a file a person saves now and then, and works on every filesystem.
  while (!stop_requested) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    if (!world_.file) continue;
    const FileStamp now = stamp_of(*world_.file);
    if (now == seen) continue;
    seen = now;
    reload(service);
  }
  endpoint.stop();
  return kExitOk;
}

}  // namespace

std::unique_ptr<Command> make_map_command() { return std::make_unique<MapCommand>(); }

}  // namespace chunkforge::tool
