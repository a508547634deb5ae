// make_local_generator: from the server's WorldInfo to a LocalGenerator, refusing a world this
// library would not generate byte for byte as the server does.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "chunkforge/v1/info.pb.h"
#include "epochs_generator.h"
#include "local_generator_impl.h"

namespace chunkforge::client {
namespace {

// "1, 2" for the status messages.
std::string listed(const std::vector<uint32_t>& versions) {
  std::string out;
  for (uint32_t v : versions) out += (out.empty() ? "" : ", ") + std::to_string(v);
  return out;
}

Status check_options(const LocalGeneratorOptions& options) {
  if (options.max_streams < 1 || options.max_streams > 256) {
    return {StatusCode::invalid_argument,
            "max_streams: must be in [1, 256] (got " + std::to_string(options.max_streams) + ")"};
  }
  if (options.memo_cells < 1024 || options.memo_cells > 1048576) {
    return {StatusCode::invalid_argument,
            "memo_cells: must be in [1024, 1048576] (got " + std::to_string(options.memo_cells) + ")"};
  }
  return {};
}

// The world of the definition, or why it cannot stand for the server's.
Result<World> world_of(const v1::WorldInfo& info) {
  const std::vector<uint32_t> versions = local_generator_versions();
  if (std::find(versions.begin(), versions.end(), info.generator_version()) == versions.end()) {
    return Status{StatusCode::failed_precondition,
                  "generator_version: this library generates versions " + listed(versions) + " (the server's is " +
                      std::to_string(info.generator_version()) + "); let the server send chunks, or update the SDK"};
  }
  WorldResult built = World::create(info.definition());
  if (!built.ok()) {
    std::string errors;
    for (const FieldError& e : built.errors) errors += (errors.empty() ? "" : "; ") + e.to_string();
    return Status{StatusCode::invalid_argument,
                  "definition: the server's world definition does not validate: " + errors};
  }
  const World& world = *built.world;
  if (world.fingerprint() != info.fingerprint() || world.generator_version() != info.generator_version()) {
    return Status{StatusCode::failed_precondition,
                  "definition: builds the world with fingerprint " + world.fingerprint() + " and generator version " +
                      std::to_string(world.generator_version()) + ", but the server's is fingerprint " +
                      info.fingerprint() + ", generator version " + std::to_string(info.generator_version()) +
                      "; its chunks would differ from the server's"};
  }
  return world;
}

// Older epoch k's world (WorldInfo.older_epochs[k]), or why this library cannot make it.
Result<World> older_world_of(const v1::WorldInfo& info, int k) {
  const std::string field = "older_epochs[" + std::to_string(k) + "]";
  const v1::WorldDefinition& definition = info.older_epochs(k);
  const std::vector<uint32_t> versions = local_generator_versions();
  if (std::find(versions.begin(), versions.end(), definition.generator_version()) == versions.end()) {
    return Status{StatusCode::failed_precondition,
                  field + ".generator_version: the world's epoch " + std::to_string(k) + " is made by version " +
                      std::to_string(definition.generator_version()) + ", and this library generates versions " +
                      listed(versions) + "; let the server send chunks, or update the SDK"};
  }
  WorldResult built = World::create(definition);
  if (!built.ok()) {
    return Status{StatusCode::invalid_argument, field + ": does not validate: " + built.errors.front().to_string()};
  }
  return std::move(*built.world);
}

// The generator of a world with older epochs: every epoch's world, checked as the server's
// Epochs checks them, with no older land yet.
Result<std::shared_ptr<BaseGenerator>> epochs_generator(const v1::WorldInfo& info, World newest,
                                                        const LocalGeneratorOptions& options) {
  std::vector<World> worlds;
  for (int k = 0; k < info.older_epochs_size(); ++k) {
    Result<World> older = older_world_of(info, k);
    if (!older) return older.status();
    worlds.push_back(std::move(*older));
  }
  worlds.push_back(std::move(newest));
  EpochsResult epochs = Epochs::create(worlds, SeenLand());
  if (!epochs.ok()) {
    return Status{StatusCode::invalid_argument, "older_epochs: " + epochs.errors.front().to_string()};
  }
  return std::shared_ptr<BaseGenerator>(
      std::make_shared<EpochsGenerator>(std::move(worlds), std::move(epochs.epochs), options.max_streams));
}

}  // namespace

Result<std::shared_ptr<BaseGenerator>> make_local_generator(const v1::WorldInfo& info, LocalGeneratorOptions options) {
  if (Status status = check_options(options); !status.ok()) return status;
  if (!info.has_definition()) {
    return Status{StatusCode::failed_precondition,
                  "definition: the WorldInfo carries no world definition; the server must answer "
                  "GetWorldInfo with include_definition (Client::world_info_with_definition)"};
  }
  Result<World> world = world_of(info);
  if (!world) return world.status();
  if (info.older_epochs_size() > 0) return epochs_generator(info, std::move(*world), options);
  return std::shared_ptr<BaseGenerator>(std::make_shared<LocalGenerator>(std::move(*world), options));
}

Result<std::shared_ptr<BaseGenerator>> make_local_generator(Client& client, LocalGeneratorOptions options) {
  if (Status status = check_options(options); !status.ok()) return status;
  Result<WorldInfo> info = client.world_info_with_definition();
  if (!info) return info.status();
  return make_local_generator(info->message(), options);
}

}  // namespace chunkforge::client
