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
// memory (now and peak) and CPU, and the bytes of the session events per chunk.
#include <grpcpp/grpcpp.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <queue>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "chunkforge/v1/service.grpc.pb.h"
#include "local_players.h"
#include "parse_command_line.h"

namespace {

using Clock = std::chrono::steady_clock;
using chunkforge::v1::WorldService;

struct Options {
  std::string server = "127.0.0.1:50051", mode = "session";
  int players = 10, radius = 4, duration = 10, server_pid = 0;
  double speed = 2;          // chunks per second
  double steady_after = 10;  // seconds: latencies before are the start burst, after the steady walk
  double ramp = 0;           // seconds over which players join (0: all at once)
  bool stagger = false;      // players step at spread phases instead of all at the same instant
  bool load_batches = true;  // session mode: the server may send several chunks in one event
  bool json = false;
  int generator_threads = 2;  // local-generate: the pool every player shares
};

// One chunk's latency and when it arrived (seconds from the start of the run).
struct Sample {
  double arrived_s, ms;
};

struct Results {
  const std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  std::mutex mutex;
  std::vector<Sample> samples;
  std::atomic<uint64_t> chunks{0}, errors{0};
  std::atomic<uint64_t> joined{0};       // players whose walk began (--ramp: those whose turn came)
  std::atomic<uint64_t> event_bytes{0};  // session events as serialized (gRPC adds 5 bytes each)
  std::string first_error;
  void latency(double ms) {
    const double arrived = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::lock_guard lock(mutex);
    samples.push_back({arrived, ms});
  }
  void error(const grpc::Status& s) {
    ++errors;
    std::lock_guard lock(mutex);
    if (first_error.empty()) first_error = std::to_string(s.error_code()) + ": " + s.error_message();
  }
};

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

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// Where in a step player p is at the start: 0, or with --stagger its own fraction of a step.
double phase(int player, const Options& o) { return o.stagger ? std::fmod(player * 0.6180339887498949, 1.0) : 0.0; }

// Player p walks straight along its own direction, one chunk every 1/speed seconds: all players
// at the same instants (the worst case for a server: every step's new chunks at once), or with
// --stagger each at its own phase, spread evenly over the step (golden-ratio offsets), as the
// players of a game cross chunk borders independently.
std::pair<int64_t, int64_t> position(int player, double seconds, const Options& o) {
  static const int dirs[8][2] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}, {1, 1}, {-1, 1}, {1, -1}, {-1, -1}};
  const int64_t steps = static_cast<int64_t>(seconds * o.speed + phase(player, o));
  const auto* d = dirs[player % 8];
  const int64_t base = (player / 8) * 1000;  // players start far apart
  return {base + d[0] * steps, base * 3 + d[1] * steps};
}

// When (seconds from the start) player p takes its next step after `seconds`.
double next_step(int player, double seconds, const Options& o) {
  const double steps = std::floor(seconds * o.speed + phase(player, o));
  return (steps + 1 - phase(player, o)) / o.speed;
}

