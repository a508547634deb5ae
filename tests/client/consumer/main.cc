// Fetches one chunk through the installed SDK and prints a line the test checks:
//   <world name> <chunk size> <x> <z> <objects> <local>
// where <local> is "same" when the SDK's local generator (chunkforge::client_local) made the
// chunk's bytes itself from the server's world definition,
// then follows the same chunk with a ViewSession, which links the package's edit model
// (chunkforge::chunk_edits, for change events) as a game that follows a player does.
#include <chunkforge/chunk_hash.h>
#include <chunkforge/client.h>
#include <chunkforge/client/local_generator.h>
#include <chunkforge/v1/chunk.pb.h>

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
  auto generator = cf::make_local_generator(*client);
  if (!generator) {
    std::cerr << generator.status().to_string() << '\n';
    return 1;
  }
  const auto local = (*generator)->generate(chunk->coord(), {});
  const bool same = local && chunkforge::canonical_bytes(*local) == chunkforge::canonical_bytes(chunk->message());
  std::cout << chunk->world().name() << ' ' << chunk->chunk_size() << ' ' << chunk->coord().x << ' ' << chunk->coord().z
            << ' ' << chunk->objects().size() << ' ' << (same ? "same" : "different") << '\n';

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
