#include "chunkforge/client/world_info.h"

#include "chunkforge/v1/info.pb.h"

namespace chunkforge::client {
namespace {

std::vector<CatalogEntry> entries_of(const google::protobuf::RepeatedPtrField<v1::CatalogEntry>& list) {
  std::vector<CatalogEntry> out;
  out.reserve(static_cast<size_t>(list.size()));
  for (const v1::CatalogEntry& e : list) {
    out.push_back({e.id(), e.name(), e.color(), e.footprint_radius(), e.method(), e.size_x(), e.size_z(), e.height()});
  }
  return out;
}

}  // namespace

WorldInfo::WorldInfo(v1::WorldInfo message) {
  auto data = std::make_shared<Data>();
  data->biomes = entries_of(message.biomes());
  data->materials = entries_of(message.materials());
  data->resources = entries_of(message.resources());
  data->structures = entries_of(message.structures());
  data->message = std::make_shared<const v1::WorldInfo>(std::move(message));
  data_ = std::move(data);
}

const std::string& WorldInfo::name() const { return data_->message->name(); }
uint64_t WorldInfo::seed() const { return data_->message->seed(); }
uint32_t WorldInfo::generator_version() const { return data_->message->generator_version(); }
uint32_t WorldInfo::chunk_size() const { return data_->message->chunk_size(); }
double WorldInfo::sea_level() const { return data_->message->sea_level(); }
const std::string& WorldInfo::fingerprint() const { return data_->message->fingerprint(); }

}  // namespace chunkforge::client
