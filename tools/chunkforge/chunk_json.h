// Chunks as JSON lines for the `chunkforge` command: world coordinates, catalogue names.
// Built from the wire message (chunkforge.v1.Chunk), so a chunk fetched from a server prints
// exactly as one generated offline.
#pragma once

#include <string>

#include "chunkforge/v1/chunk.pb.h"
#include "chunkforge/v1/info.pb.h"

namespace chunkforge::tool {

// One line (no trailing newline).
std::string chunk_json(const v1::Chunk& chunk, const v1::WorldInfo& info);

// Shortest decimal that reads back as the same double.
std::string number(double v);

}  // namespace chunkforge::tool
