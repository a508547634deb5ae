// Scale-out without containers: Debian's nginx, with the shipped docker/nginx.conf moved to
// loopback, in front of three chunkforge-server processes sharing one PostgreSQL edit store (a
// throwaway cluster the test starts); nginx hashes GetChunk on the chunk-key metadata the SDK
// sends. Shows that a chunk key always lands on one replica, that every replica sends the same
// bytes, that losing a replica mid-run loses no request the client retries, and that an edit
// through nginx reaches the sessions of every replica.
#include <arpa/inet.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "chunkforge/client.h"
#include "chunkforge/v1/chunk.pb.h"
#include "chunkforge/v1/service.grpc.pb.h"
#include "support/free_port.h"
#include "support/postgres_cluster.h"

namespace chunkforge::client {
namespace {

using namespace std::chrono_literals;

using test::free_port;

// A child process, killed (SIGTERM, then SIGKILL) when it goes out of scope.
class Process {
 public:
  explicit Process(std::vector<std::string> argv) {
    pid_ = fork();
    if (pid_ == 0) {
      std::vector<char*> args;
      for (std::string& a : argv) args.push_back(a.data());
      args.push_back(nullptr);
      execv(args[0], args.data());
      _exit(127);
    }
  }
  Process(const Process&) = delete;
  ~Process() { stop(SIGTERM); }

  void stop(int signal) {
    if (pid_ <= 0) return;
    kill(pid_, signal);
    for (int k = 0; k < 50; ++k) {
      if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
        pid_ = -1;
        return;
      }
      std::this_thread::sleep_for(100ms);
    }
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

