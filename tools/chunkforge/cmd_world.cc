// `chunkforge world upgrade --dry-run`: what adding a world as the next epoch of a store's world
// would do (docs/world-definition.md, "Epochs"): the store's seen land kept, the rest made by
// the new world, blended at the seam. Counts, and a picture of a rectangle as it would be.
// Applying it needs the store's epoch list, which is not built yet: the command says so.
#include <cmath>
#include <iostream>
#include <memory>

#include "args.h"
#include "chunkforge/encode.h"
#include "chunkforge/epochs.h"
#include "chunkforge/quote.h"
#include "commands.h"
#include "edit_store.h"
#include "map_drawing.h"
#include "store_location.h"
#include "world_options.h"

namespace chunkforge::tool {
namespace {

// Where a chunk of the rectangle stands in the upgrade.
struct Tally {
  int64_t kept = 0;    // seen: byte-identical after it
  int64_t seam = 0;    // new land within the seam's reach of seen land
  int64_t beyond = 0;  // new land beyond it: the new world's own
};

Tally tally(const Epochs& epochs, const Rect& rect) {
  Tally t;
  const int64_t reach = epochs.reach();
  for (int64_t z = rect.z0; z <= rect.z1; ++z) {
    for (int64_t x = rect.x0; x <= rect.x1; ++x) {
      if (epochs.epoch_of({x, z}) == 0) {
        ++t.kept;
      } else if (epochs.seen().any_before({x - reach, z - reach}, {x + reach, z + reach}, 1)) {
        ++t.seam;
      } else {
        ++t.beyond;
      }
    }
  }
  return t;
}

// The edges between seen and new chunks, in white.
void draw_seams(Image& image, const Epochs& epochs, const MapFrame& frame) {
  const Rgb white{255, 255, 255};
  const double side = static_cast<double>(frame.chunk_size) * frame.scale;
  const double thickness = std::max(1.0, frame.scale);
  for (int64_t z = frame.rect.z0; z <= frame.rect.z1; ++z) {
    for (int64_t x = frame.rect.x0; x <= frame.rect.x1; ++x) {
      const uint32_t e = epochs.epoch_of({x, z});
      const double px = static_cast<double>(x - frame.rect.x0) * side,
                   pz = static_cast<double>(z - frame.rect.z0) * side;
      if (x < frame.rect.x1 && epochs.epoch_of({x + 1, z}) != e)
        image.outline(px + side, pz, px + side, pz + side, thickness, white);
      if (z < frame.rect.z1 && epochs.epoch_of({x, z + 1}) != e)
        image.outline(px, pz + side, px + side, pz + side, thickness, white);
    }
  }
}

class WorldCommand final : public Command {
 public:
  CLI::App& declare(CLI::App& parent) override;
  int run() override;

 private:
  int preview(const Epochs& epochs, const Rect& rect);

