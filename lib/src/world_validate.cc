// Semantic validation of a world definition, all errors at once, each naming the JSON field
// path and the reason. Every field's own range, default, presence and scatter method are its
// knob in world.proto, checked by FieldChecker in field-number order; what is here are the
// rules that relate fields (names and references, list limits, ranges that depend on other
// fields, the resource layers' cost rules), each run at its field's place in that order. Input
// quoted in a message goes through quote_input, so that no name can put control characters
// into an error.
#include <cctype>
#include <cmath>
#include <set>
#include <string>

#include "chunkforge/float_environment.h"
#include "chunkforge/noise.h"
#include "chunkforge/quote.h"
#include "chunkforge/resource_layer.h"
#include "chunkforge/world.h"
#include "chunkforge/world_limits.h"
#include "field_checker.h"
#include "world_knobs.h"

namespace chunkforge {
namespace {

bool valid_name(const std::string& name) {
  if (name.empty() || name[0] < 'a' || name[0] > 'z') return false;
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

bool valid_color(const std::string& color) {
  if (color.size() != 7 || color[0] != '#') return false;
  for (size_t i = 1; i < 7; ++i) {
    if (!std::isxdigit(static_cast<unsigned char>(color[i]))) return false;
  }
  return true;
}

bool range_empty(const v1::Range& range) { return !range.has_min() && !range.has_max(); }

// Whether a rule sets no range over any terrain field it can test (one column of
// kTerrainFields): the last biome and material must not, so that every point matches one.
template <typename Rule>
bool ranges_empty(const Rule& rule, RangeAccessor<Rule> TerrainFieldSpec::*column) {
  for (const TerrainFieldSpec& field : kTerrainFields) {
    if (field.*column != nullptr && !range_empty((rule.*(field.*column))())) return false;
  }
  return true;
}

std::string num(double value) { return format_number(value); }

// Declared knobs the rules read (world.proto): a noise's octaves when absent and at most, its
// lacunarity when absent, the chunk size when absent.
const google::protobuf::FieldDescriptor& noise_field(int number) { return field_of<v1::NoiseField>(number); }
int default_octaves() { return static_cast<int>(declared_default(noise_field(v1::NoiseField::kOctavesFieldNumber))); }
uint32_t max_octaves() {
  return static_cast<uint32_t>(knob_of(noise_field(v1::NoiseField::kOctavesFieldNumber)).max());
}
double default_lacunarity() { return declared_default(noise_field(v1::NoiseField::kLacunarityFieldNumber)); }
double default_chunk_size() {
  return declared_default(field_of<v1::WorldDefinition>(v1::WorldDefinition::kChunkSizeFieldNumber));
}

class Validator : public FieldChecker {
 public:
  explicit Validator(const v1::WorldDefinition& def) : def_(def) {
    for (const auto& b : def.biomes()) biome_names_.insert(b.name());
    for (const auto& m : def.materials()) material_names_.insert(m.name());
  }

  std::vector<FieldError> run() {
    using W = v1::WorldDefinition;
    // The limits on the whole definition come after chunk_size, so that errors keep the order
    // they have always had.
    check_fields("", def_,
                 {{W::kGeneratorVersionFieldNumber, [&] { generator_version(); }},
                  {W::kChunkSizeFieldNumber, [&] { sizes(); }},
                  {W::kBiomesFieldNumber, [&] { biomes(); }},
                  {W::kMaterialsFieldNumber, [&] { materials(); }},
                  {W::kResourcesFieldNumber, [&] { resources(); }},
                  {W::kStructuresFieldNumber, [&] { structures(); }}});
    // The cost rules compile the layers as generation does, which needs a valid definition.
    if (!has_errors()) resource_costs();
    return take_errors();
  }

 private:
  void message_rules(const std::string& path, const google::protobuf::Message& message) override {
    if (message.GetDescriptor() == v1::NoiseField::descriptor()) {
      finest_octave(path, static_cast<const v1::NoiseField&>(message));
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
  void references(const std::string& path, const Names& names, const std::set<std::string>& known, const char* kind) {
    if (!at_most(path, names.size(), kMaxNamesPerList, "names")) return;
    for (int i = 0; i < names.size(); ++i) {
      if (!known.count(names.Get(i))) {
        error(at(path, i), std::string("unknown ") + kind + " " + quote_input(names.Get(i)));
      }
    }
  }

  // Keeps lattice coordinates of the finest octave far inside int64 at |x| = 2^40. Computed by
  // the function Fractal computes its octaves with: std::pow rounds differently from the
  // repeated product, which let a world through whose finest octave exceeds the limit.
  void finest_octave(const std::string& path, const v1::NoiseField& noise) {
    if (noise.octaves() > max_octaves()) return;  // reported at the field; no point multiplying that often
    FractalSpec spec;
    spec.octaves = noise.octaves() != 0 ? static_cast<int>(noise.octaves()) : default_octaves();
    spec.lacunarity = noise.has_lacunarity() ? noise.lacunarity() : default_lacunarity();
    spec.frequency = noise.frequency();
    const double finest = octave_frequencies(spec).back();
    if (std::isfinite(finest) && finest > 64) {
      error(path,
            "finest octave frequency (frequency * lacunarity^(octaves-1)) must be <= 64 (got " + num(finest) + ")");
    }
  }

  void generator_version() {
    const uint32_t v = def_.generator_version();
    if (v != 0 && (v < kOldestGeneratorVersion || v > kGeneratorVersion)) {
      error("generator_version", "unknown version " + std::to_string(v) + "; this build knows " +
                                     std::to_string(kOldestGeneratorVersion) + ".." +
                                     std::to_string(kGeneratorVersion) + " (0: newest)");
    }
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
      check_fields(p, b, {{v1::Biome::kNameFieldNumber, [&] { name_and_color(p, b.name(), b.color(), seen); }}});
    }
    const v1::Biome& last = def_.biomes(def_.biomes_size() - 1);
    if (!ranges_empty(last, &TerrainFieldSpec::biome)) {
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
      if (m.has_noise() && m.noise().octaves() <= max_octaves()) {
        octaves += m.noise().octaves() != 0 ? static_cast<int>(m.noise().octaves()) : default_octaves();
      }
    }
    at_most("materials", octaves, kMaxMaterialNoiseOctaves, "detail-noise octaves summed over all materials");
    std::set<std::string> seen;
    for (int i = 0; i < def_.materials_size(); ++i) material(at("materials", i), def_.materials(i), seen);
    const v1::Material& last = def_.materials(def_.materials_size() - 1);
    if (!ranges_empty(last, &TerrainFieldSpec::material) || last.biomes_size() > 0 || last.has_noise()) {
      error(at("materials", def_.materials_size() - 1),
            "the last material must have no conditions, so that every point has a material");
    }
  }

  void material(const std::string& p, const v1::Material& m, std::set<std::string>& seen) {
    using M = v1::Material;
    check_fields(p, m,
                 {{M::kNameFieldNumber, [&] { name_and_color(p, m.name(), m.color(), seen); }},
                  {M::kBiomesFieldNumber, [&] { references(at(p, "biomes"), m.biomes(), biome_names_, "biome"); }},
                  {M::kNoiseFieldNumber, [&] { detail_noise(p, m); }}});
  }

  // A material's detail noise comes with the range of it that the material takes.
  void detail_noise(const std::string& p, const v1::Material& m) {
    if (m.has_noise() != m.has_noise_range()) {
      error(at(p, m.has_noise() ? "noise_range" : "noise"), "noise and noise_range go together: give both or neither");
    }
    if (m.has_noise()) check_fields(at(p, "noise"), m.noise());
  }

  void resources() {
    if (!at_most("resources", def_.resources_size(), kMaxResourceLayers, "layers")) return;
    std::set<std::string> seen, layer_names;
    for (const auto& r : def_.resources()) layer_names.insert(r.name());
    for (int i = 0; i < def_.resources_size(); ++i) {
      resource(at("resources", i), def_.resources(i), seen, layer_names);
    }
  }

  void resource(const std::string& p, const v1::ResourceLayer& r, std::set<std::string>& seen,
                const std::set<std::string>& layer_names) {
    using R = v1::ResourceLayer;
    bool density_ok = true;
    check_fields(p, r,
                 {{R::kNameFieldNumber, [&] { name_and_color(p, r.name(), r.color(), seen); }},
                  {R::kDensityRangeFieldNumber, [&] { density_ok = density(p, r); }},
                  {R::kSpacingScaleFieldNumber, [&] { spacing(p, r, density_ok); }},
                  {R::kBiomesFieldNumber, [&] { references(at(p, "biomes"), r.biomes(), biome_names_, "biome"); }},
                  {R::kMaterialsFieldNumber,
                   [&] { references(at(p, "materials"), r.materials(), material_names_, "material"); }},
                  {R::kCorrelateWithFieldNumber, [&] {
                     if (r.has_correlate_with()) correlation(at(p, "correlate_with"), r, layer_names);
                   }}});
  }

  // density_range and density_threshold; whether the range's present bounds are usable.
  bool density(const std::string& p, const v1::ResourceLayer& r) {
    const v1::Knob& bounds = knob_of(field_of<v1::ResourceLayer>(v1::ResourceLayer::kDensityRangeFieldNumber));
    const std::string dr = at(p, "density_range");
    const v1::Range& d = r.density_range();
    if (!d.has_min()) error(at(dr, "min"), "required");
    if (!d.has_max()) error(at(dr, "max"), "required");
    bool density_ok = true;
    if (d.has_min()) density_ok &= in_range(at(dr, "min"), d.min(), bounds);
    if (d.has_max()) density_ok &= in_range(at(dr, "max"), d.max(), bounds);
    if (density_ok && d.min() > d.max()) {
      error(dr, "min must be <= max (got min " + num(d.min()) + ", max " + num(d.max()) + ")");
    } else if (density_ok && d.has_min() && d.has_max() && d.max() > kMaxDensityRatio * d.min()) {
      // The neighbour search of a layer reaches its largest spacing, counted in cells of its
      // smallest: a wider range makes every dense object scan a sparse area's worth of cells.
      error(dr, "max must be at most " + num(kMaxDensityRatio) + " times min (got min " + num(d.min()) + ", max " +
                    num(d.max()) + ")");
    }
    const v1::Knob& threshold = knob_of(field_of<v1::ResourceLayer>(v1::ResourceLayer::kDensityThresholdFieldNumber));
    if (density_ok && d.has_max())
      in_range(at(p, "density_threshold"), r.density_threshold(), threshold.min(), d.max());
    return density_ok;
  }

  // Spacing bounds keep a layer's scatter grid and its reach across chunks sensible.
  void spacing(const std::string& p, const v1::ResourceLayer& r, bool density_ok) {
    if (density_ok && r.density_range().has_min() && r.density_range().has_max() && r.spacing_scale() > 0) {
      const double r_min = r.spacing_scale() / r.density_range().max();
      const double r_max = r.spacing_scale() / r.density_range().min();
      if (r_min < 0.5) {
        error(at(p, "spacing_scale"),
              "smallest spacing spacing_scale / density_range.max must be >= 0.5 "
              "world units (got " +
                  num(r_min) + ")");
      }
      if (r_max > 128) {
        error(at(p, "spacing_scale"),
              "largest spacing spacing_scale / density_range.min must be <= 128 "
              "world units (got " +
                  num(r_max) + ")");
      }
    }
  }

  // The layer named by correlate_with exists, is not this one and correlates with none itself.
  void correlation(const std::string& path, const v1::ResourceLayer& r, const std::set<std::string>& layer_names) {
    const v1::Correlation& c = r.correlate_with();
    const std::string lp = at(path, "layer");
    check_fields(path, c, {{v1::Correlation::kLayerFieldNumber, [&] {
                              if (c.layer() == r.name()) {
                                error(lp, "a layer cannot correlate with itself");
                              } else if (!layer_names.count(c.layer())) {
                                error(lp, "unknown resource layer " + quote_input(c.layer()));
                              } else {
                                chained_correlation(lp, c.layer());
                              }
                            }}});
  }

  void chained_correlation(const std::string& lp, const std::string& layer) {
    for (const auto& other : def_.resources()) {
      if (other.name() == layer && other.has_correlate_with()) {
        error(lp, "layer " + quote_input(layer) + " correlates with another layer itself; chains are not supported");
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
            "spacing)^2) must be at most " +
                num(kMaxFootprintCrowding) + " (got " + num(crowding) + "; most from layer " +
                quote_input(worst_layer->name) + ")");
    }
  }

  void structures() {
    if (!at_most("structures", def_.structures_size(), kMaxStructures, "structures")) return;
    std::set<std::string> seen;
    for (int i = 0; i < def_.structures_size(); ++i) structure(at("structures", i), def_.structures(i), seen);
  }

  void structure(const std::string& p, const v1::Structure& s, std::set<std::string>& seen) {
    using S = v1::Structure;
    const double chunk = def_.chunk_size() != 0 ? def_.chunk_size() : default_chunk_size();
    const double least = knob_of(field_of<S>(S::kSizeXFieldNumber)).min();
    const v1::Knob& height = knob_of(field_of<S>(S::kHeightFieldNumber));
    // Tilted onto its side, a structure's height becomes a footprint side.
    const double tallest = s.allow_tilt() ? 16 * chunk : height.max();
    check_fields(p, s,
                 {{S::kNameFieldNumber, [&] { name_and_color(p, s.name(), s.color(), seen); }},
                  {S::kSizeXFieldNumber, [&] { in_range(at(p, "size_x"), s.size_x(), least, 16 * chunk); }},
                  {S::kSizeZFieldNumber, [&] { in_range(at(p, "size_z"), s.size_z(), least, 16 * chunk); }},
                  {S::kHeightFieldNumber, [&] { in_range(at(p, "height"), s.height(), height.min(), tallest); }},
                  {S::kBiomesFieldNumber, [&] { references(at(p, "biomes"), s.biomes(), biome_names_, "biome"); }},
                  {S::kChecksFieldNumber, [&] { checks(at(p, "checks"), s); }},
                  {S::kYawDegreesFieldNumber, [&] { yaw_degrees(p, s); }},
                  {S::kSurfaceFalloffFieldNumber, [&] { surface_falloff(p, s); }}});
  }

  void checks(const std::string& path, const v1::Structure& s) {
    if (!at_most(path, s.checks_size(), kMaxChecksPerStructure, "checks")) return;
    for (int i = 0; i < s.checks_size(); ++i) {
      const v1::Check& c = s.checks(i);
      const std::string cp = at(path, i);
      check_fields(
          cp, c,
          {{v1::Check::kMaterialsFieldNumber,
            [&] { references(at(cp, "materials"), c.materials(), material_names_, "material"); }},
           {v1::Check::kBiomesFieldNumber, [&] { references(at(cp, "biomes"), c.biomes(), biome_names_, "biome"); }}});
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

  // Each point in its knobs' ranges, x strictly increasing.
  void surface_falloff(const std::string& p, const v1::Structure& s) {
    if (!at_most(at(p, "surface_falloff"), s.surface_falloff_size(), kMaxFalloffPoints, "points")) return;
    for (int k = 0; k < s.surface_falloff_size(); ++k) {
      const v1::CurvePoint& c = s.surface_falloff(k);
      const std::string cp = at(at(p, "surface_falloff"), k);
      check_fields(cp, c);
      if (k > 0 && !(c.x() > s.surface_falloff(k - 1).x())) {
        error(at(cp, "x"), "must be greater than the previous point's x (" + num(s.surface_falloff(k - 1).x()) + ")");
      }
    }
  }

  const v1::WorldDefinition& def_;
  std::set<std::string> biome_names_, material_names_;
};

}  // namespace

std::vector<FieldError> validate_world(const v1::WorldDefinition& definition) {
  // Limits are computed as generation computes them, so in the same environment.
  const FloatEnvironmentGuard fp_guard;
  return Validator(definition).run();
}

}  // namespace chunkforge
