// `chunkforge health`: a server's standard gRPC health check, as an exit code.
#include <iostream>

#include "args.h"
#include "chunkforge/client/client.h"
#include "commands.h"
#include "source.h"
#include "world_options.h"

namespace chunkforge::tool {
namespace {

class HealthCommand final : public Command {
 public:
  CLI::App& declare(CLI::App& parent) override {
    CLI::App& app = *parent.add_subcommand("health", "ask a server whether it is serving (exit 0 if so)");
    set_help(app, "usage: chunkforge health --server ADDR [--tls] [--tls-ca FILE] [--token-file FILE]\n",
             "Asks the server's standard gRPC health service (grpc.health.v1, the whole server) and\n"
             "prints SERVING or NOT_SERVING. Exit 0 when serving, 1 when not serving or unreachable,\n"
             "2 for bad arguments: usable as a container health check. It takes no --world or --seed.\n");
    add_server_options(app, server_, true);
    return app;
  }
  int run() override;

 private:
  ServerOptions server_;
};

int HealthCommand::run() {
  std::optional<client::Client> client = connect_client(server_, "health");
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

std::unique_ptr<Command> make_health_command() { return std::make_unique<HealthCommand>(); }

}  // namespace chunkforge::tool
