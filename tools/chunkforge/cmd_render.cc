// `chunkforge render`: a rectangle of chunks drawn as a PNG map.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>

#include "args.h"
#include "chunkforge/catalog_colors.h"
#include "chunkforge/encode.h"
#include "commands.h"
#include "png_image.h"
#include "region.h"
#include "source.h"
#include "world_options.h"

namespace chunkforge::tool {
namespace {

constexpr int64_t kMaxPixels = int64_t{1} << 26;  // 64 M pixels, about 200 MB of RGB

// Where the map starts and how many pixels a world unit spans.
struct MapFrame {
  Rect rect;
  int64_t chunk_size;
  double scale;
  // The pixel offset of a chunk's corner along one axis, in world units.
  double origin_x(const v1::Chunk& chunk) const {
    return static_cast<double>((chunk.coord().x() - rect.x0) * chunk_size);
  }
  double origin_z(const v1::Chunk& chunk) const {
    return static_cast<double>((chunk.coord().z() - rect.z0) * chunk_size);
  }
};

// Terrain in its material colours, one grid sample per pixel block.
void draw_terrain(Image& image, const std::vector<v1::Chunk>& chunks, const MapFrame& frame,
                  const v1::WorldInfo& info) {
  const std::vector<Rgb> materials = catalog_colors(info.materials());
  const double side = static_cast<double>(frame.chunk_size), scale = frame.scale;
  for (const v1::Chunk& chunk : chunks) {
    const double ox = frame.origin_x(chunk), oz = frame.origin_z(chunk);
    const v1::TerrainGrid& t = chunk.terrain();
    const double step = t.step();
    for (int py = static_cast<int>(oz * scale); py < static_cast<int>((oz + side) * scale); ++py) {
      for (int px = static_cast<int>(ox * scale); px < static_cast<int>((ox + side) * scale); ++px) {
        const int i = std::clamp(static_cast<int>((px / scale - ox) / step), 0, static_cast<int>(t.size()) - 1);
        const int j = std::clamp(static_cast<int>((py / scale - oz) / step), 0, static_cast<int>(t.size()) - 1);
        const int k = j * static_cast<int>(t.size()) + i;
        image.set(px, py, relief(materials[t.material(k)], t.elevation(k), info.sea_level()));
      }
    }
  }
}

// Objects as discs of their footprint; drawn after all terrain, so none is hidden by a
// neighbouring chunk's ground.
void draw_objects(Image& image, const std::vector<v1::Chunk>& chunks, const MapFrame& frame,
                  const v1::WorldInfo& info) {
  const std::vector<Rgb> layers = catalog_colors(info.resources());
  for (const v1::Chunk& chunk : chunks) {
    const double ox = frame.origin_x(chunk), oz = frame.origin_z(chunk);
    const v1::Objects& o = chunk.objects();
    for (int k = 0; k < o.layer_size(); ++k) {
      const double radius = info.resources(static_cast<int>(o.layer(k))).footprint_radius() * frame.scale;
      image.disc((ox + o.x(k)) * frame.scale, (oz + o.z(k)) * frame.scale, std::max(radius, 0.5), layers[o.layer(k)]);
    }
  }
}

// Structure boxes as outlines in their colours, once each (every chunk they touch has them).
void draw_structures(Image& image, const std::vector<v1::Chunk>& chunks, const MapFrame& frame,
                     const v1::WorldInfo& info) {
  const std::vector<Rgb> structure_colors = catalog_colors(info.structures());
  const double scale = frame.scale;
  std::vector<uint64_t> drawn;
  for (const v1::Chunk& chunk : chunks) {
    for (const v1::StructureInstance& st : chunk.structures()) {
      if (std::find(drawn.begin(), drawn.end(), st.id()) != drawn.end()) continue;
      drawn.push_back(st.id());
      const double x0 = static_cast<double>(st.x() - frame.rect.x0 * frame.chunk_size) * scale;
      const double z0 = static_cast<double>(st.z() - frame.rect.z0 * frame.chunk_size) * scale;
      image.outline(x0, z0, x0 + st.size_x() * scale, z0 + st.size_z() * scale, std::max(1.0, scale / 2),
                    structure_colors[st.type()]);
    }
  }
}

// The terrain step for a scale: one sample per pixel at most (a power of two dividing the
// chunk size).
int64_t terrain_step_for(double scale, int64_t chunk_size) {
  int64_t step = 1;
  while (static_cast<double>(step * 2) <= 1.0 / scale && chunk_size % (step * 2) == 0) step *= 2;
  return step;
}

class RenderCommand final : public Command {
 public:
  CLI::App& declare(CLI::App& parent) override;
  int run() override;

