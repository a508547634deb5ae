// File: tests/contract/wire_breaks.h
//
// The wire-compatibility check between two descriptor sets, after `buf breaking`'s WIRE rules:
// what a client built from `before` would misread, or fail to call, on a server built from
// `after`. Additions (fields with new numbers, messages, enum values, RPCs, services, files) are
// allowed; anything else that changes how bytes are read, or which method path answers, is a
// break. The rules and their ids are listed in docs/api.md, "Evolving the API".
//
//   std::vector<WireBreak> breaks = wire_breaks(committed, compiled);
//   for (const WireBreak& b : breaks) std::cerr << b.text() << '\n';
#pragma once

#include <google/protobuf/descriptor.pb.h>

#include <string>
#include <vector>

namespace chunkforge::contract {

// One incompatibility: the rule it breaks, the file and element of `before` it concerns, and
// what changed, with the old and new values.
struct WireBreak {
  std::string rule;     // e.g. "FIELD_SAME_TYPE"
  std::string file;     // the file of `before` declaring the element
  std::string element;  // full name, e.g. "chunkforge.v1.GetChunkRequest.coord"
  std::string change;   // e.g. "field 1 changed type from chunkforge.v1.ChunkCoord to int64"

  // "FILE: ELEMENT: CHANGE [RULE]", one line.
  std::string text() const;
};

// Every break of `after` against `before`, in a stable order (files, then elements, as
// `before` declares them).
std::vector<WireBreak> wire_breaks(const google::protobuf::FileDescriptorSet& before,
                                   const google::protobuf::FileDescriptorSet& after);

}  // namespace chunkforge::contract
