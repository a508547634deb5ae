// WorldService: what every RPC shares: admission slots, authentication, and validating a chunk
// request into the chunk source's job.
#include "rpc/world_service.h"

#include <algorithm>
#include <memory>

#include "chunkforge/encode.h"
#include "chunkforge/region_order.h"
#include "log/client_log.h"

namespace chunkforge::server {
WorldService::WorldService(const World& world, ChunkSource& source, Metrics& metrics, OutputBudget& budget,
                           Limits limits, Auth auth, EditService* edits)
    : world_(world),
      source_(source),
      metrics_(metrics),
      budget_(budget),
      limits_(limits),
      auth_(std::move(auth)),
      player_rates_(auth_.player_edits_per_second, 2 * auth_.player_edits_per_second),
      edits_(edits),
      sessions_(limits.max_sessions),
      streams_(limits.max_streams),
      locates_(limits.max_locates != 0 ? limits.max_locates : 2 * static_cast<uint32_t>(source.threads())),
      finish_gate_(limits.max_finishing_calls),
      info_bytes_(std::make_shared<const std::string>(describe_world(world).SerializeAsString())) {}

uint64_t client_of(const grpc::CallbackServerContext& context) { return std::hash<std::string>{}(context.peer()) | 1; }

bool CallSlots::take() {
  uint32_t now = used_.load();
  do {
    if (now >= max_) return false;
  } while (!used_.compare_exchange_weak(now, now + 1));
  return true;
}

// The call's bearer token ("authorization: Bearer <token>"); "" without one.
static std::string bearer(const grpc::CallbackServerContext& context) {
  const auto& metadata = context.client_metadata();
  const auto it = metadata.find("authorization");
  constexpr std::string_view kScheme = "Bearer ";
  if (it == metadata.end() || it->second.size() <= kScheme.size()) return "";
  if (std::string_view(it->second.data(), kScheme.size()) != kScheme) return "";
  return std::string(it->second.data() + kScheme.size(), it->second.size() - kScheme.size());
}

// True if `given` is `token` (not empty). Constant time: no early exit that would tell how
// much of the token matched.
static bool same_token(const std::string& given, const std::string& token) {
  if (token.empty() || given.size() != token.size()) return false;
  unsigned char diff = 0;
  for (size_t k = 0; k < token.size(); ++k) diff |= static_cast<unsigned char>(given[k] ^ token[k]);
  return diff == 0;
}

// Who the caller is by its bearer token, sent from `peer` (an address, for the bound on failed
// checks): the write token is the service, a player token that verifies its player or
// moderator, anything else a reader (what a reader may do is checked apart). UNAUTHENTICATED
// for a player token that does not verify.
static grpc::Status identify(const Auth& auth, const std::string& token, const std::string& peer, Caller& caller) {
  caller = {};
  if (same_token(token, auth.write_token)) {
    caller.role = Caller::Role::kService;
    return grpc::Status::OK;
  }
  // A JWT has two dots; the shared tokens are checked first, so one that has dots still works.
  if (auth.player_tokens && std::count(token.begin(), token.end(), '.') == 2 && !same_token(token, auth.token)) {
    return auth.player_tokens->verify(token, caller, 0, peer);
  }
  return grpc::Status::OK;
}

// The call's address without its port ("ipv4:10.0.0.7:40000" -> "ipv4:10.0.0.7").
static std::string peer_address(const grpc::CallbackServerContext& context) {
  const std::string& peer = context.peer();
  return peer.substr(0, peer.rfind(':'));
}

grpc::Status WorldService::authenticate(const grpc::CallbackServerContext& context) const {
  const std::string token = bearer(context);
  if (auth_.token.empty() || same_token(token, auth_.token) || same_token(token, auth_.write_token)) {
    return grpc::Status::OK;
  }
  if (auth_.player_tokens) {
    Caller caller;
    if (grpc::Status status = identify(auth_, token, peer_address(context), caller); !status.ok()) return status;
    if (caller.role != Caller::Role::kReader) return grpc::Status::OK;
  }
  return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                      "missing or wrong token: send the metadata \"authorization: Bearer <token>\"");
}

grpc::Status WorldService::authorize_edit(const grpc::CallbackServerContext& context, Caller& caller) const {
  return authorize_edit(bearer(context), peer_address(context), caller);
}

grpc::Status WorldService::authorize_edit(const std::string& token, const std::string& peer, Caller& caller) const {
  if (edits_ == nullptr && !auth_.store_error.empty()) {
    return {grpc::StatusCode::UNAVAILABLE, auth_.store_error + ": edit not applied; retry later"};
  }
  if (edits_ == nullptr) {
    return {grpc::StatusCode::FAILED_PRECONDITION,
            "this server keeps no edits (start it with --data DIR or --store URI)"};
  }
  if (grpc::Status status = identify(auth_, token, peer, caller); !status.ok()) return status;
  if (caller.role != Caller::Role::kReader) return grpc::Status::OK;
  if (auth_.open_edits) {
    caller.role = Caller::Role::kService;  // local development: anyone may name an author
    return grpc::Status::OK;
  }
  if (auth_.write_token.empty() && !auth_.player_tokens) {
    return {grpc::StatusCode::PERMISSION_DENIED,
            "edits are closed: the server was started without a write token (--write-token-file; --open-edits "
            "for local development)"};
  }
  return {grpc::StatusCode::PERMISSION_DENIED,
          "this call may read, not edit: send a player's token or the write token as \"authorization: Bearer "
          "<token>\""};
}

