// One chunk as the JSON line `chunk` and `region` print: the wire message with layer names and
// world coordinates, and the chunk's hash.
#include "chunk_json.h"

#include <charconv>
#include <cstdio>

#include "chunkforge/encode.h"

namespace chunkforge::tool {

std::string number(double v) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, end) : "0";
}

std::string chunk_json(const v1::Chunk& chunk, const v1::WorldInfo& info) {
  const double size = chunk.chunk_size();
  const double x0 = static_cast<double>(chunk.coord().x()) * size;
  const double z0 = static_cast<double>(chunk.coord().z()) * size;
  char hash_hex[17];
  std::snprintf(hash_hex, sizeof hash_hex, "%016llx", static_cast<unsigned long long>(chunk_hash(chunk)));
  std::string out = "{\"x\":" + std::to_string(chunk.coord().x()) + ",\"z\":" +
                    std::to_string(chunk.coord().z()) + ",\"chunk_size\":" +
                    std::to_string(chunk.chunk_size()) + ",\"generator_version\":" +
                    std::to_string(chunk.generator_version()) + ",\"hash\":\"" + hash_hex +
                    "\",\"objects\":[";
  const v1::Objects& o = chunk.objects();
  for (int k = 0; k < o.layer_size(); ++k) {
    const uint32_t layer = o.layer(k);
    const std::string name = static_cast<int>(layer) < info.resources_size() ? info.resources(static_cast<int>(layer)).name() : "";
    char id[17];
    std::snprintf(id, sizeof id, "%016llx", static_cast<unsigned long long>(o.id(k)));
    out += (k ? ",{" : "{");
    out += "\"layer\":\"" + name + "\",\"x\":" + number(x0 + o.x(k)) + ",\"z\":" + number(z0 + o.z(k)) +
           ",\"y\":" + number(o.y(k)) + ",\"yaw\":" + number(o.yaw(k)) +
           ",\"variant\":" + std::to_string(o.variant(k)) + ",\"id\":\"" + id + "\"}";
  }
  out += "],\"structures\":[";
  for (int k = 0; k < chunk.structures_size(); ++k) {
    const v1::StructureInstance& s = chunk.structures(k);
    const std::string name =
        static_cast<int>(s.type()) < info.structures_size() ? info.structures(static_cast<int>(s.type())).name() : "";
    char id[17];
    std::snprintf(id, sizeof id, "%016llx", static_cast<unsigned long long>(s.id()));
    out += (k ? ",{" : "{");
    out += "\"type\":\"" + name + "\",\"id\":\"" + id + "\",\"x\":" + std::to_string(s.x()) +
           ",\"y\":" + number(s.y()) + ",\"z\":" + std::to_string(s.z()) + ",\"yaw\":" +
           std::to_string(s.yaw_degrees()) + ",\"tilted\":" + (s.tilted() ? "true" : "false") +
           ",\"size\":[" + number(s.size_x()) + "," + number(s.size_y()) + "," + number(s.size_z()) + "]}";
  }
  out += "]";
  if (chunk.has_terrain()) {
    const v1::TerrainGrid& t = chunk.terrain();
    out += ",\"terrain\":{\"step\":" + std::to_string(t.step()) + ",\"size\":" + std::to_string(t.size()) +
           ",\"elevation\":[";
    for (int k = 0; k < t.elevation_size(); ++k) out += (k ? "," : "") + number(t.elevation(k));
    out += "],\"biome\":[";
    for (int k = 0; k < t.biome_size(); ++k) out += (k ? "," : "") + std::to_string(t.biome(k));
    out += "],\"material\":[";
    for (int k = 0; k < t.material_size(); ++k) out += (k ? "," : "") + std::to_string(t.material(k));
    out += "]}";
  }
  out += "}";
  return out;
}

}  // namespace chunkforge::tool
