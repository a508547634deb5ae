// World::create and the loaders: a definition from JSON or a file, validated and compiled.
#include "chunkforge/world.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "chunkforge/encode.h"
#include "chunkforge/hash.h"
#include "chunkforge/quote.h"
#include "chunkforge/world_limits.h"

namespace chunkforge {

WorldResult World::create(const v1::WorldDefinition& definition) {
  WorldResult result;
  result.errors = validate_world(definition);
  if (!result.errors.empty()) return result;

  auto resolved = std::make_shared<v1::WorldDefinition>(definition);
  apply_defaults(*resolved);

  World world;
  world.terrain_ = std::make_shared<const Terrain>(*resolved);
  world.resources_ = std::make_shared<const ResourceLayers>(*resolved);
  world.structures_ = std::make_shared<const StructureTypes>(*resolved);
  // Deterministic serialization of the resolved definition: equal definitions, equal bytes.
  const std::string bytes = canonical_bytes(*resolved);
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx",
                static_cast<unsigned long long>(hash_bytes(0, salt("world.fingerprint"), bytes)));
  world.fingerprint_ = hex;
  world.definition_ = std::move(resolved);
  result.world = std::move(world);
  return result;
}

WorldResult load_world_json(std::string_view json) {
  WorldResult result;
  std::optional<v1::WorldDefinition> definition = parse_world_json(json, result.errors);
  if (!definition) return result;
  return World::create(*definition);
}

namespace {

// Paths are quoted like any input, with room for a long directory.
constexpr size_t kQuotedPathBytes = 256;

// `size`: the file's size when known (a pipe's is not).
FieldError file_too_large(const std::string& path, std::optional<uintmax_t> size) {
  return FieldError{"", "world file " + quote_input(path, kQuotedPathBytes) + " is larger than the limit of " +
                            std::to_string(kMaxWorldFileBytes) + " bytes" +
                            (size ? " (got " + std::to_string(*size) + ")" : "")};
}

}  // namespace

std::optional<v1::WorldDefinition> read_world_file(const std::string& path,
                                                   std::vector<FieldError>& errors) {
  // The size is checked before anything is read: a huge file costs neither memory nor time.
  std::error_code ec;
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec && size > kMaxWorldFileBytes) {
    errors.push_back(file_too_large(path, size));
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    errors.push_back(FieldError{"", "cannot read world file " + quote_input(path, kQuotedPathBytes)});
    return std::nullopt;
  }
  // Not a regular file (a pipe): read one byte past the limit to see whether it is exceeded.
  std::string text(kMaxWorldFileBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() > kMaxWorldFileBytes) {
    errors.push_back(file_too_large(path, std::nullopt));
    return std::nullopt;
  }
  return parse_world_json(text, errors);
}

WorldResult load_world_file(const std::string& path) {
  WorldResult result;
  std::optional<v1::WorldDefinition> definition = read_world_file(path, result.errors);
  if (!definition) return result;
  return World::create(*definition);
}

const World& default_world() {
  // Built once, on first use; the built-in definition is checked by the test suite, so a
  // failure here is a broken build, not bad input.
  static const World world = [] {
    WorldResult r = load_world_json(default_world_json());
    if (!r.ok()) {
      for (const FieldError& e : r.errors) std::fprintf(stderr, "built-in world: %s\n", e.to_string().c_str());
      std::abort();
    }
    return *std::move(r.world);
  }();
  return world;
}

}  // namespace chunkforge
