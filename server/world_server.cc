// WorldServer: the gRPC server, the HTTP side port and the shared parts, started and stopped
// in the right order.
#include "world_server.h"

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/health_check_service_interface.h>
#include <grpcpp/resource_quota.h>
#include <spdlog/spdlog.h>

#include <grpc/grpc.h>

#include <algorithm>
#include <future>
#include <thread>

#include "edits/edit_batch.h"
#include "http/map_routes.h"
#include "map_moderation.h"
#include "side_port_metrics.h"
#include "startup/memory_limit.h"

namespace chunkforge::server {

static constexpr char kWorldServiceName[] = "chunkforge.v1.WorldService";

WorldServer::WorldServer(const World& world, ServerOptions options)
    : options_(std::move(options)),
      budget_(options_.output),
      cache_(options_.cache_mb << 20),
      queue_(options_.threads, options_.limits.max_queued_jobs, options_.generation_nice,
             [this](double seconds) { metrics_.queue_waited(seconds); }),
      edits_(options_.store
                 ? std::make_unique<EditService>(
                       world, *options_.store, [this](double seconds) { metrics_.edits().commit_timed(seconds); },
                       options_.epochs ? options_.epochs->newest() : 0)
                 : nullptr),
      source_(world, cache_, queue_, edits_.get(), options_.limits.max_radius,
              {[this](double seconds, double cpu_seconds) { metrics_.generated(seconds, cpu_seconds); },
               [this] { metrics_.tile_made(); }},
              options_.epochs),
      service_(world, source_, metrics_, budget_, options_.limits,
               Auth{options_.auth_token, options_.write_token, options_.open_edits, options_.store_error,
                    options_.player_tokens, options_.player_edits_per_second},
               edits_.get()),
      world_(world),
      memory_limit_bytes_(process_memory_limit().bytes) {
  service_.disclose(options_.publish_seed, options_.publish_seed && options_.client_generation);
  if (options_.client_generation && !options_.publish_seed) {
    spdlog::info("client generation off: the world definition holds the seed, and --publish-seed is off");
  }
}

WorldServer::~WorldServer() { shutdown(std::chrono::milliseconds(0)); }

bool WorldServer::start() {
  if (edits_) {
    try {
      edits_->start();
    } catch (const std::exception& e) {
      spdlog::error("edit store {}: {}", options_.store->describe(), e.what());
      return false;
    }
  }
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  std::shared_ptr<grpc::ServerCredentials> credentials = grpc::InsecureServerCredentials();
  if (!options_.tls_cert_pem.empty()) {
    grpc::SslServerCredentialsOptions tls;
    tls.pem_key_cert_pairs.push_back({options_.tls_key_pem, options_.tls_cert_pem});
    credentials = grpc::SslServerCredentials(tls);
  }
  builder.AddListeningPort(options_.listen, credentials, &port_);
  // gRPC sets SO_REUSEPORT by default: a second server on a busy port would then share it, and
  // clients would get answers from two worlds. Without it the bind fails and start-up exits 1.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.RegisterService(&service_);
  builder.SetMaxReceiveMessageSize(options_.limits.max_request_bytes);
  // No client grows gRPC's own memory without bound: calls per connection are capped (HTTP/2
  // queues the rest at the client), and connections and calls share one memory quota.
  builder.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS, options_.limits.max_calls_per_connection);
  grpc::ResourceQuota quota("chunkforge-server");
  quota.Resize(options_.limits.grpc_memory_bytes);
  builder.SetResourceQuota(quota);
  server_ = builder.BuildAndStart();
  if (!server_ || port_ == 0) {
    spdlog::error("cannot listen on {}: the address is in use, or not an address of this machine", options_.listen);
    server_.reset();
    return false;
  }
  report_store_health();
  if (!options_.http.empty()) {
    HttpOptions http;
    http.budget = &budget_;
    http.counts = &http_counts_;
    http_ = std::make_unique<HttpEndpoint>(
        options_.http, [this] { return metrics_page(); }, http, options_.map ? start_map() : HttpHandler{});
    if (!http_->start()) {
      shutdown(std::chrono::milliseconds(0));
      return false;
    }
  }
  return true;
}

std::string WorldServer::metrics_page() const {
  MetricsPage more;
  render_side_port(more, http_counts_, map_.get(), options_.map_cache_mb << 20);
  more.single("memory_limit_bytes", "gauge",
              "The memory this process may use: its cgroup's limit, else the machine's memory (read at start).",
              memory_limit_bytes_);
  more.single("calls_finish_waiting", "gauge",
              "Calls whose status waits for a place among the calls finishing (FinishGate): clients ending calls "
              "faster than gRPC completes them.",
              service_.finishes_waiting());
  return metrics_.render(cache_.stats(), options_.cache_mb << 20, queue_, budget_, edits_.get()) + more.out.str();
}

