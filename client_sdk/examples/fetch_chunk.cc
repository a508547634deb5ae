// The smallest program that uses chunkforge: fetch one chunk and list what is in it.
//
//   chunkforge-fetch-chunk [HOST:PORT] [CX CZ]      (default 127.0.0.1:50051, chunk 0 0)
#include <chunkforge/client.h>

#include <cstdlib>
#include <iostream>
#include <string>

#include "example_help.h"

int main(int argc, char** argv) {
  namespace cf = chunkforge::client;
  if (answered_help(argc, argv,
                    "usage: chunkforge-fetch-chunk [HOST:PORT] [CX CZ]\n\n"
                    "Fetches chunk (CX, CZ) (default 0 0) from the chunkforge server at HOST:PORT (default\n"
                    "127.0.0.1:50051) and lists its objects and structures.\n")) {
    return 0;
  }
  const std::string target = argc > 1 ? argv[1] : "127.0.0.1:50051";
  const cf::ChunkCoord coord{argc > 3 ? std::atoll(argv[2]) : 0, argc > 3 ? std::atoll(argv[3]) : 0};

  cf::Result<cf::Client> client = cf::Client::connect(target);
  if (!client) {
    std::cerr << client.status().to_string() << '\n';
    return 1;
  }
  cf::Result<cf::Chunk> chunk = client->chunk(coord);
  if (!chunk) {
    std::cerr << "chunk (" << coord.x << ", " << coord.z << "): " << chunk.status().to_string() << '\n';
    return 1;
  }
  std::cout << "world \"" << chunk->world().name() << "\", chunk (" << coord.x << ", " << coord.z
            << "): " << chunk->objects().size() << " objects, " << chunk->structures().size() << " structures\n";
  for (const cf::Object& object : chunk->objects()) {
    std::cout << "  " << object.layer_name << " at (" << object.x << ", " << object.y << ", " << object.z << ") yaw "
              << object.yaw << '\n';
  }
  for (const cf::Structure& s : chunk->structures()) {
    std::cout << "  " << s.type_name << " at (" << s.x << ", " << s.y << ", " << s.z << ")\n";
  }
  return 0;
}
