// A world definition at every limit of chunkforge/world_limits.h at once: the largest valid
// definition the tests can build and, for its cost, an expensive world to generate.
//
// Every list holds its maximum count, every name its maximum length, one entry of each kind
// carries a full list of names, terrain noises have 16 octaves, the detail noises use the
// whole octave budget, and the 64 resource layers (all filtered, so every candidate samples the
// terrain) take the whole scatter cost and nearly all the footprint crowding allowed.
#pragma once

#include <string>

#include "chunkforge/v1/world.pb.h"
#include "chunkforge/world_limits.h"

namespace chunkforge::test {

// "<prefix><index>" padded with 'x' to the longest name allowed.
inline std::string longest_name(const std::string& prefix, int index) {
  std::string name = prefix + std::to_string(index) + "_";
  name.resize(kMaxNameLength, 'x');
  return name;
}

inline void set_noise(v1::NoiseField& f, double frequency, double amplitude, double offset) {
  f.set_octaves(16);
  f.set_lacunarity(1.1);  // 16 octaves keep the finest one below 64 cycles per unit
  f.set_frequency(frequency);
  f.set_amplitude(amplitude);
  f.set_offset(offset);
}

inline void add_terrain_at_limits(v1::WorldDefinition& d) {
  v1::Terrain& t = *d.mutable_terrain();
  set_noise(*t.mutable_elevation(), 0.004, 48, 6);
  set_noise(*t.mutable_temperature(), 0.0015, 0.5, 0.5);
  set_noise(*t.mutable_moisture(), 0.002, 0.5, 0.5);
  set_noise(*t.mutable_caves()->mutable_noise(), 0.03, 1, 0);
  t.mutable_caves()->set_threshold(0.45);
  t.mutable_caves()->set_strength(20);
}

// Biomes and materials: all but the last unreachable (ranges far above the terrain), so the
// classification walks every rule; detail noises on the first materials.
inline void add_biomes_and_materials_at_limits(v1::WorldDefinition& d) {
  for (int i = 0; i < kMaxBiomes; ++i) {
    v1::Biome& b = *d.add_biomes();
    b.set_name(longest_name("biome", i));
    b.set_color("#112233");
    if (i + 1 < kMaxBiomes) b.mutable_elevation()->set_min(1e5 + i);
  }
  const int noisy = kMaxMaterialNoiseOctaves / 16;
  for (int i = 0; i < kMaxMaterials; ++i) {
    v1::Material& m = *d.add_materials();
    m.set_name(longest_name("material", i));
    m.set_color("#445566");
    if (i + 1 == kMaxMaterials) break;
    if (i < noisy) {
      set_noise(*m.mutable_noise(), 0.03, 1, 0);
      m.mutable_noise_range()->set_min(2);  // never reached: the noise is always evaluated
    } else {
      m.mutable_elevation()->set_min(1e5 + i);
    }
  }
  for (const v1::Biome& b : d.biomes()) d.mutable_materials(0)->add_biomes(b.name());
}

// 64 layers in 64-unit chunks: spacing 30 gives 4 x 4 scatter cells a chunk, 64 x 64 x 16 =
// the whole scatter cost; footprints of 2.6 give a crowding of 63 x (5.2 / 30)^2 = 1.89.
inline void add_resources_at_limits(v1::WorldDefinition& d) {
  const std::string& last_biome = d.biomes(kMaxBiomes - 1).name();
  const std::string& last_material = d.materials(kMaxMaterials - 1).name();
  for (int i = 0; i < kMaxResourceLayers; ++i) {
    v1::ResourceLayer& r = *d.add_resources();
    r.set_name(longest_name("layer", i));
    r.set_color("#0b4d16");
    r.mutable_density_range()->set_min(0.25);
    r.mutable_density_range()->set_max(1);
    r.set_sparsity(0.01);
    r.set_spacing_scale(30);
    r.set_footprint_radius(2.6);
    r.set_max_slope(100);
    r.add_biomes(last_biome);
    r.add_materials(last_material);
  }
  v1::ResourceLayer& full = *d.mutable_resources(0);
  full.clear_biomes();
  full.clear_materials();
  for (const v1::Biome& b : d.biomes()) full.add_biomes(b.name());
  for (const v1::Material& m : d.materials()) full.add_materials(m.name());
}

inline void add_structure_at_limits(v1::WorldDefinition& d, int i) {
  v1::Structure& s = *d.add_structures();
  s.set_name(longest_name("structure", i));
  s.set_color("#4a6fa5");
  const double side = 16.0 * (i + 1);  // every level of detail up to 16 chunks
  s.set_size_x(side);
  s.set_size_z(side);
  s.set_height(8);
  s.set_frequency(1.0 / kMaxStructures);
  s.set_padding(64);
  s.set_allow_tilt(i % 2 == 1);
  for (uint32_t yaw : {0u, 90u, 180u, 270u}) s.add_yaw_degrees(yaw);
  s.mutable_depth()->set_max(4);
  for (int k = 0; k < kMaxFalloffPoints; ++k) {
    v1::CurvePoint& p = *s.add_surface_falloff();
    p.set_x(k);
    p.set_y(1.0 - k / 32.0);
  }
  for (int k = 0; k < kMaxChecksPerStructure; ++k) {
    v1::Check& c = *s.add_checks();
    c.mutable_offset()->set_x(k);
    c.mutable_offset()->set_y(-1);
    c.mutable_offset()->set_z(k);
    c.mutable_density()->set_min(-1e9);
    c.mutable_slope()->set_max(100);  // a surface condition: every check samples the terrain
  }
}

inline v1::WorldDefinition world_at_limits() {
  v1::WorldDefinition d;
  d.set_name(std::string(kMaxWorldNameBytes, 'w'));
  d.set_seed(20261122);
  add_terrain_at_limits(d);
  add_biomes_and_materials_at_limits(d);
  add_resources_at_limits(d);
  for (int i = 0; i < kMaxStructures; ++i) add_structure_at_limits(d, i);
  v1::Check& full = *d.mutable_structures(0)->mutable_checks(0);
  for (const v1::Biome& b : d.biomes()) full.add_biomes(b.name());
  for (const v1::Material& m : d.materials()) full.add_materials(m.name());
  return d;
}

}  // namespace chunkforge::test
