// The live map's moderation view on a real in-process server with its side port and a SQLite
// store that verifies players' tokens signed by a real key: /api/moderation/log shows who
// changed a chunk, to a moderator's token only; /api/moderation/rollback-preview says what
// undoing a player would change and changes nothing, whatever the request says.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "chunkforge/v1/service.grpc.pb.h"
#include "edits/edit_service.h"
#include "support/http_get.h"
#include "support/jwt_signer.h"
#include "support/temp_dir.h"
#include "world_server.h"

namespace chunkforge::server {
namespace {

constexpr char kServiceToken[] = "game-server-secret";
constexpr char kServiceBearer[] = "Bearer game-server-secret";

struct Answer {
  int status = 0;
  std::string body;
};

// One GET on loopback, with the moderator header when `moderator` is not empty.
Answer get(int port, const std::string& target, const std::string& moderator = "") {
  Answer answer;
  const std::string header = moderator.empty() ? "" : "X-Chunkforge-Moderator: " + moderator + "\r\n";
  answer.status = test::http_get(port, target, std::chrono::seconds(10), "127.0.0.1", &answer.body, header);
  return answer;
}

std::string percent_encoded(const std::string& text) {
  std::string out;
  for (const unsigned char c : text) {
    char escape[4];
    std::snprintf(escape, sizeof escape, "%%%02X", c);
    out += std::isalnum(c) ? std::string(1, static_cast<char>(c)) : std::string(escape);
  }
  return out;
}

std::string log_of(const std::string& json) { return "/api/moderation/log?q=" + percent_encoded(json); }
std::string preview_of(const std::string& json) {
  return "/api/moderation/rollback-preview?q=" + percent_encoded(json);
}

int count(const std::string& text, const std::string& part) {
  int n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

class MapModerationTest : public testing::Test {
 protected:
  void SetUp() override {
    ServerOptions options;
    options.listen = "127.0.0.1:0";
    options.http = "127.0.0.1:0";
    options.store = open_store("sqlite:" + test::unique_temp_dir("map_moderation") + "edits.db");
    ASSERT_EQ(bind_store(*options.store, default_world(), false), "");
    options.write_token = kServiceToken;
    options.player_tokens = std::make_shared<PlayerTokens>(TokenRules{auth_.public_pem(), "game-auth", "world-1"});
    server_ = std::make_unique<WorldServer>(default_world(), options);
    ASSERT_TRUE(server_->start());
    stub_ = v1::WorldService::NewStub(
        grpc::CreateChannel("127.0.0.1:" + std::to_string(server_->port()), grpc::InsecureChannelCredentials()));
  }
  void TearDown() override { server_->shutdown(std::chrono::seconds(1)); }

  std::string token(const std::string& player, bool moderator) const {
    std::map<std::string, std::string> claims{{"sub", player}, {"iss", "game-auth"}, {"aud", "world-1"}};
    if (moderator) claims["role"] = "moderator";
    return auth_.sign(claims, 3600);
  }
  // `player` adds `n` objects to chunk (x, z), one commit each, through the game's server.
  void add(const std::string& player, int64_t x, int64_t z, int n) {
    for (int k = 0; k < n; ++k) {
      v1::EditRequest request;
      request.set_author(player);
      v1::EditOp* op = request.add_ops();
      op->mutable_chunk()->set_x(x);
      op->mutable_chunk()->set_z(z);
      op->mutable_add_object()->set_x(static_cast<float>(2 + 3 * k));
      op->mutable_add_object()->set_z(5);
      grpc::ClientContext context;
      context.AddMetadata("authorization", kServiceBearer);
      v1::EditResponse response;
      const grpc::Status status = stub_->Edit(&context, request, &response);
      ASSERT_TRUE(status.ok()) << status.error_message();
    }
  }
  int port() const { return server_->http_port(); }

  test::JwtSigner auth_;
  std::unique_ptr<WorldServer> server_;
  std::unique_ptr<v1::WorldService::Stub> stub_;
};

constexpr char kChunkOne[] = R"({"area":{"min":{"x":1,"z":1},"max":{"x":1,"z":1}}})";

TEST_F(MapModerationTest, AChunksHistoryShowsItsAuthorsToModeratorsOnly) {
  add("alice", 1, 1, 2);
  add("griefer", 1, 1, 3);
  EXPECT_NE(get(port(), "/api/status").body.find("\"moderation\":true"), std::string::npos);

  const Answer none = get(port(), log_of(kChunkOne));
  EXPECT_EQ(none.status, 401);
  EXPECT_NE(none.body.find("X-Chunkforge-Moderator"), std::string::npos) << none.body;
  const Answer forged = get(port(), log_of(kChunkOne), "a.b.c");
  EXPECT_EQ(forged.status, 401);
  EXPECT_NE(forged.body.find("player token refused"), std::string::npos) << forged.body;
  const Answer player = get(port(), log_of(kChunkOne), token("alice", false));
  EXPECT_EQ(player.status, 403);
  EXPECT_NE(player.body.find("player alice may only edit"), std::string::npos) << player.body;

  const Answer history = get(port(), log_of(kChunkOne), token("mod", true));
  ASSERT_EQ(history.status, 200) << history.body;
  EXPECT_EQ(count(history.body, "\"player\":\"griefer\""), 3) << history.body;
  EXPECT_EQ(count(history.body, "\"player\":\"alice\""), 2) << history.body;
  EXPECT_LT(history.body.find("\"version\":\"5\""), history.body.find("\"version\":\"4\"")) << "newest first";
  EXPECT_EQ(get(port(), log_of(kChunkOne), kServiceToken).status, 200) << "the write token moderates too";
  const Answer griefer = get(port(), log_of(R"({"player":"griefer","since":1,"limit":2})"), token("mod", true));
  EXPECT_EQ(count(griefer.body, "\"player\":\"griefer\""), 2) << griefer.body;
  EXPECT_NE(griefer.body.find("\"truncated\":true"), std::string::npos) << griefer.body;
}

TEST_F(MapModerationTest, ABadQueryIsRefusedWithItsReason) {
  const std::string moderator = token("mod", true);
  const Answer not_json = get(port(), log_of("{area"), moderator);
  EXPECT_EQ(not_json.status, 400);
  EXPECT_NE(not_json.body.find("q: not a chunkforge.v1.EditLogRequest in JSON"), std::string::npos) << not_json.body;
  const Answer unknown = get(port(), log_of(R"({"radius":3})"), moderator);
  EXPECT_EQ(unknown.status, 400) << unknown.body;
  const Answer many = get(port(), log_of(R"({"limit":5000})"), moderator);
  EXPECT_EQ(many.status, 400);
  EXPECT_NE(many.body.find("limit: at most 1000 on the map"), std::string::npos) << many.body;
  const Answer no_area = get(port(), preview_of(R"({"player":"griefer"})"), moderator);
  EXPECT_EQ(no_area.status, 400);
  EXPECT_NE(no_area.body.find("area: required"), std::string::npos) << no_area.body;
}

TEST_F(MapModerationTest, ARollbackPreviewSaysWhatWouldChangeAndChangesNothing) {
  add("alice", 1, 1, 2);
  add("griefer", 1, 1, 3);
  add("griefer", 2, 1, 1);
  add("alice", 3, 3, 1);
  EditService& edits = *server_->edits();
  const uint64_t before = edits.version({1, 1});
  // Asked to apply: the map previews all the same.
  const std::string q =
      R"({"area":{"min":{"x":0,"z":0},"max":{"x":3,"z":3}},"player":"griefer","preview":false,"request_id":"x"})";
  const Answer preview = get(port(), preview_of(q), token("mod", true));
  ASSERT_EQ(preview.status, 200) << preview.body;
  EXPECT_NE(preview.body.find("\"chunks\":\"2\""), std::string::npos) << preview.body;
  EXPECT_NE(preview.body.find("\"changes_undone\":\"4\""), std::string::npos) << preview.body;
  EXPECT_EQ(count(preview.body, "\"chunk\":{"), 2) << preview.body;
  EXPECT_EQ(edits.version({1, 1}), before);
  EXPECT_EQ(edits.version({2, 1}), 1u);
  const Answer history = get(port(), log_of(kChunkOne), token("mod", true));
  EXPECT_EQ(history.body.find("rollback_id"), std::string::npos) << history.body;
}

}  // namespace
}  // namespace chunkforge::server
