// File: server/store/world_epochs.h
//
// A store's world as a list of epochs (docs/world-definition.md, "Epochs"): each epoch's world
// file kept whole in the store's metadata, oldest first, the store bound to the newest
// (kWorldFingerprintKey). `chunkforge world upgrade` appends one; a server reads them at
// start-up and serves them with the store's seen land.
//
//   std::string why = add_epoch(store, {old_json, old_world}, {new_json, new_world});
//   EpochsLoad l = load_epochs(store, world);   // l.epochs null: the store never changed world
//
// Text, not the resolved definition: a world file read again is the same World (fingerprint
// and all), which a definition printed by protobuf need not be (an explicit 0 reads back as
// absent, and absent takes the default).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "chunkforge/epochs.h"
#include "chunkforge/world.h"
#include "edit_store.h"

namespace chunkforge::server {

// The metadata keys: how many epochs are stored (absent or "0": none, the store's world never
// changed), and epoch i's world file.
inline constexpr char kWorldEpochsKey[] = "world_epochs";
std::string world_epoch_key(size_t i);

// A world file's text and the World it makes.
struct WorldFile {
  std::string json;
  World world;
};

// The stored epochs, oldest first (none when the world never changed), or why they cannot be
// read. `meta` reads a metadata key (the store's, or a transaction's).
struct StoredEpochs {
  std::vector<WorldFile> epochs;
  std::string error;
};
StoredEpochs read_epochs(const std::function<std::optional<std::string>(const std::string&)>& meta);

// Adds `next` as the newest epoch of the store's world, which must be `current` (the world its
// servers run, bound to the store): in one transaction, every chunk with stored changes is
// marked seen in the current epoch (its edits stay against that base), the epochs stored and
// the store bound to `next`. Returns why nothing changed, or "".
std::string add_epoch(EditStore& store, const WorldFile& current, const WorldFile& next);

// The epochs a server bound to `world` serves, with the store's seen land: null when the store
// holds none (the world never changed). `error` says why they cannot be served.
struct EpochsLoad {
  std::shared_ptr<const Epochs> epochs;
  std::string error;
};
EpochsLoad load_epochs(EditStore& store, const World& world);

}  // namespace chunkforge::server
