// File: server/map/tile_key.h
//
// Which tile a request names: /tiles/{layer}/{z}/{x}/{y}.png in Leaflet's XYZ scheme over its
// simple CRS (x east, z south, as `chunkforge render` draws), and the layers there are.
//
//   std::variant<TileKey, std::string> parsed = parse_tile_path("/tiles/biomes/-2/3/-1.png");
//   if (auto* reason = std::get_if<std::string>(&parsed)) answer_400(*reason);
//
// A layer is a family, or a family and one of the world's resource layers: `density.forest`
// (that layer's density field; the resource is required), `objects.iron` (that layer's objects
// only; plain `objects` draws every layer's). The resource names come from the world, so the
// parser is given them.
//
// Zoom z means 2^z pixels per world unit: z = 0 is 1 px per unit, z = -6 is 64 units per
// pixel. A tile is 256 px; its world origin is (x, y) * 256 / 2^z, always whole units.
// Pure functions; thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace chunkforge::map {

inline constexpr int kTilePixels = 256;
inline constexpr int kMinZoom = -8;                       // 256 units per pixel: a tile spans 65536 units
inline constexpr int kMaxZoom = 4;                        // 16 pixels per unit: a tile spans 16 units
inline constexpr int64_t kWorldLimit = int64_t{1} << 40;  // as `chunkforge locate`

// Bump when drawing changes: it is part of every ETag, so browsers drop their stale tiles.
inline constexpr int kRendererVersion = 2;

enum class Layer { kMaterials, kBiomes, kElevation, kStructures, kObjects, kGrid, kDensity, kEpochs, kCount };

// Whether a layer's URL name takes a resource layer after a dot ("density.forest").
enum class ResourcePart { kNone, kOptional, kRequired };

// One record per layer family: its URL name, what the page calls it, whether it is drawn over a
// base layer (transparent PNG), the first zoom it draws anything at (below: an empty tile; the
// page asks for none), and whether it names a resource layer.
struct LayerInfo {
  Layer layer;
  const char* name;
  const char* title;
  bool overlay;
  int min_zoom;
  ResourcePart resource = ResourcePart::kNone;
  const char* resource_title = "";  // the page's title before ": <resource>" ("Density: forest")
};

inline constexpr std::array<LayerInfo, static_cast<size_t>(Layer::kCount)> kLayers = {{
    {Layer::kMaterials, "materials", "Materials", false, kMinZoom},
    {Layer::kBiomes, "biomes", "Biomes", false, kMinZoom},
    {Layer::kElevation, "elevation", "Elevation", false, kMinZoom},
    {Layer::kStructures, "structures", "Structures", true, -3},
    {Layer::kObjects, "objects", "Objects (resources)", true, 0, ResourcePart::kOptional, "Objects"},
    {Layer::kGrid, "grid", "Chunk grid", true, kMinZoom},
    {Layer::kDensity, "density", "Density", true, kMinZoom, ResourcePart::kRequired, "Density"},
    {Layer::kEpochs, "epochs", "Epochs and seams", true, kMinZoom},
}};
static_assert(kLayers.size() == static_cast<size_t>(Layer::kCount), "one record per layer");

const LayerInfo& layer_info(Layer layer);
std::optional<Layer> layer_named(std::string_view name);

struct TileKey {
  Layer layer = Layer::kMaterials;
  int z = 0;
  int64_t x = 0, y = 0;
  int resource = -1;  // the resource layer's id for density.<name> and objects.<name>; else -1

  // World units a tile spans (16 to 65536) and a pixel spans (1/16 to 256).
  int64_t span() const { return z >= 0 ? kTilePixels >> z : int64_t{kTilePixels} << -z; }
  double units_per_pixel() const { return static_cast<double>(span()) / kTilePixels; }
  int64_t world_x0() const { return x * span(); }
  int64_t world_z0() const { return y * span(); }
};

// The tile a path names, or why it names none (for a 400 body). `path` has no query;
// `resources` are the world's resource layer names, by id.
std::variant<TileKey, std::string> parse_tile_path(std::string_view path,
                                                   const std::vector<std::string>& resources = {});

// The tile's ETag (quoted), from everything its bytes depend on.
std::string tile_etag(const std::string& world_fingerprint, const TileKey& key);

}  // namespace chunkforge::map
