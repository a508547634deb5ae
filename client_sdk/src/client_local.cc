// Client's chunks and regions made on the client (client_local.h).
#include "client_local.h"

#include <algorithm>
#include <stdexcept>

#include "chunkforge/region_order.h"
#include "local_chunk.h"

namespace chunkforge::client {
namespace {

// Counts into the client's LocalGenerationStats (an abandoned chunk is not counted).
void count(Client::Impl& impl, const LocalChunk& made) {
  std::lock_guard lock(impl.mutex);
  impl.local.edited_mismatches += made.mismatch ? 1 : 0;
  impl.local.chunks_generated += made.chunk ? 1 : 0;
  impl.local.edited_verified += made.verified && made.chunk ? 1 : 0;
}

void count_download(Client::Impl& impl) {
  std::lock_guard lock(impl.mutex);
  ++impl.local.chunks_downloaded;
}

// The server will not have this client generate: every later call goes to it whole.
void record_refusal(Client::Impl& impl, const std::shared_ptr<BaseGenerator>& generator, std::string reason) {
  std::lock_guard lock(impl.mutex);
  if (impl.generator != generator) return;  // another generator was set meanwhile
  impl.local.generating_locally = false;
  impl.local.local_generation_refused = std::move(reason);
}

void set_coord(v1::ChunkCoord& to, ChunkCoord from) {
  to.set_x(from.x);
  to.set_z(from.z);
}

// GetChunkEdits for `request` (its coordinates or region set by the caller); nullopt when the
// server refused local generation (recorded) or predates the call.
Result<std::optional<AskedEdits>> ask_edits(Client::Impl& impl, const std::shared_ptr<BaseGenerator>& generator,
                                            v1::GetChunkEditsRequest& request) {
  describe_generator(*generator, *request.mutable_local_generation());
  v1::ChunkEdits answer;
  const grpc::Status status = with_retries(impl.options, [&] {
    grpc::ClientContext context;
    impl.prepare(context);
    return impl.stub->GetChunkEdits(&context, request, &answer);
  });
  if (status.error_code() == grpc::StatusCode::FAILED_PRECONDITION) {
    record_refusal(impl, generator, status.error_message());
    return std::optional<AskedEdits>();
  }
  if (status.error_code() == grpc::StatusCode::UNIMPLEMENTED) {
    record_refusal(impl, generator, "the server predates GetChunkEdits (" + status.error_message() + ")");
    return std::optional<AskedEdits>();
  }
  if (!status.ok()) return to_status(status);
  if (Status kept = generator->add_older_land(answer.older_land()); !kept.ok()) return kept;
  AskedEdits asked;
  for (v1::ChunkChange& change : *answer.mutable_edited()) {
    const ChunkCoord c{change.chunk().x(), change.chunk().z()};
    asked.edited.insert_or_assign(c, std::move(change));
  }
  for (const v1::ChunkCoord& c : answer.not_sent()) asked.not_sent.insert({c.x(), c.z()});
  return std::optional<AskedEdits>(std::move(asked));
}

// The chunk at `coord` made here, or nullopt when it must be fetched (a failed check, changes
// left out). A chunk the generator says does not exist is INVALID_ARGUMENT with its reason.
Result<std::optional<Chunk>> make(Client::Impl& impl, BaseGenerator& generator, const WorldInfo& world,
                                  const AskedEdits& asked, ChunkCoord coord, const ChunkOptions& options,
                                  const std::atomic<bool>* abandon = nullptr) {
  if (asked.not_sent.count(coord)) return std::optional<Chunk>();
  const auto edited = asked.edited.find(coord);
  LocalChunk made;
  try {
    made =
        make_local_chunk(generator, coord, options, edited == asked.edited.end() ? nullptr : &edited->second, abandon);
  } catch (const std::invalid_argument& e) {
    return Status{StatusCode::invalid_argument, e.what()};
  }
  count(impl, made);
  if (!made.chunk) return std::optional<Chunk>();
  return std::optional<Chunk>(Chunk(std::move(made.chunk), world));
}

}  // namespace

void Client::generate_locally(std::shared_ptr<BaseGenerator> generator, size_t region_threads) {
  std::lock_guard lock(impl_->mutex);
  impl_->local = {};
  impl_->region_threads = std::clamp<size_t>(region_threads, 1, 64);
  impl_->local.generating_locally = generator != nullptr;
  impl_->generator = std::move(generator);
}

LocalGenerationStats Client::local_generation() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->local;
}

std::shared_ptr<BaseGenerator> local_generator(Client::Impl& impl) {
  std::lock_guard lock(impl.mutex);
  return impl.local.generating_locally ? impl.generator : nullptr;
}

Result<std::optional<Chunk>> local_chunk(Client::Impl& impl, const std::shared_ptr<BaseGenerator>& generator,
                                         const WorldInfo& world, ChunkCoord coord, const ChunkOptions& options) {
  v1::GetChunkEditsRequest request;
  set_coord(*request.add_coords(), coord);
  Result<std::optional<AskedEdits>> asked = ask_edits(impl, generator, request);
  if (!asked) return asked.status();
  if (!*asked) return std::optional<Chunk>();
  Result<std::optional<Chunk>> made = make(impl, *generator, world, **asked, coord, options);
  if (made && !*made) count_download(impl);  // the caller fetches it
  return made;
}

Result<std::unique_ptr<LocalRegion>> LocalRegion::open(std::shared_ptr<Client::Impl> impl,
                                                       std::shared_ptr<BaseGenerator> generator, WorldInfo world,
                                                       ChunkCoord centre, uint32_t radius, ChunkOptions options) {
  v1::GetChunkEditsRequest request;
  set_coord(*request.mutable_centre(), centre);
  request.set_radius(radius);
  Result<std::optional<AskedEdits>> asked = ask_edits(*impl, generator, request);
  if (!asked) return asked.status();
  if (!*asked) return std::unique_ptr<LocalRegion>();
  size_t threads = 1;
  {
    std::lock_guard lock(impl->mutex);
    threads = impl->region_threads;
  }
  std::unique_ptr<LocalRegion> region(
      new LocalRegion(std::move(impl), std::move(generator), std::move(world), std::move(options), threads));
  region->asked_ = std::move(**asked);
  region->order_ = nearest_first(centre, radius);  // the server checked the radius
  return region;
}

LocalRegion::~LocalRegion() {
  abandon_ = true;
  ahead_.clear();  // each future's destructor waits for its chunk
}

void LocalRegion::launch() {
  const ChunkCoord coord = order_[launched_++];
  ahead_.push_back(std::async(std::launch::async, [this, coord] {
    return make(*impl_, *generator_, world_, asked_, coord, options_, &abandon_);
  }));
}

std::optional<Chunk> LocalRegion::next() {
  if (next_ >= order_.size()) return std::nullopt;
  while (launched_ < order_.size() && ahead_.size() < threads_) launch();
  const ChunkCoord coord = order_[next_++];
  Made made = ahead_.front().get();
  ahead_.pop_front();
  if (!made) return fail(made.status());
  if (*made) return std::move(**made);
  count_download(*impl_);
  Result<Chunk> fetched = server_chunk(*impl_, world_, coord, options_);
  if (!fetched) return fail(fetched.status());
  return std::move(*fetched);
}

// The region ends here, as a server's stream would.
std::optional<Chunk> LocalRegion::fail(Status status) {
  status_ = std::move(status);
  next_ = order_.size();
  abandon_ = true;
  ahead_.clear();
  return std::nullopt;
}

}  // namespace chunkforge::client
