// `chunkforge edits rollback`, `edits log` and the export on a real SQLite store: a rollback over
// 1,000 chunks killed with SIGKILL after its first committed group finishes on a retry with the
// same request id, applies nothing twice (one rollback change per chunk) and leaves exactly the
// world without the griefer; the log and an export/import keep every change's author.
#include <gtest/gtest.h>

#include <csignal>
#include <fstream>
#include <thread>

#include "edits/rollback.h"
#include "moderation_fixture.h"
#include "support/server_process.h"

namespace chunkforge::server {
namespace {

constexpr int64_t kSide = 32;  // 1,024 chunks, most of them with an object: some 14 groups of 64

class ModerationCliTest : public ModerationTest {
 protected:
  // Mallory removes one generated object in every chunk of the square (64 chunks a request);
  // then bob adds an object in every eighth chunk, on both servers.
  void play() {
    Served& game = replicas_[0];
    v1::EditRequest grief;
    for (int64_t z = 0; z < kSide; ++z) {
      for (int64_t x = 0; x < kSide; ++x) {
        const v1::Chunk base = chunk(game, x, z);
        bases_[{x, z}] = base;
        if (base.objects().id_size() > 0) {
          op_on(grief, x, z)->set_remove_object(base.objects().id(0));
          ++griefed_;
        }
        if (grief.ops_size() == 64) {
          edit_for(game, "mallory", grief);
          grief.Clear();
        }
      }
    }
    if (grief.ops_size() > 0) edit_for(game, "mallory", grief);
    for (int64_t k = 0; k < kSide * kSide; k += 8) {
      v1::EditRequest bob;
      v1::NewObject* a = op_on(bob, k % kSide, k / kSide)->mutable_add_object();
      a->set_x(32);
      a->set_z(32);
      edit_for(game, "bob", bob);
      edit_for(reference_, "bob", bob);
    }
  }

  static std::string cli(const std::string& args) { return std::string(CHUNKFORGE_CLI) + " " + args; }

