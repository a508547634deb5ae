// File: server/session_reactor.h
//
// The Session RPC: one player's view. Reads position updates, writes loads (nearest to the
// latest position first) and unloads, keeps at most kInFlight generations per session, and
// drops what left the view. Loads are written as SessionEvent{load: <cached chunk bytes>}
// without re-encoding the chunk.
#pragma once

#include <grpcpp/grpcpp.h>

namespace chunkforge::server {

class WorldService;

grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>* start_session(WorldService& service,
                                                                          grpc::CallbackServerContext* context);

}  // namespace chunkforge::server
