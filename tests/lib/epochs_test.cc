// A world with two epochs (chunkforge/epochs.h, tests/lib/two_epochs.h): seen land keeps its
// bytes, new land away from the seam is the new epoch's, the seam has no cliff, objects keep
// their spacing across it and no structure is cut. Each property is also shown to fail for
// the naive world that puts the two epochs' chunks side by side with no seam rule.
#include "chunkforge/epochs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "chunkforge/encode.h"
#include "chunkforge/quality.h"
#include "two_epochs.h"

namespace chunkforge {
namespace {

using test::in_seen_disc;
using test::two_epochs;

std::string pure_bytes(const World& world, ChunkCoord c, int64_t step) {
  v1::Chunk msg = encode_chunk(world, Generator(world).generate(c));
  add_terrain(world, step, msg);
  return canonical_bytes(msg);
}

TEST(EpochsTest, ANextEpochKeepsTheChunkSizeAndTheIdsEditsReferTo) {
  v1::WorldDefinition next = default_world().definition();
  next.set_chunk_size(32);
  next.mutable_structures(1)->set_name("hut");
  next.mutable_resources()->RemoveLast();
  const WorldResult world = World::create(next);
  ASSERT_TRUE(world.ok());
  const EpochsResult r = Epochs::create({default_world(), *world.world}, SeenLand());
  ASSERT_FALSE(r.ok());
  std::string all;
  for (const FieldError& e : r.errors) all += e.to_string() + "\n";
  EXPECT_NE(all.find("epochs[1].chunk_size: must stay 64"), std::string::npos) << all;
  EXPECT_NE(all.find("epochs[1].structures[1].name: must stay \"cabin\""), std::string::npos) << all;
  EXPECT_NE(all.find("epochs[1].resources[3].name: missing"), std::string::npos) << all;

  SeenLand seen;
  seen.mark({0, 0}, 2);
  const EpochsResult beyond = Epochs::create({default_world()}, seen);
  ASSERT_FALSE(beyond.ok());
  EXPECT_NE(beyond.errors[0].to_string().find("seen: holds chunks seen in epoch 2"), std::string::npos);
}

TEST(EpochsTest, SeenChunksKeepTheirBytes) {
  const Epochs& epochs = two_epochs();
  int checked = 0;
  for (int64_t z = -test::kSeenRadius; z <= test::kSeenRadius; ++z) {
    for (int64_t x = -test::kSeenRadius; x <= test::kSeenRadius; ++x) {
      if (!in_seen_disc({x, z})) continue;
      ASSERT_EQ(epochs.epoch_of({x, z}), 0u);
      EXPECT_EQ(canonical_bytes(epochs.encode({x, z}, 4)), pure_bytes(default_world(), {x, z}, 4))
          << "seen chunk (" << x << ", " << z << ")";
      ++checked;
    }
  }
  EXPECT_EQ(checked, 81);
}

TEST(EpochsTest, NewLandBeyondTheSeamsReachIsTheNewEpochs) {
  const Epochs& epochs = two_epochs();
  const Epochs::Reach& r = epochs.reaches();
  std::printf("reach in chunks: band %lld, structures %lld, objects %lld\n", static_cast<long long>(r.band),
              static_cast<long long>(r.structures), static_cast<long long>(r.objects));
  const int64_t far = test::kSeenRadius + epochs.reach() + 1;
  for (const ChunkCoord c :
       {ChunkCoord{far, 0}, ChunkCoord{-far, 3}, ChunkCoord{2, far}, ChunkCoord{far, -far}, ChunkCoord{1000, -70000}}) {
    EXPECT_EQ(epochs.epoch_of(c), 1u);
    EXPECT_EQ(canonical_bytes(epochs.encode(c, 4)), pure_bytes(test::next_epoch_world(), c, 4))
        << "(" << c.x << ", " << c.z << ")";
  }
  // Nearer, the seam's rules may change the chunk; within the band the terrain always does.
  EXPECT_NE(canonical_bytes(epochs.encode({test::kSeenRadius + 1, 0}, 4)),
            pure_bytes(test::next_epoch_world(), {test::kSeenRadius + 1, 0}, 4));
}

// Heights of every column of a strip of chunks from the origin eastwards across the disc's
// edge, and which epoch's chunk each column lies in.
struct Strip {
  static constexpr int kChunks = 10, kSide = 64;
  std::vector<double> height;  // [z][x], kSide rows of kChunks * kSide columns
  std::vector<uint32_t> epoch;
  double at(int64_t x, int64_t z) const { return height[z * kChunks * kSide + x]; }
};

Strip strip(const World& old_world, const World& new_world, bool blended) {
  const Epochs& epochs = two_epochs();
  Strip s;
  s.height.resize(Strip::kSide * Strip::kChunks * Strip::kSide);
  s.epoch.resize(Strip::kChunks);
  for (int64_t cx = 0; cx < Strip::kChunks; ++cx) {
    const uint32_t e = epochs.epoch_of({cx, 0});
    s.epoch[cx] = e;
    const World& world = !blended ? (e == 0 ? old_world : new_world) : epochs.shown(e);
    const TerrainGrid g = world.terrain().grid(cx, 0, 1);
    for (int z = 0; z < Strip::kSide; ++z) {
      for (int x = 0; x < Strip::kSide; ++x) {
        s.height[z * Strip::kChunks * Strip::kSide + cx * Strip::kSide + x] = g.elevation()[g.index(x, z)];
      }
    }
  }
  return s;
}

struct Steps {
  double old_land = 0, new_land = 0, seam = 0;  // the largest step between neighbouring columns
};

// Seam: steps with a column within the band of the seam on the new side (or across it).
Steps steps(const Strip& s, double band) {
  Steps out;
  const int64_t edge = (std::find(s.epoch.begin(), s.epoch.end(), 1u) - s.epoch.begin()) * Strip::kSide;
  for (int64_t z = 0; z < Strip::kSide; ++z) {
    for (int64_t x = 0; x + 1 < Strip::kChunks * Strip::kSide; ++x) {
      const double step = std::abs(s.at(x + 1, z) - s.at(x, z));
      double& slot = x + 1 < edge                                  ? out.old_land
                     : static_cast<double>(x - edge) >= band + 1.0 ? out.new_land
                                                                   : out.seam;
      slot = std::max(slot, step);
    }
  }
  return out;
}

TEST(EpochsTest, TheSeamHasNoCliff) {
  const Epochs& epochs = two_epochs();
  const Steps naive = steps(strip(default_world(), test::next_epoch_world(), false), epochs.band());
  const Steps blended = steps(strip(default_world(), test::next_epoch_world(), true), epochs.band());
  std::printf("largest step: old land %.2f, new land %.2f, seam %.2f (naive %.2f)\n", blended.old_land,
              blended.new_land, blended.seam, naive.seam);
  EXPECT_EQ(blended.old_land, naive.old_land);  // seen land untouched
  EXPECT_EQ(blended.new_land, naive.new_land);  // beyond the band untouched
  const double inside = std::max(blended.old_land, blended.new_land);
  EXPECT_LE(blended.seam, 1.5 * inside);
  EXPECT_GT(naive.seam, 1.5 * inside);  // the cliff the blend removes
}

// Objects of a window of chunks across the seam, each with its own epoch's spacing.
RegionPoints window(bool with_seam_rules) {
  const Epochs& epochs = two_epochs();
  RegionPoints pts;
  pts.origin = {3, -3};
  pts.chunks = 6;
  pts.chunk_size = 64;
  for (int64_t cz = pts.origin.z; cz < pts.origin.z + pts.chunks; ++cz) {
    for (int64_t cx = pts.origin.x; cx < pts.origin.x + pts.chunks; ++cx) {
      const uint32_t e = epochs.epoch_of({cx, cz});
      const ChunkData data =
          with_seam_rules ? epochs.generate({cx, cz}).data : Generator(epochs.world(e)).generate({cx, cz});
      for (const ResourceObject& o : data.objects) {
        const ResourceLayer& layer = epochs.world(e).resources().layer(o.layer);
        pts.objects.push_back({o.layer,
                               static_cast<double>((cx - pts.origin.x) * 64) + o.x,
                               static_cast<double>((cz - pts.origin.z) * 64) + o.z,
                               layer.spacing / o.density,
                               {cx, cz}});
      }
    }
  }
  return pts;
}

TEST(EpochsTest, ObjectsKeepTheirSpacingAcrossTheSeam) {
  const SpacingReport naive = check_spacing(test::next_epoch_world(), window(false));
  const SpacingReport seam = check_spacing(test::next_epoch_world(), window(true));
  std::printf("spacing violations across the seam: %llu (naive %llu) of %llu pairs\n",
              static_cast<unsigned long long>(seam.violations), static_cast<unsigned long long>(naive.violations),
              static_cast<unsigned long long>(seam.pairs_checked));
  EXPECT_EQ(seam.violations, 0u);
  EXPECT_GT(naive.violations, 0u);
}

TEST(EpochsTest, NoStructureIsCutAndChunksDoNotDependOnOrder) {
  const Epochs& epochs = two_epochs();
  std::map<ChunkCoord, std::vector<StructureInstance>> shown;
  std::map<ChunkCoord, std::string> bytes;
  std::map<uint64_t, StructureInstance> by_id;
  for (int64_t cz = -7; cz <= 7; ++cz) {
    for (int64_t cx = 2; cx <= 9; ++cx) {
      const EpochChunk chunk = epochs.generate({cx, cz});
      shown[{cx, cz}] = chunk.data.structures;
      bytes[{cx, cz}] = canonical_bytes(encode_chunk(epochs.world(chunk.epoch), chunk.data));
      for (const StructureInstance& s : shown[{cx, cz}]) by_id[s.id] = s;
    }
  }
  int spanning = 0, spanning_epochs = 0;
  for (const auto& [id, s] : by_id) {
    std::vector<uint32_t> touched;
    for (const auto& [c, list] : shown) {
      const bool touches = s.x < (c.x + 1) * 64 &&
                           static_cast<double>(s.x) + s.size_x > static_cast<double>(c.x * 64) &&
                           s.z < (c.z + 1) * 64 && static_cast<double>(s.z) + s.size_z > static_cast<double>(c.z * 64);
      if (!touches) continue;
      touched.push_back(epochs.epoch_of(c));
      const uint64_t wanted = id;  // clang 14 cannot capture a structured binding
      const auto it =
          std::find_if(list.begin(), list.end(), [&](const StructureInstance& t) { return t.id == wanted; });
      ASSERT_NE(it, list.end()) << "structure " << id << " missing from chunk (" << c.x << ", " << c.z << ")";
      EXPECT_EQ(it->y, s.y);
      EXPECT_EQ(it->type, s.type);
    }
    spanning += touched.size() > 1;
    spanning_epochs += std::find(touched.begin(), touched.end(), 0u) != touched.end() &&
                       std::find(touched.begin(), touched.end(), 1u) != touched.end();
  }
  std::printf("%zu structures, %d over several chunks, %d kept whole over both epochs' land\n", by_id.size(), spanning,
              spanning_epochs);
  EXPECT_GT(spanning_epochs, 0);
  // Asked again in reverse order through one stream (its memos shared): the same bytes.
  EpochStream stream(test::two_epochs_shared());
  for (auto it = bytes.rbegin(); it != bytes.rend(); ++it) {
    const EpochChunk chunk = stream.generate(it->first);
    EXPECT_EQ(canonical_bytes(encode_chunk(epochs.world(chunk.epoch), chunk.data)), it->second)
        << it->first.x << ", " << it->first.z;
  }
}

// A client that holds every epoch's world gets only the older land near the chunks it makes
// (Epochs::older_land): with it, and nothing else seen, it makes each of them byte for byte as
// the whole record does. The record here also holds a second patch of older land far away and
// land seen in the newest epoch, which no excerpt near the first patch carries.
TEST(EpochsTest, TheOlderLandNearAChunkIsAllItsMakerNeeds) {
  SeenLand seen = test::seen_disc();
  for (int64_t x = 40; x <= 44; ++x) {
    for (int64_t z = 0; z <= 3; ++z) seen.mark({x, z}, 0);
  }
  for (int64_t x = 9; x <= 12; ++x) seen.mark({x, 0}, 1);
  const EpochsResult whole = Epochs::create({default_world(), test::next_epoch_world()}, seen);
  ASSERT_TRUE(whole.ok());
  std::vector<ChunkCoord> asked;
  for (int64_t x = -9; x <= 19; ++x) asked.insert(asked.end(), {{x, 0}, {x, 5}});  // the disc's regions end at 15
  for (int64_t x = 34; x <= 50; x += 2) asked.insert(asked.end(), {{x, 1}, {x, 40}});
  size_t near_older = 0;
  for (const ChunkCoord c : asked) {
    const SeenLand land = whole.epochs->older_land(c, c);
    EXPECT_EQ(land.epochs() <= 1, true);  // the newest epoch's marks stay behind
    const EpochsResult mine = Epochs::create({default_world(), test::next_epoch_world()}, land);
    ASSERT_TRUE(mine.ok());
    near_older += land.chunks_seen() > 0;
    EXPECT_EQ(canonical_bytes(mine.epochs->encode(c, 8)), canonical_bytes(whole.epochs->encode(c, 8)))
        << c.x << ", " << c.z;
  }
  std::printf("reach %lld chunks; %zu of %zu chunks asked need older land\n",
              static_cast<long long>(whole.epochs->reach()), near_older, asked.size());
  EXPECT_GT(near_older, 10u);
  EXPECT_LT(near_older, asked.size());
  // Far from both patches there is nothing to send.
  EXPECT_EQ(whole.epochs->older_land({200, 200}, {210, 210}).maps(), 0u);
  EXPECT_LT(whole.epochs->older_land({0, 0}, {0, 0}).chunks_seen(), seen.chunks_seen());
}

}  // namespace
}  // namespace chunkforge
