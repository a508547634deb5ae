// File: chunkforge/hex_text.h
//
// Ids and opaque bytes as chunkforge writes them in text: an id as 16 lower-case hex digits,
// bytes (an object's state) as two hex digits each. Written once because every place must agree:
// `chunkforge chunk` and `locate` print them, `chunkforge edit` takes them back (`set-state ID
// HEX`) and prints the ids it added, the live map's /api/chunk shows the same text, and the
// server's refusals of an edit name ids so.
//
//   hex_id(0x2a)          // "000000000000002a"
//   hex_bytes("\x01\xff") // "01ff"
//
// Header-only and dependency-free, in chunkforge::common: the live map's library (server/map)
// reaches it through chunkforge::gen, and the `chunkforge` command links it whether or not the
// server, and so the map library, is built. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace chunkforge {

// 16 hex digits, lower case, zero-padded.
inline std::string hex_id(uint64_t id) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(id));
  return text;
}

// Two lower-case hex digits a byte: what JSON strings can hold of bytes that are not text.
inline std::string hex_bytes(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * bytes.size());
  for (const char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    out += kDigits[b >> 4];
    out += kDigits[b & 0xf];
  }
  return out;
}

}  // namespace chunkforge
