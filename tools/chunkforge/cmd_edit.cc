// `chunkforge edit`: one edit operation sent to a server through the SDK (docs/edits.md); the
// answer (new versions, added ids, the request id) printed as one line of JSON.
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <limits>

#include "args.h"
#include "chunkforge/client/client.h"
#include "chunkforge/hex_text.h"
#include "commands.h"
#include "source.h"
#include "world_options.h"

namespace chunkforge::tool {
namespace {

constexpr char kCommand[] = "edit";

std::string got(const std::string& text) { return " (got \"" + text + "\")"; }

// An id as `chunkforge chunk` prints it: hex, at most 16 digits.
std::optional<uint64_t> parse_id(const std::string& text) {
  uint64_t id = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id, 16);
  if (text.empty() || text.size() > 16 || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return id;
}

std::optional<float> parse_position(const std::string& text) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(value)) return std::nullopt;
  return static_cast<float>(value);
}

// Bytes from hex, two digits each.
std::optional<std::string> parse_hex_bytes(const std::string& text) {
  if (text.size() % 2 != 0) return std::nullopt;
  std::string bytes;
  for (size_t k = 0; k < text.size(); k += 2) {
    unsigned value = 0;
    const auto [end, ec] = std::from_chars(text.data() + k, text.data() + k + 2, value, 16);
    if (ec != std::errc() || end != text.data() + k + 2) return std::nullopt;
    bytes += static_cast<char>(value);
  }
  return bytes;
}

// The values an operation takes, as its usage line names them.
struct Shape {
  std::string values;
  size_t count;
};

Shape shape_of(const std::string& op, bool clear) {
  if (op == "add") return {"LAYER X Z", 3};
  if (op == "move") return {"OBJECT_ID X Z", 3};
  if (op == "remove-structure") return {"STRUCTURE_ID", 1};
  if (op == "set-state") return clear ? Shape{"OBJECT_ID with --clear", 1} : Shape{"OBJECT_ID HEX", 2};
  return {"OBJECT_ID", 1};
}

// The JSON string for `text`: quotes, backslashes and control characters escaped.
std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[7];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
      out += escaped;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string result_json(const client::EditResult& result) {
  std::string out = "{\"versions\":[";
  for (size_t k = 0; k < result.versions.size(); ++k) {
    const client::ChunkVersion& v = result.versions[k];
    out += (k ? ",{" : "{");
    out += "\"x\":" + std::to_string(v.chunk.x) + ",\"z\":" + std::to_string(v.chunk.z) +
           ",\"version\":" + std::to_string(v.version) + "}";
  }
  out += "],\"added_ids\":[";
  for (size_t k = 0; k < result.added_ids.size(); ++k) out += (k ? ",\"" : "\"") + hex_id(result.added_ids[k]) + "\"";
  return out + "],\"request_id\":" + json_string(result.request_id) + "}";
}

class EditCommand final : public Command {
 public:
  CLI::App& declare(CLI::App& parent) override;
  int run() override;

 private:
  // Adds the operation OP VALUES... to `batch`; "" when it could, else why (bad input).
  // `world`: the server's catalogue, for layer names (add only).
  std::string add_operation(client::EditBatch& batch, const client::WorldInfo* world) const;
  // Checks that OP got its values and only the options it takes; "" when so.
  std::string check_shape(const Shape& shape) const;
  // A layer by id or name; "" when found, else why.
  std::string resolve_layer(const std::string& text, const client::WorldInfo& world, uint32_t& layer) const;

  int64_t cx_ = 0, cz_ = 0;
  std::string op_;
  std::vector<std::string> values_;
  ServerOptions server_;
  double yaw_ = 0;
  int64_t variant_ = 0;
  bool clear_ = false;
  uint64_t expect_ = 0;
  std::string request_id_, author_;
  CLI::Option *yaw_option_ = nullptr, *variant_option_ = nullptr, *expect_option_ = nullptr;
};

CLI::App& EditCommand::declare(CLI::App& parent) {
  CLI::App& app = *parent.add_subcommand(kCommand, "change the world on a server: one edit operation");
  set_help(app,
           "usage: chunkforge edit CX CZ remove OBJECT_ID --server ADDR [--token-file FILE] [options]\n"
           "       chunkforge edit CX CZ add LAYER X Z [--yaw D] [--variant N] --server ADDR [...]\n"
           "       chunkforge edit CX CZ move OBJECT_ID X Z [--yaw D] --server ADDR [...]\n"
           "       chunkforge edit CX CZ remove-structure STRUCTURE_ID --server ADDR [...]\n"
           "       chunkforge edit CX CZ set-state OBJECT_ID (HEX | --clear) --server ADDR [...]\n",
           "Sends one operation on chunk (CX, CZ) to the server's Edit RPC (docs/edits.md) and prints\n"
           "the answer as one line of JSON: the new version of each changed chunk, the ids of added\n"
           "objects, and the request id (a random one unless --request-id). Ids are hex, as\n"
           "`chunkforge chunk` prints them; X and Z are chunk-relative, in [0, chunk size); LAYER is a\n"
           "layer's name or id; HEX is the state's bytes. Needs the server's write token or a\n"
           "player's signed token (--token-file); with the write token, --author names the player.\n"
           "Exit 0 when applied, 1 when the server refuses (its status on stderr), 2\n"
           "for bad arguments.\n");
  app.add_option("CX", cx_, "the chunk's x")->required()->transform(any_integer());
  app.add_option("CZ", cz_, "the chunk's z")->required()->transform(any_integer());
  app.add_option("OP", op_, "remove, add, move, remove-structure or set-state")
      ->required()
      ->check(one_of({"remove", "add", "move", "remove-structure", "set-state"}));
  app.add_option("VALUES", values_, "the operation's values (see the usage lines)");
  add_server_options(app, server_, true);
  yaw_option_ = add_number_option(app, "--yaw", yaw_, number_where([](double) { return true; }, "a number"),
                                  "add, move: degrees in [0, 360) (default 0)")
                    ->type_name("D");
  variant_option_ = app.add_option("--variant", variant_, "add: the object's variant (default 0)")
                        ->type_name("N")
                        ->transform(integer_in<int64_t>(0, std::numeric_limits<uint32_t>::max()));
  app.add_flag("--clear", clear_, "set-state: clear the state");
  expect_option_ = app.add_option("--expect", expect_, "apply only if the chunk is at this edit version")
                       ->type_name("VERSION")
                       ->transform(integer_in<uint64_t>(0, std::numeric_limits<uint64_t>::max()));
  app.add_option("--request-id", request_id_, "retry-safe id: a repeated id applies once")->type_name("ID");
  app.add_option("--author", author_, "the player the edit is for (needs the write token)")->type_name("PLAYER");
  return app;
}

