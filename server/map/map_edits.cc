// The edits overlay's endpoint (/api/edits?x0=&z0=&x1=&z1=, world units): the edited chunks
// under the viewer's bounds, from the server's edit index, as
// {"chunk_size":64,"chunks":[[x,z,version],...],"truncated":false}. The page outlines them.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>

#include "chunkforge/coord.h"
#include "map_service.h"
#include "tile_key.h"

namespace chunkforge::map {
namespace {

// Outlines beyond this many add nothing a viewer can see: the answer says it was cut.
constexpr size_t kMaxChunks = 4096;

// A world coordinate from the query, clamped to the world limit; nothing if not a number.
std::optional<int64_t> world_unit(const std::string& query, const char* name) {
  const std::string text = query_value(query, name);
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || std::isnan(value)) return std::nullopt;
  const double limit = static_cast<double>(kWorldLimit);
  return static_cast<int64_t>(std::floor(std::clamp(value, -limit, limit)));
}

}  // namespace

std::pair<int, std::string> edits_json(const World& world, const std::string& query, const EditedChunksFn& edited) {
  const auto x0 = world_unit(query, "x0"), z0 = world_unit(query, "z0");
  const auto x1 = world_unit(query, "x1"), z1 = world_unit(query, "z1");
  if (!x0 || !z0 || !x1 || !z1) return {400, "{\"error\":\"x0, z0, x1 and z1 must be numbers\"}"};
  const int64_t cs = world.chunk_size();
  // One more than asked, to tell a full answer from a cut one.
  std::vector<EditedChunk> chunks =
      edited(floor_div(std::min(*x0, *x1), cs), floor_div(std::min(*z0, *z1), cs), floor_div(std::max(*x0, *x1), cs),
             floor_div(std::max(*z0, *z1), cs), kMaxChunks + 1);
  const bool truncated = chunks.size() > kMaxChunks;
  if (truncated) chunks.resize(kMaxChunks);
  std::string body = "{\"chunk_size\":" + std::to_string(cs) + ",\"chunks\":[";
  for (size_t k = 0; k < chunks.size(); ++k) {
    body += (k ? ",[" : "[") + std::to_string(chunks[k].x) + "," + std::to_string(chunks[k].z) + "," +
            std::to_string(chunks[k].version) + "]";
  }
  return {200, body + "],\"truncated\":" + (truncated ? "true" : "false") + "}"};
}

}  // namespace chunkforge::map
