// File: tests/support/lying_generator.h
//
// A BaseGenerator that lies, for tests of clients that generate (docs/client-generation.md):
// about its world or its generator versions, or by spoiling one chunk's base (the last object
// half a unit off); and it can hold one chunk's generation until the test releases it, to act
// between the server's answer and the client's use of it. The real generator
// (chunkforge::client_local) underneath.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "chunkforge/client/base_generator.h"
#include "chunkforge/v1/chunk.pb.h"

namespace chunkforge::test {

class LyingGenerator : public client::BaseGenerator {
 public:
  explicit LyingGenerator(std::shared_ptr<client::BaseGenerator> real) : real_(std::move(real)) {}
  std::vector<uint32_t> versions;  // empty: the real one's
  std::string other_fingerprint;
  std::optional<client::ChunkCoord> spoiled;
  std::optional<client::ChunkCoord> held;  // its generation waits for release()

  // Whether a generation of `held` is waiting, within `limit`.
  bool wait_holding(std::chrono::milliseconds limit) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, limit, [&] { return holding_; });
  }
  void release() {
    std::lock_guard lock(mutex_);
    released_ = true;
    changed_.notify_all();
  }

  std::vector<uint32_t> generator_versions() const override {
    return versions.empty() ? real_->generator_versions() : versions;
  }
  std::string fingerprint() const override {
    return other_fingerprint.empty() ? real_->fingerprint() : other_fingerprint;
  }
  std::vector<std::string> older_epochs() const override { return real_->older_epochs(); }
  client::Status add_older_land(std::string_view bytes) override { return real_->add_older_land(bytes); }
  std::shared_ptr<const v1::Chunk> generate(client::ChunkCoord coord, const client::ChunkOptions& options,
                                            const std::atomic<bool>* abandon) override {
    if (held && coord == *held) hold(abandon);
    std::shared_ptr<const v1::Chunk> chunk = real_->generate(coord, options, abandon);
    if (!spoiled || coord != *spoiled || !chunk || chunk->objects().x_size() == 0) return chunk;
    auto bad = std::make_shared<v1::Chunk>(*chunk);
    const int last = bad->objects().x_size() - 1;                        // (tests' edits remove the first)
    bad->mutable_objects()->set_x(last, bad->objects().x(last) + 0.5f);  // one object half a unit off
    return bad;
  }

 private:
  // Until release(), or until the caller abandons the generation (a session ending).
  void hold(const std::atomic<bool>* abandon) {
    std::unique_lock lock(mutex_);
    holding_ = true;
    changed_.notify_all();
    while (!released_ && !(abandon != nullptr && abandon->load())) {
      changed_.wait_for(lock, std::chrono::milliseconds(10));
    }
  }

  std::shared_ptr<client::BaseGenerator> real_;
  std::mutex mutex_;
  std::condition_variable changed_;
  bool holding_ = false, released_ = false;
};

}  // namespace chunkforge::test
