// Clients that misbehave, against an in-process WorldServer on a loopback port: a session or a
// region stream that is never read, more streams than the server allows, bytes that are not
// the request message, a player at the very edge of the world. Each test fails without the
// bound or the fix it names.
#include <google/protobuf/descriptor.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "chunkforge/v1/service.grpc.pb.h"
#include "rpc/byte_buffer.h"
#include "world_server.h"

namespace chunkforge::server {
namespace {

using namespace std::chrono_literals;

class HostileClientTest : public testing::Test {
 protected:
  // `stall`: how long an answer may wait for its client to read it (OutputLimits::stall).
  void start(Limits limits, std::chrono::milliseconds stall = 30s) {
    ServerOptions options;
    options.output.stall = stall;
    options.limits = limits;
    start_with(options);
  }
  void start_with(ServerOptions options, const World& world = default_world()) {
    options.listen = "127.0.0.1:0";
    options.http = "";
    options.threads = 2;
    options.cache_mb = 64;
    server_ = std::make_unique<WorldServer>(world, options);
    ASSERT_TRUE(server_->start());
    channel_ = grpc::CreateChannel("127.0.0.1:" + std::to_string(server_->port()), grpc::InsecureChannelCredentials());
    stub_ = v1::WorldService::NewStub(channel_);
  }
  void TearDown() override {
    if (server_) server_->shutdown(1s);
  }

  // The value of a /metrics line such as "chunkforge_refused_total".
  double metric(const std::string& name) const {
    const std::string page = server_->metrics_page(), key = "\n" + name + " ";
    const size_t at = page.find(key);
    return at == std::string::npos ? -1 : std::stod(page.substr(at + key.size()));
  }

  std::unique_ptr<WorldServer> server_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::WorldService::Stub> stub_;
};

// An update at (x, z) with radius r that claims to hold its whole view.
v1::SessionUpdate holding_update(int64_t cx, int64_t cz, uint32_t r, int64_t chunk_size) {
  v1::SessionUpdate update;
  update.set_x(static_cast<double>(cx * chunk_size));
  update.set_z(static_cast<double>(cz * chunk_size));
  update.set_view_radius(r);
  for (int64_t z = cz - r; z <= cz + r; ++z) {
    for (int64_t x = cx - r; x <= cx + r; ++x) {
      v1::ChunkCoord* held = update.add_held();
      held->set_x(x);
      held->set_z(z);
    }
  }
  return update;
}

// The finding: a client listing its whole view as held, alternating between two far views and
// never reading, made every move queue an unload per held chunk, without limit (RSS 17 MiB to
// 3 GiB in 30 s). Now the server stops reading it, and ends it once its writes stall.
TEST_F(HostileClientTest, ASessionThatNeverReadsIsThrottledThenEnded) {
  start(Limits{}, 300ms);
  const int64_t size = default_world().chunk_size();
  // A client that reads nothing still buffers what its flow-control window admits; keep that
  // window at 64 KiB (no BDP growth) so that it fills within the test.
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_HTTP2_BDP_PROBE, 0);
  args.SetInt(GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES, 65536);
  auto stub = v1::WorldService::NewStub(grpc::CreateCustomChannel("127.0.0.1:" + std::to_string(server_->port()),
                                                                  grpc::InsecureChannelCredentials(), args));
  // The server, not this deadline, must end the stream: the status below tells them apart. The
  // deadline is generous because under ASan on a loaded 2-core machine the server took 12 s to
  // read its way to the throttle (0.9 s in a normal build); a wall-clock bound failed there.
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + 120s);
  auto stream = stub->Session(&context);
  int written = 0;
  for (; written < 100000; ++written) {
    const int64_t far = (written % 2) * 100000;
    if (!stream->Write(holding_update(far, 0, 16, size))) break;
  }
  v1::SessionEvent event;  // Finish needs the reads done: take what the transport buffered
  while (stream->Read(&event)) {
  }
  const grpc::Status status = stream->Finish();
  EXPECT_TRUE(status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED ||
              status.error_code() == grpc::StatusCode::CANCELLED)
      << status.error_code() << ": " << status.error_message();
  EXPECT_LT(written, 100000) << "the server kept reading a client that reads nothing";
  EXPECT_GE(metric("chunkforge_refused_total"), 1);
  // Its slot is free again.
  for (int k = 0; k < 100 && metric("chunkforge_active_sessions") != 0; ++k) std::this_thread::sleep_for(20ms);
  EXPECT_EQ(metric("chunkforge_active_sessions"), 0);
}

