#include <iostream>

#include "chunk_json.h"
#include "chunkforge/encode.h"
#include "commands.h"
#include "region.h"
#include "world_options.h"

namespace chunkforge::tool {
namespace {

// Chunk coordinates the supported world (|x|, |z| <= 2^40 units) allows.
bool in_world(int64_t c, const World& world) {
  const int64_t limit = (int64_t{1} << 40) / world.chunk_size();
  return c >= -limit && c <= limit;
}

int run_chunk(const std::vector<std::string>& words) {
  std::string error;
  auto args = parse_args(words, with_world_options({{"--terrain"}, {"--json"}}), error);
  std::optional<int64_t> cx, cz;
  if (args && args->positional.size() == 2) {
    cx = parse_int(args->positional[0]);
    cz = parse_int(args->positional[1]);
  }
  if (!args || !cx || !cz) {
    std::cerr << "chunk: " << (error.empty() ? "needs integer chunk coordinates CX CZ" : error) << '\n'
              << kChunkCommand.help;
    return kExitBadInput;
  }
  std::optional<World> world = load_world(*args);
  if (!world) return kExitBadInput;
  if (!in_world(*cx, *world) || !in_world(*cz, *world)) {
    std::cerr << "chunk: coordinates beyond the supported world (|x|, |z| <= 2^40 units)\n";
    return kExitBadInput;
  }
  int64_t step = 0;
  if (const std::string* text = args->value("--terrain")) {
    const std::optional<int64_t> s = parse_int(*text);
    if (!s || *s < 1 || world->chunk_size() % *s != 0) {
      std::cerr << "chunk: --terrain STEP must divide the chunk size " << world->chunk_size() << '\n';
      return kExitBadInput;
    }
    step = *s;
  }
  v1::Chunk chunk = encode_chunk(*world, Generator(*world).generate({*cx, *cz}));
  if (step > 0) add_terrain(*world, step, chunk);
  std::cout << chunk_json(chunk, describe_world(*world)) << '\n';
  return kExitOk;
}

int run_region(const std::vector<std::string>& words) {
  std::string error;
  auto args = parse_args(words, with_world_options({{"--order", "--threads", "--terrain"}, {"--json"}}), error);
  std::optional<int64_t> c[4];
  if (args && args->positional.size() == 4) {
    for (int k = 0; k < 4; ++k) c[k] = parse_int(args->positional[k]);
  }
  if (!args || !c[0] || !c[1] || !c[2] || !c[3] || *c[2] < *c[0] || *c[3] < *c[1]) {
    std::cerr << "region: " << (error.empty() ? "needs integer CX0 CZ0 CX1 CZ1 with CX0 <= CX1, CZ0 <= CZ1" : error)
              << '\n' << kRegionCommand.help;
    return kExitBadInput;
  }
  RegionOptions options;
  if (const std::string* text = args->value("--order")) {
    const std::optional<Order> order = parse_order(*text);
    if (!order) {
      std::cerr << "region: --order must be rows, spiral or shuffle (got \"" << *text << "\")\n";
      return kExitBadInput;
    }
    options.order = *order;
  }
  if (const std::string* text = args->value("--threads")) {
    const std::optional<int64_t> t = parse_int(*text);
    if (!t || *t < 1 || *t > 64) {
      std::cerr << "region: --threads must be in [1, 64] (got \"" << *text << "\")\n";
      return kExitBadInput;
    }
    options.threads = static_cast<int>(*t);
  }
  std::optional<World> world = load_world(*args);
  if (!world) return kExitBadInput;
  if (const std::string* text = args->value("--terrain")) {
    const std::optional<int64_t> s = parse_int(*text);
    if (!s || *s < 1 || world->chunk_size() % *s != 0) {
      std::cerr << "region: --terrain STEP must divide the chunk size " << world->chunk_size() << '\n';
      return kExitBadInput;
    }
    options.terrain_step = *s;
  }
  const Rect rect{*c[0], *c[1], *c[2], *c[3]};
  for (int k = 0; k < 4; ++k) {
    if (!in_world(*c[k], *world)) {
      std::cerr << "region: coordinates beyond the supported world (|x|, |z| <= 2^40 units)\n";
      return kExitBadInput;
    }
  }
  if (rect.width() * rect.height() > 65536) {
    std::cerr << "region: at most 65536 chunks at once (got " << rect.width() * rect.height() << ")\n";
    return kExitBadInput;
  }
  const v1::WorldInfo info = describe_world(*world);
  for (const v1::Chunk& chunk : generate_rect(*world, rect, options)) std::cout << chunk_json(chunk, info) << '\n';
  return kExitOk;
}

}  // namespace

const Command kChunkCommand{
    "chunk", "one chunk's objects as JSON (world coordinates)",
    "usage: chunkforge chunk CX CZ [--terrain STEP] [--world FILE] [--seed N] [--json]\n"
    "\n"
    "Generates chunk (CX, CZ) and prints it as one line of JSON: coordinates, the chunk's hash,\n"
    "and its objects with layer names, world positions, elevation, yaw, variant and stable id.\n"
    "JSON is the only output format (--json is accepted for symmetry).\n"
    "\n"
    "options:\n" +
        kWorldOptionsHelp +
        "  --terrain STEP include the terrain grid at STEP units (a divisor of the chunk size)\n",
    run_chunk};

const Command kRegionCommand{
    "region", "a rectangle of chunks as JSON lines",
    "usage: chunkforge region CX0 CZ0 CX1 CZ1 [--order rows|spiral|shuffle] [--threads N]\n"
    "                         [--terrain STEP] [--world FILE] [--seed N] [--json]\n"
    "\n"
    "Generates chunks CX0..CX1 x CZ0..CZ1 (inclusive) and prints one JSON line per chunk, in row\n"
    "order (z outer) whatever the generation order: --order and --threads change only how the\n"
    "work is done, never the bytes, which makes outputs of different orders comparable.\n"
    "\n"
    "options:\n" +
        kWorldOptionsHelp +
        "  --order O      generation order: rows (default), spiral (centre first), shuffle\n"
        "  --threads N    generation threads (default 1)\n"
        "  --terrain STEP include each chunk's terrain grid at STEP units\n",
    run_region};

}  // namespace chunkforge::tool
