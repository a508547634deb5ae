// chunkforge-loadgen: simulated players against a world server, over loopback or a network.
//
//   chunkforge-loadgen --server 127.0.0.1:50051 --mode session --players 200 --radius 4
//                      --speed 2 --duration 60 --json [--server-pid PID]
//
// Modes: session (each player walks and keeps a Session; latency = from the position update
// that brought a chunk into view to its arrival), local and local-generate (the same Session,
// its players declaring that they generate pristine chunks themselves: local players generate
// nothing, to measure the server; local-generate players really do, on --generator-threads
// threads, and a chunk arrives once generated: local_players.h), chunk (GetChunk of the chunks around a
// walking player; latency per call), region (StreamRegion around the player; latency per
// chunk from the call's start). Reports chunks/s, p50/p99/max latency (of the whole run, and
// apart for the start burst, when every player's first view arrives at once, and the steady
// walk after --steady-after seconds), errors and, with --server-pid, the server's resident
// memory (now and peak) and CPU, and the session events: how many, the chunk unloads in them
// (one or many an event) and their bytes per chunk.
#include <grpcpp/grpcpp.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "chunkforge/v1/service.grpc.pb.h"
#include "local_players.h"
#include "parse_command_line.h"
#include "session_players.h"
#include "walk.h"

