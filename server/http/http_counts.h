// File: server/http/http_counts.h
//
// Responses the HTTP side port wrote, by route class and status code, for /metrics. The route
// class is a fixed set (route_class_of), never the path, so the series stay bounded: 6 classes
// times the status codes the port answers with (100 to 599 at most).
//
//   HttpCounts counts;
//   counts.count(route_class_of("/tiles/terrain/3/1/2.png"), 200);
//   counts.for_each([](std::string_view route, unsigned code, uint64_t n) { ... });
//
// Thread safety: count() and for_each() from any thread (atomic counters).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string_view>

namespace chunkforge::server {

class HttpCounts {
 public:
  enum RouteClass { kHealth, kMetrics, kTiles, kApi, kMap, kOther, kRouteClassCount };
  static constexpr auto kRouteClassNames =
      std::to_array<std::string_view>({"healthz", "metrics", "tiles", "api", "map", "other"});
  static_assert(kRouteClassNames.size() == kRouteClassCount, "one name per RouteClass");

  // The class of a request's target (path and query): /healthz, /metrics, /tiles/..., /api/...,
  // /map and its page and assets; anything else, and a request never read, is kOther.
  static RouteClass route_class_of(std::string_view target) {
    const std::string_view path = target.substr(0, target.find('?'));
    if (path == "/healthz") return kHealth;
    if (path == "/metrics") return kMetrics;
    if (path.starts_with("/tiles/")) return kTiles;
    if (path.starts_with("/api/")) return kApi;
    if (path == "/map" || path.starts_with("/map/")) return kMap;
    return kOther;
  }

  void count(RouteClass route, unsigned status) {
    if (status < kFirstCode || status >= kFirstCode + kCodes) status = 500;  // Beast's statuses are 3 digits
    ++counts_[route][status - kFirstCode];
  }

  // Calls `each(route class, status code, responses)` for every pair that has happened.
  template <typename Each>
  void for_each(Each&& each) const {
    for (size_t r = 0; r < kRouteClassCount; ++r) {
      for (unsigned c = 0; c < kCodes; ++c) {
        const uint64_t n = counts_[r][c].load(std::memory_order_relaxed);
        if (n > 0) each(kRouteClassNames[r], kFirstCode + c, n);
      }
    }
  }

 private:
  static constexpr unsigned kFirstCode = 100, kCodes = 500;
  std::array<std::array<std::atomic<uint64_t>, kCodes>, kRouteClassCount> counts_{};
};

}  // namespace chunkforge::server
