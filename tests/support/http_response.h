// An HTTP/1.1 response as the side-port tests read it off a raw socket: status, header block
// and body.
#pragma once

#include <string>

namespace chunkforge::test {

struct HttpResponse {
  int status = 0;  // 0: closed without an answer
  std::string head, body;
  // A header's value ("" if absent); `name` as the server spells it.
  std::string header(const std::string& name) const {
    const size_t at = head.find("\r\n" + name + ": ");
    if (at == std::string::npos) return "";
    const size_t start = at + name.size() + 4;
    return head.substr(start, head.find("\r\n", start) - start);
  }
};

// The response in `bytes` (everything read until the server closed).
inline HttpResponse parse_http_response(const std::string& bytes) {
  HttpResponse r;
  const size_t blank = bytes.find("\r\n\r\n");
  if (bytes.rfind("HTTP/1.1 ", 0) != 0 || blank == std::string::npos) return r;
  r.status = std::stoi(bytes.substr(9, 3));
  r.head = bytes.substr(0, blank);
  r.body = bytes.substr(blank + 4);
  return r;
}

}  // namespace chunkforge::test
