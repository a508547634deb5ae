// `chunkforge chunk` and `chunkforge region`: chunks as JSON lines, generated here or fetched.
#include <iostream>

#include "args.h"
#include "chunk_json.h"
#include "chunkforge/encode.h"
#include "chunkforge/world_extent.h"
#include "commands.h"
#include "region.h"
#include "source.h"
#include "world_options.h"

namespace chunkforge::tool {
namespace {

// Chunk coordinates the supported world (|x|, |z| <= 2^40 units) allows.
bool in_world(int64_t c, const v1::WorldInfo& info) {
  const int64_t limit = chunk_limit(info.chunk_size());
  return c >= -limit && c <= limit;
}

// A --terrain STEP: a divisor of the chunk size (0 when not given), or nullopt after printing why.
std::optional<int64_t> terrain_step(std::optional<int64_t> step, const v1::WorldInfo& info,
                                    const std::string& command) {
  if (!step) return 0;
  if (*step < 1 || info.chunk_size() % *step != 0) {
    std::cerr << command << ": --terrain STEP must divide the chunk size " << info.chunk_size() << '\n';
    return std::nullopt;
  }
  return step;
}

void add_terrain_option(CLI::App& app, std::optional<int64_t>& step, const char* description) {
  app.add_option_function<int64_t>(
         "--terrain", [&step](const int64_t& value) { step = value; }, description)
      ->type_name("STEP")
      ->transform(any_integer());
}

class ChunkCommand final : public Command {
 public:
  CLI::App& declare(CLI::App& parent) override {
    CLI::App& app = *parent.add_subcommand("chunk", "one chunk's objects as JSON (world coordinates)");
    set_help(
        app,
        "usage: chunkforge chunk CX CZ [--terrain STEP] [--world FILE] [--seed N] [--json]\n"
        "       chunkforge chunk CX CZ --server ADDR [--tls] [--tls-ca FILE] [--token-file FILE] [--terrain STEP]\n",
        "Generates chunk (CX, CZ), or fetches it from a server, and prints it as one line of JSON:\n"
        "coordinates, the chunk's hash, its edit_version (0 until edited), its objects with layer\n"
        "names, world positions, elevation, yaw, variant and stable id, its structures, and the\n"
        "object_states edits set (id and state in hex, as `chunkforge edit` takes them). An\n"
        "unedited chunk prints the same line either way. JSON is the only output format (--json\n"
        "is accepted for symmetry).\n");
    app.add_option("CX", cx_, "chunk x coordinate (world x / chunk size, rounded down)")
        ->required()
        ->transform(any_integer());
    app.add_option("CZ", cz_, "chunk z coordinate")->required()->transform(any_integer());
    add_source_options(app, source_);
    add_terrain_option(app, terrain_, "include the terrain grid at STEP units (a divisor of the chunk size)");
    app.add_flag("--json")->description("the output is JSON either way");
    return app;
  }
  int run() override;

 private:
  int64_t cx_ = 0, cz_ = 0;
  SourceOptions source_;
  std::optional<int64_t> terrain_;
};

int ChunkCommand::run() {
  OpenedSource opened = open_source(source_, "chunk");
  if (!opened.source) return opened.exit_code;
  const v1::WorldInfo& info = opened.source->info();
  if (!in_world(cx_, info) || !in_world(cz_, info)) {
    std::cerr << "chunk: coordinates beyond the supported world (|x|, |z| <= 2^40 units)\n";
    return kExitBadInput;
  }
  const std::optional<int64_t> step = terrain_step(terrain_, info, "chunk");
  if (!step) return kExitBadInput;
  RegionOptions options;
  options.terrain_step = *step;
  const std::optional<std::vector<v1::Chunk>> chunks = opened.source->chunks({cx_, cz_, cx_, cz_}, options);
  if (!chunks) return kExitFailure;
  std::cout << chunk_json(chunks->front(), info) << '\n';
  return kExitOk;
}

class RegionCommand final : public Command {
 public:
  CLI::App& declare(CLI::App& parent) override;
  int run() override;

