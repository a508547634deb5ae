// A self-signed certificate for localhost, made by openssl for a TLS test, in a directory of
// the test's own.
#pragma once

#include <cstdlib>
#include <string>

#include "support/temp_dir.h"

namespace chunkforge::test {

struct CertificateFiles {
  std::string cert, key;  // PEM files
};

// Empty paths if openssl failed.
inline CertificateFiles make_certificate(const std::string& dir) {
  const CertificateFiles files{dir + "cert.pem", dir + "key.pem"};
  const std::string command =
      "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost "
      "-addext subjectAltName=DNS:localhost -keyout " +
      files.key + " -out " + files.cert + " >/dev/null 2>&1";
  return std::system(command.c_str()) == 0 ? files : CertificateFiles{};
}

}  // namespace chunkforge::test
