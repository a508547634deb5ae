// `chunkforge lod`: the LOD view of a player drawn as a PNG, from the tiles lod_view selects
// (chunkforge/lod.h, docs/lod.md): what a renderer would draw from afar, no chunk generated.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <unordered_set>

#include "args.h"
#include "chunkforge/catalog_colors.h"
#include "chunkforge/lod.h"
#include "chunkforge/world_extent.h"
#include "commands.h"
#include "png_image.h"
#include "world_options.h"

namespace chunkforge::tool {
namespace {

// The view's square in world units and the units each pixel spans.
struct ViewFrame {
  double x0, z0, units_per_pixel;
  double to_px(double x) const { return (x - x0) / units_per_pixel; }
  double to_py(double z) const { return (z - z0) / units_per_pixel; }
};

// Paints the pixels whose centre lies in the tile with the lattice sample at or below it.
void draw_tile_terrain(Image& image, const ViewFrame& frame, const v1::LodTile& tile, const std::vector<Rgb>& materials,
                       double sea_level) {
  const double span = static_cast<double>((int64_t{1} << tile.key().level()) * tile.chunk_size());
  const double tx0 = static_cast<double>(tile.key().x()) * span, tz0 = static_cast<double>(tile.key().z()) * span;
  const v1::TerrainGrid& t = tile.terrain();
  const int n = static_cast<int>(t.size());
  const int px0 = std::max(0, static_cast<int>(std::floor(frame.to_px(tx0))));
  const int px1 = std::min(image.width(), static_cast<int>(std::ceil(frame.to_px(tx0 + span))));
  const int py0 = std::max(0, static_cast<int>(std::floor(frame.to_py(tz0))));
  const int py1 = std::min(image.height(), static_cast<int>(std::ceil(frame.to_py(tz0 + span))));
  for (int py = py0; py < py1; ++py) {
    const double wz = frame.z0 + (py + 0.5) * frame.units_per_pixel - tz0;
    if (wz < 0 || wz >= span) continue;
    const int j = std::min(n - 1, static_cast<int>(wz / t.step()));
    for (int px = px0; px < px1; ++px) {
      const double wx = frame.x0 + (px + 0.5) * frame.units_per_pixel - tx0;
      if (wx < 0 || wx >= span) continue;
      const int k = j * n + std::min(n - 1, static_cast<int>(wx / t.step()));
      image.set(px, py, relief(materials[t.material(k)], t.elevation(k), sea_level));
    }
  }
}

// Structure footprints as outlines in their colours, once each; only those at least two pixels
// wide: smaller ones, a hundred to a tile of 16 x 16 chunks, would bury the terrain in dots.
void draw_structures(Image& image, const ViewFrame& frame, const std::vector<v1::LodTile>& tiles, const World& world) {
  const std::vector<Rgb> colors = catalog_colors(world.definition().structures());
  std::unordered_set<uint64_t> drawn;
  for (const v1::LodTile& tile : tiles) {
    for (const v1::StructureInstance& s : tile.structures()) {
      const double w = s.size_x() / frame.units_per_pixel, h = s.size_z() / frame.units_per_pixel;
      if (std::max(w, h) < 2 || !drawn.insert(s.id()).second) continue;
      const double x0 = frame.to_px(static_cast<double>(s.x())), z0 = frame.to_py(static_cast<double>(s.z()));
      image.outline(x0, z0, x0 + w, z0 + h, 1, colors[s.type()]);
    }
  }
}

void draw_tile_border(Image& image, const ViewFrame& frame, const v1::LodTile& tile) {
  const double span = static_cast<double>((int64_t{1} << tile.key().level()) * tile.chunk_size());
  const double x0 = frame.to_px(static_cast<double>(tile.key().x()) * span);
  const double z0 = frame.to_py(static_cast<double>(tile.key().z()) * span);
  image.outline(x0, z0, x0 + span / frame.units_per_pixel, z0 + span / frame.units_per_pixel, 1, Rgb{20, 20, 20});
}

class LodCommand final : public Command {
 public:
  CLI::App& declare(CLI::App& parent) override;
  int run() override;

