// File: chunkforge/terrain.h
//
// The prescriptive terrain: every field at any point of the infinite plane, computed on demand
// by pure functions (docs/world-definition.md). Structure checks and resource filters call
// the same functions as the chunk grid, so nothing depends on which chunks were generated.
// The fields themselves (elevation, temperature, moisture, slope) are the rows of
// kTerrainFields (terrain_fields.h); points and grids hold their values by row.
//
//   const Terrain& t = world.terrain();
//   TerrainPoint p = t.sample(Coord::from_double(10.5), Coord::from_double(-4.0));
//   double height = p.elevation();
//   TerrainGrid g = t.grid(/*cx=*/3, /*cz=*/-2, /*step=*/2);  // 32 x 32 for 64-unit chunks
//
// grid() returns exactly the values sample() returns at the same points (tested bit for bit).
// Thread safety: immutable after construction; all methods const and thread-safe. Each sets the
// floating-point environment it needs on the calling thread (float_environment.h).
// Cost: sample() evaluates elevation 5 times (centre + 4 for the slope), in one Fractal::cross
// that shares their lattice corners; grid() with step 1
// evaluates (n + 2)^2 elevations with batched noise, much cheaper per point; coarser steps
// evaluate 5 n^2, still batched.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "chunkforge/coord.h"
#include "chunkforge/noise.h"
#include "chunkforge/terrain_fields.h"

namespace chunkforge {

struct TerrainPoint {
  TerrainValues values{};  // by row of kTerrainFields
  uint32_t biome = 0;      // index into WorldDefinition.biomes
  uint32_t material = 0;   // index into WorldDefinition.materials

  double elevation() const { return values[kElevation]; }  // surface y, world units
  double slope() const { return values[kSlope]; }          // rise over run
};

// Samples of a square lattice at a step: sample (i, j) stands at (x0 + i * step, z0 + j * step),
// row-major with j (z) outer; for a chunk's grid (x0, z0) is the chunk's corner.
struct TerrainGrid {
  int size = 0;  // samples per side: chunk_size / step for a chunk
  int64_t step = 1;
  std::array<std::vector<double>, kTerrainFieldCount> values;  // by row of kTerrainFields
  std::vector<uint32_t> biome, material;

  size_t index(int i, int j) const { return static_cast<size_t>(j) * size + i; }
  const std::vector<double>& elevation() const { return values[kElevation]; }
  TerrainPoint at(int i, int j) const;
};

// An elevation laid over a terrain's own where its land meets land of an older epoch
// (chunkforge/epochs.h): given the terrain's own elevation at a point, the elevation there.
// Pure and thread-safe, as the terrain is.
class ElevationBlend {
 public:
  virtual ~ElevationBlend() = default;
  virtual double at(Coord x, Coord z, double own) const = 0;
  // at() over a lattice of nx x nz samples from (x0, z0) at `step`, in place (row-major, z
  // outer): the same bits, with the work per lattice shared.
  virtual void lattice(Coord x0, Coord z0, int64_t step, int nx, int nz, double* values) const = 0;
};

class Terrain {
 public:
  // `resolved` must be valid with defaults applied (World::create does both).
  explicit Terrain(const v1::WorldDefinition& resolved);
  // This terrain with its elevation passed through `blend` everywhere it is read (the slope,
  // biome and material follow from the blended elevation); null: this terrain as it is.
  Terrain blended(std::shared_ptr<const ElevationBlend> blend) const;

  double elevation(Coord x, Coord z) const;
  double slope(Coord x, Coord z) const;
  // One field's value (a row of kTerrainFields), as sample() gives it, computing only that.
  double field(size_t f, Coord x, Coord z) const;
  TerrainPoint sample(Coord x, Coord z) const;
  // The biome alone (no slope, no material): the fields biome rules can test.
  uint32_t biome(Coord x, Coord z) const;
  // elevation - y, with caves carved; > 0 inside the ground, < 0 in the air.
  double density(Coord x, double y, Coord z) const;

  // The chunk's samples at `step` (which divides chunk_size).
  TerrainGrid grid(int64_t cx, int64_t cz, int64_t step) const;
  // `size` x `size` samples from any corner at any step >= 1, batched as grid() (which is this
  // lattice at the chunk's corner): for views not aligned to chunks, such as a zoomed-out map
  // tile whose pixels lie several chunks apart. The same values as sample(), bit for bit.
  TerrainGrid lattice(Coord x0, Coord z0, int64_t step, int size) const;

 private:
  struct MaterialRule {
    TerrainBounds fields;
    std::vector<uint32_t> biomes;  // empty: any
    std::optional<Fractal> noise;
    Interval noise_range;
  };
  struct Caves {
    Fractal noise;
    double threshold;
    double strength;
  };

  // The elevation at a point, and Fractal::cross's five (centre, x - 1, x + 1, z - 1, z + 1),
  // blended where a blend is laid over them.
  double elevation_at(Coord x, Coord z) const;
  void elevation_cross(Coord x, Coord z, double e[5]) const;
  // The elevation over a lattice, blended.
  void elevation_grid(Coord x0, Coord z0, int64_t step, int nx, int nz, double* out) const;
  // `values` needs only the fields biome rules can test; the others are unbounded in them.
  uint32_t classify_biome(const TerrainValues& values) const;
  // `detail_noise(id)` gives material id's detail noise at the point; called only for rules
  // that reach their noise condition.
  template <typename DetailNoise>
  uint32_t classify_material(const TerrainPoint& p, const DetailNoise& detail_noise) const;
  // Every field with a noise of its own but elevation (which the slope needs around it).
  void fill_noise_fields(Coord x0, Coord z0, int64_t step, TerrainGrid& g) const;
  void fill_elevation_and_slope(Coord x0, Coord z0, int64_t step, TerrainGrid& g) const;
  void classify_grid(Coord x0, Coord z0, int64_t step, TerrainGrid& g) const;

  int64_t chunk_size_;
  std::array<Fractal, kTerrainFieldCount> noise_;  // by field; unused for derived fields
  std::optional<Caves> caves_;
  std::vector<TerrainBounds> biomes_;
  std::vector<MaterialRule> materials_;
  std::shared_ptr<const ElevationBlend> blend_;
};

}  // namespace chunkforge
