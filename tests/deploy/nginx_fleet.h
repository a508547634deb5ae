// File: tests/deploy/nginx_fleet.h
//
// The scale-out of docs/deploy.md without containers, for the deploy tests: Debian's nginx, with
// the shipped docker/nginx.conf moved to loopback, in front of three chunkforge-server processes
// sharing one PostgreSQL edit store (a throwaway cluster the fixture starts). A replica can be
// stopped and started again on its ports (a rolling update).
#pragma once

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "chunkforge/client.h"
#include "support/free_port.h"
#include "support/postgres_cluster.h"

namespace chunkforge::client::fleet {

using namespace std::chrono_literals;

// A child process, killed (SIGTERM, then SIGKILL) when it goes out of scope.
class Process {
 public:
  explicit Process(std::vector<std::string> argv) {
    // Built before fork: the child of a threaded process may only exec.
    std::vector<char*> args;
    args.reserve(argv.size() + 1);
    for (std::string& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    pid_ = fork();
    if (pid_ == 0) {
      execv(args[0], args.data());
      _exit(127);
    }
  }
  Process(const Process&) = delete;
  ~Process() { stop(SIGTERM); }

  // Sends `signal` and waits up to 5 s for the exit (then SIGKILL): the exit status as waitpid
  // gives it, -1 when it had to be killed or was not running.
  int stop(int signal) {
    if (pid_ <= 0) return -1;
    kill(pid_, signal);
    int status = 0;
    for (int k = 0; k < 500; ++k) {
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return status;
      }
      std::this_thread::sleep_for(10ms);
    }
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
    return -1;
  }

 private:
  pid_t pid_ = -1;
};

// GET http://127.0.0.1:port/metrics, the body.
inline std::string metrics(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string out;
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) {
    const std::string request = "GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
    (void)!write(fd, request.data(), request.size());
    char buffer[4096];
    for (ssize_t n; (n = read(fd, buffer, sizeof buffer)) > 0;) out.append(buffer, static_cast<size_t>(n));
  }
  close(fd);
  return out;
}

// GetChunk calls a replica has received.
inline int64_t get_chunk_calls(int http_port) {
  static const std::regex line(R"re(chunkforge_requests_total\{method="GetChunk"\} (\d+))re");
  std::smatch m;
  const std::string page = metrics(http_port);
  return std::regex_search(page, m, line) ? std::stoll(m[1]) : -1;
}

class NginxFleet : public testing::Test {
 protected:
  static constexpr int kReplicas = 3;

  void SetUp() override {
    ASSERT_TRUE(std::filesystem::exists(CHUNKFORGE_NGINX)) << "nginx is a test package (scripts/lib/common.sh)";
    ASSERT_TRUE(postgres_.started()) << postgres_.failure();
    dir_ = test::unique_temp_dir("nginx_fleet");
    std::filesystem::create_directories(dir_ / "tmp");
    for (int k = 0; k < kReplicas; ++k) {
      grpc_ports_.push_back(test::free_port());
      http_ports_.push_back(test::free_port());
      replicas_.push_back(start_replica(k));
    }
    nginx_port_ = test::free_port();
    const std::string d = dir_.string();
    std::ofstream(dir_ / "nginx.conf") << loopback_config(d);
    nginx_ = std::make_unique<Process>(std::vector<std::string>{CHUNKFORGE_NGINX, "-p", d, "-c", d + "/nginx.conf",
                                                                "-e", d + "/error.log", "-g", "daemon off;"});
    for (int k = 0; k < kReplicas; ++k) {
      Result<Client> direct = Client::connect("127.0.0.1:" + std::to_string(grpc_ports_[k]));
      ASSERT_TRUE(direct);
      ASSERT_TRUE(serving(k)) << "replica " << k << " did not start";
      direct_.push_back(std::move(*direct));
    }
    ConnectOptions options;
    options.max_attempts = 8;
    options.initial_backoff = 50ms;
    options.max_backoff = 400ms;
    Result<Client> balanced = Client::connect("127.0.0.1:" + std::to_string(nginx_port_), options);
    ASSERT_TRUE(balanced);
    balanced_.emplace(std::move(*balanced));
    ASSERT_TRUE(balanced_->health()) << "nginx did not start; see " << d << "/error.log";
  }

