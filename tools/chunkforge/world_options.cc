// --world and --seed for the `chunkforge` subcommands, and their JSON output.
#include "world_options.h"

#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <iostream>
#include <limits>

#include "args.h"

namespace chunkforge::tool {

WorldFlags add_world_options(CLI::App& app, WorldOptions& options) {
  WorldFlags flags;
  flags.world = app.add_option_function<std::string>(
                       "--world", [&options](const std::string& path) { options.file = path; },
                       "world definition JSON (default: the built-in world)")
                    ->type_name("FILE");
  flags.seed = app.add_option_function<uint64_t>(
                      "--seed", [&options](const uint64_t& seed) { options.seed = seed; },
                      "override the world's seed (unsigned 64-bit)")
                   ->type_name("N")
                   ->transform(integer_in<uint64_t>(0, std::numeric_limits<uint64_t>::max()));
  return flags;
}

namespace {

// Whether `path` is `field` or inside it ("a.b[2].c" is inside "a.b[2]" and "a", not "a.bc").
bool within(const std::string& path, const std::string& field) {
  return path.rfind(field, 0) == 0 &&
         (path.size() == field.size() || path[field.size()] == '.' || path[field.size()] == '[');
}

// The parse errors, then what validation finds in the rest of the document: every problem at
// once. A field taken out for its parse error is absent in the rest, so what validation says of
// it or inside it is left out.
void print_every_error(const std::vector<FieldError>& errors, const std::optional<v1::WorldDefinition>& remainder) {
  for (const FieldError& e : errors) std::cerr << e.to_string() << '\n';
  if (!remainder) return;
  for (const FieldError& e : validate_world(*remainder)) {
    const bool covered = std::any_of(errors.begin(), errors.end(), [&](const FieldError& parse) {
      return !parse.path.empty() && within(e.path, parse.path);
    });
    if (!covered) std::cerr << e.to_string() << '\n';
  }
}

}  // namespace

std::optional<World> load_world(const WorldOptions& options) {
  std::vector<FieldError> errors;
  std::optional<v1::WorldDefinition> remainder;
  std::optional<v1::WorldDefinition> definition = options.file
                                                      ? read_world_file(*options.file, errors, &remainder)
                                                      : parse_world_json(default_world_json(), errors, &remainder);
  if (!definition) {
    print_every_error(errors, remainder);
    return std::nullopt;
  }
  if (options.seed) definition->set_seed(*options.seed);
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
