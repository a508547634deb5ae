// Fuzz target world_json: a world definition as `chunkforge validate` and the server's --world
// read it, JSON parsing (parse_world_json) then validation and compilation (World::create), on
// arbitrary text. Any input must give a World or errors: no crash, leak or slow input.
#include <google/protobuf/stubs/logging.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "chunkforge/world.h"

namespace {

// protobuf logs some parse problems to stderr as well as returning them; at millions of inputs
// that is only noise (the errors are still checked through the returned status).
void ignore_log(google::protobuf::LogLevel, const char*, int, const std::string&) {}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  google::protobuf::SetLogHandler(ignore_log);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view json(reinterpret_cast<const char*>(data), size);
  std::vector<chunkforge::FieldError> errors;
  const auto definition = chunkforge::parse_world_json(json, errors);
  for (const chunkforge::FieldError& e : errors) (void)e.to_string();
  if (!definition) return 0;
  const chunkforge::WorldResult result = chunkforge::World::create(*definition);
  for (const chunkforge::FieldError& e : result.errors) (void)e.to_string();
  // A World is only valid with no errors, and errors only without a World.
  if (result.ok() == !result.errors.empty()) __builtin_trap();
  if (result.ok()) (void)result.world->fingerprint().size();
  return 0;
}
