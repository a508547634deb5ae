// chunkforge-server as a process: start-up errors, a signal for a clean stop.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Process {
  pid_t pid = -1;
  std::string log;  // stdout and stderr
};

Process spawn(const std::vector<std::string>& args, const std::string& log) {
  std::remove(log.c_str());  // a previous run's log must not answer for this one
  Process p;
  p.log = log;
  p.pid = fork();
  if (p.pid == 0) {
    std::freopen(log.c_str(), "w", stdout);
    dup2(fileno(stdout), STDERR_FILENO);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(CHUNKFORGE_SERVER));
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(CHUNKFORGE_SERVER, argv.data());
    _exit(127);
  }
  return p;
}

// Exit code, or -1 if it did not exit within `limit`.
int wait_for(const Process& p, std::chrono::milliseconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    int status = 0;
    if (waitpid(p.pid, &status, WNOHANG) == p.pid) return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(p.pid, SIGKILL);
  waitpid(p.pid, nullptr, 0);
  return -1;
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string temp(const std::string& name) { return testing::TempDir() + "chunkforge_server_" + name; }

TEST(ServerBinaryTest, StopsCleanlyOnSigterm) {
  const Process p = spawn({"--listen", "127.0.0.1:0", "--http", "127.0.0.1:0", "--threads", "1"}, temp("sigterm.log"));
  // Wait until it says it serves.
  for (int k = 0; k < 100 && read(p.log).find("on port") == std::string::npos; ++k) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_NE(read(p.log).find("on port"), std::string::npos) << read(p.log);
  kill(p.pid, SIGTERM);
  EXPECT_EQ(wait_for(p, std::chrono::seconds(5)), 0) << read(p.log);
  EXPECT_NE(read(p.log).find("stopped"), std::string::npos) << read(p.log);
}

// The port a server reports in its start-up line ("... on port N ..."), or 0.
int reported_port(const std::string& log) {
  const size_t at = log.find("on port ");
  return at == std::string::npos ? 0 : std::atoi(log.c_str() + at + 8);
}

TEST(ServerBinaryTest, LoadGeneratorRunsSessionsWithoutErrors) {
  const Process server = spawn({"--listen", "127.0.0.1:0", "--http", "", "--threads", "2"}, temp("loadgen_server.log"));
  for (int k = 0; k < 100 && reported_port(read(server.log)) == 0; ++k) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const int port = reported_port(read(server.log));
  ASSERT_GT(port, 0) << read(server.log);
  const std::string command = std::string(CHUNKFORGE_LOADGEN) + " --server 127.0.0.1:" + std::to_string(port) +
                              " --mode session --players 4 --radius 2 --speed 4 --duration 2 --json --server-pid " +
                              std::to_string(server.pid) + " 2>&1";
  std::string out;
  {
    std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
    char buffer[4096];
    while (size_t n = fread(buffer, 1, sizeof buffer, pipe.get())) out.append(buffer, n);
    EXPECT_EQ(pclose(pipe.release()), 0) << out;
  }
  EXPECT_NE(out.find("\"errors\":0"), std::string::npos) << out;
  EXPECT_EQ(out.find("\"chunks\":0,"), std::string::npos) << out;
  kill(server.pid, SIGTERM);
  EXPECT_EQ(wait_for(server, std::chrono::seconds(5)), 0) << read(server.log);
}

TEST(ServerBinaryTest, BadWorldFileStopsStartUpWithFieldErrorsAndExitCode2) {
  const std::string world = temp("bad_world.json");
  std::ofstream(world) << R"({"chunk_size": 8, "resources": [{"name": "x", "bogus": 1}]})";
  const Process p = spawn({"--world", world, "--listen", "127.0.0.1:0", "--http", ""}, temp("bad_world.log"));
  EXPECT_EQ(wait_for(p, std::chrono::seconds(10)), 2);
  EXPECT_NE(read(p.log).find("resources[0].bogus: unknown field"), std::string::npos) << read(p.log);
}

TEST(ServerBinaryTest, BadFlagsExitWith2) {
  const Process p = spawn({"--cache-mb", "lots"}, temp("bad_flag.log"));
  EXPECT_EQ(wait_for(p, std::chrono::seconds(10)), 2);
  EXPECT_NE(read(p.log).find("--cache-mb: must be an integer"), std::string::npos) << read(p.log);
}

}  // namespace
