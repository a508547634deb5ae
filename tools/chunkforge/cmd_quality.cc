// `chunkforge quality`: blue-noise and seam metrics of one resource layer.
#include <google/protobuf/descriptor.h>

#include <iostream>

#include "args.h"
#include "chunk_json.h"
#include "chunkforge/quality.h"
#include "commands.h"
#include "world_options.h"

namespace chunkforge::tool {
namespace {

// The layer alone, as the quality metrics need it: no other layers (no cross-layer
// conflicts), no structures (no holes), no threshold, no filters, no correlation; constant
// density if asked.
std::optional<World> isolated(const v1::WorldDefinition& definition, int layer, bool constant,
                              const std::string* method) {
  v1::WorldDefinition d = definition;
  v1::ResourceLayer l = d.resources(layer);
  l.clear_biomes();
  l.clear_materials();
  l.clear_elevation();
  l.clear_max_slope();
  l.clear_correlate_with();
  l.set_density_threshold(0);
  if (constant) l.mutable_density_range()->set_min(l.density_range().max());
  v1::ResourceLayer::Method parsed = l.method();
  if (method != nullptr && v1::ResourceLayer::Method_Parse(*method, &parsed)) l.set_method(parsed);
  d.clear_resources();
  *d.add_resources() = l;
  d.clear_structures();
  WorldResult r = World::create(d);
  for (const FieldError& e : r.errors) std::cerr << "quality: " << e.to_string() << '\n';
  return std::move(r.world);
}

std::string timing(const RegionPoints& p) {
  const double chunks = static_cast<double>(p.chunks * p.chunks);
  return "\"points_per_second\":" + number(static_cast<double>(p.objects.size()) / p.seconds) +
         ",\"ms_per_chunk\":" + number(p.seconds * 1000 / chunks);
}

std::string spacing(const SpacingReport& s) {
  return "\"pairs_checked\":" + std::to_string(s.pairs_checked) +
         ",\"spacing_violations\":" + std::to_string(s.violations) +
         ",\"cross_chunk_violations\":" + std::to_string(s.cross_chunk);
}

// The three worlds the metrics compare: the whole world with the method override applied to the
// layer, and the layer alone at constant and at varying density.
struct QualityWorlds {
  std::optional<World> full, constant, varying;
};

QualityWorlds quality_worlds(const World& world, int layer, const std::string* method) {
  v1::WorldDefinition full_definition = world.definition();
  v1::ResourceLayer::Method parsed = v1::ResourceLayer::blue_noise;
  if (method != nullptr && v1::ResourceLayer::Method_Parse(*method, &parsed)) {
    full_definition.mutable_resources(layer)->set_method(parsed);
  }
  return {World::create(full_definition).world, isolated(world.definition(), layer, true, method),
          isolated(world.definition(), layer, false, method)};
}

// Every figure as one line of JSON, and the short text summary.
struct QualityReport {
  std::string json, text;
};

QualityReport measure(const QualityWorlds& worlds, int layer, int64_t chunks) {
  const ChunkCoord origin{0, 0};
  const World &constant = *worlds.constant, &varying = *worlds.varying, &full = *worlds.full;
  const ResourceLayer& l = constant.resources().layer(0);
  const RegionPoints c = generate_region(constant, origin, chunks);
  const PointStats cs = point_stats(c, 0, 3 * l.r_min());
  const RegionPoints v = generate_region(varying, origin, chunks);
  const RegionPoints w = generate_region(full, origin, chunks);
  size_t layer_points = 0;
  for (const PlacedObject& o : w.objects) layer_points += o.layer == static_cast<uint32_t>(layer);

  QualityReport report;
  report.json =
      "{\"layer\":\"" + l.name + "\",\"method\":\"" + to_string(l.method) + "\",\"chunks\":" + std::to_string(chunks) +
      ",\"constant\":{\"spacing\":" + number(l.r_min()) + ",\"points\":" + std::to_string(cs.points) +
      ",\"rho\":" + number(cs.rho) + ",\"nn_cv\":" + number(cs.nn_cv) + ",\"clark_evans\":" + number(cs.clark_evans) +
      ",\"seam_ratio\":" + number(seam_ratio(c, 0, l.r_min())) + "," + spacing(check_spacing(constant, c)) + "," +
      timing(c) + "},\"varying\":{\"points\":" + std::to_string(v.objects.size()) +
      ",\"density_fidelity\":" + number(density_fidelity(varying, v, 0, 4 * varying.resources().layer(0).r_max())) +
      ",\"seam_ratio\":" + number(seam_ratio(v, 0, l.r_min())) + "," + spacing(check_spacing(varying, v)) + "," +
      timing(v) + "},\"world\":{\"layer_points\":" + std::to_string(layer_points) +
      ",\"all_points\":" + std::to_string(w.objects.size()) + "," + spacing(check_spacing(full, w)) + "," + timing(w) +
      "}}";
  report.text = "layer " + l.name + " (" + to_string(l.method) + "), " + std::to_string(chunks) + " x " +
                std::to_string(chunks) + " chunks\n  constant density: rho " + number(cs.rho) + ", NN CV " +
                number(cs.nn_cv) + ", Clark-Evans R " + number(cs.clark_evans) + "\n  (--json for every figure)\n";
  return report;
}

// The names --method accepts: ResourceLayer.Method's values, as the proto spells them.
std::vector<std::string> method_names() {
  const google::protobuf::EnumDescriptor* methods = v1::ResourceLayer::Method_descriptor();
  std::vector<std::string> names;
  for (int k = 0; k < methods->value_count(); ++k) names.push_back(methods->value(k)->name());
  return names;
}

class QualityCommand final : public Command {
 public:
  CLI::App& declare(CLI::App& parent) override;
  int run() override;

