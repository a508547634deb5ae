// File: server/startup/tls_files.h
//
// Checks the server's TLS certificate chain and private key before it starts, so that a bad
// file stops start-up with a message naming the file and the reason, instead of gRPC failing
// to listen without saying why, or (for empty files) the server quietly serving plaintext.
#pragma once

#include <optional>
#include <string>

namespace chunkforge::server {

// What is wrong with the PEM certificate chain and private key (read from `cert_path` and
// `key_path`, named in the message), or nullopt when they are usable together.
std::optional<std::string> tls_files_error(const std::string& cert_path, const std::string& cert_pem,
                                           const std::string& key_path, const std::string& key_pem);

}  // namespace chunkforge::server
