// One HTTP/1.1 GET on loopback with a time limit, for tests of the side port from outside (the
// hostile scenarios' /healthz prober, the server binary's map).
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>

namespace chunkforge::test {

// A non-blocking TCP socket bound to the local address `from`, connecting to loopback `port`
// (the connection completes in the background: poll for POLLOUT); -1 if no socket is left.
inline int connect_from(const char* from, int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  sockaddr_in local{}, remote{};
  local.sin_family = remote.sin_family = AF_INET;
  inet_pton(AF_INET, from, &local.sin_addr);
  (void)bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof local);  // unbound: the connect fails
  remote.sin_port = htons(static_cast<uint16_t>(port));
  remote.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  (void)connect(fd, reinterpret_cast<sockaddr*>(&remote), sizeof remote);  // EINPROGRESS
  return fd;
}

// One HTTP/1.1 GET on loopback; the status, or 0 if no answer came within `limit`. `from`:
// the local address to connect from (attackers use 127.0.0.2, so that per-address limits can
// tell them apart from the probe, as a load balancer's own address would be). `headers`: more
// header lines, each ending in "\r\n".
inline int http_get(int port, const std::string& target, std::chrono::milliseconds limit,
                    const char* from = "127.0.0.1", std::string* body = nullptr, const std::string& headers = "") {
  const int fd = connect_from(from, port);
  if (fd < 0) return 0;
  using std::chrono::duration_cast, std::chrono::milliseconds, std::chrono::steady_clock;
  const auto end = steady_clock::now() + limit;
  const auto left = [&] {
    return static_cast<int>(std::max<int64_t>(0, duration_cast<milliseconds>(end - steady_clock::now()).count()));
  };
  pollfd p{fd, POLLOUT, 0};
  std::string received;
  if (poll(&p, 1, left()) == 1 && (p.revents & POLLOUT)) {
    const std::string request = "GET " + target + " HTTP/1.1\r\nHost: localhost\r\n" + headers + "\r\n";
    if (send(fd, request.data(), request.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(request.size())) {
      for (p = {fd, POLLIN, 0}; poll(&p, 1, left()) == 1;) {
        char chunk[4096];
        const ssize_t n = recv(fd, chunk, sizeof chunk, 0);
        if (n <= 0) break;
        received.append(chunk, static_cast<size_t>(n));
      }
    }
  }
  close(fd);
  if (received.rfind("HTTP/1.1 ", 0) != 0 || received.size() < 12) return 0;
  if (body != nullptr) {
    const size_t blank = received.find("\r\n\r\n");
    *body = blank == std::string::npos ? "" : received.substr(blank + 4);
  }
  return std::stoi(received.substr(9, 3));
}

}  // namespace chunkforge::test
