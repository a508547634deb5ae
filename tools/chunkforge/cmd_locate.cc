#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "chunk_json.h"
#include "commands.h"
#include "source.h"
#include "world_options.h"

namespace chunkforge::tool {
namespace {

int run(const std::vector<std::string>& words) {
  std::string error;
  auto args = parse_args(words, with_source_options({{"--radius", "--limit"}, {"--json"}}), error);
  std::optional<int64_t> x, z;
  if (args && args->positional.size() == 3) {
    x = parse_int(args->positional[1]);
    z = parse_int(args->positional[2]);
  }
  if (!args || !x || !z) {
    std::cerr << "locate: " << (error.empty() ? "needs TYPE and integer X Z" : error) << '\n' << kLocateCommand.help;
    return kExitBadInput;
  }
  double radius = 2048;
  if (const std::string* text = args->value("--radius")) {
    char* end = nullptr;
    radius = std::strtod(text->c_str(), &end);
    if (end == text->c_str() || *end != '\0' || !(radius > 0 && radius <= 65536)) {
      std::cerr << "locate: --radius must be in (0, 65536] world units (got \"" << *text << "\")\n";
      return kExitBadInput;
    }
  }
  int64_t limit = 10;
  if (const std::string* text = args->value("--limit")) {
    const std::optional<int64_t> n = parse_int(*text);
    if (!n || *n < 1 || *n > 10000) {
      std::cerr << "locate: --limit must be in [1, 10000]\n";
      return kExitBadInput;
    }
    limit = *n;
  }
  constexpr int64_t kWorldLimit = int64_t{1} << 40;
  if (std::abs(*x) > kWorldLimit || std::abs(*z) > kWorldLimit) {
    std::cerr << "locate: X and Z must lie within the supported world (|value| <= 2^40)\n";
    return kExitBadInput;
  }
  OpenedSource opened = open_source(*args, "locate");
  if (!opened.source) return opened.exit_code;
  const std::string& name = args->positional[0];
  const std::optional<std::vector<v1::StructureInstance>> found =
      opened.source->locate(name, *x, *z, radius, static_cast<uint32_t>(limit));
  if (!found) return opened.source->online() ? kExitFailure : kExitBadInput;

  std::string json = "{\"type\":\"" + name + "\",\"x\":" + std::to_string(*x) + ",\"z\":" + std::to_string(*z) +
                     ",\"radius\":" + number(radius) + ",\"instances\":[";
  for (size_t k = 0; k < found->size(); ++k) {
    const v1::StructureInstance& s = (*found)[k];
    const double dx = static_cast<double>(s.x() - *x), dz = static_cast<double>(s.z() - *z);
    char id[17];
    std::snprintf(id, sizeof id, "%016llx", static_cast<unsigned long long>(s.id()));
    json += (k ? ",{" : "{");
    json += "\"id\":\"" + std::string(id) + "\",\"x\":" + std::to_string(s.x()) + ",\"y\":" + number(s.y()) +
            ",\"z\":" + std::to_string(s.z()) + ",\"distance\":" + number(std::sqrt(dx * dx + dz * dz)) +
            ",\"yaw\":" + std::to_string(s.yaw_degrees()) + ",\"tilted\":" + (s.tilted() ? "true" : "false") +
            ",\"size\":[" + number(s.size_x()) + "," + number(s.size_y()) + "," + number(s.size_z()) + "]}";
  }
  json += "]}";
  if (args->has("--json")) {
    std::cout << json << '\n';
    return kExitOk;
  }
  std::cout << found->size() << " " << name << " within " << radius << " units of (" << *x << ", " << *z << ")\n";
  for (const v1::StructureInstance& s : *found) {
    const double dx = static_cast<double>(s.x() - *x), dz = static_cast<double>(s.z() - *z);
    std::cout << "  at (" << s.x() << ", " << s.z() << "), " << std::lround(std::sqrt(dx * dx + dz * dz)) << " units away\n";
  }
  return kExitOk;
}

}  // namespace

const Command kLocateCommand{
    "locate", "the nearest structures of a type, without generating chunks",
    "usage: chunkforge locate TYPE X Z [--radius R] [--limit N] [--world FILE] [--seed N] [--json]\n"
    "       chunkforge locate TYPE X Z --server ADDR [--tls] [--tls-ca FILE] [--token-file FILE] [...]\n"
    "\n"
    "Lists the kept instances of structure TYPE whose origin lies within R world units of\n"
    "(X, Z), nearest first, by planning structures alone (no terrain grids, no resources):\n"
    "exactly the instances that chunk generation reports.\n"
    "\n"
    "options:\n" +
        kWorldOptionsHelp +
        "  --radius R     search radius in world units (default 2048, at most 65536)\n"
        "  --limit N      at most N instances (default 10)\n"
        "  --json         one line of JSON\n" +
        kServerOptionsHelp,
    run};

}  // namespace chunkforge::tool
