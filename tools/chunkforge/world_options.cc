#include "world_options.h"

#include <google/protobuf/util/json_util.h>

#include <charconv>
#include <iostream>

namespace chunkforge::tool {

ArgSpec with_world_options(ArgSpec spec) {
  spec.value_options.insert({"--world", "--seed"});
  return spec;
}

std::optional<World> load_world(const Args& args) {
  std::vector<FieldError> errors;
  std::optional<v1::WorldDefinition> definition;
  const std::string* file = args.value("--world");
  if (file == nullptr) {
    definition = parse_world_json(default_world_json(), errors);
  } else {
    definition = read_world_file(*file, errors);
  }
  if (!definition) {
    for (const FieldError& e : errors) std::cerr << e.to_string() << '\n';
    return std::nullopt;
  }
  if (const std::string* seed = args.value("--seed")) {
    uint64_t value = 0;
    auto [end, ec] = std::from_chars(seed->data(), seed->data() + seed->size(), value);
    if (ec != std::errc() || end != seed->data() + seed->size()) {
      std::cerr << "--seed: expected an unsigned 64-bit integer (got \"" << *seed << "\")\n";
      return std::nullopt;
    }
    definition->set_seed(value);
  }
  WorldResult result = World::create(*definition);
  for (const FieldError& e : result.errors) std::cerr << e.to_string() << '\n';
  return std::move(result.world);
}

std::string to_json(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.always_print_primitive_fields = true;
  options.preserve_proto_field_names = true;
  std::string out;
  (void)google::protobuf::util::MessageToJsonString(message, &out, options);
  return out;
}

}  // namespace chunkforge::tool
