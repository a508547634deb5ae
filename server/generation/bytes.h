// File: server/generation/bytes.h
//
// Bytes: an encoded message (a chunk, a LOD tile, an event) as the server keeps and sends it,
// shared and never copied: the cache, a session's view and a call's answer hold the same string.
#pragma once

#include <memory>
#include <string>

namespace chunkforge::server {

using Bytes = std::shared_ptr<const std::string>;

}  // namespace chunkforge::server
