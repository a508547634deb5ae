// Backups taken while a server serves (docs/deploy.md, "Edits: back up and restore"): the real
// `chunkforge edits backup` on a SQLite store, quiet and under a writer that keeps committing
// edits, and PostgreSQL's pg_dump and pg_restore on a cluster the test starts; a fresh server on
// the restored store, whose every edited chunk is compared byte for byte with what the source
// server served at the version the backup holds.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>
#include <tuple>

#include "chunkforge/encode.h"
#include "edit_server_fixture.h"
#include "support/server_process.h"

namespace chunkforge::server {
namespace {

using ChunkAt = std::tuple<int64_t, int64_t, uint64_t>;  // x, z, edit version

class EditBackupTest : public EditServerTest {
 protected:
  std::string served(int64_t x, int64_t z, uint64_t* version = nullptr) {
    grpc::ClientContext context;
    v1::GetChunkRequest request;
    request.mutable_coord()->set_x(x);
    request.mutable_coord()->set_z(z);
    v1::Chunk chunk;
    EXPECT_TRUE(stub_->GetChunk(&context, request, &chunk).ok());
    if (version != nullptr) *version = chunk.edit_version();
    return canonical_bytes(chunk);
  }
  // Adds an object to chunk (x, z): its new version, or 0 if refused.
  uint64_t add_object(int64_t x, int64_t z, float at) {
    v1::EditRequest request;
    v1::NewObject* added = op_at(request, x, z)->mutable_add_object();
    added->set_x(at);
    added->set_z(at);
    v1::EditResponse response;
    return edit(request, &response).ok() && response.versions_size() == 1 ? response.versions(0).version() : 0;
  }
  // A writer committing to chunks (0..3, 0) as fast as the server takes it, noting the bytes the
  // server served at each version it made.
  void start_writer() {
    writer_ = std::thread([this] {
      for (int k = 0; writing_; ++k) {
        const int64_t x = k % 4;
        const uint64_t version = add_object(x, 0, 0.5f + static_cast<float>(k % 60));
        if (version == 0) continue;
        uint64_t at = 0;
        std::string bytes = served(x, 0, &at);
        if (at == version) {  // this writer is the chunk's only one
          std::lock_guard lock(seen_mutex_);
          seen_[{x, 0, version}] = std::move(bytes);
        }
        ++commits_;
      }
    });
    while (commits_ < 5) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  void stop_writer() {
    writing_ = false;
    if (writer_.joinable()) writer_.join();
  }
  void TearDown() override {
    stop_writer();
    EditServerTest::TearDown();
  }
  // The writer's chunks, served now, are what the source served at the same versions.
  void expect_writer_chunks_as_served() {
    for (int64_t x = 0; x < 4; ++x) {
      uint64_t version = 0;
      const std::string bytes = served(x, 0, &version);
      const auto found = seen_.find({x, 0, version});
      ASSERT_NE(found, seen_.end()) << "chunk (" << x << ", 0) at version " << version;
      EXPECT_EQ(bytes, found->second) << "chunk (" << x << ", 0) at version " << version;
    }
  }
  // Edits 24 chunks (x in [-2, 3], z in [2, 5]: none of the writer's); the bytes served for each.
  std::map<std::pair<int64_t, int64_t>, std::string> edit_quietly() {
    std::map<std::pair<int64_t, int64_t>, std::string> out;
    for (int k = 0; k < 24; ++k) EXPECT_GT(add_object(k % 6 - 2, k / 6 + 2, 1.5f + static_cast<float>(k)), 0u);
    for (int k = 0; k < 24; ++k) out[{k % 6 - 2, k / 6 + 2}] = served(k % 6 - 2, k / 6 + 2);
    return out;
  }

  std::thread writer_;
  std::atomic<bool> writing_{true};
  std::atomic<int> commits_{0};
  std::mutex seen_mutex_;
  std::map<ChunkAt, std::string> seen_;  // (x, z, version) -> the bytes the source served

  test::CommandResult backup(const std::string& out, const std::string& extra = "") {
    return test::run_command(std::string(CHUNKFORGE_CLI) + " edits backup --store '" + location() + "' --out '" + out +
                             "'" + extra);
  }
};

// Every stored change of a SQLite file: seq, chunk, version and blob, in seq order.
std::vector<std::tuple<int64_t, int64_t, int64_t, int64_t, std::string>> rows(const std::string& path) {
  std::vector<std::tuple<int64_t, int64_t, int64_t, int64_t, std::string>> out;
  sqlite3* db = nullptr;
  sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(db, "SELECT seq, cx, cz, version, change FROM changes ORDER BY seq", -1, &s, nullptr);
  while (sqlite3_step(s) == SQLITE_ROW) {
    const char* blob = static_cast<const char*>(sqlite3_column_blob(s, 4));
    out.emplace_back(sqlite3_column_int64(s, 0), sqlite3_column_int64(s, 1), sqlite3_column_int64(s, 2),
                     sqlite3_column_int64(s, 3), std::string(blob, blob + sqlite3_column_bytes(s, 4)));
  }
  sqlite3_finalize(s);
  sqlite3_close(db);
  return out;
}

std::string integrity(const std::string& path) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &s, nullptr);
  std::string answer = sqlite3_step(s) == SQLITE_ROW ? reinterpret_cast<const char*>(sqlite3_column_text(s, 0)) : "";
  sqlite3_finalize(s);
  sqlite3_close(db);
  return answer;
}

TEST_P(EditBackupTest, ABackupTakenWhileServingServesTheSameChunksAfterARestore) {
  const std::map<std::pair<int64_t, int64_t>, std::string> before = edit_quietly();
  const std::string copy = dir_ + "backup.db";
  const test::CommandResult taken = backup(copy);  // the server serves on
  ASSERT_EQ(taken.exit_code, 0) << taken.output;
  EXPECT_NE(taken.output.find("pages"), std::string::npos) << taken.output;
  EXPECT_EQ(integrity(copy), "ok");
  // An existing output is refused and left as it is; --force replaces it.
  const auto size = std::filesystem::file_size(copy);
  std::filesystem::resize_file(copy, size - 1);
  const test::CommandResult again = backup(copy);
  EXPECT_EQ(again.exit_code, 2) << again.output;
  EXPECT_NE(again.output.find("exists (--force replaces it)"), std::string::npos) << again.output;
  EXPECT_EQ(std::filesystem::file_size(copy), size - 1);
  const test::CommandResult forced = backup(copy, " --force");
  ASSERT_EQ(forced.exit_code, 0) << forced.output;
  EXPECT_EQ(std::filesystem::file_size(copy), size);

  stop();
  restored_ = "sqlite:" + copy;
  start();
  for (const auto& [chunk, bytes] : before) {
    EXPECT_EQ(served(chunk.first, chunk.second), bytes) << chunk.first << ", " << chunk.second;
  }
}

// A store of a few thousand pages, so that the copy takes many steps, while a writer commits to
// four chunks as fast as the server takes it. The copy must be one snapshot of the store: its rows
// are exactly the source's up to its newest seq; and a server on it serves each chunk exactly as
// the source server did at the version the copy holds.
TEST_P(EditBackupTest, ABackupUnderConcurrentWritesIsOneSnapshotOfTheStore) {
  stop();
  {
    const std::unique_ptr<EditStore> store = open_store(location());
    v1::ChunkChange filler;  // far from the chunks the test reads
    for (int k = 0; k < 32; ++k) filler.add_edits()->set_remove_object(static_cast<uint64_t>(k) * 7919);
    store->write([&](EditStore::Transaction& tx) {
      for (int64_t k = 0; k < 40000; ++k) tx.append({100000 + k, 100000}, 1, filler.SerializeAsString());
    });
  }
  start();
  start_writer();
  const std::string copy = dir_ + "busy.db";
  const test::CommandResult taken = backup(copy);
  const int during = commits_;
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  stop_writer();
  ASSERT_EQ(taken.exit_code, 0) << taken.output;
  EXPECT_GT(commits_, during) << "the writer went on after the backup";
  EXPECT_EQ(integrity(copy), "ok");

  const auto copied = rows(copy);
  const auto source = rows(location().substr(7));
  ASSERT_FALSE(copied.empty());
  ASSERT_GT(source.size(), copied.size()) << taken.output;
  // The source's rows up to the copy's newest seq, and no others: one snapshot.
  const int64_t newest = std::get<0>(copied.back());
  std::vector<std::tuple<int64_t, int64_t, int64_t, int64_t, std::string>> expected;
  for (const auto& row : source) {
    if (std::get<0>(row) <= newest) expected.push_back(row);
  }
  EXPECT_TRUE(copied == expected) << copied.size() << " rows copied, " << expected.size() << " expected";

  stop();
  restored_ = "sqlite:" + copy;
  start();
  expect_writer_chunks_as_served();
  std::cerr << taken.output;  // the copy's size, time and restarts, for the record
}

TEST_P(EditBackupTest, APostgresStoreIsSentToItsOwnTools) {
  const test::CommandResult refused = test::run_command(std::string(CHUNKFORGE_CLI) +
                                                        " edits backup --store postgres://chunkforge@127.0.0.1:1/x "
                                                        "--out " +
                                                        dir_ + "pg.db");
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("pg_dump"), std::string::npos) << refused.output;
  EXPECT_FALSE(std::filesystem::exists(dir_ + "pg.db"));
}

