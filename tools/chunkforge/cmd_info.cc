// `chunkforge info`: the world's summary and catalogue, offline or from a server.
#include <iostream>

#include "args.h"
#include "chunkforge/encode.h"
#include "chunkforge/v1/info.pb.h"
#include "commands.h"
#include "source.h"
#include "world_options.h"

namespace chunkforge::tool {
namespace {

void print_entries(const char* title, const google::protobuf::RepeatedPtrField<v1::CatalogEntry>& entries) {
  std::cout << title << ":\n";
  for (const v1::CatalogEntry& e : entries) {
    std::cout << "  " << e.id() << "  " << e.name() << "  " << e.color();
    if (!e.method().empty()) std::cout << "  " << e.method() << ", footprint " << e.footprint_radius();
    if (e.size_x() > 0) std::cout << "  " << e.size_x() << " x " << e.size_z() << " x " << e.height();
    std::cout << '\n';
  }
}

class InfoCommand final : public Command {
 public:
  CLI::App& declare(CLI::App& parent) override {
    CLI::App& app =
        *parent.add_subcommand("info", "describe a world: seed, version, layers and structures with their ids");
    set_help(app,
             "usage: chunkforge info [--world FILE] [--seed N] [--json]\n"
             "       chunkforge info --server ADDR [--tls] [--tls-ca FILE] [--token-file FILE] [--json]\n",
             "Prints the world's seed, chunk size, generator version, fingerprint and the catalogue of\n"
             "biomes, materials, resource layers and structures with their ids (of the server's world\n"
             "with --server).\n");
    add_source_options(app, source_);
    app.add_flag("--json", json_, "one line of JSON (chunkforge.v1.WorldInfo)");
    return app;
  }
  int run() override;

 private:
  SourceOptions source_;
  bool json_ = false;
};

int InfoCommand::run() {
  OpenedSource opened = open_source(source_, "info");
  if (!opened.source) return opened.exit_code;
  const v1::WorldInfo& info = opened.source->info();
  if (json_) {
    std::cout << to_json(info) << '\n';
    return kExitOk;
  }
  std::cout << "world \"" << info.name() << "\"\n"
            << "seed " << info.seed() << ", generator " << info.generator_version() << ", chunk " << info.chunk_size()
            << " units, sea level " << info.sea_level() << ", fingerprint " << info.fingerprint() << '\n';
  print_entries("biomes", info.biomes());
  print_entries("materials", info.materials());
  print_entries("resources", info.resources());
  print_entries("structures", info.structures());
  return kExitOk;
}

}  // namespace

std::unique_ptr<Command> make_info_command() { return std::make_unique<InfoCommand>(); }

}  // namespace chunkforge::tool
