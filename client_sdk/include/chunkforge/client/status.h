// File: chunkforge/client/status.h
//
// How the SDK reports failure without exceptions: a Status (a gRPC status code and a message a
// person can act on) and Result<T>, a value or the Status that says why there is none.
//
//   chunkforge::client::Result<chunkforge::client::Chunk> chunk = client.chunk({3, -2});
//   if (!chunk) std::cerr << chunk.status().to_string() << '\n';
//
// Thread safety: plain values; copy them freely.
#pragma once

#include <optional>
#include <string>
#include <utility>

namespace chunkforge::client {

// The gRPC status codes, same numbers.
enum class StatusCode {
  ok = 0,
  cancelled = 1,
  unknown = 2,
  invalid_argument = 3,
  deadline_exceeded = 4,
  not_found = 5,
  already_exists = 6,
  permission_denied = 7,
  resource_exhausted = 8,
  failed_precondition = 9,
  aborted = 10,
  out_of_range = 11,
  unimplemented = 12,
  internal = 13,
  unavailable = 14,
  data_loss = 15,
  unauthenticated = 16,
};

// "UNAVAILABLE" and so on, as gRPC names them.
const char* to_string(StatusCode code);

struct Status {
  StatusCode code = StatusCode::ok;
  std::string message;

  bool ok() const { return code == StatusCode::ok; }
  // "UNAVAILABLE: failed to connect to all addresses".
  std::string to_string() const;
};

template <class T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT(google-explicit-constructor): returned as is
  // A failure; an ok status here is a bug of the caller and becomes INTERNAL.
  Result(Status status) : status_(std::move(status)) {  // NOLINT(google-explicit-constructor)
    if (status_.ok()) status_ = {StatusCode::internal, "Result made from an ok status without a value"};
  }

  bool ok() const { return value_.has_value(); }
  explicit operator bool() const { return ok(); }
  const Status& status() const { return status_; }

  // Only when ok().
  T& value() { return *value_; }
  const T& value() const { return *value_; }
  T& operator*() { return *value_; }
  const T& operator*() const { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace chunkforge::client
