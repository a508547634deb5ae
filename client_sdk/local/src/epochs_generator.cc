// EpochsGenerator: chunks of a world with epochs made as the server makes them, from the older
// land the server sent.
#include "epochs_generator.h"

#include <utility>

#include "chunkforge/lod.h"
#include "local_generator_impl.h"

namespace chunkforge::client {

EpochsGenerator::EpochsGenerator(std::vector<World> worlds, std::shared_ptr<const Epochs> epochs, size_t max_idle)
    : worlds_(std::move(worlds)), max_idle_(max_idle), epochs_(std::move(epochs)) {}

std::vector<uint32_t> EpochsGenerator::generator_versions() const { return local_generator_versions(); }

std::vector<std::string> EpochsGenerator::older_epochs() const {
  std::vector<std::string> out;
  for (size_t e = 0; e + 1 < worlds_.size(); ++e) out.push_back(worlds_[e].fingerprint());
  return out;
}

Status EpochsGenerator::add_older_land(std::string_view bytes) {
  if (bytes.empty()) return {};
  std::string error;
  std::optional<SeenLand> land = SeenLand::decode(bytes, error);
  if (!land) return {StatusCode::data_loss, "older land does not decode: " + error};
  if (land->epochs() >= worlds_.size()) {
    return {StatusCode::data_loss, "older land names epoch " + std::to_string(land->epochs() - 1) +
                                       ", and the world has " + std::to_string(worlds_.size() - 1) + " older epochs"};
  }
  std::lock_guard lock(mutex_);
  SeenLand more = held_;
  more.merge(*land);
  if (more == held_) return {};  // a region sent again
  EpochsResult built = Epochs::create(worlds_, more);
  if (!built.ok()) return {StatusCode::data_loss, "older land: " + built.errors.front().to_string()};
  held_ = std::move(more);
  epochs_ = std::move(built.epochs);
  idle_.clear();  // their memos are of the land before
  return {};
}

EpochsGenerator::Borrowed EpochsGenerator::borrow() {
  std::lock_guard lock(mutex_);
  if (idle_.empty()) return {std::make_unique<EpochStream>(epochs_), epochs_};
  Borrowed out{std::move(idle_.back()), epochs_};
  idle_.pop_back();
  return out;
}

void EpochsGenerator::give_back(Borrowed borrowed) {
  std::lock_guard lock(mutex_);
  if (borrowed.epochs == epochs_ && idle_.size() < max_idle_) idle_.push_back(std::move(borrowed.stream));
}

std::shared_ptr<const v1::Chunk> EpochsGenerator::generate(ChunkCoord coord, const ChunkOptions& options,
                                                           const std::atomic<bool>* abandon) {
  check_chunk_request(worlds_.back(), coord, options);
  Borrowed borrowed = borrow();
  const std::shared_ptr<const Epochs> epochs = borrowed.epochs;
  EpochChunk chunk;
  try {
    chunk = borrowed.stream->generate({coord.x, coord.z}, abandon);
  } catch (const GenerationAbandoned&) {
    return nullptr;  // the stream dropped its memos itself
  }
  give_back(std::move(borrowed));
  return finish_chunk(epochs->world(chunk.epoch), epochs->shown(chunk.epoch), std::move(chunk.data), options);
}

std::shared_ptr<const v1::LodTile> EpochsGenerator::generate_tile(const LodKey& key, const std::atomic<bool>* abandon) {
  try {
    return std::make_shared<const v1::LodTile>(
        lod_tile(worlds_.back(), {static_cast<int>(key.level), key.x, key.z}, abandon));
  } catch (const GenerationAbandoned&) {
    return nullptr;
  }
}

}  // namespace chunkforge::client