 private:
  pid_t pid_ = -1;
};

// GET http://127.0.0.1:port/metrics, the body.
std::string metrics(int port) {
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
int64_t get_chunk_calls(int http_port) {
  static const std::regex line(R"re(chunkforge_requests_total\{method="GetChunk"\} (\d+))re");
  std::smatch m;
  const std::string page = metrics(http_port);
  return std::regex_search(page, m, line) ? std::stoll(m[1]) : -1;
}

class ScaleOutTest : public testing::Test {
 protected:
  static constexpr int kReplicas = 3;

  void SetUp() override {
    ASSERT_TRUE(std::filesystem::exists(CHUNKFORGE_NGINX)) << "nginx is a test package (scripts/lib/common.sh)";
    ASSERT_TRUE(postgres_.started()) << postgres_.failure();
    dir_ = test::unique_temp_dir("scale_out");
    std::filesystem::create_directories(dir_ / "tmp");
    for (int k = 0; k < kReplicas; ++k) {
      grpc_ports_.push_back(free_port());
      http_ports_.push_back(free_port());
      replicas_.push_back(std::make_unique<Process>(std::vector<std::string>{
          CHUNKFORGE_SERVER, "--listen", "127.0.0.1:" + std::to_string(grpc_ports_[k]), "--http",
          "127.0.0.1:" + std::to_string(http_ports_[k]), "--threads", "1", "--cache-mb", "32", "--log-level", "warn",
          "--store", postgres_.uri(), "--open-edits"}));
    }
    nginx_port_ = free_port();
    const std::string d = dir_.string();
    std::ofstream(dir_ / "nginx.conf") << loopback_config(d);
    nginx_ = std::make_unique<Process>(std::vector<std::string>{CHUNKFORGE_NGINX, "-p", d, "-c", d + "/nginx.conf",
                                                                "-e", d + "/error.log", "-g", "daemon off;"});
    for (int k = 0; k < kReplicas; ++k) {
      Result<Client> direct = Client::connect("127.0.0.1:" + std::to_string(grpc_ports_[k]));
      ASSERT_TRUE(direct);
      ConnectOptions patient;
      patient.max_attempts = 30;
      patient.initial_backoff = 100ms;
      patient.max_backoff = 200ms;
      Result<Client> waiting = Client::connect(direct->target(), patient);
      ASSERT_TRUE(waiting->health()) << "replica " << k << " did not start";
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

  // The shipped docker/nginx.conf with the replicas and the listener moved to loopback ports,
  // and nginx's own files (pid, logs, temp) moved into the test's directory.
  std::string loopback_config(const std::string& d) const {
    std::ifstream in(std::string(CHUNKFORGE_SOURCE_DIR) + "/docker/nginx.conf");
    std::string config((std::istreambuf_iterator<char>(in)), {});
    int servers = 0, listens = 0;
    std::string out;
    std::smatch m;
    static const std::regex server(R"(server replica-(\d):50051;)"), listen(R"(listen 50051 http2;)");
    std::istringstream lines(config);
    for (std::string line; std::getline(lines, line);) {
      if (std::regex_search(line, m, server)) {
        const int k = std::stoi(m[1]) - 1;
        line = m.prefix().str() + "server 127.0.0.1:" + std::to_string(grpc_ports_.at(static_cast<size_t>(k))) + ";";
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

  test::PostgresCluster postgres_{"scale_out"};
  std::filesystem::path dir_;
  std::vector<int> grpc_ports_, http_ports_;
  int nginx_port_ = 0;
  std::vector<std::unique_ptr<Process>> replicas_;
  std::unique_ptr<Process> nginx_;
  std::vector<Client> direct_;
  std::optional<Client> balanced_;
};

TEST_F(ScaleOutTest, EachChunkKeyLandsOnOneReplicaAndEveryReplicaSendsTheSameBytes) {
  std::set<int> used;
  for (int64_t x = 0; x < 24; ++x) {
    const ChunkCoord coord{x, 7 - x};
    const std::vector<int64_t> before = calls();
    for (int k = 0; k < 4; ++k) ASSERT_TRUE(balanced_->chunk(coord)) << x;
    const std::vector<int64_t> after = calls();
    int owners = 0;
    for (int r = 0; r < kReplicas; ++r) {
      const int64_t got = after[static_cast<size_t>(r)] - before[static_cast<size_t>(r)];
      EXPECT_TRUE(got == 0 || got == 4) << "chunk " << x << ": replica " << r << " got " << got << " of 4";
      if (got == 4) {
        ++owners;
        used.insert(r);
      }
    }
    EXPECT_EQ(owners, 1) << "chunk " << x;
  }
  EXPECT_EQ(used.size(), static_cast<size_t>(kReplicas)) << "24 keys should spread over all replicas";

  for (int64_t x = 0; x < 6; ++x) {
    const std::string through_nginx = balanced_->chunk({x, -x})->message().SerializeAsString();
    for (Client& replica : direct_) {
      EXPECT_EQ(replica.chunk({x, -x})->message().SerializeAsString(), through_nginx) << "chunk " << x;
    }
  }
}

TEST_F(ScaleOutTest, LosingAReplicaMidRunLosesNoRetriedRequest) {
  // Four clients keep requesting distinct chunks (cold: each takes a generation) while one
  // replica is killed under them, with calls in flight.
  constexpr int kClients = 4, kEach = 60;
  std::atomic<int> done{0}, ok{0};
  std::mutex mutex;
  std::vector<std::string> failures;
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      for (int64_t k = 0; k < kEach; ++k) {
        Result<Chunk> chunk = balanced_->chunk({100 + k, 100 + c});
        ++done;
        if (chunk) {
          ++ok;
        } else {
          std::lock_guard lock(mutex);
          failures.push_back(chunk.status().to_string());
        }
      }
    });
  }
  while (done < kClients * kEach / 4) std::this_thread::sleep_for(1ms);
  replicas_[1]->stop(SIGKILL);  // no drain: its connections just break
  for (std::thread& t : clients) t.join();
  EXPECT_EQ(ok, kClients * kEach) << (failures.empty() ? "" : failures.front());
  EXPECT_EQ(calls()[1], -1);  // it is gone; the survivors answered for its keys
}

std::unique_ptr<v1::WorldService::Stub> stub_at(int port) {
  return v1::WorldService::NewStub(
      grpc::CreateChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials()));
}

TEST_F(ScaleOutTest, AnEditThroughNginxReachesTheSessionsOfEveryReplica) {
  // One player on each replica, directly, holding chunk (0, 0).
  struct Watcher {
    std::unique_ptr<v1::WorldService::Stub> stub;
    grpc::ClientContext context;
    std::unique_ptr<grpc::ClientReaderWriter<v1::SessionUpdate, v1::SessionEvent>> session;
  };
  std::vector<std::unique_ptr<Watcher>> watchers;
  v1::SessionEvent event;
  for (int port : grpc_ports_) {
    auto w = std::make_unique<Watcher>();
    w->stub = stub_at(port);
    w->context.set_deadline(std::chrono::system_clock::now() + 30s);
    w->session = w->stub->Session(&w->context);
    v1::SessionUpdate update;
    update.set_x(32);
    update.set_z(32);
    update.set_view_radius(0);
    ASSERT_TRUE(w->session->Write(update));
    ASSERT_TRUE(w->session->Read(&event) && event.has_load());
    watchers.push_back(std::move(w));
  }
  const uint64_t felled = event.load().objects().id(0);

  grpc::ClientContext context;
  v1::EditRequest request;
  v1::EditOp* op = request.add_ops();
  op->mutable_chunk();  // chunk (0, 0)
  op->set_remove_object(felled);
  v1::EditResponse response;
  const grpc::Status status = stub_at(nginx_port_)->Edit(&context, request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();

  for (size_t r = 0; r < watchers.size(); ++r) {
    ASSERT_TRUE(watchers[r]->session->Read(&event)) << "replica " << r;
    ASSERT_TRUE(event.has_change()) << "replica " << r;
    EXPECT_EQ(event.change().version(), 1u) << "replica " << r;
    EXPECT_EQ(event.change().edits(0).remove_object(), felled) << "replica " << r;
    const Result<Chunk> served = direct_[r].chunk({0, 0});
    ASSERT_TRUE(served);
    EXPECT_EQ(served->message().edit_version(), 1u) << "replica " << r;
    watchers[r]->context.TryCancel();
  }
}

}  // namespace
}  // namespace chunkforge::client
