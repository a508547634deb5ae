// The subcommands of the `chunkforge` command. Each takes the words after its name and
// returns the process exit code (world_options.h: 0 ok, 1 failure, 2 bad input).
#pragma once

#include <string>
#include <vector>

namespace chunkforge::tool {

struct Command {
  const char* name;
  const char* summary;
  std::string help;  // full usage text, printed by `chunkforge NAME --help`
  int (*run)(const std::vector<std::string>& words);
};

extern const Command kValidateCommand;
extern const Command kInfoCommand;
extern const Command kSampleCommand;
extern const Command kChunkCommand;
extern const Command kRegionCommand;
extern const Command kRenderCommand;
extern const Command kQualityCommand;
extern const Command kLocateCommand;
extern const Command kHealthCommand;

}  // namespace chunkforge::tool
