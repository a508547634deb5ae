// Golden values: the exact output of noise, terrain and hashing for fixed seeds and points.
//
// Built twice (tests/CMakeLists.txt): against the library at the project's optimisation level
// and at -O0. A failure means generation output changed. If that was deliberate, bump
// kGeneratorVersion (keeping the old version selectable) and update the values here; run with
// CHUNKFORGE_PRINT_GOLDEN=1 to print the current ones.
#include <google/protobuf/descriptor.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <utility>

#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

#include "chunkforge/chunk.h"
#include "chunkforge/encode.h"
#include "chunkforge/hash.h"
#include "chunkforge/noise.h"
#include "chunkforge/structures.h"
#include "chunkforge/v1/world.pb.h"
#include "chunkforge/world.h"

namespace chunkforge {
namespace {

bool print_mode() { return std::getenv("CHUNKFORGE_PRINT_GOLDEN") != nullptr; }

void expect_golden(const char* what, double got, double expected) {
  if (print_mode()) std::printf("%s = %a\n", what, got);
  EXPECT_TRUE(std::memcmp(&got, &expected, sizeof got) == 0)
      << what << ": got " << std::hexfloat << got << ", golden " << expected;
}

void expect_golden(const char* what, uint64_t got, uint64_t expected) {
  if (print_mode()) std::printf("%s = 0x%016llxULL\n", what, static_cast<unsigned long long>(got));
  EXPECT_EQ(got, expected) << what << std::hex << ": got 0x" << got << ", golden 0x" << expected;
}

// A canonical serialisation for golden hashes: every value little-endian, whatever the host's
// byte order (hashing memory would pin the host's).
class CanonicalBytes {
 public:
  void add(uint64_t v, int bytes = 8) {
    for (int i = 0; i < bytes; ++i) bytes_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
  void add(int64_t v) { add(static_cast<uint64_t>(v)); }
  void add(uint32_t v) { add(uint64_t{v}, 4); }
  void add(double v) { add(std::bit_cast<uint64_t>(v)); }
  uint64_t hash(Salt s) const { return hash_bytes(0, s, bytes_); }

 private:
  std::string bytes_;
};

// Hash of every field of a terrain grid, bit for bit.
uint64_t grid_hash(const TerrainGrid& g) {
  CanonicalBytes bytes;
  for (const char* field : {"elevation", "temperature", "moisture", "slope"}) {
    for (double d : g.values[terrain_field(field)]) bytes.add(d);
  }
  for (uint32_t b : g.biome) bytes.add(b);
  for (uint32_t m : g.material) bytes.add(m);
  return bytes.hash(salt("golden.grid"));
}

const Coord kFar{int64_t{1} << 40, 0.375};

TEST(GoldenTest, Hashes) {
  expect_golden("hash", hash(1, salt("golden"), 2, -3, 4), 0xfdd514486278bdb0ULL);
  expect_golden("salt", salt("terrain.elevation").value, 0xda239e1d9f471e5fULL);
}

TEST(GoldenTest, RawNoise) {
  const Coord a = Coord::from_double(0.3), b = Coord::from_double(-7.6), c = Coord::from_double(12.25);
  expect_golden("perlin2", perlin2(7, a, b), -0x1.55a4acf312b15p-2);
  expect_golden("perlin3", perlin3(7, a, b, c), -0x1.bf1d9af883d52p-4);
  expect_golden("simplex2", simplex2(7, a, b), 0x1.2248116511685p-2);
  expect_golden("simplex3", simplex3(7, a, b, c), 0x1.865fddebd902dp-2);
  expect_golden("perlin2_far", perlin2(7, kFar, kFar.plus(0.1)), -0x1.82697c5526526p-2);
  expect_golden("simplex2_far", simplex2(7, kFar, kFar.plus(0.1)), 0x1.0a159dae26121p-7);
  expect_golden("simplex3_far", simplex3(7, kFar, b, kFar), -0x1.5f447a84ae7f9p-1);
}

void check_default_world_terrain_points(const World& world) {
  const Terrain& t = world.terrain();
  const TerrainPoint p = t.sample(Coord::from_double(100.5), Coord::from_double(-200.25));
  expect_golden("elevation", p.elevation(), 0x1.01156442f941p+3);
  expect_golden("temperature", p.values[terrain_field("temperature")], 0x1.3f967b026e0e3p-1);
  expect_golden("moisture", p.values[terrain_field("moisture")], 0x1.b961d54a6bb6p-2);
  expect_golden("slope", p.slope(), 0x1.822af5120d56fp-3);
  expect_golden("density", t.density(Coord::from_double(100.5), -10.0, Coord::from_double(-200.25)),
                0x1.208ab2217ca08p+4);
  expect_golden("elevation_far", t.elevation(kFar, kFar), -0x1.17b0399ba1bd6p+2);
}

TEST(GoldenTest, DefaultWorldTerrainPoints) { check_default_world_terrain_points(default_world()); }

void check_default_world_terrain_grids(const World& world) {
  const Terrain& t = world.terrain();
  const int64_t far = (int64_t{1} << 40) / world.chunk_size();
  expect_golden("grid_0_0_step1", grid_hash(t.grid(0, 0, 1)), 0x6d3daa613b103424ULL);
  expect_golden("grid_m3_7_step1", grid_hash(t.grid(-3, 7, 1)), 0x910c4e453715a802ULL);
  expect_golden("grid_m3_7_step4", grid_hash(t.grid(-3, 7, 4)), 0x1de4b23dc683b238ULL);
  expect_golden("grid_far_step2", grid_hash(t.grid(far, -far, 2)), 0x75ffa33fa17cf5b3ULL);
}

TEST(GoldenTest, DefaultWorldTerrainGrids) { check_default_world_terrain_grids(default_world()); }

// Golden hashes of whole encoded chunks: objects of every layer, positions, ids.
struct DefaultWorldChunkGoldens {
  const char* version;  // names the printed values
  uint64_t chunk_0_0, chunk_m3_7, chunk_5_m2, chunk_far;
};
// docs/worlds/default-v1.json: the default world as it was with generator version 1.
constexpr DefaultWorldChunkGoldens kDefaultV1Chunks{"v1", 0xe331c6a8569c7f83ULL, 0x2bceb1b1f8d2959aULL,
                                                    0xc9afc19ab0bc7e26ULL, 0x44e6f562dc37965fULL};
// docs/worlds/default.json, generator version 2.
constexpr DefaultWorldChunkGoldens kDefaultV2Chunks{"v2", 0xf83493dbc1bd69e7ULL, 0xb82dcec73e212a3aULL,
                                                    0xe077b5227cd8aea8ULL, 0x7f27c3893940e675ULL};
// docs/worlds/default.json run by generator version 3 (the file pins 2).
constexpr DefaultWorldChunkGoldens kDefaultV3Chunks{"v3", 0x10c70d4429f8524aULL, 0x70e0f3f0dc314d86ULL,
                                                    0xd685a5ffa08e749cULL, 0xd254be5b3df24151ULL};

void check_default_world_chunks(const World& world, const DefaultWorldChunkGoldens& golden) {
  const Generator generator(world);
  const int64_t far = (int64_t{1} << 40) / world.chunk_size() - 3;
  auto chunk = [&](int64_t x, int64_t z) { return chunk_hash(encode_chunk(world, generator.generate({x, z}))); };
  auto name = [&](const char* what) { return std::string(golden.version) + "_" + what; };
  expect_golden(name("chunk_0_0").c_str(), chunk(0, 0), golden.chunk_0_0);
  expect_golden(name("chunk_m3_7").c_str(), chunk(-3, 7), golden.chunk_m3_7);
  expect_golden(name("chunk_5_m2").c_str(), chunk(5, -2), golden.chunk_5_m2);
  expect_golden(name("chunk_far").c_str(), chunk(far, -far), golden.chunk_far);
  // Through a ChunkStream (shared memo), in another order: the same bytes.
  ChunkStream stream(world);
  EXPECT_EQ(chunk_hash(encode_chunk(world, stream.generate({5, -2}))), golden.chunk_5_m2);
  EXPECT_EQ(chunk_hash(encode_chunk(world, stream.generate({0, 0}))), golden.chunk_0_0);
}

// A world file of the repository (relative to its root), run by generator version `version`
// (its own pin replaced in the definition when they differ). Loaded once per (file, version).
const World& golden_world(const std::string& path, uint32_t version) {
  static std::map<std::pair<std::string, uint32_t>, World> worlds;
  const auto key = std::make_pair(path, version);
  if (auto it = worlds.find(key); it != worlds.end()) return it->second;
  auto fail = [](const WorldResult& r) {
    for (const FieldError& e : r.errors) std::fprintf(stderr, "%s\n", e.to_string().c_str());
    std::abort();
  };
  WorldResult r = load_world_file(std::string(CHUNKFORGE_SOURCE_DIR) + "/" + path);
  if (!r.ok()) fail(r);
  if (r.world->generator_version() != version) {
    v1::WorldDefinition d = r.world->definition();
    d.set_generator_version(version);
    r = World::create(d);
    if (!r.ok()) fail(r);
  }
  return worlds.emplace(key, std::move(*r.world)).first->second;
}

const World& default_v1_world() { return golden_world("docs/worlds/default-v1.json", 1); }
const World& default_v3_world() { return golden_world("docs/worlds/default.json", 3); }

TEST(GoldenTest, DefaultWorldChunks) {
  ASSERT_EQ(default_world().generator_version(), 2u);
  check_default_world_chunks(default_world(), kDefaultV2Chunks);
}

TEST(GoldenTest, DefaultWorldChunksOfVersion1) {
  ASSERT_EQ(default_v1_world().generator_version(), 1u);
  check_default_world_chunks(default_v1_world(), kDefaultV1Chunks);
}

TEST(GoldenTest, DefaultWorldChunksOfVersion3) {
  ASSERT_EQ(default_v3_world().generator_version(), 3u);
  check_default_world_chunks(default_v3_world(), kDefaultV3Chunks);
}

// tests/lib/worlds/golden_everything.json uses everything generation has: every scatter method,
// non-integer sharpness (detmath's exp and log), simplex terrain (2D) and caves (3D),
// correlation, every resource filter, rotated and tilted structures with depth, surface falloff
// and padding. Chunks near the origin, negative and far; terrain; locate.
const World& everything_world(uint32_t version = 1) {
  return golden_world("tests/lib/worlds/golden_everything.json", version);
}

constexpr ChunkCoord kEverythingChunks[] = {{0, 0}, {-6, -4}, {2, 1}, {-3, 3}, {3, 4}, {12, -9}};
ChunkCoord everything_far_chunk() {
  const int64_t far = (int64_t{1} << 40) / 64;
  return {far - 5, -far + 2};
}

struct EverythingChunkGoldens {
  const char* version;  // names the printed values
  uint64_t chunks[6];   // kEverythingChunks
  uint64_t far;
};
constexpr EverythingChunkGoldens kEverythingV1Chunks{
    "v1",
    {0xcfafdcc5ac3c0a03ULL, 0xdf02931b55bbeb4cULL, 0xe2d99cf7e1093a3eULL, 0x4aa81f045c5bfa2aULL, 0x814f078db60a7820ULL,
     0xa9486ddbcc490261ULL},
    0xf2bdcdd2acf2f728ULL};
constexpr EverythingChunkGoldens kEverythingV2Chunks{
    "v2",
    {0xa0381cbb52f5410fULL, 0x34b6be2f1d6e50bcULL, 0xd2fae13efcd2a87fULL, 0xef6ae4f579aa8657ULL, 0x927c03187e92b3caULL,
     0x6395f05027dba163ULL},
    0x181d30081a2ec1adULL};
constexpr EverythingChunkGoldens kEverythingV3Chunks{
    "v3",
    {0xa24055e697f347d9ULL, 0x3c8d3429e42f9dceULL, 0xb3576939a79beff7ULL, 0x81bd3ca246313bafULL, 0x346c43e960b3ea6eULL,
     0xd5216174116173edULL},
    0x2af1b72c655e59f1ULL};

void check_everything_world_chunks(const World& world, const EverythingChunkGoldens& golden) {
  const Generator generator(world);
  auto chunk = [&](ChunkCoord c) { return chunk_hash(encode_chunk(world, generator.generate(c))); };
  for (size_t k = 0; k < std::size(kEverythingChunks); ++k) {
    const std::string name = std::string(golden.version) + "_everything_chunk_" +
                             std::to_string(kEverythingChunks[k].x) + "_" + std::to_string(kEverythingChunks[k].z);
    expect_golden(name.c_str(), chunk(kEverythingChunks[k]), golden.chunks[k]);
  }
  expect_golden((std::string(golden.version) + "_everything_chunk_far").c_str(), chunk(everything_far_chunk()),
                golden.far);
  // A ChunkStream in reverse order: the same bytes.
  ChunkStream stream(world);
  for (size_t k = std::size(kEverythingChunks); k-- > 0;) {
    EXPECT_EQ(chunk_hash(encode_chunk(world, stream.generate(kEverythingChunks[k]))), golden.chunks[k]) << k;
  }
}

TEST(GoldenTest, EverythingWorldChunks) { check_everything_world_chunks(everything_world(1), kEverythingV1Chunks); }

TEST(GoldenTest, EverythingWorldChunksOfVersion2) {
  check_everything_world_chunks(everything_world(2), kEverythingV2Chunks);
}

TEST(GoldenTest, EverythingWorldChunksOfVersion3) {
  check_everything_world_chunks(everything_world(3), kEverythingV3Chunks);
}

// The pinned chunks do reach every feature, so that an edit of the world file cannot quietly
// drop one from the goldens.
void check_everything_world_chunks_cover_every_feature(const World& world) {
  const Generator generator(world);
  std::vector<bool> layer_seen(world.resources().size());
  bool tilted = false, rotated = false, buried = false;
  for (ChunkCoord c : kEverythingChunks) {
    const ChunkData d = generator.generate(c);
    for (const ResourceObject& o : d.objects) layer_seen[o.layer] = true;
    for (const StructureInstance& s : d.structures) {
      tilted |= s.rotation.tilted;
      rotated |= s.rotation.yaw_quarters != 0;
      buried |= s.y < world.terrain().elevation(Coord{s.x, 0.0}, Coord{s.z, 0.0});
    }
  }
  for (uint32_t layer = 0; layer < layer_seen.size(); ++layer) {
    EXPECT_TRUE(layer_seen[layer]) << world.resources().layer(layer).name;
  }
  EXPECT_TRUE(tilted);
  EXPECT_TRUE(rotated);
  EXPECT_TRUE(buried);  // depth: an origin below the surface
  std::set<std::string> methods;
  bool fractional_sharpness = false, correlated = false;
  for (const ResourceLayer& l : world.resources().all()) {
    methods.insert(to_string(l.method));
    fractional_sharpness |= l.sharpness != std::floor(l.sharpness);
    correlated |= l.correlate_with >= 0;
  }
  // Every method world.proto names (its descriptor: a new one fails here until a layer uses it).
  const google::protobuf::EnumDescriptor* every = v1::ResourceLayer::Method_descriptor();
  for (int k = 0; k < every->value_count(); ++k) {
    EXPECT_EQ(methods.count(std::string(every->value(k)->name())), 1u)
        << "no layer of golden_everything.json uses " << every->value(k)->name();
  }
  EXPECT_TRUE(fractional_sharpness);
  EXPECT_TRUE(correlated);
}

TEST(GoldenTest, EverythingWorldChunksCoverEveryFeature) {
  for (uint32_t version = kOldestGeneratorVersion; version <= kGeneratorVersion; ++version) {
    SCOPED_TRACE(version);
    check_everything_world_chunks_cover_every_feature(everything_world(version));
  }
}

void check_everything_world_terrain(const World& world) {
  const Terrain& t = world.terrain();
  expect_golden("everything_grid_m6_m4_step1", grid_hash(t.grid(-6, -4, 1)), 0x8cec425893df5aeeULL);
  expect_golden("everything_grid_3_4_step4", grid_hash(t.grid(3, 4, 4)), 0x754b312c36535092ULL);
  const TerrainPoint p = t.sample(Coord::from_double(-371.625), Coord::from_double(-233.5));
  expect_golden("everything_elevation", p.elevation(), 0x1.bb41d46c934e9p+1);
  expect_golden("everything_slope", p.slope(), 0x1.684763225cbc9p-3);
  // 3 units below the surface, where the caves (3D simplex) carve: not 3.
  const Coord cave_x = Coord::from_double(-356.625), cave_z = Coord::from_double(-226.0);
  expect_golden("everything_cave_density", t.density(cave_x, t.elevation(cave_x, cave_z) - 3.0, cave_z),
                -0x1.9b5f708699b86p-3);
  expect_golden("everything_resource_density",  // gems: correlated, sharpness 0.6
                world.resources().density(2, Coord::from_double(17.5), Coord::from_double(-3.25)),
                0x1.9948e1cfd7912p-1);
}

TEST(GoldenTest, EverythingWorldTerrain) { check_everything_world_terrain(everything_world()); }

// Nearest structures of each type from one point: positions, ids and placement.
void check_everything_world_locate(const World& world) {
  const uint64_t golden[] = {0x1ecd66c74450b4cbULL, 0x819399583b158b35ULL, 0xdad0e75f782b79d5ULL,
                             0x209305c5a278e6fbULL};  // shrine, ruin, tower, keep
  StructurePlanner planner(world);
  for (uint32_t type = 0; type < world.structures().all().size(); ++type) {
    CanonicalBytes bytes;
    for (const StructureInstance& s : planner.locate(type, Coord{100, 0.0}, Coord{-50, 0.25}, 400.0)) {
      bytes.add(s.x);
      bytes.add(s.z);
      bytes.add(s.y);
      bytes.add(s.id);
      bytes.add(static_cast<uint32_t>(s.rotation.yaw_quarters * 2 + (s.rotation.tilted ? 1 : 0)));
    }
    const std::string name = "everything_locate_" + world.structures().all()[type].name;
    expect_golden(name.c_str(), bytes.hash(salt("golden.locate")), golden[type]);
  }
}

TEST(GoldenTest, EverythingWorldLocate) { check_everything_world_locate(everything_world()); }

// A game's thread as an engine may leave it: flush-to-zero and denormals-are-zero (what
// crtfastmath.o sets for anything linked with -Ofast), and rounding upward. Restores the
// previous environment on destruction.
class HostileFloatEnvironment {
 public:
  HostileFloatEnvironment() {
    std::fegetenv(&saved_);
    std::fesetround(FE_UPWARD);
#if defined(__x86_64__)
    _mm_setcsr(_mm_getcsr() | 0x8040);  // FTZ | DAZ
#endif
  }
  ~HostileFloatEnvironment() { std::fesetenv(&saved_); }
  // The environment as set, to check that the library gave it back.
  static unsigned state() {
#if defined(__x86_64__)
    return _mm_getcsr() & 0xffc0;  // control bits, not the sticky exception flags
#else
    return static_cast<unsigned>(std::fegetround());
#endif
  }

