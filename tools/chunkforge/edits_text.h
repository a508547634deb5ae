// A stored change as a line of a `chunkforge edits export` (docs/edits.md, "Backups"), in the
// CLI's words, so that a backup can be searched for what `chunkforge chunk` printed: protobuf's
// JSON mapping of v1::ChunkChange with every id and the chunk hash as 16 hex digits
// (chunkforge/hex_text.h), each layer by its name in the world, and each state as hex. Export
// format 1 (before these) wrote the mapping as it is: decimal ids, layer numbers, base64 states;
// import still reads it.
//
//   {"chunk":{"x":"0","z":"0"},"edits":[{"remove_object":"00001a2b3c4d5e6f"}],...}
#pragma once

#include <string>

#include "chunkforge/v1/edit.pb.h"
#include "chunkforge/world.h"

namespace chunkforge::tool {

// The line (format 2) of a change of `world`. A layer the world does not have stays a number.
std::string change_line(const v1::ChunkChange& change, const World& world);

// A line of format 2 (or 1: `legacy`) into `change`: "" or what is wrong with it, naming the
// field. Format 2 takes a layer's number as well as its name.
std::string parse_change_line(const std::string& line, const World* world, bool legacy, v1::ChunkChange& change);

}  // namespace chunkforge::tool