  CLI::App* upgrade_ = nullptr;
  StoreLocation where_;
  std::string from_, to_, out_;
  bool dry_run_ = false;
  double scale_ = 0.25;
  int64_t corners_[4] = {};
};

CLI::App& WorldCommand::declare(CLI::App& parent) {
  CLI::App& app = *parent.add_subcommand("world", "what changing a live world would do to it");
  set_help(app,
           "usage: chunkforge world upgrade CX0 CZ0 CX1 CZ1 (--data DIR | --store URI) --from OLD.json --to NEW.json\n"
           "                                --dry-run [--out FILE.png] [--px-per-unit K]\n",
           "Adding NEW as the next epoch of a world that runs OLD (docs/world-definition.md, \"Epochs\"):\n"
           "the chunks players were sent (the store's seen land) keep their bytes, the rest is NEW's,\n"
           "blended where it meets seen land. --dry-run prints how many chunks of the store and of the\n"
           "rectangle are kept, at the seam and beyond it, and with --out draws the rectangle as it\n"
           "would be, the seams in white. Applying an upgrade is not built yet (the store holds no epoch\n"
           "list): without --dry-run the command says so and changes nothing (exit 2).\n");
  app.require_subcommand(1);
  upgrade_ = app.add_subcommand("upgrade", "what adding a world as the next epoch would do");
  set_help(*upgrade_,
           "usage: chunkforge world upgrade CX0 CZ0 CX1 CZ1 (--data DIR | --store URI) --from OLD.json --to NEW.json\n"
           "                                --dry-run [--out FILE.png] [--px-per-unit K]\n",
           "What adding NEW as the next epoch would do (see chunkforge world --help); --dry-run is\n"
           "required: applying an upgrade is not built yet.\n");
  add_corner_arguments(*upgrade_, corners_);
  add_store_options(*upgrade_, where_);
  upgrade_->add_option("--from", from_, "the world the store's servers run now")->required();
  upgrade_->add_option("--to", to_, "the world to add as the next epoch")->required();
  upgrade_->add_flag("--dry-run", dry_run_, "show what would change; change nothing");
  upgrade_->add_option("--out", out_, "draw the rectangle as it would be")->type_name("FILE.png");
  add_number_option(*upgrade_, "--px-per-unit", scale_,
                    number_where([](double k) { return k >= 1.0 / 64 && k <= 64; }, "a number in [1/64, 64]"),
                    "pixels per world unit, 1/64 to 64 (default 1/4)")
      ->type_name("K");
  return app;
}

int WorldCommand::run() {
  if (!dry_run_) {
    std::cerr << "world upgrade: applying an upgrade is not built yet (the store holds no epoch list; "
                 "docs/world-definition.md, \"Epochs\"): run it with --dry-run to see what it would do\n";
    return kExitBadInput;
  }
  const std::optional<Rect> rect = ordered_rect(corners_, "world upgrade");
  if (!rect) return kExitBadInput;
  // Each chunk is looked up (and, with --out, generated): a bound a typo cannot run past.
  constexpr double kMaxChunks = 1 << 24;
  if (static_cast<double>(rect->width()) * static_cast<double>(rect->height()) > kMaxChunks) {
    std::cerr << "world upgrade: the rectangle has more than " << static_cast<int64_t>(kMaxChunks)
              << " chunks: give a smaller one\n";
    return kExitBadInput;
  }
  WorldResult from = load_world_file(from_), to = load_world_file(to_);
  for (const auto& [path, result] : {std::pair{from_, &from}, std::pair{to_, &to}}) {
    for (const FieldError& e : result->errors) std::cerr << quote_input(path) << ": " << e.to_string() << '\n';
    if (!result->ok()) return kExitBadInput;
  }
  SeenLand seen;
  try {
    seen = server::open_store(where_.location())->seen_land();
  } catch (const server::StoreError& e) {
    std::cerr << "world upgrade: " << e.what() << '\n';
    return kExitFailure;
  }
  const size_t stored = seen.chunks_seen();
  EpochsResult epochs = Epochs::create({std::move(*from.world), std::move(*to.world)}, std::move(seen));
  for (const FieldError& e : epochs.errors) std::cerr << quote_input(to_) << ": " << e.to_string() << '\n';
  if (!epochs.ok()) return kExitBadInput;
  std::cout << "seen land in the store: " << stored << " chunks, kept byte-identical\n";
  return preview(*epochs.epochs, *rect);
}

int WorldCommand::preview(const Epochs& epochs, const Rect& rect) {
  const Tally t = tally(epochs, rect);
  std::cout << "in the rectangle (" << rect.width() * rect.height() << " chunks): " << t.kept << " kept, " << t.seam
            << " new at the seam (within " << epochs.reach() << " chunks of seen land), " << t.beyond
            << " new beyond it\n";
  if (out_.empty()) return kExitOk;
  const MapFrame frame{rect, epochs.world(1).chunk_size(), scale_};
  std::optional<Image> image = map_image(frame, "world upgrade");
  if (!image) return kExitBadInput;
  // Each chunk drawn in its own epoch's colours; structures keep their type's index in both.
  std::vector<v1::Chunk> by_epoch[2];
  const int64_t step = terrain_step_for(scale_, frame.chunk_size);
  for (int64_t z = rect.z0; z <= rect.z1; ++z) {
    for (int64_t x = rect.x0; x <= rect.x1; ++x)
      by_epoch[epochs.epoch_of({x, z})].push_back(epochs.encode({x, z}, step));
  }
  const v1::WorldInfo info[2] = {describe_world(epochs.world(0)), describe_world(epochs.world(1))};
  for (int e = 0; e < 2; ++e) draw_terrain(*image, by_epoch[e], frame, info[e]);
  for (int e = 0; e < 2; ++e) draw_objects(*image, by_epoch[e], frame, info[e]);
  for (const std::vector<v1::Chunk>& chunks : by_epoch) draw_structures(*image, chunks, frame, info[1]);
  draw_seams(*image, epochs, frame);
  return write_map(*image, out_, "world upgrade");
}

}  // namespace

std::unique_ptr<Command> make_world_command() { return std::make_unique<WorldCommand>(); }

}  // namespace chunkforge::tool
