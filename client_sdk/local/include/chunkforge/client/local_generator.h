// File: chunkforge/client/local_generator.h
//
// The SDK's local generator (CMake target chunkforge::client_local, which links the generation
// library chunkforge::gen; the plain chunkforge::client does not): a BaseGenerator that makes
// every pristine chunk on the client, byte for byte what the server's GetChunk answers for a
// chunk nobody edited (docs/client-generation.md, "The SDK's local generator").
//
//   auto client = chunkforge::client::Client::connect("world.example.com:50051");
//   auto generator = chunkforge::client::make_local_generator(*client);
//   if (!generator) return use_the_server(generator.status());  // e.g. --client-generation off
//   std::shared_ptr<const chunkforge::v1::Chunk> chunk = (*generator)->generate({3, -2}, {});
//
// Thread safety: generate() may be called from any number of threads at once. It reuses
// ChunkStreams (and so their memos of the scatter cells neighbouring chunks share) across calls:
// at most LocalGeneratorOptions::max_streams of them, a caller waiting while all are busy.
// Memory: at most max_streams x memo_cells scatter cells (docs/client-generation.md has the
// figures), besides the chunks the caller keeps.
//
// A world that changed after launch (WorldInfo.older_epochs; docs/client-generation.md, "Worlds
// that changed") gets a generator of every epoch: it keeps the older land the server sends
// (add_older_land, 52 bytes a region and epoch) and makes each chunk as the server's epochs do.
// Its streams are the library's EpochStreams with their own memo bounds (memo_cells does not
// apply): one per generation running at once, at most max_streams kept idle between calls.
//
// A request the server would refuse with INVALID_ARGUMENT (a coordinate beyond the supported
// world, a terrain step that does not divide the chunk size, a layer id the catalogue lacks)
// makes generate() throw std::invalid_argument with the server's message: there is no such chunk.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "chunkforge/client/base_generator.h"
#include "chunkforge/client/client.h"
#include "chunkforge/client/status.h"

namespace chunkforge::v1 {
class WorldInfo;
}

namespace chunkforge::client {

struct LocalGeneratorOptions {
  // ChunkStreams kept for reuse; also the number of generations that run at once (more callers
  // wait). In [1, 256].
  size_t max_streams = 4;
  // Scatter cells a stream's memo holds before it starts afresh, in [1024, 1048576]. Output never
  // depends on it; a memo too small for a view's halo only costs time.
  size_t memo_cells = 32768;
};

// A generator of the world `info` describes; `info` must carry its definition (what
// Client::world_info_with_definition returns). Refused, with a Status saying why:
//   FAILED_PRECONDITION  no definition (the server must answer include_definition); a generator
//                        version this library lacks, the newest epoch's or an older one's; a
//                        definition whose fingerprint or generator version differs from the
//                        info's (its chunks would differ)
//   INVALID_ARGUMENT     a definition that does not validate (an older epoch's too, or epochs
//                        that cannot follow each other), or options out of range
Result<std::shared_ptr<BaseGenerator>> make_local_generator(const v1::WorldInfo& info,
                                                            LocalGeneratorOptions options = {});

// The same for the world of `client`'s server, asking it for the definition. The server's
// FAILED_PRECONDITION (it keeps its definition: --client-generation off, or --publish-seed off)
// and any call failure come back as they are.
Result<std::shared_ptr<BaseGenerator>> make_local_generator(Client& client, LocalGeneratorOptions options = {});

}  // namespace chunkforge::client
