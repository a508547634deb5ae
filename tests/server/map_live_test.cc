// The live map's overlays on a real in-process server with its side port: edits (a WorldServer
// on a SQLite store, an edit through the gRPC stub, then /api/edits lists the edited chunk with
// its version; the index answers ranges both by probing and by scanning; /api/chunk shows the
// clicked chunk with its edits and an object's state) and players (with
// --map-players, a session's position appears on /api/players and goes when it ends).
#include <arpa/inet.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>

#include "chunkforge/v1/service.grpc.pb.h"
#include "edits/edit_service.h"
#include "support/temp_dir.h"
#include "world_server.h"

namespace chunkforge::server {
namespace {

// One GET on loopback; the whole response (head and body) as the server sent it.
std::string http_get(int port, const std::string& target) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string bytes;
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) {
    const std::string request = "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    send(fd, request.data(), request.size(), MSG_NOSIGNAL);
    char chunk[65536];
    for (ssize_t n; (n = recv(fd, chunk, sizeof chunk, 0)) > 0;) bytes.append(chunk, static_cast<size_t>(n));
  }
  close(fd);
  return bytes;
}

TEST(MapEditsTest, TheEditsOverlayListsEditedChunksWithTheirVersion) {
  ServerOptions options;
  options.listen = "127.0.0.1:0";
  options.http = "127.0.0.1:0";
  options.store = open_store("sqlite:" + test::unique_temp_dir("map_edits") + "edits.db");
  ASSERT_EQ(bind_store(*options.store, default_world(), false), "");
  options.open_edits = true;
  WorldServer server(default_world(), options);
  ASSERT_TRUE(server.start());
  EXPECT_NE(http_get(server.http_port(), "/api/status").find("\"edits\":true"), std::string::npos);

  auto stub = v1::WorldService::NewStub(
      grpc::CreateChannel("127.0.0.1:" + std::to_string(server.port()), grpc::InsecureChannelCredentials()));
  v1::EditRequest request;
  v1::EditOp* op = request.add_ops();
  op->mutable_chunk()->set_x(2);
  op->mutable_chunk()->set_z(-1);
  v1::NewObject* added = op->mutable_add_object();
  added->set_x(1);
  added->set_z(1);
  grpc::ClientContext context;
  v1::EditResponse response;
  ASSERT_TRUE(stub->Edit(&context, request, &response).ok());

  const int64_t cs = default_world().chunk_size();
  const std::string view = "/api/edits?x0=0&z0=" + std::to_string(-cs) + "&x1=" + std::to_string(4 * cs) + "&z1=0";
  EXPECT_NE(http_get(server.http_port(), view).find("\"chunks\":[[2,-1,1]]"), std::string::npos);
  EditService& edits = *server.edits();
  using Found = std::vector<std::pair<ChunkCoord, uint64_t>>;
  EXPECT_EQ(edits.edited_in({2, -1}, {2, -1}, 10), (Found{{{2, -1}, 1}}));              // probed: area 1
  EXPECT_EQ(edits.edited_in({-1000, -1000}, {1000, 1000}, 10), (Found{{{2, -1}, 1}}));  // scanned
  EXPECT_TRUE(edits.edited_in({3, -1}, {9, 9}, 10).empty());
  EXPECT_TRUE(edits.edited_in({-1000, -1000}, {1000, 1000}, 0).empty());

  // A state on the added object: the clicked chunk shows both edits, as served.
  ASSERT_EQ(response.added_ids_size(), 1);
  v1::EditRequest set_state;
  v1::EditOp* state_op = set_state.add_ops();
  *state_op->mutable_chunk() = op->chunk();
  state_op->mutable_set_state()->set_id(response.added_ids(0));
  state_op->mutable_set_state()->set_state(std::string("\x0a\xff", 2));
  grpc::ClientContext state_context;
  ASSERT_TRUE(stub->Edit(&state_context, set_state, &response).ok());
  char id[17];
  std::snprintf(id, sizeof id, "%016llx", static_cast<unsigned long long>(set_state.ops(0).set_state().id()));
  const std::string chunk = http_get(server.http_port(), "/api/chunk?cx=2&cz=-1");
  EXPECT_NE(chunk.find("\"edit_version\":2,"), std::string::npos) << chunk;
  EXPECT_NE(chunk.find("{\"id\":\"" + std::string(id) + "\",\"layer\":\"forest\",\"x\":" + std::to_string(2 * cs + 1) +
                       ",\"z\":" + std::to_string(-cs + 1)),
            std::string::npos)
      << chunk;
  EXPECT_NE(chunk.find("\"state\":\"0aff\"}"), std::string::npos) << chunk;
  EXPECT_NE(http_get(server.http_port(), "/api/chunk?cx=3&cz=-1").find("\"edit_version\":0,"), std::string::npos);
  server.shutdown(std::chrono::seconds(1));
}

// Polls /api/players until its body holds `part` (a session's update arrives asynchronously).
bool players_show(int port, const std::string& part) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    if (http_get(port, "/api/players").find(part) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

TEST(MapPlayersTest, ASessionsPositionShowsWhileItLasts) {
  ServerOptions options;
  options.listen = "127.0.0.1:0";
  options.http = "127.0.0.1:0";
  options.map_players = true;
  WorldServer server(default_world(), options);
  ASSERT_TRUE(server.start());
  auto stub = v1::WorldService::NewStub(
      grpc::CreateChannel("127.0.0.1:" + std::to_string(server.port()), grpc::InsecureChannelCredentials()));
  {
    grpc::ClientContext context;
    auto session = stub->Session(&context);
    v1::SessionUpdate update;
    update.set_x(100.25);
    update.set_z(-40);
    update.set_view_radius(0);
    ASSERT_TRUE(session->Write(update));
    EXPECT_TRUE(players_show(server.http_port(), "\"x\":100.25,\"z\":-40}"));
    update.set_x(300);
    ASSERT_TRUE(session->Write(update));
    EXPECT_TRUE(players_show(server.http_port(), "\"x\":300,\"z\":-40}"));
    context.TryCancel();
    v1::SessionEvent event;
    while (session->Read(&event)) {
    }
    session->Finish();
  }
  EXPECT_TRUE(players_show(server.http_port(), "{\"players\":[]}"));
  server.shutdown(std::chrono::seconds(1));
}

TEST(MapPlayersTest, PositionsStayHiddenWithoutTheFlag) {
  ServerOptions options;
  options.listen = "127.0.0.1:0";
  options.http = "127.0.0.1:0";
  WorldServer server(default_world(), options);
  ASSERT_TRUE(server.start());
  EXPECT_NE(http_get(server.http_port(), "/api/players").find("404"), std::string::npos);
  server.shutdown(std::chrono::seconds(1));
}

}  // namespace
}  // namespace chunkforge::server
