// File: tests/hostile/adversary/prober.cc
//
// Generic-stub calls for the adversary's probes (prober.h), each on a completion queue of its
// own and waited for step by step.
#include "prober.h"

#include <grpcpp/generic/generic_stub.h>

#include <string>

namespace chunkforge::hostile::adversary {
namespace {

constexpr auto kProbeDeadline = std::chrono::seconds(10);

// Waits for the one operation under way on `cq`; whether it succeeded.
bool wait(grpc::CompletionQueue& cq) {
  void* tag = nullptr;
  bool ok = false;
  return cq.Next(&tag, &ok) && ok;
}

void drain(grpc::CompletionQueue& cq) {
  cq.Shutdown();
  void* tag = nullptr;
  bool ok = false;
  while (cq.Next(&tag, &ok)) {
  }
}

}  // namespace

grpc::ByteBuffer to_buffer(const Message& message) {
  const std::string bytes = message.SerializeAsString();
  grpc::Slice slice(bytes);
  return grpc::ByteBuffer(&slice, 1);
}

Prober::Prober(std::shared_ptr<grpc::Channel> channel) : stub_(std::move(channel)) {}

Verdict Prober::verdict(const grpc::Status& status) const {
  switch (status.error_code()) {
    case grpc::StatusCode::OK:
      return Verdict::ok;
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::OUT_OF_RANGE:
    case grpc::StatusCode::UNIMPLEMENTED:
    case grpc::StatusCode::INTERNAL:
      return Verdict::refused;
    case grpc::StatusCode::RESOURCE_EXHAUSTED:  // gRPC's request bound, or the server's own limits
      return status.error_message().find("larger than max") != std::string::npos ? Verdict::refused : Verdict::accepted;
    default:
      return Verdict::accepted;
  }
}

bool Prober::unary(const Method& method, const Message& request, grpc::ByteBuffer* answer) {
  ++calls_;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + kProbeDeadline);
  grpc::CompletionQueue cq;
  const grpc::ByteBuffer bytes = to_buffer(request);
  auto reader = stub_.PrepareUnaryCall(&context, method.path, bytes, &cq);
  reader->StartCall();
  reader->Finish(answer, &last_, reinterpret_cast<void*>(1));
  wait(cq);
  drain(cq);
  return last_.ok();
}

size_t Prober::stream(const Method& method, const Message& request, std::chrono::milliseconds deadline, int stop_after,
                      int* messages) {
  ++calls_;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + deadline);
  grpc::CompletionQueue cq;
  auto call = stub_.PrepareCall(&context, method.path, &cq);
  call->StartCall(reinterpret_cast<void*>(1));
  size_t bytes = 0;
  *messages = 0;
  if (wait(cq)) {
    call->Write(to_buffer(request), reinterpret_cast<void*>(2));
    if (wait(cq)) {
      call->WritesDone(reinterpret_cast<void*>(3));
      wait(cq);
    }
    grpc::ByteBuffer answer;
    while (*messages < stop_after) {
      call->Read(&answer, reinterpret_cast<void*>(4));
      if (!wait(cq)) break;
      ++*messages;
      bytes += answer.Length();
    }
  }
  if (*messages >= stop_after) context.TryCancel();  // else the call ended: its status is the server's
  call->Finish(&last_, reinterpret_cast<void*>(5));
  wait(cq);
  drain(cq);
  return bytes;
}

Verdict Prober::probe(const Method& method, const Message& request) {
  if (!method.streaming()) {
    grpc::ByteBuffer answer;
    unary(method, request, &answer);
    return verdict(last_);
  }
  int messages = 0;
  stream(method, request, kProbeDeadline, 1, &messages);
  return messages > 0 ? Verdict::ok : verdict(last_);
}

size_t Prober::answer_bytes(const Method& method, const Message& request, std::chrono::milliseconds window) {
  if (!method.streaming()) {
    grpc::ByteBuffer answer;
    return unary(method, request, &answer) ? answer.Length() : 0;
  }
  int messages = 0;
  return stream(method, request, window, 1 << 30, &messages);
}

}  // namespace chunkforge::hostile::adversary
