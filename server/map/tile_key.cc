// Parsing /tiles/{layer}/{z}/{x}/{y}.png strictly: every malformed part gets its own reason.
// The ETag names the resource layer by id: the world fingerprint beside it fixes the names.
#include "tile_key.h"

#include <charconv>
#include <vector>

namespace chunkforge::map {

const LayerInfo& layer_info(Layer layer) { return kLayers[static_cast<size_t>(layer)]; }

std::optional<Layer> layer_named(std::string_view name) {
  for (const LayerInfo& info : kLayers) {
    if (name == info.name) return info.layer;
  }
  return std::nullopt;
}

namespace {

// A whole decimal integer (optional '-'), nothing else.
std::optional<int64_t> integer(std::string_view text) {
  int64_t value = 0;
  const char* last = text.data() + text.size();
  const auto [end, error] = std::from_chars(text.data(), last, value);
  if (text.empty() || error != std::errc() || end != last) return std::nullopt;
  return value;
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t slash = text.find(separator); slash != std::string_view::npos; slash = text.find(separator, start)) {
    parts.push_back(text.substr(start, slash - start));
    start = slash + 1;
  }
  parts.push_back(text.substr(start));
  return parts;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

std::string layer_names() {
  std::vector<std::string> names;
  for (const LayerInfo& info : kLayers) {
    const bool per_resource = info.resource != ResourcePart::kNone;
    if (info.resource != ResourcePart::kRequired) names.push_back(info.name);
    if (per_resource) names.push_back(std::string(info.name) + ".<resource>");
  }
  return joined(names);
}

// "density.forest" into the family and the resource layer's id; or why not.
std::variant<TileKey, std::string> parse_layer(std::string_view text, const std::vector<std::string>& resources) {
  const size_t dot = text.find('.');
  const std::string_view family = text.substr(0, dot);
  const std::optional<Layer> layer = layer_named(family);
  if (!layer) {
    return "unknown layer \"" + std::string(text.substr(0, 32)) + "\": one of " + layer_names();
  }
  TileKey key;
  key.layer = *layer;
  const ResourcePart part = layer_info(*layer).resource;
  if (dot == std::string_view::npos) {
    if (part != ResourcePart::kRequired) return key;
    return "layer " + std::string(family) + " needs a resource layer: " + std::string(family) + ".<resource>, " +
           "<resource> one of " + joined(resources);
  }
  if (part == ResourcePart::kNone) return "layer " + std::string(family) + " takes no resource layer";
  const std::string_view name = text.substr(dot + 1);
  for (size_t id = 0; id < resources.size(); ++id) {
    if (name == resources[id]) {
      key.resource = static_cast<int>(id);
      return key;
    }
  }
  return "unknown resource layer \"" + std::string(name.substr(0, 32)) + "\": one of " + joined(resources);
}

// Whether every world coordinate the tile covers lies within the world limit. |index| is
// checked first so that the product cannot overflow.
bool within_limit(int64_t index, int64_t span) {
  if (index > kWorldLimit || index < -kWorldLimit) return false;
  return index * span >= -kWorldLimit && (index + 1) * span <= kWorldLimit;
}

}  // namespace

std::variant<TileKey, std::string> parse_tile_path(std::string_view path, const std::vector<std::string>& resources) {
  const std::vector<std::string_view> parts = split(path, '/');
  if (parts.size() != 6 || !parts[0].empty() || parts[1] != "tiles") {
    return "expected /tiles/{layer}/{z}/{x}/{y}.png";
  }
  auto layer = parse_layer(parts[2], resources);
  if (auto* reason = std::get_if<std::string>(&layer)) return *reason;
  TileKey key = std::get<TileKey>(layer);
  const std::optional<int64_t> z = integer(parts[3]);
  if (!z) return "zoom must be an integer (got \"" + std::string(parts[3].substr(0, 32)) + "\")";
  if (*z < kMinZoom || *z > kMaxZoom) {
    return "zoom must be in [" + std::to_string(kMinZoom) + ", " + std::to_string(kMaxZoom) + "] (got " +
           std::to_string(*z) + ")";
  }
  key.z = static_cast<int>(*z);
  std::string_view last = parts[5];
  if (last.size() < 4 || last.substr(last.size() - 4) != ".png") return "the tile must end in .png";
  last.remove_suffix(4);
  const std::optional<int64_t> x = integer(parts[4]), y = integer(last);
  if (!x || !y) return "tile x and y must be integers";
  key.x = *x;
  key.y = *y;
  if (!within_limit(key.x, key.span()) || !within_limit(key.y, key.span())) {
    return "the tile lies past the world limit of +-2^40 units";
  }
  return key;
}

std::string tile_etag(const std::string& world_fingerprint, const TileKey& key) {
  const std::string resource = key.resource >= 0 ? "." + std::to_string(key.resource) : "";
  return "\"" + world_fingerprint + "-" + layer_info(key.layer).name + resource + "-" + std::to_string(key.z) + "-" +
         std::to_string(key.x) + "-" + std::to_string(key.y) + "-r" + std::to_string(kRendererVersion) + "\"";
}

}  // namespace chunkforge::map