  std::map<std::pair<int64_t, int64_t>, v1::Chunk> bases_;
  size_t griefed_ = 0;  // chunks mallory changed (some chunks hold no object)
};

TEST_P(ModerationCliTest, ARollbackKilledMidwayFinishesOnRetryAndAppliesNothingTwice) {
  ASSERT_NO_FATAL_FAILURE(play());
  for (Served& r : replicas_) stop(r);  // the CLI works on the store itself

  const std::string store = "--store " + location();
  const std::string rollback = "edits rollback " + store + " --area 0 0 31 31 --player mallory --request-id once";
  const std::string log = dir_ + "rollback.log";
  std::vector<std::string> args{"edits", "rollback", "--store",  location(), "--area",       "0",   "0",
                                "31",    "31",       "--player", "mallory",  "--request-id", "once"};
  const test::Process first = test::spawn(CHUNKFORGE_CLI, args, log);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  ASSERT_GT(griefed_, 2 * kRollbackGroup);
  const std::string first_group = std::to_string(kRollbackGroup) + " of " + std::to_string(griefed_) + " chunks";
  while (test::read_text(log).find(first_group) == std::string::npos && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  kill(first.pid, SIGKILL);  // mid-way: after the first group's commit
  EXPECT_EQ(test::wait_for(first, std::chrono::seconds(10)), 128);

  std::unique_ptr<EditStore> opened = open_store(location());
  HistoryQuery mine;
  mine.author = opened->player_id("operator");
  mine.limit = 100000;
  const size_t done_first = mine.author ? opened->history(mine).size() : 0;
  EXPECT_GE(done_first, kRollbackGroup);
  EXPECT_LT(done_first, griefed_) << "the rollback ended before it was killed: nothing was tested mid-way";
  opened.reset();

  const test::CommandResult retry = test::run_command(cli(rollback));
  ASSERT_EQ(retry.exit_code, 0) << retry.output.substr(0, 2000);
  EXPECT_NE(retry.output.find("\"chunks\":\"" + std::to_string(griefed_) + "\""), std::string::npos)
      << retry.output.substr(0, 2000);

  opened = open_store(location());
  mine.author = opened->player_id("operator");
  ASSERT_TRUE(mine.author);
  std::map<std::pair<int64_t, int64_t>, int> rollbacks;  // each chunk's rollback changes
  for (const StoredChange& c : opened->history(mine)) ++rollbacks[{c.chunk.x, c.chunk.z}];
  EXPECT_EQ(rollbacks.size(), griefed_);
  for (const auto& [c, n] : rollbacks) EXPECT_EQ(n, 1) << c.first << ", " << c.second;
  opened.reset();

  start(replicas_[0], location());
  for (const auto& [c, base] : bases_) {
    ASSERT_EQ(content(chunk(replicas_[0], c.first, c.second), base),
              content(chunk(reference_, c.first, c.second), base))
        << "chunk (" << c.first << ", " << c.second << ")";
  }
}

TEST_P(ModerationCliTest, TheLogAndAnExportKeepEveryChangesAuthor) {
  const v1::Chunk base = chunk(replicas_[0], 2, 3);
  v1::EditRequest one;
  op_on(one, 2, 3)->set_remove_object(base.objects().id(0));
  edit_for(replicas_[0], "mallory", one);
  ASSERT_TRUE(edit(
                  replicas_[0],
                  [&] {
                    v1::EditRequest r;
                    op_on(r, 2, 3)->mutable_add_object()->set_x(5);
                    return r;
                  }(),
                  token("alice"))
                  .ok());
  {  // the game's server, through `chunkforge edit`, for carol
    std::ofstream(dir_ + "service.token") << kServiceToken << "\n";
    const test::CommandResult carol =
        test::run_command(cli("edit 2 3 add 0 10 10 --server 127.0.0.1:" + std::to_string(replicas_[0].server->port()) +
                              " --token-file " + dir_ + "service.token --author carol"));
    ASSERT_EQ(carol.exit_code, 0) << carol.output;
  }
  const std::string store = " --store " + location();
  const test::CommandResult log = test::run_command(cli("edits log" + store + " --chunk 2 3"));
  ASSERT_EQ(log.exit_code, 0) << log.output;
  const size_t alice = log.output.find("\"author\":\"alice\"");
  const size_t mallory = log.output.find("\"author\":\"mallory\"");
  ASSERT_NE(alice, std::string::npos) << log.output;
  ASSERT_NE(mallory, std::string::npos) << log.output;
  EXPECT_LT(alice, mallory) << "newest first";
  EXPECT_LT(log.output.find("\"author\":\"carol\""), alice) << log.output;
  EXPECT_NE(log.output.find("\"remove_object\":\"" + hex_id(base.objects().id(0)) + "\""), std::string::npos);
  const test::CommandResult object =
      test::run_command(cli("edits log" + store + " --chunk 2 3 --object " + hex_id(base.objects().id(0))));
  EXPECT_EQ(object.output.find("alice"), std::string::npos) << object.output;
  EXPECT_NE(object.output.find("mallory"), std::string::npos) << object.output;
  const test::CommandResult bad = test::run_command(cli("edits log" + store + " --since yesterday"));
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.output.find("--since"), std::string::npos) << bad.output;

  const std::string exported = dir_ + "export.jsonl";
  ASSERT_EQ(test::run_command(cli("edits export" + store + " --out " + exported)).exit_code, 0);
  const std::string copy = "sqlite:" + dir_ + "copy.db";
  const test::CommandResult imported = test::run_command(cli("edits import " + exported + " --store " + copy));
  ASSERT_EQ(imported.exit_code, 0) << imported.output;
  const test::CommandResult again = test::run_command(cli("edits log --store " + copy + " --chunk 2 3"));
  EXPECT_EQ(again.output, log.output);  // the same authors and times, in the same order
}

INSTANTIATE_TEST_SUITE_P(Stores, ModerationCliTest, testing::Values("sqlite", "postgres"),
                         [](const testing::TestParamInfo<std::string>& store) { return store.param; });

}  // namespace
}  // namespace chunkforge::server
