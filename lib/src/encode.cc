// Chunks and world summaries to their wire messages and canonical bytes.
#include "chunkforge/encode.h"

#include <cmath>

#include "chunkforge/float_environment.h"
#include "chunkforge/hash.h"
#include "chunkforge/world.h"

namespace chunkforge {
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

// v rounded to float, kept below `limit` (> 0): a double just under a bound of a half-open range
// may round up onto the bound itself (x just under chunk_size, yaw just under 360). Only that
// case moves, to the largest float below the bound.
float float_below(double v, float limit) {
  const float f = static_cast<float>(v);
  return f < limit ? f : std::nextafter(limit, 0.0f);
}

}  // namespace

v1::WorldInfo describe_world(const World& world) {
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

v1::Chunk encode_chunk(const World& world, const ChunkData& chunk) {
  // Rounding to float follows the rounding mode: the environment is the library's here too.
  const FloatEnvironmentGuard fp_guard;
  const float size = static_cast<float>(world.chunk_size());  // exact: at most 1024
  v1::Chunk out;
  out.mutable_coord()->set_x(chunk.coord.x);
  out.mutable_coord()->set_z(chunk.coord.z);
  out.set_chunk_size(static_cast<uint32_t>(world.chunk_size()));
  out.set_generator_version(world.generator_version());
  out.set_world_fingerprint(world.fingerprint());
  v1::Objects& o = *out.mutable_objects();
  for (const ResourceObject& r : chunk.objects) {
    o.add_layer(r.layer);
    o.add_x(float_below(r.x, size));  // [0, chunk_size), as ResourceObject promises
    o.add_z(float_below(r.z, size));
    o.add_y(static_cast<float>(r.y));
    o.add_yaw(float_below(r.yaw, 360.0f));  // [0, 360)
    o.add_variant(r.variant);
    o.add_id(r.id);
  }
  for (const StructureInstance& st : chunk.structures) *out.add_structures() = encode_structure(st);
  return out;
}

v1::StructureInstance encode_structure(const StructureInstance& st) {
  v1::StructureInstance m;
  m.set_id(st.id);
  m.set_type(st.type);
  m.set_x(st.x);
  m.set_z(st.z);
  m.set_y(st.y);
  m.set_yaw_degrees(static_cast<uint32_t>(st.rotation.yaw_quarters * 90));
  m.set_tilted(st.rotation.tilted);
  m.set_size_x(st.size_x);
  m.set_size_y(st.size_y);
  m.set_size_z(st.size_z);
  return m;
}

void add_terrain(const World& world, int64_t step, v1::Chunk& chunk) {
  const FloatEnvironmentGuard fp_guard;
  const TerrainGrid g = world.terrain().grid(chunk.coord().x(), chunk.coord().z(), step);
  v1::TerrainGrid& t = *chunk.mutable_terrain();
  t.set_step(static_cast<uint32_t>(step));
  t.set_size(static_cast<uint32_t>(g.size));
  for (double e : g.elevation()) t.add_elevation(static_cast<float>(e));
  for (uint32_t b : g.biome) t.add_biome(b);
  for (uint32_t m : g.material) t.add_material(m);
}

}  // namespace chunkforge
