// The edit store failing under a running server (docs/edits.md, "When the store fails"):
// PostgreSQL stopped under a session that needs edited chunks, PostgreSQL hung (its processes
// stopped) under readers of edited chunks, the SQLite file deleted under a stream of edits, and
// request ids with NUL bytes or reused with other contents, on both stores. Each runs the
// harness's bounds; the edit-loss checks are plain assertions.
#include <signal.h>  // NOLINT(modernize-deprecated-headers): kill() is POSIX's, not in <csignal>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <filesystem>
#include <memory>
#include <optional>

#include "harness.h"
#include "support/postgres_cluster.h"

namespace chunkforge::hostile {
namespace {

using Stub = v1::WorldService::Stub;

std::unique_ptr<Stub> stub_of(const ServerProcess& server) { return v1::WorldService::NewStub(server.channel()); }

grpc::ClientContext* with_deadline(grpc::ClientContext& context, std::chrono::milliseconds limit) {
  context.set_deadline(std::chrono::system_clock::now() + limit);
  return &context;
}

// One object added to chunk (x, z); `k` places it.
v1::EditRequest add_one(int64_t x, int64_t z, int k, const std::string& id = "") {
  v1::EditRequest request;
  v1::EditOp* op = request.add_ops();
  op->mutable_chunk()->set_x(x);
  op->mutable_chunk()->set_z(z);
  op->mutable_add_object()->set_x(static_cast<float>(k % 64));
  op->mutable_add_object()->set_z(static_cast<float>((k / 64) % 64));
  request.set_request_id(id);
  return request;
}

grpc::Status edit(Stub& stub, const v1::EditRequest& request, v1::EditResponse* response = nullptr) {
  grpc::ClientContext context;
  v1::EditResponse ignored;
  return stub.Edit(with_deadline(context, 10s), request, response ? response : &ignored);
}

// GetChunk with the layers named (another cache key than the plain chunk: a miss).
grpc::Status get_chunk(Stub& stub, int64_t x, int64_t z, const std::vector<uint32_t>& layers = {},
                       v1::Chunk* out = nullptr) {
  grpc::ClientContext context;
  v1::GetChunkRequest request;
  request.mutable_coord()->set_x(x);
  request.mutable_coord()->set_z(z);
  for (uint32_t l : layers) request.mutable_options()->add_layers(l);
  v1::Chunk ignored;
  return stub.GetChunk(with_deadline(context, 10s), request, out ? out : &ignored);
}

// The postmaster of a test cluster: the first line of its data directory's postmaster.pid.
pid_t postmaster_of(const test::PostgresCluster& pg) {
  return static_cast<pid_t>(std::atoi(test::read_text(pg.dir() + "data/postmaster.pid").c_str()));
}

// Signals the postmaster and every process it forked (its backends): its process group is not
// always its own (pg_ctl may leave it in the caller's).
void signal_cluster(pid_t postmaster, int signal) {
  kill(postmaster, signal);
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string stat = test::read_text(entry.path().string() + "/stat");
    const size_t paren = stat.rfind(')');
    if (paren == std::string::npos) continue;
    std::istringstream fields(stat.substr(paren + 2));
    std::string state;
    pid_t parent = 0;
    fields >> state >> parent;
    if (parent == postmaster) kill(std::atoi(name.c_str()), signal);
  }
}

size_t count_lines(const std::string& text, const std::string& containing) {
  size_t n = 0;
  for (size_t at = text.find(containing); at != std::string::npos; at = text.find(containing, at + 1)) ++n;
  return n;
}

// Edits to three chunks, then PostgreSQL stopped; a session then walks in over them asking for
// layer 0 only (a miss: their store reads fail). It must get UNAVAILABLE-driven retries with
// backoff, not a busy loop; edits fail fast with UNAVAILABLE.
TEST(HostileScenario, PostgresStoppedUnderSession) {
  test::PostgresCluster pg("hostile_stopped");
  ASSERT_TRUE(pg.started()) << pg.failure();
  Scenario scenario("store_postgres_stopped", {"--store", pg.uri(), "--open-edits"});
  ASSERT_TRUE(scenario.server().serving()) << scenario.server().log();
  auto stub = stub_of(scenario.server());
  for (int64_t x : {0, 1, 2}) ASSERT_TRUE(edit(*stub, add_one(x, 0, 1)).ok());
  std::atomic<int> edits_ok{0}, edits_unavailable{0}, reads_unavailable{0};
  std::atomic<double> slowest_edit{0};
  scenario.attack(6s, [&](const std::stop_token& stop) {
    const pid_t postmaster = postmaster_of(pg);
    kill(postmaster, SIGINT);  // fast shutdown: connections closed; edits from here on must fail
    const std::string alive = "/proc/" + std::to_string(postmaster);
    for (int k = 0; k < 250 && std::filesystem::exists(alive); ++k) std::this_thread::sleep_for(20ms);
    std::jthread session([&](const std::stop_token&) {
      grpc::ClientContext context;
      auto call = stub->Session(&context);
      v1::SessionUpdate update;
      update.set_view_radius(2);
      update.mutable_options()->add_layers(0);
      call->Write(update);
      v1::SessionEvent event;
      while (!stop.stop_requested() && call->Read(&event)) {
      }
      context.TryCancel();
    });
    for (int k = 0; !stop.stop_requested(); ++k) {
      const auto start = Clock::now();
      const grpc::Status status = edit(*stub, add_one(5, 5, k));
      slowest_edit = std::max(slowest_edit.load(), seconds_since(start));
      if (status.ok()) ++edits_ok;
      if (status.error_code() == grpc::StatusCode::UNAVAILABLE) ++edits_unavailable;
      const grpc::Status read = get_chunk(*stub, k % 3, 0, {1});
      if (read.error_code() == grpc::StatusCode::UNAVAILABLE &&
          read.error_message().find("edit store is unreachable") != std::string::npos) {
        ++reads_unavailable;
      }
      std::this_thread::sleep_for(100ms);
    }
  });
  scenario.expect_within_bounds();
  EXPECT_EQ(edits_ok, 0);
  EXPECT_GT(edits_unavailable, 10);
  EXPECT_GT(reads_unavailable, 10);
  EXPECT_LT(slowest_edit, 3.0 * time_scale());
  EXPECT_LT(scenario.report().cpu_seconds, 3.0 * time_scale()) << "a busy loop";
  const std::string log = scenario.server().log();
  EXPECT_LT(count_lines(log, "\n"), 200u) << "a log line per failure";
  EXPECT_GE(count_lines(log, "is unreachable"), 1u);
}

// PostgreSQL's processes stopped (SIGSTOP, the postmaster and its children): the kernel still accepts, nothing answers.
// Readers of edited chunks and an editor must not pin the server; SIGTERM ends it within 5 s.
TEST(HostileScenario, PostgresHung) {
  test::PostgresCluster pg("hostile_hung");
  ASSERT_TRUE(pg.started()) << pg.failure();
  Scenario scenario("store_postgres_hung", {"--store", pg.uri(), "--open-edits"});
  ASSERT_TRUE(scenario.server().serving()) << scenario.server().log();
  auto stub = stub_of(scenario.server());
  for (int64_t x : {0, 1, 2}) ASSERT_TRUE(edit(*stub, add_one(x, 0, 1)).ok());
  const pid_t postmaster = postmaster_of(pg);
  ASSERT_GT(postmaster, 1);
  // Resumed however this test ends (an exception out of the attack too): a stopped cluster would
  // hang its destructor, and the suite with it.
  struct Resume {
    pid_t postmaster;
    ~Resume() { signal_cluster(postmaster, SIGCONT); }
  };
  std::optional<Resume> resume;
  std::atomic<int> reads_unavailable{0}, edits_unavailable{0};
  std::atomic<double> slowest_edit{0};
  std::string last_edit;
  scenario.attack(6s, [&](const std::stop_token& stop) {
    resume.emplace(Resume{postmaster});
    signal_cluster(postmaster, SIGSTOP);
    std::vector<std::jthread> readers;
    readers.reserve(2);
    for (int r = 0; r < 2; ++r) {
      readers.emplace_back([&, r](const std::stop_token&) {
        for (uint32_t k = 0; !stop.stop_requested(); ++k) {
          const grpc::Status status = get_chunk(*stub, r, 0, {k % 4, (k / 4) % 4});
          reads_unavailable += status.error_code() == grpc::StatusCode::UNAVAILABLE;
          std::this_thread::sleep_for(20ms);
        }
      });
    }
    for (int k = 0; !stop.stop_requested(); ++k) {
      const auto start = Clock::now();
      const grpc::Status status = edit(*stub, add_one(6, 6, k));
      edits_unavailable += status.error_code() == grpc::StatusCode::UNAVAILABLE;
      last_edit = std::to_string(status.error_code()) + " " + status.error_message();
      slowest_edit = std::max(slowest_edit.load(), seconds_since(start));
      std::this_thread::sleep_for(100ms);
    }
  });
  resume.reset();  // before the checks, and before the cluster's destructor stops it
  scenario.expect_within_bounds();
  EXPECT_GT(reads_unavailable, 10);
  EXPECT_GT(edits_unavailable, 5) << last_edit;
  EXPECT_LT(slowest_edit, 4.0 * time_scale()) << "an edit queued behind a hung store";
}

// The SQLite file (and its write-ahead log) unlinked under a stream of edits; kept by a second
// link, as an operator's backup would be. Not one edit may be acknowledged after the unlink, and
// with the files put back every acknowledged edit is there after a restart.
TEST(HostileScenario, SqliteFileDeleted) {
  const std::string data = test::unique_temp_dir("hostile_sqlite_deleted") + "data/";
  std::filesystem::create_directories(data);
  const std::string db = data + "edits.db";
  std::vector<int64_t> acknowledged;
  std::atomic<int> acknowledged_after{0}, refused_after{0};
  {
    Scenario scenario("store_sqlite_deleted", {"--data", data, "--open-edits"});
    ASSERT_TRUE(scenario.server().serving()) << scenario.server().log();
    auto stub = stub_of(scenario.server());
    // The unlink waits for a dozen acknowledged edits, not for a fixed time: a loaded machine
    // under a sanitizer acknowledged four in two seconds.
    std::atomic<size_t> acknowledged_before{0};
    const auto attack_time = std::chrono::milliseconds(static_cast<int>(5000 * time_scale()));
    scenario.attack(attack_time, [&](const std::stop_token& stop) {
      std::atomic<bool> deleted{false};
      std::jthread remover([&](const std::stop_token&) {
        const auto give_up = Clock::now() + attack_time * 7 / 10;
        while (acknowledged_before < 12 && Clock::now() < give_up && !stop.stop_requested()) {
          std::this_thread::sleep_for(10ms);
        }
        for (const std::string& f : {db, db + "-wal"}) {
          link(f.c_str(), (f + ".kept").c_str());
          unlink(f.c_str());
        }
        deleted = true;
      });
      for (int64_t x = 0; !stop.stop_requested(); ++x) {
        const bool after = deleted;
        const grpc::Status status = edit(*stub, add_one(x, 7, 1));
        if (status.ok() && !after) {
          acknowledged.push_back(x);
          acknowledged_before = acknowledged.size();
        }
        if (after) (status.ok() ? acknowledged_after : refused_after) += 1;
      }
    });
    scenario.expect_within_bounds();
    EXPECT_GE(count_lines(scenario.server().log(), "deleted or replaced"), 1u) << scenario.server().log();
  }
  EXPECT_EQ(acknowledged_after, 0);
  EXPECT_GT(refused_after, 0);
  ASSERT_GT(acknowledged.size(), 10u);
  for (const std::string& f : {db, db + "-wal"}) std::rename((f + ".kept").c_str(), f.c_str());
  ServerProcess restarted("store_sqlite_restored", {"--data", data});
  ASSERT_TRUE(restarted.serving()) << restarted.log();
  auto stub = stub_of(restarted);
  size_t present = 0;
  for (int64_t x : acknowledged) {
    v1::Chunk chunk;
    present += get_chunk(*stub, x, 7, {}, &chunk).ok() && chunk.edit_version() == 1;
  }
  EXPECT_EQ(present, acknowledged.size());
}

// A call the server's shutdown ended (refused connection, or cancelled on the way out).
bool stopping(const grpc::Status& status) {
  return status.error_code() == grpc::StatusCode::UNAVAILABLE || status.error_code() == grpc::StatusCode::CANCELLED;
}

// Request ids are bytes: "nul\0a" and "nul\0b" are two requests, each applied once; an id
// reused with other contents is refused and applies nothing. Beside the harness's probes.
void request_ids(const std::string& name, const std::vector<std::string>& store_args) {
  Scenario scenario(name, store_args);
  ASSERT_TRUE(scenario.server().serving()) << scenario.server().log();
  auto stub = stub_of(scenario.server());
  std::atomic<int> wrong{0}, rounds{0};
  std::string first_wrong;
  scenario.attack(3s, [&](const std::stop_token& stop) {
    for (int k = 0; !stop.stop_requested() && k < 200; ++k) {
      const std::string id = std::string("nul\0", 4) + std::to_string(k);
      v1::EditResponse a, b, again;
      const grpc::Status first = edit(*stub, add_one(k, 9, 1, id + "a"), &a);
      const grpc::Status second = edit(*stub, add_one(k, 9, 2, id + "b"), &b);
      const grpc::Status retried = edit(*stub, add_one(k, 9, 1, id + "a"), &again);
      const grpc::Status reused = edit(*stub, add_one(k, 9, 3, id + "a"));
      v1::Chunk chunk;
      const grpc::Status read = get_chunk(*stub, k, 9, {}, &chunk);
      // The harness's SIGTERM comes while the attack runs: a round it cuts short (the server
      // gone or going) says nothing about request ids, and ends the attack.
      if (std::ranges::any_of(std::array{first, second, retried, reused, read}, stopping)) break;
      const bool ok = first.ok() && second.ok() && retried.ok() && again.SerializeAsString() == a.SerializeAsString() &&
                      a.SerializeAsString() != b.SerializeAsString();
      const bool applied_twice = read.ok() && chunk.edit_version() == 2;
      if (!ok || reused.error_code() != grpc::StatusCode::ALREADY_EXISTS || !applied_twice) {
        if (wrong++ == 0) first_wrong = "round " + std::to_string(k) + ": " + reused.error_message();
      }
      ++rounds;
    }
  });
  scenario.expect_within_bounds();
  EXPECT_EQ(wrong, 0) << first_wrong;
  EXPECT_GT(rounds, 5);
}

TEST(HostileScenario, RequestIdsSqlite) {
  request_ids("store_request_ids_sqlite", {"--data", test::unique_temp_dir("hostile_ids") + "data", "--open-edits"});
}

TEST(HostileScenario, RequestIdsPostgres) {
  test::PostgresCluster pg("hostile_ids");
  ASSERT_TRUE(pg.started()) << pg.failure();
  request_ids("store_request_ids_postgres", {"--store", pg.uri(), "--open-edits"});
}

}  // namespace
}  // namespace chunkforge::hostile
