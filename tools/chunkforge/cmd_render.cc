#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>

#include "chunkforge/encode.h"
#include "commands.h"
#include "png_image.h"
#include "region.h"
#include "source.h"
#include "world_options.h"

namespace chunkforge::tool {
namespace {

constexpr int64_t kMaxPixels = int64_t{1} << 26;  // 64 M pixels, about 200 MB of RGB

std::vector<Rgb> colors_of(const google::protobuf::RepeatedPtrField<v1::CatalogEntry>& entries) {
  std::vector<Rgb> out;
  for (const v1::CatalogEntry& e : entries) out.push_back(parse_color(e.color()).value_or(Rgb{255, 0, 255}));
  return out;
}

// Terrain colour with a little relief: lighter where higher, darker water where deeper.
Rgb shade(Rgb c, double elevation, double sea_level) {
  const double f = elevation < sea_level ? std::clamp(1.0 + (elevation - sea_level) / 60.0, 0.55, 1.0)
                                         : std::clamp(0.85 + (elevation - sea_level) / 200.0, 0.85, 1.1);
  auto channel = [f](uint8_t v) { return static_cast<uint8_t>(std::clamp(v * f, 0.0, 255.0)); };
  return Rgb{channel(c.r), channel(c.g), channel(c.b)};
}

int run(const std::vector<std::string>& words) {
  std::string error;
  auto args = parse_args(words, with_source_options({{"--out", "--px-per-unit", "--threads"}, {}}), error);
  std::optional<int64_t> c[4];
  if (args && args->positional.size() == 4) {
    for (int k = 0; k < 4; ++k) c[k] = parse_int(args->positional[k]);
  }
  if (!args || !c[0] || !c[1] || !c[2] || !c[3] || *c[2] < *c[0] || *c[3] < *c[1] || !args->value("--out")) {
    std::cerr << "render: "
              << (error.empty() ? "needs integer CX0 CZ0 CX1 CZ1 (CX0 <= CX1, CZ0 <= CZ1) and --out FILE.png" : error)
              << '\n' << kRenderCommand.help;
    return kExitBadInput;
  }
  double scale = 1.0;
  if (const std::string* text = args->value("--px-per-unit")) {
    char* end = nullptr;
    scale = std::strtod(text->c_str(), &end);
    if (end == text->c_str() || *end != '\0' || !(scale >= 1.0 / 64 && scale <= 64)) {
      std::cerr << "render: --px-per-unit must be a number in [1/64, 64] (got \"" << *text << "\")\n";
      return kExitBadInput;
    }
  }
  RegionOptions options;
  if (const std::string* text = args->value("--threads")) {
    const std::optional<int64_t> t = parse_int(*text);
    if (!t || *t < 1 || *t > 64) {
      std::cerr << "render: --threads must be in [1, 64]\n";
      return kExitBadInput;
    }
    options.threads = static_cast<int>(*t);
  }
  OpenedSource opened = open_source(*args, "render");
  if (!opened.source) return opened.exit_code;
  const v1::WorldInfo& info = opened.source->info();
  const Rect rect{*c[0], *c[1], *c[2], *c[3]};
  const int64_t size = info.chunk_size();
  const double side = static_cast<double>(size);
  const double width = static_cast<double>(rect.width() * size) * scale;
  const double height = static_cast<double>(rect.height() * size) * scale;
  if (width * height > static_cast<double>(kMaxPixels)) {
    std::cerr << "render: the image would have " << static_cast<int64_t>(width * height)
              << " pixels; at most " << kMaxPixels << " (fewer chunks or a smaller --px-per-unit)\n";
    return kExitBadInput;
  }
  // Terrain step: one sample per pixel at most (a power of two dividing the chunk size).
  options.terrain_step = 1;
  while (static_cast<double>(options.terrain_step * 2) <= 1.0 / scale && size % (options.terrain_step * 2) == 0) {
    options.terrain_step *= 2;
  }

  const std::vector<Rgb> materials = colors_of(info.materials()), layers = colors_of(info.resources());
  Image image(static_cast<int>(std::ceil(width)), static_cast<int>(std::ceil(height)));
  const std::optional<std::vector<v1::Chunk>> fetched = opened.source->chunks(rect, options);
  if (!fetched) return kExitFailure;
  const std::vector<v1::Chunk>& chunks = *fetched;
  for (const v1::Chunk& chunk : chunks) {
    const double ox = static_cast<double>((chunk.coord().x() - rect.x0) * size);
    const double oz = static_cast<double>((chunk.coord().z() - rect.z0) * size);
    const v1::TerrainGrid& t = chunk.terrain();
    const double step = t.step();
    for (int py = static_cast<int>(oz * scale); py < static_cast<int>((oz + side) * scale); ++py) {
      for (int px = static_cast<int>(ox * scale); px < static_cast<int>((ox + side) * scale); ++px) {
        const int i = std::clamp(static_cast<int>((px / scale - ox) / step), 0, static_cast<int>(t.size()) - 1);
        const int j = std::clamp(static_cast<int>((py / scale - oz) / step), 0, static_cast<int>(t.size()) - 1);
        const int k = j * static_cast<int>(t.size()) + i;
        image.set(px, py, shade(materials[t.material(k)], t.elevation(k), info.sea_level()));
      }
    }
  }
  // Objects on top, after all terrain, so none is hidden by a neighbouring chunk's ground.
  for (const v1::Chunk& chunk : chunks) {
    const double ox = static_cast<double>((chunk.coord().x() - rect.x0) * size);
    const double oz = static_cast<double>((chunk.coord().z() - rect.z0) * size);
    const v1::Objects& o = chunk.objects();
    for (int k = 0; k < o.layer_size(); ++k) {
      const double radius = info.resources(static_cast<int>(o.layer(k))).footprint_radius() * scale;
      image.disc((ox + o.x(k)) * scale, (oz + o.z(k)) * scale, std::max(radius, 0.5), layers[o.layer(k)]);
    }
  }
  // Structure boxes as outlines in their colours, once each (every chunk they touch has them).
  const std::vector<Rgb> structure_colors = colors_of(info.structures());
  std::vector<uint64_t> drawn;
  for (const v1::Chunk& chunk : chunks) {
    for (const v1::StructureInstance& st : chunk.structures()) {
      if (std::find(drawn.begin(), drawn.end(), st.id()) != drawn.end()) continue;
      drawn.push_back(st.id());
      const double x0 = static_cast<double>(st.x() - rect.x0 * size) * scale;
      const double z0 = static_cast<double>(st.z() - rect.z0 * size) * scale;
      image.outline(x0, z0, x0 + st.size_x() * scale, z0 + st.size_z() * scale, std::max(1.0, scale / 2),
                    structure_colors[st.type()]);
    }
  }
  const std::string failure = image.write_png(*args->value("--out"));
  if (!failure.empty()) {
    std::cerr << "render: " << failure << '\n';
    return kExitFailure;
  }
  std::cout << "wrote " << *args->value("--out") << " (" << image.width() << " x " << image.height() << " px)\n";
  return kExitOk;
}

}  // namespace

const Command kRenderCommand{
    "render", "a rectangle of chunks as a PNG map",
    "usage: chunkforge render CX0 CZ0 CX1 CZ1 --out FILE.png [--px-per-unit K] [--threads N]\n"
    "                         [--world FILE] [--seed N | --server ADDR [--tls] [--tls-ca FILE] [--token-file FILE]]\n"
    "\n"
    "Draws chunks CX0..CX1 x CZ0..CZ1 (inclusive): terrain in its material colours (lighter\n"
    "higher, darker deeper water), every object as a disc of its footprint in its layer's\n"
    "colour, and every structure's footprint as an outline in its colour. x grows to the right,\n"
    "z downwards.\n"
    "\n"
    "options:\n" +
        kWorldOptionsHelp + kServerOptionsHelp +
        "  --out FILE     the PNG to write (required)\n"
        "  --px-per-unit K  pixels per world unit, 1/64 to 64 (default 1)\n"
        "  --threads N    generation threads (default 1; ignored with --server)\n",
    run};

}  // namespace chunkforge::tool
