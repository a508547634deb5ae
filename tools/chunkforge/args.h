// What the `chunkforge` command adds to CLI11: value checks CLI11 lacks (whole decimal numbers,
// ranges and choices, each message naming the value), the help flag that is answered before any
// other check, and the help layout (hand-written usage lines first, then CLI11's lists).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace chunkforge::tool {

// A whole decimal integer in [lo, hi]; CLI11 then converts the canonical spelling this leaves.
// CLI11's own conversion would read "0x10" as hex and "010" as octal, and wraps "-1" to 2^64 - 1
// for unsigned values. Message: must be an integer in [lo, hi] (got "x").
template <typename Int>
CLI::Validator integer_in(Int lo, Int hi);

// Any whole decimal int64 (coordinates: their limits depend on the world, checked later).
CLI::Validator any_integer();

// The positional CX0 CZ0 CX1 CZ1 of `region` and `render`: a rectangle of chunks, inclusive.
void add_corner_arguments(CLI::App& app, int64_t (&corners)[4]);

// A finite decimal number for which `accept` holds. Message: must be `requirement` (got "x").
CLI::Validator number_where(bool (*accept)(double), std::string requirement);

// Declares a decimal number option read with strtod into `value`, as the command always read
// them (CLI11 reads through long double, which can round differently); `check`: number_where.
CLI::Option* add_number_option(CLI::App& app, const std::string& name, double& value, CLI::Validator check,
                               const std::string& description);

// One of `names`. Message: must be a, b or c (got "x").
CLI::Validator one_of(std::vector<std::string> names);

// Gives `app` its -h/--help flag and help layout: `usage` (whole lines, each starting "usage: "
// or aligned under it), then `details` (the long description; app's own description stays the
// one-line summary its parent lists), then the arguments and options CLI11 lists.
// The flag throws CLI::CallForHelp as soon as it is parsed, before any value is checked, so an
// invalid value elsewhere on the line does not hide the help.
void set_help(CLI::App& app, std::string usage, std::string details);

}  // namespace chunkforge::tool
