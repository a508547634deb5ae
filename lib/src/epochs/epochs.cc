// Epochs (chunkforge/epochs.h): the list checked, each epoch's land as shown (its elevation
// blended toward older land, seam_blend.h), how far a seam reaches, and a chunk encoded by its
// epoch. The chunk itself is made in epoch_chunk.cc.
#include "chunkforge/epochs.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "chunkforge/encode.h"
#include "epochs/seam_blend.h"

namespace chunkforge {
namespace {

// Names by id must carry over: edits and kept structures refer to ids.
template <typename List>
void check_kept_names(const List& previous, const List& next, const std::string& field, std::vector<FieldError>& out) {
  for (int i = 0; i < previous.size(); ++i) {
    const std::string path = field + "[" + std::to_string(i) + "].name";
    if (i >= next.size()) {
      out.push_back({path, "missing: the previous epoch's " + field + " \"" + previous[i].name() +
                               "\" must stay at index " + std::to_string(i) + " (append new ones after it)"});
    } else if (next[i].name() != previous[i].name()) {
      out.push_back({path, "must stay \"" + previous[i].name() + "\", the previous epoch's (got \"" + next[i].name() +
                               "\"): chunks and edits refer to it by index"});
    }
  }
}

// How far, in chunks, each seam rule reaches from a chunk (Epochs::Reach): a chunk beyond
// `units` of every older chunk is more than ceil(units / size) chunks from it.
Epochs::Reach seam_reach(const std::vector<World>& worlds, double band) {
  const auto size = static_cast<double>(worlds.front().chunk_size());
  int lod = 0;
  double padding = 0, spacing = 0, footprint = 0;
  for (const World& w : worlds) {
    lod = std::max(lod, w.structures().max_lod());
    padding = std::max(padding, w.structures().max_padding());
    for (const ResourceLayer& l : w.resources().all()) {
      spacing = std::max(spacing, l.r_max());
      footprint = std::max(footprint, l.footprint);
    }
  }
  auto chunks = [&](double units) { return static_cast<int64_t>(std::ceil(units / size)); };
  Epochs::Reach reach;
  reach.band = chunks(band);
  // A structure touching the chunk may touch older land across its own extent, or overlap a
  // kept one that does across the kept one's extent (both grown by their paddings), or have its
  // origin within the band of older land; an object may stand within its footprint of a kept
  // structure touching a neighbour.
  const double extent = (lod + 1) * size;
  reach.structures = chunks(std::max(2.0 * extent + 2.0 * padding, extent + band)) + 1;
  reach.objects = chunks(std::max(spacing, 2.0 * footprint));
  reach.all = std::max({reach.band, reach.structures, reach.objects});
  return reach;
}

}  // namespace

std::vector<FieldError> validate_next_epoch(const World& previous, const World& next) {
  std::vector<FieldError> errors;
  if (next.chunk_size() != previous.chunk_size()) {
    errors.push_back({"chunk_size", "must stay " + std::to_string(previous.chunk_size()) +
                                        ", the previous epoch's (got " + std::to_string(next.chunk_size()) +
                                        "): every chunk coordinate would move"});
  }
  check_kept_names(previous.definition().structures(), next.definition().structures(), "structures", errors);
  check_kept_names(previous.definition().resources(), next.definition().resources(), "resources", errors);
  return errors;
}

EpochsResult Epochs::create(std::vector<World> worlds, SeenLand seen, double band) {
  EpochsResult result;
  if (worlds.empty()) {
    result.errors.push_back({"", "a world needs at least one epoch"});
    return result;
  }
  for (size_t e = 1; e < worlds.size(); ++e) {
    for (FieldError& error : validate_next_epoch(worlds[e - 1], worlds[e])) {
      error.path = "epochs[" + std::to_string(e) + "]" + (error.path.empty() ? "" : "." + error.path);
      result.errors.push_back(std::move(error));
    }
  }
  if (seen.epochs() > worlds.size()) {
    result.errors.push_back({"seen", "holds chunks seen in epoch " + std::to_string(seen.epochs() - 1) +
                                         ", beyond the " + std::to_string(worlds.size()) + " epochs given"});
  }
  if (band < 0 || !std::isfinite(band)) result.errors.push_back({"band", "must be a width >= 0 (0: two chunks)"});
  if (!result.errors.empty()) return result;

  auto epochs = std::shared_ptr<Epochs>(new Epochs());
  epochs->band_ = band > 0 ? band : 2.0 * static_cast<double>(worlds.front().chunk_size());
  epochs->reach_ = seam_reach(worlds, epochs->band_);
  epochs->seen_ = std::make_shared<const SeenLand>(std::move(seen));
  for (size_t e = 0; e < worlds.size(); ++e) {
    std::shared_ptr<const ElevationBlend> blend;
    if (e > 0) {
      blend = std::make_shared<epochs::SeamBlend>(*epochs->seen_, static_cast<uint32_t>(e),
                                                  epochs->states_[e - 1].shown.terrain(), worlds[e].chunk_size(),
                                                  epochs->band_);
    }
    World shown = worlds[e].blended(blend);
    epochs->blends_.push_back(std::move(blend));
    epochs->states_.push_back(State{.world = std::move(worlds[e]), .shown = std::move(shown)});
  }
  result.epochs = std::move(epochs);
  return result;
}

uint32_t Epochs::epoch_of(ChunkCoord c) const { return seen_->epoch_of(c).value_or(newest()); }

bool Epochs::newest_generates(ChunkCoord c) const {
  const int64_t r = reach();
  return epoch_of(c) == newest() && !seen_->any_before({c.x - r, c.z - r}, {c.x + r, c.z + r}, newest());
}

SeenLand Epochs::older_land(ChunkCoord lo, ChunkCoord hi) const {
  const int64_t r = reach();
  return seen_->excerpt({lo.x - r, lo.z - r}, {hi.x + r, hi.z + r}, newest());
}

v1::Chunk Epochs::encode(ChunkCoord c, int64_t terrain_step) const {
  const EpochChunk chunk = generate(c);
  v1::Chunk msg = encode_chunk(world(chunk.epoch), chunk.data);
  if (terrain_step > 0) add_terrain(shown(chunk.epoch), terrain_step, msg);
  return msg;
}

}  // namespace chunkforge
