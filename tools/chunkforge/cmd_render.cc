// `chunkforge render`: a rectangle of chunks drawn as a PNG map.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>

#include "args.h"
#include "chunkforge/encode.h"
#include "commands.h"
#include "map_drawing.h"
#include "png_image.h"
#include "region.h"
#include "source.h"
#include "world_options.h"

namespace chunkforge::tool {
namespace {

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
  std::optional<Image> image = map_image(frame, "render");
  if (!image) return kExitBadInput;
  RegionOptions options;
  options.threads = threads_;
  options.terrain_step = terrain_step_for(scale_, frame.chunk_size);
  const std::optional<std::vector<v1::Chunk>> chunks = opened.source->chunks(rect, options);
  if (!chunks) return kExitFailure;
  draw_terrain(*image, *chunks, frame, info);
  draw_objects(*image, *chunks, frame, info);
  draw_structures(*image, *chunks, frame, info);
  return write_map(*image, out_, "render");
}

}  // namespace

std::unique_ptr<Command> make_render_command() { return std::make_unique<RenderCommand>(); }

}  // namespace chunkforge::tool
