// The store's epoch list: read from its metadata, appended by an upgrade, loaded for a server.
#include "world_epochs.h"

#include <charconv>

#include "chunkforge/world_limits.h"

namespace chunkforge::server {
namespace {

// A stored count: digits only, at most a list a metadata table can hold.
std::optional<size_t> parse_count(const std::string& text) {
  size_t n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || n > 4096) return std::nullopt;
  return n;
}

std::string joined(const std::vector<FieldError>& errors) {
  std::string out;
  for (const FieldError& e : errors) out += (out.empty() ? "" : "; ") + e.to_string();
  return out;
}

// Every chunk with stored changes, marked seen in `epoch`, one map a region.
void mark_edited_chunks(EditStore& store, EditStore::Transaction& tx, uint32_t epoch) {
  SeenLand edited;
  for (const auto& [chunk, version] : store.versions()) edited.mark(chunk, epoch);
  edited.for_each_map(
      [&](int64_t x, int64_t z, uint32_t e, const SeenLand::Bits& bits) { tx.merge_seen(x, z, e, bits); });
}

}  // namespace

std::string world_epoch_key(size_t i) { return "world_epoch." + std::to_string(i); }

StoredEpochs read_epochs(const std::function<std::optional<std::string>(const std::string&)>& meta) {
  StoredEpochs out;
  const std::optional<std::string> count_text = meta(kWorldEpochsKey);
  if (!count_text) return out;
  const std::optional<size_t> count = parse_count(*count_text);
  if (!count) {
    out.error = std::string("the store's metadata ") + kWorldEpochsKey + " is \"" + *count_text + "\", not a count";
    return out;
  }
  for (size_t i = 0; i < *count; ++i) {
    const std::optional<std::string> json = meta(world_epoch_key(i));
    WorldResult r = json ? load_world_json(*json) : WorldResult{};
    if (!r.ok()) {
      out.error = "the store's epoch " + std::to_string(i) + " is " +
                  (json ? "not a valid world (" + joined(r.errors) + ")" : "missing");
      out.epochs.clear();
      return out;
    }
    out.epochs.push_back({*json, std::move(*r.world)});
  }
  return out;
}

std::string add_epoch(EditStore& store, const WorldFile& current, const WorldFile& next) {
  if (next.world.fingerprint() == current.world.fingerprint()) {
    return "the new world is the world the store runs (fingerprint " + current.world.fingerprint() +
           "): nothing to add";
  }
  if (const std::vector<FieldError> errors = validate_next_epoch(current.world, next.world); !errors.empty()) {
    return "the new world cannot follow the current one: " + joined(errors);
  }
  std::string error;
  store.write([&](EditStore::Transaction& tx) {
    const std::optional<std::string> bound = tx.meta(kWorldFingerprintKey);
    if (bound && *bound != current.world.fingerprint()) {
      error = "the store " + store.describe() + " runs the world with fingerprint " + *bound + ", not " +
              current.world.fingerprint() + " (--from): give the world its servers run now";
      return;
    }
    StoredEpochs stored = read_epochs([&](const std::string& key) { return tx.meta(key); });
    if (!stored.error.empty()) {
      error = stored.error;
      return;
    }
    if (!stored.epochs.empty() && stored.epochs.back().world.fingerprint() != current.world.fingerprint()) {
      error = "the store's newest epoch is not its bound world: rebind it, or use another store";
      return;
    }
    size_t definitions = next.world.definition().ByteSizeLong();
    if (stored.epochs.empty()) definitions += current.world.definition().ByteSizeLong();
    for (const WorldFile& f : stored.epochs) definitions += f.world.definition().ByteSizeLong();
    if (definitions > kMaxEpochsDefinitionBytes) {
      error = "the epochs' definitions would be " + std::to_string(definitions) + " bytes together, past " +
              std::to_string(kMaxEpochsDefinitionBytes) + " (what one GetWorldInfo carries to a client)";
      return;
    }
    if (stored.epochs.empty()) {
      tx.set_meta(world_epoch_key(0), current.json);
      stored.epochs.push_back(current);
    }
    const size_t n = stored.epochs.size();
    mark_edited_chunks(store, tx, static_cast<uint32_t>(n - 1));
    tx.set_meta(world_epoch_key(n), next.json);
    tx.set_meta(kWorldEpochsKey, std::to_string(n + 1));
    tx.set_meta(kWorldFingerprintKey, next.world.fingerprint());
  });
  return error;
}

EpochsLoad load_epochs(EditStore& store, const World& world) {
  EpochsLoad out;
  StoredEpochs stored = read_epochs([&](const std::string& key) { return store.meta(key); });
  if (!stored.error.empty()) {
    out.error = stored.error;
    return out;
  }
  if (stored.epochs.empty()) return out;
  if (stored.epochs.back().world.fingerprint() != world.fingerprint()) {
    out.error = "the store's newest epoch is the world with fingerprint " + stored.epochs.back().world.fingerprint() +
                ", and this server's world has fingerprint " + world.fingerprint() +
                ": start with the world of the store's last upgrade";
    return out;
  }
  std::vector<World> worlds;
  for (WorldFile& f : stored.epochs) worlds.push_back(std::move(f.world));
  EpochsResult r = Epochs::create(std::move(worlds), store.seen_land());
  if (!r.ok()) out.error = "the store's epochs: " + joined(r.errors);
  out.epochs = std::move(r.epochs);
  return out;
}

}  // namespace chunkforge::server
