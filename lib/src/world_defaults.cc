// Documented defaults of world.proto, applied after validation.
#include "chunkforge/world.h"

namespace chunkforge {
namespace {

void default_noise(v1::NoiseField& f) {
  if (f.octaves() == 0) f.set_octaves(4);
  if (!f.has_lacunarity()) f.set_lacunarity(2.0);
  if (!f.has_gain()) f.set_gain(0.5);
  if (!f.has_amplitude()) f.set_amplitude(1.0);
}

}  // namespace

void apply_defaults(v1::WorldDefinition& def) {
  if (def.generator_version() == 0) def.set_generator_version(kGeneratorVersion);
  if (def.chunk_size() == 0) def.set_chunk_size(64);

  v1::Terrain& t = *def.mutable_terrain();
  default_noise(*t.mutable_elevation());
  default_noise(*t.mutable_temperature());
  default_noise(*t.mutable_moisture());
  if (t.has_caves()) {
    default_noise(*t.mutable_caves()->mutable_noise());
    if (!t.caves().has_strength()) t.mutable_caves()->set_strength(1.0);
  }
  for (v1::Material& m : *def.mutable_materials()) {
    if (m.has_noise()) default_noise(*m.mutable_noise());
  }
  for (v1::ResourceLayer& r : *def.mutable_resources()) {
    if (!r.has_sharpness()) r.set_sharpness(1.0);
    if (r.octaves() == 0) r.set_octaves(3);
    // Method-specific knobs are filled only for their method (validation rejects them on others).
    if (r.method() == v1::ResourceLayer::jittered_grid && !r.has_jitter()) r.set_jitter(0.4);
    if (r.method() == v1::ResourceLayer::noise_peaks && r.peak_window() == 0) {
      r.set_peak_window(4.0 * r.spacing_scale());
    }
    if (r.variants() == 0) r.set_variants(1);
  }
  for (v1::Structure& s : *def.mutable_structures()) {
    if (s.yaw_degrees_size() == 0) {
      for (uint32_t yaw : {0u, 90u, 180u, 270u}) s.add_yaw_degrees(yaw);
    }
    v1::Range& depth = *s.mutable_depth();
    if (!depth.has_min()) depth.set_min(0.0);
    if (!depth.has_max()) depth.set_max(depth.min());
  }
}

}  // namespace chunkforge