 private:
  std::fenv_t saved_;
};

// The library sets its own environment at its entry points: the same golden values from a
// hostile thread, for a World built there too, and the thread's environment is given back.
TEST(GoldenTest, HostFloatEnvironmentChangesNothing) {
  const HostileFloatEnvironment hostile;
  const unsigned state = HostileFloatEnvironment::state();
  ASSERT_EQ(std::fegetround(), FE_UPWARD);
  WorldResult built_here = load_world_json(default_world_json());
  ASSERT_TRUE(built_here.ok());
  EXPECT_EQ(built_here.world->fingerprint(), default_world().fingerprint());
  for (const World* world : {&default_world(), static_cast<const World*>(&*built_here.world)}) {
    check_default_world_terrain_points(*world);
    check_default_world_terrain_grids(*world);
    check_default_world_chunks(*world, kDefaultV2Chunks);
  }
  check_default_world_chunks(default_v1_world(), kDefaultV1Chunks);
  check_default_world_chunks(default_v3_world(), kDefaultV3Chunks);
  check_everything_world_chunks(everything_world(1), kEverythingV1Chunks);
  check_everything_world_chunks(everything_world(2), kEverythingV2Chunks);
  check_everything_world_chunks(everything_world(3), kEverythingV3Chunks);
  check_everything_world_terrain(everything_world());
  check_everything_world_locate(everything_world());
  EXPECT_EQ(HostileFloatEnvironment::state(), state) << "the caller's environment was not restored";
  EXPECT_EQ(std::fegetround(), FE_UPWARD);
}

// The fingerprint is in every chunk's bytes: it may never change while the default world pins
// generator version 2 (version 1's file keeps 9e7c8509b1c4cc46). More worlds' fingerprints:
// world_fingerprint_test.cc.
TEST(GoldenTest, DefaultWorldFingerprint) {
  EXPECT_EQ(default_world().fingerprint(), "44ed0f2ae44a28d3") << "fingerprint";
  EXPECT_EQ(default_v1_world().fingerprint(), "9e7c8509b1c4cc46") << "fingerprint";
  if (print_mode()) std::printf("fingerprint = %s\n", default_world().fingerprint().c_str());
}

}  // namespace
}  // namespace chunkforge
