// File: chunkforge/chunk.h
//
// One chunk of the world: what stands on it, generated as a pure function of (world, chunk
// coordinate). The generator is the pipeline of docs/determinism.md, "Reach across chunks".
//
//   Generator gen(world);
//   ChunkData c = gen.generate({3, -2});
//   for (const ResourceObject& o : c.objects) place(o.layer, o.x, o.z, o.y);
//
// Thread safety: Generator is immutable; generate() may run on any number of threads at once.
// Each call keeps its own memo of the scatter cells it touched (docs/resources.md, "Lazy, exact evaluation").
// Cost: about 0.43 ms per cold 64-unit chunk of the default world (generator version 2; 1.2 ms
// by version 1: chunk_bench, BM_ChunkCold); about 0.35 ms through a ChunkStream in rows, where
// neighbours share their halo.
//
// Abandoning a generation (a server shutting down, a request given up): pass a flag and raise
// it from any thread; the generation notices within a few milliseconds and throws
// GenerationAbandoned. The flag is only read, never reset.
//
//   std::atomic<bool> stop{false};       // stop = true elsewhere
//   try { send(stream.generate(c, &stop)); } catch (const GenerationAbandoned&) { return; }
#pragma once

#include <array>
#include <atomic>
#include <compare>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>

#include "chunkforge/terrain.h"

namespace chunkforge {

class World;

struct ChunkCoord {
  int64_t x = 0;
  int64_t z = 0;
  friend auto operator<=>(const ChunkCoord&, const ChunkCoord&) = default;  // ordered: a key of maps and sets
};

// A point object (tree, ore node, rock). Positions are relative to the chunk's lowest corner:
// world x = chunk.x * chunk_size + x, in [0, chunk_size).
struct ResourceObject {
  uint32_t layer = 0;    // resource layer id
  double x = 0, z = 0;   // world units within the chunk
  double y = 0;          // terrain elevation at (x, z)
  double yaw = 0;        // degrees, [0, 360)
  uint32_t variant = 0;  // in [0, layer.variants)
  uint64_t id = 0;       // stable: the same object has the same id from any chunk request
  double density = 0;    // the layer's density where the object stands
};

// A 90-degree rotation: yaw in quarter turns about y, after an optional tilt of 90 degrees about
// the structure's own x axis. An integer matrix from a lookup table.
struct Rotation {
  int yaw_quarters = 0;  // 0..3
  bool tilted = false;
  const std::array<std::array<int, 3>, 3>& matrix() const;
};

// A kept structure. Its box is [x, x + size_x) x [y, y + size_y) x [z, z + size_z) in world
// units: the origin is the box's lowest corner after rotation.
struct StructureInstance {
  uint64_t id = 0;  // stable: the same from every chunk
  uint32_t type = 0;
  int64_t x = 0, z = 0;  // origin, whole world units
  double y = 0;
  Rotation rotation;
  double size_x = 0, size_y = 0, size_z = 0;  // extents after rotation
  int lod = 0;                                // level of the origin cell that holds it (>= its type's LoD)
};

struct ChunkData {
  ChunkCoord coord;
  // Canonical order: by layer, then z, then x (exact sub-cell positions), then id.
  std::vector<ResourceObject> objects;
  // Every kept structure whose footprint touches the chunk, by origin (z, x), then id.
  std::vector<StructureInstance> structures;
};

// Thrown by generate() when its `abandon` flag was raised before it finished: no chunk.
class GenerationAbandoned : public std::runtime_error {
 public:
  GenerationAbandoned() : std::runtime_error("chunk generation abandoned") {}
};

class ChunkPipeline;

class Generator {
 public:
  explicit Generator(const World& world) : world_(world) {}
  // One chunk, as a request of its own (cold: nothing shared with other calls). `abandon`
  // (may be null; must outlive the call): once it reads true, throws GenerationAbandoned.
  ChunkData generate(ChunkCoord coord, const std::atomic<bool>* abandon = nullptr) const;

 private:
  const World& world_;
};

// Generates chunks one after another (a region, a player's view), sharing the scatter memo
// between them so that neighbouring chunks do not redo each other's halo. The output is
// byte-identical to Generator::generate whatever the order; only the cost changes.
//
//   ChunkStream stream(world);
//   for (ChunkCoord c : spiral) send(stream.generate(c));
//
// Not thread-safe: one per thread or request. Memory is bounded: once the memo holds more
// than `max_cells` scatter cells (about 100-600 bytes each) it starts afresh.
class ChunkStream {
 public:
  explicit ChunkStream(const World& world, size_t max_cells = 65536);
  ~ChunkStream();
  // As Generator::generate. An abandoned generation also drops the memo (it may be half
  // built), so the stream stays usable: later chunks are exactly what they would have been.
  ChunkData generate(ChunkCoord coord, const std::atomic<bool>* abandon = nullptr);

 private:
  // The world's generator version's pipeline (lib/src/generator_versions.h).
  std::unique_ptr<ChunkPipeline> pipeline_;
};

}  // namespace chunkforge
