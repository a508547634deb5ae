// `chunkforge locate`: the nearest structures of a type, by planning structures alone.
#include <cmath>
#include <cstdlib>
#include <iostream>

#include "args.h"
#include "chunk_json.h"
#include "chunkforge/hex_text.h"
#include "chunkforge/world_extent.h"
#include "commands.h"
#include "source.h"
#include "world_options.h"

namespace chunkforge::tool {
namespace {

class LocateCommand final : public Command {
 public:
  CLI::App& declare(CLI::App& parent) override;
  int run() override;

 private:
  // The instances found as one line of JSON.
  std::string json(const std::vector<v1::StructureInstance>& found) const;

  std::string type_;
  int64_t x_ = 0, z_ = 0;
  SourceOptions source_;
  double radius_ = 2048;
  int64_t limit_ = 10;
  bool json_ = false;
};

CLI::App& LocateCommand::declare(CLI::App& parent) {
  CLI::App& app = *parent.add_subcommand("locate", "the nearest structures of a type, without generating chunks");
  set_help(app,
           "usage: chunkforge locate TYPE X Z [--radius R] [--limit N] [--world FILE] [--seed N] [--json]\n"
           "       chunkforge locate TYPE X Z --server ADDR [--tls] [--tls-ca FILE] [--token-file FILE] [...]\n",
           "Lists the kept instances of structure TYPE whose origin lies within R world units of\n"
           "(X, Z), nearest first, by planning structures alone (no terrain grids, no resources):\n"
           "exactly the instances that chunk generation reports.\n");
  app.add_option("TYPE", type_, "the structure type's name (chunkforge info lists them)")->required();
  app.add_option("X", x_, "world x, an integer with |X| <= 2^40")
      ->required()
      ->transform(integer_in<int64_t>(-kWorldUnits, kWorldUnits));
  app.add_option("Z", z_, "world z, an integer with |Z| <= 2^40")
      ->required()
      ->transform(integer_in<int64_t>(-kWorldUnits, kWorldUnits));
  add_source_options(app, source_);
  add_number_option(app, "--radius", radius_,
                    number_where([](double r) { return r > 0 && r <= 65536; }, "in (0, 65536] world units"),
                    "search radius in world units (default 2048, at most 65536)")
      ->type_name("R");
  app.add_option("--limit", limit_, "at most N instances, 1 to 10000 (default 10)")
      ->type_name("N")
      ->transform(integer_in<int64_t>(1, 10000));
  app.add_flag("--json", json_, "one line of JSON");
  return app;
}

std::string LocateCommand::json(const std::vector<v1::StructureInstance>& found) const {
  std::string out = "{\"type\":\"" + type_ + "\",\"x\":" + std::to_string(x_) + ",\"z\":" + std::to_string(z_) +
                    ",\"radius\":" + number(radius_) + ",\"instances\":[";
  for (size_t k = 0; k < found.size(); ++k) {
    const v1::StructureInstance& s = found[k];
    const double dx = static_cast<double>(s.x() - x_), dz = static_cast<double>(s.z() - z_);
    out += (k ? ",{" : "{");
    out += "\"id\":\"" + hex_id(s.id()) + "\",\"x\":" + std::to_string(s.x()) + ",\"y\":" + number(s.y()) +
           ",\"z\":" + std::to_string(s.z()) + ",\"distance\":" + number(std::sqrt(dx * dx + dz * dz)) +
           ",\"yaw\":" + std::to_string(s.yaw_degrees()) + ",\"tilted\":" + (s.tilted() ? "true" : "false") +
           ",\"size\":[" + number(s.size_x()) + "," + number(s.size_y()) + "," + number(s.size_z()) + "]}";
  }
  out += "]}";
  return out;
}

int LocateCommand::run() {
  OpenedSource opened = open_source(source_, "locate");
  if (!opened.source) return opened.exit_code;
  const std::optional<std::vector<v1::StructureInstance>> found =
      opened.source->locate(type_, x_, z_, radius_, static_cast<uint32_t>(limit_));
  if (!found) return opened.source->online() ? kExitFailure : kExitBadInput;
  if (json_) {
    std::cout << json(*found) << '\n';
    return kExitOk;
  }
  std::cout << found->size() << " " << type_ << " within " << radius_ << " units of (" << x_ << ", " << z_ << ")\n";
  for (const v1::StructureInstance& s : *found) {
    const double dx = static_cast<double>(s.x() - x_), dz = static_cast<double>(s.z() - z_);
    std::cout << "  at (" << s.x() << ", " << s.z() << "), " << std::lround(std::sqrt(dx * dx + dz * dz))
              << " units away\n";
  }
  return kExitOk;
}

}  // namespace

std::unique_ptr<Command> make_locate_command() { return std::make_unique<LocateCommand>(); }

}  // namespace chunkforge::tool
