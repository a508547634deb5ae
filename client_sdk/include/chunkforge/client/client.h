// File: chunkforge/client/client.h
//
// A connection to a chunkforge world server: world info (with the world definition, for a
// client that generates), one chunk, a region streamed nearest first, structure search, health,
// and edits (edit.h). For a moving player use ViewSession (view_session.h) on top of a Client.
//
//   chunkforge::client::ConnectOptions options;
//   options.bearer_token = "s3cret";  // when the server runs with --auth-token-file
//   auto client = chunkforge::client::Client::connect("world.example.com:50051", options);
//   if (!client) return fail(client.status());
//   auto chunk = client->chunk({3, -2});
//   if (!chunk) return fail(chunk.status());  // e.g. "INVALID_ARGUMENT: coord.x: must be ..."
//   for (const auto& object : chunk->objects()) ...
//
// Every call has a deadline (ConnectOptions::deadline). Unary calls (world_info, chunk, health)
// retry UNAVAILABLE with exponential backoff up to ConnectOptions::max_attempts; a region
// stream retries only until its first chunk arrives; an edit retries with a request id, so that
// it applies once (Client::edit). Errors come back as a Status carrying the server's gRPC code
// and message.
//
// Thread safety: a Client may be used from many threads at once; calls are independent.
// Callbacks of stream_region run on the calling thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "chunkforge/client/chunk.h"
#include "chunkforge/client/edit.h"
#include "chunkforge/client/status.h"
#include "chunkforge/client/world_info.h"

namespace chunkforge::client {

struct ConnectOptions {
  // Deadline of each unary call, and of a whole region stream.
  std::chrono::milliseconds deadline{10'000};
  // Attempts of a call that fails with UNAVAILABLE (1: no retry), sleeping initial_backoff,
  // then twice that and so on up to max_backoff, each with +-20 % jitter.
  int max_attempts = 4;
  std::chrono::milliseconds initial_backoff{100};
  std::chrono::milliseconds max_backoff{5'000};
  // HTTP/2 keepalive pings on an idle connection, so a dead peer is noticed.
  std::chrono::milliseconds keepalive_time{30'000};
  std::chrono::milliseconds keepalive_timeout{10'000};
  // TLS: on with `tls`; root certificates in PEM (empty: the system's roots). tls_server_name
  // overrides the name checked against the certificate (empty: the target's host).
  bool tls = false;
  std::string tls_root_certificates;
  std::string tls_server_name;
  // Sent as "authorization: Bearer <token>" on every call when not empty. A client that edits
  // sets the server's write token here: it reads too, so one token serves every call.
  std::string bearer_token;
};

enum class Health { serving, not_serving };

class BaseGenerator;
class RegionStream;

// What a Client generating locally did (Client::generate_locally), as ViewStats names it.
struct LocalGenerationStats {
  bool generating_locally = false;       // a generator is set and the server has not refused it
  std::string local_generation_refused;  // why the server refused ("" if it did not): chunks come whole
  uint64_t chunks_generated = 0;         // chunks made here, pristine and edited
  uint64_t edited_verified = 0;          // edited chunks made here whose result hashed to the server's
  uint64_t edited_mismatches = 0;        // edited chunks that did not (or held an unknown edit): fetched
  uint64_t chunks_downloaded = 0;        // chunks fetched whole meanwhile: mismatches, too many changes
};

class Client {
 public:
  // Makes the channel; connects lazily on the first call. Fails only on bad options.
  static Result<Client> connect(const std::string& target, ConnectOptions options = {});

  // The world's summary and catalogue. Fetched once, then served from memory.
  Result<WorldInfo> world_info();
  // The same with the resolved world definition in message().definition(), for a client that
  // generates chunks itself (chunkforge::client_local, docs/client-generation.md). Asked for on
  // every call, not kept. FAILED_PRECONDITION, with the server's message, from a server that
  // keeps its definition (--client-generation off, or --publish-seed off).
  Result<WorldInfo> world_info_with_definition();

  // One chunk. The call carries the metadata "x-chunkforge-chunk-key: <x>,<z>" so a load
  // balancer can send each chunk to the replica that caches it (docs/deploy.md).
  Result<Chunk> chunk(ChunkCoord coord, const ChunkOptions& options = {});

  // Every chunk of the square of `radius` chunks around `centre`, nearest first. on_chunk runs
  // for each as it arrives; return false from it to stop early (the result is then ok).
  Status stream_region(ChunkCoord centre, uint32_t radius, const ChunkOptions& options,
                       const std::function<bool(const Chunk&)>& on_chunk);
  // The same as an iterator: `RegionStream s = client.open_region(c, r); while (auto chunk =
  // s.next()) ...; Status done = s.status();`.
  RegionStream open_region(ChunkCoord centre, uint32_t radius, const ChunkOptions& options = {});

  // The kept instances of the structure type named `type` whose origin lies within `radius`
  // world units of (x, z), nearest first, at most `limit`: exactly what the chunks they touch
  // report. The server plans structures only; no chunk is generated.
  Result<std::vector<Structure>> locate(const std::string& type, int64_t x, int64_t z, double radius = 2048,
                                        uint32_t limit = 10);

  // Applies `batch` atomically (docs/edits.md). Needs the server's write token as bearer_token
  // (PERMISSION_DENIED otherwise, or when the server takes no edits). A batch without a request
  // id gets a random one (128 bits, "sdk-" and 32 hex digits): the retries of UNAVAILABLE then
  // apply it once. DEADLINE_EXCEEDED is not retried and leaves the outcome unknown: a caller
  // that wants to retry then gives the batch its own request id and sends it again.
  Result<EditResult> edit(const EditBatch& batch);

  // Local generation (docs/client-generation.md, "Single chunks and regions"): from now on
  // chunk(), stream_region() and open_region() make every chunk no player changed with
  // `generator` (make_local_generator in chunkforge::client_local) and ask the server only for
  // players' changes (GetChunkEdits, one call per chunk or region); an edited chunk is its
  // generated base with the server's change applied and checked against the server's hash. A
  // chunk that fails the check, or whose changes the server did not send, is fetched whole. A
  // server that refuses (another fingerprint, a generator version it lacks, --client-generation
  // off) or that predates GetChunkEdits gets every call answered whole from then on, and
  // local_generation() says why. A region's chunks are handed out in StreamRegion's order, the
  // next `region_threads` (in [1, 64]) being made at once, each on a thread of its own; a single
  // chunk is made on the calling thread. Null: every chunk from the server again.
  void generate_locally(std::shared_ptr<BaseGenerator> generator, size_t region_threads = 2);
  LocalGenerationStats local_generation() const;

  // The standard gRPC health check of the server (grpc.health.v1, service "").
  Result<Health> health();

  const std::string& target() const;
  const ConnectOptions& options() const;

  // Shared with ViewSession and RegionStream; not for games.
  struct Impl;
  const std::shared_ptr<Impl>& impl() const { return impl_; }

 private:
  explicit Client(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<Impl> impl_;
};

// A region being received; see Client::open_region. Not copyable; one thread at a time.
class RegionStream {
 public:
  RegionStream(RegionStream&&) noexcept;
  RegionStream& operator=(RegionStream&&) noexcept;
  ~RegionStream();  // cancels a stream not read to its end

  // The next chunk, or nullopt at the end or on failure (then see status()).
  std::optional<Chunk> next();
  // OK once every chunk was read; otherwise why the stream ended.
  const Status& status() const;

 private:
  friend class Client;
  struct State;
  explicit RegionStream(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace chunkforge::client