 private:
  int64_t corners_[4] = {0, 0, 0, 0};  // CX0 CZ0 CX1 CZ1
  SourceOptions source_;
  std::string out_;
  double scale_ = 1.0;
  int threads_ = 1;
};

CLI::App& RenderCommand::declare(CLI::App& parent) {
  CLI::App& app = *parent.add_subcommand("render", "a rectangle of chunks as a PNG map");
  set_help(app,
           "usage: chunkforge render CX0 CZ0 CX1 CZ1 --out FILE.png [--px-per-unit K] [--threads N]\n"
           "                         [--world FILE] [--seed N | --server ADDR [--tls] [--tls-ca FILE] [--token-file "
           "FILE]]\n",
           "Draws chunks CX0..CX1 x CZ0..CZ1 (inclusive): terrain in its material colours (lighter\n"
           "higher, darker deeper water), every object as a disc of its footprint in its layer's\n"
           "colour, and every structure's footprint as an outline in its colour. x grows to the right,\n"
           "z downwards. At most 2^26 pixels.\n");
  add_corner_arguments(app, corners_);
  add_source_options(app, source_);
  app.add_option("--out", out_, "the PNG to write")->type_name("FILE")->required();
  add_number_option(app, "--px-per-unit", scale_,
                    number_where([](double k) { return k >= 1.0 / 64 && k <= 64; }, "a number in [1/64, 64]"),
                    "pixels per world unit, 1/64 to 64 (default 1)")
      ->type_name("K");
  app.add_option("--threads", threads_, "generation threads, 1 to 64 (default 1; ignored with --server)")
      ->type_name("N")
      ->transform(integer_in<int64_t>(1, 64));
  return app;
}

int RenderCommand::run() {
  const std::optional<Rect> checked = ordered_rect(corners_, "render");
  if (!checked) return kExitBadInput;
  const Rect& rect = *checked;
  OpenedSource opened = open_source(source_, "render");
  if (!opened.source) return opened.exit_code;
  const v1::WorldInfo& info = opened.source->info();
  const MapFrame frame{rect, info.chunk_size(), scale_};
  const double width = static_cast<double>(rect.width() * frame.chunk_size) * scale_;
  const double height = static_cast<double>(rect.height() * frame.chunk_size) * scale_;
  if (width * height > static_cast<double>(kMaxPixels)) {
    std::cerr << "render: the image would have " << static_cast<int64_t>(width * height) << " pixels; at most "
              << kMaxPixels << " (fewer chunks or a smaller --px-per-unit)\n";
    return kExitBadInput;
  }
  RegionOptions options;
  options.threads = threads_;
  options.terrain_step = terrain_step_for(scale_, frame.chunk_size);
  Image image(static_cast<int>(std::ceil(width)), static_cast<int>(std::ceil(height)));
  const std::optional<std::vector<v1::Chunk>> chunks = opened.source->chunks(rect, options);
  if (!chunks) return kExitFailure;
  draw_terrain(image, *chunks, frame, info);
  draw_objects(image, *chunks, frame, info);
  draw_structures(image, *chunks, frame, info);
  const std::string failure = image.write_png(out_);
  if (!failure.empty()) {
    std::cerr << "render: " << failure << '\n';
    return kExitFailure;
  }
  std::cout << "wrote " << out_ << " (" << image.width() << " x " << image.height() << " px)\n";
  return kExitOk;
}

}  // namespace

std::unique_ptr<Command> make_render_command() { return std::make_unique<RenderCommand>(); }

}  // namespace chunkforge::tool
