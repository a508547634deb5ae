// Conversions from resolved world-definition messages (defaults applied) to the plain
// parameters generation reads. Internal to lib/.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "chunkforge/noise.h"
#include "chunkforge/terrain.h"
#include "chunkforge/v1/world.pb.h"

namespace chunkforge {

inline Fractal to_fractal(const v1::NoiseField& f, uint64_t seed, Salt salt) {
  FractalSpec spec;
  spec.kind = f.kind() == v1::NoiseField::simplex ? NoiseKind::kSimplex : NoiseKind::kPerlin;
  spec.octaves = static_cast<int>(f.octaves());
  spec.lacunarity = f.lacunarity();
  spec.gain = f.gain();
  spec.frequency = f.frequency();
  spec.amplitude = f.amplitude();
  spec.offset = f.offset();
  return Fractal(spec, seed, salt);
}

// Sorted ids (list positions) of the entries of `list` named in `names` (names already
// validated to exist). E.g. ids_by_name(def.biomes(), layer.biomes()).
template <typename List, typename Names>
std::vector<uint32_t> ids_by_name(const List& list, const Names& names) {
  std::vector<uint32_t> ids;
  for (const std::string& name : names) {
    for (int id = 0; id < list.size(); ++id) {
      if (list.Get(id).name() == name) ids.push_back(static_cast<uint32_t>(id));
    }
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

}  // namespace chunkforge
