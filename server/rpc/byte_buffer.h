// File: server/rpc/byte_buffer.h
//
// gRPC ByteBuffers to and from plain bytes, for the raw methods (requests parsed by hand,
// responses sent as cached canonical bytes).
#pragma once

#include <grpcpp/support/byte_buffer.h>

#include <string>
#include <string_view>
#include <vector>

namespace chunkforge::server {

inline std::string bytes_of(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  std::string bytes;
  if (!buffer.Dump(&slices).ok()) return bytes;
  for (const grpc::Slice& s : slices) bytes.append(reinterpret_cast<const char*>(s.begin()), s.size());
  return bytes;
}

inline grpc::ByteBuffer buffer_of(std::string_view bytes) {
  grpc::Slice slice(bytes.data(), bytes.size());
  return grpc::ByteBuffer(&slice, 1);
}

}  // namespace chunkforge::server
