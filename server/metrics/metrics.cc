// Metrics: the counters behind /metrics and their Prometheus text rendering.
#include "metrics/metrics.h"

#include "budget/output_budget.h"
#include "generation/chunk_cache.h"
#include "generation/generation_queue.h"
#include "log/client_log.h"
#include "metrics/process_metrics.h"

namespace chunkforge::server {
namespace {

// Upper bounds of the buckets, seconds (the last bucket is +Inf): a chunk's generation, and a
// unary call from its start to its status (a cold GetChunk waits for its generation).
const std::vector<double> kGenerationBuckets = {0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 1.0};
// A job's wait in the generation queue: nothing when a worker is idle, up to seconds when
// the queue is deep.
const std::vector<double> kQueueWaitBuckets = {0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                               0.05,   0.1,    0.25,  0.5,    1.0,   2.5,  5.0};
const std::vector<double> kCallBuckets = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                          0.1,    0.25,  0.5,    1.0,   2.5,  5.0,   10.0};

void render_cache(MetricsPage& page, const CacheStats& cache, size_t cache_limit, const GenerationQueue& queue) {
  page.single("cache_hits_total", "counter", "Chunk requests answered from the cache.", cache.hits);
  page.single("cache_misses_total", "counter", "Chunk requests that started a generation.", cache.misses);
  page.single("cache_joined_total", "counter", "Chunk requests that joined a generation under way.", cache.joined);
  page.single("cache_evictions_total", "counter", "Cached chunks evicted for space.", cache.evictions);
  page.single("cache_bytes", "gauge",
              "Memory charged to the cache: chunks, keys, index, allocator overhead (at most --cache-mb).",
              cache.bytes);
  page.single("cache_limit_bytes", "gauge", "The most cache_bytes may reach (--cache-mb).", cache_limit);
  page.single("cache_payload_bytes", "gauge", "Bytes of encoded chunks in the cache (in cache_bytes).",
              cache.payload_bytes);
  page.single("cache_entries", "gauge", "Encoded chunks in the cache.", cache.entries);
  page.single("queue_depth", "gauge", "Generations waiting for a thread.", queue.depth());
  page.single("queue_max_jobs", "gauge",
              "The most queue_depth may reach: beyond it views are refused (prefetches and Locate beyond half).",
              queue.max_jobs());
}

void render_output(MetricsPage& page, const OutputBudget& budget) {
  const OutputBudget::Stats output = budget.stats();
  page.single("output_held_bytes", "gauge",
              "Bytes of answers and events handed to clients' connections, not yet written.", output.held_bytes);
  page.single("output_budget_bytes", "gauge", "The most output_held_bytes may reach (--output-budget-mb).",
              budget.limits().total_bytes);
  page.single("output_connection_budget_bytes", "gauge",
              "The most one connection may hold before it gets no more (--connection-output-mb).",
              budget.limits().connection_bytes);
  page.single("output_refused_total", "counter",
              "Unary calls refused (RESOURCE_EXHAUSTED) because their connection or the server held its budget.",
              output.refused);
  page.single("output_waits_total", "counter", "Stream writes that waited for their connection to have room.",
              output.waits);
  page.single("output_stalled_total", "counter",
              "Calls ended because their answer was not written within the stall timeout (the client did not read).",
              output.stalled);
}

void render_suppressed_logs(MetricsPage& page) {
  page.header("log_lines_suppressed_total", "counter",
              "Log lines a client caused that the rate limit of their kind left out, by kind (process-wide).");
  for (size_t k = 0; k < kLogKindNames.size(); ++k) {
    page.out << "chunkforge_log_lines_suppressed_total{kind=\"" << kLogKindNames[k] << "\"} "
             << client_log_limiter().suppressed(static_cast<LogKind>(k)) << '\n';
  }
}

}  // namespace

Metrics::Metrics() : generation_seconds_(kGenerationBuckets), queue_wait_seconds_(kQueueWaitBuckets) {
  for (int m = 0; m < kMethodCount; ++m) call_seconds_.emplace_back(kCallBuckets);
}

