// File: server/world_server.h
//
// The world server assembled: cache, generation queue, WorldService, standard health checking
// and server reflection, on a gRPC server listening on one address; /healthz, /metrics and the
// live map (/map/, /tiles/, /api/: server/map/map_service.h) on an HTTP side port. Used by
// chunkforge-server's main and, in process, by the integration tests.
//
//   WorldServer server(world, {.listen = "127.0.0.1:0"});
//   if (!server.start()) return 1;
//   ... server.port() ...
//   server.shutdown(std::chrono::seconds(5));
//
// Thread safety: start() and shutdown() from one thread; the rest is gRPC's.
#pragma once

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <future>
#include <memory>
#include <string>

#include "auth/player_tokens.h"
#include "generation/background_priority.h"
#include "generation/chunk_cache.h"
#include "generation/generation_queue.h"
#include "http/http_counts.h"
#include "http/http_endpoint.h"
#include "map_service.h"
#include "metrics/metrics.h"
#include "rpc/world_service.h"

namespace chunkforge::server {

struct ServerOptions {
  std::string listen = "0.0.0.0:50051";
  std::string http = "0.0.0.0:8080";  // /healthz, /metrics and the map; empty: none
  bool map = true;                    // the live map on the --http port (behind auth_token)
  size_t map_cache_mb = 64;           // encoded tiles kept
  bool map_players = false;           // the map shows live sessions' positions (opt-in)
  bool publish_seed = true;           // GetWorldInfo carries the seed (docs/server.md, "The seed")
  bool client_generation = true;      // GetWorldInfo gives the definition (docs/client-generation.md)
  size_t cache_mb = 256;
  int threads = 2;
  // Nice levels the generation threads run below the threads that answer calls (0 to 19;
  // server/generation/background_priority.h says why).
  int generation_nice = kBackgroundNice;
  Limits limits;
  // What the server holds for clients at most: answers and events not yet written
  // (server/budget/output_budget.h; --output-budget-mb, --connection-output-mb).
  OutputLimits output;
  // TLS: PEM certificate chain and private key (both, or neither for plaintext).
  std::string tls_cert_pem, tls_key_pem;
  // Shared token clients must send as "authorization: Bearer <token>"; empty: none.
  std::string auth_token;
  // Edits (docs/edits.md): the store, already bound to the world (bind_store); null: the
  // server serves the generated world and refuses edits. The write token edits; without one
  // nobody may, unless open_edits.
  std::shared_ptr<EditStore> store;
  // The store's epochs when its world changed after launch (load_epochs; the newest is the
  // server's world): chunks are made by their epoch's generator, blended at seams. Null: one.
  std::shared_ptr<const Epochs> epochs;
  // Why there is no store although one was named (--store-optional); edits then get UNAVAILABLE.
  std::string store_error;
  std::string write_token;
  bool open_edits = false;
  // Players' signed tokens (docs/edits.md, "Who may edit"): null, none. Each player edits at
  // most player_edits_per_second (0: no limit), in bursts of twice that.
  std::shared_ptr<PlayerTokens> player_tokens;
  double player_edits_per_second = 20;
};

class WorldServer {
 public:
  WorldServer(const World& world, ServerOptions options);
  ~WorldServer();

  // Binds and starts serving; false (with the reason logged) if the address cannot be bound.
  bool start();
  // The bound ports (useful with port 0).
  int port() const { return port_; }
  int http_port() const { return http_ ? http_->port() : 0; }
  // Stops accepting calls, lets running ones finish until `grace` has passed, then cancels
  // the rest; connections left idle are closed once no call is under way.
  void shutdown(std::chrono::milliseconds grace);

  const ChunkCache& cache() const { return cache_; }
  const GenerationQueue& queue() const { return queue_; }
  EditService* edits() { return edits_.get(); }
  const map::MapService* map() const { return map_.get(); }
  // The /metrics page.
  std::string metrics_page() const;

 private:
  HttpHandler start_map();
  void report_store_health();
  // shutdown's helper: once no call is under way (by `deadline`), and `linger` after it when
  // sessions were told to move, closes the connections still open, unless gRPC's shutdown
  // ended first (`shut_down`).
  void close_idle_connections(std::chrono::steady_clock::time_point deadline, bool linger,
                              const std::shared_future<void>& shut_down);

  // Declaration order is destruction order reversed: the gRPC server goes first, while the
  // service, the queue (whose threads complete pending calls) and the cache still exist.
  ServerOptions options_;
  Metrics metrics_;
  OutputBudget budget_;
  ChunkCache cache_;
  GenerationQueue queue_;
  std::unique_ptr<EditService> edits_;
  ChunkSource source_;
  WorldService service_;
  std::unique_ptr<grpc::Server> server_;
  const World& world_;
  std::unique_ptr<map::MapService> map_;  // before http_: the endpoint calls it until stopped
  HttpCounts http_counts_;
  std::unique_ptr<HttpEndpoint> http_;
  int port_ = 0;
  const uint64_t memory_limit_bytes_;  // chunkforge_memory_limit_bytes
};

}  // namespace chunkforge::server
