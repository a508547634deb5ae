#include <charconv>
#include <cmath>
#include <cstdlib>
#include <iostream>

#include "chunkforge/v1/info.pb.h"
#include "commands.h"
#include "world_options.h"

namespace chunkforge::tool {
namespace {

// Parses a decimal coordinate exactly: the integer part into the cell, the digits after the
// point into the fraction, so "1099511627776.25" loses nothing.
std::optional<Coord> parse_coord(const std::string& text) {
  const bool negative = !text.empty() && text[0] == '-';
  const size_t start = negative ? 1 : 0;
  const size_t dot = text.find('.');
  const std::string whole = text.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
  int64_t cell = 0;
  if (!whole.empty()) {
    auto [end, ec] = std::from_chars(whole.data(), whole.data() + whole.size(), cell);
    if (ec != std::errc() || end != whole.data() + whole.size()) return std::nullopt;
  }
  double frac = 0.0;
  if (dot != std::string::npos) {
    const std::string digits = text.substr(dot + 1);
    if (digits.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    if (whole.empty() && digits.empty()) return std::nullopt;
    frac = digits.empty() ? 0.0 : std::strtod(("0." + digits).c_str(), nullptr);
  } else if (whole.empty()) {
    return std::nullopt;
  }
  constexpr int64_t kLimit = int64_t{1} << 40;  // the supported world (README, DESIGN.md)
  if (cell > kLimit) return std::nullopt;
  return negative ? Coord::from_parts(-cell, -frac) : Coord::from_parts(cell, frac);
}

int run(const std::vector<std::string>& words) {
  std::string error;
  auto args = parse_args(words, with_world_options({{"--y"}, {"--json"}}), error);
  if (!args || args->positional.size() != 2) {
    std::cerr << "sample: " << (error.empty() ? "needs X and Z" : error) << '\n' << kSampleCommand.help;
    return kExitBadInput;
  }
  const std::optional<Coord> x = parse_coord(args->positional[0]);
  const std::optional<Coord> z = parse_coord(args->positional[1]);
  if (!x || !z) {
    std::cerr << "sample: X and Z must be decimal numbers with |value| <= 2^40 (got \""
              << args->positional[0] << "\", \"" << args->positional[1] << "\")\n";
    return kExitBadInput;
  }
  double y = 0.0;
  if (const std::string* text = args->value("--y")) {
    char* end = nullptr;
    y = std::strtod(text->c_str(), &end);
    if (end == text->c_str() || *end != '\0' || !std::isfinite(y)) {
      std::cerr << "sample: --y must be a number (got \"" << *text << "\")\n";
      return kExitBadInput;
    }
  }
  std::optional<World> world = load_world(*args);
  if (!world) return kExitBadInput;

  const Terrain& terrain = world->terrain();
  const TerrainPoint p = terrain.sample(*x, *z);
  const v1::WorldDefinition& d = world->definition();
  v1::TerrainSample s;
  s.set_x(x->to_double());
  s.set_z(z->to_double());
  s.set_elevation(p.elevation);
  s.set_temperature(p.temperature);
  s.set_moisture(p.moisture);
  s.set_slope(p.slope);
  s.set_biome_id(p.biome);
  s.set_biome(d.biomes(static_cast<int>(p.biome)).name());
  s.set_material_id(p.material);
  s.set_material(d.materials(static_cast<int>(p.material)).name());
  s.set_density_y(y);
  s.set_density(terrain.density(*x, y, *z));
  if (args->has("--json")) {
    std::cout << to_json(s) << '\n';
    return kExitOk;
  }
  std::cout << "at (" << s.x() << ", " << s.z() << "): elevation " << s.elevation()
            << ", temperature " << s.temperature() << ", moisture " << s.moisture() << ", slope "
            << s.slope() << "\n  biome " << s.biome() << " (" << s.biome_id() << "), material "
            << s.material() << " (" << s.material_id() << "), density at y=" << y << ": "
            << s.density() << '\n';
  return kExitOk;
}

}  // namespace

const Command kSampleCommand{
    "sample", "every terrain field at one point",
    "usage: chunkforge sample X Z [--y Y] [--world FILE] [--seed N] [--json]\n"
    "\n"
    "Samples the terrain at world position (X, Z): elevation, temperature, moisture, slope,\n"
    "biome, material, and the 3D density at height Y. X and Z are decimals, exact up to\n"
    "|value| <= 2^40.\n"
    "\n"
    "options:\n" +
        kWorldOptionsHelp +
        "  --y Y          height at which to report the 3D density (default 0)\n"
        "  --json         one line of JSON (chunkforge.v1.TerrainSample)\n",
    run};

}  // namespace chunkforge::tool
