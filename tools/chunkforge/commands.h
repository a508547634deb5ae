// The subcommands of the `chunkforge` command. Each declares its arguments on a CLI11
// subcommand, bound to members of its own, and once they are parsed runs with them and returns
// the process exit code (world_options.h: 0 ok, 1 failure, 2 bad input).
#pragma once

#include <CLI/CLI.hpp>

#include <memory>

namespace chunkforge::tool {

class Command {
 public:
  virtual ~Command() = default;
  // Adds the subcommand to `parent`, its arguments bound to this object.
  virtual CLI::App& declare(CLI::App& parent) = 0;
  // Runs after its arguments parsed; the exit code.
  virtual int run() = 0;
};

std::unique_ptr<Command> make_validate_command();
std::unique_ptr<Command> make_info_command();
std::unique_ptr<Command> make_sample_command();
std::unique_ptr<Command> make_chunk_command();
std::unique_ptr<Command> make_region_command();
std::unique_ptr<Command> make_render_command();
std::unique_ptr<Command> make_quality_command();
std::unique_ptr<Command> make_locate_command();
std::unique_ptr<Command> make_lod_command();
std::unique_ptr<Command> make_health_command();
std::unique_ptr<Command> make_edit_command();
// Only in builds with the server (CHUNKFORGE_HAS_STORE): it opens the server's edit store.
std::unique_ptr<Command> make_edits_command();
// Only in builds with the server: it serves the map on the server's HTTP endpoint.
std::unique_ptr<Command> make_map_command();
// Only in builds with the server: it reads the store's seen land.
std::unique_ptr<Command> make_world_command();

}  // namespace chunkforge::tool
