// Fetches one chunk through the installed SDK and prints a line the test checks:
//   <world name> <chunk size> <x> <z> <objects>
#include <chunkforge/client.h>

#include <cstdlib>
#include <iostream>

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: consumer HOST:PORT CX CZ\n";
    return 2;
  }
  namespace cf = chunkforge::client;
  auto client = cf::Client::connect(argv[1]);
  if (!client) {
    std::cerr << client.status().to_string() << '\n';
    return 1;
  }
  auto chunk = client->chunk({std::atoll(argv[2]), std::atoll(argv[3])});
  if (!chunk) {
    std::cerr << chunk.status().to_string() << '\n';
    return 1;
  }
  std::cout << chunk->world().name() << ' ' << chunk->chunk_size() << ' ' << chunk->coord().x << ' '
            << chunk->coord().z << ' ' << chunk->objects().size() << '\n';
  return 0;
}
