// apply_defaults: every absent field at its default, after validation. Defaults that are plain
// values are declared once, in world.proto's knobs (apply_declared_defaults); here are only the
// defaults computed from other fields, which a knob names in its default_rule.
#include "chunkforge/world.h"
#include "world_knobs.h"

namespace chunkforge {

void apply_defaults(v1::WorldDefinition& def) {
  apply_declared_defaults(def);
  if (def.generator_version() == 0) def.set_generator_version(kGeneratorVersion);
  for (v1::ResourceLayer& r : *def.mutable_resources()) {
    // A method-specific knob is filled only for its method (validation rejects it on others).
    if (r.method() == v1::ResourceLayer::noise_peaks && r.peak_window() == 0) {
      r.set_peak_window(4.0 * r.spacing_scale());
    }
  }
  for (v1::Structure& s : *def.mutable_structures()) {
    v1::Range& depth = *s.mutable_depth();
    if (!depth.has_min()) depth.set_min(0.0);
    if (!depth.has_max()) depth.set_max(depth.min());
  }
}

}  // namespace chunkforge
