// File: chunkforge/quote.h
//
// User-supplied text inside error messages, made safe for terminals and logs: a name, path or
// value from a world file can hold newlines or terminal escape codes ("\x1b[31m..."), and an
// error that echoed it raw would let the input forge log lines or recolour a terminal.
//
//   error("unknown biome " + quote_input(name));   // unknown biome "jun\ngle"
//
// Printable ASCII stays as it is; \n, \t, \r, \" and \\ become those escapes and every other
// byte (controls, DEL, each byte of non-ASCII UTF-8) \xNN. Input longer than the limit is cut
// there, before escaping, and marked with "..." after the closing quote, so that a 50 MB name
// gives a short message. Output is printable ASCII only. Pure; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace chunkforge {

// Bytes of input a quoted value shows; file paths get more, whole messages from a parser more.
inline constexpr size_t kQuotedInputBytes = 64;

// `text` escaped as described above; `quotes`: escape '"' too (for text inside quotes).
inline std::string escape_input(std::string_view text, bool quotes = true) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto byte = static_cast<unsigned char>(ch);
    switch (ch) {
      case '\n':
        out += "\\n";
        continue;
      case '\t':
        out += "\\t";
        continue;
      case '\r':
        out += "\\r";
        continue;
      case '\\':
        out += "\\\\";
        continue;
      case '"':
        out += quotes ? "\\\"" : "\"";
        continue;
      default:
        break;
    }
    if (byte >= 0x20 && byte < 0x7f) {
      out += ch;
    } else {
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 15];
    }
  }
  return out;
}

// `text` in double quotes, escaped, cut after `max_bytes` bytes of input.
inline std::string quote_input(std::string_view text, size_t max_bytes = kQuotedInputBytes) {
  const bool cut = text.size() > max_bytes;
  return "\"" + escape_input(text.substr(0, cut ? max_bytes : text.size())) + "\"" + (cut ? "..." : "");
}

// A whole message from another component that may echo input (a JSON parser's error quoting
// the document): escaped without quotes, cut after `max_bytes` bytes.
inline std::string sanitize_message(std::string_view text, size_t max_bytes) {
  const bool cut = text.size() > max_bytes;
  return escape_input(text.substr(0, cut ? max_bytes : text.size()), /*quotes=*/false) + (cut ? "..." : "");
}

}  // namespace chunkforge
