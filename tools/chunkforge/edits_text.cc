// A stored change as a line of an export, in the CLI's words (edits_text.h): protobuf's JSON
// mapping held as a JSON tree, whose ids, layers and states are rewritten one way on export and
// back on import, so that protobuf's own parser still reads every line into the message.
#include "edits_text.h"

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/stubs/strutil.h>
#include <google/protobuf/util/json_util.h>

#include <charconv>
#include <optional>

#include "chunkforge/hex_text.h"
#include "chunkforge/json_members.h"
#include "chunkforge/quote.h"
#include "world_options.h"

namespace chunkforge::tool {
namespace {

namespace pb = google::protobuf;

enum class Way { kToText, kFromText };

// The fields of a change that hold an id (fixed64: decimal strings in protobuf's mapping).
bool holds_id(const std::string& key) {
  return key == "remove_object" || key == "remove_structure" || key == "id" || key == "chunk_hash";
}

std::optional<uint64_t> parse_unsigned(const std::string& text, int base, size_t max_digits) {
  uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (text.empty() || text.size() > max_digits || ec != std::errc() || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

std::string convert_id(const std::string& key, pb::Value& value, Way way) {
  if (!value.has_string_value()) return key + ": expected a string";
  const std::string& text = value.string_value();
  const std::optional<uint64_t> id = way == Way::kToText ? parse_unsigned(text, 10, 20) : parse_unsigned(text, 16, 16);
  if (!id) return key + ": expected an id of 1 to 16 hex digits (got " + quote_input(text) + ")";
  value.set_string_value(way == Way::kToText ? hex_id(*id) : std::to_string(*id));
  return "";
}

std::string convert_layer(pb::Value& value, Way way, const World& world) {
  const auto& layers = world.definition().resources();
  if (way == Way::kToText) {
    const double number = value.number_value();
    if (value.has_number_value() && number >= 0 && number < layers.size()) {
      value.set_string_value(layers.Get(static_cast<int>(number)).name());
    }
    return "";
  }
  if (!value.has_string_value()) return "";  // a number: protobuf checks it
  for (int k = 0; k < layers.size(); ++k) {
    if (layers.Get(k).name() == value.string_value()) {
      value.set_number_value(k);
      return "";
    }
  }
  return "layer: the world has no resource layer " + quote_input(value.string_value());
}

std::string convert_state(pb::Value& value, Way way) {
  if (!value.has_string_value()) return "state: expected a string";
  std::string bytes;
  if (way == Way::kToText) {
    pb::Base64Unescape(value.string_value(), &bytes);
    value.set_string_value(hex_bytes(bytes));
    return "";
  }
  const std::string& hex = value.string_value();
  for (size_t k = 0; k + 1 < hex.size(); k += 2) {
    const std::optional<uint64_t> byte = parse_unsigned(hex.substr(k, 2), 16, 2);
    if (!byte) break;
    bytes += static_cast<char>(*byte);
  }
  if (bytes.size() * 2 != hex.size()) return "state: expected hex, two digits a byte (got " + quote_input(hex) + ")";
  std::string base64;
  pb::Base64Escape(bytes, &base64);
  value.set_string_value(base64);
  return "";
}

// Rewrites every id, layer and state inside `value`: "" or the first field that is wrong.
std::string convert(pb::Value& value, Way way, const World& world) {
  if (value.has_list_value()) {
    for (pb::Value& element : *value.mutable_list_value()->mutable_values()) {
      if (std::string error = convert(element, way, world); !error.empty()) return error;
    }
    return "";
  }
  if (!value.has_struct_value()) return "";
  JsonMembers members(*value.mutable_struct_value());
  for (int k = 0; k < members.size(); ++k) {
    const std::string key = members.key(k);
    pb::Value& member = members.value(k);
    std::string error;
    if (holds_id(key)) {
      error = convert_id(key, member, way);
    } else if (key == "layer") {
      error = convert_layer(member, way, world);
    } else if (key == "state") {
      error = convert_state(member, way);
    } else {
      error = convert(member, way, world);
    }
    if (!error.empty()) return error;
  }
  return "";
}

// The tree as JSON with each object's members in the field order of `type` (the tree's own order
// is a hash map's): the same change is the same line, in the order protobuf writes it.
void write_ordered(pb::Value& value, const pb::Descriptor* type, std::string& out) {
  if (value.has_list_value()) {
    out += '[';
    for (int k = 0; k < value.list_value().values_size(); ++k) {
      if (k > 0) out += ',';
      write_ordered(*value.mutable_list_value()->mutable_values(k), type, out);
    }
    out += ']';
    return;
  }
  if (!value.has_struct_value() || type == nullptr) {
    std::string leaf;
    (void)pb::util::MessageToJsonString(value, &leaf);
    out += leaf;
    return;
  }
  JsonMembers members(*value.mutable_struct_value());
  out += '{';
  bool first = true;
  for (int k = 0; k < type->field_count(); ++k) {
    const pb::FieldDescriptor* field = type->field(k);
    const int member = members.find(field->name());
    if (member < 0) continue;
    out += first ? "\"" : ",\"";
    out += field->name() + "\":";
    write_ordered(members.value(member), field->message_type(), out);
    first = false;
  }
  out += '}';
}

}  // namespace

std::string change_line(const v1::ChunkChange& change, const World& world) {
  pb::Value tree;
  (void)pb::util::JsonStringToMessage(to_json(change), &tree);
  (void)convert(tree, Way::kToText, world);
  std::string line;
  write_ordered(tree, v1::ChunkChange::descriptor(), line);
  return line;
}

std::string parse_change_line(const std::string& line, const World* world, bool legacy, v1::ChunkChange& change) {
  std::string json = line;
  if (!legacy) {
    pb::Value tree;
    if (!pb::util::JsonStringToMessage(line, &tree).ok() || !tree.has_struct_value()) return "not a JSON object";
    if (std::string error = convert(tree, Way::kFromText, *world); !error.empty()) return error;
    json.clear();
    (void)pb::util::MessageToJsonString(tree, &json);
  }
  const pb::util::Status status = pb::util::JsonStringToMessage(json, &change);
  if (!status.ok()) return "not a ChunkChange: " + sanitize_message(std::string(status.message()), 200);
  if (!change.has_chunk()) return "not a ChunkChange: no chunk";
  return "";
}

}  // namespace chunkforge::tool
