// File: tools/loadgen/session_players.h
//
// The load generator's session modes (session, local, local-generate): each player a Session
// callback reactor, a few driver threads walking them all.
#pragma once

#include <memory>
#include <vector>

#include "chunkforge/v1/service.grpc.pb.h"
#include "local_players.h"
#include "walk.h"

namespace chunkforge::loadgen {

// Drives the session players p with p % stride == first: opens each at its join time, moves it at
// each of its steps, asleep until the next one is due, and ends them all at `end`. A few such
// threads walk every player: with one thread per player, 2,000 players were 2,000 threads created
// in the same half second and woken at every step, on the cores of the server being measured.
void drive_sessions(const std::vector<std::unique_ptr<v1::WorldService::Stub>>& stubs, int first, int stride,
                    const Options& o, Clock::time_point start, Clock::time_point end, Results& r,
                    const v1::LocalGeneration* local, GenerationPool* pool);

}  // namespace chunkforge::loadgen
