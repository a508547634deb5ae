// A scatter candidate (a dart: position in its cell, arrival time) and the random draws it is
// made of. Shared by the method records (which candidates a cell gets) and the field (which of
// them are accepted). Internal to lib/.
#pragma once

#include <cstdint>

#include "chunkforge/hash.h"
#include "scatter/constants.h"

namespace chunkforge::scatter {

// Arrival times carry the dart's round (its index k) in their top four bits.
constexpr int kRoundShift = 60;
static_assert(kDartsPerCell <= 16, "the round is 4 bits of t");

// 16 bytes: a memo holds hundreds of thousands of them, and their memory is touched as it is
// made (what a candidate's decision remembers lives in its cell).
struct Candidate {
  uint64_t t;     // arrival time; its top bits are the dart's index k (arrival_time)
  uint32_t u, v;  // position in the cell, units of 2^-24 scatter-cell side (< span * 2^24)
  // The dart's index among the cell's kDartsPerCell darts.
  uint32_t k() const { return static_cast<uint32_t>(t >> kRoundShift); }
};

// The random draws of one cell's candidates. One hash per cell (two mixes over the layer's
// seed); each candidate k then costs one mix for its position and one for its arrival time
// (counter-based: never a stream across cells).
class CellDraws {
 public:
  CellDraws(uint64_t layer_seed, int64_t i, int64_t j, int span)
      : cell_hash_(mix64(mix64(layer_seed ^ (static_cast<uint64_t>(i) * 0x9e3779b97f4a7c15ULL)) ^
                         (static_cast<uint64_t>(j) * 0xc2b2ae3d27d4eb4fULL) ^ static_cast<uint64_t>(span))) {}
  // The draws of a cell whose hash() was kept.
  explicit CellDraws(uint64_t cell_hash) : cell_hash_(cell_hash) {}
  uint64_t hash() const { return cell_hash_; }
  // Candidate k's 64 random bits (position, arrival time).
  uint64_t bits(uint64_t k) const { return mix64(cell_hash_ + (k + 1) * 0x9e3779b97f4a7c15ULL); }
  // Eight 8-bit thinning draws, for candidates 8 * group ... 8 * group + 7: byte k % 8 of the
  // result, read as a fraction of 256 (ample resolution for a keep probability).
  uint64_t thinning_group(uint32_t group) const { return mix64(cell_hash_ ^ (kThinSalt.value + group)); }
  static double thinning(uint64_t group_bits, uint32_t k) {
    return static_cast<double>((group_bits >> (8 * (k % 8))) & 0xff) / 256.0;
  }
  double thinning(uint32_t k) const { return thinning(thinning_group(k / 8), k); }

 private:
  uint64_t cell_hash_;
};

// Candidate k's arrival time, from its random bits. Arrival times are stratified: candidate k
// of every cell arrives in round k (the top four bits), in random order within the round. A
// cell's candidates are thus already in time order, and the process is still sequential dart
// throwing in one global order.
inline uint64_t arrival_time(uint32_t k, uint64_t bits) {
  return (static_cast<uint64_t>(k) << kRoundShift) | (mix64(bits ^ kTimeSalt.value) >> 4);
}

}  // namespace chunkforge::scatter
