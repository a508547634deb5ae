// Parsing a standalone program's command line with CLI11 the one way the project's programs
// share (chunkforge-loadgen, chunkforge-null-server): --help prints the help and exits 0, a bad
// or unknown option prints "<program>: <what CLI11 says>" and exits 2.
#pragma once

#include <CLI/CLI.hpp>

#include <iostream>
#include <optional>

namespace chunkforge::tool {

// nullopt to go on, else the exit code. `app`'s name (its constructor's second argument) is
// the program's name in the error line.
inline std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return 0;
  } catch (const CLI::ParseError& e) {
    std::cerr << app.get_name() << ": " << e.what() << '\n';
    return 2;
  }
  return std::nullopt;
}

}  // namespace chunkforge::tool
