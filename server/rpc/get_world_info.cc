// WorldService::GetWorldInfo: the world's description, serialized once at start-up, and with it,
// for clients that generate chunks themselves, the resolved world definition when the operator
// shares it (--client-generation, docs/client-generation.md).
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "log/client_log.h"
#include "rpc/unary_call.h"
#include "rpc/world_service.h"

namespace chunkforge::server {

grpc::ServerUnaryReactor* WorldService::GetWorldInfo(grpc::CallbackServerContext* context, const grpc::ByteBuffer* raw,
                                                     grpc::ByteBuffer* response) {
  auto* call = new UnaryCall(*this, context, response, Metrics::kGetWorldInfo);
  v1::GetWorldInfoRequest request;
  grpc::Status status = call->open(raw, &request);
  if (status.ok() && request.include_definition() && !definition_bytes_) {
    status = {grpc::StatusCode::FAILED_PRECONDITION,
              "include_definition: this server keeps its world definition (--client-generation off, or "
              "--publish-seed off); ask it for chunks instead of generating them"};
  }
  if (!status.ok()) {
    call->fail(status);
  } else {
    call->answer(request.include_definition() ? definition_bytes_ : info_bytes_);
  }
  return call;
}

void WorldService::disclose(bool publish_seed, bool share_definition) {
  v1::WorldInfo info;
  info.ParseFromString(*info_bytes_);
  if (share_definition) {
    *info.mutable_definition() = world_.definition();
    if (const Epochs* epochs = source().epochs().get()) {
      for (uint32_t e = 0; e < epochs->newest(); ++e) *info.add_older_epochs() = epochs->world(e).definition();
    }
    definition_bytes_ = std::make_shared<const std::string>(info.SerializeAsString());
    info.clear_definition();
    info.clear_older_epochs();
  }
  if (!publish_seed) info.clear_seed();
  info_bytes_ = std::make_shared<const std::string>(info.SerializeAsString());
}

std::string WorldService::local_generation_refusal(const v1::LocalGeneration& client) const {
  if (!definition_bytes_) {
    return "this server keeps its world definition (--client-generation off, or --publish-seed off): it sends "
           "chunks whole";
  }
  const uint32_t version = world_.generator_version();
  const auto& versions = client.generator_versions();
  if (std::find(versions.begin(), versions.end(), version) == versions.end()) {
    return "the world's generator version " + std::to_string(version) + " is not among the client's " +
           quote_client_list(versions) + ": a newer client library generates it";
  }
  if (client.fingerprint() != world_.fingerprint()) {
    return "the client's world fingerprint " + quote_client(client.fingerprint()) + " is not the world's \"" +
           world_.fingerprint() + "\": generate from the definition GetWorldInfo gives now";
  }
  return client.older_epochs().empty() ? "" : older_epochs_refusal(client);
}

// A client that says it holds the older epochs: it must hold exactly the world's, each with its
// generator version.
std::string WorldService::older_epochs_refusal(const v1::LocalGeneration& client) const {
  const Epochs* epochs = source_.epochs().get();
  std::vector<std::string> fingerprints;
  for (uint32_t e = 0; epochs != nullptr && e < epochs->newest(); ++e) {
    fingerprints.push_back(epochs->world(e).fingerprint());
  }
  const std::string& held = client.older_epochs();  // 16 hex digits an epoch
  constexpr size_t kDigits = 16;
  if (held.size() != fingerprints.size() * kDigits) {
    return "the client's older epochs are " + std::to_string(held.size()) + " characters, the world's " +
           std::to_string(fingerprints.size()) +
           " fingerprints of 16 hex digits: generate from the definitions "
           "GetWorldInfo gives now";
  }
  for (size_t e = 0; e < fingerprints.size(); ++e) {
    if (const std::string_view fingerprint = std::string_view(held).substr(e * kDigits, kDigits);
        fingerprint != fingerprints[e]) {
      return "the client's epoch " + std::to_string(e) + " fingerprint " + quote_client(fingerprint) +
             " is not the world's \"" + fingerprints[e] + "\": generate from the definitions GetWorldInfo gives now";
    }
  }
  const auto& versions = client.generator_versions();
  for (uint32_t e = 0; e < fingerprints.size(); ++e) {
    const uint32_t version = epochs->world(e).generator_version();
    if (std::find(versions.begin(), versions.end(), version) == versions.end()) {
      return "epoch " + std::to_string(e) + "'s generator version " + std::to_string(version) +
             " is not among the client's " + quote_client_list(versions) + ": send no older_epochs";
    }
  }
  return "";
}

}  // namespace chunkforge::server