// One player's Session as a callback reactor: events are taken on gRPC's own threads as they
// arrive. (With a blocking reader thread per player, 200 players cost the load generator a
// thread hand-off per event: CPU taken from the server it measures on a shared machine.)
class SessionPlayer final
    : public grpc::ClientBidiReactor<chunkforge::v1::SessionUpdate, chunkforge::v1::SessionEvent> {
 public:
  using Key = std::pair<int64_t, int64_t>;

  // `local`: the player declares it; `pool`: and generates on it (local-generate).
  SessionPlayer(WorldService::Stub& stub, Results& r, const chunkforge::v1::LocalGeneration* local = nullptr,
                chunkforge::loadgen::GenerationPool* pool = nullptr)
      : r_(r), local_(local), pool_(pool) {
    stub.async()->Session(&context_, this);
    // Writes start from the player's thread, outside any reaction: without a hold the call could
    // be done (OnDone) between move()'s check and its StartWrite. end() lets it go.
    AddHold();
    StartRead(&event_);
    StartCall();
  }

  // The player is at `p`: chunks new to its view enter now, and the update is written after
  // any still being written. False once the server has ended the stream.
  bool move(Key p, const Options& o) {
    std::unique_lock lock(mutex_);
    if (read_all_) return false;
    std::map<Key, Clock::time_point> view;
    for (int64_t z = p.second - o.radius; z <= p.second + o.radius; ++z) {
      for (int64_t x = p.first - o.radius; x <= p.first + o.radius; ++x) {
        auto it = entered_.find({x, z});
        view[{x, z}] = it != entered_.end() ? it->second : Clock::now();
      }
    }
    entered_ = std::move(view);
    chunkforge::v1::SessionUpdate update;
    update.set_x(static_cast<double>(p.first) * 64 + 32);
    update.set_z(static_cast<double>(p.second) * 64 + 32);
    update.set_view_radius(static_cast<uint32_t>(o.radius));
    update.set_accept_load_batches(o.load_batches);
    if (local_ != nullptr && !asked_) *update.mutable_local_generation() = *local_;
    asked_ = true;
    unwritten_.push_back(std::move(update));
    if (take_next_write()) {
      lock.unlock();
      StartWrite(&outgoing_);
    }
    return true;
  }

  // The walk is over: ends the call without waiting for the rest of the view. Then wait() returns
  // its status once gRPC is done with it (a driver cancels all its players before it waits).
  void cancel() {
    context_.TryCancel();
    RemoveHold();
  }
  grpc::Status wait() {
    std::unique_lock lock(mutex_);
    finished_.wait(lock, [&] { return done_; });
    return status_;
  }

  void OnReadDone(bool ok) override {
    {
      std::lock_guard lock(mutex_);
      if (!ok) {  // the server ended the stream; OnDone follows end()
        read_all_ = true;
        return;
      }
      r_.event_bytes += event_.ByteSizeLong();
      if (event_.has_load()) arrived(event_.load().coord());
      for (const chunkforge::v1::Chunk& chunk : event_.loads().chunks()) arrived(chunk.coord());
      const auto& offsets = event_.pristine().offsets();
      for (int k = 0; k + 1 < offsets.size(); k += 2) {
        entered(event_.pristine().origin().x() + offsets[k], event_.pristine().origin().z() + offsets[k + 1], {});
      }
      if (event_.has_edited()) entered(event_.edited().chunk().x(), event_.edited().chunk().z(), event_.edited());
    }
    StartRead(&event_);  // outside the lock: gRPC may run OnReadDone inline
  }

  void OnWriteDone(bool ok) override {
    std::unique_lock lock(mutex_);
    writing_ = false;
    if (ok && take_next_write()) {
      lock.unlock();
      StartWrite(&outgoing_);
    }
  }

  void OnDone(const grpc::Status& status) override {
    std::lock_guard lock(mutex_);
    status_ = status;
    done_ = true;
    finished_.notify_all();
  }

 private:
  // Moves the next update into `outgoing_` if none is being written; the caller then starts
  // its write outside the lock (gRPC may run a reaction inline, and it takes the lock).
  bool take_next_write() {
    if (writing_ || unwritten_.empty()) return false;
    writing_ = true;
    outgoing_ = std::move(unwritten_.front());
    unwritten_.pop_front();
    return true;
  }

  void arrived(const chunkforge::v1::ChunkCoord& c) {
    ++r_.chunks;
    auto it = entered_.find({c.x(), c.z()});
    if (it != entered_.end()) r_.latency(ms_since(it->second));
  }

  // A chunk the player generates: arrived now, or once the pool made it.
  void entered(int64_t x, int64_t z, std::optional<chunkforge::v1::ChunkChange> edited) {
    chunkforge::v1::ChunkCoord c;
    c.set_x(x);
    c.set_z(z);
    if (pool_ == nullptr) return arrived(c);
    const auto it = entered_.find({x, z});
    const std::optional<Clock::time_point> since =
        it == entered_.end() ? std::nullopt : std::optional<Clock::time_point>(it->second);
    pool_->submit(x, z, std::move(edited), [&r = r_, since] {
      ++r.chunks;
      if (since) r.latency(ms_since(*since));
    });
  }

  Results& r_;
  const chunkforge::v1::LocalGeneration* local_;
  chunkforge::loadgen::GenerationPool* pool_;
  bool asked_ = false;
  grpc::ClientContext context_;
  chunkforge::v1::SessionEvent event_;
  chunkforge::v1::SessionUpdate outgoing_;
  std::mutex mutex_;
  std::condition_variable finished_;
  std::map<Key, Clock::time_point> entered_;  // in view since
  std::deque<chunkforge::v1::SessionUpdate> unwritten_;
  bool writing_ = false, read_all_ = false, done_ = false;
  grpc::Status status_;
};

