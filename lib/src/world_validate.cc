// Semantic validation of a world definition: every rule of world.proto's comments, all errors
// at once, each naming the JSON field path and the reason. Input quoted in a message goes
// through quote_input, so that no name can put control characters into an error.
#include <cctype>
#include <charconv>
#include <cmath>
#include <set>
#include <string>

#include "chunkforge/float_environment.h"
#include "chunkforge/noise.h"
#include "chunkforge/quote.h"
#include "chunkforge/resource_layer.h"
#include "chunkforge/world.h"
#include "chunkforge/world_limits.h"

namespace chunkforge {
namespace {

std::string num(double v) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, end) : std::string("?");
}

std::string at(const std::string& path, const char* field) { return path + "." + field; }
std::string at(const std::string& path, int index) {
  return path + "[" + std::to_string(index) + "]";
}

bool valid_name(const std::string& s) {
  if (s.empty() || s[0] < 'a' || s[0] > 'z') return false;
  for (char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

bool valid_color(const std::string& s) {
  if (s.size() != 7 || s[0] != '#') return false;
  for (size_t i = 1; i < 7; ++i) {
    if (!std::isxdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  return true;
}

bool range_empty(const v1::Range& r) { return !r.has_min() && !r.has_max(); }

class Validator {
 public:
  explicit Validator(const v1::WorldDefinition& def) : def_(def) {
    for (const auto& b : def.biomes()) biome_names_.insert(b.name());
    for (const auto& m : def.materials()) material_names_.insert(m.name());
  }

  std::vector<FieldError> run() {
    world();
    return std::move(errors_);
  }

 private:
  void error(const std::string& path, std::string message) {
    errors_.push_back(FieldError{path, std::move(message)});
  }

  // v must lie in [lo, hi]; `lo_open` / `hi_open` exclude the bound.
  bool in_range(const std::string& path, double v, double lo, double hi, bool lo_open = false,
                bool hi_open = false) {
    const bool ok = std::isfinite(v) && (lo_open ? v > lo : v >= lo) && (hi_open ? v < hi : v <= hi);
    if (!ok) {
      error(path, "must be in " + std::string(lo_open ? "(" : "[") + num(lo) + ", " + num(hi) +
                      (hi_open ? ")" : "]") + " (got " + num(v) + ")");
    }
    return ok;
  }

  void required_positive(const std::string& path, double v, double hi, const char* what) {
    if (v == 0) {
      error(path, std::string("required: ") + what + ", in (0, " + num(hi) + "]");
    } else {
      in_range(path, v, 0, hi, /*lo_open=*/true);
    }
  }

  // Each present bound finite and within [lo, hi]; min <= max.
  void range(const std::string& path, const v1::Range& r, double lo = -1e9, double hi = 1e9) {
    bool ok = true;
    if (r.has_min()) ok &= in_range(at(path, "min"), r.min(), lo, hi);
    if (r.has_max()) ok &= in_range(at(path, "max"), r.max(), lo, hi);
    if (ok && r.has_min() && r.has_max() && r.min() > r.max()) {
      error(path, "min must be <= max (got min " + num(r.min()) + ", max " + num(r.max()) + ")");
    }
  }

  // A list of `count` entries holds at most `limit`; `what` names the entries.
  bool at_most(const std::string& path, int count, int limit, const char* what) {
    if (count <= limit) return true;
    error(path, "at most " + std::to_string(limit) + " " + what + " (got " + std::to_string(count) + ")");
    return false;
  }

  void name_and_color(const std::string& path, const std::string& name, const std::string& color,
                      std::set<std::string>& seen) {
    if (name.size() > kMaxNameLength) {
      error(at(path, "name"), "at most " + std::to_string(kMaxNameLength) + " characters (got " +
                                  std::to_string(name.size()) + ": " + quote_input(name) + ")");
    } else if (!valid_name(name)) {
      error(at(path, "name"), "must match [a-z][a-z0-9_]* (got " + quote_input(name) + ")");
    } else if (!seen.insert(name).second) {
      error(at(path, "name"), "duplicate name " + quote_input(name));
    }
    if (!valid_color(color)) error(at(path, "color"), "must be \"#rrggbb\" (got " + quote_input(color) + ")");
  }

  template <typename Names>
  void references(const std::string& path, const Names& names, const std::set<std::string>& known,
                  const char* kind) {
    if (!at_most(path, names.size(), kMaxNamesPerList, "names")) return;
    for (int i = 0; i < names.size(); ++i) {
      if (!known.count(names.Get(i))) {
        error(at(path, i), std::string("unknown ") + kind + " " + quote_input(names.Get(i)));
      }
    }
  }

  void noise(const std::string& path, const v1::NoiseField& f) {
    if (!v1::NoiseField::Kind_IsValid(f.kind())) {
      error(at(path, "kind"), "must be one of perlin, simplex (got " + std::to_string(f.kind()) + ")");
    }
    if (f.octaves() != 0) in_range(at(path, "octaves"), f.octaves(), 1, 16);
    if (f.has_lacunarity()) in_range(at(path, "lacunarity"), f.lacunarity(), 1.1, 4);
    if (f.has_gain()) in_range(at(path, "gain"), f.gain(), 0, 1, /*lo_open=*/true);
    required_positive(at(path, "frequency"), f.frequency(), 1, "cycles per world unit");
    if (f.has_amplitude()) in_range(at(path, "amplitude"), f.amplitude(), 0, 1e6);
    in_range(at(path, "offset"), f.offset(), -1e6, 1e6);
    // Keeps lattice coordinates of the finest octave far inside int64 at |x| = 2^40. Computed
    // by the function Fractal computes its octaves with: std::pow rounds differently from the
    // repeated product, which let a world through whose finest octave exceeds the limit.
    if (f.octaves() > 16) return;  // reported above; no point multiplying that often
    FractalSpec spec;
    spec.octaves = f.octaves() != 0 ? static_cast<int>(f.octaves()) : 4;
    spec.lacunarity = f.has_lacunarity() ? f.lacunarity() : 2.0;
    spec.frequency = f.frequency();
    const double finest = octave_frequencies(spec).back();
    if (std::isfinite(finest) && finest > 64) {
      error(path, "finest octave frequency (frequency * lacunarity^(octaves-1)) must be <= 64 (got " +
                      num(finest) + ")");
    }
  }

  void required_noise(const std::string& path, bool present, const v1::NoiseField& f) {
    if (!present) {
      error(path, "required");
    } else {
      noise(path, f);
    }
  }

  void world() {
    const uint32_t v = def_.generator_version();
    if (v != 0 && (v < kOldestGeneratorVersion || v > kGeneratorVersion)) {
      error("generator_version", "unknown version " + std::to_string(v) + "; this build knows " +
                                     std::to_string(kOldestGeneratorVersion) + ".." +
                                     std::to_string(kGeneratorVersion) + " (0: newest)");
    }
    if (def_.chunk_size() != 0) in_range("chunk_size", def_.chunk_size(), 16, 1024);
    sizes();
    terrain();
    biomes();
    materials();
    resources();
    structures();
    // The cost rules compile the layers as generation does, which needs a valid definition.
    if (errors_.empty()) resource_costs();
  }

  // Limits on the definition as a whole: its encoding and its free-text name.
  void sizes() {
    const size_t bytes = def_.ByteSizeLong();
    if (bytes > kMaxDefinitionBytes) {
      error("", "the definition's protobuf encoding must be at most " + std::to_string(kMaxDefinitionBytes) +
                    " bytes (got " + std::to_string(bytes) + ")");
    }
    if (def_.name().size() > kMaxWorldNameBytes) {
      error("name", "at most " + std::to_string(kMaxWorldNameBytes) + " bytes (got " +
                        std::to_string(def_.name().size()) + ")");
    }
  }

  void terrain() {
    if (!def_.has_terrain()) {
      error("terrain", "required");
      return;
    }
    const v1::Terrain& t = def_.terrain();
    required_noise("terrain.elevation", t.has_elevation(), t.elevation());
    required_noise("terrain.temperature", t.has_temperature(), t.temperature());
    required_noise("terrain.moisture", t.has_moisture(), t.moisture());
    in_range("terrain.sea_level", t.sea_level(), -1e6, 1e6);
    if (t.has_caves()) {
      const v1::Caves& c = t.caves();
      required_noise("terrain.caves.noise", c.has_noise(), c.noise());
      in_range("terrain.caves.threshold", c.threshold(), -1e6, 1e6);
      if (c.has_strength()) in_range("terrain.caves.strength", c.strength(), 0, 1e6, true);
    }
  }

  void biomes() {
    if (def_.biomes_size() == 0) {
      error("biomes", "at least one biome is required");
      return;
    }
    if (!at_most("biomes", def_.biomes_size(), kMaxBiomes, "biomes")) return;
    std::set<std::string> seen;
    for (int i = 0; i < def_.biomes_size(); ++i) {
      const v1::Biome& b = def_.biomes(i);
      const std::string p = at("biomes", i);
      name_and_color(p, b.name(), b.color(), seen);
      range(at(p, "elevation"), b.elevation());
      range(at(p, "temperature"), b.temperature());
      range(at(p, "moisture"), b.moisture());
    }
    const v1::Biome& last = def_.biomes(def_.biomes_size() - 1);
    if (!range_empty(last.elevation()) || !range_empty(last.temperature()) ||
        !range_empty(last.moisture())) {
      error(at("biomes", def_.biomes_size() - 1),
            "the last biome must have no ranges, so that every point has a biome");
    }
  }

  void materials() {
    if (def_.materials_size() == 0) {
      error("materials", "at least one material is required");
      return;
    }
    if (!at_most("materials", def_.materials_size(), kMaxMaterials, "materials")) return;
    int octaves = 0;
    for (const v1::Material& m : def_.materials()) {
      // Counted only when in range, so that one absurd count is reported once, at its field.
      if (m.has_noise() && m.noise().octaves() <= 16) octaves += m.noise().octaves() != 0 ? m.noise().octaves() : 4;
    }
    at_most("materials", octaves, kMaxMaterialNoiseOctaves, "detail-noise octaves summed over all materials");
    std::set<std::string> seen;
    for (int i = 0; i < def_.materials_size(); ++i) {
      const v1::Material& m = def_.materials(i);
      const std::string p = at("materials", i);
      name_and_color(p, m.name(), m.color(), seen);
      range(at(p, "elevation"), m.elevation());
      range(at(p, "temperature"), m.temperature());
      range(at(p, "moisture"), m.moisture());
      range(at(p, "slope"), m.slope(), 0, 1e6);
      references(at(p, "biomes"), m.biomes(), biome_names_, "biome");
      if (m.has_noise() != m.has_noise_range()) {
        error(at(p, m.has_noise() ? "noise_range" : "noise"),
              "noise and noise_range go together: give both or neither");
      }
      if (m.has_noise()) noise(at(p, "noise"), m.noise());
      range(at(p, "noise_range"), m.noise_range());
    }
    const v1::Material& last = def_.materials(def_.materials_size() - 1);
    if (!range_empty(last.elevation()) || !range_empty(last.temperature()) ||
        !range_empty(last.moisture()) || !range_empty(last.slope()) || last.biomes_size() > 0 ||
        last.has_noise()) {
      error(at("materials", def_.materials_size() - 1),
            "the last material must have no conditions, so that every point has a material");
    }
  }

  void resources() {
    if (!at_most("resources", def_.resources_size(), kMaxResourceLayers, "layers")) return;
    std::set<std::string> seen, layer_names;
    for (const auto& r : def_.resources()) layer_names.insert(r.name());
    for (int i = 0; i < def_.resources_size(); ++i) {
      const v1::ResourceLayer& r = def_.resources(i);
      const std::string p = at("resources", i);
      name_and_color(p, r.name(), r.color(), seen);
      if (!v1::ResourceLayer::Method_IsValid(r.method())) {
        error(at(p, "method"), "must be one of blue_noise, jittered_grid, noise_probability, noise_peaks, "
                               "uniform (got " + std::to_string(r.method()) + ")");
      }
      const bool density_ok = density(p, r);
      required_positive(at(p, "sparsity"), r.sparsity(), 1, "density noise cycles per world unit");
      if (r.has_sharpness()) in_range(at(p, "sharpness"), r.sharpness(), 0.1, 16);
      if (r.octaves() != 0) in_range(at(p, "octaves"), r.octaves(), 1, 8);
      spacing(p, r, density_ok);
      required_positive(at(p, "footprint_radius"), r.footprint_radius(), 64, "world units");
      references(at(p, "biomes"), r.biomes(), biome_names_, "biome");
      references(at(p, "materials"), r.materials(), material_names_, "material");
      range(at(p, "elevation"), r.elevation());
      if (r.has_max_slope()) in_range(at(p, "max_slope"), r.max_slope(), 0, 1e6);
      if (r.has_correlate_with()) correlation(at(p, "correlate_with"), r, layer_names);
      method_knobs(p, r);
      if (r.variants() != 0) in_range(at(p, "variants"), r.variants(), 1, 256);
    }
  }

  // density_range and density_threshold; whether the range's present bounds are usable.
  bool density(const std::string& p, const v1::ResourceLayer& r) {
    const std::string dr = at(p, "density_range");
    const v1::Range& d = r.density_range();
    if (!d.has_min()) error(at(dr, "min"), "required");
    if (!d.has_max()) error(at(dr, "max"), "required");
    bool density_ok = true;
    if (d.has_min()) density_ok &= in_range(at(dr, "min"), d.min(), 0, 16, /*lo_open=*/true);
    if (d.has_max()) density_ok &= in_range(at(dr, "max"), d.max(), 0, 16, /*lo_open=*/true);
    if (density_ok && d.min() > d.max()) {
      error(dr, "min must be <= max (got min " + num(d.min()) + ", max " + num(d.max()) + ")");
    } else if (density_ok && d.has_min() && d.has_max() && d.max() > kMaxDensityRatio * d.min()) {
      // The neighbour search of a layer reaches its largest spacing, counted in cells of its
      // smallest: a wider range makes every dense object scan a sparse area's worth of cells.
      error(dr, "max must be at most " + num(kMaxDensityRatio) + " times min (got min " + num(d.min()) +
                    ", max " + num(d.max()) + ")");
    }
    if (density_ok && d.has_max()) in_range(at(p, "density_threshold"), r.density_threshold(), 0, d.max());
    return density_ok;
  }

  void spacing(const std::string& p, const v1::ResourceLayer& r, bool density_ok) {
    if (r.spacing_scale() == 0) {
      error(at(p, "spacing_scale"), "required: world units between objects at density 1, in [0.5, 256]");
    } else {
      in_range(at(p, "spacing_scale"), r.spacing_scale(), 0.5, 256);
    }
    // Spacing bounds keep a layer's scatter grid and its reach across chunks sensible.
    if (density_ok && r.density_range().has_min() && r.density_range().has_max() && r.spacing_scale() > 0) {
      const double r_min = r.spacing_scale() / r.density_range().max();
      const double r_max = r.spacing_scale() / r.density_range().min();
      if (r_min < 0.5) {
        error(at(p, "spacing_scale"), "smallest spacing spacing_scale / density_range.max must be >= 0.5 "
                                      "world units (got " + num(r_min) + ")");
      }
      if (r_max > 128) {
        error(at(p, "spacing_scale"), "largest spacing spacing_scale / density_range.min must be <= 128 "
                                      "world units (got " + num(r_max) + ")");
      }
    }
  }

  // Knobs that only one scatter method reads.
  void method_knobs(const std::string& p, const v1::ResourceLayer& r) {
    if (r.has_jitter()) {
      if (r.method() != v1::ResourceLayer::jittered_grid) {
        error(at(p, "jitter"), "only used by method jittered_grid");
      } else {
        in_range(at(p, "jitter"), r.jitter(), 0, 0.5);
      }
    }
    if (r.peak_window() != 0) {
      if (r.method() != v1::ResourceLayer::noise_peaks) {
        error(at(p, "peak_window"), "only used by method noise_peaks");
      } else {
        in_range(at(p, "peak_window"), r.peak_window(), 1, 1024);
      }
    }
  }

  // The layers' cost rules (world_limits.h), on the layers compiled as generation compiles
  // them, so that cell counts and spacings are exactly the ones generation will use.
  void resource_costs() {
    v1::WorldDefinition resolved = def_;
    apply_defaults(resolved);
    const ResourceLayers layers(resolved);
    double cells = 0;
    for (const ResourceLayer& l : layers.all()) {
      cells += static_cast<double>(l.cells_per_chunk) * l.cells_per_chunk;
      footprint_crowding(layers, l);
    }
    const double cost = static_cast<double>(layers.size()) * cells;
    if (cost > kMaxScatterCost) {
      error("resources", "scatter cost (layers x scatter cells per chunk of all layers) must be at most " +
                             num(kMaxScatterCost) + " (got " + std::to_string(layers.size()) + " x " + num(cells) +
                             " = " + num(cost) + "); use fewer or sparser layers, or a smaller chunk_size");
    }
  }

  // The spacing of a layer's objects at its densest, as the footprint rule counts it.
  static double densest_spacing(const ResourceLayer& l) {
    return l.method == ScatterMethod::kNoisePeaks ? l.peak_window : l.r_min();
  }

  // An object must keep its footprint plus theirs clear of every other layer's objects; when
  // that clearance holds many of them, the layer is almost always blocked and deciding it
  // explores ever larger areas (measured: seconds and GBs for one chunk).
  void footprint_crowding(const ResourceLayers& layers, const ResourceLayer& l) {
    double crowding = 0, worst = 0;
    const ResourceLayer* worst_layer = nullptr;
    for (const ResourceLayer& other : layers.all()) {
      if (other.id == l.id) continue;
      const double ratio = (l.footprint + other.footprint) / densest_spacing(other);
      crowding += ratio * ratio;
      if (ratio * ratio > worst) {
        worst = ratio * ratio;
        worst_layer = &other;
      }
    }
    if (crowding > kMaxFootprintCrowding) {
      error(at(at("resources", static_cast<int>(l.id)), "footprint_radius"),
            "footprint crowding (sum over the other layers of ((footprint_radius + theirs) / their smallest "
            "spacing)^2) must be at most " + num(kMaxFootprintCrowding) + " (got " + num(crowding) +
                "; most from layer " + quote_input(worst_layer->name) + ")");
    }
  }

  void correlation(const std::string& path, const v1::ResourceLayer& r,
                   const std::set<std::string>& layer_names) {
    const v1::Correlation& c = r.correlate_with();
    const std::string lp = at(path, "layer");
    if (c.layer() == r.name()) {
      error(lp, "a layer cannot correlate with itself");
    } else if (!layer_names.count(c.layer())) {
      error(lp, "unknown resource layer " + quote_input(c.layer()));
    } else {
      for (const auto& other : def_.resources()) {
        if (other.name() == c.layer() && other.has_correlate_with()) {
          error(lp, "layer " + quote_input(c.layer()) + " correlates with another layer itself; chains are not supported");
        }
      }
    }
    required_positive(at(path, "weight"), c.weight(), 1, "share of the other layer's density");
  }

  void structures() {
    if (!at_most("structures", def_.structures_size(), kMaxStructures, "structures")) return;
    std::set<std::string> seen;
    const double chunk = def_.chunk_size() != 0 ? def_.chunk_size() : 64;
    for (int i = 0; i < def_.structures_size(); ++i) {
      const v1::Structure& s = def_.structures(i);
      const std::string p = at("structures", i);
      name_and_color(p, s.name(), s.color(), seen);
      in_range(at(p, "size_x"), s.size_x(), 1, 16 * chunk);
      in_range(at(p, "size_z"), s.size_z(), 1, 16 * chunk);
      // Tilted onto its side, a structure's height becomes a footprint side.
      in_range(at(p, "height"), s.height(), 1, s.allow_tilt() ? 16 * chunk : 4096);
      required_positive(at(p, "frequency"), s.frequency(), 1, "share of offered origins taken");
      references(at(p, "biomes"), s.biomes(), biome_names_, "biome");
      if (at_most(at(p, "checks"), s.checks_size(), kMaxChecksPerStructure, "checks")) {
        for (int c = 0; c < s.checks_size(); ++c) check(at(at(p, "checks"), c), s.checks(c));
      }
      yaw_degrees(p, s);
      range(at(p, "depth"), s.depth(), 0, 4096);
      surface_falloff(p, s);
      in_range(at(p, "padding"), s.padding(), 0, 64);
    }
  }

  void yaw_degrees(const std::string& p, const v1::Structure& s) {
    if (!at_most(at(p, "yaw_degrees"), s.yaw_degrees_size(), kMaxYawAngles, "angles")) return;
    std::set<uint32_t> yaws;
    for (int y = 0; y < s.yaw_degrees_size(); ++y) {
      const uint32_t yaw = s.yaw_degrees(y);
      const std::string yp = at(at(p, "yaw_degrees"), y);
      if (yaw % 90 != 0 || yaw >= 360) {
        error(yp, "must be one of 0, 90, 180, 270 (got " + std::to_string(yaw) + ")");
      } else if (!yaws.insert(yaw).second) {
        error(yp, "duplicate angle " + std::to_string(yaw));
      }
    }
  }

  void surface_falloff(const std::string& p, const v1::Structure& s) {
    if (!at_most(at(p, "surface_falloff"), s.surface_falloff_size(), kMaxFalloffPoints, "points")) return;
    for (int k = 0; k < s.surface_falloff_size(); ++k) {
      const v1::CurvePoint& c = s.surface_falloff(k);
      const std::string cp = at(at(p, "surface_falloff"), k);
      in_range(at(cp, "x"), c.x(), 0, 4096);
      in_range(at(cp, "y"), c.y(), 0, 1);
      if (k > 0 && !(c.x() > s.surface_falloff(k - 1).x())) {
        error(at(cp, "x"), "must be greater than the previous point's x (" +
                               num(s.surface_falloff(k - 1).x()) + ")");
      }
    }
  }

  void check(const std::string& path, const v1::Check& c) {
    in_range(at(path, "offset.x"), c.offset().x(), -1e5, 1e5);
    in_range(at(path, "offset.y"), c.offset().y(), -1e5, 1e5);
    in_range(at(path, "offset.z"), c.offset().z(), -1e5, 1e5);
    range(at(path, "density"), c.density());
    references(at(path, "materials"), c.materials(), material_names_, "material");
    references(at(path, "biomes"), c.biomes(), biome_names_, "biome");
    range(at(path, "slope"), c.slope(), 0, 1e6);
    range(at(path, "elevation"), c.elevation());
  }

  const v1::WorldDefinition& def_;
  std::set<std::string> biome_names_, material_names_;
  std::vector<FieldError> errors_;
};

}  // namespace

std::vector<FieldError> validate_world(const v1::WorldDefinition& definition) {
  // Limits are computed as generation computes them, so in the same environment.
  const FloatEnvironmentGuard fp_guard;
  return Validator(definition).run();
}

}  // namespace chunkforge
