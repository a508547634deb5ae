#include "chunkforge/client/client.h"

#include <grpcpp/generic/generic_stub.h>

#include <future>
#include <thread>

#include "client_impl.h"
#include "client_local.h"

namespace chunkforge::client {

Status to_status(const grpc::Status& status) {
  return {static_cast<StatusCode>(status.error_code()), status.error_message()};
}

Backoff::Backoff(std::chrono::milliseconds initial, std::chrono::milliseconds max)
    : initial_(initial), max_(max), current_(initial), random_(std::random_device{}()) {}

std::chrono::milliseconds Backoff::next() {
  // Jitter keeps many clients that lost the same server from coming back in step.
  std::uniform_real_distribution<double> jitter(0.8, 1.2);
  const auto delay =
      std::chrono::milliseconds(static_cast<int64_t>(static_cast<double>(current_.count()) * jitter(random_)));
  current_ = std::min(max_, current_ * 2);
  return delay;
}

void Client::Impl::prepare(grpc::ClientContext& context, std::chrono::milliseconds deadline) const {
  if (deadline.count() > 0) context.set_deadline(std::chrono::system_clock::now() + deadline);
  if (!options.bearer_token.empty()) context.AddMetadata("authorization", "Bearer " + options.bearer_token);
}

Result<Client> Client::connect(const std::string& target, ConnectOptions options) {
  if (target.empty()) return Status{StatusCode::invalid_argument, "target: empty (expected host:port)"};
  if (options.max_attempts < 1) return Status{StatusCode::invalid_argument, "max_attempts: must be at least 1"};
  if (options.initial_backoff.count() <= 0 || options.max_backoff < options.initial_backoff) {
    return Status{StatusCode::invalid_argument, "backoff: need 0 < initial_backoff <= max_backoff"};
  }
  if (options.bearer_token.find_first_of("\r\n") != std::string::npos) {
    return Status{StatusCode::invalid_argument, "bearer_token: must not contain line breaks"};
  }
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, static_cast<int>(options.keepalive_time.count()));
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, static_cast<int>(options.keepalive_timeout.count()));
  args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);  // a session between moves is idle
  args.SetMaxReceiveMessageSize(64 << 20);                  // a chunk with a step-1 terrain grid is ~1 MB
  // Reconnection after a server restart is ours to pace (Backoff); keep gRPC's own short.
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, static_cast<int>(options.max_backoff.count()));
  std::shared_ptr<grpc::ChannelCredentials> credentials = grpc::InsecureChannelCredentials();
  if (options.tls) {
    grpc::SslCredentialsOptions tls;
    tls.pem_root_certs = options.tls_root_certificates;
    credentials = grpc::SslCredentials(tls);
    if (!options.tls_server_name.empty()) args.SetSslTargetNameOverride(options.tls_server_name);
  }
  auto impl = std::make_shared<Impl>();
  impl->target = target;
  impl->options = std::move(options);
  impl->channel = grpc::CreateCustomChannel(target, credentials, args);
  impl->stub = v1::WorldService::NewStub(impl->channel);
  return Client(std::move(impl));
}

const std::string& Client::target() const { return impl_->target; }
const ConnectOptions& Client::options() const { return impl_->options; }

// GetWorldInfo, retried as every unary call is.
static grpc::Status fetch_world_info(Client::Impl& impl, bool include_definition, v1::WorldInfo& message) {
  v1::GetWorldInfoRequest request;
  request.set_include_definition(include_definition);
  return with_retries(impl.options, [&] {
    grpc::ClientContext context;
    impl.prepare(context);
    return impl.stub->GetWorldInfo(&context, request, &message);
  });
}

Result<WorldInfo> Client::world_info() {
  {
    std::lock_guard lock(impl_->mutex);
    if (impl_->world) return *impl_->world;
  }
  v1::WorldInfo message;
  const grpc::Status status = fetch_world_info(*impl_, false, message);
  if (!status.ok()) return to_status(status);
  std::lock_guard lock(impl_->mutex);
  if (!impl_->world) impl_->world.emplace(std::move(message));
  return *impl_->world;
}