 private:
  WorldOptions world_;
  std::string layer_;
  std::optional<std::string> method_;
  int64_t chunks_ = 16;
  bool json_ = false;
};

CLI::App& QualityCommand::declare(CLI::App& parent) {
  CLI::App& app = *parent.add_subcommand("quality", "blue-noise quality and seam metrics of a resource layer");
  set_help(app, "usage: chunkforge quality --layer NAME [--method M] [--chunks N] [--world FILE] [--seed N] [--json]\n",
           "Measures a layer over N x N chunks (default 16), each generated as a cold request:\n"
           "  constant: the layer alone at constant density (its densest spacing): rho (d_min / d_hex),\n"
           "            nearest-neighbour CV, Clark-Evans R, seam-band / interior density, violations;\n"
           "  varying:  the layer alone with its density field: density fidelity (correlation of\n"
           "            counts with mean density^2 over bins of 4 r_max), seam ratio, violations;\n"
           "  world:    the whole world: spacing violations between every pair of objects, across\n"
           "            chunk borders too; and points per second for each.\n");
  add_world_options(app, world_);
  app.add_option("--layer", layer_, "the resource layer")->type_name("NAME")->required();
  std::string methods;
  for (const std::string& name : method_names()) methods += (methods.empty() ? "" : ", ") + name;
  app.add_option_function<std::string>(
         "--method", [this](const std::string& method) { method_ = method; }, "override its method: " + methods)
      ->type_name("M")
      ->check(one_of(method_names()));
  app.add_option("--chunks", chunks_, "window side in chunks, 4 to 128 (default 16)")
      ->type_name("N")
      ->transform(integer_in<int64_t>(4, 128));
  app.add_flag("--json", json_, "one line of JSON with every figure");
  return app;
}

int QualityCommand::run() {
  std::optional<World> world = load_world(world_);
  if (!world) return kExitBadInput;
  int layer = -1;
  for (int k = 0; k < world->definition().resources_size(); ++k) {
    if (world->definition().resources(k).name() == layer_) layer = k;
  }
  if (layer < 0) {
    std::cerr << "quality: the world has no resource layer \"" << layer_ << "\"\n";
    return kExitBadInput;
  }
  const QualityWorlds worlds = quality_worlds(*world, layer, method_ ? &*method_ : nullptr);
  if (!worlds.full || !worlds.constant || !worlds.varying) return kExitBadInput;
  const QualityReport report = measure(worlds, layer, chunks_);
  std::cout << (json_ ? report.json + "\n" : report.text);
  return kExitOk;
}

}  // namespace

std::unique_ptr<Command> make_quality_command() { return std::make_unique<QualityCommand>(); }

}  // namespace chunkforge::tool