 private:
  int64_t corners_[4] = {0, 0, 0, 0};  // CX0 CZ0 CX1 CZ1
  SourceOptions source_;
  std::string order_ = "rows";
  int threads_ = 1;
  std::optional<int64_t> terrain_;
};

CLI::App& RegionCommand::declare(CLI::App& parent) {
  CLI::App& app = *parent.add_subcommand("region", "a rectangle of chunks as JSON lines");
  set_help(app,
           "usage: chunkforge region CX0 CZ0 CX1 CZ1 [--order rows|spiral|shuffle] [--threads N]\n"
           "                         [--terrain STEP] [--world FILE] [--seed N] [--json]\n"
           "       chunkforge region CX0 CZ0 CX1 CZ1 --server ADDR [--tls] [--tls-ca FILE] [--token-file FILE]\n",
           "Generates chunks CX0..CX1 x CZ0..CZ1 (inclusive), or fetches them from a server one by\n"
           "one, and prints one JSON line per chunk in row order (z outer) whatever the generation\n"
           "order: --order and --threads change only how the work is done, never the bytes, which\n"
           "makes outputs of different orders comparable. At most 65536 chunks.\n");
  add_corner_arguments(app, corners_);
  CLI::Option* server = add_source_options(app, source_);
  // Both shape generation here; with --server the server generates.
  app.add_option("--order", order_, "generation order: rows (default), spiral (centre first), shuffle")
      ->type_name("O")
      ->check(one_of({"rows", "spiral", "shuffle"}))
      ->excludes(server);
  app.add_option("--threads", threads_, "generation threads, 1 to 64 (default 1)")
      ->type_name("N")
      ->transform(integer_in<int64_t>(1, 64))
      ->excludes(server);
  add_terrain_option(app, terrain_, "include each chunk's terrain grid at STEP units");
  app.add_flag("--json")->description("the output is JSON either way");
  return app;
}

// Whether the rectangle lies inside the world and holds at most 65536 chunks; false after
// printing why.
bool region_fits(const Rect& rect, const v1::WorldInfo& info) {
  for (const int64_t c : {rect.x0, rect.z0, rect.x1, rect.z1}) {
    if (!in_world(c, info)) {
      std::cerr << "region: coordinates beyond the supported world (|x|, |z| <= 2^40 units)\n";
      return false;
    }
  }
  if (rect.width() * rect.height() > 65536) {
    std::cerr << "region: at most 65536 chunks at once (got " << rect.width() * rect.height() << ")\n";
    return false;
  }
  return true;
}

int RegionCommand::run() {
  const std::optional<Rect> checked = ordered_rect(corners_, "region");
  if (!checked) return kExitBadInput;
  const Rect& rect = *checked;
  OpenedSource opened = open_source(source_, "region");
  if (!opened.source) return opened.exit_code;
  const v1::WorldInfo& info = opened.source->info();
  RegionOptions options;
  options.order = *parse_order(order_);  // checked at parse by one_of()
  options.threads = threads_;
  const std::optional<int64_t> step = terrain_step(terrain_, info, "region");
  if (!step) return kExitBadInput;
  options.terrain_step = *step;
  if (!region_fits(rect, info)) return kExitBadInput;
  const std::optional<std::vector<v1::Chunk>> chunks = opened.source->chunks(rect, options);
  if (!chunks) return kExitFailure;
  for (const v1::Chunk& chunk : *chunks) std::cout << chunk_json(chunk, info) << '\n';
  return kExitOk;
}

}  // namespace

std::unique_ptr<Command> make_chunk_command() { return std::make_unique<ChunkCommand>(); }
std::unique_ptr<Command> make_region_command() { return std::make_unique<RegionCommand>(); }

}  // namespace chunkforge::tool
