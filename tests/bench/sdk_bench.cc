// What the SDK costs over the generated stub, side by side on one in-process server (loopback,
// warm cache): GetChunk through Client::chunk (world info cached, chunk key metadata, typed
// Chunk) against a bare stub call, and reading every object of a chunk through the typed view
// against the wire arrays.
#include <benchmark/benchmark.h>
#include <grpcpp/grpcpp.h>

#include <memory>

#include "chunkforge/client.h"
#include "chunkforge/v1/service.grpc.pb.h"
#include "in_process_server.h"

namespace chunkforge {
namespace {

std::string target() { return bench::in_process_server(1); }

void BM_GetChunkThroughSdk(benchmark::State& state) {
  client::Client c = *client::Client::connect(target());
  if (!c.chunk({1, 1})) state.SkipWithError("no chunk");
  for (auto _ : state) benchmark::DoNotOptimize(c.chunk({1, 1}));
}
BENCHMARK(BM_GetChunkThroughSdk)->UseRealTime();

void BM_GetChunkThroughStub(benchmark::State& state) {
  auto stub = v1::WorldService::NewStub(grpc::CreateChannel(target(), grpc::InsecureChannelCredentials()));
  v1::GetChunkRequest request;
  request.mutable_coord()->set_x(1);
  request.mutable_coord()->set_z(1);
  for (auto _ : state) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    v1::Chunk chunk;
    if (!stub->GetChunk(&context, request, &chunk).ok()) state.SkipWithError("GetChunk failed");
    benchmark::DoNotOptimize(chunk);
  }
}
BENCHMARK(BM_GetChunkThroughStub)->UseRealTime();

// A dense chunk (54 objects in the default world) read object by object.
client::Chunk dense_chunk() {
  client::Client c = *client::Client::connect(target());
  return *c.chunk({2, 2});
}

void BM_ReadObjectsTyped(benchmark::State& state) {
  const client::Chunk chunk = dense_chunk();
  for (auto _ : state) {
    double sum = 0;
    size_t names = 0;
    for (const client::Object& o : chunk.objects()) {
      sum += o.x + o.z + o.y;
      names += o.layer_name.size();
    }
    benchmark::DoNotOptimize(sum);
    benchmark::DoNotOptimize(names);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(chunk.objects().size()));
}
BENCHMARK(BM_ReadObjectsTyped);

void BM_ReadObjectsWire(benchmark::State& state) {
  const client::Chunk chunk = dense_chunk();
  const v1::Chunk& m = chunk.message();
  const double x0 = chunk.origin_x(), z0 = chunk.origin_z();
  for (auto _ : state) {
    double sum = 0;
    size_t names = 0;
    for (int k = 0; k < m.objects().layer_size(); ++k) {
      sum += x0 + m.objects().x(k) + z0 + m.objects().z(k) + m.objects().y(k);
      names += chunk.world().resources()[m.objects().layer(k)].name.size();
    }
    benchmark::DoNotOptimize(sum);
    benchmark::DoNotOptimize(names);
  }
  state.SetItemsProcessed(state.iterations() * m.objects().layer_size());
}
BENCHMARK(BM_ReadObjectsWire);

}  // namespace
}  // namespace chunkforge
