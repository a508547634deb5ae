// File: chunkforge/world_fingerprint.h
//
// The world fingerprint: 16 hex digits that every chunk carries (Chunk.world_fingerprint), so
// part of every chunk's bytes. It hashes the resolved definition in a canonical form that this
// code writes itself, by the rules of docs/determinism.md ("The world fingerprint"), never
// through protobuf's serializer, whose output is not a stable contract.
//
//   std::string fp = world_fingerprint(resolved);  // what World::fingerprint() returns
//
// Form 1 (generator version 1): the fields of a message in field-number order, each encoded as
// proto3's binary wire format encodes it (so, for every field of today's world.proto, exactly
// the bytes protobuf 3.21 wrote when form 1 was frozen), and a field stays out when it is
// absent, at protobuf's zero, or at its declared default (world.proto's fingerprint_default
// option). Works on any message through its descriptor, so tests can run it on extended schemas.
//
// Pure; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <google/protobuf/message.h>

#include "chunkforge/v1/world.pb.h"

namespace chunkforge {

// The canonical form's version. A form is frozen per generator version: the fingerprint is in
// every chunk's bytes, which may change only with a new generator version.
inline constexpr int kFingerprintForm1 = 1;

// The form that worlds of this (resolved) generator version are fingerprinted with.
int fingerprint_form(uint32_t generator_version);

// Form 1's bytes of a message (a resolved WorldDefinition, or any message without maps).
std::string fingerprint_form1_bytes(const google::protobuf::Message& message);

// 16 hex digits hashing a canonical form's bytes.
std::string fingerprint_of(std::string_view form_bytes);

// The fingerprint of a resolved definition (apply_defaults already run) in its form.
std::string world_fingerprint(const v1::WorldDefinition& resolved);

}  // namespace chunkforge