HttpHandler WorldServer::start_map() {
  // Renders share the cores with generation: a few at once is enough for one viewer's screen.
  map::MapOptions options;
  options.threads = std::clamp(options_.threads, 1, 4);
  // One radius bound for both ways to search: /api/locate takes the server's Locate bound, and
  // `chunkforge map`'s default is the same number.
  static_assert(Limits{}.max_locate_radius == map::kDefaultMaxLocateRadius);
  options.max_locate_radius = options_.limits.max_locate_radius;
  options.cache_bytes = options_.map_cache_mb << 20;
  options.auth_token = options_.auth_token;
  options.publish_seed = options_.publish_seed;
  if (edits_) {  // the edits overlay: the map is destroyed before edits_ (world_server.h)
    options.edited_chunks = [edits = edits_.get()](int64_t x0, int64_t z0, int64_t x1, int64_t z1, size_t limit) {
      std::vector<map::EditedChunk> out;
      for (const auto& [chunk, version] : edits->edited_in({x0, z0}, {x1, z1}, limit))
        out.push_back({chunk.x, chunk.z, version});
      return out;
    };
    // /api/chunk shows a clicked chunk as served: with its committed edits. While the store is
    // down an edited chunk cannot be shown: the map answers 503 as for a dropped generation.
    options.current_chunk = [edits = edits_.get()](ChunkCoord coord, v1::Chunk base) {
      const uint64_t version = edits->version(coord);
      if (version == 0) return base;
      try {
        return current_chunk(base, edits->log(coord, version), {});
      } catch (const StoreUnavailable&) {
        throw GenerationAbandoned();
      }
    };
    options.moderation = map_moderation(service_);  // for moderators' tokens only
  }
  if (options_.map_players) {  // positions are shown only when the operator asks for it
    options.players = [this] {
      std::vector<map::PlayerMarker> out;
      for (const PlayerPosition& p : service_.players().snapshot()) out.push_back({p.session, p.x, p.z});
      return out;
    };
  }
  map_ = std::make_unique<map::MapService>(options);
  map_->set_world(world_, "chunkforge-server", options_.epochs);
  return map_handler(*map_);
}

// Readiness (docs/edits.md): the gRPC health service reports chunkforge.v1.WorldService
// NOT_SERVING while the edit store is down; "" (the server as a whole, liveness) stays SERVING.
void WorldServer::report_store_health() {
  if (!edits_) return;
  grpc::HealthCheckServiceInterface* health = server_->GetHealthCheckService();
  if (health == nullptr) return;
  edits_->health().on_change([health](bool up) { health->SetServingStatus(kWorldServiceName, up); });
  health->SetServingStatus(kWorldServiceName, edits_->health().up());
}

// A rolling update nobody notices (docs/server.md, "Shutdown"): balancers are told first (the
// gRPC health service says NOT_SERVING, /healthz goes), then every session is told to reconnect
// and ends OK after the events already written, so that its client resumes on another replica
// with the chunks it holds; then the server stops accepting and running calls get `grace`.
constexpr std::chrono::milliseconds kLastWritesLinger{200};

// gRPC's shutdown ends once every connection has closed, and a client that keeps an idle one
// open (the SDK straight to a replica, with no proxy between) held it for the whole grace:
// once the last call is over, the connections left are closed. The calls that reached the
// server before it stopped accepting have their reactors after kSettle.
constexpr std::chrono::milliseconds kSettle{50};

void WorldServer::close_idle_connections(std::chrono::steady_clock::time_point deadline, bool linger,
                                         const std::shared_future<void>& shut_down) {
  if (shut_down.wait_for(kSettle) == std::future_status::ready) return;
  if (!service_.live_calls().wait_for_none(deadline)) return;  // the grace's end cancels them
  if (linger && shut_down.wait_for(kLastWritesLinger) == std::future_status::ready) return;
  grpc_server_cancel_all_calls(server_->c_server());  // none is left: this closes the connections
}

void WorldServer::shutdown(std::chrono::milliseconds grace) {
  if (server_ && server_->GetHealthCheckService() != nullptr) server_->GetHealthCheckService()->Shutdown();
  if (http_) http_->stop();
  http_.reset();
  if (!server_) return;
  const size_t drained = service_.drain_sessions();
  std::promise<void> shut_down;
  std::thread closer(&WorldServer::close_idle_connections, this, std::chrono::steady_clock::now() + grace, drained > 0,
                     shut_down.get_future().share());
  server_->Shutdown(std::chrono::system_clock::now() + grace);
  shut_down.set_value();
  closer.join();
  // Every call is answered or cancelled: no thread may now wait on a store that stopped answering.
  if (edits_) {
    if (edits_->health().up()) edits_->seen().flush();  // the last second's sights, while it answers
    edits_->store().abort();
    edits_->health().on_change(nullptr);  // the health service goes with the server
  }
  server_->Wait();  // the queue still runs here: cancelled calls' jobs complete them
  // The last writes (a session's reconnect event and status) are the transports' to send: closing
  // the connections at once lost some (the balancer then reset those streams, and their players
  // reconnected as after a failure, with the backoff).
  if (drained > 0) std::this_thread::sleep_for(kLastWritesLinger);
  server_.reset();
  queue_.stop();               // no job may outlive the service it calls
  if (edits_) edits_->stop();  // after the calls: every edit under way was answered
}

}  // namespace chunkforge::server
