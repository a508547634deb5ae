// File: tests/hostile/adversary/prober.h
//
// The adversary's questions to the server, asked with a real gRPC client (a generic stub over
// ByteBuffers, which calls any method by its path): does the server accept this request, and
// how many bytes does it answer to it. From 127.0.0.1, as the harness's probes; the attack
// comes from 127.0.0.2.
#pragma once

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <memory>

#include "service_shape.h"

namespace chunkforge::hostile::adversary {

// How the server took a request, worst first.
enum class Verdict {
  refused,   // INVALID_ARGUMENT (or OUT_OF_RANGE), or larger than the server's request bound
  accepted,  // another error: the request was valid, the server declined it (FAILED_PRECONDITION ...)
  ok,        // answered (a streamed answer: its first message came)
};

class Prober {
 public:
  explicit Prober(std::shared_ptr<grpc::Channel> channel);

  // One call with `request` (a streaming call's first message, its side then closed); a
  // streamed answer is cancelled after its first message.
  Verdict probe(const Method& method, const Message& request);
  // The bytes answered to `request`, read as they come for at most `window` (a unary answer:
  // all of it).
  size_t answer_bytes(const Method& method, const Message& request, std::chrono::milliseconds window);
  // The answer of a unary call with `request`, if it was OK.
  bool unary(const Method& method, const Message& request, grpc::ByteBuffer* answer);

  int calls() const { return calls_; }
  const grpc::Status& last_status() const { return last_; }

 private:
  Verdict verdict(const grpc::Status& status) const;
  // A streaming call: writes `request`, closes this side, reads until `stop_after` messages,
  // the deadline or the end; the bytes read.
  size_t stream(const Method& method, const Message& request, std::chrono::milliseconds deadline, int stop_after,
                int* messages);

  grpc::TemplatedGenericStub<grpc::ByteBuffer, grpc::ByteBuffer> stub_;
  grpc::Status last_;
  int calls_ = 0;
};

// The bytes of a message as gRPC carries it.
grpc::ByteBuffer to_buffer(const Message& message);

}  // namespace chunkforge::hostile::adversary
