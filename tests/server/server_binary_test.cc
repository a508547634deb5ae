// chunkforge-server as a process: start-up errors, a signal for a clean stop.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <signal.h>  // NOLINT(modernize-deprecated-headers): kill() is POSIX's, not in <csignal>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "chunkforge/v1/service.grpc.pb.h"
#include "support/http_get.h"
#include "support/server_process.h"
#include "support/temp_dir.h"

namespace {

using namespace chunkforge::test;

// A file in this process's own temporary directory.
std::string temp(const std::string& name) {
  static const std::string dir = chunkforge::test::unique_temp_dir("server_binary");
  return dir + name;
}

TEST(ServerBinaryTest, StopsCleanlyOnSigterm) {
  const Process p = spawn(CHUNKFORGE_SERVER, {"--listen", "127.0.0.1:0", "--http", "127.0.0.1:0", "--threads", "1"},
                          temp("sigterm.log"));
  // Wait until it says it serves.
  for (int k = 0; k < 100 && read_text(p.log).find("on port") == std::string::npos; ++k) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_NE(read_text(p.log).find("on port"), std::string::npos) << read_text(p.log);
  kill(p.pid, SIGTERM);
  EXPECT_EQ(wait_for(p, std::chrono::seconds(5)), 0) << read_text(p.log);
  EXPECT_NE(read_text(p.log).find("stopped"), std::string::npos) << read_text(p.log);
}

// gRPC's shutdown waits for every connection to close, and a client process that keeps an idle
// one open (no call of its own under way, so nothing of it reads the server's goodbye) held the
// server for the whole 3 s grace, every time. The server closes what is left once no call is
// under way: it exits long before the grace ends.
TEST(ServerBinaryTest, AnIdleClientConnectionDoesNotHoldTheStop) {
  const Process p = spawn(CHUNKFORGE_SERVER, {"--listen", "127.0.0.1:0", "--http", "127.0.0.1:0", "--threads", "1"},
                          temp("idle_client.log"));
  const int port = wait_until_serving(p);
  ASSERT_GT(port, 0) << read_text(p.log);
  auto stub = chunkforge::v1::WorldService::NewStub(
      grpc::CreateChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  chunkforge::v1::WorldInfo info;
  ASSERT_TRUE(stub->GetWorldInfo(&context, {}, &info).ok());
  const auto signalled = std::chrono::steady_clock::now();
  kill(p.pid, SIGTERM);
  EXPECT_EQ(wait_for(p, std::chrono::seconds(10)), 0) << read_text(p.log);
  EXPECT_LT(std::chrono::steady_clock::now() - signalled, std::chrono::seconds(2)) << "the grace is 3 s";
}

// The seed GetWorldInfo gives a server started with the flags (0 if the call failed), and its
// map's /api/status into `status`.
uint64_t published_seed(const std::vector<std::string>& flags, const std::string& log, std::string& status_page) {
  std::vector<std::string> args = {"--listen", "127.0.0.1:0", "--http", "127.0.0.1:0", "--seed", "77"};
  args.insert(args.end(), flags.begin(), flags.end());
  const Process p = spawn(CHUNKFORGE_SERVER, args, temp(log));
  const int port = wait_until_serving(p);
  auto stub = chunkforge::v1::WorldService::NewStub(
      grpc::CreateChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  chunkforge::v1::WorldInfo info;
  const grpc::Status status = stub->GetWorldInfo(&context, {}, &info);
  const size_t http = read_text(p.log).find("(http ");
  const int http_port = http == std::string::npos ? 0 : std::atoi(read_text(p.log).c_str() + http + 6);
  EXPECT_EQ(http_get(http_port, "/api/status", std::chrono::seconds(10), "127.0.0.1", &status_page), 200);
  kill(p.pid, SIGTERM);
  EXPECT_EQ(wait_for(p, std::chrono::seconds(10)), 0) << read_text(p.log);
  EXPECT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(info.chunk_size(), 64u);
  return info.seed();
}

TEST(ServerBinaryTest, TheOperatorChoosesWhetherTheSeedIsPublished) {
  std::string status;
  EXPECT_EQ(published_seed({}, "seed_default.log", status), 77u);
  EXPECT_NE(status.find("\"seed\":\"77\""), std::string::npos) << status;
  EXPECT_EQ(published_seed({"--publish-seed", "on"}, "seed_on.log", status), 77u);
  EXPECT_EQ(published_seed({"--publish-seed", "off"}, "seed_off.log", status), 0u);
  EXPECT_NE(status.find("\"seed\":null"), std::string::npos) << status;
  EXPECT_EQ(status.find("77"), std::string::npos) << status;
}

// chunkforge-loadgen against the server on `port` with `args`: its JSON line, once it exited 0
// with no error and some chunks.
std::string run_loadgen(int port, const std::string& args) {
  const std::string command =
      std::string(CHUNKFORGE_LOADGEN) + " --server 127.0.0.1:" + std::to_string(port) + " " + args + " --json 2>&1";
  std::string out;
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe.get())) out.append(buffer, n);
  EXPECT_EQ(pclose(pipe.release()), 0) << out;
  EXPECT_NE(out.find("\"errors\":0"), std::string::npos) << out;
  EXPECT_EQ(out.find("\"chunks\":0,"), std::string::npos) << out;
  return out;
}

TEST(ServerBinaryTest, LoadGeneratorRunsSessionsWithoutErrors) {
  const Process server =
      spawn(CHUNKFORGE_SERVER, {"--listen", "127.0.0.1:0", "--http", "", "--threads", "2"}, temp("loadgen_server.log"));
  const int port = wait_until_serving(server);
  ASSERT_GT(port, 0) << read_text(server.log);
  const auto run = [&](const std::string& mode, bool stagger, const std::string& more = "") {
    return run_loadgen(port, "--mode " + mode + " --players 4 --radius 2 --speed 4 --duration 2 --server-pid " +
                                 std::to_string(server.pid) + (stagger ? " --stagger" : "") + more);
  };
  for (const bool stagger : {false, true}) {  // players stepping together, then at spread phases
    const std::string out = run("session", stagger);
    EXPECT_NE(out.find(stagger ? "\"stagger\":true" : "\"stagger\":false"), std::string::npos) << out;
    EXPECT_NE(out.find("\"players_joined\":4,"), std::string::npos) << out;
  }
  // Walking players are told what left their views, batched or one per event: 5 chunks a step.
  for (const std::string batches : {"", " --no-unload-batches"}) {
    const std::string out = run("session", false, batches);
    const size_t at = out.find("\"unloads\":");
    ASSERT_NE(at, std::string::npos) << out;
    EXPECT_GE(std::stoll(out.substr(at + 10)), 5) << out;
  }
  // Joins spread over 4 s of a 2 s run: players 0 and 1 join (at 0 and 1 s), 2 and 3 never do.
  for (const std::string mode : {"session", "local"}) {
    const std::string out = run(mode, false, " --ramp 4");
    EXPECT_NE(out.find("\"players_joined\":2,"), std::string::npos) << out;
  }
  std::unique_ptr<FILE, int (*)(FILE*)> bad(popen((std::string(CHUNKFORGE_LOADGEN) + " --ramp -1 2>&1").c_str(), "r"),
                                            pclose);
  char line[512] = {};
  const std::string said = fgets(line, sizeof line, bad.get()) != nullptr ? line : "";
  EXPECT_EQ(WEXITSTATUS(pclose(bad.release())), 2) << said;
  EXPECT_NE(said.find("--ramp: must be a number of seconds in [0, 3600] (got \"-1\")"), std::string::npos) << said;
  // Players that generate: a few bytes per chunk where a whole chunk is hundreds.
  for (const std::string mode : {"local", "local-generate"}) {
    const std::string out = run(mode, false);
    const size_t at = out.find("\"event_bytes_per_chunk\":");
    ASSERT_NE(at, std::string::npos) << out;
    EXPECT_LT(std::stod(out.substr(at + 24)), 16) << out;
  }
  kill(server.pid, SIGTERM);
  EXPECT_EQ(wait_for(server, std::chrono::seconds(5)), 0) << read_text(server.log);
}

#ifdef CHUNKFORGE_NULL_SERVER  // built with the benchmarks (tests/CMakeLists.txt)
// The transport ceiling answers local players as the server answers a world without edits:
// every chunk entering their views arrives, in a few bytes, and nothing fails.
TEST(ServerBinaryTest, NullServerAnswersPlayersThatGenerate) {
  const Process server = spawn(CHUNKFORGE_NULL_SERVER, {"--listen", "127.0.0.1:0"}, temp("null_server.log"));
  const int port = wait_until_serving(server);
  ASSERT_GT(port, 0) << read_text(server.log);
  const std::string out = run_loadgen(port, "--mode local --players 8 --radius 2 --speed 4 --duration 2");
  EXPECT_NE(out.find("\"players_joined\":8,"), std::string::npos) << out;
  const size_t at = out.find("\"event_bytes_per_chunk\":");
  ASSERT_NE(at, std::string::npos) << out;
  EXPECT_LT(std::stod(out.substr(at + 24)), 16) << out;
  kill(server.pid, SIGTERM);
  EXPECT_NE(wait_for(server, std::chrono::seconds(5)), -1) << read_text(server.log);
}
#endif

// The HTTP side port a server reports in its start-up line ("(http N"), or 0.
int reported_http_port(const std::string& log) {
  const size_t at = log.find("(http ");
  return at == std::string::npos ? 0 : std::atoi(log.c_str() + at + 6);
}

// The seed GetWorldInfo answers on `port` over a channel of its own (a new connection), 0 if
// the call failed.
uint64_t seed_answered(int port) {
  grpc::ChannelArguments fresh;  // no connection shared with an earlier call's channel
  fresh.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  auto stub = chunkforge::v1::WorldService::NewStub(
      grpc::CreateCustomChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials(), fresh));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  chunkforge::v1::WorldInfo info;
  return stub->GetWorldInfo(&context, {}, &info).ok() ? info.seed() : 0;
}

