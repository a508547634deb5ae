// Edits for real (docs/edits.md): an in-process WorldServer on each kind of store — a SQLite
// file in a temporary directory, and a throwaway PostgreSQL cluster started by the test — with
// the generated gRPC stub as the client. The model, the write credential, bad input,
// compare-and-set and races, idempotent retries, structures across chunks, live change events
// and a store that outlives the server.
#include <google/protobuf/descriptor.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <thread>

#include "chunkforge/chunk_edits.h"
#include "chunkforge/chunk_hash.h"
#include "chunkforge/encode.h"
#include "chunkforge/hex_text.h"
#include "chunkforge/v1/service.grpc.pb.h"
#include "edit_server_fixture.h"
#include "support/postgres_cluster.h"
#include "support/server_process.h"
#include "support/temp_dir.h"
#include "world_server.h"

namespace chunkforge::server {
namespace {

constexpr char kReadToken[] = "read-secret";

std::string offline(int64_t x, int64_t z) {
  return canonical_bytes(encode_chunk(default_world(), Generator(default_world()).generate({x, z})));
}

// Runs once per store: "sqlite" or "postgres".
class EditTest : public EditServerTest {
 protected:
  v1::Chunk chunk(int64_t x, int64_t z, const std::string& token = "") {
    grpc::ClientContext context;
    if (!token.empty()) context.AddMetadata("authorization", "Bearer " + token);
    v1::GetChunkRequest request;
    request.mutable_coord()->set_x(x);
    request.mutable_coord()->set_z(z);
    v1::Chunk out;
    EXPECT_TRUE(stub_->GetChunk(&context, request, &out).ok());
    return out;
  }
};

v1::EditRequest remove_object(int64_t x, int64_t z, uint64_t id) {
  v1::EditRequest request;
  op_at(request, x, z)->set_remove_object(id);
  return request;
}

v1::EditRequest add_object(int64_t x, int64_t z, float ox, float oz, uint32_t layer = 0) {
  v1::EditRequest request;
  v1::NewObject* a = op_at(request, x, z)->mutable_add_object();
  a->set_layer(layer);
  a->set_x(ox);
  a->set_z(oz);
  a->set_yaw(90);
  return request;
}

bool holds(const v1::Chunk& c, uint64_t id) {
  return std::find(c.objects().id().begin(), c.objects().id().end(), id) != c.objects().id().end();
}

TEST_P(EditTest, ARemovalChangesThatChunkOnlyAndCarriesItsVersion) {
  const v1::Chunk before = chunk(0, 0);
  ASSERT_GT(before.objects().id_size(), 0);
  EXPECT_EQ(canonical_bytes(before), offline(0, 0));  // a pristine chunk is today's bytes
  const uint64_t felled = before.objects().id(0);
  v1::EditResponse response;
  ASSERT_TRUE(edit(remove_object(0, 0, felled), &response).ok());
  ASSERT_EQ(response.versions_size(), 1);
  EXPECT_EQ(response.versions(0).version(), 1u);

  const v1::Chunk after = chunk(0, 0);
  EXPECT_EQ(after.edit_version(), 1u);
  EXPECT_FALSE(holds(after, felled));
  EXPECT_EQ(after.objects().id_size(), before.objects().id_size() - 1);
  EXPECT_EQ(canonical_bytes(chunk(1, 0)), offline(1, 0));  // the neighbour is untouched
}

TEST_P(EditTest, AddedObjectsMoveCarryStateAndGo) {
  v1::EditResponse added;
  ASSERT_TRUE(edit(add_object(2, 3, 10.5f, 20.25f), &added).ok());
  ASSERT_EQ(added.added_ids_size(), 1);
  const uint64_t id = added.added_ids(0);
  v1::Chunk c = chunk(2, 3);
  ASSERT_TRUE(holds(c, id));
  const v1::Chunk base = chunk(2, 4);  // any other chunk: ids never collide with generated ones
  EXPECT_FALSE(holds(base, id));

  v1::EditRequest state;
  op_at(state, 2, 3)->mutable_set_state()->set_id(id);
  state.mutable_ops(0)->mutable_set_state()->set_state("wood=3");
  ASSERT_TRUE(edit(state).ok());
  c = chunk(2, 3);
  ASSERT_EQ(c.object_states_size(), 1);
  EXPECT_EQ(c.object_states(0).state(), "wood=3");

  v1::EditRequest move;
  v1::MoveObject* m = op_at(move, 2, 3)->mutable_move_object();
  m->set_id(id);
  m->set_x(1);
  m->set_z(2);
  ASSERT_TRUE(edit(move).ok());
  c = chunk(2, 3);
  const int at =
      static_cast<int>(std::find(c.objects().id().begin(), c.objects().id().end(), id) - c.objects().id().begin());
  ASSERT_LT(at, c.objects().id_size());
  EXPECT_EQ(c.objects().x(at), 1.0f);
  EXPECT_EQ(c.objects().z(at), 2.0f);
  EXPECT_EQ(c.object_states_size(), 1);  // the state moves with it

  ASSERT_TRUE(edit(remove_object(2, 3, id)).ok());
  c = chunk(2, 3);
  EXPECT_FALSE(holds(c, id));
  EXPECT_EQ(c.object_states_size(), 0);
  EXPECT_EQ(c.edit_version(), 4u);
}

TEST_P(EditTest, BadEditsNameTheFieldAndChangeNothing) {
  const v1::Chunk before = chunk(0, 0);
  const auto expect_refused = [&](const v1::EditRequest& request, grpc::StatusCode code, const std::string& field) {
    const grpc::Status status = edit(request);
    EXPECT_EQ(status.error_code(), code) << status.error_message();
    EXPECT_NE(status.error_message().find(field), std::string::npos) << status.error_message();
  };
  expect_refused(remove_object(0, 0, 12345), grpc::StatusCode::NOT_FOUND, "ops[0].remove_object");
  expect_refused(add_object(0, 0, 64.0f, 1), grpc::StatusCode::INVALID_ARGUMENT, "ops[0].add_object.x");
  expect_refused(add_object(0, 0, 1, -0.5f), grpc::StatusCode::INVALID_ARGUMENT, "ops[0].add_object.z");
  expect_refused(add_object(0, 0, 1, 1, 99), grpc::StatusCode::INVALID_ARGUMENT, "ops[0].add_object.layer");
  expect_refused(add_object(int64_t{1} << 40, 0, 1, 1), grpc::StatusCode::INVALID_ARGUMENT, "ops[0].chunk.x");
  v1::EditRequest empty_op;
  op_at(empty_op, 0, 0);
  expect_refused(empty_op, grpc::StatusCode::INVALID_ARGUMENT, "ops[0]: no operation");
  // The error names every operation edit.proto has (read from the descriptor, a new one too).
  const google::protobuf::OneofDescriptor* ops = v1::EditOp::descriptor()->FindOneofByName("op");
  ASSERT_NE(ops, nullptr);
  const std::string none_set = edit(empty_op).error_message();
  for (int k = 0; k < ops->field_count(); ++k) {
    EXPECT_NE(none_set.find(ops->field(k)->name()), std::string::npos) << none_set;
  }
  expect_refused(v1::EditRequest{}, grpc::StatusCode::INVALID_ARGUMENT, "ops: no operations");
  v1::EditRequest big_state;
  op_at(big_state, 0, 0)->mutable_set_state()->set_id(before.objects().id(0));
  big_state.mutable_ops(0)->mutable_set_state()->set_state(std::string(257, 'x'));
  expect_refused(big_state, grpc::StatusCode::INVALID_ARGUMENT, "ops[0].set_state.state");
  v1::EditRequest too_many;
  for (int i = 0; i < 257; ++i) op_at(too_many, 0, 0)->set_remove_object(before.objects().id(0));
  expect_refused(too_many, grpc::StatusCode::INVALID_ARGUMENT, "at most 256");
  v1::EditRequest no_structure;
  op_at(no_structure, 0, 0)->set_remove_structure(42);
  expect_refused(no_structure, grpc::StatusCode::NOT_FOUND, "ops[0].remove_structure");
  v1::EditRequest generated_move;
  v1::MoveObject* m = op_at(generated_move, 0, 0)->mutable_move_object();
  m->set_id(before.objects().id(0));
  expect_refused(generated_move, grpc::StatusCode::INVALID_ARGUMENT, "generated object");
  // All or nothing: a good first operation is not applied when the second is bad.
  v1::EditRequest half = remove_object(0, 0, before.objects().id(0));
  op_at(half, 0, 0)->set_remove_object(777);
  expect_refused(half, grpc::StatusCode::NOT_FOUND, "ops[1].remove_object");
  EXPECT_EQ(canonical_bytes(chunk(0, 0)), canonical_bytes(before));
}

TEST_P(EditTest, AStaleExpectedVersionIsRefusedWithTheCurrentOne) {
  const v1::Chunk c = chunk(0, 0);
  ASSERT_GE(c.objects().id_size(), 2);
  ASSERT_TRUE(edit(remove_object(0, 0, c.objects().id(0))).ok());
  v1::EditRequest request = remove_object(0, 0, c.objects().id(1));
  v1::ChunkVersion* expect = request.add_expect();
  expect->mutable_chunk()->set_x(0);
  expect->mutable_chunk()->set_z(0);
  expect->set_version(0);
  const grpc::Status stale = edit(request);
  EXPECT_EQ(stale.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_NE(stale.error_message().find("at version 1"), std::string::npos) << stale.error_message();
  expect->set_version(1);
  EXPECT_TRUE(edit(request).ok());
}

TEST_P(EditTest, OfManyPlayersFellingOneTreeAtOnceExactlyOneWins) {
  const v1::Chunk c = chunk(0, 0);
  ASSERT_GT(c.objects().id_size(), 0);
  const uint64_t tree = c.objects().id(0);
  std::atomic<int> won{0}, not_found{0};
  std::vector<std::thread> players;
  players.reserve(12);
  for (int p = 0; p < 12; ++p) {
    players.emplace_back([&] {
      const grpc::Status status = edit(remove_object(0, 0, tree));
      if (status.ok()) ++won;
      if (status.error_code() == grpc::StatusCode::NOT_FOUND) ++not_found;
    });
  }
  for (std::thread& t : players) t.join();
  EXPECT_EQ(won.load(), 1);
  EXPECT_EQ(not_found.load(), 11);
  EXPECT_EQ(chunk(0, 0).edit_version(), 1u);
}

TEST_P(EditTest, ARetriedRequestAppliesOnceAndGetsTheSameAnswer) {
  v1::EditRequest request = add_object(1, 1, 3, 3);
  request.set_request_id("player-7/42");
  v1::EditResponse first, second;
  ASSERT_TRUE(edit(request, &first).ok());
  ASSERT_TRUE(edit(request, &second).ok());
  EXPECT_EQ(first.SerializeAsString(), second.SerializeAsString());
  EXPECT_EQ(chunk(1, 1).edit_version(), 1u);
}

// Ids are bytes: libpq's text parameters ended at a NUL byte, which made these two one id.
TEST_P(EditTest, RequestIdsAreBytesAndAnIdReusedWithOtherContentsIsRefused) {
  v1::EditRequest a = add_object(2, 2, 3, 3), b = add_object(2, 2, 5, 5);
  a.set_request_id(std::string("nul\0a", 5));
  b.set_request_id(std::string("nul\0b", 5));
  v1::EditResponse first_a, first_b, again_a;
  ASSERT_TRUE(edit(a, &first_a).ok());
  ASSERT_TRUE(edit(b, &first_b).ok());
  EXPECT_NE(first_a.SerializeAsString(), first_b.SerializeAsString());
  EXPECT_EQ(chunk(2, 2).edit_version(), 2u);
  ASSERT_TRUE(edit(a, &again_a).ok());  // a retry: the first answer
  EXPECT_EQ(again_a.SerializeAsString(), first_a.SerializeAsString());

  v1::EditRequest reused = add_object(2, 2, 7, 7);
  reused.set_request_id(a.request_id());
  const grpc::Status refused = edit(reused);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::ALREADY_EXISTS);
  EXPECT_NE(refused.error_message().find("request_id: reused with different contents"), std::string::npos)
      << refused.error_message();
  EXPECT_EQ(chunk(2, 2).edit_version(), 2u);  // nothing of it applied
}

TEST_P(EditTest, OnlyTheWriteTokenEdits) {
  const v1::EditRequest request = add_object(0, 0, 1, 1);
  EXPECT_EQ(edit(request, nullptr, "").error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(edit(request, nullptr, "wrong").error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_TRUE(edit(request).ok());
  stop();
  start(kWriteToken, kReadToken);
  EXPECT_EQ(edit(request, nullptr, kReadToken).error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(edit(request, nullptr, "").error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(chunk(0, 0, kWriteToken).edit_version(), 1u);  // the write token reads too
  stop();
  start("");  // no write token: edits are closed to everyone
  const grpc::Status closed = edit(request);
  EXPECT_EQ(closed.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_NE(closed.error_message().find("--write-token-file"), std::string::npos);
}

TEST_P(EditTest, EditsOutliveTheServer) {
  const v1::Chunk c = chunk(0, 0);
  ASSERT_GT(c.objects().id_size(), 0);
  ASSERT_TRUE(edit(remove_object(0, 0, c.objects().id(0))).ok());
  const std::string edited = canonical_bytes(chunk(0, 0));
  stop();
  start();
  EXPECT_EQ(canonical_bytes(chunk(0, 0)), edited);
  EXPECT_NE(edited, offline(0, 0));
}

// The first chunk near the origin reporting a structure that also reaches another chunk.
bool find_spanning_structure(const World& world, ChunkCoord& where, v1::StructureInstance& found) {
  for (int64_t z = -8; z <= 8; ++z) {
    for (int64_t x = -8; x <= 8; ++x) {
      const v1::Chunk c = encode_chunk(world, Generator(world).generate({x, z}));
      for (const v1::StructureInstance& s : c.structures()) {
        const double cs = static_cast<double>(world.chunk_size());
        if (std::floor(static_cast<double>(s.x()) / cs) !=
            std::floor((static_cast<double>(s.x()) + s.size_x() - 1e-9) / cs)) {
          where = {x, z};
          found = s;
          return true;
        }
      }
    }
  }
  return false;
}

TEST_P(EditTest, ARemovedStructureLeavesEveryChunkItTouchesInOneCommit) {
  ChunkCoord where;
  v1::StructureInstance s;
  ASSERT_TRUE(find_spanning_structure(default_world(), where, s));
  v1::EditRequest request;
  op_at(request, where.x, where.z)->set_remove_structure(s.id());
  v1::EditResponse response;
  ASSERT_TRUE(edit(request, &response).ok());
  ASSERT_GE(response.versions_size(), 2);
  for (const v1::ChunkVersion& v : response.versions()) {
    const v1::Chunk c = chunk(v.chunk().x(), v.chunk().z());
    EXPECT_EQ(c.edit_version(), 1u);
    for (const v1::StructureInstance& left : c.structures()) EXPECT_NE(left.id(), s.id());
  }
}

// A session's copy, kept up to date from change events with the SDK's own function, is the
// chunk GetChunk serves, byte for byte, after every batch of a random edit sequence; and each
// event's chunk_hash is that chunk's hash.
TEST_P(EditTest, ChangeEventsKeepASessionsCopyIdenticalToTheServedChunk) {
  grpc::ClientContext context;
  auto session = stub_->Session(&context);
  v1::SessionUpdate update;
  update.set_x(32);
  update.set_z(32);
  update.set_view_radius(1);
  ASSERT_TRUE(session->Write(update));
  std::map<std::pair<int64_t, int64_t>, v1::Chunk> copies;
  v1::SessionEvent event;
  while (copies.size() < 9 && session->Read(&event)) {
    copies[{event.load().coord().x(), event.load().coord().z()}] = event.load();
  }
  std::mt19937_64 random(7);
  std::vector<uint64_t> added;
  for (int step = 0; step < 40; ++step) {
    const int64_t x = static_cast<int64_t>(random() % 3) - 1, z = static_cast<int64_t>(random() % 3) - 1;
    const v1::Chunk now = chunk(x, z);
    v1::EditRequest request;
    switch (random() % 3) {
      case 0:
        if (now.objects().id_size() == 0) continue;
        request = remove_object(x, z, now.objects().id(static_cast<int>(random() % now.objects().id_size())));
        break;
      case 1:
        request = add_object(x, z, static_cast<float>(random() % 64), static_cast<float>(random() % 640) / 10.0f,
                             static_cast<uint32_t>(random() % default_world().resources().size()));
        break;
      default:
        if (now.objects().id_size() == 0) continue;
        op_at(request, x, z)->mutable_set_state()->set_id(now.objects().id(0));
        request.mutable_ops(0)->mutable_set_state()->set_state(std::to_string(step));
    }
    ASSERT_TRUE(edit(request).ok()) << "step " << step;
    ASSERT_TRUE(session->Read(&event)) << "step " << step;
    ASSERT_TRUE(event.has_change()) << "step " << step;
    v1::Chunk& copy = copies[{event.change().chunk().x(), event.change().chunk().z()}];
    apply_change(copy, event.change(), {});
    const v1::Chunk served = chunk(x, z);
    EXPECT_EQ(canonical_bytes(copy), canonical_bytes(served)) << "step " << step;
    EXPECT_EQ(event.change().chunk_hash(), chunk_hash(served)) << "step " << step;  // what a client checks
  }
  context.TryCancel();
}

// A change is never sent where the chunk it leads to is smaller (docs/server.md,
// "Amplification"): 256 states of 256 bytes set on one object in one batch are a change of
// 66 KB for a chunk that ends up holding one of them. A session holding the chunk gets the
// chunk again instead of the change; a client that generates gets it as a load, not as its
// change from the base, and GetChunkEdits names it for GetChunk.
TEST_P(EditTest, AChangeLargerThanItsChunkComesAsTheChunk) {
  const v1::Chunk before = chunk(0, 0);
  ASSERT_GT(before.objects().id_size(), 0);
  ASSERT_LT(before.ByteSizeLong(), 60000u) << "a chunk smaller than the change";
  const auto deadline = std::chrono::system_clock::now() + std::chrono::seconds(30);
  grpc::ClientContext context;
  context.set_deadline(deadline);
  auto session = stub_->Session(&context);
  v1::SessionUpdate update;
  update.set_x(32);
  update.set_z(32);
  ASSERT_TRUE(session->Write(update));
  v1::SessionEvent event;
  ASSERT_TRUE(session->Read(&event) && event.has_load());
  v1::EditRequest request;
  for (int k = 0; k < 256; ++k) {
    v1::ObjectState* state = op_at(request, 0, 0)->mutable_set_state();
    state->set_id(before.objects().id(0));
    state->set_state(std::string(255, 'a') + static_cast<char>('a' + k % 26));
  }
  ASSERT_TRUE(edit(request).ok());
  ASSERT_TRUE(session->Read(&event));
  EXPECT_FALSE(event.has_change()) << "a change of " << event.change().ByteSizeLong() << " bytes was sent";
  ASSERT_TRUE(event.has_load());
  EXPECT_EQ(canonical_bytes(event.load()), canonical_bytes(chunk(0, 0)));
  context.TryCancel();

  v1::LocalGeneration local;
  local.add_generator_versions(default_world().generator_version());
  local.set_fingerprint(default_world().fingerprint());
  grpc::ClientContext local_context;
  local_context.set_deadline(deadline);
  auto local_session = stub_->Session(&local_context);
  *update.mutable_local_generation() = local;
  ASSERT_TRUE(local_session->Write(update));
  ASSERT_TRUE(local_session->Read(&event) && event.local_generation().accepted());
  ASSERT_TRUE(local_session->Read(&event));
  EXPECT_FALSE(event.has_edited()) << "an edited change of " << event.edited().ByteSizeLong() << " bytes was sent";
  ASSERT_TRUE(event.has_load());
  EXPECT_EQ(canonical_bytes(event.load()), canonical_bytes(chunk(0, 0)));
  local_context.TryCancel();

  grpc::ClientContext edits_context;
  v1::GetChunkEditsRequest asked;
  *asked.mutable_local_generation() = local;
  asked.add_coords();  // (0, 0)
  v1::ChunkEdits answer;
  ASSERT_TRUE(stub_->GetChunkEdits(&edits_context, asked, &answer).ok());
  EXPECT_EQ(answer.edited_size(), 0);
  ASSERT_EQ(answer.not_sent_size(), 1);
  EXPECT_EQ(answer.not_sent(0).x(), 0);
}

TEST_P(EditTest, AStoreOfAnotherWorldIsRefusedUnlessRebound) {
  ASSERT_TRUE(edit(add_object(0, 0, 1, 1)).ok());
  stop();
  v1::WorldDefinition other = default_world().definition();
  other.set_seed(other.seed() + 1);
  const World world = *World::create(other).world;
  auto store = open_store(location());
  const std::string refused = bind_store(*store, world, false);
  EXPECT_NE(refused.find("--store-rebind"), std::string::npos) << refused;
  EXPECT_NE(refused.find(default_world().fingerprint()), std::string::npos) << refused;
  EXPECT_EQ(bind_store(*store, world, true), "");
  EXPECT_EQ(bind_store(*store, world, false), "");  // now bound to the other world
}

// The `chunkforge edits` command on the store a server is serving from.
std::string edits_command(const std::string& words, const std::string& location) {
  return std::string(CHUNKFORGE_CLI) + " edits " + words + " --store '" + location + "'";
}

TEST_P(EditTest, AnExportTakenWhileServingRestoresIntoAnEmptyStore) {
  const v1::Chunk c = chunk(0, 0);
  ASSERT_TRUE(edit(remove_object(0, 0, c.objects().id(0))).ok());
  ASSERT_TRUE(edit(add_object(3, -2, 5, 6)).ok());
  const std::string served_00 = canonical_bytes(chunk(0, 0)), served_32 = canonical_bytes(chunk(3, -2));
  const std::string file = dir_ + "export.jsonl";
  const test::CommandResult exported = test::run_command(edits_command("export --out " + file, location()));
  ASSERT_EQ(exported.exit_code, 0) << exported.output;
  EXPECT_NE(exported.output.find("2 changes"), std::string::npos) << exported.output;
  // "--out -" is standard output (it once wrote a file named "-").
  const test::CommandResult to_stdout = test::run_command(edits_command("export --out -", location()));
  ASSERT_EQ(to_stdout.exit_code, 0) << to_stdout.output;
  EXPECT_TRUE(to_stdout.output.starts_with(test::read_text(file))) << to_stdout.output;
  EXPECT_FALSE(std::filesystem::exists("-"));

  stop();
  const std::string fresh = postgres_ ? postgres_->create_database("restored") : "sqlite:" + dir_ + "restored.db";
  ASSERT_FALSE(fresh.empty());
  const test::CommandResult imported = test::run_command(edits_command("import " + file, fresh));
  ASSERT_EQ(imported.exit_code, 0) << imported.output;
  // Twice is refused, naming the line, and changes nothing.
  const test::CommandResult again = test::run_command(edits_command("import " + file, fresh));
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_NE(again.output.find("line 2: chunk (0, 0) is at version 1"), std::string::npos) << again.output;
  restored_ = fresh;
  start();
  EXPECT_EQ(canonical_bytes(chunk(0, 0)), served_00);
  EXPECT_EQ(canonical_bytes(chunk(3, -2)), served_32);
}

// Every stored change of a store: chunk, version and blob, in commit order.
std::vector<std::tuple<int64_t, int64_t, uint64_t, std::string>> stored_changes(const std::string& location) {
  std::vector<std::tuple<int64_t, int64_t, uint64_t, std::string>> out;
  open_store(location)->snapshot(
      [&](const StoredChange& c) { out.emplace_back(c.chunk.x, c.chunk.z, c.version, c.change); });
  return out;
}

// tests/server/data/edits_export_format1.jsonl was written by `chunkforge edits export` before
// format 2: edits of every kind on the built-in world through `chunkforge edit` (a removal and a
// structure's removal in (0, 0); an add, its state 00ff7b2a and a move in (-3, 5); an add, a reset
// and an add in (2, 3)). `chunkforge chunk` printed the edited chunks' hashes below.
TEST_P(EditTest, AnExportOfFormatOneImportsToTheSameStoreAsItsExportOfFormatTwo) {
  stop();
  const auto fresh = [&](const std::string& name) {
    return postgres_ ? postgres_->create_database(name) : "sqlite:" + dir_ + name + ".db";
  };
  const std::string from_old = fresh("from_old"), from_new = fresh("from_new");
  ASSERT_FALSE(from_old.empty() || from_new.empty());
  const std::string old_file = std::string(CHUNKFORGE_SOURCE_DIR) + "/tests/server/data/edits_export_format1.jsonl";
  const test::CommandResult imported = test::run_command(edits_command("import " + old_file, from_old));
  ASSERT_EQ(imported.exit_code, 0) << imported.output;
  const std::string new_file = dir_ + "format2.jsonl";
  const test::CommandResult exported = test::run_command(edits_command("export --out " + new_file, from_old));
  ASSERT_EQ(exported.exit_code, 0) << exported.output;

  // The new lines speak the CLI's language: what `chunkforge chunk` prints can be found in them.
  const std::string text = test::read_text(new_file);
  EXPECT_TRUE(text.starts_with("{\"chunkforge_edits\":2,")) << text;
  for (const std::string& expected : std::vector<std::string>{
           "\"remove_object\":\"" + hex_id(5953514668553839397u) + "\"",
           "\"id\":\"38c2ca775f85be08\",\"layer\":\"iron\"", "\"state\":\"00ff7b2a\"",
           "\"remove_structure\":\"" + hex_id(404521140762736755u) + "\"", "\"chunk_hash\":\"a31acd9c65828752\""}) {
    EXPECT_NE(text.find(expected), std::string::npos) << expected << "\n" << text;
  }
  // A layer the world does not have and an id that is no hex are refused, naming the field.
  std::string bad = text;
  bad.replace(bad.find("\"layer\":\"iron\""), 14, "\"layer\":\"irn\"");
  std::ofstream(dir_ + "bad.jsonl") << bad;
  const test::CommandResult refused = test::run_command(edits_command("import " + dir_ + "bad.jsonl", from_new));
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("line 3: layer: the world has no resource layer \"irn\"; nothing imported"),
            std::string::npos)
      << refused.output;
  const test::CommandResult reimported = test::run_command(edits_command("import " + new_file, from_new));
  ASSERT_EQ(reimported.exit_code, 0) << reimported.output;
  EXPECT_EQ(stored_changes(from_new), stored_changes(from_old));
  EXPECT_EQ(stored_changes(from_new).size(), 7u);

  restored_ = from_new;
  start();
  for (const auto& [x, z, hash, version] : std::vector<std::tuple<int64_t, int64_t, uint64_t, uint64_t>>{
           {0, 0, 0xa31acd9c65828752, 2}, {2, 3, 0x271f129b0be0621f, 5}, {-3, 5, 0x095b3e85fbc8d0ee, 3}}) {
    const v1::Chunk served = chunk(x, z);
    EXPECT_EQ(served.edit_version(), version) << x << ", " << z;
    EXPECT_EQ(chunk_hash(served), hash) << x << ", " << z;
  }
}

TEST_P(EditTest, AResetReturnsAnAreaToTheGeneratedWorldAndReplacesItInSessions) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  auto session = stub_->Session(&context);
  v1::SessionUpdate update;  // holds chunk (0, 0) only
  update.set_x(32);
  update.set_z(32);
  update.set_view_radius(0);
  ASSERT_TRUE(session->Write(update));
  v1::SessionEvent event;
  ASSERT_TRUE(session->Read(&event) && event.has_load());
  ASSERT_TRUE(edit(remove_object(0, 0, event.load().objects().id(0))).ok());
  ASSERT_TRUE(edit(add_object(5, 5, 1, 1)).ok());  // outside the rectangle: kept
  ASSERT_TRUE(session->Read(&event) && event.has_change());

  const test::CommandResult reset = test::run_command(edits_command("reset -1 -1 1 1", location()));
  ASSERT_EQ(reset.exit_code, 0) << reset.output;
  EXPECT_NE(reset.output.find("{\"chunks_reset\":1}"), std::string::npos) << reset.output;
  // The server sees the command's commit through the store and sends the session the chunk anew.
  ASSERT_TRUE(session->Read(&event));
  ASSERT_TRUE(event.has_load()) << event.ShortDebugString().substr(0, 200);
  EXPECT_EQ(event.load().edit_version(), 2u);
  v1::Chunk generated = event.load();
  generated.set_edit_version(0);
  EXPECT_EQ(canonical_bytes(generated), offline(0, 0));
  EXPECT_EQ(chunk(0, 0).edit_version(), 2u);
  EXPECT_EQ(chunk(5, 5).edit_version(), 1u);

  const test::CommandResult stats = test::run_command(edits_command("stats", location()));
  ASSERT_EQ(stats.exit_code, 0) << stats.output;
  EXPECT_NE(stats.output.find("\"chunks\":2,\"changes\":2,"), std::string::npos) << stats.output;
  context.TryCancel();
}

// The model against a reference that knows nothing of the implementation: a map from id to
// object, changed by each acknowledged operation as the docs say it should be. After a random
// sequence of batches (with refused ones among them), GetChunk holds exactly the reference.
TEST_P(EditTest, RandomEditSequencesMatchASimpleReferenceModel) {
  struct Object {
    float x, z;
    std::string state;
  };
  std::mt19937_64 random(GetParam() == "sqlite" ? 11 : 12);
  const v1::Chunk base = chunk(1, 1);
  std::map<uint64_t, Object> reference;
  std::vector<uint64_t> added;
  for (int k = 0; k < base.objects().id_size(); ++k)
    reference[base.objects().id(k)] = {base.objects().x(k), base.objects().z(k), ""};
  for (int step = 0; step < 60; ++step) {
    const uint64_t some =
        reference.empty() ? 1 : std::next(reference.begin(), static_cast<long>(random() % reference.size()))->first;
    const bool is_added = std::find(added.begin(), added.end(), some) != added.end();
    v1::EditResponse response;
    grpc::Status status;
    switch (random() % 5) {
      case 0:
        status = edit(remove_object(1, 1, some), &response);
        if (status.ok()) reference.erase(some);
        break;
      case 1: {
        const float x = static_cast<float>(random() % 640) / 10.0f, z = static_cast<float>(random() % 640) / 10.0f;
        status = edit(add_object(1, 1, x, z), &response);
        if (status.ok()) {
          reference[response.added_ids(0)] = {x, z, ""};
          added.push_back(response.added_ids(0));
        }
        break;
      }
      case 2: {
        v1::EditRequest move;
        v1::MoveObject* m = op_at(move, 1, 1)->mutable_move_object();
        m->set_id(some);
        m->set_x(static_cast<float>(random() % 64));
        m->set_z(static_cast<float>(random() % 64));
        status = edit(move, &response);
        EXPECT_EQ(status.ok(), is_added) << "step " << step << ": " << status.error_message();
        if (status.ok()) reference[some] = {m->x(), m->z(), reference[some].state};
        break;
      }
      case 3: {
        v1::EditRequest state;
        op_at(state, 1, 1)->mutable_set_state()->set_id(some);
        state.mutable_ops(0)->mutable_set_state()->set_state(random() % 3 ? "s" + std::to_string(step) : "");
        status = edit(state, &response);
        if (status.ok()) reference[some].state = state.ops(0).set_state().state();
        break;
      }
      default:
        status = edit(remove_object(1, 1, 0xdead), &response);  // no such object: refused
        EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
    }
  }
  const v1::Chunk served = chunk(1, 1);
  std::map<uint64_t, Object> actual;
  for (int k = 0; k < served.objects().id_size(); ++k)
    actual[served.objects().id(k)] = {served.objects().x(k), served.objects().z(k), ""};
  for (const v1::ObjectState& s : served.object_states()) actual[s.id()].state = s.state();
  ASSERT_EQ(actual.size(), reference.size());
  for (const auto& [id, object] : reference) {
    ASSERT_EQ(actual.count(id), 1u) << id;
    EXPECT_EQ(actual[id].x, object.x) << id;
    EXPECT_EQ(actual[id].z, object.z) << id;
    EXPECT_EQ(actual[id].state, object.state) << id;
  }
}

// A store of schema 1 (request ids as text) is migrated keeping its ids; they have no digest,
// so they answer as before whatever a retry holds.
void expect_migrated(const std::string& location) {
  std::unique_ptr<EditStore> store = open_store(location);
  store->write([&](EditStore::Transaction& tx) {
    const std::optional<EditStore::Transaction::Remembered> old = tx.remembered("old-id");
    ASSERT_TRUE(old.has_value());
    EXPECT_EQ(old->answer, "answer");
    EXPECT_EQ(old->digest, "");
    EXPECT_EQ(tx.meta("schema_version"), std::to_string(kStoreSchemaVersion));
    tx.remember(std::string("new\0id", 6), "digest", "bytes");
    EXPECT_FALSE(tx.remembered(std::string("new", 3)).has_value());
    EXPECT_EQ(tx.remembered(std::string("new\0id", 6))->digest, "digest");
  });
}

// Schema 1 as each store wrote it, with one remembered request.
constexpr char kSqliteSchema1[] =
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "INSERT INTO meta(key, value) VALUES ('schema_version', '1');"
    "CREATE TABLE changes(seq INTEGER PRIMARY KEY, cx INTEGER NOT NULL, cz INTEGER NOT NULL,"
    "  version INTEGER NOT NULL, change BLOB NOT NULL);"
    "CREATE UNIQUE INDEX changes_by_chunk ON changes(cx, cz, version);"
    "CREATE TABLE requests(id TEXT PRIMARY KEY, answer BLOB NOT NULL, seq INTEGER NOT NULL);"
    "CREATE INDEX requests_by_age ON requests(seq);"
    "INSERT INTO requests VALUES ('old-id', CAST('answer' AS BLOB), 1);";
constexpr char kPostgresSchema1[] =
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "INSERT INTO meta(key, value) VALUES ('schema_version', '1');"
    "CREATE TABLE changes(seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, cx BIGINT NOT NULL,"
    "  cz BIGINT NOT NULL, version BIGINT NOT NULL, change BYTEA NOT NULL);"
    "CREATE UNIQUE INDEX changes_by_chunk ON changes(cx, cz, version);"
    "CREATE TABLE requests(id TEXT PRIMARY KEY, answer BYTEA NOT NULL, seq BIGINT NOT NULL);"
    "CREATE INDEX requests_by_age ON requests(seq);"
    "INSERT INTO requests VALUES ('old-id', convert_to('answer', 'UTF8'), 1);";

TEST(StoreMigration, SqliteSchema1KeepsItsRequestIds) {
  const std::string path = test::unique_temp_dir("migrate") + "edits.db";
  const test::CommandResult made = test::run_command("sqlite3 " + path + " \"" + kSqliteSchema1 + "\"");
  if (made.exit_code == 127) GTEST_SKIP() << "no sqlite3 command to write a schema-1 file with";
  ASSERT_EQ(made.exit_code, 0) << made.output;
  expect_migrated("sqlite:" + path);
}

// Schema 2 as SQLite wrote it: seq a plain INTEGER PRIMARY KEY, which gives the largest seq
// again once its row is deleted. Two changes, the newest of chunk (9, 9), and one request id.
constexpr char kSqliteSchema2[] =
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "INSERT INTO meta(key, value) VALUES ('schema_version', '2');"
    "CREATE TABLE changes(seq INTEGER PRIMARY KEY, cx INTEGER NOT NULL, cz INTEGER NOT NULL,"
    "  version INTEGER NOT NULL, change BLOB NOT NULL);"
    "CREATE UNIQUE INDEX changes_by_chunk ON changes(cx, cz, version);"
    "CREATE TABLE requests(id BLOB PRIMARY KEY, digest BLOB, answer BLOB NOT NULL, seq INTEGER NOT NULL);"
    "CREATE INDEX requests_by_age ON requests(seq);"
    "INSERT INTO changes VALUES (1, 0, 0, 1, X'2001'), (2, 9, 9, 1, X'2001');"
    "INSERT INTO requests VALUES (X'6964', X'64', X'616e73776572', 1);";

// Migrated in place to schema 3, a store keeps its changes and request ids, and a change
// stored after the newest row was deleted gets a seq the tails have not passed, also after the
// store is opened again.
TEST(StoreMigration, SqliteSchema2KeepsItsDataAndNeverGivesASeqAgain) {
  const std::string path = test::unique_temp_dir("migrate2") + "edits.db";
  const test::CommandResult made = test::run_command("sqlite3 " + path + " \"" + kSqliteSchema2 + "\"");
  if (made.exit_code == 127) GTEST_SKIP() << "no sqlite3 command to write a schema-2 file with";
  ASSERT_EQ(made.exit_code, 0) << made.output;
  std::unique_ptr<EditStore> store = open_store("sqlite:" + path);
  EXPECT_EQ(store->meta("schema_version"), std::to_string(kStoreSchemaVersion));
  EXPECT_EQ(store->last_seq(), 2);
  const std::vector<StoredChange> kept = store->changes_after(0, 10);
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[0].seq, 1);
  EXPECT_EQ(kept[0].chunk, (ChunkCoord{0, 0}));
  EXPECT_EQ(kept[0].change, "\x20\x01");
  EXPECT_EQ(kept[1].seq, 2);
  EXPECT_EQ(kept[1].chunk, (ChunkCoord{9, 9}));
  const auto reset_newest = [&](uint64_t version) {
    store->write([&](EditStore::Transaction& tx) {
      tx.erase_log({9, 9});
      tx.append({9, 9}, version, "\x20\x01");
    });
  };
  store->write([&](EditStore::Transaction& tx) { EXPECT_EQ(tx.remembered("id")->answer, "answer"); });
  reset_newest(2);
  std::vector<StoredChange> after = store->changes_after(2, 10);
  ASSERT_EQ(after.size(), 1u);  // schema 2 gave it seq 2 again: a tail at 2 never saw it
  EXPECT_EQ(after[0].seq, 3);
  EXPECT_EQ(after[0].version, 2u);

  store.reset();
  store = open_store("sqlite:" + path);
  reset_newest(3);
  after = store->changes_after(3, 10);
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(after[0].seq, 4);
}

TEST(StoreMigration, PostgresSchema1KeepsItsRequestIds) {
  test::PostgresCluster pg("migrate");
  ASSERT_TRUE(pg.started()) << pg.failure();
  const test::CommandResult made =
      test::run_command("psql -v ON_ERROR_STOP=1 '" + pg.uri() + "' -c \"" + kPostgresSchema1 + "\"");
  ASSERT_EQ(made.exit_code, 0) << made.output;
  expect_migrated(pg.uri());
}

INSTANTIATE_TEST_SUITE_P(Stores, EditTest, testing::Values("sqlite", "postgres"),
                         [](const testing::TestParamInfo<std::string>& store) { return store.param; });

}  // namespace
}  // namespace chunkforge::server
