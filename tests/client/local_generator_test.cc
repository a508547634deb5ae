// The SDK's local generator (chunkforge::client_local) against a real in-process server: its
// chunks are GetChunk's bytes for random chunks, near and far, under several ChunkOptions, for
// the default world and a world pinned to generator version 1, from many threads at once; and
// a world it cannot stand for (no definition, a fingerprint or version that differs, a server
// that keeps its definition) is refused with a status that says why.
#include "chunkforge/client/local_generator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "chunkforge/client.h"
#include "chunkforge/encode.h"
#include "chunkforge/v1/chunk.pb.h"
#include "chunkforge/v1/info.pb.h"
#include "generator_versions.h"
#include "local_generator_impl.h"
#include "support/free_port.h"
#include "support/store_server.h"
#include "world_server.h"

namespace chunkforge::client {
namespace {

using namespace std::chrono_literals;

// A server of `world` on loopback, and an SDK client of it.
class ServedWorld {
 public:
  explicit ServedWorld(const World& world, bool client_generation = true) {
    const int port = test::free_port();
    server_ = std::make_unique<server::WorldServer>(world, test::client_test_options(client_generation, port));
    if (!server_->start()) server_.reset();
    Result<Client> client = Client::connect("127.0.0.1:" + std::to_string(port));
    if (client) client_.emplace(std::move(*client));
  }
  ~ServedWorld() {
    if (server_) server_->shutdown(1s);
  }
  bool ok() const { return server_ != nullptr && client_.has_value(); }
  Client& client() { return *client_; }

  // GetChunk's canonical bytes, or "" after a failure (then the test fails).
  std::string served(ChunkCoord coord, const ChunkOptions& options) {
    Result<Chunk> chunk = client_->chunk(coord, options);
    EXPECT_TRUE(chunk) << chunk.status().to_string();
    return chunk ? canonical_bytes(chunk->message()) : std::string();
  }

