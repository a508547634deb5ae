// Offline and server sources of chunks for the `chunkforge` command, and the options naming them.
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
  std::optional<std::vector<v1::StructureInstance>> locate(const std::string& type, int64_t x, int64_t z, double radius,
                                                           uint32_t limit) override {
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
  std::optional<std::vector<v1::StructureInstance>> locate(const std::string& type, int64_t x, int64_t z, double radius,
                                                           uint32_t limit) override {
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

CLI::Option* add_server_options(CLI::App& app, ServerOptions& options, bool required) {
  CLI::Option* server = app.add_option_function<std::string>(
                               "--server", [&options](const std::string& address) { options.address = address; },
                               "ask a running server (host:port) instead of generating here")
                            ->type_name("ADDR")
                            ->required(required);
  app.add_flag("--tls", options.tls, "connect with TLS (the system's root certificates)")->needs(server);
  app.add_option_function<std::string>(
         "--tls-ca", [&options](const std::string& path) { options.tls_ca = path; },
         "trust the PEM certificates in FILE (implies --tls)")
      ->type_name("FILE")
      ->needs(server);
  app.add_option_function<std::string>(
         "--token-file", [&options](const std::string& path) { options.token_file = path; },
         "send the bearer token in FILE")
      ->type_name("FILE")
      ->needs(server);
  return server;
}

CLI::Option* add_source_options(CLI::App& app, SourceOptions& options) {
  const WorldFlags world = add_world_options(app, options.world);
  CLI::Option* server = add_server_options(app, options.server, false);
  // --world and --seed describe a world generated here; with --server the server's world is used.
  world.world->excludes(server);
  world.seed->excludes(server);
  return server;
}

std::optional<client::Client> connect_client(const ServerOptions& server, const std::string& command) {
  client::ConnectOptions options;
  options.tls = server.tls || server.tls_ca;
  if (server.tls_ca) {
    std::optional<std::string> pem = read_text(*server.tls_ca);
    if (!pem) {
      std::cerr << command << ": --tls-ca: cannot read \"" << *server.tls_ca << "\"\n";
      return std::nullopt;
    }
    options.tls_root_certificates = *pem;
  }
  if (server.token_file) {
    std::optional<std::string> token = read_text(*server.token_file);
    while (token && !token->empty() && (token->back() == '\n' || token->back() == '\r')) token->pop_back();
    if (!token || token->empty()) {
      std::cerr << command << ": --token-file: cannot read a token from \"" << *server.token_file << "\"\n";
      return std::nullopt;
    }
    options.bearer_token = *token;
  }
  client::Result<client::Client> client = client::Client::connect(server.address.value_or(""), options);
  if (!client) {
    std::cerr << command << ": --server: " << client.status().to_string() << '\n';
    return std::nullopt;
  }
  return *client;
}

// The rules between the options (--tls needs --server, --world excludes it) are CLI11's, at parse.
OpenedSource open_source(const SourceOptions& options, const std::string& command) {
  if (!options.server.address) {
    std::optional<World> world = load_world(options.world);
    if (!world) return {nullptr, kExitBadInput};
    return {std::make_unique<OfflineSource>(std::move(*world)), kExitOk};
  }
  std::optional<client::Client> client = connect_client(options.server, command);
  if (!client) return {nullptr, kExitBadInput};
  client::Result<client::WorldInfo> info = client->world_info();
  if (!info) {
    std::cerr << command << ": " << client->target() << ": " << info.status().to_string() << '\n';
    return {nullptr, kExitFailure};
  }
  return {std::make_unique<ServerSource>(std::move(*client), std::move(*info), command), kExitOk};
}

}  // namespace chunkforge::tool
