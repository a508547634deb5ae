#include <iostream>

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
  return "\"pairs_checked\":" + std::to_string(s.pairs_checked) + ",\"spacing_violations\":" +
         std::to_string(s.violations) + ",\"cross_chunk_violations\":" + std::to_string(s.cross_chunk);
}

int run(const std::vector<std::string>& words) {
  std::string error;
  auto args = parse_args(words, with_world_options({{"--layer", "--method", "--chunks"}, {"--json"}}), error);
  if (!args || !args->positional.empty() || !args->value("--layer")) {
    std::cerr << "quality: " << (error.empty() ? "needs --layer NAME" : error) << '\n' << kQualityCommand.help;
    return kExitBadInput;
  }
  int64_t chunks = 16;
  if (const std::string* text = args->value("--chunks")) {
    const std::optional<int64_t> n = parse_int(*text);
    if (!n || *n < 4 || *n > 128) {
      std::cerr << "quality: --chunks must be in [4, 128] (got \"" << *text << "\")\n";
      return kExitBadInput;
    }
    chunks = *n;
  }
  const std::string* method = args->value("--method");
  v1::ResourceLayer::Method parsed = v1::ResourceLayer::blue_noise;
  if (method != nullptr && !v1::ResourceLayer::Method_Parse(*method, &parsed)) {
    std::cerr << "quality: --method must be blue_noise, jittered_grid, noise_probability, noise_peaks or uniform\n";
    return kExitBadInput;
  }
  std::optional<World> world = load_world(*args);
  if (!world) return kExitBadInput;
  int layer = -1;
  for (int k = 0; k < world->definition().resources_size(); ++k) {
    if (world->definition().resources(k).name() == *args->value("--layer")) layer = k;
  }
  if (layer < 0) {
    std::cerr << "quality: the world has no resource layer \"" << *args->value("--layer") << "\"\n";
    return kExitBadInput;
  }
  // The whole world, with the method override applied to the layer.
  v1::WorldDefinition full_definition = world->definition();
  if (method != nullptr) full_definition.mutable_resources(layer)->set_method(parsed);
  const std::optional<World> full = World::create(full_definition).world;
  const std::optional<World> constant = isolated(world->definition(), layer, true, method);
  const std::optional<World> varying = isolated(world->definition(), layer, false, method);
  if (!full || !constant || !varying) return kExitBadInput;

  const ChunkCoord origin{0, 0};
  const ResourceLayer& l = constant->resources().layer(0);
  const RegionPoints c = generate_region(*constant, origin, chunks);
  const PointStats cs = point_stats(c, 0, 3 * l.r_min());
  const RegionPoints v = generate_region(*varying, origin, chunks);
  const RegionPoints w = generate_region(*full, origin, chunks);
  size_t layer_points = 0;
  for (const PlacedObject& o : w.objects) layer_points += o.layer == static_cast<uint32_t>(layer);

  const std::string json =
      "{\"layer\":\"" + l.name + "\",\"method\":\"" + to_string(l.method) + "\",\"chunks\":" +
      std::to_string(chunks) + ",\"constant\":{\"spacing\":" + number(l.r_min()) + ",\"points\":" +
      std::to_string(cs.points) + ",\"rho\":" + number(cs.rho) + ",\"nn_cv\":" + number(cs.nn_cv) +
      ",\"clark_evans\":" + number(cs.clark_evans) + ",\"seam_ratio\":" + number(seam_ratio(c, 0, l.r_min())) +
      "," + spacing(check_spacing(*constant, c)) + "," + timing(c) + "},\"varying\":{\"points\":" +
      std::to_string(v.objects.size()) + ",\"density_fidelity\":" +
      number(density_fidelity(*varying, v, 0, 4 * varying->resources().layer(0).r_max())) + ",\"seam_ratio\":" +
      number(seam_ratio(v, 0, l.r_min())) + "," + spacing(check_spacing(*varying, v)) + "," + timing(v) +
      "},\"world\":{\"layer_points\":" + std::to_string(layer_points) + ",\"all_points\":" +
      std::to_string(w.objects.size()) + "," + spacing(check_spacing(*full, w)) + "," + timing(w) + "}}";
  if (args->has("--json")) {
    std::cout << json << '\n';
  } else {
    std::cout << "layer " << l.name << " (" << to_string(l.method) << "), " << chunks << " x " << chunks
              << " chunks\n  constant density: rho " << number(cs.rho) << ", NN CV " << number(cs.nn_cv)
              << ", Clark-Evans R " << number(cs.clark_evans) << "\n  (--json for every figure)\n";
  }
  return kExitOk;
}

}  // namespace

const Command kQualityCommand{
    "quality", "blue-noise quality and seam metrics of a resource layer",
    "usage: chunkforge quality --layer NAME [--method M] [--chunks N] [--world FILE] [--seed N] [--json]\n"
    "\n"
    "Measures a layer over N x N chunks (default 16), each generated as a cold request:\n"
    "  constant: the layer alone at constant density (its densest spacing): rho (d_min / d_hex),\n"
    "            nearest-neighbour CV, Clark-Evans R, seam-band / interior density, violations;\n"
    "  varying:  the layer alone with its density field: density fidelity (correlation of\n"
    "            counts with mean density^2 over bins of 4 r_max), seam ratio, violations;\n"
    "  world:    the whole world: spacing violations between every pair of objects, across\n"
    "            chunk borders too; and points per second for each.\n"
    "\n"
    "options:\n" +
        kWorldOptionsHelp +
        "  --layer NAME   the resource layer (required)\n"
        "  --method M     override its method: blue_noise, jittered_grid, noise_probability,\n"
        "                 noise_peaks, uniform\n"
        "  --chunks N     window side in chunks, 4 to 128 (default 16)\n"
        "  --json         one line of JSON with every figure\n",
    run};

}  // namespace chunkforge::tool
