// File: server/metrics/metrics.h
//
// Counters the server keeps for /metrics (Prometheus text format): requests by method, calls by
// method and status code, unary calls' latency and generation time as histograms, active
// StreamRegion calls and player sessions, look-ahead prefetches. Cache, queue and output budget
// figures, the log lines a client caused that were left out (log/client_log.h) and the process's
// own (process_metrics.h) are read from their owners when the page is rendered. The generation
// queue's wait is a histogram here; the edit store's figures are EditMetrics' (edit_metrics.h).
//
// Thread safety: every member is atomic; record from any thread.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/edit_metrics.h"
#include "metrics/histogram.h"

namespace chunkforge::server {

struct CacheStats;
class EditService;
class GenerationQueue;
class OutputBudget;

class Metrics {
 public:
  enum Method {
    kGetWorldInfo,
    kGetChunk,
    kStreamRegion,
    kSession,
    kLocate,
    kEdit,
    kGetChunkEdits,
    kEditLog,
    kRollback,
    kMethodCount
  };
  // The RPC names, as /metrics labels and log prefixes, in the enum's order.
  static constexpr auto kMethodNames =
      std::to_array<std::string_view>({"GetWorldInfo", "GetChunk", "StreamRegion", "Session", "Locate", "Edit",
                                       "GetChunkEdits", "EditLog", "Rollback"});
  static_assert(kMethodNames.size() == kMethodCount, "one name per Method");
  // gRPC's status codes by number, as the code label: grpc::StatusCode's 17.
  static constexpr auto kCodeNames = std::to_array<std::string_view>(
      {"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND", "ALREADY_EXISTS",
       "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED",
       "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED"});

  Metrics();

  void request(Method m) { ++requests_[m]; }
  void error(Method m) { ++errors_[m]; }
  // A call ended with status `code` after `seconds` (a unary call's latency; a stream's life is
  // not timed).
  void call_ended(Method m, int code, double seconds);
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
  // A generation job (a chunk, a tile, an edit's check, a Locate) started after waiting
  // `seconds` in the queue.
  void queue_waited(double seconds) { queue_wait_seconds_.observe(seconds); }
  EditMetrics& edits() { return edits_; }

  // The page, with the cache's, the queue's, the output budget's and the edit store's (null:
  // none) current figures. `cache_limit`: the cache's capacity in bytes (--cache-mb).
  std::string render(const CacheStats& cache, size_t cache_limit, const GenerationQueue& queue,
                     const OutputBudget& budget, const EditService* edits) const;

 private:
  static constexpr bool unary(Method m) { return m != kStreamRegion && m != kSession; }
  void render_calls(MetricsPage& page) const;
  void render_call_codes(MetricsPage& page) const;
  void render_generation(MetricsPage& page) const;
  std::array<std::atomic<uint64_t>, kMethodCount> requests_{}, errors_{};
  std::array<std::array<std::atomic<uint64_t>, kCodeNames.size()>, kMethodCount> calls_by_code_{};
  std::deque<Histogram> call_seconds_;  // by method (a deque: a histogram does not move); unary ones observe
  Histogram generation_seconds_, queue_wait_seconds_;
  EditMetrics edits_;
  std::atomic<uint64_t> generation_cpu_micros_{0};
  std::atomic<int64_t> active_streams_{0}, active_sessions_{0};
  std::atomic<uint64_t> chunks_sent_{0}, refused_{0}, look_ahead_fetches_{0};
  std::atomic<uint64_t> lod_tiles_made_{0}, lod_tiles_sent_{0};
};

}  // namespace chunkforge::server
