// What the moderation tests share (moderation_test.cc): two replicas on one store of each kind
// ("sqlite": a file both open; "postgres": a throwaway cluster started by the test) that verify
// players' tokens signed by a real key, a reference server on a store of its own (the world as
// it would be without the griefer), and chunks compared by their content: the ids the server
// draws for added objects depend on the chunk's version, which differs between two histories
// of the same work, so an added object is compared by what it is and where.
#pragma once

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "chunkforge/hex_text.h"
#include "chunkforge/v1/service.grpc.pb.h"
#include "edits/edit_service.h"
#include "support/jwt_signer.h"
#include "support/postgres_cluster.h"
#include "support/temp_dir.h"
#include "world_server.h"

namespace chunkforge::server {

inline constexpr char kServiceToken[] = "game-server-secret";

struct Served {
  std::unique_ptr<WorldServer> server;
  std::unique_ptr<v1::WorldService::Stub> stub;
};

class ModerationTest : public testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    dir_ = test::unique_temp_dir("moderation");
    if (GetParam() == "postgres") {
      postgres_ = std::make_unique<test::PostgresCluster>("moderation");
      ASSERT_TRUE(postgres_->started()) << postgres_->failure();
    }
    for (Served& r : replicas_) start(r, location());
    start(reference_, "sqlite:" + dir_ + "reference.db");
  }
  void TearDown() override {
    for (Served* s : {&replicas_[0], &replicas_[1], &reference_}) stop(*s);
  }

  std::string location() const { return postgres_ ? postgres_->patient_uri() : "sqlite:" + dir_ + "edits.db"; }

  void start(Served& s, const std::string& where) {
    ServerOptions options;
    options.listen = "127.0.0.1:0";
    options.http = "";
    options.threads = 2;
    options.cache_mb = 64;
    options.store = open_store(where);
    ASSERT_EQ(bind_store(*options.store, default_world(), false), "");
    options.write_token = kServiceToken;
    options.player_tokens = std::make_shared<PlayerTokens>(TokenRules{auth_.public_pem(), "game-auth", "world-1"});
    s.server = std::make_unique<WorldServer>(default_world(), options);
    ASSERT_TRUE(s.server->start());
    s.stub = v1::WorldService::NewStub(
        grpc::CreateChannel("127.0.0.1:" + std::to_string(s.server->port()), grpc::InsecureChannelCredentials()));
  }
  static void stop(Served& s) {
    if (s.server) s.server->shutdown(std::chrono::seconds(2));
    s.server.reset();
  }

  // A player's token (role "moderator" for a moderator), signed by the game's key.
  std::string token(const std::string& player, bool moderator = false, long lifetime = 3600) const {
    std::map<std::string, std::string> claims{{"sub", player}, {"iss", "game-auth"}, {"aud", "world-1"}};
    if (moderator) claims["role"] = "moderator";
    return auth_.sign(claims, lifetime);
  }

  static grpc::Status edit(Served& s, const v1::EditRequest& request, const std::string& bearer,
                           v1::EditResponse* response = nullptr) {
    grpc::ClientContext context;
    context.AddMetadata("authorization", "Bearer " + bearer);
    v1::EditResponse ignored;
    return s.stub->Edit(&context, request, response ? response : &ignored);
  }
  // An edit the game's server makes for `player` (the write token naming the author).
  static v1::EditResponse edit_for(Served& s, const std::string& player, v1::EditRequest request) {
    request.set_author(player);
    v1::EditResponse response;
    const grpc::Status status = edit(s, request, kServiceToken, &response);
    EXPECT_TRUE(status.ok()) << player << ": " << status.error_message();
    return response;
  }
  static grpc::Status rollback(Served& s, const v1::RollbackRequest& request, const std::string& bearer,
                               v1::RollbackResponse& answer) {
    grpc::ClientContext context;
    context.AddMetadata("authorization", "Bearer " + bearer);
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(120));
    return s.stub->Rollback(&context, request, &answer);
  }
  static grpc::Status edit_log(Served& s, const v1::EditLogRequest& request, const std::string& bearer,
                               v1::EditLogResponse& answer) {
    grpc::ClientContext context;
    context.AddMetadata("authorization", "Bearer " + bearer);
    return s.stub->EditLog(&context, request, &answer);
  }
  static v1::Chunk chunk(Served& s, int64_t x, int64_t z) {
    grpc::ClientContext context;
    v1::GetChunkRequest request;
    request.mutable_coord()->set_x(x);
    request.mutable_coord()->set_z(z);
    v1::Chunk out;
    const grpc::Status status = s.stub->GetChunk(&context, request, &out);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return out;
  }

  // The chunk's content, with each added object named by what it is and where (not its id).
  static std::string content(const v1::Chunk& c, const v1::Chunk& base) {
    const std::set<uint64_t> generated(base.objects().id().begin(), base.objects().id().end());
    const v1::Objects& o = c.objects();
    std::map<uint64_t, std::string> name;
    std::vector<std::string> lines;
    for (int i = 0; i < o.id_size(); ++i) {
      const std::string what = std::to_string(o.layer(i)) + " " + std::to_string(o.x(i)) + " " +
                               std::to_string(o.z(i)) + " " + std::to_string(o.yaw(i)) + " " +
                               std::to_string(o.variant(i));
      name[o.id(i)] = generated.count(o.id(i)) ? "generated " + hex_id(o.id(i)) : "added " + what;
      lines.push_back(name[o.id(i)] + " at " + what);
    }
    for (const v1::ObjectState& st : c.object_states())
      lines.push_back("state of " + name[st.id()] + ": " + st.state());
    for (const v1::StructureInstance& st : c.structures()) lines.push_back("structure " + hex_id(st.id()));
    std::sort(lines.begin(), lines.end());
    std::string out;
    for (const std::string& l : lines) out += l + "\n";
    return out;
  }

  static v1::RollbackRequest rollback_request(int64_t x0, int64_t z0, int64_t x1, int64_t z1, const std::string& player,
                                              const std::string& id, bool preview) {
    v1::RollbackRequest r;
    r.mutable_area()->mutable_min()->set_x(x0);
    r.mutable_area()->mutable_min()->set_z(z0);
    r.mutable_area()->mutable_max()->set_x(x1);
    r.mutable_area()->mutable_max()->set_z(z1);
    r.set_player(player);
    r.set_request_id(id);
    r.set_preview(preview);
    return r;
  }

  std::string dir_;
  test::JwtSigner auth_;
  std::unique_ptr<test::PostgresCluster> postgres_;
  Served replicas_[2], reference_;
};

// A new operation of `request` on chunk (x, z).
inline v1::EditOp* op_on(v1::EditRequest& request, int64_t x, int64_t z) {
  v1::EditOp* op = request.add_ops();
  op->mutable_chunk()->set_x(x);
  op->mutable_chunk()->set_z(z);
  return op;
}

}  // namespace chunkforge::server
