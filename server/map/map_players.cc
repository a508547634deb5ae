// The players overlay's endpoint (/api/players, only with chunkforge-server --map-players): the
// live sessions' numbers and latest positions, which the page draws as markers every 2 s.
#include <cstdio>

#include "map_service.h"

namespace chunkforge::map {

std::string players_json(const std::vector<PlayerMarker>& players) {
  std::string body = "{\"players\":[";
  for (size_t k = 0; k < players.size(); ++k) {
    char entry[96];  // %.17g: the position exactly as the session sent it
    std::snprintf(entry, sizeof entry, "%s{\"id\":%llu,\"x\":%.17g,\"z\":%.17g}", k ? "," : "",
                  static_cast<unsigned long long>(players[k].id), players[k].x, players[k].z);
    body += entry;
  }
  return body + "]}";
}

}  // namespace chunkforge::map
