// Fuzz target sdk_chunk: the SDK's chunk view over bytes from the wire. The input is parsed as a
// chunkforge.v1.Chunk, as gRPC does for the SDK, made into a client::Chunk and read through
// every accessor a game uses: objects, structures, the terrain grid. A server, a proxy or a
// corrupted cache may hand the SDK any bytes; reading them must never crash.
#include <google/protobuf/stubs/logging.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "chunkforge/client/chunk.h"
#include "chunkforge/v1/chunk.pb.h"
#include "chunkforge/v1/info.pb.h"

namespace {

using chunkforge::client::WorldInfo;

// A small catalogue: inputs name ids inside and outside it.
WorldInfo catalogue() {
  chunkforge::v1::WorldInfo info;
  info.set_name("fuzz");
  info.set_chunk_size(64);
  for (const char* name : {"forest", "iron"}) {
    auto* e = info.add_resources();
    e->set_id(static_cast<uint32_t>(info.resources_size() - 1));
    e->set_name(name);
  }
  auto* s = info.add_structures();
  s->set_name("tower");
  return WorldInfo(std::move(info));
}

// Reads everything a game reads; the sum keeps the reads from being optimised away. Every term
// is converted to double first: the wire's 64-bit values may be anything, and their sum in
// integers could overflow in this harness, not in the SDK.
double walk(const chunkforge::client::Chunk& chunk) {
  const auto d = [](auto v) { return static_cast<double>(v); };
  double sum = d(chunk.coord().x) + d(chunk.coord().z) + d(chunk.chunk_size()) + d(chunk.generator_version()) +
               d(chunk.world_fingerprint().size()) + chunk.origin_x() + chunk.origin_z() + d(chunk.encoded_bytes());
  for (const chunkforge::client::Object& o : chunk.objects()) {
    sum += d(o.layer) + d(o.layer_name.size()) + o.x + o.z + d(o.y) + d(o.yaw) + d(o.variant) + d(o.id);
  }
  for (const chunkforge::client::Structure& s : chunk.structures()) {
    sum += d(s.id) + d(s.type) + d(s.type_name.size()) + d(s.x) + d(s.z) + s.y + d(s.yaw_degrees) + d(s.tilted) +
           s.size_x + s.size_y + s.size_z;
  }
  if (const auto terrain = chunk.terrain()) {
    sum += d(terrain->step());
    for (uint32_t j = 0; j < terrain->size(); ++j) {
      for (uint32_t i = 0; i < terrain->size(); ++i) {
        sum += d(terrain->elevation(i, j)) + d(terrain->biome(i, j)) + d(terrain->material(i, j));
      }
    }
  }
  return sum;
}

// protobuf logs each string field that is not UTF-8 as it rejects the message; at thousands of
// inputs a second that is only noise (ParseFromArray's result is what counts).
void ignore_log(google::protobuf::LogLevel, const char*, int, const std::string&) {}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  google::protobuf::SetLogHandler(ignore_log);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const WorldInfo world = catalogue();
  auto message = std::make_shared<chunkforge::v1::Chunk>();
  if (!message->ParseFromArray(data, static_cast<int>(size))) return 0;
  const chunkforge::client::Chunk chunk(std::move(message), world);
  volatile double sink = walk(chunk);
  (void)sink;
  return 0;
}