// A reader that stops: the stall ends the stream and frees its slot for the next client.
TEST_F(HostileClientTest, RegionStreamsAreCappedAndAStalledOneIsEnded) {
  Limits limits;
  limits.max_streams = 1;
  start(limits, 300ms);
  v1::StreamRegionRequest request;
  request.set_radius(16);
  request.mutable_options()->set_include_terrain(true);  // ~25 KB chunks: flow control fills
  request.mutable_options()->set_terrain_step(1);
  grpc::ClientContext stalled_context;
  auto stalled = stub_->StreamRegion(&stalled_context, request);
  v1::Chunk first;
  ASSERT_TRUE(stalled->Read(&first));  // it runs; then this client reads no more

  grpc::ClientContext second_context;
  auto second = stub_->StreamRegion(&second_context, request);
  v1::Chunk chunk;
  EXPECT_FALSE(second->Read(&chunk));
  const grpc::Status refused = second->Finish();
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(refused.error_message().find("at most 1"), std::string::npos) << refused.error_message();

  // The stall shows once the client's window is full of written chunks: a few generations of
  // ~25 KB chunks, seconds under a sanitizer. Polled, so a normal run takes well under 1 s.
  for (int k = 0; k < 1000 && metric("chunkforge_active_streams") != 0; ++k) std::this_thread::sleep_for(20ms);
  EXPECT_EQ(metric("chunkforge_active_streams"), 0) << "a stream nobody reads still holds its slot";
  grpc::ClientContext third_context;
  v1::StreamRegionRequest small;
  small.set_radius(1);
  auto third = stub_->StreamRegion(&third_context, small);
  int chunks = 0;
  while (third->Read(&chunk)) ++chunks;
  EXPECT_TRUE(third->Finish().ok());
  EXPECT_EQ(chunks, 9);
  stalled_context.TryCancel();
}

// Bytes that are not the request get INVALID_ARGUMENT naming the message, on every RPC (the
// typed methods used to answer with a bare status and no message). The RPCs are those of the
// service's descriptor, so that a new one is checked without anyone listing it; a streaming
// RPC gets the bytes as its first message. Each error is counted on /metrics under the RPC's
// name, so the server's own list of names (Metrics::kMethodNames) follows the service too.
TEST_F(HostileClientTest, BytesThatAreNotTheRequestGetInvalidArgumentOnEveryRpc) {
  start({});
  grpc::GenericStub generic(channel_);
  const std::string garbage = "\xff\xff\xff\xff\x0f not protobuf";
  const google::protobuf::ServiceDescriptor* service =
      google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(v1::WorldService::service_full_name());
  ASSERT_NE(service, nullptr);
  ASSERT_GE(service->method_count(), 6);  // GetWorldInfo, GetChunk, StreamRegion, Session, Locate, Edit
  for (int i = 0; i < service->method_count(); ++i) {
    const std::string method = service->method(i)->name();
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + 5s);
    std::mutex mutex;
    std::condition_variable done;
    bool finished = false;
    grpc::Status status;
    grpc::ByteBuffer response;
    const grpc::ByteBuffer request = buffer_of(std::make_shared<const std::string>(garbage));
    generic.UnaryCall(&context, "/" + service->full_name() + "/" + method, grpc::StubOptions(), &request, &response,
                      [&](grpc::Status s) {
                        std::lock_guard lock(mutex);
                        status = std::move(s);
                        finished = true;
                        done.notify_one();
                      });
    std::unique_lock lock(mutex);
    done.wait(lock, [&] { return finished; });
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << method << ": " << status.error_message();
    // Session names its update ("update: not a SessionUpdate"), the others their request.
    EXPECT_NE(status.error_message().find(": not a "), std::string::npos) << method << ": " << status.error_message();
    EXPECT_NE(status.error_message().find(service->method(i)->input_type()->name()), std::string::npos)
        << method << ": " << status.error_message();
    EXPECT_EQ(metric("chunkforge_request_errors_total{method=\"" + method + "\"}"), 1) << method;
  }
}

// A player exactly at +2^40 sees the part of its view that exists; the view used to reach past
// the edge and end the session.
TEST_F(HostileClientTest, APlayerAtTheEdgeOfTheWorldGetsTheClippedView) {
  start({});
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + 20s);
  auto stream = stub_->Session(&context);
  v1::SessionUpdate update;
  update.set_x(1099511627776.0);
  update.set_z(-1099511627776.0);
  update.set_view_radius(2);
  ASSERT_TRUE(stream->Write(update));
  stream->WritesDone();
  const int64_t limit = (int64_t{1} << 40) / default_world().chunk_size();
  int loads = 0;
  v1::SessionEvent event;
  while (stream->Read(&event)) {
    ASSERT_TRUE(event.has_load());
    EXPECT_LE(event.load().coord().x(), limit);
    EXPECT_GE(event.load().coord().z(), -limit);
    ++loads;
  }
  const grpc::Status status = stream->Finish();
  EXPECT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(loads, 3 * 3);  // x in [limit - 2, limit], z in [-limit, -limit + 2]
}

// A terrain grid has a bound of its own: step 1 on a large chunk would make a message past
// clients' 4 MB and cost seconds to build.
TEST_F(HostileClientTest, TerrainGridsAreCappedInSamples) {
  Limits limits;
  limits.max_terrain_samples = 1024;  // the default world's 64-unit chunks: step 2 at the finest
  start(limits);
  for (const auto& [step, ok] : {std::pair{1u, false}, std::pair{2u, true}}) {
    grpc::ClientContext context;
    v1::GetChunkRequest request;
    request.mutable_options()->set_include_terrain(true);
    request.mutable_options()->set_terrain_step(step);
    v1::Chunk chunk;
    const grpc::Status status = stub_->GetChunk(&context, request, &chunk);
    EXPECT_EQ(status.ok(), ok) << step << ": " << status.error_message();
    if (!ok) {
      EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
      EXPECT_NE(status.error_message().find("options.terrain_step: at most 1024 terrain samples"), std::string::npos)
          << status.error_message();
    }
  }
}

}  // namespace
}  // namespace chunkforge::server
