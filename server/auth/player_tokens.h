// File: server/auth/player_tokens.h
//
// Players' signed tokens (docs/edits.md, "Who may edit"): JSON Web Tokens that the game's own
// auth service signs with its private key, checked here with its public key (libjwt over
// OpenSSL): the signature, an asymmetric algorithm (RS* or ES*: never HS*, which would take
// the public key as a shared secret anyone can sign with), the expiry (required), nbf, the
// issuer and the audience. The subject is the player; a `role` claim of "moderator" makes a
// moderator, anything else (or none) a player.
//
//   PlayerTokens tokens({pem, "https://auth.example.com", "my-world"});
//   Caller caller;
//   grpc::Status s = tokens.verify(jwt, caller);  // caller.player == the token's "sub"
//
// Verifying costs about half a millisecond of CPU (libjwt reads the PEM key and checks the
// signature), so a verified token is kept until it expires: a player's next call pays a hash
// lookup (tens of nanoseconds). At most kCachedTokens are kept (when full, the cache starts
// over). Tokens that fail are what an attacker would send to burn CPU: an address may fail
// kFailureBurst checks, then kFailuresPerSecond, and its unknown tokens are refused unchecked
// meanwhile (a known, cached token still works). Thread safety: every method may be called from
// any thread.
#pragma once

#include <grpcpp/support/status.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

#include "auth/token_buckets.h"

namespace chunkforge::server {

// Who a call is, as its credentials say.
struct Caller {
  enum class Role { kReader, kPlayer, kModerator, kService };
  Role role = Role::kReader;
  std::string player;  // a token's subject (players and moderators); "" otherwise
};

struct TokenRules {
  std::string public_key_pem;  // the game's auth service's key (RSA or EC)
  std::string issuer;          // the `iss` every token must carry
  std::string audience;        // a value the token's `aud` must be or hold (this world)
};

// Subjects longer than this are refused (they become stored author names).
inline constexpr size_t kMaxPlayerNameBytes = 128;

class PlayerTokens {
 public:
  explicit PlayerTokens(TokenRules rules) : rules_(std::move(rules)) {}

  // OK with `caller` filled, or UNAUTHENTICATED saying why (expired, another world's, not
  // signed by the game's key ...). `now` is Unix seconds; 0 takes the clock. `from`: the
  // caller's address, whose failed checks are bounded ("": not bounded).
  grpc::Status verify(const std::string& token, Caller& caller, int64_t now = 0, const std::string& from = "");

  static constexpr size_t kCachedTokens = 65536;
  static constexpr double kFailuresPerSecond = 16, kFailureBurst = 64;
  // Seconds a token's exp and nbf may be off by (clocks of two machines).
  static constexpr int64_t kLeewaySeconds = 30;

 private:
  struct Verified {
    Caller caller;
    int64_t expires = 0;
  };
  grpc::Status check(const std::string& token, Verified& out, int64_t now) const;

  const TokenRules rules_;
  std::mutex mutex_;
  std::unordered_map<std::string, Verified> cache_;
  TokenBuckets failures_{kFailuresPerSecond, kFailureBurst};  // by address
};

}  // namespace chunkforge::server
