// chunkforge-loadgen: simulated players against a world server, over loopback or a network.
//
//   chunkforge-loadgen --server 127.0.0.1:50051 --mode session --players 200 --radius 4
//                      --speed 2 --duration 60 --json [--server-pid PID]
//
// Modes: session (each player walks and keeps a Session; latency = from the position update
// that brought a chunk into view to its arrival), chunk (GetChunk of the chunks around a
// walking player; latency per call), region (StreamRegion around the player; latency per
// chunk from the call's start). Reports chunks/s, p50/p99/max latency, errors and, with
// --server-pid, the server's resident memory (now and peak).
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "chunkforge/v1/service.grpc.pb.h"

namespace {

using Clock = std::chrono::steady_clock;
using chunkforge::v1::WorldService;

struct Options {
  std::string server = "127.0.0.1:50051", mode = "session";
  int players = 10, radius = 4, duration = 10, server_pid = 0;
  double speed = 2;  // chunks per second
  bool json = false;
};

struct Results {
  std::mutex mutex;
  std::vector<double> latency_ms;
  std::atomic<uint64_t> chunks{0}, errors{0};
  std::string first_error;
  void latency(double ms) {
    std::lock_guard lock(mutex);
    latency_ms.push_back(ms);
  }
  void error(const grpc::Status& s) {
    ++errors;
    std::lock_guard lock(mutex);
    if (first_error.empty()) first_error = std::to_string(s.error_code()) + ": " + s.error_message();
  }
};

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// Player p walks straight along its own direction, one chunk every 1/speed seconds.
std::pair<int64_t, int64_t> position(int player, double seconds, double speed) {
  static const int dirs[8][2] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}, {1, 1}, {-1, 1}, {1, -1}, {-1, -1}};
  const int64_t steps = static_cast<int64_t>(seconds * speed);
  const auto* d = dirs[player % 8];
  const int64_t base = (player / 8) * 1000;  // players start far apart
  return {base + d[0] * steps, base * 3 + d[1] * steps};
}

