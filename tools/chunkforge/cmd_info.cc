#include <iostream>

#include "chunkforge/encode.h"
#include "chunkforge/v1/info.pb.h"
#include "commands.h"
#include "source.h"
#include "world_options.h"

namespace chunkforge::tool {
namespace {

void print_entries(const char* title,
                   const google::protobuf::RepeatedPtrField<v1::CatalogEntry>& entries) {
  std::cout << title << ":\n";
  for (const v1::CatalogEntry& e : entries) {
    std::cout << "  " << e.id() << "  " << e.name() << "  " << e.color();
    if (!e.method().empty()) std::cout << "  " << e.method() << ", footprint " << e.footprint_radius();
    if (e.size_x() > 0) std::cout << "  " << e.size_x() << " x " << e.size_z() << " x " << e.height();
    std::cout << '\n';
  }
}

int run(const std::vector<std::string>& words) {
  std::string error;
  auto args = parse_args(words, with_source_options({{}, {"--json"}}), error);
  if (!args || !args->positional.empty()) {
    std::cerr << "info: " << (error.empty() ? "takes no positional arguments" : error) << '\n'
              << kInfoCommand.help;
    return kExitBadInput;
  }
  OpenedSource opened = open_source(*args, "info");
  if (!opened.source) return opened.exit_code;
  const v1::WorldInfo& info = opened.source->info();
  if (args->has("--json")) {
    std::cout << to_json(info) << '\n';
    return kExitOk;
  }
  std::cout << "world \"" << info.name() << "\"\n"
            << "seed " << info.seed() << ", generator " << info.generator_version() << ", chunk "
            << info.chunk_size() << " units, sea level " << info.sea_level() << ", fingerprint "
            << info.fingerprint() << '\n';
  print_entries("biomes", info.biomes());
  print_entries("materials", info.materials());
  print_entries("resources", info.resources());
  print_entries("structures", info.structures());
  return kExitOk;
}

}  // namespace

const Command kInfoCommand{
    "info", "describe a world: seed, version, layers and structures with their ids",
    "usage: chunkforge info [--world FILE] [--seed N] [--json]\n"
    "       chunkforge info --server ADDR [--tls] [--tls-ca FILE] [--token-file FILE] [--json]\n"
    "\n"
    "Prints the world's seed, chunk size, generator version, fingerprint and the catalogue of\n"
    "biomes, materials, resource layers and structures with their ids (of the server's world\n"
    "with --server).\n"
    "\n"
    "options:\n" +
        kWorldOptionsHelp + kServerOptionsHelp + "  --json         one line of JSON (chunkforge.v1.WorldInfo)\n",
    run};

}  // namespace chunkforge::tool
