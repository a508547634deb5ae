// chunkforge-server's configuration file (see config_file.h).
#include "startup/config_file.h"

#include <toml++/toml.h>

#include <algorithm>
#include <map>
#include <sstream>

#include "startup/flag_files.h"

namespace chunkforge::server {
namespace {

bool skipped(const std::vector<std::string>& skip, const std::string& key) {
  return std::find(skip.begin(), skip.end(), key) != skip.end();
}

// A switch takes on|off (server/main.cc, add_switch); a plain flag (--open-edits) no value.
bool is_switch(const CLI::Option& option) { return option.get_type_name().rfind("on|off", 0) == 0; }
bool is_plain_flag(const CLI::Option& option) { return option.get_expected() == 0; }

// The value of `node` as the command line would spell it for `option`; "" with `why` set if
// the type cannot be one.
std::string text_of(const toml::node& node, const CLI::Option& option, std::string& why) {
  if (const auto* b = node.as_boolean()) {
    if (is_switch(option)) return b->get() ? "on" : "off";
    if (is_plain_flag(option)) return b->get() ? "true" : "false";
    why = "takes a value, not true or false";
  } else if (is_plain_flag(option)) {
    why = "is true or false";
  } else if (const auto* s = node.as_string()) {
    return s->get();  // "" as an empty variable: http = "" is no side port
  } else if (const auto* i = node.as_integer()) {
    return std::to_string(i->get());
  } else if (node.is_table()) {
    why = "is a table: every key is at the top level, named as its flag";
  } else if (node.is_array()) {
    why = "is an array: every key takes one value";
  } else {
    why = "takes a string or an integer";
  }
  return "";
}

// CLI11's message without the "--name: " it starts with (the line names the key).
std::string reason(const CLI::Error& error, const std::string& key) {
  std::string text = error.what();
  const std::string prefix = "--" + key + ": ";
  if (text.rfind(prefix, 0) == 0) text.erase(0, prefix.size());
  return text;
}

// The options the file set that need another the configuration lacks, or exclude one it has.
void check_relations(const std::vector<std::pair<CLI::Option*, std::string>>& applied,
                     std::vector<std::string>& problems) {
  for (const auto& [option, where] : applied) {
    for (const CLI::Option* need : option->get_needs()) {
      if (need->count() == 0) problems.push_back(where + "needs " + need->get_lnames().front() + " too");
    }
    for (const CLI::Option* other : option->get_excludes()) {
      if (other->count() > 0) problems.push_back(where + "cannot be used with " + other->get_lnames().front());
    }
  }
}

// A postgres:// URI's password as ***.
std::string masked(const std::string& key, std::string value) {
  if (key != "store") return value;
  const size_t scheme = value.find("://"), at = value.find('@');
  if (scheme == std::string::npos || at == std::string::npos || at < scheme) return value;
  const size_t colon = value.find(':', scheme + 3);
  if (colon != std::string::npos && colon < at) value.replace(colon + 1, at - colon - 1, "***");
  return value;
}

// `text` as a TOML value: an integer bare, a flag's true/false bare, anything else quoted.
std::string toml_value(const CLI::Option& option, const std::string& text) {
  const bool integer =
      !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (is_plain_flag(option)) return text == "true" || text == "1" ? "true" : "false";
  if (integer && text.size() < 19) return text;
  std::ostringstream quoted;
  quoted << toml::value<std::string>(text);
  return quoted.str();
}

}  // namespace

std::vector<std::string> apply_config_file(CLI::App& app, const std::string& path,
                                           const std::vector<std::string>& skip) {
  std::string error;
  const std::optional<std::string> text = read_flag_file("--config", path, error);
  if (!text) return {error};
  toml::table file;
  try {
    file = toml::parse(*text, path);
  } catch (const toml::parse_error& e) {
    const auto& where = e.source().begin;
    return {path + ":" + std::to_string(where.line) + ":" + std::to_string(where.column) + ": " +
            std::string(e.description())};
  }
  // By line, so that the problems read in the file's order.
  std::map<uint32_t, std::pair<std::string, const toml::node*>> keys;
  for (const auto& [name, node] : file) keys[node.source().begin.line] = {std::string(name.str()), &node};
  std::vector<std::string> problems;
  std::vector<std::pair<CLI::Option*, std::string>> applied;
  for (const auto& [line, entry] : keys) {
    const auto& [key, node] = entry;
    const std::string where = path + ":" + std::to_string(line) + ": " + key + ": ";
    CLI::Option* option = skipped(skip, key) ? nullptr : app.get_option_no_throw("--" + key);
    if (option == nullptr) {
      problems.push_back(where + "unknown key (a key is a flag's name without its dashes: --help lists them)");
      continue;
    }
    std::string why;
    const std::string value = text_of(*node, *option, why);
    if (!why.empty()) {
      problems.push_back(where + why);
      continue;
    }
    if (option->count() > 0) continue;  // the command line or the environment set it: they win
    option->add_result(value);
    try {
      option->run_callback();
      applied.emplace_back(option, where);
    } catch (const CLI::Error& e) {
      option->clear();
      problems.push_back(where + reason(e, key));
    }
  }
  check_relations(applied, problems);
  return problems;
}

std::string print_config(CLI::App& app, const std::vector<std::string>& skip) {
  std::ostringstream out;
  out << "# chunkforge-server's effective configuration (--config reads it back): a flag, then its\n"
         "# variable, then a configuration file, then the default. Unset keys are commented out.\n";
  for (CLI::Option* option : app.get_options()) {
    if (option->get_lnames().empty()) continue;
    const std::string key = option->get_lnames().front();
    if (skipped(skip, key)) continue;
    // An unset option's default, from its variable (or its default function) as it stands.
    if (option->count() == 0) option->capture_default_str();
    std::string text = option->count() > 0 ? option->results().back() : option->get_default_str();
    if (text.empty() && is_plain_flag(*option)) text = "false";
    if (text.empty() && option->count() == 0) {
      out << "# " << key << " =\n";
      continue;
    }
    out << key << " = " << toml_value(*option, masked(key, text)) << '\n';
  }
  return out.str();
}

}  // namespace chunkforge::server
