// A throwaway PostgreSQL cluster for tests: Debian's initdb and pg_ctl make and start one in a
// directory of the test's own, listening on a free loopback port with trust authentication for
// the user "chunkforge"; the destructor stops it (fast), and the directory goes with the
// process's temporary root (support/temp_dir.h).
// PostgreSQL refuses to run as root, so when the tests run as root the cluster runs as the
// unprivileged user "nobody", which then owns the directory.
//
//   test::PostgresCluster pg("scale_out");
//   ASSERT_TRUE(pg.started()) << pg.failure();
//   auto store = open_store(pg.uri());
#pragma once

#include <glob.h>
#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "support/free_port.h"
#include "support/server_process.h"
#include "support/temp_dir.h"

namespace chunkforge::test {

class PostgresCluster {
 public:
  explicit PostgresCluster(const std::string& name) : dir_(unique_temp_dir("pg_" + name)), port_(free_port()) {
    bin_ = bin_dir();
    if (bin_.empty()) {
      failure_ = "no /usr/lib/postgresql/*/bin/initdb: postgresql is a test package (scripts/lib/common.sh)";
      return;
    }
    if (!as_unprivileged_user()) return;
    const std::string data = dir_ + "data";
    if (run({bin_ + "/initdb", "-D", data, "-U", "chunkforge", "--auth=trust", "-E", "UTF8", "--no-sync"},
            dir_ + "initdb.log") != 0) {
      failure_ = "initdb failed: " + read_text(dir_ + "initdb.log");
      return;
    }
    start();
  }
  PostgresCluster(const PostgresCluster&) = delete;
  ~PostgresCluster() { stop(); }

  // Stops the cluster (fast: open connections are closed), as an outage; start() brings it back
  // on the same port with the same data.
  void stop() {
    if (started_) run({bin_ + "/pg_ctl", "-D", dir_ + "data", "-m", "fast", "-w", "stop"}, dir_ + "pg_ctl.log");
    started_ = false;
  }
  bool start() {
    const std::string options = "-p " + std::to_string(port_) + " -k " + dir_ + " -c listen_addresses=127.0.0.1";
    if (run({bin_ + "/pg_ctl", "-D", dir_ + "data", "-o", options, "-l", dir_ + "server.log", "-w", "-t", "60",
             "start"},
            dir_ + "pg_ctl.log") != 0) {
      failure_ = "pg_ctl start failed: " + read_text(dir_ + "pg_ctl.log") + read_text(dir_ + "server.log");
      return false;
    }
    started_ = true;
    return true;
  }

  bool started() const { return started_; }
  const std::string& failure() const { return failure_; }
  // A connection URI for one of the cluster's databases (default: "postgres").
  std::string uri(const std::string& database = "postgres") const {
    return "postgresql://chunkforge@127.0.0.1:" + std::to_string(port_) + "/" + database;
  }
  // The same with a connect bound of 10 s instead of the store's 2 s, for tests that are not
  // about a store that stops answering: on a loaded 2-core machine a fresh cluster once took
  // longer than 2 s to answer a connect, failing a test's set-up.
  std::string patient_uri(const std::string& database = "postgres") const {
    return uri(database) + "?connect_timeout=10";
  }
  // Makes an empty database; its URI, or "" after a failure (see the log in dir()).
  std::string create_database(const std::string& name) const {
    const int code = run({bin_ + "/createdb", "-h", "127.0.0.1", "-p", std::to_string(port_), "-U", "chunkforge", name},
                         dir_ + "createdb.log");
    return code == 0 ? uri(name) : "";
  }
  const std::string& dir() const { return dir_; }
  // The directory of the cluster's binaries (pg_dump, pg_restore ...).
  const std::string& bin() const { return bin_; }

 private:
  // The newest installed server's binaries, or "".
  static std::string bin_dir() {
    glob_t found{};
    std::vector<std::string> dirs;
    if (glob("/usr/lib/postgresql/*/bin/initdb", 0, nullptr, &found) == 0) {
      for (size_t k = 0; k < found.gl_pathc; ++k) dirs.emplace_back(found.gl_pathv[k]);
    }
    globfree(&found);
    if (dirs.empty()) return "";
    std::sort(dirs.begin(), dirs.end());
    return dirs.back().substr(0, dirs.back().size() - std::string("/initdb").size());
  }

  // As root: the cluster's user is "nobody", which must own the directory.
  bool as_unprivileged_user() {
    if (geteuid() != 0) return true;
    const passwd* user = getpwnam("nobody");
    if (user == nullptr) {
      failure_ = "running as root and there is no user \"nobody\" to run PostgreSQL as";
      return false;
    }
    uid_ = user->pw_uid;
    gid_ = user->pw_gid;
    if (chown(dir_.c_str(), uid_, gid_) != 0) {
      failure_ = "cannot give " + dir_ + " to nobody";
      return false;
    }
    return true;
  }

  // Runs a command (as the cluster's user), its output in `log`; its exit code.
  int run(const std::vector<std::string>& argv, const std::string& log) const {
    std::vector<char*> args;
    args.reserve(argv.size() + 1);
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const pid_t pid = fork();
    if (pid == 0) {
      if (uid_ != 0 && (setgroups(0, nullptr) != 0 || setgid(gid_) != 0 || setuid(uid_) != 0)) _exit(126);
      std::freopen(log.c_str(), "w", stdout);
      dup2(fileno(stdout), STDERR_FILENO);
      execv(args[0], args.data());
      _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  }

  std::string dir_, bin_, failure_;
  int port_;
  uid_t uid_ = 0;
  gid_t gid_ = 0;
  bool started_ = false;
};

}  // namespace chunkforge::test
