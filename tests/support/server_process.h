// A chunkforge process for tests: started with its output in a log file, waited for with a
// time limit, its start-up line read for the port it bound.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace chunkforge::test {

struct Process {
  pid_t pid = -1;
  std::string log;  // stdout and stderr
};

inline Process spawn(const std::string& binary, const std::vector<std::string>& args, const std::string& log) {
  std::remove(log.c_str());  // a previous run's log must not answer for this one
  Process p;
  p.log = log;
  p.pid = fork();
  if (p.pid == 0) {
    std::freopen(log.c_str(), "w", stdout);
    dup2(fileno(stdout), STDERR_FILENO);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(binary.c_str()));
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return p;
}

// Exit code, or -1 if it did not exit within `limit`.
inline int wait_for(const Process& p, std::chrono::milliseconds limit) {
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

inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

// Runs a shell command line to its end (stderr joined to stdout).
inline CommandResult run_command(const std::string& command_line) {
  CommandResult result;
  FILE* pipe = popen((command_line + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[4096];
  while (size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) result.output.append(buffer, n);
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  return result;
}

// The port a server reports in its start-up line ("... on port N ..."), or 0.
inline int reported_port(const std::string& log) {
  const size_t at = log.find("on port ");
  return at == std::string::npos ? 0 : std::atoi(log.c_str() + at + 8);
}

// The port of a server started with "--listen 127.0.0.1:0", once it says it serves; 0 if it
// does not within 5 s.
inline int wait_until_serving(const Process& p) {
  for (int k = 0; k < 100 && reported_port(read_text(p.log)) == 0; ++k) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return reported_port(read_text(p.log));
}

}  // namespace chunkforge::test
