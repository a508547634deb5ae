// `chunkforge validate`: parse and validate a world definition, every error at once; with
// --previous, also whether it may follow that world as its next epoch (chunkforge/epochs.h).
#include <iostream>

#include "args.h"
#include "chunkforge/epochs.h"
#include "chunkforge/quote.h"
#include "commands.h"
#include "world_options.h"

namespace chunkforge::tool {
namespace {

class ValidateCommand final : public Command {
 public:
  CLI::App& declare(CLI::App& parent) override {
    CLI::App& app = *parent.add_subcommand("validate", "check a world definition; exit 2 with every error");
    set_help(app, "usage: chunkforge validate [FILE] [--world FILE] [--seed N] [--previous FILE]\n",
             "Parses and validates a world definition (the built-in world if none is given).\n"
             "Exit 0 when valid; exit 2 with one line per error, each naming the field path:\n"
             "  resources[1].density_range.min: must be in (0, 16] (got 0)\n"
             "--previous FILE: the world this one would follow as its next epoch (docs/world-definition.md,\n"
             "\"Epochs\"): the same chunk size, every structure type and resource layer kept at its index.\n");
    const WorldFlags flags = add_world_options(app, options_);
    app.add_option_function<std::string>(
           "FILE", [this](const std::string& path) { options_.file = path; }, "the same as --world FILE")
        ->excludes(flags.world);
    app.add_option("--previous", previous_, "the world this one would follow as its next epoch");
    return app;
  }
  int run() override;

 private:
  WorldOptions options_;
  std::string previous_;
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
  if (!previous_.empty()) {
    const WorldResult before = load_world_file(previous_);
    for (const FieldError& e : before.errors) std::cerr << quote_input(previous_) << ": " << e.to_string() << '\n';
    if (!before.ok()) {
      std::cerr << quote_input(previous_) << ": invalid world definition (--previous)\n";
      return kExitBadInput;
    }
    const std::vector<FieldError> errors = validate_next_epoch(*before.world, *world);
    for (const FieldError& e : errors) std::cerr << label << ": " << e.to_string() << '\n';
    if (!errors.empty()) {
      std::cerr << label << ": cannot follow " << quote_input(previous_) << " as its next epoch\n";
      return kExitBadInput;
    }
  }
  const v1::WorldDefinition& d = world->definition();
  std::cout << label << ": ok (" << quote_input(d.name()) << ", generator " << d.generator_version() << ", "
            << d.biomes_size() << " biomes, " << d.materials_size() << " materials, " << d.resources_size()
            << " resource layers, " << d.structures_size() << " structures)"
            << (previous_.empty() ? "" : ", may follow " + quote_input(previous_)) << '\n';
  return kExitOk;
}

}  // namespace

std::unique_ptr<Command> make_validate_command() { return std::make_unique<ValidateCommand>(); }

}  // namespace chunkforge::tool
