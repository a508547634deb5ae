// chunkforge: a world from the command line — validate a definition, describe and sample it,
// print chunks and render maps (and LOD views), generated here or fetched from a server (--server); edit a
// server's world.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "args.h"
#include "commands.h"
#include "world_options.h"

namespace {

using namespace chunkforge::tool;

// A command and the CLI11 subcommand its arguments are declared on.
struct Declared {
  CLI::App* app;
  std::unique_ptr<Command> command;
};

std::vector<Declared> declare_commands(CLI::App& app) {
  std::unique_ptr<Command> (*const makers[])() = {
      make_validate_command, make_info_command,   make_sample_command,  make_chunk_command,
      make_region_command,   make_render_command, make_quality_command, make_locate_command,
      make_lod_command,      make_health_command, make_edit_command,
#ifdef CHUNKFORGE_HAS_STORE
      make_edits_command,    make_map_command,    make_world_command,
#endif
  };
  std::vector<Declared> declared;
  for (const auto make : makers) {
    std::unique_ptr<Command> command = make();
    CLI::App& sub = command->declare(app);
    declared.push_back({&sub, std::move(command)});
  }
  return declared;
}

bool is_command(const std::vector<Declared>& commands, const std::string& word) {
  return std::any_of(commands.begin(), commands.end(), [&](const Declared& d) { return d.app->get_name() == word; });
}

// The words as CLI11 takes them (last first). A word such as "-.5" is a negative decimal, as it
// always was here; CLI11 would take it for an option "-.", so it is spelled "-0.5".
std::vector<std::string> cli11_order(std::vector<std::string> words) {
  for (std::string& word : words) {
    if (word.size() > 2 && word[0] == '-' && word[1] == '.' && word[2] >= '0' && word[2] <= '9') word.insert(1, "0");
  }
  std::reverse(words.begin(), words.end());
  return words;
}

// The line for a parse error, starting with the command being parsed (the program's name for
// words before any command). Words nothing takes are named first: CLI11 checks required
// arguments before them, and "CX is required" would hide the misspelt option that caused it.
std::string parse_error(const CLI::App& app, const std::vector<Declared>& commands, const CLI::ParseError& error) {
  std::string where = "chunkforge";
  for (const Declared& d : commands) {
    if (d.app->parsed() && app.remaining(false).empty()) where = d.app->get_name();
  }
  const std::vector<std::string> unexpected = app.remaining(true);
  if (unexpected.empty()) return where + ": " + error.what();
  const std::string& word = unexpected.front();
  const bool option = word.size() > 1 && word[0] == '-' && !(word[1] >= '0' && word[1] <= '9');
  return where + (option ? ": unknown option " : ": unexpected argument ") + word;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("", "chunkforge");
  set_help(app, "usage: chunkforge COMMAND [ARGS] [--world FILE] [--seed N | --server ADDR]\n",
           "A world from the command line: generated here from a definition (--world, --seed, or the\n"
           "built-in world), or fetched from a running server (--server).\n");
  app.require_subcommand(1);
  std::vector<Declared> commands = declare_commands(app);
  app.footer("`chunkforge COMMAND --help` describes one command.");  // after: subcommands copy it

  const std::vector<std::string> words(argv + 1, argv + argc);
  if (words.empty()) {
    std::cerr << app.help();
    return kExitBadInput;
  }
  if (words[0] == "help") {
    std::cout << app.help();
    return kExitOk;
  }
  if (words[0].rfind('-', 0) != 0 && !is_command(commands, words[0])) {
    std::cerr << "chunkforge: unknown command \"" << words[0] << "\"\n\n" << app.help();
    return kExitBadInput;
  }
  try {
    std::vector<std::string> arguments = cli11_order(words);
    app.parse(arguments);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();  // the selected command's, if any
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    std::cerr << parse_error(app, commands, e) << '\n';
    return kExitBadInput;
  }
  for (Declared& d : commands) {
    if (d.app->parsed()) return d.command->run();
  }
  return kExitBadInput;  // not reached: require_subcommand(1) makes parse() throw without one
}
