// `chunkforge validate`: parse and validate a world definition, every error at once.
#include <iostream>

#include "args.h"
#include "chunkforge/quote.h"
#include "commands.h"
#include "world_options.h"

namespace chunkforge::tool {
namespace {

class ValidateCommand final : public Command {
 public:
  CLI::App& declare(CLI::App& parent) override {
    CLI::App& app = *parent.add_subcommand("validate", "check a world definition; exit 2 with every error");
    set_help(app, "usage: chunkforge validate [FILE] [--world FILE] [--seed N]\n",
             "Parses and validates a world definition (the built-in world if none is given).\n"
             "Exit 0 when valid; exit 2 with one line per error, each naming the field path:\n"
             "  resources[1].density_range.min: must be in (0, 16] (got 0)\n");
    const WorldFlags flags = add_world_options(app, options_);
    app.add_option_function<std::string>(
           "FILE", [this](const std::string& path) { options_.file = path; }, "the same as --world FILE")
        ->excludes(flags.world);
    return app;
  }
  int run() override;

 private:
  WorldOptions options_;
};

int ValidateCommand::run() {
  const std::string label = options_.file ? *options_.file : std::string("built-in world");
  std::optional<World> world = load_world(options_);
  if (!world) {
    std::cerr << label << ": invalid world definition\n";
    return kExitBadInput;
  }
  if (!world->generator_pinned())
    std::cerr << label << ": warning: " << unpinned_generator_warning().to_string() << '\n';
  const v1::WorldDefinition& d = world->definition();
  std::cout << label << ": ok (" << quote_input(d.name()) << ", generator " << d.generator_version() << ", "
            << d.biomes_size() << " biomes, " << d.materials_size() << " materials, " << d.resources_size()
            << " resource layers, " << d.structures_size() << " structures)\n";
  return kExitOk;
}

}  // namespace

std::unique_ptr<Command> make_validate_command() { return std::make_unique<ValidateCommand>(); }

}  // namespace chunkforge::tool