// A second server on a port the first listens on (gRPC or HTTP) exits 1 at once, naming the
// address; it never shares the port, so every client still reaches the first world.
TEST(ServerBinaryTest, ASecondServerOnABusyPortExits1NamingTheAddress) {
  const Process first =
      spawn(CHUNKFORGE_SERVER, {"--listen", "127.0.0.1:0", "--http", "127.0.0.1:0", "--threads", "1", "--seed", "5"},
            temp("busy_first.log"));
  const int port = wait_until_serving(first), http_port = reported_http_port(read_text(first.log));
  ASSERT_GT(port, 0) << read_text(first.log);
  ASSERT_GT(http_port, 0) << read_text(first.log);
  const std::string grpc_address = "127.0.0.1:" + std::to_string(port);
  const std::string http_address = "127.0.0.1:" + std::to_string(http_port);

  const auto started = std::chrono::steady_clock::now();
  const Process second =
      spawn(CHUNKFORGE_SERVER, {"--listen", grpc_address, "--http", "", "--threads", "1", "--seed", "7"},
            temp("busy_grpc.log"));
  EXPECT_EQ(wait_for(second, std::chrono::seconds(10)), 1) << read_text(second.log);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
  EXPECT_NE(read_text(second.log).find("cannot listen on " + grpc_address), std::string::npos) << read_text(second.log);
  for (int call = 0; call < 20; ++call) EXPECT_EQ(seed_answered(port), 5u) << "call " << call;

  const Process third =
      spawn(CHUNKFORGE_SERVER, {"--listen", "127.0.0.1:0", "--http", http_address, "--threads", "1", "--seed", "7"},
            temp("busy_http.log"));
  EXPECT_EQ(wait_for(third, std::chrono::seconds(10)), 1) << read_text(third.log);
  EXPECT_NE(read_text(third.log).find("cannot listen for HTTP on " + http_address), std::string::npos)
      << read_text(third.log);
  std::string health;
  EXPECT_EQ(http_get(http_port, "/healthz", std::chrono::seconds(10), "127.0.0.1", &health), 200);
  EXPECT_EQ(seed_answered(port), 5u);

  kill(first.pid, SIGTERM);
  EXPECT_EQ(wait_for(first, std::chrono::seconds(10)), 0) << read_text(first.log);
}

