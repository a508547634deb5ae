// `chunkforge world upgrade`: adding a world as the next epoch of a store's world
// (docs/world-definition.md, "Epochs"): the store's seen land kept, the rest made by the new
// world, blended at the seam. Counts and a picture of a rectangle as it would be (--dry-run),
// then the epoch added to the store, which its servers serve once restarted with the new world.
#include <cmath>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "args.h"
#include "chunkforge/encode.h"
#include "chunkforge/epochs.h"
#include "chunkforge/quote.h"
#include "commands.h"
#include "edit_store.h"
#include "map_drawing.h"
#include "store_location.h"
#include "world_epochs.h"
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
  for (int64_t z = rect.z0; z <= rect.z1; ++z) {
    for (int64_t x = rect.x0; x <= rect.x1; ++x) {
      if (epochs.epoch_of({x, z}) < epochs.newest()) {
        ++t.kept;
      } else if (!epochs.newest_generates({x, z})) {
        ++t.seam;
      } else {
        ++t.beyond;
      }
    }
  }
  return t;
}

// A world file as text and the World it makes; nullopt after printing why.
std::optional<server::WorldFile> read_world(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) {
    std::cerr << quote_input(path) << ": cannot be read\n";
    return std::nullopt;
  }
  WorldResult r = load_world_json(text.str());
  for (const FieldError& e : r.errors) std::cerr << quote_input(path) << ": " << e.to_string() << '\n';
  if (!r.ok()) return std::nullopt;
  return server::WorldFile{text.str(), std::move(*r.world)};
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

// The store's side of an upgrade: the world it is bound to, its epochs so far, and its seen
// land with every edited chunk marked as the upgrade marks it (seen in the current epoch).
struct StoreLand {
  std::unique_ptr<server::EditStore> store;
  std::optional<std::string> bound;
  std::vector<World> worlds;
  SeenLand seen;
  size_t seen_chunks = 0;  // recorded seen, before the edited ones are marked
};

// nullopt after printing why.
std::optional<StoreLand> read_store_land(const std::string& location) {
  StoreLand land;
  try {
    land.store = server::open_store(location);
    land.bound = land.store->meta(server::kWorldFingerprintKey);
    server::StoredEpochs stored = server::read_epochs([&](const std::string& key) { return land.store->meta(key); });
    if (!stored.error.empty()) {
      std::cerr << "world upgrade: " << stored.error << '\n';
      return std::nullopt;
    }
    for (server::WorldFile& f : stored.epochs) land.worlds.push_back(std::move(f.world));
    land.seen = land.store->seen_land();
    land.seen_chunks = land.seen.chunks_seen();
    const auto current = static_cast<uint32_t>(land.worlds.empty() ? 0 : land.worlds.size() - 1);
    for (const auto& [chunk, version] : land.store->versions()) land.seen.mark(chunk, current);
  } catch (const server::StoreError& e) {
    std::cerr << "world upgrade: " << e.what() << '\n';
    return std::nullopt;
  }
  return land;
}

class WorldCommand final : public Command {
 public:
  CLI::App& declare(CLI::App& parent) override;
  int run() override;

 private:
  int preview(const Epochs& epochs, const Rect& rect);
  int apply(server::EditStore& store, const server::WorldFile& from, const server::WorldFile& to, uint32_t epoch);

  CLI::App* upgrade_ = nullptr;
  StoreLocation where_;
  std::string from_, to_, out_;
  bool dry_run_ = false;
  double scale_ = 0.25;
  int64_t corners_[4] = {};
};