Result<WorldInfo> Client::world_info_with_definition() {
  v1::WorldInfo message;
  const grpc::Status status = fetch_world_info(*impl_, true, message);
  if (!status.ok()) return to_status(status);
  return WorldInfo(std::move(message));
}

void set_options(const ChunkOptions& from, v1::ChunkOptions& to) {
  to.set_include_terrain(from.include_terrain);
  to.set_terrain_step(from.terrain_step);
  for (uint32_t layer : from.layers) to.add_layers(layer);
}

Result<Chunk> server_chunk(Client::Impl& impl, const WorldInfo& world, ChunkCoord coord, const ChunkOptions& options) {
  v1::GetChunkRequest request;
  request.mutable_coord()->set_x(coord.x);
  request.mutable_coord()->set_z(coord.z);
  set_options(options, *request.mutable_options());
  auto message = std::make_shared<v1::Chunk>();
  const grpc::Status status = with_retries(impl.options, [&] {
    grpc::ClientContext context;
    impl.prepare(context);
    // The load balancer's key (docs/deploy.md): each chunk is cached on one replica.
    context.AddMetadata("x-chunkforge-chunk-key", std::to_string(coord.x) + "," + std::to_string(coord.z));
    return impl.stub->GetChunk(&context, request, message.get());
  });
  if (!status.ok()) return to_status(status);
  return Chunk(std::move(message), world);
}

Result<Chunk> Client::chunk(ChunkCoord coord, const ChunkOptions& options) {
  Result<WorldInfo> world = world_info();
  if (!world) return world.status();
  if (std::shared_ptr<BaseGenerator> generator = local_generator(*impl_)) {
    Result<std::optional<Chunk>> made = local_chunk(*impl_, generator, *world, coord, options);
    if (!made) return made.status();
    if (*made) return std::move(**made);
  }
  return server_chunk(*impl_, *world, coord, options);
}

Result<std::vector<Structure>> Client::locate(const std::string& type, int64_t x, int64_t z, double radius,
                                              uint32_t limit) {
  Result<WorldInfo> world = world_info();
  if (!world) return world.status();
  v1::LocateRequest request;
  request.set_type(type);
  request.set_x(x);
  request.set_z(z);
  request.set_radius(radius);
  request.set_limit(limit);
  v1::LocateResponse response;
  const grpc::Status status = with_retries(impl_->options, [&] {
    grpc::ClientContext context;
    impl_->prepare(context);
    return impl_->stub->Locate(&context, request, &response);
  });
  if (!status.ok()) return to_status(status);
  std::vector<Structure> out;
  for (const v1::StructureInstance& s : response.instances()) out.push_back(structure_of(s, *world));
  return out;
}

// --- regions ---

struct RegionStream::State {
  std::shared_ptr<Client::Impl> client;
  WorldInfo world;
  v1::StreamRegionRequest request;
  std::unique_ptr<grpc::ClientContext> context;
  std::unique_ptr<grpc::ClientReader<v1::Chunk>> reader;
  std::unique_ptr<LocalRegion> local;  // set: the region is made here (client_local.h)
  bool received_any = false, done = false;
  Status status;

  State(std::shared_ptr<Client::Impl> c, WorldInfo w, v1::StreamRegionRequest r)
      : client(std::move(c)), world(std::move(w)), request(std::move(r)) {}

  void open() {
    context = std::make_unique<grpc::ClientContext>();
    client->prepare(*context);
    reader = client->stub->StreamRegion(context.get(), request);
  }

