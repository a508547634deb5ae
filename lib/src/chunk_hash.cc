// canonical_bytes and chunk_hash (chunkforge/chunk_hash.h), in the messages-only edits library
// so that the server and the SDK hash a chunk with the same code.
#include "chunkforge/chunk_hash.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include "chunkforge/hash.h"

namespace chunkforge {

std::string canonical_bytes(const google::protobuf::Message& message) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream out(&bytes);
    google::protobuf::io::CodedOutputStream coded(&out);
    coded.SetSerializationDeterministic(true);
    message.SerializeToCodedStream(&coded);
  }
  return bytes;
}

uint64_t chunk_hash(const v1::Chunk& chunk) {
  const uint64_t h = hash_bytes(0, salt("chunk.hash"), canonical_bytes(chunk));
  return h != 0 ? h : 1;  // 0 means "no hash" on the wire; a 1-in-2^64 collision costs nothing
}

}  // namespace chunkforge
