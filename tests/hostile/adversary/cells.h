// File: tests/hostile/adversary/cells.h
//
// The cells of the generated adversary's matrix: a method, a behaviour, a store state and, for
// the method whose input streams (Session), a session kind; and what each cell sends.
//
// Session kinds, from SessionUpdate's fields: server_chunks (no local_generation, no LOD),
// local_generation (the published capability declared, so the server sends offsets), lod_server
// (lod_radius at its maximum: tiles made by the server) and lod_client (the same, with
// local_generation.generates_tiles: the client makes its pristine tiles). A bogus-capability
// cell keeps its junk declaration and takes only the kind's LOD radius.
//
// Each selection starts with a control cell: no attack, on the first store state's server, so
// that a reader sees what the machine gives the good clients alone (on a machine that others
// load, that alone can break the latency bounds).
//
// Three selections: the full product; the short one for the test suite, where every method x
// behaviour pair appears once, the store states rotate so that every method and every
// behaviour meets each state, and the Session cells rotate the kinds (pairwise coverage, 49
// cells); and a tiny slice for sanitizer runs (one cell per behaviour, methods in turn, empty
// store).
#pragma once

#include <string>
#include <vector>

#include "attacks.h"
#include "derive.h"
#include "store_states.h"

namespace chunkforge::hostile::adversary {

enum class SessionKind { none, server_chunks, local_generation, lod_server, lod_client };
inline constexpr SessionKind kSessionKinds[] = {SessionKind::server_chunks, SessionKind::local_generation,
                                                SessionKind::lod_server, SessionKind::lod_client};
const char* kind_name(SessionKind kind);

struct Cell {
  std::string method;  // empty for the control cell
  Behaviour behaviour = Behaviour::floods;
  StoreState store = StoreState::empty;
  SessionKind kind = SessionKind::none;  // the streamed-input method's cells only
  std::string name() const;              // "Session x never_reads / snapshots / lod_client"
};

std::vector<Cell> full_cells(const std::vector<Method>& methods);
std::vector<Cell> short_cells(const std::vector<Method>& methods);
std::vector<Cell> sanitizer_cells(const std::vector<Method>& methods);

// What the cell's attackers send, from the method's derived inputs.
CallPlan plan_for(const Cell& cell, const MethodInputs& inputs);

}  // namespace chunkforge::hostile::adversary