// One simulated player as a driver thread keeps it: when it joins (--ramp), and its session
// once it has joined, walking from that instant.
struct Walker {
  int player = 0;
  Clock::time_point joins;
  std::unique_ptr<SessionPlayer> session;
  std::pair<int64_t, int64_t> last{INT64_MIN, 0};
};

// When player p opens its session: all at once, or with --ramp spread evenly over that many seconds.
Clock::time_point join_time(int player, const Options& o, Clock::time_point start) {
  const double at = o.ramp * static_cast<double>(player) / static_cast<double>(o.players);
  return start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(at));
}

// Drives the session players p with p % stride == first: opens each at its join time, moves it at
// each of its steps, asleep until the next one is due, and ends them all at `end`. A few such
// threads walk every player: with one thread per player, 2,000 players were 2,000 threads created
// in the same half second and woken at every step, on the cores of the server being measured.
void drive_sessions(const std::vector<std::unique_ptr<WorldService::Stub>>& stubs, int first, int stride,
                    const Options& o, Clock::time_point start, Clock::time_point end, Results& r,
                    const chunkforge::v1::LocalGeneration* local, chunkforge::loadgen::GenerationPool* pool) {
  using Due = std::pair<Clock::time_point, size_t>;  // when, which walker
  std::vector<Walker> walkers;
  std::priority_queue<Due, std::vector<Due>, std::greater<>> due;
  for (int p = first; p < o.players; p += stride) {
    walkers.push_back({p, join_time(p, o, start), nullptr});
    due.emplace(walkers.back().joins, walkers.size() - 1);
  }
  while (!due.empty() && due.top().first < end) {
    if (Clock::now() < due.top().first) {
      std::this_thread::sleep_until(due.top().first);
      continue;
    }
    Walker& w = walkers[due.top().second];
    due.pop();
    if (!w.session) {
      w.session = std::make_unique<SessionPlayer>(*stubs[static_cast<size_t>(w.player) % stubs.size()], r, local, pool);
      w.joins = Clock::now();
      ++r.joined;
    }
    const double s = std::chrono::duration<double>(Clock::now() - w.joins).count();
    const auto p = position(w.player, s, o);
    if (p != w.last && !w.session->move(p, o)) continue;  // the server ended it: it walks no more
    w.last = p;
    const auto step =
        std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(next_step(w.player, s, o)));
    due.emplace(w.joins + step, &w - walkers.data());
  }
  if (!due.empty()) std::this_thread::sleep_until(end);  // players with no step left still hold their view
  for (Walker& w : walkers) {
    if (w.session) w.session->cancel();
  }
  for (Walker& w : walkers) {
    if (!w.session) continue;
    const grpc::Status s = w.session->wait();
    if (!s.ok() && s.error_code() != grpc::StatusCode::CANCELLED) r.error(s);
  }
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
    "event bytes per chunk and, with --server-pid, the server's resident memory (now and peak)\n"
    "and CPU. Exit 0 without errors, 1 with some, 2 for bad options.\n";

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
  app.add_flag("--json", o.json, "one line of JSON");
  return chunkforge::tool::parse_command_line(app, argc, argv);
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (const std::optional<int> exit_code = parse(argc, argv, o)) return *exit_code;
  Results r;
  const double server_cpu_start = o.server_pid > 0 ? cpu_seconds(o.server_pid) : 0;
  const auto start = Clock::now();
  const auto end = start + std::chrono::seconds(o.duration);
  // A few channels shared by the players, as a game server fleet's clients would be spread: at
  // least 8, and one per 100 players, since a connection carries at most 128 calls at once (the
  // server's --max-calls-per-connection; gRPC queues the rest): 2,000 sessions on 8 connections
  // left 976 of them waiting, unserved and unmeasured.
  std::vector<std::unique_ptr<WorldService::Stub>> stubs;
  for (int c = 0; c < std::min(o.players, std::max(8, (o.players + 99) / 100)); ++c) {
    grpc::ChannelArguments args;
    args.SetInt("grpc.channel_id", c);  // distinct connections
    stubs.push_back(
        WorldService::NewStub(grpc::CreateCustomChannel(o.server, grpc::InsecureChannelCredentials(), args)));
  }
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
  std::vector<std::thread> players;
  if (o.mode == "session" || local) {
    const int drivers = std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, std::min(o.players, 8));
    for (int d = 0; d < drivers; ++d) {
      players.emplace_back([&, d] {
        drive_sessions(stubs, d, drivers, o, start, end, r, local ? &local->declared : nullptr, pool.get());
      });
    }
  }
  for (int p = 0; p < o.players && (o.mode == "chunk" || o.mode == "region"); ++p) {
    players.emplace_back([&, p] {  // blocking calls: a thread per player
      ++r.joined;
      WorldService::Stub& stub = *stubs[static_cast<size_t>(p) % stubs.size()];
      if (o.mode == "chunk") run_chunk(stub, p, o, end, r);
      if (o.mode == "region") run_region(stub, p, o, end, r);
    });
  }
  for (std::thread& t : players) t.join();
  const size_t peak_generation_queue = pool ? pool->peak_queue() : 0;
  pool.reset();  // the chunks still queued are not counted
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  // The whole run, the start burst (every player's first view at once) and the steady walk.
  const Percentiles all = percentiles(r.samples, 0, seconds + 1);
  const Percentiles burst = percentiles(r.samples, 0, o.steady_after);
  const Percentiles steady = percentiles(r.samples, o.steady_after, seconds + 1);
  const auto [rss, peak] = o.server_pid > 0 ? rss_mib(o.server_pid) : std::pair{0.0, 0.0};
  const double server_cpu = o.server_pid > 0 ? cpu_seconds(o.server_pid) - server_cpu_start : 0;
  const double server_cpu_ms_per_chunk = r.chunks > 0 ? 1000 * server_cpu / static_cast<double>(r.chunks) : 0;
  const double bytes_per_chunk = r.chunks > 0 ? static_cast<double>(r.event_bytes) / static_cast<double>(r.chunks) : 0;
  if (o.json) {
    std::cout << "{\"mode\":\"" << o.mode << "\",\"players\":" << o.players << ",\"radius\":" << o.radius
              << ",\"stagger\":" << (o.stagger ? "true" : "false") << ",\"ramp_s\":" << o.ramp
              << ",\"players_joined\":" << r.joined << ",\"seconds\":" << seconds << ",\"chunks\":" << r.chunks
              << ",\"chunks_per_second\":" << static_cast<double>(r.chunks) / seconds
              << ",\"latency_p50_ms\":" << all.p50 << ",\"latency_p99_ms\":" << all.p99
              << ",\"latency_max_ms\":" << all.max << ",\"start_latency_p50_ms\":" << burst.p50
              << ",\"start_latency_p99_ms\":" << burst.p99 << ",\"steady_latency_p50_ms\":" << steady.p50
              << ",\"steady_latency_p99_ms\":" << steady.p99 << ",\"errors\":" << r.errors
              << ",\"server_rss_mib\":" << rss << ",\"server_peak_rss_mib\":" << peak
              << ",\"event_bytes\":" << r.event_bytes << ",\"event_bytes_per_chunk\":" << bytes_per_chunk
              << ",\"peak_generation_queue\":" << peak_generation_queue << ",\"server_cpu_s\":" << server_cpu
              << ",\"server_cpu_ms_per_chunk\":" << server_cpu_ms_per_chunk << "}\n";
  } else {
    std::cout << o.players << " players, " << o.mode << ", " << seconds << " s: " << r.chunks << " chunks ("
              << static_cast<double>(r.chunks) / seconds << "/s), latency p50 " << all.p50 << " ms, p99 " << all.p99
              << " ms, max " << all.max << " ms (first " << o.steady_after << " s: p50 " << burst.p50 << ", p99 "
              << burst.p99 << "; after: p50 " << steady.p50 << ", p99 " << steady.p99 << "), " << r.errors << " errors";
    if (o.server_pid > 0) {
      std::cout << ", server RSS " << rss << " MiB (peak " << peak << "), server CPU " << server_cpu << " s ("
                << server_cpu_ms_per_chunk << " ms per chunk)";
    }
    std::cout << ", " << bytes_per_chunk << " event bytes per chunk";
    if (pool) std::cout << ", generation queue peak " << peak_generation_queue;
    if (o.ramp > 0) std::cout << ", " << r.joined << " players joined over the " << o.ramp << " s ramp";
    std::cout << '\n';
  }
  if (!r.first_error.empty()) std::cerr << "first error: " << r.first_error << '\n';
  return r.errors == 0 ? 0 : 1;
}