grpc::Status WorldService::authorize_moderation(const grpc::CallbackServerContext& context, Caller& caller) const {
  return authorize_moderation(bearer(context), peer_address(context), caller);
}

grpc::Status WorldService::authorize_moderation(const std::string& token, const std::string& peer,
                                                Caller& caller) const {
  if (grpc::Status status = authorize_edit(token, peer, caller); !status.ok()) return status;
  if (caller.role == Caller::Role::kModerator || caller.role == Caller::Role::kService) return grpc::Status::OK;
  return {grpc::StatusCode::PERMISSION_DENIED,
          "moderation needs a moderator's token (role \"moderator\") or the write token; player " + caller.player +
              " may only edit"};
}

grpc::Status WorldService::make_job(const v1::ChunkCoord& coord, const v1::ChunkOptions& options,
                                    const std::string& field, ChunkJob& job) const {
  const int64_t limit = chunk_limit();
  for (const auto& [name, value] : {std::pair{".x", coord.x()}, std::pair{".z", coord.z()}}) {
    if (value < -limit || value > limit) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                          field + name + ": must be in [" + std::to_string(-limit) + ", " + std::to_string(limit) +
                              "] (the supported world, 2^40 units) (got " + std::to_string(value) + ")");
    }
  }
  const uint32_t step = options.terrain_step() == 0 ? 1 : options.terrain_step();
  if (options.include_terrain() && (step > world_.chunk_size() || world_.chunk_size() % step != 0)) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "options.terrain_step: must divide the chunk size " +
                                                                std::to_string(world_.chunk_size()) + " (got " +
                                                                std::to_string(step) + ")");
  }
  const uint64_t side = world_.chunk_size() / step;
  if (options.include_terrain() && side * side > limits_.max_terrain_samples) {
    return {grpc::StatusCode::INVALID_ARGUMENT,
            "options.terrain_step: at most " + std::to_string(limits_.max_terrain_samples) +
                " terrain samples per chunk; with chunk size " + std::to_string(world_.chunk_size()) + ", step " +
                std::to_string(step) + " gives " + std::to_string(side * side) + " (use a larger step)"};
  }
  std::vector<uint32_t> layers(options.layers().begin(), options.layers().end());
  for (uint32_t id : layers) {
    if (id >= world_.resources().size()) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "options.layers: layer ids are in [0, " +
                                                                  std::to_string(world_.resources().size()) +
                                                                  ") (got " + std::to_string(id) + ")");
    }
  }
  std::sort(layers.begin(), layers.end());
  layers.erase(std::unique(layers.begin(), layers.end()), layers.end());
  v1::ChunkOptions canonical;
  canonical.set_include_terrain(options.include_terrain());
  canonical.set_terrain_step(options.include_terrain() ? step : 0);
  for (uint32_t id : layers) canonical.add_layers(id);
  job = source_.job({coord.x(), coord.z()}, std::move(canonical));
  return grpc::Status::OK;
}

grpc::Status WorldService::check_region(const v1::StreamRegionRequest& request, Region& region) const {
  if (request.radius() > limits_.max_radius) {
    return {grpc::StatusCode::INVALID_ARGUMENT, "radius: must be in [0, " + std::to_string(limits_.max_radius) +
                                                    "] (got " + std::to_string(request.radius()) + ")"};
  }
  // The centre first (centre +- radius must not overflow on the way), then the two far corners:
  // every chunk of the square lies between them.
  ChunkJob job;
  if (grpc::Status status = make_job(request.centre(), request.options(), "centre", job); !status.ok()) return status;
  const int64_t r = request.radius();
  for (const int64_t sign : {-1, 1}) {
    v1::ChunkCoord corner;
    corner.set_x(job.coord.x + sign * r);
    corner.set_z(job.coord.z + sign * r);
    ChunkJob ignored;
    if (grpc::Status status = make_job(corner, request.options(), "centre", ignored); !status.ok()) return status;
  }
  region.coords = nearest_first(job.coord, r);
  region.options = std::move(job.options);
  return grpc::Status::OK;
}

grpc::Status WorldService::queue_full() {
  return {grpc::StatusCode::RESOURCE_EXHAUSTED, "the server's generation queue is full; retry later"};
}

grpc::Status WorldService::dropped_status(const ChunkJob& job, const char* otherwise) const {
  if (job.version > 0 && edits_ != nullptr && !edits_->health().up()) return edits_->health().unavailable();
  return {grpc::StatusCode::CANCELLED, otherwise};
}

}  // namespace chunkforge::server