std::string EditCommand::check_shape(const Shape& shape) const {
  if (values_.size() != shape.count) {
    return op_ + " takes " + shape.values + " (got " + std::to_string(values_.size()) +
           (values_.size() == 1 ? " value)" : " values)");
  }
  if (yaw_option_->count() > 0 && op_ != "add" && op_ != "move") return "--yaw is for add and move";
  if (variant_option_->count() > 0 && op_ != "add") return "--variant is for add";
  if (clear_ && op_ != "set-state") return "--clear is for set-state";
  return "";
}

std::string EditCommand::resolve_layer(const std::string& text, const client::WorldInfo& world, uint32_t& layer) const {
  std::string names;
  for (const client::CatalogEntry& entry : world.resources()) {
    if (entry.name == text || std::to_string(entry.id) == text) {
      layer = entry.id;
      return "";
    }
    names += (names.empty() ? "" : ", ") + entry.name;
  }
  return "LAYER: the world has no layer \"" + text + "\" (" + names + ")";
}

std::string EditCommand::add_operation(client::EditBatch& batch, const client::WorldInfo* world) const {
  const Shape shape = shape_of(op_, clear_);
  if (std::string wrong = check_shape(shape); !wrong.empty()) return wrong;
  const client::ChunkCoord chunk{cx_, cz_};
  const bool positioned = op_ == "add" || op_ == "move";
  const std::optional<float> x = positioned ? parse_position(values_[1]) : 0.0f;
  const std::optional<float> z = positioned ? parse_position(values_[2]) : 0.0f;
  if (!x) return "X: must be a number" + got(values_[1]);
  if (!z) return "Z: must be a number" + got(values_[2]);
  if (op_ == "add") {
    uint32_t layer = 0;
    if (std::string wrong = resolve_layer(values_[0], *world, layer); !wrong.empty()) return wrong;
    batch.add_object(chunk, {layer, *x, *z, static_cast<float>(yaw_), static_cast<uint32_t>(variant_)});
    return "";
  }
  const std::optional<uint64_t> id = parse_id(values_[0]);
  if (!id) return shape.values.substr(0, shape.values.find(' ')) + ": must be 1 to 16 hex digits" + got(values_[0]);
  if (op_ == "remove") batch.remove_object(chunk, *id);
  if (op_ == "remove-structure") batch.remove_structure(chunk, *id);
  if (op_ == "move") batch.move_object(chunk, *id, *x, *z, static_cast<float>(yaw_));
  if (op_ == "set-state") {
    const std::optional<std::string> state = clear_ ? std::string() : parse_hex_bytes(values_[1]);
    if (!state) return "HEX: must be bytes in hex, two digits each" + got(values_[1]);
    batch.set_state(chunk, *id, *state);
  }
  return "";
}

int EditCommand::run() {
  std::optional<client::Client> client = connect_client(server_, kCommand);
  if (!client) return kExitBadInput;
  std::optional<client::WorldInfo> world;  // layer names are the server's
  if (op_ == "add") {
    client::Result<client::WorldInfo> info = client->world_info();
    if (!info) {
      std::cerr << kCommand << ": " << client->target() << ": " << info.status().to_string() << '\n';
      return kExitFailure;
    }
    world = std::move(*info);
  }
  client::EditBatch batch;
  if (const std::string wrong = add_operation(batch, world ? &*world : nullptr); !wrong.empty()) {
    std::cerr << kCommand << ": " << wrong << '\n';
    return kExitBadInput;
  }
  if (expect_option_->count() > 0) batch.expect({cx_, cz_}, expect_);
  batch.request_id(request_id_);
  batch.author(author_);
  const client::Result<client::EditResult> result = client->edit(batch);
  if (!result) {
    std::cerr << kCommand << ": " << client->target() << ": " << result.status().to_string() << '\n';
    return kExitFailure;
  }
  std::cout << result_json(*result) << '\n';
  return kExitOk;
}

}  // namespace

std::unique_ptr<Command> make_edit_command() { return std::make_unique<EditCommand>(); }

}  // namespace chunkforge::tool