void Metrics::generated(double seconds, double cpu_seconds) {
  generation_seconds_.observe(seconds);
  generation_cpu_micros_ += static_cast<uint64_t>(cpu_seconds * 1e6);
}

void Metrics::call_ended(Method m, int code, double seconds) {
  if (code >= 0 && code < static_cast<int>(kCodeNames.size())) ++calls_by_code_[m][code];
  if (unary(m)) call_seconds_[m].observe(seconds);
}

std::string Metrics::render(const CacheStats& cache, size_t cache_limit, const GenerationQueue& queue,
                            const OutputBudget& budget, const EditService* edits) const {
  MetricsPage page;
  render_calls(page);
  render_call_codes(page);
  render_cache(page, cache, cache_limit, queue);
  render_output(page, budget);
  page.single("active_streams", "gauge", "StreamRegion calls in progress.", active_streams_.load());
  page.single("active_sessions", "gauge", "Player sessions in progress.", active_sessions_.load());
  render_generation(page);
  edits_.render(page, edits);
  render_suppressed_logs(page);
  render_process(page);
  return page.out.str();
}

void Metrics::render_calls(MetricsPage& page) const {
  auto by_method = [&](const char* name, const char* help, const auto& values) {
    page.header(name, "counter", help);
    for (int m = 0; m < kMethodCount; ++m) {
      page.out << "chunkforge_" << name << "{method=\"" << kMethodNames[m] << "\"} " << values[m] << '\n';
    }
  };
  by_method("requests_total", "RPCs received, by method.", requests_);
  by_method("request_errors_total", "RPCs that ended with an error status, by method.", errors_);
  page.single("chunks_sent_total", "counter", "Chunks sent by GetChunk, StreamRegion and Session.",
              chunks_sent_.load());
  page.single("refused_total", "counter", "Calls refused or ended for capacity (RESOURCE_EXHAUSTED).", refused_.load());
  page.single("look_ahead_fetches_total", "counter",
              "Chunks not cached yet that a Session prefetched ahead of its player.", look_ahead_fetches_.load());
  page.single("lod_tiles_made_total", "counter", "LOD tiles made (not found in the cache) for Sessions.",
              lod_tiles_made_.load());
  page.single("lod_tiles_sent_total", "counter", "LOD tiles written to Sessions.", lod_tiles_sent_.load());
}

void Metrics::render_generation(MetricsPage& page) const {
  page.single("generation_cpu_seconds_total", "counter",
              "CPU time of the generation threads generating and encoding chunks (per chunk: divide by "
              "generation_seconds_count).",
              static_cast<double>(generation_cpu_micros_) / 1e6);
  page.header("generation_seconds", "histogram", "Time to generate and encode one chunk.");
  generation_seconds_.render(page, "generation_seconds", "");
  page.header("queue_wait_seconds", "histogram",
              "Time a generation job (a chunk, a tile, an edit's check, a Locate) waited in the queue before a thread "
              "ran it.");
  queue_wait_seconds_.render(page, "queue_wait_seconds", "");
}

// Every method's OK count, and each other code once it has happened; then unary latency.
void Metrics::render_call_codes(MetricsPage& page) const {
  page.header("calls_total", "counter",
              "RPCs ended, by method and gRPC status code (CANCELLED: the client left or its deadline passed).");
  for (int m = 0; m < kMethodCount; ++m) {
    for (size_t c = 0; c < kCodeNames.size(); ++c) {
      const uint64_t n = calls_by_code_[m][c];
      if (n == 0 && c != 0) continue;
      page.out << "chunkforge_calls_total{method=\"" << kMethodNames[m] << "\",code=\"" << kCodeNames[c] << "\"} " << n
               << '\n';
    }
  }
  page.header("call_seconds", "histogram",
              "Unary RPCs' time from their start to their status, by method (a cold GetChunk includes its "
              "generation).");
  for (int m = 0; m < kMethodCount; ++m) {
    if (!unary(static_cast<Method>(m))) continue;
    call_seconds_[m].render(page, "call_seconds", "method=\"" + std::string(kMethodNames[m]) + "\"");
  }
}

}  // namespace chunkforge::server
