// Command-line parsing for the `chunkforge` subcommands: positionals, `--name value` options
// and `--flag`s, with an error for anything not declared.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace chunkforge::tool {

struct Args {
  std::vector<std::string> positional;
  std::map<std::string, std::string> values;  // "--world" -> "path"
  std::set<std::string> flags;                // "--json"

  bool has(const std::string& flag) const { return flags.count(flag) > 0; }
  const std::string* value(const std::string& option) const {
    auto it = values.find(option);
    return it == values.end() ? nullptr : &it->second;
  }
};

struct ArgSpec {
  std::set<std::string> value_options;  // take the next word
  std::set<std::string> flag_options;   // stand alone
};

// A whole decimal integer, or nullopt.
std::optional<int64_t> parse_int(const std::string& text);

// args: the words after the subcommand name. On error, returns nullopt and sets `error`.
std::optional<Args> parse_args(const std::vector<std::string>& args, const ArgSpec& spec,
                               std::string& error);

}  // namespace chunkforge::tool