 private:
  WorldOptions world_;
  double x_ = 0, z_ = 0;
  int64_t radius_ = 1024;
  int64_t size_ = 1024;
  double split_tiles_ = LodRings{}.split_tiles;
  std::string out_;
  bool borders_ = false;
};

CLI::App& LodCommand::declare(CLI::App& parent) {
  CLI::App& app = *parent.add_subcommand("lod", "a player's LOD view as a PNG, from tiles sampled, not generated");
  set_help(app,
           "usage: chunkforge lod --out FILE.png [--x X] [--z Z] [--radius CHUNKS] [--size PX] [--split-tiles K]\n"
           "                      [--tile-borders] [--world FILE] [--seed N]\n",
           "Draws the LOD tiles a player at world (X, Z) needs to see RADIUS chunks around its chunk\n"
           "(docs/lod.md): fine tiles near it, coarser ones farther out, each tile's terrain lattice\n"
           "in its material colours (lighter higher, darker deeper water) and, from the fine tiles,\n"
           "structure footprints at least two pixels wide as outlines. x grows to the right, z downwards; the player's "
           "chunk\n"
           "is at the centre. Prints the tiles per level and their encoded bytes.\n");
  add_world_options(app, world_);
  const CLI::Validator in_world = number_where([](double v) { return std::abs(v) <= static_cast<double>(kWorldUnits); },
                                               "within [-2^40, 2^40] world units");
  add_number_option(app, "--x", x_, in_world, "the player's world x (default 0)")->type_name("X");
  add_number_option(app, "--z", z_, in_world, "the player's world z (default 0)")->type_name("Z");
  app.add_option("--radius", radius_, "chunks seen around the player's chunk, 1 to 65536 (default 1024)")
      ->type_name("CHUNKS")
      ->transform(integer_in<int64_t>(1, 65536));
  app.add_option("--size", size_, "the image's side in pixels, 64 to 8192 (default 1024)")
      ->type_name("PX")
      ->transform(integer_in<int64_t>(64, 8192));
  add_number_option(app, "--split-tiles", split_tiles_,
                    number_where([](double k) { return k >= 1 && k <= 8; }, "a number in [1, 8]"),
                    "LodRings::split_tiles: split a tile nearer than K of its tiles, 1 to 8 (default 1.5)")
      ->type_name("K");
  app.add_option("--out", out_, "the PNG to write")->type_name("FILE")->required();
  app.add_flag("--tile-borders", borders_, "outline every tile, to show the rings");
  return app;
}

int LodCommand::run() {
  const std::optional<World> world = load_world(world_);
  if (!world) return kExitBadInput;
  const int64_t cs = world->chunk_size();
  const std::vector<LodKey> keys = lod_view(cs, x_, z_, radius_, LodRings{split_tiles_, -1});
  const uint32_t size = static_cast<uint32_t>(cs);
  const double side = static_cast<double>((2 * radius_ + 1) * cs);
  const ViewFrame frame{static_cast<double>((chunk_coordinate(x_, size) - radius_) * cs),
                        static_cast<double>((chunk_coordinate(z_, size) - radius_) * cs),
                        side / static_cast<double>(size_)};
  Image image(static_cast<int>(size_), static_cast<int>(size_));
  const std::vector<Rgb> materials = catalog_colors(world->definition().materials());
  std::vector<v1::LodTile> tiles;
  std::map<int, std::pair<int, size_t>> per_level;  // tiles and bytes
  for (const LodKey& key : keys) {
    tiles.push_back(lod_tile(*world, key));
    auto& [count, bytes] = per_level[key.level];
    ++count;
    bytes += tiles.back().ByteSizeLong();
    draw_tile_terrain(image, frame, tiles.back(), materials, world->definition().terrain().sea_level());
  }
  draw_structures(image, frame, tiles, *world);
  if (borders_) {
    for (const v1::LodTile& tile : tiles) draw_tile_border(image, frame, tile);
  }
  if (const std::string failure = image.write_png(out_); !failure.empty()) {
    std::cerr << "lod: " << failure << '\n';
    return kExitFailure;
  }
  size_t total = 0;
  for (const auto& [level, entry] : per_level) {
    std::cout << "level " << level << ": " << entry.first << " tiles, " << entry.second << " bytes\n";
    total += entry.second;
  }
  std::cout << "wrote " << out_ << " (" << image.width() << " x " << image.height() << " px): " << tiles.size()
            << " tiles, " << total << " bytes encoded\n";
  return kExitOk;
}

}  // namespace

std::unique_ptr<Command> make_lod_command() { return std::make_unique<LodCommand>(); }

}  // namespace chunkforge::tool
