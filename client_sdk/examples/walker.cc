// A player walking east through the world: prints each chunk as it loads and unloads, with
// --lod-radius the horizon its LOD tiles reach, with --generate-locally it makes the pristine
// chunks (and tiles) itself; at the end, the bytes the server sent per chunk.
//
//   chunkforge-walker [HOST:PORT] [STEPS] [--lod-radius N] [--generate-locally]
//                     (default 127.0.0.1:50051, 40 steps of 8 units, no tiles)
#include <chunkforge/client.h>
#include <chunkforge/client/local_generator.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "example_help.h"

namespace {

namespace cf = chunkforge::client;

// How far the held tiles reach from the player along x or z, world units: the farthest tile
// edge (the view is a square, so its reach is the larger of the two axes).
double horizon_units(const std::vector<cf::LodKey>& tiles, cf::Position player, uint32_t chunk_size) {
  double reach = 0;
  for (const cf::LodKey& key : tiles) {
    const double side = static_cast<double>(key.chunks()) * chunk_size;
    const double x0 = static_cast<double>(key.x) * side, z0 = static_cast<double>(key.z) * side;
    reach = std::max({reach, std::abs(player.x - x0), std::abs(x0 + side - player.x), std::abs(player.z - z0),
                      std::abs(z0 + side - player.z)});
  }
  return reach;
}

// The command line: HOST:PORT and STEPS in that order, the flags anywhere.
struct Arguments {
  std::string target;
  int steps;
  uint32_t lod_radius;
  bool generate_locally;
};

Arguments parse_arguments(int argc, char** argv) {
  std::vector<std::string> words;
  uint32_t lod_radius = 0;
  bool generate_locally = false;
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "--lod-radius" && i + 1 < argc) {
      lod_radius = static_cast<uint32_t>(std::strtoul(argv[++i], nullptr, 10));
    } else if (word == "--generate-locally") {
      generate_locally = true;
    } else {
      words.push_back(word);
    }
  }
  const std::string target = words.size() > 0 ? words[0] : "127.0.0.1:50051";
  const int steps = words.size() > 1 ? std::atoi(words[1].c_str()) : 40;
  return {target, steps, lod_radius, generate_locally};
}

// Callbacks run on the session's thread: a game would queue them for its main loop. Here
// they only print, under `out` so lines do not interleave with the main thread's.
cf::ViewCallbacks printing_callbacks(std::mutex& out) {
  cf::ViewCallbacks callbacks;
  callbacks.on_load = [&out](const cf::Chunk& chunk) {
    std::lock_guard lock(out);
    std::cout << "load   (" << chunk.coord().x << ", " << chunk.coord().z << ") " << chunk.objects().size()
              << " objects\n";
  };
  callbacks.on_unload = [&out](cf::ChunkCoord c) {
    std::lock_guard lock(out);
    std::cout << "unload (" << c.x << ", " << c.z << ")\n";
  };
  callbacks.on_error = [&out](const cf::Status& status) {
    std::lock_guard lock(out);
    std::cerr << "session: " << status.to_string() << '\n';
  };
  callbacks.on_tile = [](const cf::LodTile&) {};  // a game would draw the far ground from it
  return callbacks;
}

// Where the walk ended, what the session loaded and, with LOD tiles, the horizon they reach.
void print_summary(cf::Client& client, cf::ViewSession& session, cf::Position player, uint32_t lod_radius,
                   std::mutex& out) {
  const cf::ViewStats stats = session.stats();
  const std::vector<cf::LodKey> tiles = session.tiles();
  std::lock_guard lock(out);
  const uint64_t entered = stats.chunks_downloaded + stats.chunks_generated + stats.chunks_from_cache;
  std::cout << "walked to x = " << player.x << ": " << stats.loaded_chunks << " chunks loaded, "
            << stats.chunks_downloaded << " downloaded, " << stats.chunks_generated << " generated here, "
            << stats.chunks_from_cache << " from the local cache; " << stats.bytes_received << " bytes received, "
            << (entered ? static_cast<double>(stats.bytes_received) / static_cast<double>(entered) : 0.0)
            << " per chunk that entered the view\n";
  if (lod_radius > 0) {
    const cf::Result<cf::WorldInfo> world = client.world_info();  // fetched by the session: from memory
    const uint32_t chunk_size = world ? world->chunk_size() : 64;
    const double reach = horizon_units(tiles, player, chunk_size);
    std::cout << "horizon: " << std::floor(reach / chunk_size) << " chunks (" << reach << " units), "
              << stats.held_tiles << " tiles, " << stats.held_tile_bytes << " bytes; " << stats.tiles_loaded
              << " tiles loaded, " << stats.tiles_unloaded << " unloaded\n";
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (answered_help(argc, argv,
                    "usage: chunkforge-walker [HOST:PORT] [STEPS] [--lod-radius N] [--generate-locally]\n\n"
                    "Walks a player east through the world served at HOST:PORT (default 127.0.0.1:50051),\n"
                    "STEPS steps of 8 units (default 40), printing each chunk as it loads and unloads.\n"
                    "--lod-radius N also shows the LOD tiles of N chunks around the player (0, the default:\n"
                    "none; the server allows up to its --max-lod-radius, 1024 by default) and prints the\n"
                    "horizon they reach: the farthest tile edge, in chunks and world units, and the tiles'\n"
                    "count and bytes. --generate-locally makes the pristine chunks and tiles here (the\n"
                    "server must share its definition: --client-generation).\n")) {
    return 0;
  }
  const Arguments args = parse_arguments(argc, argv);
  cf::Result<cf::Client> client = cf::Client::connect(args.target);
  if (!client) {
    std::cerr << client.status().to_string() << '\n';
    return 1;
  }
  std::mutex out;
  cf::ViewOptions options;
  options.view_radius = 2;
  options.lod_radius = args.lod_radius;
  if (args.generate_locally) {
    cf::Result<std::shared_ptr<cf::BaseGenerator>> generator = cf::make_local_generator(*client);
    if (!generator) {
      std::cerr << generator.status().to_string() << '\n';
      return 1;
    }
    options.generator = *generator;
  }
  cf::Position player{0, 0};
  auto session = cf::ViewSession::start(*client, player, options, printing_callbacks(out));
  if (!session) {
    std::cerr << session.status().to_string() << '\n';
    return 1;
  }
  for (int step = 0; step < args.steps && (*session)->running(); ++step) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    player.x += 8;
    (*session)->set_position(player);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  print_summary(*client, **session, player, args.lod_radius, out);
  return 0;
}
