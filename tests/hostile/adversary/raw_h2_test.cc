// File: tests/hostile/adversary/raw_h2_test.cc
//
// The hand-written HTTP/2 client (hostile/raw_h2.h) against the server binary: a call answered
// as a real gRPC client is answered, a slow reader reads no faster than its rate, and a reader
// that never reads receives nothing while its calls are answered to nobody.
#include <gtest/gtest.h>

#include "hostile/harness.h"
#include "hostile/raw_h2.h"

namespace chunkforge::hostile {
namespace {

constexpr char kGetWorldInfo[] = "/chunkforge.v1.WorldService/GetWorldInfo";
constexpr char kStreamRegion[] = "/chunkforge.v1.WorldService/StreamRegion";

// Services the connection until `done` or `limit`.
template <typename Done>
void service_until(RawH2Connection& c, std::chrono::milliseconds limit, Done done) {
  const auto end = Clock::now() + limit;
  while (Clock::now() < end && c.alive() && !done()) c.service(5ms);
}

TEST(RawH2, ACallIsAnsweredAsARealClientIsAnswered) {
  ServerProcess server("raw_h2_answer", {});
  ASSERT_TRUE(server.serving()) << server.log();
  auto stub = v1::WorldService::NewStub(server.channel());
  grpc::ClientContext context;
  v1::WorldInfo info;
  ASSERT_TRUE(stub->GetWorldInfo(&context, {}, &info).ok());

  RawH2Connection c({.port = server.port()});
  ASSERT_TRUE(c.open());
  const uint32_t call = c.start_call(kGetWorldInfo, "", true);
  ASSERT_NE(call, 0u);
  service_until(c, 5s, [&] { return !c.call_open(call); });
  EXPECT_FALSE(c.call_open(call));
  EXPECT_EQ(c.totals().messages, 1);
  EXPECT_EQ(c.totals().bytes, static_cast<int64_t>(info.ByteSizeLong() + 5));
  EXPECT_EQ(c.totals().server_resets, 0);
}

v1::StreamRegionRequest region(int radius) {
  v1::StreamRegionRequest request;
  request.mutable_centre()->set_x(40);
  request.set_radius(radius);
  request.mutable_options()->set_include_terrain(true);
  return request;
}

TEST(RawH2, ASlowReaderReadsNoFasterThanItsRate) {
  ServerProcess server("raw_h2_slow", {});
  ASSERT_TRUE(server.serving()) << server.log();
  constexpr size_t kRate = 16 << 10;
  RawH2Connection c({.port = server.port(), .reading = Reading::slowly, .slow_bytes_per_second = kRate});
  ASSERT_TRUE(c.open());
  ASSERT_NE(c.start_call(kStreamRegion, region(4).SerializeAsString(), true), 0u);  // megabytes of terrain
  const auto start = Clock::now();
  service_until(c, 2s, [] { return false; });
  const double seconds = seconds_since(start);
  EXPECT_GT(c.totals().bytes, 0);
  // What it may read: its rate over the time, one second's burst, and the frames' headers.
  EXPECT_LE(static_cast<double>(c.totals().bytes), kRate * (seconds + 1.0) * 1.01);
  EXPECT_EQ(c.open_calls(), 1);
}

TEST(RawH2, AReaderThatNeverReadsReceivesNothing) {
  ServerProcess server("raw_h2_never", {});
  ASSERT_TRUE(server.serving()) << server.log();
  RawH2Connection c({.port = server.port(), .reading = Reading::never});
  ASSERT_TRUE(c.open());
  int started = 0;
  while (c.start_call(kStreamRegion, region(2).SerializeAsString(), true) != 0) ++started;
  EXPECT_EQ(started, RawH2Connection::kMaxCalls);
  service_until(c, 1s, [] { return false; });
  EXPECT_TRUE(c.alive());
  EXPECT_EQ(c.totals().bytes, 0);
  EXPECT_EQ(c.totals().calls_ended, 0);
}

}  // namespace
}  // namespace chunkforge::hostile
