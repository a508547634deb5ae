#include "metrics.h"

#include <sstream>

#include "chunk_cache.h"

namespace chunkforge::server {

void Metrics::generated(double seconds) {
  size_t bucket = 0;
  while (bucket < kBuckets.size() && seconds > kBuckets[bucket]) ++bucket;
  ++generation_buckets_[bucket];
  ++generation_count_;
  generation_micros_ += static_cast<uint64_t>(seconds * 1e6);
}

std::string Metrics::render(const CacheStats& cache, size_t queue_depth) const {
  static const char* kMethods[] = {"GetWorldInfo", "GetChunk", "StreamRegion", "Session"};
  std::ostringstream out;
  out << "# HELP chunkforge_requests_total RPCs received, by method.\n"
      << "# TYPE chunkforge_requests_total counter\n";
  for (int m = 0; m < kMethodCount; ++m) {
    out << "chunkforge_requests_total{method=\"" << kMethods[m] << "\"} " << requests_[m] << '\n';
  }
  out << "# HELP chunkforge_request_errors_total RPCs that ended with an error status, by method.\n"
      << "# TYPE chunkforge_request_errors_total counter\n";
  for (int m = 0; m < kMethodCount; ++m) {
    out << "chunkforge_request_errors_total{method=\"" << kMethods[m] << "\"} " << errors_[m] << '\n';
  }
  out << "# HELP chunkforge_chunks_sent_total Chunks sent by GetChunk and StreamRegion.\n"
      << "# TYPE chunkforge_chunks_sent_total counter\n"
      << "chunkforge_chunks_sent_total " << chunks_sent_ << '\n'
      << "# HELP chunkforge_cache_hits_total Chunk requests answered from the cache.\n"
      << "# TYPE chunkforge_cache_hits_total counter\n"
      << "chunkforge_cache_hits_total " << cache.hits << '\n'
      << "# HELP chunkforge_cache_misses_total Chunk requests that started a generation.\n"
      << "# TYPE chunkforge_cache_misses_total counter\n"
      << "chunkforge_cache_misses_total " << cache.misses << '\n'
      << "# HELP chunkforge_cache_joined_total Chunk requests that joined a generation under way.\n"
      << "# TYPE chunkforge_cache_joined_total counter\n"
      << "chunkforge_cache_joined_total " << cache.joined << '\n'
      << "# HELP chunkforge_cache_evictions_total Cached chunks evicted for space.\n"
      << "# TYPE chunkforge_cache_evictions_total counter\n"
      << "chunkforge_cache_evictions_total " << cache.evictions << '\n'
      << "# HELP chunkforge_cache_bytes Bytes of encoded chunks in the cache.\n"
      << "# TYPE chunkforge_cache_bytes gauge\n"
      << "chunkforge_cache_bytes " << cache.bytes << '\n'
      << "# HELP chunkforge_cache_entries Encoded chunks in the cache.\n"
      << "# TYPE chunkforge_cache_entries gauge\n"
      << "chunkforge_cache_entries " << cache.entries << '\n'
      << "# HELP chunkforge_queue_depth Generations waiting for a thread.\n"
      << "# TYPE chunkforge_queue_depth gauge\n"
      << "chunkforge_queue_depth " << queue_depth << '\n'
      << "# HELP chunkforge_active_streams StreamRegion calls in progress.\n"
      << "# TYPE chunkforge_active_streams gauge\n"
      << "chunkforge_active_streams " << active_streams_ << '\n'
      << "# HELP chunkforge_active_sessions Player sessions in progress.\n"
      << "# TYPE chunkforge_active_sessions gauge\n"
      << "chunkforge_active_sessions " << active_sessions_ << '\n'
      << "# HELP chunkforge_generation_seconds Time to generate and encode one chunk.\n"
      << "# TYPE chunkforge_generation_seconds histogram\n";
  uint64_t cumulative = 0;
  for (size_t b = 0; b <= kBuckets.size(); ++b) {
    cumulative += generation_buckets_[b];
    out << "chunkforge_generation_seconds_bucket{le=\"";
    if (b < kBuckets.size()) {
      out << kBuckets[b];
    } else {
      out << "+Inf";
    }
    out << "\"} " << cumulative << '\n';
  }
  out << "chunkforge_generation_seconds_sum " << static_cast<double>(generation_micros_) / 1e6 << '\n'
      << "chunkforge_generation_seconds_count " << generation_count_ << '\n';
  return out.str();
}

}  // namespace chunkforge::server
