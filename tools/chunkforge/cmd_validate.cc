#include <iostream>

#include "commands.h"
#include "world_options.h"

namespace chunkforge::tool {
namespace {

int run(const std::vector<std::string>& words) {
  std::string error;
  auto args = parse_args(words, with_world_options({}), error);
  if (!args || args->positional.size() > 1 || (!args->positional.empty() && args->value("--world"))) {
    std::cerr << "validate: " << (error.empty() ? "give one FILE (or --world FILE)" : error) << '\n'
              << kValidateCommand.help;
    return kExitBadInput;
  }
  if (!args->positional.empty()) args->values["--world"] = args->positional[0];
  const std::string* file = args->value("--world");
  const std::string label = file ? *file : std::string("built-in world");
  std::optional<World> world = load_world(*args);
  if (!world) {
    std::cerr << label << ": invalid world definition\n";
    return kExitBadInput;
  }
  const v1::WorldDefinition& d = world->definition();
  std::cout << label << ": ok (\"" << d.name() << "\", generator " << d.generator_version() << ", "
            << d.biomes_size() << " biomes, " << d.materials_size() << " materials, "
            << d.resources_size() << " resource layers, " << d.structures_size()
            << " structures)\n";
  return kExitOk;
}

}  // namespace

const Command kValidateCommand{
    "validate", "check a world definition; exit 2 with every error",
    "usage: chunkforge validate [FILE] [--world FILE] [--seed N]\n"
    "\n"
    "Parses and validates a world definition (the built-in world if none is given).\n"
    "Exit 0 when valid; exit 2 with one line per error, each naming the field path:\n"
    "  resources[1].density_range.min: must be in (0, 16] (got 0)\n"
    "\n"
    "options:\n" +
        kWorldOptionsHelp,
    run};

}  // namespace chunkforge::tool
