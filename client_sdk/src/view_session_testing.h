// File: client_sdk/src/view_session_testing.h
//
// A test's way into a ViewSession: private to the SDK's own tests (this header is not
// installed), to show what the session does when its copy of a chunk is not the server's, and
// what it does with and without the server's batches of unloads.
#pragma once

#include <functional>

#include "chunkforge/client/view_session.h"
#include "chunkforge/v1/chunk.pb.h"

namespace chunkforge::client {

struct ViewSessionTesting {
  // Rewrites the session's loaded copy of `c` with `edit`, without telling the game (a copy
  // gone wrong). False if `c` is not loaded.
  static bool rewrite_copy(ViewSession& session, ChunkCoord c, const std::function<void(v1::Chunk&)>& edit);
  // Whether the streams sessions open from now on ask for unload batches
  // (SessionUpdate.accept_unload_batches): always, but for a test comparing what the game sees
  // with and without them.
  static void accept_unload_batches(bool accept);
};

}  // namespace chunkforge::client
