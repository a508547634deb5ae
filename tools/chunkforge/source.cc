#include "source.h"

#include <fstream>
#include <iostream>
#include <sstream>

#include "chunkforge/client/client.h"
#include "chunkforge/encode.h"
#include "chunkforge/structures.h"
#include "world_options.h"

namespace chunkforge::tool {
namespace {

class OfflineSource final : public Source {
 public:
  explicit OfflineSource(World world) : world_(std::move(world)), info_(describe_world(world_)) {}
  const v1::WorldInfo& info() const override { return info_; }
  std::optional<std::vector<v1::Chunk>> chunks(const Rect& rect, const RegionOptions& options) override {
    return generate_rect(world_, rect, options);
  }
  std::optional<std::vector<v1::StructureInstance>> locate(const std::string& type, int64_t x, int64_t z,
                                                            double radius, uint32_t limit) override {
    const StructureType* found = nullptr;
    for (const StructureType& t : world_.structures().all()) {
      if (t.name == type) found = &t;
    }
    if (found == nullptr) {
      std::cerr << "locate: the world has no structure type \"" << type << "\"\n";
      return std::nullopt;
    }
    std::vector<StructureInstance> instances =
        StructurePlanner(world_).locate(found->id, Coord{x, 0.0}, Coord{z, 0.0}, radius);
    if (instances.size() > limit) instances.resize(limit);
    std::vector<v1::StructureInstance> out;
    for (const StructureInstance& s : instances) out.push_back(encode_structure(s));
    return out;
  }
  bool online() const override { return false; }

 private:
  World world_;
  v1::WorldInfo info_;
};

class ServerSource final : public Source {
 public:
  ServerSource(client::Client client, client::WorldInfo info, std::string command)
      : client_(std::move(client)), info_(std::move(info)), command_(std::move(command)) {}
  const v1::WorldInfo& info() const override { return info_.message(); }
  // One GetChunk per chunk, in row order: each carries its chunk key, so behind a load balancer
  // every chunk comes from the replica that caches it.
  std::optional<std::vector<v1::Chunk>> chunks(const Rect& rect, const RegionOptions& options) override {
    client::ChunkOptions chunk_options;
    chunk_options.include_terrain = options.terrain_step > 0;
    chunk_options.terrain_step = static_cast<uint32_t>(options.terrain_step);
    std::vector<v1::Chunk> out;
    for (int64_t z = rect.z0; z <= rect.z1; ++z) {
      for (int64_t x = rect.x0; x <= rect.x1; ++x) {
        client::Result<client::Chunk> chunk = client_.chunk({x, z}, chunk_options);
        if (!chunk) {
          std::cerr << command_ << ": chunk (" << x << ", " << z << ") from " << client_.target() << ": "
                    << chunk.status().to_string() << '\n';
          return std::nullopt;
        }
        out.push_back(chunk->message());
      }
    }
    return out;
  }
  std::optional<std::vector<v1::StructureInstance>> locate(const std::string& type, int64_t x, int64_t z,
                                                            double radius, uint32_t limit) override {
    client::Result<std::vector<client::Structure>> found = client_.locate(type, x, z, radius, limit);
    if (!found) {
      std::cerr << "locate: " << client_.target() << ": " << found.status().to_string() << '\n';
      return std::nullopt;
    }
    std::vector<v1::StructureInstance> out;
    for (const client::Structure& s : *found) {
      v1::StructureInstance& m = out.emplace_back();
      m.set_id(s.id);
      m.set_type(s.type);
      m.set_x(s.x);
      m.set_z(s.z);
      m.set_y(s.y);
      m.set_yaw_degrees(s.yaw_degrees);
      m.set_tilted(s.tilted);
      m.set_size_x(s.size_x);
      m.set_size_y(s.size_y);
      m.set_size_z(s.size_z);
    }
    return out;
  }
  bool online() const override { return true; }

 private:
  client::Client client_;
  client::WorldInfo info_;
  std::string command_;
};

std::optional<std::string> read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

ArgSpec with_source_options(ArgSpec spec) {
  spec = with_world_options(std::move(spec));
  spec.value_options.insert({"--server", "--tls-ca", "--token-file"});
  spec.flag_options.insert("--tls");
  return spec;
}

std::optional<client::Client> connect_client(const Args& args, const std::string& command) {
  client::ConnectOptions options;
  options.tls = args.has("--tls") || args.value("--tls-ca");
  if (const std::string* path = args.value("--tls-ca")) {
    std::optional<std::string> pem = read_text(*path);
    if (!pem) {
      std::cerr << command << ": --tls-ca: cannot read \"" << *path << "\"\n";
      return std::nullopt;
    }
    options.tls_root_certificates = *pem;
  }
  if (const std::string* path = args.value("--token-file")) {
    std::optional<std::string> token = read_text(*path);
    while (token && !token->empty() && (token->back() == '\n' || token->back() == '\r')) token->pop_back();
    if (!token || token->empty()) {
      std::cerr << command << ": --token-file: cannot read a token from \"" << *path << "\"\n";
      return std::nullopt;
    }
    options.bearer_token = *token;
  }
  const std::string* server = args.value("--server");
  client::Result<client::Client> client = client::Client::connect(server ? *server : "", options);
  if (!client) {
    std::cerr << command << ": --server: " << client.status().to_string() << '\n';
    return std::nullopt;
  }
  return *client;
}

OpenedSource open_source(const Args& args, const std::string& command) {
  if (args.value("--server") == nullptr) {
    if (args.has("--tls") || args.value("--tls-ca") || args.value("--token-file")) {
      std::cerr << command << ": --tls, --tls-ca and --token-file need --server\n";
      return {nullptr, kExitBadInput};
    }
    std::optional<World> world = load_world(args);
    if (!world) return {nullptr, kExitBadInput};
    return {std::make_unique<OfflineSource>(std::move(*world)), kExitOk};
  }
  if (args.value("--world") || args.value("--seed")) {
    std::cerr << command << ": --world and --seed describe a world generated here; with --server the server's "
              << "world is used\n";
    return {nullptr, kExitBadInput};
  }
  std::optional<client::Client> client = connect_client(args, command);
  if (!client) return {nullptr, kExitBadInput};
  client::Result<client::WorldInfo> info = client->world_info();
  if (!info) {
    std::cerr << command << ": " << client->target() << ": " << info.status().to_string() << '\n';
    return {nullptr, kExitFailure};
  }
  return {std::make_unique<ServerSource>(std::move(*client), std::move(*info), command), kExitOk};
}

}  // namespace chunkforge::tool
