// The typed read view of a chunk (chunk.h) over the wire message, without copying its arrays.
#include "chunkforge/client/chunk.h"

#include <algorithm>
#include <cmath>

#include "chunkforge/v1/chunk.pb.h"
#include "chunkforge/world_extent.h"
#include "client_impl.h"

namespace chunkforge::client {

ChunkCoord chunk_at(double x, double z, uint32_t chunk_size) {
  // The server's own rule (chunkforge/world_extent.h), so both agree on every view.
  return {chunkforge::chunk_coordinate(x, chunk_size), chunkforge::chunk_coordinate(z, chunk_size)};
}

uint32_t TerrainView::step() const { return chunk_->terrain().step(); }
uint32_t TerrainView::size() const { return chunk_->terrain().size(); }

float TerrainView::elevation(uint32_t i, uint32_t j) const {
  return chunk_->terrain().elevation(static_cast<int>(j * size() + i));
}
uint32_t TerrainView::biome(uint32_t i, uint32_t j) const {
  return chunk_->terrain().biome(static_cast<int>(j * size() + i));
}
uint32_t TerrainView::material(uint32_t i, uint32_t j) const {
  return chunk_->terrain().material(static_cast<int>(j * size() + i));
}

ObjectRange::ObjectRange(std::shared_ptr<const v1::Chunk> chunk, WorldInfo world)
    : chunk_(std::move(chunk)), world_(std::move(world)) {
  const v1::Objects& o = chunk_->objects();
  size_ = static_cast<size_t>(o.layer_size());
  // The same sum the command-line client prints: the chunk origin (exact) plus the float offset.
  const double size = chunk_->chunk_size();
  origin_x_ = static_cast<double>(chunk_->coord().x()) * size;
  origin_z_ = static_cast<double>(chunk_->coord().z()) * size;
  // A well-formed chunk has arrays of one length (the server's encoder guarantees it); a
  // shorter one would be read out of bounds, so such a chunk shows no objects.
  if (o.x_size() != o.layer_size() || o.z_size() != o.layer_size() || o.y_size() != o.layer_size() ||
      o.yaw_size() != o.layer_size() || o.variant_size() != o.layer_size() || o.id_size() != o.layer_size()) {
    size_ = 0;
    return;
  }
  layer_ = o.layer().data();
  variant_ = o.variant().data();
  x_ = o.x().data();
  z_ = o.z().data();
  y_ = o.y().data();
  yaw_ = o.yaw().data();
  id_ = o.id().data();
}

Chunk::Chunk(std::shared_ptr<const v1::Chunk> message, WorldInfo world)
    : message_(std::move(message)), world_(std::move(world)), encoded_bytes_(message_->ByteSizeLong()) {}

ChunkCoord Chunk::coord() const { return {message_->coord().x(), message_->coord().z()}; }
uint32_t Chunk::chunk_size() const { return message_->chunk_size(); }
uint32_t Chunk::generator_version() const { return message_->generator_version(); }
const std::string& Chunk::world_fingerprint() const { return message_->world_fingerprint(); }
double Chunk::origin_x() const { return static_cast<double>(message_->coord().x()) * message_->chunk_size(); }
double Chunk::origin_z() const { return static_cast<double>(message_->coord().z()) * message_->chunk_size(); }

uint64_t Chunk::edit_version() const { return message_->edit_version(); }

std::string_view Chunk::object_state(uint64_t object_id) const {
  // Kept sorted by id, one per object (chunkforge::apply_change).
  const auto& states = message_->object_states();
  const auto it = std::lower_bound(states.begin(), states.end(), object_id,
                                   [](const v1::ObjectState& s, uint64_t id) { return s.id() < id; });
  return it != states.end() && it->id() == object_id ? std::string_view(it->state()) : std::string_view();
}

ObjectRange Chunk::objects() const { return ObjectRange(message_, world_); }

Structure structure_of(const v1::StructureInstance& s, const WorldInfo& world) {
  return {s.id(),          s.type(),   world.structure_name(s.type()),
          s.x(),           s.z(),      s.y(),
          s.yaw_degrees(), s.tilted(), s.size_x(),
          s.size_y(),      s.size_z()};
}

std::vector<Structure> Chunk::structures() const {
  std::vector<Structure> out;
  out.reserve(static_cast<size_t>(message_->structures_size()));
  for (const v1::StructureInstance& s : message_->structures()) out.push_back(structure_of(s, world_));
  return out;
}

std::optional<TerrainView> Chunk::terrain() const {
  if (!message_->has_terrain()) return std::nullopt;
  // The accessors index size * size entries without checks (the server's encoder fills them
  // all); a grid whose arrays are shorter would be read out of bounds, so such a chunk shows no
  // terrain, as a ragged object array shows no objects.
  const v1::TerrainGrid& grid = message_->terrain();
  const uint64_t samples = uint64_t{grid.size()} * grid.size();
  const auto whole = [samples](int entries) { return static_cast<uint64_t>(entries) == samples; };
  if (!whole(grid.elevation_size()) || !whole(grid.biome_size()) || !whole(grid.material_size())) {
    return std::nullopt;
  }
  return TerrainView(message_);
}

}  // namespace chunkforge::client
