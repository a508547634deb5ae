// File: tests/hostile/adversary/store_states.cc
//
// The store states of store_states.h, made through Edit calls of a real client.
#include "store_states.h"

#include <filesystem>
#include <stdexcept>
#include <thread>
#include <vector>

#include "hostile/harness.h"

namespace chunkforge::hostile::adversary {
namespace {

constexpr int kBatch = 32;        // objects or states a version
constexpr int kStateBytes = 256;  // an object's state at its bound
constexpr uint64_t kSnapshotVersions = 32 * 33 + 1;

v1::EditOp* op_at(v1::EditRequest& request, int64_t x, int64_t z) {
  v1::EditOp* op = request.add_ops();
  op->mutable_chunk()->set_x(x);
  op->mutable_chunk()->set_z(z);
  return op;
}

// The request's answer; RESOURCE_EXHAUSTED (a per-chunk bound reached) as false, any other
// failure thrown.
bool edit(v1::WorldService::Stub& stub, const v1::EditRequest& request, v1::EditResponse* response) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(static_cast<int>(30 * time_scale())));
  const grpc::Status status = stub.Edit(&context, request, response);
  if (status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) return false;
  if (!status.ok()) throw std::runtime_error("store set-up: Edit failed: " + status.error_message());
  return true;
}

std::vector<uint64_t> add_objects(v1::WorldService::Stub& stub, int most, uint32_t chunk_size) {
  std::vector<uint64_t> ids;
  for (int n = 0; static_cast<int>(ids.size()) < most; ++n) {
    v1::EditRequest request;
    for (int i = 0; i < kBatch; ++i) {
      v1::NewObject* add = op_at(request, 0, 0)->mutable_add_object();
      const int k = n * kBatch + i;
      add->set_x(static_cast<float>(k % chunk_size) + 0.25f);
      add->set_z(static_cast<float>((k / chunk_size) % chunk_size) + 0.5f);
    }
    v1::EditResponse response;
    if (!edit(stub, request, &response)) break;
    ids.insert(ids.end(), response.added_ids().begin(), response.added_ids().end());
  }
  return ids;
}

// States of kStateBytes on `ids`, a batch a version, until the chunk's state bound refuses one.
void set_states(v1::WorldService::Stub& stub, const std::vector<uint64_t>& ids) {
  for (size_t at = 0; at < ids.size(); at += kBatch) {
    v1::EditRequest request;
    for (size_t i = at; i < std::min(ids.size(), at + kBatch); ++i) {
      v1::ObjectState* state = op_at(request, 0, 0)->mutable_set_state();
      state->set_id(ids[i]);
      state->set_state(std::string(kStateBytes, static_cast<char>('a' + i % 26)));
    }
    v1::EditResponse response;
    if (!edit(stub, request, &response)) return;
  }
}

void thousand_chunks(v1::WorldService::Stub& stub) {
  for (int first = 0; first < 1000; first += 64) {
    v1::EditRequest request;
    for (int i = first; i < std::min(1000, first + 64); ++i) {
      v1::NewObject* add = op_at(request, i % 33 - 16, i / 33 - 16)->mutable_add_object();
      add->set_x(10);
      add->set_z(10);
    }
    v1::EditResponse response;
    edit(stub, request, &response);
  }
}

// One writer's share of many_versions.
void write_versions(v1::WorldService::Stub& stub, const std::vector<uint64_t>& ids, std::atomic<uint64_t>& version,
                    std::atomic<int>& next, const std::atomic<bool>& failed) {
  while (version.load() < kSnapshotVersions && !failed) {
    const int k = next++;
    v1::EditRequest request;
    v1::ObjectState* state = op_at(request, 0, 0)->mutable_set_state();
    state->set_id(ids[static_cast<size_t>(k) % ids.size()]);
    state->set_state(std::string(100, static_cast<char>('a' + k % 26)));
    v1::EditResponse response;
    if (edit(stub, request, &response) && response.versions_size() > 0) {
      uint64_t seen = version.load();
      while (seen < response.versions(0).version() &&
             !version.compare_exchange_weak(seen, response.versions(0).version())) {
      }
    }
  }
}

// One state rewritten a version, from 16 writers at once (the store commits them in groups),
// until the chunk is past kSnapshotVersions.
void many_versions(ServerProcess& server, const std::vector<uint64_t>& ids) {
  std::atomic<uint64_t> version{0};
  std::atomic<int> next{0};
  std::atomic<bool> failed{false};
  {
    std::vector<std::jthread> writers;
    for (int w = 0; w < 16; ++w) {
      writers.emplace_back([&] {
        auto stub = v1::WorldService::NewStub(server.channel());
        try {
          write_versions(*stub, ids, version, next, failed);
        } catch (const std::exception&) {
          failed = true;
        }
      });
    }
  }
  if (failed) throw std::runtime_error("store set-up: an Edit failed");
}

}  // namespace

const char* store_name(StoreState state) {
  switch (state) {
    case StoreState::empty:
      return "empty";
    case StoreState::limit_chunk:
      return "limit_chunk";
    case StoreState::thousand_chunks:
      return "thousand_chunks";
    case StoreState::snapshots:
      return "snapshots";
  }
  return "?";
}

std::string build_store(StoreState state) {
  const std::string dir = test::unique_temp_dir(std::string("adversary_store_") + store_name(state));
  if (state == StoreState::empty) return dir;
  ServerProcess server(std::string("store_") + store_name(state), {"--data", dir, "--open-edits"});
  if (!server.serving()) throw std::runtime_error("store set-up: the server did not start:\n" + server.log());
  auto stub = v1::WorldService::NewStub(server.channel());
  grpc::ClientContext context;
  v1::WorldInfo info;
  if (!stub->GetWorldInfo(&context, {}, &info).ok()) throw std::runtime_error("store set-up: no GetWorldInfo");
  if (state == StoreState::thousand_chunks) thousand_chunks(*stub);
  if (state == StoreState::limit_chunk) set_states(*stub, add_objects(*stub, 1 << 20, info.chunk_size()));
  if (state == StoreState::snapshots) many_versions(server, add_objects(*stub, 256, info.chunk_size()));
  const auto [seconds, code] = server.terminate();
  if (code != 0) throw std::runtime_error("store set-up: the server exited with " + std::to_string(code));
  return dir;
}

std::string copy_store(const std::string& template_dir) {
  const std::string dir = test::unique_temp_dir("adversary_data");
  std::filesystem::copy(template_dir, dir, std::filesystem::copy_options::recursive);
  return dir;
}

}  // namespace chunkforge::hostile::adversary
