// File: server/startup/config_file.h
//
// chunkforge-server's configuration file (--config FILE; docs/deploy.md, "Configuration"):
// TOML, one key per flag, named as the flag without its dashes, at the top level:
//
//   cache-mb = 512
//   world = "/etc/chunkforge/world.json"
//   look-ahead = "off"        # or false; a switch takes on/off, a plain flag true/false
//   open-edits = false
//
// One precedence for every value: a flag, then its CHUNKFORGE_* variable, then the file, then
// the default. So the file fills only the options that the command line and the environment
// left unset, and is checked by the same validators as a flag. Read with toml++ (Debian's
// libtomlplusplus): a well-kept parser that reports where a malformed file goes wrong.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace chunkforge::server {

// Applies the keys of the TOML file at `path` to the options of `app` that are still unset
// (app.parse and the environment ran first). Every problem, each a line naming the file, the
// line, the key and the reason (a malformed file, an unknown key, a value of the wrong type or
// outside its range, a table or an array, a key that needs another); empty if there was none.
// `skip`: options that are not configuration (--help, --config itself).
std::vector<std::string> apply_config_file(CLI::App& app, const std::string& path,
                                           const std::vector<std::string>& skip);

// The effective configuration as a TOML file --config reads: every option of `app` but those in
// `skip`, with its value, or commented out when unset. A password in a store URI is masked.
// (Non-const: an unset option's default is captured from its variable as it stands.)
std::string print_config(CLI::App& app, const std::vector<std::string>& skip);

}  // namespace chunkforge::server