// PostgreSQL's own tools (docs/deploy.md): pg_dump -Fc of the cluster's database while a server
// serves from it and a writer commits, pg_restore into a fresh database, a server on that.
using PgDumpTest = EditBackupTest;

TEST_P(PgDumpTest, APgDumpTakenWhileServingRestoresToTheSameChunks) {
  const std::map<std::pair<int64_t, int64_t>, std::string> before = edit_quietly();
  start_writer();
  const std::string dump = dir_ + "edits.dump", bin = postgres_->bin();
  const test::CommandResult dumped = test::run_command(bin + "/pg_dump -Fc -f " + dump + " '" + postgres_->uri() + "'");
  const int during = commits_;
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  stop_writer();
  ASSERT_EQ(dumped.exit_code, 0) << dumped.output;
  EXPECT_GT(commits_, during) << "the writer went on after the dump";

  const std::string fresh = postgres_->create_database("restored");
  ASSERT_FALSE(fresh.empty());
  const test::CommandResult restored = test::run_command(bin + "/pg_restore --no-owner -d '" + fresh + "' " + dump);
  ASSERT_EQ(restored.exit_code, 0) << restored.output;
  stop();
  restored_ = fresh;
  start();
  for (const auto& [chunk, bytes] : before) {
    EXPECT_EQ(served(chunk.first, chunk.second), bytes) << chunk.first << ", " << chunk.second;
  }
  expect_writer_chunks_as_served();
}

INSTANTIATE_TEST_SUITE_P(Postgres, PgDumpTest, testing::Values("postgres"),
                         [](const testing::TestParamInfo<std::string>& store) { return store.param; });

INSTANTIATE_TEST_SUITE_P(Sqlite, EditBackupTest, testing::Values("sqlite"),
                         [](const testing::TestParamInfo<std::string>& store) { return store.param; });

}  // namespace
}  // namespace chunkforge::server
