// The store's seq never goes back (docs/edits.md, "Storage and durability"): two
// chunkforge-server processes on one store (a SQLite file; a throwaway PostgreSQL cluster), and
// the real `chunkforge edits reset` and `chunkforge edits import` deleting the chunk that holds
// the store's newest change. Each server's tail reads "changes after the last seq I saw": a
// change stored under a seq it already passed would never reach it. Both servers must serve the
// chunk at the store's version within 1 s, and later edits through one must reach the other.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <array>
#include <chrono>
#include <fstream>
#include <memory>
#include <string>

#include "chunkforge/v1/service.grpc.pb.h"
#include "chunkforge/world.h"
#include "edit_store.h"
#include "support/eventually.h"
#include "support/postgres_cluster.h"
#include "support/server_process.h"
#include "support/temp_dir.h"

namespace chunkforge::server {
namespace {

using namespace std::chrono_literals;

constexpr auto kPropagation = 1s;  // the bound the test holds each change to

class EditSeqTest : public testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    dir_ = test::unique_temp_dir("edit_seq");
    location_ = "sqlite:" + dir_ + "edits.db";
    if (GetParam() == "postgres") {
      postgres_ = std::make_unique<test::PostgresCluster>("edit_seq");
      ASSERT_TRUE(postgres_->started()) << postgres_->failure();
      location_ = postgres_->patient_uri();
    }
    // One after the other: the first creates the schema and binds the store to the world.
    for (size_t k = 0; k < servers_.size(); ++k) {
      servers_[k] =
          test::spawn(CHUNKFORGE_SERVER,
                      {"--listen", "127.0.0.1:0", "--http", "", "--threads", "1", "--store", location_, "--open-edits"},
                      dir_ + "server" + std::to_string(k) + ".log");
      const int port = test::wait_until_serving(servers_[k]);
      ASSERT_GT(port, 0) << test::read_text(servers_[k].log);
      stubs_[k] = v1::WorldService::NewStub(
          grpc::CreateChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials()));
    }
  }
  void TearDown() override {
    for (const test::Process& p : servers_) {
      if (p.pid > 0) kill(p.pid, SIGTERM);
    }
    for (const test::Process& p : servers_) {
      if (p.pid > 0) {
        EXPECT_EQ(test::wait_for(p, 10s), 0) << test::read_text(p.log);
      }
    }
  }

  // The edit_version server k serves the chunk at; ~0 if the call failed.
  uint64_t served(size_t k, ChunkCoord c) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + 5s);
    v1::GetChunkRequest request;
    request.mutable_coord()->set_x(c.x);
    request.mutable_coord()->set_z(c.z);
    v1::Chunk chunk;
    return stub(k)->GetChunk(&context, request, &chunk).ok() ? chunk.edit_version() : ~uint64_t{0};
  }

  // Whether both servers serve the chunk at `version` within kPropagation; says what each
  // served if not.
  testing::AssertionResult both_serve(ChunkCoord c, uint64_t version) {
    if (test::eventually([&] { return served(0, c) == version && served(1, c) == version; }, kPropagation)) {
      return testing::AssertionSuccess();
    }
    return testing::AssertionFailure() << "chunk (" << c.x << ", " << c.z << ") after " << kPropagation.count()
                                       << " s: server 0 serves version " << served(0, c) << ", server 1 version "
                                       << served(1, c) << "; the store's is " << version;
  }

  // Adds a tree to the chunk through server k; the chunk's new version (0 if refused).
  uint64_t add_tree(size_t k, ChunkCoord c) {
    v1::EditRequest request;
    v1::EditOp* op = request.add_ops();
    op->mutable_chunk()->set_x(c.x);
    op->mutable_chunk()->set_z(c.z);
    op->mutable_add_object()->set_x(10);
    op->mutable_add_object()->set_z(20);
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + 10s);
    v1::EditResponse response;
    const grpc::Status status = stub(k)->Edit(&context, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return status.ok() && response.versions_size() == 1 ? response.versions(0).version() : 0;
  }

  // `chunkforge edits WORDS --store LOCATION`; its output, after checking it exited 0.
  std::string edits_command(const std::string& words) {
    const test::CommandResult r =
        test::run_command(std::string(CHUNKFORGE_CLI) + " edits " + words + " --store '" + location_ + "'");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return r.output;
  }

  v1::WorldService::Stub* stub(size_t k) { return stubs_[k].get(); }

  std::string dir_, location_;
  std::unique_ptr<test::PostgresCluster> postgres_;
  std::array<test::Process, 2> servers_;
  std::array<std::unique_ptr<v1::WorldService::Stub>, 2> stubs_;
};

