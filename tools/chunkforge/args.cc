// The `chunkforge` command's value checks and help layout on top of CLI11 (see args.h).
#include "args.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <utility>

namespace chunkforge::tool {
namespace {

std::string got(const std::string& text) { return " (got \"" + text + "\")"; }

// Usage lines first, as a manual page has them, then the long description and CLI11's lists.
class HelpLayout final : public CLI::Formatter {
 public:
  HelpLayout(std::string usage, std::string details) : usage_(std::move(usage)), details_(std::move(details)) {
    column_width(32);
  }
  std::string make_help(const CLI::App* app, std::string /*name: in usage_*/, CLI::AppFormatMode mode) const override {
    if (mode == CLI::AppFormatMode::Sub) return make_expanded(app);
    const std::string details = details_.empty() ? app->get_description() : details_;
    const std::string footer = make_footer(app);
    return usage_ + "\n" + details + (details.empty() || details.back() == '\n' ? "" : "\n") + make_positionals(app) +
           make_groups(app, mode) + make_subcommands(app, mode) + (footer.empty() ? "" : "\n" + footer);
  }

 private:
  std::string usage_, details_;
};

}  // namespace

template <typename Int>
CLI::Validator integer_in(Int lo, Int hi) {
  const std::string range = "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  return CLI::Validator(
      [lo, hi, range](std::string& text) -> std::string {
        Int value = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec != std::errc() || end != text.data() + text.size() || value < lo || value > hi) {
          return "must be an integer in " + range + got(text);
        }
        text = std::to_string(value);  // "007" -> "7": CLI11 would read a leading 0 as octal
        return "";
      },
      "", "integer in " + range);
}

template CLI::Validator integer_in<int64_t>(int64_t, int64_t);
template CLI::Validator integer_in<uint64_t>(uint64_t, uint64_t);

CLI::Validator any_integer() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        int64_t value = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec != std::errc() || end != text.data() + text.size()) return "must be an integer" + got(text);
        text = std::to_string(value);
        return "";
      },
      "", "integer");
}

CLI::Validator number_where(bool (*accept)(double), std::string requirement) {
  return CLI::Validator(
      [accept, requirement](std::string& text) -> std::string {
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0' || !std::isfinite(value) || !accept(value)) {
          return "must be " + requirement + got(text);
        }
        return "";
      },
      "", "number");
}

CLI::Option* add_number_option(CLI::App& app, const std::string& name, double& value, CLI::Validator check,
                               const std::string& description) {
  return app
      .add_option_function<std::string>(
          name, [&value](const std::string& text) { value = std::strtod(text.c_str(), nullptr); }, description)
      ->type_name("X")
      ->check(std::move(check));
}

CLI::Validator one_of(std::vector<std::string> names) {
  std::string listed;
  for (size_t k = 0; k < names.size(); ++k) {
    listed += (k == 0 ? "" : k + 1 == names.size() ? " or " : ", ") + names[k];
  }
  return CLI::Validator(
      [names, listed](std::string& text) -> std::string {
        for (const std::string& name : names) {
          if (text == name) return "";
        }
        return "must be " + listed + got(text);
      },
      "", "one of " + listed);
}

void set_help(CLI::App& app, std::string usage, std::string details) {
  app.set_help_flag();  // CLI11's own flag is acted on only after every value has been checked
  app.add_flag_callback(
         "-h,--help", [] { throw CLI::CallForHelp(); }, "print this help and exit")
      ->trigger_on_parse();
  app.formatter(std::make_shared<HelpLayout>(std::move(usage), std::move(details)));
}

void add_corner_arguments(CLI::App& app, int64_t (&corners)[4]) {
  const char* names[4] = {"CX0", "CZ0", "CX1", "CZ1"};
  const char* descriptions[4] = {"first chunk's x", "first chunk's z", "last chunk's x (>= CX0)",
                                 "last chunk's z (>= CZ0)"};
  for (int k = 0; k < 4; ++k) {
    app.add_option(names[k], corners[k], descriptions[k])->required()->transform(any_integer());
  }
}

}  // namespace chunkforge::tool
