#include <iostream>

#include "chunkforge/client/client.h"
#include "commands.h"
#include "source.h"
#include "world_options.h"

namespace chunkforge::tool {
namespace {

int run(const std::vector<std::string>& words) {
  std::string error;
  auto args = parse_args(words, with_source_options({}), error);
  if (!args || !args->positional.empty() || !args->value("--server")) {
    std::cerr << "health: " << (error.empty() ? "needs --server ADDR and no positional arguments" : error) << '\n'
              << kHealthCommand.help;
    return kExitBadInput;
  }
  if (args->value("--world") || args->value("--seed")) {
    std::cerr << "health: --world and --seed do not apply: health asks a server\n";
    return kExitBadInput;
  }
  std::optional<client::Client> client = connect_client(*args, "health");
  if (!client) return kExitBadInput;
  const client::Result<client::Health> health = client->health();
  if (!health) {
    std::cerr << "health: " << client->target() << ": " << health.status().to_string() << '\n';
    return kExitFailure;
  }
  const bool serving = *health == client::Health::serving;
  std::cout << (serving ? "SERVING" : "NOT_SERVING") << '\n';
  return serving ? kExitOk : kExitFailure;
}

}  // namespace

const Command kHealthCommand{
    "health", "ask a server whether it is serving (exit 0 if so)",
    "usage: chunkforge health --server ADDR [--tls] [--tls-ca FILE] [--token-file FILE]\n"
    "\n"
    "Asks the server's standard gRPC health service (grpc.health.v1, the whole server) and\n"
    "prints SERVING or NOT_SERVING. Exit 0 when serving, 1 when not serving or unreachable,\n"
    "2 for bad arguments: usable as a container health check.\n"
    "\n"
    "options:\n" +
        kServerOptionsHelp,
    run};

}  // namespace chunkforge::tool
