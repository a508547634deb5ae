// One chunk as the JSON line `chunk` and `region` print: the wire message with layer names and
// world coordinates, the chunk's hash, and what edits made of it (its edit version and object
// states), so that a change made with `chunkforge edit` shows in the next `chunkforge chunk`.
#include "chunk_json.h"

#include <charconv>

#include "chunkforge/encode.h"
#include "chunkforge/hex_text.h"  // ids and states as `chunkforge edit` takes them and the map shows them

namespace chunkforge::tool {
namespace {

std::string objects_json(const v1::Chunk& chunk, const v1::WorldInfo& info) {
  const double size = chunk.chunk_size();
  const double x0 = static_cast<double>(chunk.coord().x()) * size;
  const double z0 = static_cast<double>(chunk.coord().z()) * size;
  const v1::Objects& o = chunk.objects();
  std::string out = "[";
  for (int k = 0; k < o.layer_size(); ++k) {
    const uint32_t layer = o.layer(k);
    const std::string name =
        static_cast<int>(layer) < info.resources_size() ? info.resources(static_cast<int>(layer)).name() : "";
    out += (k ? ",{" : "{");
    out += "\"layer\":\"" + name + "\",\"x\":" + number(x0 + o.x(k)) + ",\"z\":" + number(z0 + o.z(k)) +
           ",\"y\":" + number(o.y(k)) + ",\"yaw\":" + number(o.yaw(k)) +
           ",\"variant\":" + std::to_string(o.variant(k)) + ",\"id\":\"" + hex_id(o.id(k)) + "\"}";
  }
  return out + "]";
}

std::string structures_json(const v1::Chunk& chunk, const v1::WorldInfo& info) {
  std::string out = "[";
  for (int k = 0; k < chunk.structures_size(); ++k) {
    const v1::StructureInstance& s = chunk.structures(k);
    const std::string name =
        static_cast<int>(s.type()) < info.structures_size() ? info.structures(static_cast<int>(s.type())).name() : "";
    out += (k ? ",{" : "{");
    out += "\"type\":\"" + name + "\",\"id\":\"" + hex_id(s.id()) + "\",\"x\":" + std::to_string(s.x()) +
           ",\"y\":" + number(s.y()) + ",\"z\":" + std::to_string(s.z()) +
           ",\"yaw\":" + std::to_string(s.yaw_degrees()) + ",\"tilted\":" + (s.tilted() ? "true" : "false") +
           ",\"size\":[" + number(s.size_x()) + "," + number(s.size_y()) + "," + number(s.size_z()) + "]}";
  }
  return out + "]";
}

// The states edits set, by object id (as the chunk keeps them).
std::string object_states_json(const v1::Chunk& chunk) {
  std::string out = "[";
  for (int k = 0; k < chunk.object_states_size(); ++k) {
    const v1::ObjectState& s = chunk.object_states(k);
    out += (k ? ",{" : "{");
    out += "\"id\":\"" + hex_id(s.id()) + "\",\"state\":\"" + hex_bytes(s.state()) + "\"}";
  }
  return out + "]";
}

std::string terrain_json(const v1::TerrainGrid& t) {
  std::string out =
      "{\"step\":" + std::to_string(t.step()) + ",\"size\":" + std::to_string(t.size()) + ",\"elevation\":[";
  for (int k = 0; k < t.elevation_size(); ++k) out += (k ? "," : "") + number(t.elevation(k));
  out += "],\"biome\":[";
  for (int k = 0; k < t.biome_size(); ++k) out += (k ? "," : "") + std::to_string(t.biome(k));
  out += "],\"material\":[";
  for (int k = 0; k < t.material_size(); ++k) out += (k ? "," : "") + std::to_string(t.material(k));
  return out + "]}";
}

}  // namespace

std::string number(double v) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, end) : "0";
}

std::string chunk_json(const v1::Chunk& chunk, const v1::WorldInfo& info) {
  std::string out = "{\"x\":" + std::to_string(chunk.coord().x()) + ",\"z\":" + std::to_string(chunk.coord().z()) +
                    ",\"chunk_size\":" + std::to_string(chunk.chunk_size()) +
                    ",\"generator_version\":" + std::to_string(chunk.generator_version()) + ",\"hash\":\"" +
                    hex_id(chunk_hash(chunk)) + "\",\"edit_version\":" + std::to_string(chunk.edit_version()) +
                    ",\"objects\":" + objects_json(chunk, info) + ",\"structures\":" + structures_json(chunk, info) +
                    ",\"object_states\":" + object_states_json(chunk);
  if (chunk.has_terrain()) out += ",\"terrain\":" + terrain_json(chunk.terrain());
  return out + "}";
}

}  // namespace chunkforge::tool