TEST(ServerBinaryTest, BadWorldFileStopsStartUpWithFieldErrorsAndExitCode2) {
  const std::string world = temp("bad_world.json");
  std::ofstream(world) << R"({"chunk_size": 8, "resources": [{"name": "x", "bogus": 1}]})";
  const Process p =
      spawn(CHUNKFORGE_SERVER, {"--world", world, "--listen", "127.0.0.1:0", "--http", ""}, temp("bad_world.log"));
  EXPECT_EQ(wait_for(p, std::chrono::seconds(10)), 2);
  EXPECT_NE(read_text(p.log).find("resources[0].bogus: unknown field"), std::string::npos) << read_text(p.log);
}

// A world that leaves generator_version out starts, with a warning at every start: an upgrade
// could move it to a newer generator under its players.
TEST(ServerBinaryTest, UnpinnedGeneratorVersionIsWarnedAbout) {
  std::string world = read_text(std::string(CHUNKFORGE_SOURCE_DIR) + "/docs/worlds/default.json");
  const size_t at = world.find("\"generator_version\": 2,");
  ASSERT_NE(at, std::string::npos);
  world.erase(at, std::string("\"generator_version\": 2,").size());
  const std::string file = temp("unpinned.json");
  std::ofstream(file) << world;
  const Process p =
      spawn(CHUNKFORGE_SERVER, {"--world", file, "--listen", "127.0.0.1:0", "--http", ""}, temp("unpinned.log"));
  ASSERT_GT(wait_until_serving(p), 0) << read_text(p.log);
  EXPECT_NE(read_text(p.log).find("warning"), std::string::npos) << read_text(p.log);
  EXPECT_NE(read_text(p.log).find("generator_version: not pinned"), std::string::npos) << read_text(p.log);
  kill(p.pid, SIGTERM);
  EXPECT_EQ(wait_for(p, std::chrono::seconds(5)), 0);
}

