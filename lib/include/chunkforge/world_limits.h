// File: chunkforge/world_limits.h
//
// The hard limits a world definition must respect besides its per-field ranges: sizes of the
// file, of strings and of every list, and the resource layers' cost rules. world.proto's
// comments state them as the contract; validate_world and read_world_file enforce them, each
// error naming the field and the limit, e.g. "resources: at most 64 layers (got 1000)".
//
// Why: every list and string of a definition is designer input, and untrusted input at that
// once worlds are uploaded. The limits keep the worst chunk a valid world can ask for at a
// fraction of a second and a few tens of MB (docs/world-definition.md, "Limits", has the
// measured figures), and the world's messages far below gRPC's 4 MB default.
#pragma once

#include <cstddef>

namespace chunkforge {

// A world file (and any JSON given to parse_world_json), checked before parsing.
inline constexpr size_t kMaxWorldFileBytes = size_t{1} << 20;
// The definition's protobuf encoding (what the fingerprint hashes): a definition built in code
// rather than parsed from a file meets the same bound.
inline constexpr size_t kMaxDefinitionBytes = size_t{1} << 20;
// All epochs' definitions of a world that changed after launch, together (protobuf encoding):
// what one WorldInfo carries to a client that generates, well under gRPC's 4 MB default.
inline constexpr size_t kMaxEpochsDefinitionBytes = size_t{3} << 20;

// WorldDefinition.name: free text, counted in bytes of UTF-8.
inline constexpr size_t kMaxWorldNameBytes = 256;
// Names of biomes, materials, resource layers and structures ([a-z][a-z0-9_]*).
inline constexpr size_t kMaxNameLength = 64;

inline constexpr int kMaxBiomes = 256;
inline constexpr int kMaxMaterials = 256;
// Octaves of all materials' detail noises together (an absent count is its default, 4): each
// may be evaluated at every terrain sample (resource filters, structure checks, terrain grids),
// so their sum bounds what a sample costs.
inline constexpr int kMaxMaterialNoiseOctaves = 64;
inline constexpr int kMaxResourceLayers = 64;
inline constexpr int kMaxStructures = 64;
inline constexpr int kMaxChecksPerStructure = 16;
// Any list of biome or material names (filters of materials, layers, structures and checks):
// no more names than the longest list they can refer to.
inline constexpr int kMaxNamesPerList = 256;
inline constexpr int kMaxYawAngles = 4;
inline constexpr int kMaxFalloffPoints = 16;

// Resource layers' cost rules (world.proto, ResourceLayer; docs/world-definition.md, "Limits").
// density_range.max / density_range.min: a layer's neighbour search reaches its largest
// spacing, in cells of its smallest.
inline constexpr double kMaxDensityRatio = 16;
// Per layer: sum over the other layers of ((own footprint + other's footprint) / other's
// spacing)^2, the clearance each object needs measured in the other layers' objects.
inline constexpr double kMaxFootprintCrowding = 2;
// Number of layers times the scatter cells of all layers in one chunk.
inline constexpr double kMaxScatterCost = 65536;

}  // namespace chunkforge
