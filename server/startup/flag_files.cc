// Reading a file a flag names (see flag_files.h): checked with std::filesystem first, then read
// with C stdio, which reports errors by return value instead of exceptions.
#include "startup/flag_files.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

namespace chunkforge::server {

std::optional<std::string> read_flag_file(const std::string& flag, const std::string& path, std::string& error,
                                          size_t max_bytes) {
  const std::string named = flag + " \"" + path + "\": ";
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) {
    error = named + "cannot read it (" + (ec ? ec.message() : "no such file") + ")";
    return std::nullopt;
  }
  if (std::filesystem::is_directory(status)) {
    error = named + "is a directory, not a file";
    return std::nullopt;
  }
  std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) {
    error = named + "cannot read it (" + std::strerror(errno) + ")";
    return std::nullopt;
  }
  std::string bytes;
  char buffer[16384];
  while (size_t n = std::fread(buffer, 1, sizeof buffer, file.get())) {
    bytes.append(buffer, n);
    if (bytes.size() > max_bytes) {
      error = named + "is larger than " + std::to_string(max_bytes) + " bytes";
      return std::nullopt;
    }
  }
  if (std::ferror(file.get())) {
    error = named + "cannot read it (" + std::strerror(errno) + ")";
    return std::nullopt;
  }
  return bytes;
}

}  // namespace chunkforge::server
