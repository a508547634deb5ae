// The figures /metrics adds for watching the server (docs/deploy.md, "Watching: /metrics"),
// read off a real server's page after real calls, on each kind of edit store: commits,
// batches and operations committed, commit latency, refusals by reason, the store's health and
// the tail's lag (PostgreSQL stopped and started again), the generation queue's wait, and the
// HTTP side port's responses and map tiles through its real port.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "edit_server_fixture.h"
#include "support/eventually.h"
#include "support/http_get.h"

namespace chunkforge::server {
namespace {

// The value of the sample written exactly as `series` (name and labels), or -1 if absent.
double sample(const std::string& page, const std::string& series) {
  const std::string key = "\n" + series + " ";
  const size_t at = page.find(key);
  return at == std::string::npos ? -1 : std::strtod(page.c_str() + at + key.size(), nullptr);
}

class WatchMetricsTest : public EditServerTest {
 protected:
  void SetUp() override {
    EditServerTest::SetUp();
    if (HasFatalFailure()) return;
    stop();  // again with the side port and the map on, as deployed
    ServerOptions options;
    options.listen = "127.0.0.1:0";
    options.http = "127.0.0.1:0";
    options.threads = 2;
    options.cache_mb = 64;
    options.store = open_store(location());
    options.write_token = kWriteToken;
    server_ = std::make_unique<WorldServer>(default_world(), options);
    ASSERT_TRUE(server_->start());
    stub_ = v1::WorldService::NewStub(
        grpc::CreateChannel("127.0.0.1:" + std::to_string(server_->port()), grpc::InsecureChannelCredentials()));
  }
  double metric(const std::string& series) { return sample(server_->metrics_page(), series); }
  v1::Chunk chunk(int64_t x, int64_t z) {
    grpc::ClientContext context;
    v1::GetChunkRequest request;
    request.mutable_coord()->set_x(x);
    request.mutable_coord()->set_z(z);
    v1::Chunk out;
    EXPECT_TRUE(stub_->GetChunk(&context, request, &out).ok());
    return out;
  }
};

v1::EditRequest remove_objects(int64_t x, int64_t z, const v1::Chunk& c, int count) {
  v1::EditRequest request;
  for (int i = 0; i < count; ++i) op_at(request, x, z)->set_remove_object(c.objects().id(i));
  return request;
}

TEST_P(WatchMetricsTest, CommitsOpsLatencyAndRefusalsByReasonAreCounted) {
  const v1::Chunk c = chunk(0, 0);
  ASSERT_GE(c.objects().id_size(), 3);
  EXPECT_GT(metric("chunkforge_queue_wait_seconds_count"), 0) << "the chunk's generation waited in the queue";
  ASSERT_TRUE(edit(remove_objects(0, 0, c, 1)).ok());
  v1::EditRequest two;
  op_at(two, 0, 0)->set_remove_object(c.objects().id(1));
  op_at(two, 0, 0)->set_remove_object(c.objects().id(2));
  ASSERT_TRUE(edit(two).ok());

  v1::EditRequest stale = remove_objects(0, 0, c, 1);  // expects version 0 of a chunk at 2
  v1::ChunkVersion* expect = stale.add_expect();
  expect->mutable_chunk()->set_x(0);
  expect->mutable_chunk()->set_z(0);
  expect->set_version(0);
  EXPECT_EQ(edit(stale).error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(edit(remove_objects(0, 0, c, 1)).error_code(), grpc::StatusCode::NOT_FOUND);  // felled already
  EXPECT_EQ(edit(v1::EditRequest()).error_code(), grpc::StatusCode::INVALID_ARGUMENT);    // no operation
  EXPECT_EQ(edit(remove_objects(0, 0, c, 1), nullptr, "wrong").error_code(), grpc::StatusCode::PERMISSION_DENIED);

  EXPECT_EQ(metric("chunkforge_edit_batches_committed_total"), 2);
  EXPECT_EQ(metric("chunkforge_edit_ops_committed_total"), 3);
  const double commits = metric("chunkforge_edit_commits_total");
  EXPECT_EQ(commits, 3) << "the refused NOT_FOUND batch had a group of its own, committed empty";
  EXPECT_EQ(metric("chunkforge_edit_commit_seconds_count"), commits) << "every durable group commit timed";
  EXPECT_GT(metric("chunkforge_edit_commit_seconds_sum"), 0);
  EXPECT_EQ(metric("chunkforge_edit_refused_total{reason=\"conflict\"}"), 1);
  EXPECT_EQ(metric("chunkforge_edit_refused_total{reason=\"not_found\"}"), 1);
  EXPECT_EQ(metric("chunkforge_edit_refused_total{reason=\"invalid\"}"), 1);
  EXPECT_EQ(metric("chunkforge_edit_refused_total{reason=\"unauthorized\"}"), 1);
  EXPECT_EQ(metric("chunkforge_edit_refused_total{reason=\"unavailable\"}"), 0);
  // The tail read this server's 2 changes and caught up: nothing left, and it was caught up a
  // poll interval (0.25 s) ago at most, plus this machine's scheduling.
  ASSERT_TRUE(test::eventually([&] { return metric("chunkforge_edit_changes_seen_total") == 2; }));
  EXPECT_EQ(metric("chunkforge_edit_tail_lag_seqs"), 0);
  EXPECT_LT(metric("chunkforge_edit_tail_lag_seconds"), 2);
  EXPECT_EQ(metric("chunkforge_edit_store_up"), 1);
}

TEST_P(WatchMetricsTest, AStoreDownIsZeroUpAndItsTailFallsBehindUntilItAnswers) {
  if (!postgres_) GTEST_SKIP() << "an outage is a PostgreSQL cluster stopped; an SQLite file does not go away";
  postgres_->stop();
  ASSERT_TRUE(test::eventually([&] { return metric("chunkforge_edit_store_up") == 0; }));
  const v1::Chunk c = chunk(1, 1);
  ASSERT_GT(c.objects().id_size(), 0);
  EXPECT_EQ(edit(remove_objects(1, 1, c, 1)).error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(metric("chunkforge_edit_refused_total{reason=\"unavailable\"}"), 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  EXPECT_GT(metric("chunkforge_edit_tail_lag_seconds"), 1.0) << "the tail has not read the store since it went down";
  ASSERT_TRUE(postgres_->start());
  ASSERT_TRUE(test::eventually([&] { return metric("chunkforge_edit_store_up") == 1; }));
  ASSERT_TRUE(test::eventually([&] { return metric("chunkforge_edit_tail_lag_seconds") < 1.0; }));
}

TEST_P(WatchMetricsTest, SidePortResponsesAreCountedByRouteClassAndTilesByCacheHitOrRender) {
  const int port = server_->http_port();
  const auto get = [port](const std::string& target) { return test::http_get(port, target, std::chrono::seconds(10)); };
  ASSERT_EQ(get("/tiles/materials/0/0/0.png"), 200);
  ASSERT_EQ(get("/tiles/materials/0/0/0.png"), 200);
  ASSERT_EQ(get("/tiles/materials/99/0/0.png"), 400);
  ASSERT_EQ(get("/healthz"), 200);
  ASSERT_EQ(get("/no/such/page?x=1"), 404);
  ASSERT_EQ(get("/no/other/page"), 404);
  const std::string page = server_->metrics_page();
  EXPECT_EQ(sample(page, "chunkforge_map_tiles_rendered_total"), 1);
  EXPECT_EQ(sample(page, "chunkforge_map_tile_cache_hits_total"), 1);
  EXPECT_GT(sample(page, "chunkforge_map_tile_cache_bytes"), 0);
  EXPECT_EQ(sample(page, "chunkforge_http_responses_total{route=\"tiles\",code=\"200\"}"), 2);
  EXPECT_EQ(sample(page, "chunkforge_http_responses_total{route=\"tiles\",code=\"400\"}"), 1);
  EXPECT_EQ(sample(page, "chunkforge_http_responses_total{route=\"healthz\",code=\"200\"}"), 1);
  EXPECT_EQ(sample(page, "chunkforge_http_responses_total{route=\"other\",code=\"404\"}"), 2)
      << "one series, not a path each";
  EXPECT_GT(sample(page, "chunkforge_memory_limit_bytes"), 0);
  EXPECT_EQ(sample(page, "chunkforge_calls_finish_waiting"), 0);
  EXPECT_EQ(sample(page, "chunkforge_queue_max_jobs"), static_cast<double>(Limits{}.max_queued_jobs));
}

INSTANTIATE_TEST_SUITE_P(Stores, WatchMetricsTest, testing::Values("sqlite", "postgres"),
                         [](const testing::TestParamInfo<std::string>& p) { return p.param; });

}  // namespace
}  // namespace chunkforge::server
