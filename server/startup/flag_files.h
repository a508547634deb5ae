// File: server/startup/flag_files.h
//
// Reading a small file that a flag names (TLS certificate and key, token files), without ever
// throwing or blocking: a directory, a missing or unreadable file, or one larger than the
// flag allows stop start-up with a message naming the flag, the path and the reason (exit 2),
// never an uncaught std::ios_base::failure (a directory used to abort the server).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace chunkforge::server {

// The largest file a flag may name (a certificate chain is a few KiB).
inline constexpr size_t kMaxFlagFileBytes = size_t{1} << 20;

// The file's bytes, or nullopt with `error` set to "FLAG \"PATH\": reason".
std::optional<std::string> read_flag_file(const std::string& flag, const std::string& path, std::string& error,
                                          size_t max_bytes = kMaxFlagFileBytes);

}  // namespace chunkforge::server
