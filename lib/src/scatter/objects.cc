// A chunk's objects (see field.h): every layer's cells in the chunk decided, their accepted,
// viable candidates placed in world coordinates and given their attributes, in canonical order.
#include <algorithm>
#include <tuple>

#include "abandon.h"
#include "scatter/constants.h"
#include "scatter/field.h"

namespace chunkforge {

using namespace scatter;

double ScatterField::local(uint32_t layer, int64_t cell, uint32_t sub, int64_t chunk) const {
  const int64_t n = layer_[layer].n;
  return static_cast<double>(local_sub(layer, cell, sub, chunk)) * static_cast<double>(layers_.chunk_size()) /
         (static_cast<double>(n) * kSubD);
}

Coord ScatterField::world_x(uint32_t layer, const Cell& c, const Candidate& a) const {
  return grid_coord(c.i, a.u, layer_[layer].n, layers_.chunk_size());
}

Coord ScatterField::world_z(uint32_t layer, const Cell& c, const Candidate& a) const {
  return grid_coord(c.j, a.v, layer_[layer].n, layers_.chunk_size());
}

std::vector<ResourceObject> ScatterField::objects_in_chunk(ChunkCoord chunk) {
  struct Keyed {
    int64_t z, x;
    ResourceObject object;
  };
  std::vector<Keyed> found;
  // Every layer's density tile first: deciding one layer's objects asks the other layers' cells
  // around them.
  for (uint32_t layer = 0; layer < layers_.size(); ++layer) prefetch_densities(layer, chunk);
  // Spaced layers decide the whole chunk in arrival order first (sweep.cc), every layer before
  // any existence is asked: existence asks the other layers' cells around each object, which
  // the lazy resolution would otherwise decide first. The rest ask cell by cell, which decides
  // what each cell needs.
  for (uint32_t layer = 0; layer < layers_.size(); ++layer) {
    poll_abandon(abandon_);
    if (sweeps(layer)) sweep_chunk(layer, chunk);
  }
  for (uint32_t layer = 0; layer < layers_.size(); ++layer) {
    poll_abandon(abandon_);
    const ResourceLayer& l = *layer_[layer].def;
    const int64_t n = layer_[layer].n;
    for_each_cell_in_chunk(layer, chunk, [&](Cell& c) {
      decide_all(layer, c);
      if (c.accepted < 0) return;
      Candidate& a = c.candidates[c.accepted];
      const int64_t sub_x = local_sub(layer, c.i, a.u, chunk.x), sub_z = local_sub(layer, c.j, a.v, chunk.z);
      if (sub_x < 0 || sub_z < 0 || sub_x >= n * kSub || sub_z >= n * kSub) return;  // anchored elsewhere
      if (!is_object(layer, c)) return;
      const uint64_t attributes = hash(seed_, kAttributeSalt, l.salt.value, c.i, c.j, a.k());
      ResourceObject o;
      o.layer = layer;
      o.x = local(layer, c.i, a.u, chunk.x);
      o.z = local(layer, c.j, a.v, chunk.z);
      o.y = terrain_.elevation(world_x(layer, c, a), world_z(layer, c, a));
      o.yaw = unit_double(attributes) * 360.0;
      o.variant = static_cast<uint32_t>((attributes & 0xffffffffu) % l.variants);
      o.id = hash(seed_, kIdSalt, l.salt.value, c.i, c.j, a.k());
      o.density = c.density;
      found.push_back(Keyed{sub_z, sub_x, o});
    });
  }
  std::sort(found.begin(), found.end(), [](const Keyed& a, const Keyed& b) {
    return std::tie(a.object.layer, a.z, a.x, a.object.id) < std::tie(b.object.layer, b.z, b.x, b.object.id);
  });
  std::vector<ResourceObject> objects;
  objects.reserve(found.size());
  for (Keyed& k : found) objects.push_back(k.object);
  return objects;
}

}  // namespace chunkforge
