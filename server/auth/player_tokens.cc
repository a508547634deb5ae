// Players' signed tokens checked with libjwt (player_tokens.h).
#include "auth/player_tokens.h"

#include <jwt.h>

#include <chrono>
#include <cstdlib>
#include <memory>

namespace chunkforge::server {
namespace {

grpc::Status refused(const std::string& why) {
  return {grpc::StatusCode::UNAUTHENTICATED, "player token refused: " + why};
}

struct JwtFree {
  void operator()(jwt_t* jwt) const { jwt_free(jwt); }
};
using Jwt = std::unique_ptr<jwt_t, JwtFree>;

bool asymmetric(jwt_alg_t alg) {
  switch (alg) {
    case JWT_ALG_RS256:
    case JWT_ALG_RS384:
    case JWT_ALG_RS512:
    case JWT_ALG_ES256:
    case JWT_ALG_ES384:
    case JWT_ALG_ES512:
      return true;
    default:
      return false;
  }
}

// A claim's string value; "" when it is missing or not a string.
std::string grant(jwt_t* jwt, const char* name) {
  const char* value = jwt_get_grant(jwt, name);
  return value != nullptr ? value : "";
}

// Whether `aud` is the audience or a JSON array holding it. The audience is checked at start-up
// to hold no quote or backslash, so finding it quoted in the array's JSON is finding the element.
bool has_audience(jwt_t* jwt, const std::string& audience) {
  if (const char* one = jwt_get_grant(jwt, "aud")) return audience == one;
  char* json = jwt_get_grants_json(jwt, "aud");
  if (json == nullptr) return false;
  const std::string list(json);
  free(json);  // NOLINT(cppcoreguidelines-no-malloc): libjwt's allocation
  return !list.empty() && list.front() == '[' && list.find('"' + audience + '"') != std::string::npos;
}

}  // namespace

grpc::Status PlayerTokens::verify(const std::string& token, Caller& caller, int64_t now, const std::string& from) {
  if (now == 0) {
    now = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  }
  {
    std::lock_guard lock(mutex_);
    const auto it = cache_.find(token);
    if (it != cache_.end() && it->second.expires + kLeewaySeconds > now) {
      caller = it->second.caller;
      return grpc::Status::OK;
    }
  }
  if (!from.empty() && failures_.empty(from)) {
    return refused("too many tokens from " + from + " failed their check: retry in a few seconds");
  }
  Verified verified;
  if (grpc::Status status = check(token, verified, now); !status.ok()) {
    if (!from.empty()) failures_.take(from);
    return status;
  }
  caller = verified.caller;
  std::lock_guard lock(mutex_);
  if (cache_.size() >= kCachedTokens) cache_.clear();  // bounded; the next edits verify again
  cache_[token] = std::move(verified);
  return grpc::Status::OK;
}

grpc::Status PlayerTokens::check(const std::string& token, Verified& out, int64_t now) const {
  jwt_t* raw = nullptr;
  const auto* key = reinterpret_cast<const unsigned char*>(rules_.public_key_pem.data());
  if (jwt_decode(&raw, token.c_str(), key, static_cast<int>(rules_.public_key_pem.size())) != 0 || raw == nullptr) {
    return refused("not a token signed by the game's key (malformed, tampered with, or signed by another key)");
  }
  const Jwt jwt(raw);
  if (!asymmetric(jwt_get_alg(jwt.get()))) {
    return refused("its algorithm is not RS256/384/512 or ES256/384/512");
  }
  const long expires = jwt_get_grant_int(jwt.get(), "exp");
  if (expires <= 0) return refused("it has no expiry (exp)");
  if (expires + kLeewaySeconds <= now) return refused("it expired at " + std::to_string(expires) + " (Unix time)");
  if (const long not_before = jwt_get_grant_int(jwt.get(), "nbf"); not_before - kLeewaySeconds > now) {
    return refused("it is not valid before " + std::to_string(not_before) + " (Unix time)");
  }
  if (grant(jwt.get(), "iss") != rules_.issuer) return refused("its issuer (iss) is not \"" + rules_.issuer + "\"");
  if (!has_audience(jwt.get(), rules_.audience)) {
    return refused("it is for another world: its audience (aud) is not \"" + rules_.audience + "\"");
  }
  const std::string subject = grant(jwt.get(), "sub");
  if (subject.empty() || subject.size() > kMaxPlayerNameBytes) {
    return refused("its subject (sub, the player) must be 1 to " + std::to_string(kMaxPlayerNameBytes) + " bytes");
  }
  out.caller.player = subject;
  out.caller.role = grant(jwt.get(), "role") == "moderator" ? Caller::Role::kModerator : Caller::Role::kPlayer;
  out.expires = expires;
  return grpc::Status::OK;
}

}  // namespace chunkforge::server
