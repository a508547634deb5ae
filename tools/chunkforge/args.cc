#include "args.h"

#include <charconv>

namespace chunkforge::tool {

std::optional<int64_t> parse_int(const std::string& text) {
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<Args> parse_args(const std::vector<std::string>& words, const ArgSpec& spec,
                               std::string& error) {
  Args args;
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    // A word like "-12.5" is a negative coordinate, not an option.
    const bool is_option = w.size() > 1 && w[0] == '-' && !(w[1] >= '0' && w[1] <= '9') && w[1] != '.';
    if (!is_option) {
      args.positional.push_back(w);
    } else if (spec.value_options.count(w)) {
      if (i + 1 >= words.size()) {
        error = w + " needs a value";
        return std::nullopt;
      }
      args.values[w] = words[++i];
    } else if (spec.flag_options.count(w)) {
      args.flags.insert(w);
    } else {
      error = "unknown option " + w;
      return std::nullopt;
    }
  }
  return args;
}

}  // namespace chunkforge::tool
