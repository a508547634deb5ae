// File: client_sdk/src/client_local.h
//
// Client's chunks and regions made on the client (Client::generate_locally,
// docs/client-generation.md, "Single chunks and regions"): GetChunkEdits says which of the asked
// chunks players changed, and each such chunk's change from its generated base; every other
// chunk is the generator's. What cannot be made here (a failed hash check, changes the server
// left out) is fetched whole with GetChunk. A server's refusal is recorded in the client's
// LocalGenerationStats, and its calls then go to the server as if no generator were set.
#pragma once

#include <atomic>
#include <deque>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "chunkforge/client/base_generator.h"
#include "chunkforge/client/client.h"
#include "chunkforge/v1/edit.pb.h"
#include "client_impl.h"

namespace chunkforge::client {

// The generator to make chunks with, or null: none set, or the server refused it.
std::shared_ptr<BaseGenerator> local_generator(Client::Impl& impl);

// What the server said of the asked chunks.
struct AskedEdits {
  std::map<ChunkCoord, v1::ChunkChange> edited;  // from the generated base, reset set
  std::set<ChunkCoord> not_sent;                 // edited, changes left out: fetch whole
};

// One chunk made here; nullopt when it comes from the server instead (refused: then so do the
// client's later calls).
Result<std::optional<Chunk>> local_chunk(Client::Impl& impl, const std::shared_ptr<BaseGenerator>& generator,
                                         const WorldInfo& world, ChunkCoord coord, const ChunkOptions& options);

// A region made here, in StreamRegion's order: the next `threads` chunks are being made at once,
// each on a thread of its own (std::async), and handed out in order.
class LocalRegion {
 public:
  // Null (and OK) when the server refused: stream the region from the server instead.
  static Result<std::unique_ptr<LocalRegion>> open(std::shared_ptr<Client::Impl> impl,
                                                   std::shared_ptr<BaseGenerator> generator, WorldInfo world,
                                                   ChunkCoord centre, uint32_t radius, ChunkOptions options);
  ~LocalRegion();  // abandons the chunks being made ahead, and waits for them
  LocalRegion(const LocalRegion&) = delete;
  LocalRegion& operator=(const LocalRegion&) = delete;

  // The next chunk, or nullopt at the end (status() OK) or on a failure.
  std::optional<Chunk> next();
  const Status& status() const { return status_; }

 private:
  using Made = Result<std::optional<Chunk>>;
  LocalRegion(std::shared_ptr<Client::Impl> impl, std::shared_ptr<BaseGenerator> generator, WorldInfo world,
              ChunkOptions options, size_t threads)
      : impl_(std::move(impl)),
        generator_(std::move(generator)),
        world_(std::move(world)),
        options_(std::move(options)),
        threads_(threads) {}
  void launch();  // starts making the next chunk not started
  std::optional<Chunk> fail(Status status);

  std::shared_ptr<Client::Impl> impl_;
  std::shared_ptr<BaseGenerator> generator_;
  WorldInfo world_;
  ChunkOptions options_;
  size_t threads_;
  AskedEdits asked_;
  std::vector<ChunkCoord> order_;
  size_t next_ = 0, launched_ = 0;
  Status status_;
  std::atomic<bool> abandon_{false};
  std::deque<std::future<Made>> ahead_;  // order_[next_] on, being made; declared last, so destroyed first
};

}  // namespace chunkforge::client
