// Fetches one chunk through the installed SDK and prints a line the test checks:
//   <world name> <chunk size> <x> <z> <objects>
// then follows the same chunk with a ViewSession, which links the package's edit model
// (chunkforge::edits, for change events) as a game that follows a player does.
#include <chunkforge/client.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <thread>

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
  std::cout << chunk->world().name() << ' ' << chunk->chunk_size() << ' ' << chunk->coord().x << ' ' << chunk->coord().z
            << ' ' << chunk->objects().size() << '\n';

  cf::ViewOptions view;
  view.view_radius = 0;
  const double size = chunk->chunk_size();
  auto session =
      cf::ViewSession::start(*client, {(chunk->coord().x + 0.5) * size, (chunk->coord().z + 0.5) * size}, view, {});
  if (!session) {
    std::cerr << session.status().to_string() << '\n';
    return 1;
  }
  for (int k = 0; k < 500 && (*session)->loaded().empty(); ++k)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  if ((*session)->loaded().size() != 1) {
    std::cerr << "the view session loaded " << (*session)->loaded().size() << " chunks, expected 1\n";
    return 1;
  }
  return 0;
}
