// File: server/rpc/byte_buffer.h
//
// gRPC ByteBuffers to and from plain bytes, for the raw methods: requests parsed by hand, and
// answers sent as the bytes the server already holds (a cached chunk, an encoded event) without
// copying them. Only the write paths (UnaryCall, StreamCall) make a buffer to send: they charge
// it to the output budget first (tests/server/calls_end_counted_test.cc checks).
#pragma once

#include <grpcpp/support/byte_buffer.h>

#include <string>
#include <vector>

#include "generation/chunk_cache.h"

namespace chunkforge::server {

inline std::string bytes_of(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  std::string bytes;
  if (!buffer.Dump(&slices).ok()) return bytes;
  for (const grpc::Slice& s : slices) bytes.append(reinterpret_cast<const char*>(s.begin()), s.size());
  return bytes;
}

// A buffer over `bytes` itself: the slice keeps its own reference to them until gRPC is done.
inline grpc::ByteBuffer buffer_of(Bytes bytes) {
  auto* owner = new Bytes(std::move(bytes));
  grpc::Slice slice(
      const_cast<char*>((*owner)->data()), (*owner)->size(), [](void* held) { delete static_cast<Bytes*>(held); },
      owner);
  return grpc::ByteBuffer(&slice, 1);
}

}  // namespace chunkforge::server