// A database that cannot be reached stops start-up (exit 1) with PostgreSQL's reason, and the
// password in the URI is not printed.
TEST(ServerBinaryTest, AnUnreachablePostgresStoreStopsStartUpWithoutShowingThePassword) {
  const Process p =
      spawn(CHUNKFORGE_SERVER,
            {"--store", "postgres://game:s3cret@127.0.0.1:1/world", "--listen", "127.0.0.1:0", "--http", ""},
            temp("unreachable_store.log"));
  EXPECT_EQ(wait_for(p, std::chrono::seconds(10)), 1);
  const std::string log = read_text(p.log);
  EXPECT_NE(log.find("edit store: postgres://game@127.0.0.1:1/world: cannot connect:"), std::string::npos) << log;
  EXPECT_NE(log.find("Connection refused"), std::string::npos) << log;
  EXPECT_EQ(log.find("s3cret"), std::string::npos) << log;
}

// A --data directory whose store cannot be opened (here edits.db is a directory; in production
// a full disk or a read-only volume) names the flag, exit 2. With --store-optional the operator
// gets the generated world instead: chunks served, every Edit UNAVAILABLE saying why.
TEST(ServerBinaryTest, ADataDirectoryWhoseStoreCannotOpenNamesTheFlagOrServesWithoutEdits) {
  const std::string data = unique_temp_dir("server_binary_data");
  std::filesystem::create_directories(data + "edits.db");
  const Process refused =
      spawn(CHUNKFORGE_SERVER, {"--data", data, "--listen", "127.0.0.1:0", "--http", ""}, temp("data_refused.log"));
  EXPECT_EQ(wait_for(refused, std::chrono::seconds(10)), 2);
  EXPECT_NE(read_text(refused.log).find("--data \"" + data + "\": edit store:"), std::string::npos)
      << read_text(refused.log);

  const Process p = spawn(CHUNKFORGE_SERVER,
                          {"--data", data, "--store-optional", "--open-edits", "--listen", "127.0.0.1:0", "--http", ""},
                          temp("data_optional.log"));
  const int port = wait_until_serving(p);
  ASSERT_GT(port, 0) << read_text(p.log);
  auto stub = chunkforge::v1::WorldService::NewStub(
      grpc::CreateChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials()));
  grpc::ClientContext read_context, edit_context;
  read_context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  edit_context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  chunkforge::v1::Chunk chunk;
  EXPECT_TRUE(stub->GetChunk(&read_context, {}, &chunk).ok());
  chunkforge::v1::EditRequest request;
  chunkforge::v1::EditOp* op = request.add_ops();
  op->mutable_chunk();
  op->mutable_add_object()->set_x(1);
  chunkforge::v1::EditResponse response;
  const grpc::Status status = stub->Edit(&edit_context, request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_NE(status.error_message().find("could not be opened at start-up"), std::string::npos)
      << status.error_message();
  kill(p.pid, SIGTERM);
  EXPECT_EQ(wait_for(p, std::chrono::seconds(10)), 0) << read_text(p.log);
}

TEST(ServerBinaryTest, BadFlagsExitWith2) {
  const Process p = spawn(CHUNKFORGE_SERVER, {"--cache-mb", "lots"}, temp("bad_flag.log"));
  EXPECT_EQ(wait_for(p, std::chrono::seconds(10)), 2);
  EXPECT_NE(read_text(p.log).find("--cache-mb: must be an integer"), std::string::npos) << read_text(p.log);
  const Process q = spawn(CHUNKFORGE_SERVER, {"--look-ahead", "sometimes"}, temp("bad_switch.log"));
  EXPECT_EQ(wait_for(q, std::chrono::seconds(10)), 2);
  EXPECT_NE(read_text(q.log).find("--look-ahead: sometimes not in {on,off}"), std::string::npos) << read_text(q.log);
  const Process r = spawn(CHUNKFORGE_SERVER, {"--load-gather-ms", "5000"}, temp("bad_gather.log"));
  EXPECT_EQ(wait_for(r, std::chrono::seconds(10)), 2);
  EXPECT_NE(read_text(r.log).find("--load-gather-ms: must be an integer in [0, 1000] (got \"5000\")"),
            std::string::npos)
      << read_text(r.log);
}

}  // namespace
