// File: server/metrics/metrics.h
//
// Counters the server keeps for /metrics (Prometheus text format): requests by method, errors,
// generation time as a histogram, active StreamRegion calls and player sessions, look-ahead
// prefetches. Cache, queue and output budget figures, and the log lines a client caused that
// were left out (log/client_log.h), are read from their owners when the page is rendered.
//
// Thread safety: every member is atomic; record from any thread.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

namespace chunkforge::server {

struct MetricsPage;  // metrics.cc: the page being rendered

struct CacheStats;
class OutputBudget;

class Metrics {
 public:
  enum Method { kGetWorldInfo, kGetChunk, kStreamRegion, kSession, kLocate, kEdit, kGetChunkEdits, kMethodCount };
  // The RPC names, as /metrics labels and log prefixes, in the enum's order.
  static constexpr auto kMethodNames = std::to_array<std::string_view>(
      {"GetWorldInfo", "GetChunk", "StreamRegion", "Session", "Locate", "Edit", "GetChunkEdits"});
  static_assert(kMethodNames.size() == kMethodCount, "one name per Method");

  void request(Method m) { ++requests_[m]; }
  void error(Method m) { ++errors_[m]; }
  void stream_started() { ++active_streams_; }
  void stream_ended() { --active_streams_; }
  void session_started() { ++active_sessions_; }
  void session_ended() { --active_sessions_; }
  // A call refused for the server's capacity (sessions, streams) or ended for not reading.
  void refused() { ++refused_; }
  void chunk_sent() { ++chunks_sent_; }
  // A Session prefetched a chunk not cached yet, ahead of its walking player.
  void looked_ahead() { ++look_ahead_fetches_; }
  // A LOD tile made (not found in the cache), and one written to a Session (docs/lod.md).
  void tile_made() { ++lod_tiles_made_; }
  void tile_sent() { ++lod_tiles_sent_; }
  // One chunk generated and encoded in `seconds` of wall time, `cpu_seconds` of its thread's
  // CPU time (the cost of a chunk whatever else shares the cores).
  void generated(double seconds, double cpu_seconds);

  // The page, with the cache's, the queue's and the output budget's current figures.
  std::string render(const CacheStats& cache, size_t queue_depth, const OutputBudget& budget) const;

 private:
  void render_calls(MetricsPage& page) const;
  void render_generation(MetricsPage& page) const;
  // Upper bounds of the generation-time buckets, seconds (the last bucket is +Inf).
  static constexpr std::array<double, 10> kBuckets = {0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 1.0};
  std::array<std::atomic<uint64_t>, kMethodCount> requests_{}, errors_{};
  std::array<std::atomic<uint64_t>, kBuckets.size() + 1> generation_buckets_{};
  std::atomic<uint64_t> generation_count_{0}, generation_micros_{0}, generation_cpu_micros_{0};
  std::atomic<int64_t> active_streams_{0}, active_sessions_{0};
  std::atomic<uint64_t> chunks_sent_{0}, refused_{0}, look_ahead_fetches_{0};
  std::atomic<uint64_t> lod_tiles_made_{0}, lod_tiles_sent_{0};
};

}  // namespace chunkforge::server
