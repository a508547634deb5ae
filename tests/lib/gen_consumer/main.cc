// Generates through the public headers of the installed generation library and prints what a
// game would use, exactly (hex floats, hashes), one item per line:
//   chunk CX CZ <hash>             the default world's chunk, as `chunkforge chunk` hashes it
//   sample X Z <elevation> <temperature> <moisture> <slope> <biome> <material>
//   helper <name> <value>          public helpers called from this file: Coord::scaled, detmath
// Built twice: against the installed package with FMA contraction (gen_consumer_test.sh) and in
// the build tree with the project's flags (the reference); the outputs must be equal.
#include <chunkforge/chunk.h>
#include <chunkforge/coord.h>
#include <chunkforge/detmath.h>
#include <chunkforge/encode.h>
#include <chunkforge/world.h>

#include <cstdio>
#include <cstdlib>

namespace cf = chunkforge;

namespace {

void print_chunk(const cf::World& world, int64_t cx, int64_t cz) {
  const cf::Generator generator(world);
  const uint64_t hash = cf::chunk_hash(cf::encode_chunk(world, generator.generate({cx, cz})));
  std::printf("chunk %lld %lld %016llx\n", static_cast<long long>(cx), static_cast<long long>(cz),
              static_cast<unsigned long long>(hash));
}

void print_sample(const cf::World& world, double x, double z) {
  const cf::TerrainPoint p = world.terrain().sample(cf::Coord::from_double(x), cf::Coord::from_double(z));
  std::printf("sample %a %a %a %a %a %a %u %u\n", x, z, p.elevation(), p.values[cf::terrain_field("temperature")],
              p.values[cf::terrain_field("moisture")], p.slope(), p.biome, p.material);
}

// Inputs where an FMA-contracted copy of the helpers would round differently (found by search;
// tests/lib/fma_caller_test.cc pins the library's values).
void print_helpers() {
  const cf::Coord far = cf::Coord::from_parts(-399724383498LL, 0x1.17748f97b26a8p-3).scaled(0x1.d5123382cf463p-1);
  std::printf("helper scaled %lld %a\n", static_cast<long long>(far.cell), far.frac);
  std::printf("helper pow %a\n", cf::detmath::pow(0.3, 2.7));
  std::printf("helper exp %a\n", cf::detmath::exp(-3.3));
  std::printf("helper log %a\n", cf::detmath::log(12.5));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: gen_consumer CX CZ X Z\n");
    return 2;
  }
  const cf::World& world = cf::default_world();
  print_chunk(world, std::atoll(argv[1]), std::atoll(argv[2]));
  print_sample(world, std::atof(argv[3]), std::atof(argv[4]));
  print_helpers();
  return 0;
}