CLI::App& WorldCommand::declare(CLI::App& parent) {
  CLI::App& app = *parent.add_subcommand("world", "change a live world: add an epoch");
  const char* usage =
      "usage: chunkforge world upgrade CX0 CZ0 CX1 CZ1 (--data DIR | --store URI) --from OLD.json --to NEW.json\n"
      "                                [--dry-run] [--out FILE.png] [--px-per-unit K]\n";
  set_help(app, usage,
           "Adds NEW as the next epoch of a store's world, which runs OLD (docs/world-definition.md,\n"
           "\"Epochs\"): the chunks players were sent (the store's seen land) and every edited chunk keep\n"
           "their bytes, the rest is NEW's, blended where it meets older land. It prints how many\n"
           "chunks of the store and of the rectangle are kept, at the seam and beyond it, and with --out\n"
           "draws the rectangle as it would be, the seams in white; --dry-run stops there. Otherwise the\n"
           "epoch is added in one transaction, and the servers serve it once restarted with NEW as\n"
           "--world (until then what they send is no longer recorded: restart them promptly).\n");
  app.require_subcommand(1);
  upgrade_ = app.add_subcommand("upgrade", "add a world as the next epoch (--dry-run: only show what changes)");
  set_help(*upgrade_, usage, "See chunkforge world --help.\n");
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
  const std::optional<Rect> rect = ordered_rect(corners_, "world upgrade");
  if (!rect) return kExitBadInput;
  // Each chunk is looked up (and, with --out, generated): a bound a typo cannot run past.
  constexpr double kMaxChunks = 1 << 24;
  if (static_cast<double>(rect->width()) * static_cast<double>(rect->height()) > kMaxChunks) {
    std::cerr << "world upgrade: the rectangle has more than " << static_cast<int64_t>(kMaxChunks)
              << " chunks: give a smaller one\n";
    return kExitBadInput;
  }
  std::optional<server::WorldFile> from = read_world(from_), to = read_world(to_);
  if (!from || !to) return kExitBadInput;
  std::optional<StoreLand> land = read_store_land(where_.location());
  if (!land) return kExitFailure;
  if (land->bound && *land->bound != from->world.fingerprint()) {
    std::cerr << "world upgrade: the store runs the world with fingerprint " << *land->bound << ", not --from's "
              << from->world.fingerprint() << ": give the world its servers run now\n";
    return kExitBadInput;
  }
  std::vector<World> worlds = std::move(land->worlds);
  if (worlds.empty()) worlds.push_back(from->world);
  worlds.push_back(to->world);
  const size_t stored_chunks = land->seen_chunks, edited_only = land->seen.chunks_seen() - stored_chunks;
  EpochsResult epochs = Epochs::create(std::move(worlds), std::move(land->seen));
  for (const FieldError& e : epochs.errors) std::cerr << quote_input(to_) << ": " << e.to_string() << '\n';
  if (!epochs.ok()) return kExitBadInput;
  std::cout << "seen land in the store: " << stored_chunks << " chunks, and " << edited_only
            << " more edited unseen: kept byte-identical\n";
  if (const int code = preview(*epochs.epochs, *rect); code != kExitOk || dry_run_) return code;
  return apply(*land->store, *from, *to, epochs.epochs->newest());
}

int WorldCommand::apply(server::EditStore& store, const server::WorldFile& from, const server::WorldFile& to,
                        uint32_t epoch) {
  std::string error;
  try {
    error = server::add_epoch(store, from, to);
  } catch (const server::StoreError& e) {
    std::cerr << "world upgrade: " << e.what() << " (nothing changed)\n";
    return kExitFailure;
  }
  if (!error.empty()) {
    std::cerr << "world upgrade: " << error << " (nothing changed)\n";
    return kExitBadInput;
  }
  std::cout << "added epoch " << epoch << " (the world with fingerprint " << to.world.fingerprint()
            << "): restart the servers with it as --world\n";
  return kExitOk;
}

int WorldCommand::preview(const Epochs& epochs, const Rect& rect) {
  const Tally t = tally(epochs, rect);
  std::cout << "in the rectangle (" << rect.width() * rect.height() << " chunks): " << t.kept << " kept, " << t.seam
            << " new at the seam (within " << epochs.reach() << " chunks of seen land), " << t.beyond
            << " new beyond it\n";
  if (out_.empty()) return kExitOk;
  const MapFrame frame{rect, epochs.world(0).chunk_size(), scale_};
  std::optional<Image> image = map_image(frame, "world upgrade");
  if (!image) return kExitBadInput;
  // Each chunk drawn in its own epoch's colours; structures keep their type's index in every one.
  std::vector<std::vector<v1::Chunk>> by_epoch(epochs.newest() + 1);
  const int64_t step = terrain_step_for(scale_, frame.chunk_size);
  for (int64_t z = rect.z0; z <= rect.z1; ++z) {
    for (int64_t x = rect.x0; x <= rect.x1; ++x)
      by_epoch[epochs.epoch_of({x, z})].push_back(epochs.encode({x, z}, step));
  }
  std::vector<v1::WorldInfo> info;
  for (uint32_t e = 0; e <= epochs.newest(); ++e) info.push_back(describe_world(epochs.world(e)));
  for (size_t e = 0; e < info.size(); ++e) draw_terrain(*image, by_epoch[e], frame, info[e]);
  for (size_t e = 0; e < info.size(); ++e) draw_objects(*image, by_epoch[e], frame, info[e]);
  for (const std::vector<v1::Chunk>& chunks : by_epoch) draw_structures(*image, chunks, frame, info.back());
  draw_seams(*image, epochs, frame);
  return write_map(*image, out_, "world upgrade");
}

}  // namespace

std::unique_ptr<Command> make_world_command() { return std::make_unique<WorldCommand>(); }

}  // namespace chunkforge::tool
