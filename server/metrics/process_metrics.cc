// The process_* metrics (see process_metrics.h).
#include "metrics/process_metrics.h"

#include <grpcpp/grpcpp.h>
#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace chunkforge::server {
namespace {

// /proc/self/stat's fields after the command name, numbered as proc(5) numbers them (from 3).
std::vector<std::string> stat_fields() {
  std::ifstream file("/proc/self/stat");
  std::string line;
  if (!std::getline(file, line)) return {};
  const size_t name_end = line.rfind(')');  // the name may hold spaces and parentheses
  if (name_end == std::string::npos) return {};
  std::istringstream rest(line.substr(name_end + 2));
  std::vector<std::string> fields = {"", "", ""};  // 0 unused, 1 pid, 2 comm
  for (std::string field; rest >> field;) fields.push_back(field);
  return fields;
}

double boot_time_seconds() {
  std::ifstream file("/proc/stat");
  for (std::string key; file >> key;) {
    if (key == "btime") {
      double seconds = 0;
      file >> seconds;
      return seconds;
    }
  }
  return 0;
}

size_t open_fds() {
  std::error_code error;
  size_t n = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/self/fd", error);
       !error && it != std::filesystem::directory_iterator(); it.increment(error)) {
    ++n;
  }
  return n;
}

template <typename Value>
void process_metric(MetricsPage& page, const char* name, const char* type, const char* help, Value value) {
  page.full_header(name, type, help);
  page.out << name << ' ' << value << '\n';
}

}  // namespace

void render_process(MetricsPage& page) {
  const std::vector<std::string> f = stat_fields();
  if (f.size() > 24) {  // utime 14, stime 15, num_threads 20, starttime 22, vsize 23, rss 24 (pages)
    const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
    const double page_bytes = static_cast<double>(sysconf(_SC_PAGESIZE));
    process_metric(page, "process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.",
                   (std::stod(f[14]) + std::stod(f[15])) / ticks);
    process_metric(page, "process_resident_memory_bytes", "gauge", "Resident memory size in bytes.",
                   static_cast<uint64_t>(std::stod(f[24]) * page_bytes));
    process_metric(page, "process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.", f[23]);
    process_metric(page, "process_start_time_seconds", "gauge",
                   "Start time of the process since unix epoch in seconds.",
                   static_cast<uint64_t>(boot_time_seconds() + std::stod(f[22]) / ticks));
    process_metric(page, "process_threads", "gauge", "Number of OS threads in the process.", f[20]);
  }
  process_metric(page, "process_open_fds", "gauge", "Number of open file descriptors.", open_fds());
  rlimit files{};
  if (getrlimit(RLIMIT_NOFILE, &files) == 0) {
    process_metric(page, "process_max_fds", "gauge", "Maximum number of open file descriptors.", files.rlim_cur);
  }
  page.header("build_info", "gauge", "The build: its version and the gRPC library's, as labels; always 1.");
  page.out << "chunkforge_build_info{version=\"" << CHUNKFORGE_VERSION << "\",grpc_version=\"" << grpc::Version()
           << "\"} 1\n";
}

}  // namespace chunkforge::server
