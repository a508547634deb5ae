// PgConnection's connect deadline against a real socket that listens and never answers (the
// kernel completes the handshake into the backlog and nothing reads it, as with a PostgreSQL
// whose processes are stopped): the default bound, a URI's own connect_timeout, and an error
// that names the bound that ran out.
#include "store/pg_connection.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>

namespace chunkforge::server {
namespace {

using Clock = std::chrono::steady_clock;

class SilentListener {
 public:
  SilentListener() : fd_(socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (bind(fd_, reinterpret_cast<sockaddr*>(&address), length) != 0 || listen(fd_, 16) != 0 ||
        getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      port_ = -1;
    } else {
      port_ = ntohs(address.sin_port);
    }
  }
  ~SilentListener() { close(fd_); }
  SilentListener(const SilentListener&) = delete;
  SilentListener& operator=(const SilentListener&) = delete;
  int port() const { return port_; }

 private:
  int fd_;
  int port_;
};

struct Outcome {
  std::string error;
  double seconds;
};

Outcome connect_to(const std::string& uri) {
  const auto start = Clock::now();
  std::string error = "(connected)";
  try {
    PgConnection connection(uri);
  } catch (const StoreError& e) {
    error = e.what();
  }
  return {error, std::chrono::duration<double>(Clock::now() - start).count()};
}

std::string uri(const SilentListener& listener, const std::string& parameters = "") {
  return "postgresql://chunkforge@127.0.0.1:" + std::to_string(listener.port()) + "/world" + parameters;
}

TEST(PgConnectionTest, AServerThatNeverAnswersEndsTheConnectAtTheDefaultTwoSeconds) {
  const SilentListener listener;
  ASSERT_GT(listener.port(), 0);
  const Outcome o = connect_to(uri(listener));
  EXPECT_NE(o.error.find(": cannot connect: no answer within 2000 ms (connection dropped)"), std::string::npos)
      << o.error;
  EXPECT_GE(o.seconds, 1.9);
  EXPECT_LT(o.seconds, 2.9);  // the answer deadline (2.5 s) is not the connect's bound
}

TEST(PgConnectionTest, AUrisOwnConnectTimeoutWinsOverTheDefault) {
  const SilentListener listener;
  ASSERT_GT(listener.port(), 0);
  const Outcome o = connect_to(uri(listener, "?connect_timeout=3"));
  EXPECT_NE(o.error.find(": cannot connect: no answer within 3000 ms"), std::string::npos) << o.error;
  EXPECT_GE(o.seconds, 2.9);
  EXPECT_LT(o.seconds, 4.5);
}

TEST(PgConnectionTest, AConnectTimeoutOfZeroStillEndsAtTheDefault) {
  // libpq reads 0 as "no limit"; every wait of the store is bounded, so the default holds.
  const SilentListener listener;
  ASSERT_GT(listener.port(), 0);
  const Outcome o = connect_to(uri(listener, "?connect_timeout=0"));
  EXPECT_NE(o.error.find("no answer within 2000 ms"), std::string::npos) << o.error;
  EXPECT_LT(o.seconds, 2.9);
}

}  // namespace
}  // namespace chunkforge::server
