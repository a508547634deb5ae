#include <iostream>

#include "chunk_json.h"
#include "chunkforge/encode.h"
#include "commands.h"
#include "region.h"
#include "source.h"
#include "world_options.h"

namespace chunkforge::tool {
namespace {

// Chunk coordinates the supported world (|x|, |z| <= 2^40 units) allows.
bool in_world(int64_t c, const v1::WorldInfo& info) {
  const int64_t limit = (int64_t{1} << 40) / info.chunk_size();
  return c >= -limit && c <= limit;
}

// A --terrain STEP: a divisor of the chunk size, or nullopt after printing why.
std::optional<int64_t> terrain_step(const Args& args, const v1::WorldInfo& info, const std::string& command) {
  const std::string* text = args.value("--terrain");
  if (text == nullptr) return 0;
  const std::optional<int64_t> s = parse_int(*text);
  if (!s || *s < 1 || info.chunk_size() % *s != 0) {
    std::cerr << command << ": --terrain STEP must divide the chunk size " << info.chunk_size() << '\n';
    return std::nullopt;
  }
  return s;
}

int run_chunk(const std::vector<std::string>& words) {
  std::string error;
  auto args = parse_args(words, with_source_options({{"--terrain"}, {"--json"}}), error);
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
  OpenedSource opened = open_source(*args, "chunk");
  if (!opened.source) return opened.exit_code;
  const v1::WorldInfo& info = opened.source->info();
  if (!in_world(*cx, info) || !in_world(*cz, info)) {
    std::cerr << "chunk: coordinates beyond the supported world (|x|, |z| <= 2^40 units)\n";
    return kExitBadInput;
  }
  const std::optional<int64_t> step = terrain_step(*args, info, "chunk");
  if (!step) return kExitBadInput;
  RegionOptions options;
  options.terrain_step = *step;
  const std::optional<std::vector<v1::Chunk>> chunks = opened.source->chunks({*cx, *cz, *cx, *cz}, options);
  if (!chunks) return kExitFailure;
  std::cout << chunk_json(chunks->front(), info) << '\n';
  return kExitOk;
}

int run_region(const std::vector<std::string>& words) {
  std::string error;
  auto args = parse_args(words, with_source_options({{"--order", "--threads", "--terrain"}, {"--json"}}), error);
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
  OpenedSource opened = open_source(*args, "region");
  if (!opened.source) return opened.exit_code;
  if (opened.source->online() && (args->value("--order") || args->value("--threads"))) {
    std::cerr << "region: --order and --threads shape generation here; with --server the server generates\n";
    return kExitBadInput;
  }
  const v1::WorldInfo& info = opened.source->info();
  const std::optional<int64_t> step = terrain_step(*args, info, "region");
  if (!step) return kExitBadInput;
  options.terrain_step = *step;
  const Rect rect{*c[0], *c[1], *c[2], *c[3]};
  for (int k = 0; k < 4; ++k) {
    if (!in_world(*c[k], info)) {
      std::cerr << "region: coordinates beyond the supported world (|x|, |z| <= 2^40 units)\n";
      return kExitBadInput;
    }
  }
  if (rect.width() * rect.height() > 65536) {
    std::cerr << "region: at most 65536 chunks at once (got " << rect.width() * rect.height() << ")\n";
    return kExitBadInput;
  }
  const std::optional<std::vector<v1::Chunk>> chunks = opened.source->chunks(rect, options);
  if (!chunks) return kExitFailure;
  for (const v1::Chunk& chunk : *chunks) std::cout << chunk_json(chunk, info) << '\n';
  return kExitOk;
}

}  // namespace

const Command kChunkCommand{
    "chunk", "one chunk's objects as JSON (world coordinates)",
    "usage: chunkforge chunk CX CZ [--terrain STEP] [--world FILE] [--seed N] [--json]\n"
    "       chunkforge chunk CX CZ --server ADDR [--tls] [--tls-ca FILE] [--token-file FILE] [--terrain STEP]\n"
    "\n"
    "Generates chunk (CX, CZ), or fetches it from a server, and prints it as one line of JSON:\n"
    "coordinates, the chunk's hash, and its objects with layer names, world positions,\n"
    "elevation, yaw, variant and stable id. The same chunk prints the same line either way.\n"
    "JSON is the only output format (--json is accepted for symmetry).\n"
    "\n"
    "options:\n" +
        kWorldOptionsHelp + kServerOptionsHelp +
        "  --terrain STEP include the terrain grid at STEP units (a divisor of the chunk size)\n",
    run_chunk};

const Command kRegionCommand{
    "region", "a rectangle of chunks as JSON lines",
    "usage: chunkforge region CX0 CZ0 CX1 CZ1 [--order rows|spiral|shuffle] [--threads N]\n"
    "                         [--terrain STEP] [--world FILE] [--seed N] [--json]\n"
    "       chunkforge region CX0 CZ0 CX1 CZ1 --server ADDR [--tls] [--tls-ca FILE] [--token-file FILE]\n"
    "\n"
    "Generates chunks CX0..CX1 x CZ0..CZ1 (inclusive), or fetches them from a server one by\n"
    "one, and prints one JSON line per chunk in row order (z outer) whatever the generation\n"
    "order: --order and --threads change only how the work is done, never the bytes, which\n"
    "makes outputs of different orders comparable.\n"
    "\n"
    "options:\n" +
        kWorldOptionsHelp + kServerOptionsHelp +
        "  --order O      generation order: rows (default), spiral (centre first), shuffle\n"
        "  --threads N    generation threads (default 1)\n"
        "  --terrain STEP include each chunk's terrain grid at STEP units\n",
    run_region};

}  // namespace chunkforge::tool
