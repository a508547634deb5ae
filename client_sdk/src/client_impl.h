// File: client_sdk/src/client_impl.h
//
// What Client, RegionStream and ViewSession share: the channel and stub, the options, the world
// info once fetched, and the call plumbing (deadline, token, status conversion, backoff).
#pragma once

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>

#include "chunkforge/client/base_generator.h"
#include "chunkforge/client/client.h"
#include "chunkforge/v1/service.grpc.pb.h"

namespace chunkforge::client {

struct Client::Impl {
  std::string target;
  ConnectOptions options;
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<v1::WorldService::Stub> stub;

  std::mutex mutex;
  std::optional<WorldInfo> world;  // fetched once
  // Local generation (Client::generate_locally; client_local.h), under `mutex`.
  std::shared_ptr<BaseGenerator> generator;
  size_t region_threads = 2;
  LocalGenerationStats local;

  // Sets the deadline (none when `deadline` is zero) and the token on a new call's context.
  void prepare(grpc::ClientContext& context, std::chrono::milliseconds deadline) const;
  void prepare(grpc::ClientContext& context) const { prepare(context, options.deadline); }
};

Status to_status(const grpc::Status& status);

// GetChunk: the chunk as the server sends it, retried as every unary call is.
Result<Chunk> server_chunk(Client::Impl& impl, const WorldInfo& world, ChunkCoord coord, const ChunkOptions& options);

// The wire form of a request's chunk options.
void set_options(const ChunkOptions& from, v1::ChunkOptions& to);

// A structure from the wire, with its type's name from the catalogue.
Structure structure_of(const v1::StructureInstance& s, const WorldInfo& world);

// Exponential backoff with +-20 % jitter: initial, 2 initial, ... up to max.
class Backoff {
 public:
  Backoff(std::chrono::milliseconds initial, std::chrono::milliseconds max);
  std::chrono::milliseconds next();
  void reset() { current_ = initial_; }

 private:
  std::chrono::milliseconds initial_, max_, current_;
  std::minstd_rand random_;
};

// Runs `call` (which returns a grpc::Status) until it succeeds, fails with something other than
// UNAVAILABLE, or the client's max_attempts are used up, sleeping with backoff in between.
template <class Call>
grpc::Status with_retries(const ConnectOptions& options, Call&& call) {
  Backoff backoff(options.initial_backoff, options.max_backoff);
  for (int attempt = 1;; ++attempt) {
    grpc::Status status = call();
    if (status.error_code() != grpc::StatusCode::UNAVAILABLE || attempt >= options.max_attempts) return status;
    std::this_thread::sleep_for(backoff.next());
  }
}

}  // namespace chunkforge::client