namespace {

using namespace chunkforge::loadgen;
using chunkforge::v1::WorldService;

struct Percentiles {
  double p50 = 0, p99 = 0, max = 0;
};

// The latencies of the chunks that arrived in [from_s, to_s) of the run.
Percentiles percentiles(const std::vector<Sample>& samples, double from_s, double to_s) {
  std::vector<double> ms;
  for (const Sample& s : samples) {
    if (s.arrived_s >= from_s && s.arrived_s < to_s) ms.push_back(s.ms);
  }
  if (ms.empty()) return {};
  std::sort(ms.begin(), ms.end());
  const auto at = [&](double q) { return ms[static_cast<size_t>(q * static_cast<double>(ms.size() - 1))]; };
  return {at(0.5), at(0.99), ms.back()};
}

void run_chunk(WorldService::Stub& stub, int player, const Options& o, Clock::time_point end, Results& r) {
  const auto start = Clock::now();
  while (Clock::now() < end) {
    const auto p = position(player, std::chrono::duration<double>(Clock::now() - start).count(), o);
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
    const auto p = position(player, std::chrono::duration<double>(Clock::now() - start).count(), o);
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

// CPU seconds (user + system) a local process has used so far (0 if unknown).
double cpu_seconds(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t after_name = stat.rfind(')');  // the name may hold spaces
  if (after_name == std::string::npos) return 0;
  std::istringstream fields(stat.substr(after_name + 2));
  std::string field;
  double utime = 0, stime = 0;
  for (int k = 3; k <= 15 && fields >> field; ++k) {  // fields 14 and 15: utime, stime (clock ticks)
    if (k == 14) utime = std::stod(field);
    if (k == 15) stime = std::stod(field);
  }
  return (utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

constexpr const char* kDescription =
    "Simulated players against a world server, over loopback or a network. Modes: session (each\n"
    "player walks and keeps a Session; latency = from the position update that brought a chunk\n"
    "into view to its arrival), local (the same, players declaring they generate pristine chunks\n"
    "themselves, generating nothing: the server's capacity), local-generate (they really do, on\n"
    "--generator-threads threads; a chunk arrives once generated), chunk (GetChunk of the chunks\n"
    "around a walking player; latency per call), region (StreamRegion around the player; latency\n"
    "per chunk from the call's start). Reports chunks/s, p50/p99/max latency (also apart for the\n"
    "first --steady-after seconds, the start burst, and the steady walk after), errors, session\n"
    "events, the unloads in them and their bytes per chunk and, with --server-pid, the server's\n"
    "resident memory (now and peak) and CPU. Exit 0 without errors, 1 with some, 2 for bad\n"
    "options.\n";

// --speed: CLI11's PositiveNumber would print DBL_MAX in its message.
std::string positive_number(const std::string& text) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  return !text.empty() && *end == '\0' && value > 0 ? "" : "must be a number > 0 (got \"" + text + "\")";
}

// --ramp: seconds in [0, 3600] (CLI11's Range would print the bounds as 0.000000).
std::string ramp_seconds(const std::string& text) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  const bool ok = !text.empty() && *end == '\0' && value >= 0 && value <= 3600;
  return ok ? "" : "must be a number of seconds in [0, 3600] (got \"" + text + "\")";
}

// The options into `o`; nullopt to go on, else the exit code (--help: 0; a bad or unknown
// option: 2, with one line naming it). The ranges are in the descriptions; CLI11's own
// description of each check would repeat them.
std::optional<int> parse(int argc, char** argv, Options& o) {
  CLI::App app(kDescription, "chunkforge-loadgen");
  app.get_formatter()->label("Usage", "usage");
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_option("--server", o.server, "the server's host:port (default 127.0.0.1:50051)")->type_name("ADDR");
  app.add_option("--mode", o.mode, "session, local, local-generate, chunk or region (default session)")
      ->type_name("MODE")
      ->check(CLI::IsMember({"session", "local", "local-generate", "chunk", "region"}).description(""));
  app.add_option("--generator-threads", o.generator_threads,
                 "local-generate: threads generating for every player, 1 to 64 (default 2)")
      ->type_name("N")
      ->check(CLI::Range(1, 64).description(""));
  app.add_option("--players", o.players, "simulated players, 1 to 5000 (default 10)")
      ->type_name("N")
      ->check(CLI::Range(1, 5000).description(""));
  app.add_option("--radius", o.radius, "view radius in chunks, 0 to 64 (default 4)")
      ->type_name("R")
      ->check(CLI::Range(0, 64).description(""));
  app.add_option("--speed", o.speed, "chunks per second each player walks, > 0 (default 2)")
      ->type_name("CHUNKS_PER_S")
      ->check(positive_number);
  app.add_option("--duration", o.duration, "seconds, 1 to 3600 (default 10)")
      ->type_name("S")
      ->check(CLI::Range(1, 3600).description(""));
  app.add_option("--steady-after", o.steady_after,
                 "seconds after which latencies count as the steady walk, not the start burst\n(default 10)")
      ->type_name("S")
      ->check(positive_number);
  app.add_option("--server-pid", o.server_pid, "a local server's process id: report its resident memory and CPU")
      ->type_name("PID")
      ->check(CLI::Range(0, std::numeric_limits<int>::max()).description(""));
  app.add_option("--ramp", o.ramp,
                 "session and local modes: players join evenly over this many seconds, 0 to 3600\n"
                 "(default 0: all at once)")
      ->type_name("S")
      ->check(ramp_seconds);
  app.add_flag("--stagger", o.stagger, "players step at spread phases, not all at the same instant");
  app.add_flag("--load-batches,!--no-load-batches", o.load_batches,
               "session mode: accept several chunks per event (default; SessionUpdate.accept_load_batches)");
  app.add_flag("--unload-batches,!--no-unload-batches", o.unload_batches,
               "session mode: accept several unloads per event (default;\nSessionUpdate.accept_unload_batches)");
  app.add_flag("--json", o.json, "one line of JSON");
  return chunkforge::tool::parse_command_line(app, argc, argv);
}

// A few channels shared by the players, as a game server fleet's clients would be spread: at
// least 8, and one per 100 players, since a connection carries at most 128 calls at once (the
// server's --max-calls-per-connection; gRPC queues the rest): 2,000 sessions on 8 connections
// left 976 of them waiting, unserved and unmeasured.
std::vector<std::unique_ptr<WorldService::Stub>> open_stubs(const Options& o) {
  std::vector<std::unique_ptr<WorldService::Stub>> stubs;
  for (int c = 0; c < std::min(o.players, std::max(8, (o.players + 99) / 100)); ++c) {
    grpc::ChannelArguments args;
    args.SetInt("grpc.channel_id", c);  // distinct connections
    stubs.push_back(
        WorldService::NewStub(grpc::CreateCustomChannel(o.server, grpc::InsecureChannelCredentials(), args)));
  }
  return stubs;
}

// The players' threads: a few drivers walking every session player (session, local and
// local-generate modes: `local` set for the latter two), or one blocking thread per player
// (chunk, region). The threads outlive this call: what they share is the caller's, and the
// times are copied.
std::vector<std::thread> start_players(const std::vector<std::unique_ptr<WorldService::Stub>>& stubs, const Options& o,
                                       Clock::time_point start, Clock::time_point end, Results& r,
                                       const chunkforge::v1::LocalGeneration* local, GenerationPool* pool) {
  std::vector<std::thread> players;
  if (o.mode == "session" || local) {
    const int drivers = std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, std::min(o.players, 8));
    for (int d = 0; d < drivers; ++d) {
      players.emplace_back([&stubs, &o, &r, start, end, local, pool, d, drivers] {
        drive_sessions(stubs, d, drivers, o, start, end, r, local, pool);
      });
    }
  }
  for (int p = 0; p < o.players && (o.mode == "chunk" || o.mode == "region"); ++p) {
    players.emplace_back([&stubs, &o, &r, end, p] {  // blocking calls: a thread per player
      ++r.joined;
      WorldService::Stub& stub = *stubs[static_cast<size_t>(p) % stubs.size()];
      if (o.mode == "chunk") run_chunk(stub, p, o, end, r);
      if (o.mode == "region") run_region(stub, p, o, end, r);
    });
  }
  return players;
}

// What the run measured besides Results' counts, as reported.
struct Report {
  double seconds;
  Percentiles all, burst, steady;  // the whole run, the start burst and the steady walk
  double rss, peak;                // the server's resident memory now and at its peak, MiB
  double server_cpu, server_cpu_ms_per_chunk, bytes_per_chunk;
  size_t peak_generation_queue;
};

// Measures the run that began at `start`, now that its players are done.
Report measure(const Options& o, const Results& r, Clock::time_point start, double server_cpu_start,
               size_t peak_generation_queue) {
  Report m;
  m.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  // The whole run, the start burst (every player's first view at once) and the steady walk.
  m.all = percentiles(r.samples, 0, m.seconds + 1);
  m.burst = percentiles(r.samples, 0, o.steady_after);
  m.steady = percentiles(r.samples, o.steady_after, m.seconds + 1);
  std::tie(m.rss, m.peak) = o.server_pid > 0 ? rss_mib(o.server_pid) : std::pair{0.0, 0.0};
  m.server_cpu = o.server_pid > 0 ? cpu_seconds(o.server_pid) - server_cpu_start : 0;
  m.server_cpu_ms_per_chunk = r.chunks > 0 ? 1000 * m.server_cpu / static_cast<double>(r.chunks) : 0;
  m.bytes_per_chunk = r.chunks > 0 ? static_cast<double>(r.event_bytes) / static_cast<double>(r.chunks) : 0;
  m.peak_generation_queue = peak_generation_queue;
  return m;
}

// --json: the report as one line of JSON.
void print_json(const Options& o, const Results& r, const Report& m) {
  std::cout << "{\"mode\":\"" << o.mode << "\",\"players\":" << o.players << ",\"radius\":" << o.radius
            << ",\"stagger\":" << (o.stagger ? "true" : "false") << ",\"ramp_s\":" << o.ramp
            << ",\"players_joined\":" << r.joined << ",\"seconds\":" << m.seconds << ",\"chunks\":" << r.chunks
            << ",\"chunks_per_second\":" << static_cast<double>(r.chunks) / m.seconds
            << ",\"latency_p50_ms\":" << m.all.p50 << ",\"latency_p99_ms\":" << m.all.p99
            << ",\"latency_max_ms\":" << m.all.max << ",\"start_latency_p50_ms\":" << m.burst.p50
            << ",\"start_latency_p99_ms\":" << m.burst.p99 << ",\"steady_latency_p50_ms\":" << m.steady.p50
            << ",\"steady_latency_p99_ms\":" << m.steady.p99 << ",\"errors\":" << r.errors
            << ",\"server_rss_mib\":" << m.rss << ",\"server_peak_rss_mib\":" << m.peak << ",\"events\":" << r.events
            << ",\"unloads\":" << r.unloads << ",\"event_bytes\":" << r.event_bytes
            << ",\"event_bytes_per_chunk\":" << m.bytes_per_chunk
            << ",\"peak_generation_queue\":" << m.peak_generation_queue << ",\"server_cpu_s\":" << m.server_cpu
            << ",\"server_cpu_ms_per_chunk\":" << m.server_cpu_ms_per_chunk << "}\n";
}

// The report as one line of text. `pool`: whether to show the generation queue's peak.
void print_text(const Options& o, const Results& r, const Report& m, bool pool) {
  std::cout << o.players << " players, " << o.mode << ", " << m.seconds << " s: " << r.chunks << " chunks ("
            << static_cast<double>(r.chunks) / m.seconds << "/s), latency p50 " << m.all.p50 << " ms, p99 " << m.all.p99
            << " ms, max " << m.all.max << " ms (first " << o.steady_after << " s: p50 " << m.burst.p50 << ", p99 "
            << m.burst.p99 << "; after: p50 " << m.steady.p50 << ", p99 " << m.steady.p99 << "), " << r.errors
            << " errors";
  if (o.server_pid > 0) {
    std::cout << ", server RSS " << m.rss << " MiB (peak " << m.peak << "), server CPU " << m.server_cpu << " s ("
              << m.server_cpu_ms_per_chunk << " ms per chunk)";
  }
  std::cout << ", " << r.events << " session events (" << r.unloads << " unloads in them), " << m.bytes_per_chunk
            << " event bytes per chunk";
  if (pool) std::cout << ", generation queue peak " << m.peak_generation_queue;
  if (o.ramp > 0) std::cout << ", " << r.joined << " players joined over the " << o.ramp << " s ramp";
  std::cout << '\n';
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (const std::optional<int> exit_code = parse(argc, argv, o)) return *exit_code;
  Results r;
  const double server_cpu_start = o.server_pid > 0 ? cpu_seconds(o.server_pid) : 0;
  const auto start = Clock::now();
  const auto end = start + std::chrono::seconds(o.duration);
  const std::vector<std::unique_ptr<WorldService::Stub>> stubs = open_stubs(o);
  std::optional<chunkforge::loadgen::LocalWorld> local;
  std::unique_ptr<chunkforge::loadgen::GenerationPool> pool;
  if (o.mode == "local" || o.mode == "local-generate") {
    std::string error;
    local = chunkforge::loadgen::fetch_local_world(*stubs[0], o.mode == "local-generate", error);
    if (!local) {
      std::cerr << "chunkforge-loadgen: " << error << '\n';
      return 1;
    }
    if (local->world) pool = std::make_unique<chunkforge::loadgen::GenerationPool>(local->world, o.generator_threads);
  }
  std::vector<std::thread> players =
      start_players(stubs, o, start, end, r, local ? &local->declared : nullptr, pool.get());
  for (std::thread& t : players) t.join();
  const size_t peak_generation_queue = pool ? pool->peak_queue() : 0;
  pool.reset();  // the chunks still queued are not counted
  const Report report = measure(o, r, start, server_cpu_start, peak_generation_queue);
  if (o.json) {
    print_json(o, r, report);
  } else {
    // The pool is gone by now, so the text never shows the queue's peak (the JSON does): kept
    // as it was, since splitting main changed no output.
    print_text(o, r, report, pool != nullptr);
  }
  if (!r.first_error.empty()) std::cerr << "first error: " << r.first_error << '\n';
  return r.errors == 0 ? 0 : 1;
}