constexpr ChunkCoord kOlder{0, 0}, kNewest{9, 9};

TEST_P(EditSeqTest, AResetOfTheNewestChangeReachesBothServersAndLaterEditsToo) {
  ASSERT_EQ(add_tree(0, kOlder), 1u);
  ASSERT_EQ(add_tree(0, kNewest), 1u);  // the store's newest change
  ASSERT_TRUE(both_serve(kNewest, 1));

  EXPECT_NE(edits_command("reset 9 9 9 9").find("{\"chunks_reset\":1}"), std::string::npos);
  ASSERT_TRUE(both_serve(kNewest, 2));

  ASSERT_EQ(add_tree(1, kOlder), 2u);
  EXPECT_TRUE(both_serve(kOlder, 2));
  ASSERT_EQ(add_tree(0, kNewest), 3u);
  EXPECT_TRUE(both_serve(kNewest, 3));
}

// An import whose first line for a chunk is a reset marker (an export of a chunk reset
// elsewhere starts so) deletes that chunk's log: here the store's newest change.
TEST_P(EditSeqTest, AnImportOverTheNewestChangeReachesBothServersAndLaterEditsToo) {
  ASSERT_EQ(add_tree(0, kOlder), 1u);
  ASSERT_EQ(add_tree(1, kNewest), 1u);
  ASSERT_EQ(add_tree(1, kNewest), 2u);
  ASSERT_TRUE(both_serve(kNewest, 2));

  const std::string file = dir_ + "import.jsonl";
  std::ofstream(file) << "{\"chunkforge_edits\":1,\"world_fingerprint\":\"" << default_world().fingerprint()
                      << "\"}\n{\"chunk\":{\"x\":\"9\",\"z\":\"9\"},\"version\":\"3\",\"reset\":true}\n";
  EXPECT_NE(edits_command("import " + file).find("1 changes"), std::string::npos);
  ASSERT_TRUE(both_serve(kNewest, 3));

  ASSERT_EQ(add_tree(0, kNewest), 4u);
  EXPECT_TRUE(both_serve(kNewest, 4));
  ASSERT_EQ(add_tree(1, kOlder), 2u);
  EXPECT_TRUE(both_serve(kOlder, 2));
}

// The same at the store itself, across a reopen: every row deleted, the next change still gets
// a seq larger than any given before.
TEST_P(EditSeqTest, TheStoreNeverGivesASeqTwice) {
  int64_t largest = 0;
  const auto store_change = [&](EditStore& store, ChunkCoord c, bool erase_first) {
    store.write([&](EditStore::Transaction& tx) {
      const uint64_t version = tx.version(c);
      if (erase_first) tx.erase_log(c);
      tx.append(c, version + 1, "");
    });
    const std::vector<StoredChange> stored = store.changes_after(largest, 10);
    ASSERT_EQ(stored.size(), 1u) << "a change stored under a seq at or below " << largest;
    EXPECT_GT(stored[0].seq, largest);
    largest = stored[0].seq;
  };
  std::unique_ptr<EditStore> store = open_store(location_);
  largest = store->last_seq();
  store_change(*store, kOlder, false);
  store_change(*store, kNewest, false);
  store_change(*store, kNewest, true);
  store->write([&](EditStore::Transaction& tx) {
    tx.erase_log(kOlder);
    tx.erase_log(kNewest);
  });
  store.reset();
  store = open_store(location_);
  store_change(*store, kNewest, false);
}

INSTANTIATE_TEST_SUITE_P(Stores, EditSeqTest, testing::Values("sqlite", "postgres"),
                         [](const testing::TestParamInfo<std::string>& store) { return store.param; });

}  // namespace
}  // namespace chunkforge::server
