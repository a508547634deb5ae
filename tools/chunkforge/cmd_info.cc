#include <iostream>

#include "chunkforge/v1/info.pb.h"
#include "commands.h"
#include "world_options.h"

namespace chunkforge::tool {
namespace {

template <typename Entries>
void add_named(const Entries& entries, google::protobuf::RepeatedPtrField<v1::CatalogEntry>* out) {
  for (int id = 0; id < entries.size(); ++id) {
    v1::CatalogEntry* e = out->Add();
    e->set_id(static_cast<uint32_t>(id));
    e->set_name(entries.Get(id).name());
    e->set_color(entries.Get(id).color());
  }
}

v1::WorldInfo world_info(const World& world) {
  const v1::WorldDefinition& d = world.definition();
  v1::WorldInfo info;
  info.set_name(d.name());
  info.set_seed(d.seed());
  info.set_generator_version(d.generator_version());
  info.set_chunk_size(d.chunk_size());
  info.set_sea_level(d.terrain().sea_level());
  info.set_fingerprint(world.fingerprint());
  add_named(d.biomes(), info.mutable_biomes());
  add_named(d.materials(), info.mutable_materials());
  add_named(d.resources(), info.mutable_resources());
  for (int id = 0; id < d.resources_size(); ++id) {
    const v1::ResourceLayer& r = d.resources(id);
    info.mutable_resources(id)->set_footprint_radius(r.footprint_radius());
    info.mutable_resources(id)->set_method(v1::ResourceLayer::Method_Name(r.method()));
  }
  add_named(d.structures(), info.mutable_structures());
  for (int id = 0; id < d.structures_size(); ++id) {
    const v1::Structure& s = d.structures(id);
    v1::CatalogEntry* e = info.mutable_structures(id);
    e->set_size_x(s.size_x());
    e->set_size_z(s.size_z());
    e->set_height(s.height());
  }
  return info;
}

void print_entries(const char* title,
                   const google::protobuf::RepeatedPtrField<v1::CatalogEntry>& entries) {
  std::cout << title << ":\n";
  for (const v1::CatalogEntry& e : entries) {
    std::cout << "  " << e.id() << "  " << e.name() << "  " << e.color();
    if (!e.method().empty()) std::cout << "  " << e.method() << ", footprint " << e.footprint_radius();
    if (e.size_x() > 0) std::cout << "  " << e.size_x() << " x " << e.size_z() << " x " << e.height();
    std::cout << '\n';
  }
}

int run(const std::vector<std::string>& words) {
  std::string error;
  auto args = parse_args(words, with_world_options({{}, {"--json"}}), error);
  if (!args || !args->positional.empty()) {
    std::cerr << "info: " << (error.empty() ? "takes no positional arguments" : error) << '\n'
              << kInfoCommand.help;
    return kExitBadInput;
  }
  std::optional<World> world = load_world(*args);
  if (!world) return kExitBadInput;
  const v1::WorldInfo info = world_info(*world);
  if (args->has("--json")) {
    std::cout << to_json(info) << '\n';
    return kExitOk;
  }
  std::cout << "world \"" << info.name() << "\"\n"
            << "seed " << info.seed() << ", generator " << info.generator_version() << ", chunk "
            << info.chunk_size() << " units, sea level " << info.sea_level() << ", fingerprint "
            << info.fingerprint() << '\n';
  print_entries("biomes", info.biomes());
  print_entries("materials", info.materials());
  print_entries("resources", info.resources());
  print_entries("structures", info.structures());
  return kExitOk;
}

}  // namespace

const Command kInfoCommand{
    "info", "describe a world: seed, version, layers and structures with their ids",
    "usage: chunkforge info [--world FILE] [--seed N] [--json]\n"
    "\n"
    "Prints the world's seed, chunk size, generator version, fingerprint and the catalogue of\n"
    "biomes, materials, resource layers and structures with their ids.\n"
    "\n"
    "options:\n" +
        kWorldOptionsHelp + "  --json         one line of JSON (chunkforge.v1.WorldInfo)\n",
    run};

}  // namespace chunkforge::tool
