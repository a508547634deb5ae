// File: tests/support/jwt_signer.h
//
// The game's auth service, for tests: a fresh key pair (EC P-256 by default, or RSA 2048) made
// with OpenSSL, and tokens signed with libjwt as any JWT library would sign them.
//
//   test::JwtSigner auth;
//   write_file(dir + "player.pem", auth.public_pem());
//   std::string token = auth.sign({{"sub", "alice"}, {"iss", "game"}, {"aud", "world"}}, 3600);
#pragma once

#include <jwt.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

namespace chunkforge::test {

class JwtSigner {
 public:
  explicit JwtSigner(bool rsa = false) : rsa_(rsa) {
    EVP_PKEY* key = rsa ? EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", size_t{2048})
                        : EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256");
    if (key == nullptr) throw std::runtime_error("key generation failed");
    private_pem_ = pem(key, true);
    public_pem_ = pem(key, false);
    EVP_PKEY_free(key);
  }

  const std::string& public_pem() const { return public_pem_; }
  const std::string& private_pem() const { return private_pem_; }

  // A token with these string claims, expiring `lifetime_seconds` from now (no exp if 0).
  // `alg`: the header's algorithm; JWT_ALG_HS256 with `key` signs with that as the secret.
  std::string sign(const std::map<std::string, std::string>& claims, long lifetime_seconds,
                   std::optional<jwt_alg_t> alg = std::nullopt, const std::string* key = nullptr) const {
    jwt_t* jwt = nullptr;
    jwt_new(&jwt);
    for (const auto& [name, value] : claims) jwt_add_grant(jwt, name.c_str(), value.c_str());
    if (lifetime_seconds != 0) jwt_add_grant_int(jwt, "exp", now() + lifetime_seconds);
    return encode(jwt, alg, key);
  }
  // A token with the claims of a JSON object, as they are (arrays, numbers: exp, nbf).
  std::string sign_json(const std::string& claims) const {
    jwt_t* jwt = nullptr;
    jwt_new(&jwt);
    jwt_add_grants_json(jwt, claims.c_str());
    return encode(jwt, std::nullopt, nullptr);
  }

  static long now() {
    return static_cast<long>(
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count());
  }

 private:
  // Signs and frees `jwt`.
  std::string encode(jwt_t* jwt, std::optional<jwt_alg_t> alg, const std::string* key) const {
    const std::string& secret = key != nullptr ? *key : private_pem_;
    jwt_set_alg(jwt, alg.value_or(rsa_ ? JWT_ALG_RS256 : JWT_ALG_ES256),
                reinterpret_cast<const unsigned char*>(secret.data()), static_cast<int>(secret.size()));
    char* text = jwt_encode_str(jwt);
    std::string out = text != nullptr ? text : "";
    free(text);  // NOLINT(cppcoreguidelines-no-malloc): libjwt's allocation
    jwt_free(jwt);
    return out;
  }

  static std::string pem(EVP_PKEY* key, bool with_private) {
    BIO* bio = BIO_new(BIO_s_mem());
    if (with_private) {
      PEM_write_bio_PrivateKey(bio, key, nullptr, nullptr, 0, nullptr, nullptr);
    } else {
      PEM_write_bio_PUBKEY(bio, key);
    }
    char* data = nullptr;
    const long size = BIO_get_mem_data(bio, &data);
    std::string out(data, static_cast<size_t>(size));
    BIO_free(bio);
    return out;
  }

  bool rsa_;
  std::string private_pem_, public_pem_;
};

}  // namespace chunkforge::test
