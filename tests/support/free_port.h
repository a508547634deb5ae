// A loopback TCP port nothing listens on, for tests that must know a port before a process
// binds it (a restart on the same port, a config file written first): bound, then released.
//
// Chosen at random below the kernel's ephemeral range (Linux: 32768 and up), not asked of the
// kernel with port 0: an ephemeral port, once released, is the next one the kernel may give
// any outgoing connection as its source port, and with many tests connecting at once one of
// them took it before the server bound it ("Address already in use"). Below that range only
// another test picking the same port at random can collide. Within one process a port is
// handed out once: a test that picks several before starting anything (the scale-out test's
// replicas, nginx and PostgreSQL) could otherwise get one twice, all being free until bound.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <mutex>
#include <random>
#include <set>

namespace chunkforge::test {

inline int free_port() {
  constexpr int kLowest = 20000, kHighest = 32767;
  static std::mutex mutex;
  static std::set<int> given;  // a few per test: never near the range's 12,768
  std::lock_guard lock(mutex);
  thread_local std::mt19937 random{std::random_device{}()};
  std::uniform_int_distribution<int> pick(kLowest, kHighest);
  for (;;) {
    const int port = pick(random);
    if (given.count(port) > 0) continue;
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(static_cast<uint16_t>(port));
    const bool bound = bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
    close(fd);
    if (bound) {
      given.insert(port);
      return port;
    }
  }
}

}  // namespace chunkforge::test
