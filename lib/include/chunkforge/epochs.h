// File: chunkforge/epochs.h
//
// A world that changed after launch (docs/world-definition.md, "Epochs"): an ordered list of
// epochs, each a world definition with its generator version, and the record of which chunks
// players saw in which epoch (chunkforge/seen_land.h). A chunk seen while epoch e was the
// newest belongs to epoch e forever; a chunk nobody saw belongs to the newest epoch. Where
// land of a newer epoch meets older land:
//   - its terrain's elevation is blended across a band toward the older land (no cliff);
//   - a structure stands in the epoch where it was planned: one of an older epoch that touches
//     older land is kept whole, also where it reaches newer land; one of the newer epoch that
//     touches older land, or overlaps a kept one, is not built;
//   - a newer object is not placed within its layer's spacing (or the footprints' sum) of an
//     object on older land, nor on a kept structure.
// Each rule looks only at chunks of older epochs, whose set never changes once a newer epoch
// exists, so a chunk is a pure function of (epochs, seen land, coordinate): the same bytes on
// every replica, in any order, and a seen chunk keeps its bytes when an epoch is added.
//
//   EpochsResult r = Epochs::create({old_world, new_world}, seen);
//   if (!r.ok()) { for (auto& e : r.errors) std::cerr << e.to_string() << '\n'; return 2; }
//   EpochChunk c = r.epochs->generate({3, -2});          // c.epoch, c.data
//   v1::Chunk msg = r.epochs->encode({3, -2}, /*terrain_step=*/4);
//   EpochStream stream(r.epochs);                        // chunk after chunk, memo shared
//   for (ChunkCoord c : spiral) send(stream.generate(c));
//
// Thread safety: Epochs is immutable once created; every method may run on any number of
// threads. An EpochStream is one thread's (as ChunkStream).
// Cost: a chunk with no older land within reach costs what its epoch's generator does plus a
// few lookups in the seen-land record; a chunk at a seam also plans the older epoch's
// structures and generates the older chunks beside it (docs/world-definition.md, "Epochs",
// gives the figures).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "chunkforge/chunk.h"
#include "chunkforge/seen_land.h"
#include "chunkforge/v1/chunk.pb.h"
#include "chunkforge/world.h"

namespace chunkforge {

struct EpochChunk {
  uint32_t epoch = 0;
  ChunkData data;
};

class Epochs;

struct EpochsResult {
  std::shared_ptr<const Epochs> epochs;
  std::vector<FieldError> errors;
  bool ok() const { return epochs != nullptr; }
};

// Whether `next` may follow `previous` as a world's next epoch: the same chunk size, and every
// structure type and resource layer of `previous` still there under its id and name (edits
// and kept structures refer to them). Errors name the field in `next`.
std::vector<FieldError> validate_next_epoch(const World& previous, const World& next);

class Epochs {
 public:
  // `worlds`: the epochs, oldest first (at least one), each following the one before it
  // (validate_next_epoch). `seen`: no chunk in an epoch beyond the list. `band`: the seam's
  // width in world units; 0 takes two chunks.
  static EpochsResult create(std::vector<World> worlds, SeenLand seen, double band = 0);

  uint32_t newest() const { return static_cast<uint32_t>(states_.size() - 1); }
  // The epoch chunk c belongs to: the one it was first seen in, or the newest.
  uint32_t epoch_of(ChunkCoord c) const;
  // Whether chunk c is exactly the newest epoch's generator's chunk: of the newest epoch, with
  // no older land within reach(). What a client that holds only the newest world makes alone.
  bool newest_generates(ChunkCoord c) const;
  // Epoch e's world as defined: its catalogue, its fingerprint, the decisions of its generator.
  const World& world(uint32_t e) const { return states_[e].world; }
  // Epoch e's land as shown: its elevation blended toward the land of older epochs.
  const World& shown(uint32_t e) const { return states_[e].shown; }
  const SeenLand& seen() const { return *seen_; }
  double band() const { return band_; }
  // How far (in chunks, Chebyshev) each seam rule reaches: a chunk with no older land within
  // reach() is exactly its epoch's generator's chunk.
  struct Reach {
    int64_t band = 0;        // the elevation's blend
    int64_t structures = 0;  // a structure touching older land, or one kept that does
    int64_t objects = 0;     // an object within its spacing or two footprints of an older one
    int64_t all = 0;
  };
  const Reach& reaches() const { return reach_; }
  int64_t reach() const { return reach_.all; }
  // All a holder of every epoch's world needs besides to make the chunks of [lo, hi] (inclusive
  // corners) exactly: the older epochs' maps of every region within reach() of them. An Epochs
  // created with the same worlds and any seen land holding these maps (land of the newest epoch,
  // or older land further away, changes none of those chunks) makes the same bytes for them.
  SeenLand older_land(ChunkCoord lo, ChunkCoord hi) const;
  // Epoch e's elevation blend toward older land (null for epoch 0).
  const ElevationBlend* blend(uint32_t e) const { return blends_[e].get(); }

  // Chunk c of its epoch. `abandon`: as Generator::generate.
  EpochChunk generate(ChunkCoord c, const std::atomic<bool>* abandon = nullptr) const;
  // The chunk encoded by its epoch's world, with its terrain grid at `terrain_step` (0: none)
  // from the land as shown.
  v1::Chunk encode(ChunkCoord c, int64_t terrain_step = 0) const;

 private:
  struct State {
    World world;  // the epoch's definition
    World shown;  // the same, elevation blended toward older land
  };
  Epochs() = default;

  std::vector<State> states_;
  std::shared_ptr<const SeenLand> seen_;
  std::vector<std::shared_ptr<const ElevationBlend>> blends_;
  double band_ = 0;
  Reach reach_;
};

// Chunks of a world with epochs one after another, sharing the memos of the seam's work (the
// older epoch's planned structures, the older chunks beside a seam) and each epoch's
// ChunkStream: byte-identical to Epochs::generate whatever the order. Not thread-safe; the
// memos are bounded and start afresh when full.
class EpochStream {
 public:
  explicit EpochStream(std::shared_ptr<const Epochs> epochs);
  ~EpochStream();
  EpochStream(const EpochStream&) = delete;
  EpochStream& operator=(const EpochStream&) = delete;
  // As Epochs::generate. An abandoned generation drops the memos (they may be half built).
  EpochChunk generate(ChunkCoord c, const std::atomic<bool>* abandon = nullptr);

 private:
  class Work;
  std::shared_ptr<const Epochs> epochs_;
  std::unique_ptr<Work> work_;
};

}  // namespace chunkforge