  // Replica k's server process, on its ports.
  std::unique_ptr<Process> start_replica(int k) const {
    const auto at = static_cast<size_t>(k);
    return std::make_unique<Process>(std::vector<std::string>{
        CHUNKFORGE_SERVER, "--listen", "127.0.0.1:" + std::to_string(grpc_ports_.at(at)), "--http",
        "127.0.0.1:" + std::to_string(http_ports_.at(at)), "--threads", "1", "--cache-mb", "32", "--log-level", "warn",
        "--store", postgres_.uri(), "--open-edits"});
  }

  // Whether replica k answers its health check, waiting up to about 6 s for it to start.
  bool serving(int k) const {
    ConnectOptions patient;
    patient.max_attempts = 30;
    patient.initial_backoff = 100ms;
    patient.max_backoff = 200ms;
    Result<Client> waiting =
        Client::connect("127.0.0.1:" + std::to_string(grpc_ports_.at(static_cast<size_t>(k))), patient);
    if (!waiting) return false;
    const Result<Health> health = waiting->health();
    return health && *health == Health::serving;
  }

  // The shipped docker/nginx.conf with the replicas and the listener moved to loopback ports,
  // and nginx's own files (pid, logs, temp) moved into the test's directory.
  std::string loopback_config(const std::string& d) const {
    std::ifstream in(std::string(CHUNKFORGE_SOURCE_DIR) + "/docker/nginx.conf");
    std::string config((std::istreambuf_iterator<char>(in)), {});
    int servers = 0, listens = 0;
    std::string out;
    std::smatch m;
    static const std::regex server(R"(server replica-(\d):50051([^;]*);)"), listen(R"(listen 50051 http2;)");
    std::istringstream lines(config);
    for (std::string line; std::getline(lines, line);) {
      if (std::regex_search(line, m, server)) {
        const int k = std::stoi(m[1]) - 1;
        line = m.prefix().str() + "server 127.0.0.1:" + std::to_string(grpc_ports_.at(static_cast<size_t>(k))) +
               m[2].str() + ";";
        ++servers;
      } else if (std::regex_search(line, m, listen)) {
        line = m.prefix().str() + "listen 127.0.0.1:" + std::to_string(nginx_port_) + " http2;";
        ++listens;
      } else if (line == "http {") {
        for (const char* temp : {"client_body", "proxy", "fastcgi", "uwsgi", "scgi"}) {
          line += "\n  " + std::string(temp) + "_temp_path " + d + "/tmp/" + temp + ";";
        }
      }
      out += line + "\n";
    }
    EXPECT_EQ(servers, 2 * kReplicas) << "docker/nginx.conf changed shape: two upstreams of three replicas";
    EXPECT_EQ(listens, 1);
    return std::string(geteuid() == 0 ? "user root;\n" : "") + "pid " + d + "/nginx.pid;\nerror_log " + d +
           "/error.log warn;\n" + out;
  }

  // The last `lines` errors of nginx's log, for a failure's message; refused connections, which
  // nginx passes to the next replica, left out.
  std::string nginx_errors(size_t lines = 10) const {
    std::ifstream in(dir_ / "error.log");
    std::vector<std::string> all;
    for (std::string line; std::getline(in, line);) {
      if (line.find("[error]") != std::string::npos && line.find("(111: Connection refused)") == std::string::npos) {
        all.push_back(line);
      }
    }
    std::string out;
    for (size_t k = all.size() > lines ? all.size() - lines : 0; k < all.size(); ++k) out += all[k] + "\n";
    return out;
  }

  void TearDown() override {
    nginx_.reset();
    replicas_.clear();
    std::filesystem::remove_all(dir_);
  }

  std::vector<int64_t> calls() const {
    std::vector<int64_t> out;
    for (int port : http_ports_) out.push_back(get_chunk_calls(port));
    return out;
  }

  test::PostgresCluster postgres_{"nginx_fleet"};
  std::filesystem::path dir_;
  std::vector<int> grpc_ports_, http_ports_;
  int nginx_port_ = 0;
  std::vector<std::unique_ptr<Process>> replicas_;
  std::unique_ptr<Process> nginx_;
  std::vector<Client> direct_;
  std::optional<Client> balanced_;
};

}  // namespace chunkforge::client::fleet
