// The BaseGenerator make_local_generator returns for a world that changed after launch
// (docs/client-generation.md, "Worlds that changed"): every epoch's world, and the older land
// the server sent beside the keys, from which it makes each chunk as the server's Epochs does:
// older land with its epoch's generator, new land at a seam blended. The land it holds only
// grows (what the server sent near where the player went, 52 bytes a region and epoch); each
// time it grows, the library's Epochs is built again, and the streams of the old one retire.
// Private to chunkforge::client_local.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "chunkforge/client/local_generator.h"
#include "chunkforge/epochs.h"
#include "chunkforge/world.h"

namespace chunkforge::client {

class EpochsGenerator final : public BaseGenerator {
 public:
  // `worlds`: every epoch, oldest first (each one following the one before it: Epochs::create
  // accepts them). `max_idle`: streams kept for reuse between calls.
  EpochsGenerator(std::vector<World> worlds, std::shared_ptr<const Epochs> epochs, size_t max_idle);

  std::vector<uint32_t> generator_versions() const override;
  std::string fingerprint() const override { return worlds_.back().fingerprint(); }
  std::vector<std::string> older_epochs() const override;
  Status add_older_land(std::string_view bytes) override;
  std::shared_ptr<const v1::Chunk> generate(ChunkCoord coord, const ChunkOptions& options,
                                            const std::atomic<bool>* abandon = nullptr) override;
  // Tiles draw the newest epoch's world, as the server's do.
  bool generates_tiles() const override { return true; }
  std::shared_ptr<const v1::LodTile> generate_tile(const LodKey& key,
                                                   const std::atomic<bool>* abandon = nullptr) override;

 private:
  // A stream of the current Epochs (an idle one, or a new one), with that Epochs.
  struct Borrowed {
    std::unique_ptr<EpochStream> stream;
    std::shared_ptr<const Epochs> epochs;
  };
  Borrowed borrow();
  // Kept for the next call if its Epochs is still the current one and fewer than max_idle_ wait.
  void give_back(Borrowed borrowed);

  const std::vector<World> worlds_;
  const size_t max_idle_;
  mutable std::mutex mutex_;
  SeenLand held_;                                   // the older land sent so far
  std::shared_ptr<const Epochs> epochs_;            // built from worlds_ and held_
  std::vector<std::unique_ptr<EpochStream>> idle_;  // of epochs_
};

}  // namespace chunkforge::client