 private:
  std::unique_ptr<server::WorldServer> server_;
  std::optional<Client> client_;
};

// ~40 chunks: most within a few thousand chunks of the origin, some near the world's edge
// (2^40 units), where coordinates are largest.
std::vector<ChunkCoord> random_chunks(uint32_t chunk_size) {
  std::mt19937_64 random(20261127);
  const int64_t edge = chunk_limit(chunk_size);
  std::uniform_int_distribution<int64_t> near(-3000, 3000), far(edge - 5000, edge);
  std::vector<ChunkCoord> out;
  out.reserve(42);
  for (int k = 0; k < 30; ++k) out.push_back({near(random), near(random)});
  for (int k = 0; k < 10; ++k) {
    const int64_t sx = (k & 1) != 0 ? -1 : 1, sz = (k & 2) != 0 ? -1 : 1;
    out.push_back({sx * far(random), sz * far(random)});
  }
  out.push_back({0, 0});
  out.push_back({edge, -edge});
  return out;
}

std::vector<ChunkOptions> option_sets() {
  ChunkOptions plain;
  ChunkOptions fine{.include_terrain = true, .terrain_step = 1, .layers = {}};
  ChunkOptions coarse_filtered{.include_terrain = true, .terrain_step = 4, .layers = {3, 0}};
  return {plain, fine, coarse_filtered};
}

std::shared_ptr<BaseGenerator> generator_of(Client& client, LocalGeneratorOptions options = {}) {
  Result<std::shared_ptr<BaseGenerator>> generator = make_local_generator(client, options);
  EXPECT_TRUE(generator) << generator.status().to_string();
  return generator ? *generator : nullptr;
}

void expect_servers_bytes(const World& world, uint32_t version) {
  ServedWorld served(world);
  ASSERT_TRUE(served.ok());
  std::shared_ptr<BaseGenerator> generator = generator_of(served.client());
  ASSERT_TRUE(generator);
  EXPECT_EQ(generator->fingerprint(), world.fingerprint());
  ASSERT_EQ(world.generator_version(), version);
  int compared = 0;
  for (const ChunkCoord& c : random_chunks(static_cast<uint32_t>(world.chunk_size()))) {
    for (const ChunkOptions& options : option_sets()) {
      std::shared_ptr<const v1::Chunk> local = generator->generate(c, options);
      ASSERT_TRUE(local);
      EXPECT_EQ(canonical_bytes(*local), served.served(c, options))
          << "chunk " << c.x << "," << c.z << " terrain " << options.include_terrain << " step " << options.terrain_step
          << " layers " << options.layers.size();
      ++compared;
    }
  }
  EXPECT_EQ(compared, 42 * 3);
}

TEST(LocalGeneratorTest, MakesGetChunksBytesForAnyOptions) { expect_servers_bytes(default_world(), 2); }

TEST(LocalGeneratorTest, MakesGetChunksBytesForAWorldPinnedToVersion1) {
  WorldResult v1_world = load_world_file(CHUNKFORGE_SOURCE_DIR "/docs/worlds/default-v1.json");
  ASSERT_TRUE(v1_world.ok());
  expect_servers_bytes(*v1_world.world, 1);
}

TEST(LocalGeneratorTest, ListsEveryVersionThisBuildGenerates) {
  ServedWorld served(default_world());
  ASSERT_TRUE(served.ok());
  std::shared_ptr<BaseGenerator> generator = generator_of(served.client());
  ASSERT_TRUE(generator);
  std::vector<uint32_t> table;
  for (const GeneratorVersion& version : chunkforge::generator_versions()) table.push_back(version.number);
  EXPECT_EQ(generator->generator_versions(), table);
  EXPECT_GE(table.size(), 2u) << "version 1 stays selectable beside the newest";
  EXPECT_EQ(table.front(), kOldestGeneratorVersion);
  EXPECT_EQ(table.back(), kGeneratorVersion);
}

// Eight threads share a generator of two streams, each generating the same chunks in its own
// order: every thread gets the server's bytes, and the streams never outnumber their bound.
TEST(LocalGeneratorTest, ManyThreadsAtOnceGetTheSameBytes) {
  ServedWorld served(default_world());
  ASSERT_TRUE(served.ok());
  std::shared_ptr<BaseGenerator> generator = generator_of(served.client(), {.max_streams = 2, .memo_cells = 4096});
  ASSERT_TRUE(generator);
  const ChunkOptions options{.include_terrain = true, .terrain_step = 4, .layers = {}};
  std::vector<ChunkCoord> chunks;
  for (int64_t z = -3; z <= 2; ++z) {
    for (int64_t x = 40; x <= 45; ++x) chunks.push_back({x, z});
  }
  std::vector<std::string> expected;
  expected.reserve(chunks.size());
  for (const ChunkCoord& c : chunks) expected.push_back(served.served(c, options));
  constexpr int kThreads = 8;
  std::vector<int> mismatches(kThreads, 0);
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::vector<size_t> order(chunks.size());
      for (size_t k = 0; k < order.size(); ++k) order[k] = k;
      std::shuffle(order.begin(), order.end(), std::mt19937(t));
      for (size_t k : order) {
        std::shared_ptr<const v1::Chunk> chunk = generator->generate(chunks[k], options);
        if (!chunk || canonical_bytes(*chunk) != expected[k]) ++mismatches[t];
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(mismatches[t], 0) << "thread " << t;
  const auto* local = dynamic_cast<const LocalGenerator*>(generator.get());
  ASSERT_NE(local, nullptr);
  EXPECT_GE(local->streams(), 1u);
  EXPECT_LE(local->streams(), 2u);
}

TEST(LocalGeneratorTest, RefusesAWorldInfoThatItsDefinitionDoesNotBuild) {
  ServedWorld served(default_world());
  ASSERT_TRUE(served.ok());
  Result<WorldInfo> info = served.client().world_info_with_definition();
  ASSERT_TRUE(info) << info.status().to_string();
  ASSERT_TRUE(info->message().has_definition());
  ASSERT_TRUE(make_local_generator(info->message()));

  v1::WorldInfo altered = info->message();
  altered.set_fingerprint("0123456789abcdef");
  Result<std::shared_ptr<BaseGenerator>> refused = make_local_generator(altered);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.status().code, StatusCode::failed_precondition);
  EXPECT_NE(refused.status().message.find("0123456789abcdef"), std::string::npos) << refused.status().message;
  EXPECT_NE(refused.status().message.find(default_world().fingerprint()), std::string::npos)
      << refused.status().message;

  altered = info->message();
  altered.set_generator_version(1);  // a version this library has, but not the definition's
  refused = make_local_generator(altered);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.status().code, StatusCode::failed_precondition) << refused.status().message;

