// File: server/edits/edit_admission.h
//
// Bounds on Edit calls under way, from their arrival to their answer (docs/edits.md, "Limits"):
// per writer (a connection's peer address) and in total, entries and request bytes. An edit
// over a bound is refused at once with RESOURCE_EXHAUSTED, before any chunk is generated for
// it, so a writer that sends faster than the store commits gets "retry later" instead of a
// backlog that grows the server's memory and every other writer's wait.
//
//   EditAdmission admission;
//   grpc::Status status = admission.admit(context->peer(), raw_bytes);
//   ... when the call is answered: admission.release(context->peer(), raw_bytes);
//
// Thread safety: every method may be called from any thread.
#pragma once

#include <grpcpp/support/status.h>

#include <mutex>
#include <string>
#include <unordered_map>

namespace chunkforge::server {

// Edits one writer may have under way at once.
inline constexpr size_t kMaxWriterEdits = 16;
// Edits under way at once from every writer, and their request bytes.
inline constexpr size_t kMaxQueuedEdits = 512;
inline constexpr size_t kMaxQueuedEditBytes = size_t{16} << 20;

class EditAdmission {
 public:
  // OK and counted (release() must follow), or RESOURCE_EXHAUSTED naming the bound.
  grpc::Status admit(const std::string& writer, size_t bytes) {
    std::lock_guard lock(mutex_);
    size_t& mine = per_writer_[writer];
    grpc::Status refused;
    if (mine >= kMaxWriterEdits) {
      refused = busy("edits under way from " + writer + ": at most " + std::to_string(kMaxWriterEdits) + " (got " +
                     std::to_string(mine) + ")");
    } else if (entries_ >= kMaxQueuedEdits) {
      refused = busy("edits under way: at most " + std::to_string(kMaxQueuedEdits) + " (got " +
                     std::to_string(entries_) + ")");
    } else if (bytes_ + bytes > kMaxQueuedEditBytes) {
      refused = busy("bytes of edits under way: at most " + std::to_string(kMaxQueuedEditBytes) + " (got " +
                     std::to_string(bytes_) + " and this " + std::to_string(bytes) + ")");
    }
    if (!refused.ok()) {
      if (mine == 0) per_writer_.erase(writer);
      return refused;
    }
    ++mine;
    ++entries_;
    bytes_ += bytes;
    return grpc::Status::OK;
  }

  void release(const std::string& writer, size_t bytes) {
    std::lock_guard lock(mutex_);
    const auto it = per_writer_.find(writer);
    if (it != per_writer_.end() && --it->second == 0) per_writer_.erase(it);
    --entries_;
    bytes_ -= bytes;
  }

 private:
  static grpc::Status busy(const std::string& what) {
    return {grpc::StatusCode::RESOURCE_EXHAUSTED, what + ": edit not applied, retry later"};
  }

  std::mutex mutex_;
  std::unordered_map<std::string, size_t> per_writer_;
  size_t entries_ = 0, bytes_ = 0;
};

}  // namespace chunkforge::server
