// File: chunkforge/hash.h
//
// Counter-based hashing: every random value in chunkforge is a pure function of
// (world seed, named salt, integer coordinates, index). No generator state crosses cells, so
// any chunk can be generated alone, in any order, on any thread (docs/determinism.md, "Randomness").
//
//   constexpr Salt kTreeDarts = salt("resource.darts");
//   uint64_t h = hash(seed, kTreeDarts, cell_x, cell_z, k);
//   double u = unit_double(h);  // in [0, 1)
//
// Salts are named, derived from a string at compile time: never `seed + 1000`.
// All functions are constexpr/inline, pure, and thread-safe.
#pragma once

#include <cstdint>
#include <string_view>

namespace chunkforge {

// SplitMix64's finalizer: a bijection on 64 bits with full avalanche.
constexpr uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// A named purpose for a random stream.
struct Salt {
  uint64_t value;
};

// FNV-1a of the name, then mixed: distinct names give unrelated salts.
constexpr Salt salt(std::string_view name) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : name) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return Salt{mix64(h)};
}

// Hash of a seed, a salt and any number of integer words. Each word goes through the mixer
// (a chain, not a sum), so no two short tuples collide by linear coincidence.
template <typename... Words>
constexpr uint64_t hash(uint64_t seed, Salt s, Words... words) {
  uint64_t h = mix64(seed ^ s.value);
  ((h = mix64(h ^ (static_cast<uint64_t>(words) + 0x9e3779b97f4a7c15ULL))), ...);
  return h;
}

// The top 53 bits as a double in [0, 1): exact, no rounding up to 1.
constexpr double unit_double(uint64_t h) { return static_cast<double>(h >> 11) * 0x1.0p-53; }

// Hash of a byte string (little-endian 8-byte words, then the length), for fingerprints and
// golden checks of encoded output. Independent of the host's byte order.
constexpr uint64_t hash_bytes(uint64_t seed, Salt s, std::string_view bytes) {
  uint64_t h = mix64(seed ^ s.value);
  uint64_t word = 0;
  size_t i = 0;
  for (; i < bytes.size(); ++i) {
    word |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[i])) << (8 * (i % 8));
    if (i % 8 == 7) {
      h = mix64(h ^ (word + 0x9e3779b97f4a7c15ULL));
      word = 0;
    }
  }
  if (i % 8 != 0) h = mix64(h ^ (word + 0x9e3779b97f4a7c15ULL));
  return mix64(h ^ static_cast<uint64_t>(bytes.size()));
}

}  // namespace chunkforge
