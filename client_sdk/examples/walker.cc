// A player walking east through the world: prints each chunk as it loads and unloads.
//
//   chunkforge-walker [HOST:PORT] [STEPS]      (default 127.0.0.1:50051, 40 steps of 8 units)
#include <chunkforge/client.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <string>

#include <thread>
#include "example_help.h"

int main(int argc, char** argv) {
  namespace cf = chunkforge::client;
  if (answered_help(argc, argv,
                    "usage: chunkforge-walker [HOST:PORT] [STEPS]\n\n"
                    "Walks a player east through the world served at HOST:PORT (default 127.0.0.1:50051),\n"
                    "STEPS steps of 8 units (default 40), printing each chunk as it loads and unloads.\n")) {
    return 0;
  }
  const std::string target = argc > 1 ? argv[1] : "127.0.0.1:50051";
  const int steps = argc > 2 ? std::atoi(argv[2]) : 40;

  cf::Result<cf::Client> client = cf::Client::connect(target);
  if (!client) {
    std::cerr << client.status().to_string() << '\n';
    return 1;
  }
  // Callbacks run on the session's thread: a game would queue them for its main loop. Here
  // they only print, under a lock so lines do not interleave with the main thread's.
  std::mutex out;
  cf::ViewCallbacks callbacks;
  callbacks.on_load = [&](const cf::Chunk& chunk) {
    std::lock_guard lock(out);
    std::cout << "load   (" << chunk.coord().x << ", " << chunk.coord().z << ") " << chunk.objects().size()
              << " objects\n";
  };
  callbacks.on_unload = [&](cf::ChunkCoord c) {
    std::lock_guard lock(out);
    std::cout << "unload (" << c.x << ", " << c.z << ")\n";
  };
  callbacks.on_error = [&](const cf::Status& status) {
    std::lock_guard lock(out);
    std::cerr << "session: " << status.to_string() << '\n';
  };
  cf::ViewOptions options;
  options.view_radius = 2;
  cf::Position player{0, 0};
  auto session = cf::ViewSession::start(*client, player, options, callbacks);
  if (!session) {
    std::cerr << session.status().to_string() << '\n';
    return 1;
  }
  for (int step = 0; step < steps && (*session)->running(); ++step) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    player.x += 8;
    (*session)->set_position(player);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const cf::ViewStats stats = (*session)->stats();
  std::lock_guard lock(out);
  std::cout << "walked to x = " << player.x << ": " << stats.loaded_chunks << " chunks loaded, "
            << stats.chunks_downloaded << " downloaded, " << stats.chunks_from_cache << " from the local cache\n";
  return 0;
}
