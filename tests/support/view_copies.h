// File: tests/support/view_copies.h
//
// The chunks a game holds from a ViewSession, kept through its callbacks, and the errors it
// reported: what the SDK's session tests compare with the server's chunks.
//
//   test::Copies copies;
//   auto session = ViewSession::start(client, at, view, copies.callbacks());
//   std::map<client::ChunkCoord, client::Chunk> held = copies.snapshot();
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "chunkforge/client.h"

namespace chunkforge::test {

// The copies the game holds, through the callbacks; errors as the session reported them.
struct Copies {
  std::mutex mutex;
  std::map<client::ChunkCoord, client::Chunk> held;
  std::vector<std::string> errors;

  client::ViewCallbacks callbacks() {
    client::ViewCallbacks c;
    c.on_load = [this](const client::Chunk& chunk) {
      std::lock_guard lock(mutex);
      held.insert_or_assign(chunk.coord(), chunk);
    };
    c.on_unload = [this](client::ChunkCoord coord) {
      std::lock_guard lock(mutex);
      held.erase(coord);
    };
    c.on_change = [this](const client::Chunk& chunk, const client::ChunkChangeInfo&) {
      std::lock_guard lock(mutex);
      held.insert_or_assign(chunk.coord(), chunk);
    };
    c.on_error = [this](const client::Status& s) {
      std::lock_guard lock(mutex);
      errors.push_back(s.message);
    };
    return c;
  }
  std::map<client::ChunkCoord, client::Chunk> snapshot() {
    std::lock_guard lock(mutex);
    return held;
  }
};

}  // namespace chunkforge::test
