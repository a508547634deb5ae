// Clients that make the server write its log (docs/server.md, "Log lines a client can cause"):
// thousands of short sessions declaring local generation with a 120 KB fingerprint (newlines and
// a forged log line in it) or a 25,000-entry generator-version list, each refused, and
// GetChunkEdits with the same declarations, against the server binary. Each refusal used to log
// the client's input whole, and every session's start and end a line: 8,415 such sessions grew
// the log by 1.11 GB in 15 s. Besides the harness's bounds: the log grew by at most 1 MB a minute
// pro rata, nothing the client sent started a line of its own, the refusals the clients got are
// short, GetChunkEdits got FAILED_PRECONDITION as documented (not RESOURCE_EXHAUSTED from a status
// message past the client's metadata limit), and /metrics counted the lines left out.
#include <filesystem>
#include <map>
#include <regex>

#include "harness.h"

namespace chunkforge::hostile {
namespace {

// What a refusal a client gets may hold: the reason, with at most 64 bytes of the client's
// input (a version list's 64 bytes and its count, or a fingerprint's 64 bytes escaped).
constexpr size_t kShortMessageBytes = 1024;

struct Declarations {
  v1::LocalGeneration long_fingerprint, long_versions;
};

Declarations hostile_declarations(ServerProcess& server) {
  auto stub = v1::WorldService::NewStub(server.channel());
  grpc::ClientContext context;
  v1::WorldInfo info;
  EXPECT_TRUE(stub->GetWorldInfo(&context, {}, &info).ok());
  Declarations d;
  d.long_fingerprint.add_generator_versions(info.generator_version());
  std::string fingerprint;
  while (fingerprint.size() < 120000)
    fingerprint += "\nforged [error] line from a client\n\x1b[31m" + info.fingerprint();
  d.long_fingerprint.set_fingerprint(fingerprint);
  for (uint32_t k = 0; k < 25000; ++k) d.long_versions.add_generator_versions(1000000 + k);  // never the world's
  d.long_versions.set_fingerprint(info.fingerprint());
  return d;
}

struct Seen {
  std::atomic<int> sessions{0}, refused{0}, long_reasons{0};
  std::mutex mutex;
  std::map<grpc::StatusCode, int> chunk_edits;  // GetChunkEdits' statuses
  size_t longest_status = 0;
  std::string metrics;  // the last /metrics page read during the attack
};

// Sessions one after another on one connection: each declares `local`, reads the server's
// answer, and leaves.
void short_sessions(ServerProcess& server, const v1::LocalGeneration& local, Seen& seen, std::stop_token stop) {
  auto stub = v1::WorldService::NewStub(server.channel());
  v1::SessionUpdate update;
  *update.mutable_local_generation() = local;
  while (!stop.stop_requested()) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + 5s);
    auto stream = stub->Session(&context);
    v1::SessionEvent event;
    if (stream->Write(update) && stream->Read(&event) && event.has_local_generation()) {
      ++seen.sessions;
      seen.refused += event.local_generation().accepted() ? 0 : 1;
      seen.long_reasons += event.local_generation().reason().size() > kShortMessageBytes ? 1 : 0;
    }
    context.TryCancel();
    stream->Finish();
  }
}

void chunk_edits(ServerProcess& server, const v1::LocalGeneration& local, Seen& seen, std::stop_token stop) {
  auto stub = v1::WorldService::NewStub(server.channel());
  v1::GetChunkEditsRequest request;
  *request.mutable_local_generation() = local;
  request.add_coords();
  while (!stop.stop_requested()) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + 5s);
    v1::ChunkEdits answer;
    const grpc::Status status = stub->GetChunkEdits(&context, request, &answer);
    std::lock_guard lock(seen.mutex);
    ++seen.chunk_edits[status.error_code()];
    if (status.error_code() == grpc::StatusCode::FAILED_PRECONDITION) {
      seen.longest_status = std::max(seen.longest_status, status.error_message().size());
    }
  }
}

void attack(ServerProcess& server, const Declarations& d, Seen& seen, std::stop_token stop) {
  std::vector<std::jthread> threads;
  for (const v1::LocalGeneration* local : {&d.long_fingerprint, &d.long_versions}) {
    threads.emplace_back([&, local] { short_sessions(server, *local, seen, stop); });
    threads.emplace_back([&, local] { chunk_edits(server, *local, seen, stop); });
  }
  while (!stop.stop_requested()) {
    std::this_thread::sleep_for(1s);
    std::string page;
    if (http_get(server.http_port(), "/metrics", 1000ms, "127.0.0.1", &page) != 200) continue;
    std::lock_guard lock(seen.mutex);
    seen.metrics = page;
  }
}

// The value of chunkforge_log_lines_suppressed_total{kind="KIND"} on `page`, or -1.
double suppressed(const std::string& page, const std::string& kind) {
  const std::string name = "chunkforge_log_lines_suppressed_total{kind=\"" + kind + "\"} ";
  const size_t at = page.find(name);
  return at == std::string::npos ? -1 : std::stod(page.substr(at + name.size()));
}

TEST(HostileScenario, LocalGenerationRefusalsFloodTheLog) {
  Scenario scenario("log_flood", {});
  ASSERT_TRUE(scenario.server().serving()) << scenario.server().log();
  const Declarations declarations = hostile_declarations(scenario.server());
  const std::string log_file = scenario.server().dir() + "server.log";
  const uintmax_t log_before = std::filesystem::file_size(log_file);
  const auto start = Clock::now();
  Seen seen;
  scenario.attack(8s, [&](std::stop_token stop) { attack(scenario.server(), declarations, seen, stop); });
  const double seconds = seconds_since(start);
  const uintmax_t log_after = std::filesystem::file_size(log_file);
  const double grown = static_cast<double>(log_after - log_before), bound = 1e6 * seconds / 60;
  scenario.expect_within_bounds();
  std::printf("hostile log_flood: %d sessions (%d refused), log +%.0f bytes in %.1f s (bound %.0f)\n",
              seen.sessions.load(), seen.refused.load(), grown, seconds, bound);
  EXPECT_GT(seen.sessions, 1000 / time_scale()) << "the attack opened too few sessions to measure";
  EXPECT_EQ(seen.refused, seen.sessions);
  EXPECT_LE(grown, bound) << "the log grew by more than 1 MB a minute";
  EXPECT_EQ(seen.long_reasons, 0) << "a refusal quoted the client's input at length";
  if (grown <= 16e6) {  // a log grown past that is not worth reading into memory
    const std::string log = scenario.server().log();
    EXPECT_FALSE(std::regex_search(log, std::regex("(^|\n)forged"))) << "a client's input started a log line";
  }
  std::lock_guard lock(seen.mutex);
  EXPECT_GT(seen.chunk_edits[grpc::StatusCode::FAILED_PRECONDITION], 0);
  EXPECT_EQ(seen.chunk_edits[grpc::StatusCode::RESOURCE_EXHAUSTED], 0);
  EXPECT_LE(seen.longest_status, kShortMessageBytes);
  for (const char* kind : {"session_started", "session_ended", "local_generation_refused", "call_failed"}) {
    EXPECT_GT(suppressed(seen.metrics, kind), 0) << kind << "\n" << seen.metrics;
  }
  if (grown > 16e6) std::filesystem::remove(log_file);  // do not leave a test's gigabyte behind
}

}  // namespace
}  // namespace chunkforge::hostile
