// File: chunkforge/world.h
//
// A World is a validated world definition with every default resolved, compiled into the
// immutable parameters that generation reads. Build one once (from JSON, a file or the
// built-in default), then share it across threads.
//
//   WorldResult r = load_world_file("docs/worlds/default.json");
//   if (!r.ok()) { for (auto& e : r.errors) std::cerr << e.to_string() << '\n'; return 2; }
//   const World& world = *r.world;
//
// Errors name the JSON field path and the reason, all of them at once:
//   resources[1].density_range.min: must be in (0, 16] (got 0)
//
// Thread safety: a World is immutable; every const method may be called from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "chunkforge/resource_layer.h"
#include "chunkforge/structures.h"
#include "chunkforge/terrain.h"
#include "chunkforge/v1/world.pb.h"

namespace chunkforge {

// The generation algorithms' version. Bumped whenever generation output changes; older
// versions stay selectable through WorldDefinition.generator_version.
inline constexpr uint32_t kGeneratorVersion = 3;
inline constexpr uint32_t kOldestGeneratorVersion = 1;

struct FieldError {
  std::string path;  // JSON field path, e.g. "resources[1].density_range.min"; "" = document
  std::string message;
  std::string to_string() const { return path.empty() ? message : path + ": " + message; }
};

struct WorldResult;

class World {
 public:
  // Validates, resolves defaults and compiles. On errors, no World.
  static WorldResult create(const v1::WorldDefinition& definition);

  // The definition with every default filled in (generator_version resolved too).
  const v1::WorldDefinition& definition() const { return *definition_; }
  uint64_t seed() const { return definition_->seed(); }
  uint32_t generator_version() const { return definition_->generator_version(); }
  int64_t chunk_size() const { return definition_->chunk_size(); }
  const Terrain& terrain() const { return *terrain_; }
  const ResourceLayers& resources() const { return *resources_; }
  const StructureTypes& structures() const { return *structures_; }
  // 16 hex digits identifying the resolved definition (see WorldInfo.fingerprint), in every
  // chunk's bytes: chunkforge/world_fingerprint.h, docs/determinism.md.
  const std::string& fingerprint() const { return fingerprint_; }
  // Whether the definition named its generator_version. An unpinned world (0: the newest this
  // build knows) moves to a newer generator, and every chunk changes, when a later release
  // brings one; WorldResult::warnings says so, and tools should print that.
  bool generator_pinned() const { return generator_pinned_; }
  // This world with its terrain's elevation passed through `blend` (Terrain::blended): the
  // land of one epoch as it is shown beside older land (chunkforge/epochs.h).
  World blended(std::shared_ptr<const ElevationBlend> blend) const;

 private:
  World() = default;
  // Shared so that copies of a World are cheap and can outlive the caller's definition.
  std::shared_ptr<const v1::WorldDefinition> definition_;
  std::shared_ptr<const Terrain> terrain_;
  std::shared_ptr<const ResourceLayers> resources_;
  std::shared_ptr<const StructureTypes> structures_;
  std::string fingerprint_;
  bool generator_pinned_ = false;
};

struct WorldResult {
  std::optional<World> world;
  std::vector<FieldError> errors;
  // Valid but risky choices, for the tool or server to print (e.g. "warning: " + to_string()):
  // today only an unpinned generator_version.
  std::vector<FieldError> warnings;
  bool ok() const { return world.has_value(); }
};

// The warning for a world without generator_version (World::generator_pinned() is false).
FieldError unpinned_generator_warning();

// JSON (protobuf's mapping) to a definition. Unknown fields, wrong types and malformed JSON
// are errors naming the field path, every one of them (at most kMaxParseErrors): protobuf stops
// at the first, so the field it names is taken out and the rest parsed again. `remainder`, if
// given, gets what is left once every such field is out (for validate_world to report the
// rest), unless the document is malformed. Does not validate semantics: World::create does.
std::optional<v1::WorldDefinition> parse_world_json(std::string_view json, std::vector<FieldError>& errors,
                                                    std::optional<v1::WorldDefinition>* remainder = nullptr);
inline constexpr size_t kMaxParseErrors = 100;

// Semantic validation of a parsed definition: ranges, references, required fields.
std::vector<FieldError> validate_world(const v1::WorldDefinition& definition);

// Fills absent fields with their documented defaults (world.proto). Assumes a valid definition.
void apply_defaults(v1::WorldDefinition& definition);

// Reads and parses a JSON file (no semantic validation); an unreadable file is one error.
std::optional<v1::WorldDefinition> read_world_file(const std::string& path, std::vector<FieldError>& errors,
                                                   std::optional<v1::WorldDefinition>* remainder = nullptr);

// Parse + World::create.
WorldResult load_world_json(std::string_view json);
WorldResult load_world_file(const std::string& path);

// The built-in world: docs/worlds/default.json compiled into the binary.
std::string_view default_world_json();
const World& default_world();

}  // namespace chunkforge