  altered.set_generator_version(99);
  refused = make_local_generator(altered);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.status().code, StatusCode::failed_precondition);
  std::string versions;
  for (const GeneratorVersion& version : chunkforge::generator_versions()) {
    versions += (versions.empty() ? "versions " : ", ") + std::to_string(version.number);
  }
  EXPECT_NE(refused.status().message.find(versions), std::string::npos) << refused.status().message;
  EXPECT_NE(refused.status().message.find("99"), std::string::npos) << refused.status().message;
}

TEST(LocalGeneratorTest, RefusesAWorldInfoWithoutDefinition) {
  ServedWorld served(default_world());
  ASSERT_TRUE(served.ok());
  Result<WorldInfo> plain = served.client().world_info();
  ASSERT_TRUE(plain);
  ASSERT_FALSE(plain->message().has_definition());
  Result<std::shared_ptr<BaseGenerator>> refused = make_local_generator(plain->message());
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.status().code, StatusCode::failed_precondition);
  EXPECT_NE(refused.status().message.find("include_definition"), std::string::npos) << refused.status().message;
}

TEST(LocalGeneratorTest, AServerThatKeepsItsDefinitionGivesFailedPrecondition) {
  ServedWorld served(default_world(), /*client_generation=*/false);
  ASSERT_TRUE(served.ok());
  Result<std::shared_ptr<BaseGenerator>> refused = make_local_generator(served.client());
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.status().code, StatusCode::failed_precondition);
  EXPECT_NE(refused.status().message.find("--client-generation off"), std::string::npos) << refused.status().message;
  EXPECT_TRUE(served.client().chunk({3, -2})) << "the server still sends chunks";
}

TEST(LocalGeneratorTest, RefusesOptionsOutOfRange) {
  ServedWorld served(default_world());
  ASSERT_TRUE(served.ok());
  for (const LocalGeneratorOptions& options :
       {LocalGeneratorOptions{.max_streams = 0}, LocalGeneratorOptions{.max_streams = 257},
        LocalGeneratorOptions{.memo_cells = 10}}) {
    Result<std::shared_ptr<BaseGenerator>> refused = make_local_generator(served.client(), options);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.status().code, StatusCode::invalid_argument) << refused.status().message;
  }
}

// A chunk request the server refuses has no chunk: generate() throws with the server's message.
TEST(LocalGeneratorTest, ARequestTheServerRefusesThrowsItsMessage) {
  ServedWorld served(default_world());
  ASSERT_TRUE(served.ok());
  std::shared_ptr<BaseGenerator> generator = generator_of(served.client());
  ASSERT_TRUE(generator);
  const int64_t beyond = chunk_limit(64) + 1;
  const std::vector<std::pair<ChunkCoord, ChunkOptions>> refused{
      {{beyond, 0}, {}},
      {{0, 0}, {.include_terrain = true, .terrain_step = 3, .layers = {}}},
      {{0, 0}, {.include_terrain = false, .terrain_step = 0, .layers = {99}}}};
  for (const auto& [coord, options] : refused) {
    Result<Chunk> answer = served.client().chunk(coord, options);
    ASSERT_FALSE(answer);
    EXPECT_EQ(answer.status().code, StatusCode::invalid_argument);
    try {
      generator->generate(coord, options);
      ADD_FAILURE() << "generated what the server refuses: " << answer.status().message;
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(e.what(), answer.status().message);
    }
  }
}

TEST(LocalGeneratorTest, AnAbandonedGenerationGivesNullAndTheNextIsWhole) {
  ServedWorld served(default_world());
  ASSERT_TRUE(served.ok());
  std::shared_ptr<BaseGenerator> generator = generator_of(served.client(), {.max_streams = 1});
  ASSERT_TRUE(generator);
  const std::atomic<bool> abandoned{true};
  EXPECT_EQ(generator->generate({5, 5}, {}, &abandoned), nullptr);
  std::shared_ptr<const v1::Chunk> chunk = generator->generate({5, 5}, {});
  ASSERT_TRUE(chunk);
  EXPECT_EQ(canonical_bytes(*chunk), served.served({5, 5}, {}));
}

}  // namespace
}  // namespace chunkforge::client
