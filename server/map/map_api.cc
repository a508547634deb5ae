// The map's JSON endpoints: the world and its layers (/api/status), the terrain under the
// cursor (/api/point), and structure search with the planner `chunkforge locate` uses
// (/api/locate), bounded in radius like gRPC Locate and abandoned when its client goes.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>

#include "chunkforge/coord.h"
#include "chunkforge/resource_layer.h"
#include "chunkforge/structures.h"
#include "map_service.h"
#include "tile_key.h"

namespace chunkforge::map {
namespace {

constexpr double kDefaultRadius = 2048;  // as gRPC Locate
constexpr size_t kLocateLimit = 20;

std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

std::optional<double> decimal(const std::string& text) {
  double value = 0;
  const char* last = text.data() + text.size();
  const auto [end, error] = std::from_chars(text.data(), last, value);
  if (text.empty() || error != std::errc() || end != last || !std::isfinite(value)) return std::nullopt;
  return value;
}

// x and z from the query, each a number within the world limit; or the 400 body saying why not.
std::optional<std::string> read_position(const std::string& query, double& x, double& z) {
  const std::optional<double> qx = decimal(query_value(query, "x")), qz = decimal(query_value(query, "z"));
  if (!qx || !qz) return "{\"error\":\"x and z must be numbers\"}";
  const double limit = static_cast<double>(kWorldLimit);
  if (std::abs(*qx) > limit || std::abs(*qz) > limit) return "{\"error\":\"x and z must be within +-2^40\"}";
  x = *qx;
  z = *qz;
  return std::nullopt;
}

template <typename Entries>
std::string names_of(const Entries& entries) {
  std::string out = "[";
  for (const auto& e : entries) out += (out.size() > 1 ? "," : "") + json_quoted(e.name());
  return out + "]";
}

std::string layer_json(const LayerInfo& l, const std::string& name, const std::string& title) {
  return "{\"name\":" + json_quoted(name) + ",\"title\":" + json_quoted(title) +
         ",\"overlay\":" + (l.overlay ? "true" : "false") + ",\"min_zoom\":" + std::to_string(l.min_zoom) + "}";
}

// Every layer the page can show: the families (the epochs overlay only for a world that changed
// after launch), and one per resource layer where a family takes one ("density.forest",
// "objects.forest").
std::string layers_json(const World& world, bool epochs) {
  std::string out = "[";
  for (const LayerInfo& l : kLayers) {
    if (l.layer == Layer::kEpochs && !epochs) continue;  // a world that never changed: nothing to draw
    if (l.resource != ResourcePart::kRequired) out += (out.size() > 1 ? "," : "") + layer_json(l, l.name, l.title);
    if (l.resource == ResourcePart::kNone) continue;
    for (const ResourceLayer& r : world.resources().all()) {
      out += (out.size() > 1 ? "," : "") +
             layer_json(l, std::string(l.name) + "." + r.name, std::string(l.resource_title) + ": " + r.name);
    }
  }
  return out + "]";
}

const char* flag(bool on) { return on ? "true" : "false"; }

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string percent_decoded(std::string_view text) {
  std::string out;
  for (size_t k = 0; k < text.size(); ++k) {
    if (text[k] == '+') {
      out += ' ';
    } else if (text[k] == '%' && k + 2 < text.size() && hex_digit(text[k + 1]) >= 0 && hex_digit(text[k + 2]) >= 0) {
      out += static_cast<char>(hex_digit(text[k + 1]) * 16 + hex_digit(text[k + 2]));
      k += 2;
    } else {
      out += text[k];
    }
  }
  return out;
}

}  // namespace

std::string json_quoted(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7f) {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\u%04x", c);
      out += escape;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string query_value(const std::string& query, const std::string& name) {
  size_t start = 0;
  while (start <= query.size()) {
    size_t end = query.find('&', start);
    if (end == std::string::npos) end = query.size();
    const std::string_view pair(query.data() + start, end - start);
    const size_t equals = pair.find('=');
    if (pair.substr(0, equals) == name)
      return equals == std::string_view::npos ? "" : percent_decoded(pair.substr(equals + 1));
    start = end + 1;
  }
  return "";
}

std::string status_json(const World& world, const std::string& source, const std::vector<std::string>& errors,
                        const MapFeatures& features) {
  const v1::WorldDefinition& d = world.definition();
  std::string error_list = "[";
  for (const std::string& e : errors) error_list += (error_list.size() > 1 ? "," : "") + json_quoted(e);
  error_list += "]";
  return "{\"name\":" + json_quoted(d.name()) + ",\"source\":" + json_quoted(source) +
         ",\"fingerprint\":" + json_quoted(world.fingerprint()) +
         ",\"seed\":" + (features.publish_seed ? "\"" + std::to_string(world.seed()) + "\"" : std::string("null")) +
         ",\"chunk_size\":" + std::to_string(world.chunk_size()) + ",\"min_zoom\":" + std::to_string(kMinZoom) +
         ",\"max_zoom\":" + std::to_string(kMaxZoom) + ",\"watching\":" + flag(features.watching) +
         ",\"edits\":" + flag(features.edits) + ",\"players\":" + flag(features.players) +
         ",\"moderation\":" + flag(features.moderation) + ",\"errors\":" + error_list +
         ",\"layers\":" + layers_json(world, features.epochs) + ",\"structures\":" + names_of(d.structures()) + "}";
}

std::pair<int, std::string> point_json(const World& world, const std::string& query) {
  double x = 0, z = 0;
  if (auto error = read_position(query, x, z)) return {400, *error};
  const Coord cx = Coord::from_double(x), cz = Coord::from_double(z);
  const TerrainPoint p = world.terrain().sample(cx, cz);
  const v1::WorldDefinition& d = world.definition();
  std::string fields;
  for (size_t f = 0; f < kTerrainFieldCount; ++f)
    fields += ",\"" + std::string(kTerrainFields[f].name) + "\":" + number(p.values[f]);
  return {200, "{\"x\":" + number(x) + ",\"z\":" + number(z) + ",\"chunk\":[" +
                   std::to_string(floor_div(cx.cell, world.chunk_size())) + "," +
                   std::to_string(floor_div(cz.cell, world.chunk_size())) +
                   "],\"biome\":" + json_quoted(d.biomes(static_cast<int>(p.biome)).name()) +
                   ",\"material\":" + json_quoted(d.materials(static_cast<int>(p.material)).name()) + fields + "}"};
}

std::pair<int, std::string> locate_json(const World& world, const std::string& query, double max_radius,
                                        const std::atomic<bool>* abandon) {
  double x = 0, z = 0;
  if (auto error = read_position(query, x, z)) return {400, *error};
  const std::string type = query_value(query, "type");
  const std::vector<StructureType>& types = world.structures().all();
  auto found = std::find_if(types.begin(), types.end(), [&](const StructureType& t) { return t.name == type; });
  if (found == types.end())
    return {400, "{\"error\":" + json_quoted("unknown structure type \"" + type.substr(0, 64) + "\"") + "}"};
  const std::string radius_text = query_value(query, "radius");
  const std::optional<double> radius = radius_text.empty() ? kDefaultRadius : decimal(radius_text);
  if (!radius || *radius <= 0 || *radius > max_radius) {
    return {400, "{\"error\":" +
                     json_quoted("radius: must be in (0, " + number(max_radius) + "] world units on this server (got " +
                                 radius_text.substr(0, 32) + ")") +
                     "}"};
  }
  StructurePlanner planner(world);
  planner.watch_abandon(abandon);  // the client left or the server stops: GenerationAbandoned
  std::vector<StructureInstance> near =
      planner.locate(found->id, Coord::from_double(std::floor(x)), Coord::from_double(std::floor(z)), *radius);
  if (near.size() > kLocateLimit) near.resize(kLocateLimit);
  std::string out = "{\"type\":" + json_quoted(type) + ",\"instances\":[";
  for (size_t k = 0; k < near.size(); ++k) {
    const StructureInstance& s = near[k];
    out += std::string(k ? "," : "") + "{\"x\":" + std::to_string(s.x) + ",\"z\":" + std::to_string(s.z) +
           ",\"size_x\":" + number(s.size_x) + ",\"size_z\":" + number(s.size_z) + "}";
  }
  return {200, out + "]}"};
}

}  // namespace chunkforge::map
