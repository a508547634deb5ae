// File: server/rpc/stall_watch.h
//
// Finds a client that stopped reading its stream: HTTP/2 flow control then holds the server's
// write in flight forever, and with it the call's slot and buffers. A stream reactor marks its
// writes here and looks every period() (on a grpc::Alarm it re-arms); once a write has waited
// longer than the timeout, the reactor ends the call with RESOURCE_EXHAUSTED.
//
// Thread safety: none; the reactor uses it under its own mutex.
#pragma once

#include <grpcpp/alarm.h>
#include <grpcpp/support/status.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <string>

namespace chunkforge::server {

class StallWatch {
 public:
  using Clock = std::chrono::steady_clock;

  explicit StallWatch(std::chrono::milliseconds timeout) : timeout_(timeout) {}

  void write_started() {
    writing_ = true;
    since_ = Clock::now();
  }
  void write_done() { writing_ = false; }
  bool writing() const { return writing_; }
  bool stalled() const { return writing_ && Clock::now() - since_ > timeout_; }
  std::chrono::milliseconds timeout() const { return timeout_; }
  // Why a stalled call ends, for the log and metrics: "the client took no `what` for N ms".
  grpc::Status stalled_status(const std::string& what) const {
    return {grpc::StatusCode::RESOURCE_EXHAUSTED,
            "the client took no " + what + " for " + std::to_string(timeout_.count()) + " ms: a stream must be read"};
  }

  // Calls `look` (on a gRPC thread) after a quarter of the timeout. The alarm is replaced by
  // the next arm() and cancelled by disarm(); `look` runs with false once cancelled.
  void arm(std::function<void(bool)> look) {
    const auto period = std::clamp(timeout_ / 4, std::chrono::milliseconds(10), std::chrono::milliseconds(5000));
    alarm_ = std::make_unique<grpc::Alarm>();  // destroying an alarm inside its own callback is safe
    alarm_->Set(std::chrono::system_clock::now() + period, std::move(look));
  }
  // The pending alarm, to be destroyed by the caller outside its locks (cancelling it may run
  // gRPC work).
  std::unique_ptr<grpc::Alarm> disarm() { return std::move(alarm_); }

 private:
  std::chrono::milliseconds timeout_;
  bool writing_ = false;
  Clock::time_point since_;
  std::unique_ptr<grpc::Alarm> alarm_;
};

}  // namespace chunkforge::server