  std::optional<Chunk> next() {
    if (done) return std::nullopt;
    if (local) {
      std::optional<Chunk> chunk = local->next();
      if (!chunk) finish(local->status());
      return chunk;
    }
    Backoff backoff(client->options.initial_backoff, client->options.max_backoff);
    for (int attempt = 1;; ++attempt) {
      auto message = std::make_shared<v1::Chunk>();
      if (reader->Read(message.get())) {
        received_any = true;
        return Chunk(std::move(message), world);
      }
      const grpc::Status end = reader->Finish();
      // Before the first chunk a restart cannot duplicate anything: retry UNAVAILABLE then.
      if (end.error_code() == grpc::StatusCode::UNAVAILABLE && !received_any &&
          attempt < client->options.max_attempts) {
        std::this_thread::sleep_for(backoff.next());
        open();
        continue;
      }
      finish(to_status(end));
      return std::nullopt;
    }
  }

  void finish(Status end) {
    done = true;
    status = std::move(end);
  }
};

RegionStream::RegionStream(std::unique_ptr<State> state) : state_(std::move(state)) {}
RegionStream::RegionStream(RegionStream&&) noexcept = default;
RegionStream& RegionStream::operator=(RegionStream&&) noexcept = default;

RegionStream::~RegionStream() {
  if (state_ && !state_->done && state_->context) {
    state_->context->TryCancel();
    state_->reader->Finish();
  }
}

std::optional<Chunk> RegionStream::next() { return state_->next(); }
const Status& RegionStream::status() const { return state_->status; }

RegionStream Client::open_region(ChunkCoord centre, uint32_t radius, const ChunkOptions& options) {
  Result<WorldInfo> world = world_info();
  v1::StreamRegionRequest request;
  request.mutable_centre()->set_x(centre.x);
  request.mutable_centre()->set_z(centre.z);
  request.set_radius(radius);
  set_options(options, *request.mutable_options());
  auto state = std::make_unique<RegionStream::State>(impl_, world ? *world : WorldInfo(v1::WorldInfo{}), request);
  if (!world) {
    state->finish(world.status());
    return RegionStream(std::move(state));
  }
  if (std::shared_ptr<BaseGenerator> generator = local_generator(*impl_)) {
    Result<std::unique_ptr<LocalRegion>> local =
        LocalRegion::open(impl_, std::move(generator), *world, centre, radius, options);
    if (!local) state->finish(local.status());
    state->local = local ? std::move(*local) : nullptr;
    if (state->local || state->done) return RegionStream(std::move(state));
  }
  state->open();
  return RegionStream(std::move(state));
}

Status Client::stream_region(ChunkCoord centre, uint32_t radius, const ChunkOptions& options,
                             const std::function<bool(const Chunk&)>& on_chunk) {
  RegionStream stream = open_region(centre, radius, options);
  while (std::optional<Chunk> chunk = stream.next()) {
    if (!on_chunk(*chunk)) return {};  // the destructor cancels the rest
  }
  return stream.status();
}

// --- health ---

Result<Health> Client::health() {
  // grpc.health.v1.Health/Check by hand: the request (service "") is empty, and the response's
  // only field is `status` (field 1, varint; 1 = SERVING). Linking a generated copy of
  // health.proto would clash with a game that has its own.
  grpc::GenericStub stub(impl_->channel);
  grpc::ByteBuffer response;
  const grpc::Status status = with_retries(impl_->options, [&] {
    grpc::ClientContext context;
    impl_->prepare(context);
    grpc::Slice empty{std::string()};
    grpc::ByteBuffer request(&empty, 1);
    std::promise<grpc::Status> done;
    stub.UnaryCall(&context, "/grpc.health.v1.Health/Check", grpc::StubOptions(), &request, &response,
                   [&done](grpc::Status s) { done.set_value(std::move(s)); });
    return done.get_future().get();
  });
  if (!status.ok()) return to_status(status);
  std::string bytes;
  std::vector<grpc::Slice> slices;
  if (response.Dump(&slices).ok()) {
    for (const grpc::Slice& s : slices) bytes.append(reinterpret_cast<const char*>(s.begin()), s.size());
  }
  const bool serving = bytes.size() == 2 && bytes[0] == '\x08' && bytes[1] == '\x01';
  return serving ? Health::serving : Health::not_serving;
}

}  // namespace chunkforge::client