void run_session(WorldService::Stub& stub, int player, const Options& o, Clock::time_point end, Results& r) {
  grpc::ClientContext context;
  auto stream = stub.Session(&context);
  std::mutex mutex;
  std::map<std::pair<int64_t, int64_t>, Clock::time_point> entered;  // in view since
  std::thread reader([&] {
    chunkforge::v1::SessionEvent event;
    while (stream->Read(&event)) {
      if (!event.has_load()) continue;
      ++r.chunks;
      std::lock_guard lock(mutex);
      auto it = entered.find({event.load().coord().x(), event.load().coord().z()});
      if (it != entered.end()) r.latency(ms_since(it->second));
    }
  });
  const auto start = Clock::now();
  std::pair<int64_t, int64_t> last{INT64_MIN, 0};
  while (Clock::now() < end) {
    const auto p = position(player, std::chrono::duration<double>(Clock::now() - start).count(), o.speed);
    if (p != last) {
      {
        std::lock_guard lock(mutex);
        std::map<std::pair<int64_t, int64_t>, Clock::time_point> view;
        for (int64_t z = p.second - o.radius; z <= p.second + o.radius; ++z) {
          for (int64_t x = p.first - o.radius; x <= p.first + o.radius; ++x) {
            auto it = entered.find({x, z});
            view[{x, z}] = it != entered.end() ? it->second : Clock::now();
          }
        }
        entered = std::move(view);
      }
      chunkforge::v1::SessionUpdate update;
      update.set_x(static_cast<double>(p.first) * 64 + 32);
      update.set_z(static_cast<double>(p.second) * 64 + 32);
      update.set_view_radius(static_cast<uint32_t>(o.radius));
      if (!stream->Write(update)) break;
      last = p;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  stream->WritesDone();
  context.TryCancel();  // the walk is over: do not wait for the rest of the view
  reader.join();
  const grpc::Status s = stream->Finish();
  if (!s.ok() && s.error_code() != grpc::StatusCode::CANCELLED) r.error(s);
}

void run_chunk(WorldService::Stub& stub, int player, const Options& o, Clock::time_point end, Results& r) {
  const auto start = Clock::now();
  while (Clock::now() < end) {
    const auto p = position(player, std::chrono::duration<double>(Clock::now() - start).count(), o.speed);
    for (int64_t dz = -o.radius; dz <= o.radius && Clock::now() < end; ++dz) {
      for (int64_t dx = -o.radius; dx <= o.radius && Clock::now() < end; ++dx) {
        grpc::ClientContext context;
        chunkforge::v1::GetChunkRequest request;
        request.mutable_coord()->set_x(p.first + dx);
        request.mutable_coord()->set_z(p.second + dz);
        chunkforge::v1::Chunk chunk;
        const auto t = Clock::now();
        const grpc::Status s = stub.GetChunk(&context, request, &chunk);
        if (!s.ok()) {
          r.error(s);
          continue;
        }
        ++r.chunks;
        r.latency(ms_since(t));
      }
    }
  }
}

void run_region(WorldService::Stub& stub, int player, const Options& o, Clock::time_point end, Results& r) {
  const auto start = Clock::now();
  while (Clock::now() < end) {
    const auto p = position(player, std::chrono::duration<double>(Clock::now() - start).count(), o.speed);
    grpc::ClientContext context;
    chunkforge::v1::StreamRegionRequest request;
    request.mutable_centre()->set_x(p.first);
    request.mutable_centre()->set_z(p.second);
    request.set_radius(static_cast<uint32_t>(o.radius));
    const auto t = Clock::now();
    auto reader = stub.StreamRegion(&context, request);
    chunkforge::v1::Chunk chunk;
    while (reader->Read(&chunk)) {
      ++r.chunks;
      r.latency(ms_since(t));
    }
    const grpc::Status s = reader->Finish();
    if (!s.ok()) r.error(s);
  }
}

// VmRSS and VmHWM of a local process, MiB (0 if unknown).
std::pair<double, double> rss_mib(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  double now = 0, peak = 0;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) now = std::stod(line.substr(6)) / 1024;
    if (line.rfind("VmHWM:", 0) == 0) peak = std::stod(line.substr(6)) / 1024;
  }
  return {now, peak};
}

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&](auto& out) {
      if (i + 1 >= argc) return false;
      const std::string v = argv[++i];
      if constexpr (std::is_same_v<std::decay_t<decltype(out)>, std::string>) {
        out = v;
        return true;
      } else if constexpr (std::is_same_v<std::decay_t<decltype(out)>, double>) {
        char* end = nullptr;
        out = std::strtod(v.c_str(), &end);
        return *end == '\0' && out > 0;
      } else {
        auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
        return ec == std::errc() && end == v.data() + v.size() && out >= 0;
      }
    };
    bool ok = true;
    if (a == "--server") ok = next(o.server);
    else if (a == "--mode") ok = next(o.mode) && (o.mode == "session" || o.mode == "chunk" || o.mode == "region");
    else if (a == "--players") ok = next(o.players) && o.players >= 1 && o.players <= 5000;
    else if (a == "--radius") ok = next(o.radius) && o.radius <= 64;
    else if (a == "--speed") ok = next(o.speed);
    else if (a == "--duration") ok = next(o.duration) && o.duration >= 1 && o.duration <= 3600;
    else if (a == "--server-pid") ok = next(o.server_pid);
    else if (a == "--json") o.json = true;
    else ok = false;
    if (!ok) {
      std::cerr << "chunkforge-loadgen: bad or unknown option " << a << "\n"
                << "usage: chunkforge-loadgen [--server ADDR] [--mode session|chunk|region] [--players N]\n"
                   "                          [--radius R] [--speed CHUNKS_PER_S] [--duration S] [--server-pid PID] [--json]\n";
      return false;
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse(argc, argv, o)) return 2;
  Results r;
  const auto start = Clock::now();
  const auto end = start + std::chrono::seconds(o.duration);
  // A few channels shared by the players, as a game server fleet's clients would be spread.
  std::vector<std::unique_ptr<WorldService::Stub>> stubs;
  for (int c = 0; c < std::min(o.players, 8); ++c) {
    grpc::ChannelArguments args;
    args.SetInt("grpc.channel_id", c);  // distinct connections
    stubs.push_back(WorldService::NewStub(grpc::CreateCustomChannel(o.server, grpc::InsecureChannelCredentials(), args)));
  }
  std::vector<std::thread> players;
  for (int p = 0; p < o.players; ++p) {
    players.emplace_back([&, p] {
      WorldService::Stub& stub = *stubs[static_cast<size_t>(p) % stubs.size()];
      if (o.mode == "session") run_session(stub, p, o, end, r);
      if (o.mode == "chunk") run_chunk(stub, p, o, end, r);
      if (o.mode == "region") run_region(stub, p, o, end, r);
    });
  }
  for (std::thread& t : players) t.join();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::sort(r.latency_ms.begin(), r.latency_ms.end());
  auto pct = [&](double q) {
    return r.latency_ms.empty() ? 0.0 : r.latency_ms[static_cast<size_t>(q * static_cast<double>(r.latency_ms.size() - 1))];
  };
  const auto [rss, peak] = o.server_pid > 0 ? rss_mib(o.server_pid) : std::pair{0.0, 0.0};
  if (o.json) {
    std::cout << "{\"mode\":\"" << o.mode << "\",\"players\":" << o.players << ",\"radius\":" << o.radius
              << ",\"seconds\":" << seconds << ",\"chunks\":" << r.chunks << ",\"chunks_per_second\":"
              << static_cast<double>(r.chunks) / seconds << ",\"latency_p50_ms\":" << pct(0.5)
              << ",\"latency_p99_ms\":" << pct(0.99) << ",\"latency_max_ms\":" << pct(1.0)
              << ",\"errors\":" << r.errors << ",\"server_rss_mib\":" << rss
              << ",\"server_peak_rss_mib\":" << peak << "}\n";
  } else {
    std::cout << o.players << " players, " << o.mode << ", " << seconds << " s: " << r.chunks << " chunks ("
              << static_cast<double>(r.chunks) / seconds << "/s), latency p50 " << pct(0.5) << " ms, p99 "
              << pct(0.99) << " ms, max " << pct(1.0) << " ms, " << r.errors << " errors";
    if (o.server_pid > 0) std::cout << ", server RSS " << rss << " MiB (peak " << peak << ")";
    std::cout << '\n';
  }
  if (!r.first_error.empty()) std::cerr << "first error: " << r.first_error << '\n';
  return r.errors == 0 ? 0 : 1;
}
