// The chunk under a click (/api/chunk?cx=&cz=): its objects (layer, world position, variant,
// id, and the state edits set) and the structures touching it, as served: generated, then,
// on a server with edits, with its committed changes applied.
#include <charconv>
#include <cstdio>
#include <optional>
#include <unordered_map>
#include <utility>

#include "chunkforge/chunk.h"
#include "chunkforge/encode.h"
#include "chunkforge/hex_text.h"  // as `chunkforge chunk` prints ids and `chunkforge edit` takes states
#include "chunkforge/world_extent.h"
#include "map_service.h"
#include "tile_key.h"

namespace chunkforge::map {
namespace {

std::optional<int64_t> whole(const std::string& text) {
  int64_t value = 0;
  const char* last = text.data() + text.size();
  const auto [end, error] = std::from_chars(text.data(), last, value);
  if (text.empty() || error != std::errc() || end != last) return std::nullopt;
  return value;
}

std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", v);
  return text;
}

std::string objects_json(const World& world, const v1::Chunk& chunk) {
  std::unordered_map<uint64_t, const std::string*> states;
  for (const v1::ObjectState& s : chunk.object_states()) states[s.id()] = &s.state();
  const v1::Objects& o = chunk.objects();
  const double x0 = static_cast<double>(chunk.coord().x() * world.chunk_size());
  const double z0 = static_cast<double>(chunk.coord().z() * world.chunk_size());
  std::string out = "[";
  for (int k = 0; k < o.id_size(); ++k) {
    out += std::string(k ? "," : "") + "{\"id\":\"" + hex_id(o.id(k)) + "\",\"layer\":\"" +
           world.definition().resources(static_cast<int>(o.layer(k))).name() + "\",\"x\":" + number(x0 + o.x(k)) +
           ",\"z\":" + number(z0 + o.z(k)) + ",\"y\":" + number(o.y(k)) +
           ",\"variant\":" + std::to_string(o.variant(k));
    if (auto state = states.find(o.id(k)); state != states.end())
      out += ",\"state\":\"" + hex_bytes(*state->second) + "\"";
    out += "}";
  }
  return out + "]";
}

std::string structures_json(const World& world, const v1::Chunk& chunk) {
  std::string out = "[";
  for (const v1::StructureInstance& s : chunk.structures()) {
    out += std::string(out.size() > 1 ? "," : "") + "{\"id\":\"" + hex_id(s.id()) + "\",\"type\":\"" +
           world.definition().structures(static_cast<int>(s.type())).name() + "\",\"x\":" + std::to_string(s.x()) +
           ",\"z\":" + std::to_string(s.z()) + ",\"size_x\":" + number(s.size_x()) +
           ",\"size_z\":" + number(s.size_z()) + "}";
  }
  return out + "]";
}

}  // namespace

std::pair<int, std::string> chunk_json(const World& world, const std::string& query, const CurrentChunkFn& current,
                                       const std::atomic<bool>* abandon) {
  const std::optional<int64_t> cx = whole(query_value(query, "cx")), cz = whole(query_value(query, "cz"));
  if (!cx || !cz) return {400, "{\"error\":\"cx and cz must be integers\"}"};
  // Exactly the chunks gRPC GetChunk serves: the world's last chunk on each side included.
  const int64_t limit = chunk_limit(static_cast<uint32_t>(world.chunk_size()));
  for (const auto& [name, value] : {std::pair{"cx", *cx}, std::pair{"cz", *cz}}) {
    if (value < -limit || value > limit) {
      return {400, "{\"error\":\"" + std::string(name) + ": must be in [" + std::to_string(-limit) + ", " +
                       std::to_string(limit) + "] (the supported world, 2^40 units) (got " + std::to_string(value) +
                       ")\"}"};
    }
  }
  const ChunkCoord coord{*cx, *cz};
  v1::Chunk chunk = encode_chunk(world, Generator(world).generate(coord, abandon));
  if (current) chunk = current(coord, std::move(chunk));
  return {200, "{\"chunk\":[" + std::to_string(*cx) + "," + std::to_string(*cz) + "],\"chunk_size\":" +
                   std::to_string(world.chunk_size()) + ",\"edit_version\":" + std::to_string(chunk.edit_version()) +
                   ",\"objects\":" + objects_json(world, chunk) + ",\"structures\":" + structures_json(world, chunk) +
                   "}"};
}

}  // namespace chunkforge::map
