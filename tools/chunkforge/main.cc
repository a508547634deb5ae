// chunkforge: a world from the command line — validate a definition, describe and sample it,
// print chunks and render maps, generated here or fetched from a server (--server).
#include <iostream>
#include <string>
#include <vector>

#include "commands.h"
#include "world_options.h"

namespace {

using chunkforge::tool::Command;

const Command* const kCommands[] = {&chunkforge::tool::kValidateCommand,
                                    &chunkforge::tool::kInfoCommand,
                                    &chunkforge::tool::kSampleCommand,
                                    &chunkforge::tool::kChunkCommand,
                                    &chunkforge::tool::kRegionCommand,
                                    &chunkforge::tool::kRenderCommand,
                                    &chunkforge::tool::kQualityCommand,
                                    &chunkforge::tool::kLocateCommand,
                                    &chunkforge::tool::kHealthCommand};

void print_usage(std::ostream& out) {
  out << "usage: chunkforge COMMAND [ARGS] [--world FILE] [--seed N | --server ADDR]\n\ncommands:\n";
  for (const Command* c : kCommands) out << "  " << c->name << std::string(12 - std::string(c->name).size(), ' ') << c->summary << '\n';
  out << "\n`chunkforge COMMAND --help` describes one command.\n";
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> words(argv + 1, argv + argc);
  if (words.empty() || words[0] == "--help" || words[0] == "-h" || words[0] == "help") {
    print_usage(words.empty() ? std::cerr : std::cout);
    return words.empty() ? chunkforge::tool::kExitBadInput : chunkforge::tool::kExitOk;
  }
  for (const Command* c : kCommands) {
    if (words[0] != c->name) continue;
    words.erase(words.begin());
    for (const std::string& w : words) {
      if (w == "--help" || w == "-h") {
        std::cout << c->help;
        return chunkforge::tool::kExitOk;
      }
    }
    return c->run(words);
  }
  std::cerr << "chunkforge: unknown command \"" << words[0] << "\"\n\n";
  print_usage(std::cerr);
  return chunkforge::tool::kExitBadInput;
}
