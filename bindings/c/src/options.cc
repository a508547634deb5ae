// File: bindings/c/src/options.cc
//
// The C ABI's option structs read into the SDK's options, with the rule chunkforge_c.h states
// for every field: a zero is the documented default, and a value that cannot work is refused
// (CF_INVALID_ARGUMENT naming the field, its range and the value) before anything is made. A
// zeroed struct (`= {0}`, memset) with its struct_size set is therefore the defaults, never a
// client without a deadline or a session whose queue never has room.
#include <cstddef>
#include <cstdint>
#include <limits>

#include "abi.h"

namespace chunkforge::capi {
namespace {

// The bounds the header documents. A deadline beyond an hour, a hundred attempts or a
// 64 GiB buffer in a game client is a unit mistake or garbage, not a setting.
constexpr uint32_t kMaxDeadlineMs = 3'600'000;
constexpr int32_t kMaxAttempts = 100;
constexpr uint32_t kMaxViewRadius = 64;  // the largest --max-radius a server accepts
constexpr uint64_t kMaxBufferBytes = uint64_t{64} << 30;
// A queue smaller than one chunk's event (a default-world chunk with its terrain at step 1 is
// about 30 KiB) would hold the server back after every single chunk.
constexpr uint64_t kMinEventQueueBytes = uint64_t{64} << 10;
// LOD: the largest --max-lod-radius a server accepts, and the deepest level a world has.
constexpr uint32_t kMaxLodRadius = 65536;
constexpr uint32_t kMaxLodLevel = 24;
constexpr uint32_t kMaxGeneratorThreads = 64;
// Ids of resource layers to include: a world has at most 64 layers; repeats are harmless.
constexpr size_t kMaxLayerIds = 1024;

// CF_INVALID_ARGUMENT: "INVALID_ARGUMENT: <field>: must be in [lo, hi]<unit>, 0 for the
// default <default> (got <value>)".
template <typename T>
cf_status out_of_range(const std::string& field, T lo, T hi, const char* unit, T fallback, T got) {
  return fail(CF_INVALID_ARGUMENT, "INVALID_ARGUMENT: " + field + ": must be in [" + std::to_string(lo) + ", " +
                                       std::to_string(hi) + "]" + unit + ", 0 for the default " +
                                       std::to_string(fallback) + " (got " + std::to_string(got) + ")");
}

// `value`, or `fallback` when it is 0; CF_OK, or the refusal when it is outside [lo, hi].
template <typename T, typename Out>
cf_status zero_or_in(const std::string& field, T value, T lo, T hi, const char* unit, T fallback, Out& out) {
  if (value == 0) {
    out = static_cast<Out>(fallback);
    return CF_OK;
  }
  if (value < lo || value > hi) return out_of_range(field, lo, hi, unit, fallback, value);
  out = static_cast<Out>(value);
  return CF_OK;
}

cf_status wrong_struct_size(const char* type, size_t expected, uint32_t got) {
  return fail(CF_INVALID_ARGUMENT, "INVALID_ARGUMENT: options.struct_size: must be " + std::to_string(expected) +
                                       " (got " + std::to_string(got) + "): call " + type + "_init");
}

}  // namespace

cf_status read_chunk_options(const cf_chunk_options* options, const std::string& field, cf::ChunkOptions& out) {
  out = {};
  if (options == nullptr) return CF_OK;
  out.include_terrain = options->include_terrain != 0;
  out.terrain_step = options->terrain_step;  // the server checks it against the world's chunk size
  if (options->layer_count > kMaxLayerIds) {
    return fail(CF_INVALID_ARGUMENT, "INVALID_ARGUMENT: " + field + ".layer_count: must be at most " +
                                         std::to_string(kMaxLayerIds) + " (got " +
                                         std::to_string(options->layer_count) + ")");
  }
  if (options->layers == nullptr && options->layer_count > 0) {
    return fail(CF_INVALID_ARGUMENT, "INVALID_ARGUMENT: " + field + ".layers: must not be NULL when layer_count is " +
                                         std::to_string(options->layer_count));
  }
  if (options->layers != nullptr) out.layers.assign(options->layers, options->layers + options->layer_count);
  return CF_OK;
}

cf_status read_connect_options(const cf_connect_options* options, cf::ConnectOptions& out) {
  const cf::ConnectOptions defaults;
  out = defaults;
  if (options == nullptr) return CF_OK;
  if (options->struct_size != sizeof(cf_connect_options)) {
    return wrong_struct_size("cf_connect_options", sizeof(cf_connect_options), options->struct_size);
  }
  uint32_t deadline_ms = 0;
  cf_status status = zero_or_in<uint32_t>("options.deadline_ms", options->deadline_ms, 1, kMaxDeadlineMs, " ms",
                                          static_cast<uint32_t>(defaults.deadline.count()), deadline_ms);
  if (status != CF_OK) return status;
  out.deadline = std::chrono::milliseconds(deadline_ms);
  status = zero_or_in<int32_t>("options.max_attempts", options->max_attempts, 1, kMaxAttempts, "",
                               defaults.max_attempts, out.max_attempts);
  if (status != CF_OK) return status;
  out.tls = options->tls != 0;
  if (options->tls_root_certificates != nullptr) out.tls_root_certificates = options->tls_root_certificates;
  if (options->tls_server_name != nullptr) out.tls_server_name = options->tls_server_name;
  if (options->bearer_token != nullptr) out.bearer_token = options->bearer_token;
  return CF_OK;
}

cf_status check_lod(const std::string& prefix, uint32_t lod_radius, uint32_t lod_finest_level) {
  if (lod_radius > kMaxLodRadius) {
    return fail(CF_INVALID_ARGUMENT, "INVALID_ARGUMENT: " + prefix + "lod_radius: must be in [0, " +
                                         std::to_string(kMaxLodRadius) + "] chunks, 0 for no tiles (got " +
                                         std::to_string(lod_radius) + ")");
  }
  if (lod_finest_level > kMaxLodLevel) {
    return fail(CF_INVALID_ARGUMENT, "INVALID_ARGUMENT: " + prefix + "lod_finest_level: must be in [0, " +
                                         std::to_string(kMaxLodLevel) + "], 0 for the world's finest (got " +
                                         std::to_string(lod_finest_level) + ")");
  }
  return CF_OK;
}

cf_status read_session_options(const cf_session_options* options, cf::ViewOptions& out, bool& generate_locally) {
  const cf::ViewOptions defaults;
  out = defaults;
  generate_locally = false;
  if (options == nullptr) return CF_OK;
  // ABI 1's struct ends where ABI 2's fields begin; a caller built against it leaves them 0.
  constexpr size_t kAbi1Size = offsetof(cf_session_options, lod_radius);
  const bool abi1 = options->struct_size == kAbi1Size;
  if (!abi1 && options->struct_size != sizeof(cf_session_options)) {
    return fail(CF_INVALID_ARGUMENT, "INVALID_ARGUMENT: options.struct_size: must be " +
                                         std::to_string(sizeof(cf_session_options)) + " (or ABI 1's " +
                                         std::to_string(kAbi1Size) + ") (got " + std::to_string(options->struct_size) +
                                         "): call cf_session_options_init");
  }
  static_assert(kMaxBufferBytes <= std::numeric_limits<size_t>::max(), "the bound must fit the SDK's size_t");
  cf_status status = zero_or_in<uint32_t>("options.view_radius", options->view_radius, 1, kMaxViewRadius, " chunks",
                                          defaults.view_radius, out.view_radius);
  if (status == CF_OK) {
    status = zero_or_in<uint64_t>("options.cache_bytes", options->cache_bytes, 1, kMaxBufferBytes, " bytes",
                                  defaults.cache_bytes, out.cache_bytes);
  }
  if (status == CF_OK) {
    status = zero_or_in<uint64_t>("options.event_queue_bytes", options->event_queue_bytes, kMinEventQueueBytes,
                                  kMaxBufferBytes, " bytes", defaults.event_queue_bytes, out.event_queue_bytes);
  }
  if (status == CF_OK) status = read_chunk_options(&options->chunk, "options.chunk", out.chunk);
  if (status != CF_OK || abi1) return status;
  status = check_lod("options.", options->lod_radius, options->lod_finest_level);
  out.lod_radius = options->lod_radius;
  out.lod_finest_level = options->lod_finest_level;
  generate_locally = options->generate_locally != 0;
  if (status == CF_OK) {
    status = zero_or_in<uint32_t>("options.generator_threads", options->generator_threads, 1, kMaxGeneratorThreads,
                                  " threads", defaults.generator_threads, out.generator_threads);
  }
  return status;
}

}  // namespace chunkforge::capi
