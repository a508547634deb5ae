// File: bindings/c/src/generator.cc
//
// The C ABI's local generator (chunkforge::client_local): pristine chunks made here, the
// bytes GetChunk serves for chunks nobody edited.
#include <chunkforge/client/local_generator.h>

#include "abi.h"
#include "chunkforge/v1/chunk.pb.h"

struct cf_generator {
  std::shared_ptr<chunkforge::client::BaseGenerator> generator;
  chunkforge::client::WorldInfo world;  // the catalogue a Chunk reads names from
};

using namespace chunkforge::capi;

extern "C" {

cf_status cf_generator_new(cf_client* client, cf_generator** out) {
  return guarded([&]() -> cf_status {
    if (out == nullptr) return null_argument("out");
    *out = nullptr;
    if (client == nullptr) return null_argument("client");
    cf::Result<cf::WorldInfo> world = client->client.world_info();
    if (!world) return fail(world.status());
    cf::Result<std::shared_ptr<cf::BaseGenerator>> generator = cf::make_local_generator(client->client);
    if (!generator) return fail(generator.status());
    *out = new cf_generator{std::move(*generator), std::move(*world)};
    return CF_OK;
  });
}

cf_status cf_generator_chunk(cf_generator* generator, int64_t x, int64_t z, const cf_chunk_options* options,
                             cf_chunk** out) {
  return guarded([&]() -> cf_status {
    if (out == nullptr) return null_argument("out");
    *out = nullptr;
    if (generator == nullptr) return null_argument("generator");
    cf::ChunkOptions read;
    if (const cf_status refused = read_chunk_options(options, "options", read); refused != CF_OK) return refused;
    std::shared_ptr<const chunkforge::v1::Chunk> made;
    try {
      made = generator->generator->generate({x, z}, read);
    } catch (const std::invalid_argument& e) {  // what the server refuses: a coordinate, a step
      return fail(CF_INVALID_ARGUMENT, std::string("INVALID_ARGUMENT: ") + e.what());
    }
    *out = new cf_chunk{std::make_shared<ChunkData>(cf::Chunk(std::move(made), generator->world))};
    return CF_OK;
  });
}

void cf_generator_free(cf_generator* generator) { delete generator; }

}  // extern "C"
