// `chunkforge sample`: every terrain field at one world position.
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <iostream>

#include "args.h"
#include "chunkforge/v1/info.pb.h"
#include "chunkforge/world_extent.h"
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
  if (cell > kWorldUnits) return std::nullopt;
  return negative ? Coord::from_parts(-cell, -frac) : Coord::from_parts(cell, frac);
}

// An X or Z that parse_coord reads.
CLI::Validator coordinate() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (parse_coord(text)) return "";
        return "must be a decimal number with |value| <= 2^40 (got \"" + text + "\")";
      },
      "", "coordinate");
}

// TerrainSample's double field named as the terrain field (info.proto has one for each row of
// kTerrainFields; tests/lib/terrain_fields_test.cc checks it).
const google::protobuf::FieldDescriptor& sample_field(size_t field) {
  return *v1::TerrainSample::descriptor()->FindFieldByName(std::string(kTerrainFields[field].name));
}

// "elevation, temperature, moisture, slope": the fields, for the help text.
std::string field_names() {
  std::string names;
  for (const TerrainFieldSpec& field : kTerrainFields) names += (names.empty() ? "" : ", ") + std::string(field.name);
  return names;
}

// Every terrain field at (x, z), and the 3D density at height y.
v1::TerrainSample sample(const World& world, Coord x, Coord z, double y) {
  const Terrain& terrain = world.terrain();
  const TerrainPoint p = terrain.sample(x, z);
  const v1::WorldDefinition& d = world.definition();
  v1::TerrainSample s;
  s.set_x(x.to_double());
  s.set_z(z.to_double());
  for (size_t f = 0; f < kTerrainFieldCount; ++f) s.GetReflection()->SetDouble(&s, &sample_field(f), p.values[f]);
  s.set_biome_id(p.biome);
  s.set_biome(d.biomes(static_cast<int>(p.biome)).name());
  s.set_material_id(p.material);
  s.set_material(d.materials(static_cast<int>(p.material)).name());
  s.set_density_y(y);
  s.set_density(terrain.density(x, y, z));
  return s;
}

class SampleCommand final : public Command {
 public:
  CLI::App& declare(CLI::App& parent) override {
    CLI::App& app = *parent.add_subcommand("sample", "every terrain field at one point");
    set_help(app, "usage: chunkforge sample X Z [--y Y] [--world FILE] [--seed N] [--json]\n",
             "Samples the terrain at world position (X, Z): " + field_names() +
                 ",\nbiome, material, and the 3D density at height Y. X and Z are decimals, exact up to\n"
                 "|value| <= 2^40.\n");
    app.add_option("X", x_, "world x, a decimal")->required()->check(coordinate());
    app.add_option("Z", z_, "world z, a decimal")->required()->check(coordinate());
    add_world_options(app, world_);
    add_number_option(app, "--y", y_, number_where([](double) { return true; }, "a number"),
                      "height at which to report the 3D density (default 0)")
        ->type_name("Y");
    app.add_flag("--json", json_, "one line of JSON (chunkforge.v1.TerrainSample)");
    return app;
  }
  int run() override;

 private:
  std::string x_, z_;
  WorldOptions world_;
  double y_ = 0.0;
  bool json_ = false;
};

int SampleCommand::run() {
  std::optional<World> world = load_world(world_);
  if (!world) return kExitBadInput;
  // X and Z were checked at parse by coordinate().
  const v1::TerrainSample s = sample(*world, *parse_coord(x_), *parse_coord(z_), y_);
  if (json_) {
    std::cout << to_json(s) << '\n';
    return kExitOk;
  }
  std::cout << "at (" << s.x() << ", " << s.z() << ")";
  for (size_t f = 0; f < kTerrainFieldCount; ++f) {
    std::cout << (f == 0 ? ": " : ", ") << kTerrainFields[f].name << ' '
              << s.GetReflection()->GetDouble(s, &sample_field(f));
  }
  std::cout << "\n  biome " << s.biome() << " (" << s.biome_id() << "), material " << s.material() << " ("
            << s.material_id() << "), density at y=" << y_ << ": " << s.density() << '\n';
  return kExitOk;
}

}  // namespace

std::unique_ptr<Command> make_sample_command() { return std::make_unique<SampleCommand>(); }

}  // namespace chunkforge::tool
