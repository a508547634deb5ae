// The TLS file check (see tls_files.h), with OpenSSL, the library gRPC's TLS itself uses.
#include "startup/tls_files.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <memory>

namespace chunkforge::server {
namespace {

template <typename T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};
using Bio = std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>>;
using Certificate = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using Key = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;

Bio memory_bio(const std::string& pem) { return Bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()))); }

// The first certificate of the chain (the server's own), or null.
Certificate first_certificate(const std::string& pem) {
  Bio bio = memory_bio(pem);
  return Certificate(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
}

// OpenSSL's pass phrase callback: none is given. Without it OpenSSL asks for one on the
// terminal, and a server started by hand with an encrypted key waited there for ever.
int no_pass_phrase(char*, int, int, void* encrypted) {
  *static_cast<bool*>(encrypted) = true;
  return 0;
}

// The key, or null; `encrypted` tells whether it needed a pass phrase.
Key private_key(const std::string& pem, bool& encrypted) {
  Bio bio = memory_bio(pem);
  return Key(PEM_read_bio_PrivateKey(bio.get(), nullptr, &no_pass_phrase, &encrypted));
}

}  // namespace

std::optional<std::string> tls_files_error(const std::string& cert_path, const std::string& cert_pem,
                                           const std::string& key_path, const std::string& key_pem) {
  if (cert_pem.empty()) return "--tls-cert \"" + cert_path + "\": the file is empty";
  if (key_pem.empty()) return "--tls-key \"" + key_path + "\": the file is empty";
  const Certificate certificate = first_certificate(cert_pem);
  bool encrypted = false;
  const Key key = private_key(key_pem, encrypted);
  ERR_clear_error();  // the reasons are ours to give; leave nothing queued for gRPC to trip on
  if (!certificate) return "--tls-cert \"" + cert_path + "\": no PEM certificate in the file";
  if (!key && encrypted) {
    return "--tls-key \"" + key_path +
           "\": the private key is encrypted; give the server an unencrypted key "
           "(e.g. openssl pkey -in KEY -out PLAIN) readable only by its user";
  }
  if (!key) return "--tls-key \"" + key_path + "\": no PEM private key in the file";
  if (X509_check_private_key(certificate.get(), key.get()) != 1) {
    ERR_clear_error();
    return "--tls-key \"" + key_path + "\": does not match the certificate in \"" + cert_path + "\"";
  }
  return std::nullopt;
}

}  // namespace chunkforge::server
