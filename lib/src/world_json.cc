// JSON to WorldDefinition through protobuf's JSON mapping, with its errors rewritten into
// "field.path: reason" form, every one of them: protobuf stops at the first, so the document is
// held as a JSON tree, the field named is taken out of it, and the rest parsed again. Whatever of the input protobuf
// echoes in its messages (a value, a stretch of a malformed document) is escaped before it reaches an error.
#include <google/protobuf/descriptor.h>
#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "chunkforge/float_environment.h"
#include "chunkforge/json_members.h"
#include "chunkforge/quote.h"
#include "chunkforge/world.h"
#include "chunkforge/world_limits.h"

namespace chunkforge {
namespace {

namespace pb = google::protobuf;

// The field a JSON path like "terrain.elevation.kind" or "resources[1].method" names.
const pb::FieldDescriptor* find_field(const std::string& path) {
  const pb::Descriptor* message = v1::WorldDefinition::descriptor();
  const pb::FieldDescriptor* field = nullptr;
  size_t start = 0;
  while (message != nullptr && start <= path.size()) {
    size_t end = path.find('.', start);
    if (end == std::string::npos) end = path.size();
    std::string name = path.substr(start, end - start);
    name = name.substr(0, name.find('['));
    field = message->FindFieldByName(name);
    if (field == nullptr) field = message->FindFieldByCamelcaseName(name);
    if (field == nullptr) return nullptr;
    message = field->message_type();
    start = end + 1;
  }
  return field;
}

// `element`: the path names one element of a repeated field ("resources[1]").
std::string expected_type(const pb::FieldDescriptor* field, bool element) {
  if (field == nullptr) return "";
  switch (field->cpp_type()) {
    case pb::FieldDescriptor::CPPTYPE_ENUM: {
      std::string names;
      for (int i = 0; i < field->enum_type()->value_count(); ++i) {
        names += (i ? ", " : "") + field->enum_type()->value(i)->name();
      }
      return "must be one of " + names;
    }
    case pb::FieldDescriptor::CPPTYPE_UINT32:
    case pb::FieldDescriptor::CPPTYPE_UINT64:
      return "expected a non-negative integer";
    case pb::FieldDescriptor::CPPTYPE_INT32:
    case pb::FieldDescriptor::CPPTYPE_INT64:
      return "expected an integer";
    case pb::FieldDescriptor::CPPTYPE_DOUBLE:
    case pb::FieldDescriptor::CPPTYPE_FLOAT:
      return "expected a number";
    case pb::FieldDescriptor::CPPTYPE_BOOL:
      return "expected true or false";
    case pb::FieldDescriptor::CPPTYPE_STRING:
      return "expected a string";
    case pb::FieldDescriptor::CPPTYPE_MESSAGE:
      return field->is_repeated() && !element ? "expected a list" : "expected an object";
  }
  return "";
}

// Whether `text` reads as a field path ("resources[1].bogus"): nothing else is taken for one.
bool field_like(const std::string& text) {
  return text.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.[]") ==
         std::string::npos;
}

// A value as protobuf quotes it ("\"perlim\"" or a bare number), re-quoted safely.
std::string safe_value(const std::string& value) {
  if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
    return quote_input(value.substr(1, value.size() - 2));
  }
  return sanitize_message(value, kQuotedInputBytes);
}

// Longest stretch of a parser's own message kept in an error (it may quote the document).
constexpr size_t kParserMessageBytes = 256;

// protobuf 3.21 reports, e.g.:
//   "foo: Cannot find field."
//   "(resources[1]) bogus: Cannot find field."
//   "(terrain.elevation.kind): invalid value \"perlim\" for type ..."
//   "Unexpected end of string. Expected an object key or }.\n..."
FieldError rewrite(const std::string& raw) {
  std::string parent, rest = raw;
  if (!rest.empty() && rest[0] == '(') {
    const size_t close = rest.find(')');
    if (close != std::string::npos) {
      parent = rest.substr(1, close - 1);
      rest = rest.substr(close + 1);
    }
  }
  const size_t colon = rest.find(": ");
  std::string leaf = colon == std::string::npos ? "" : rest.substr(0, colon);
  while (!leaf.empty() && leaf.front() == ' ') leaf.erase(0, 1);
  // Anything else (a syntax error quoting the input, a non-object document, a key that is no
  // field name) is not about a field: report it whole.
  if (colon == std::string::npos || !field_like(leaf) || !field_like(parent) || (leaf.empty() && parent.empty())) {
    return FieldError{"", "malformed JSON: " + sanitize_message(raw, kParserMessageBytes)};
  }
  const std::string reason = rest.substr(colon + 2);
  const std::string path = leaf.empty() ? parent : (parent.empty() ? leaf : parent + "." + leaf);
  if (reason.rfind("Cannot find field", 0) == 0) {
    return FieldError{path, "unknown field (see proto/chunkforge/v1/world.proto for the schema)"};
  }
  if (reason.rfind("invalid value ", 0) == 0) {
    std::string value = reason.substr(14);
    value = value.substr(0, value.find(" for type "));
    const std::string expected = expected_type(find_field(path), !path.empty() && path.back() == ']');
    return FieldError{path, "invalid value " + safe_value(value) + (expected.empty() ? "" : ": " + expected)};
  }
  return FieldError{path, sanitize_message(reason, kParserMessageBytes)};
}

// One step of a path: "resources[1]" is the member "resources", then its element 1.
struct PathStep {
  std::string name;
  std::vector<int> indexes;
};

std::optional<PathStep> parse_step(const std::string& text) {
  PathStep step{text.substr(0, text.find('[')), {}};
  for (size_t open = text.find('['); open != std::string::npos; open = text.find('[', open + 1)) {
    const size_t close = text.find(']', open);
    const std::string digits = close == std::string::npos ? "" : text.substr(open + 1, close - open - 1);
    if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) {
      return std::nullopt;
    }
    step.indexes.push_back(std::stoi(digits));
  }
  return step;
}

// Takes the value a path names ("resources[1].density_range.bogus") out of a document: a member
// is erased; an element that is an object becomes {} (erasing it would renumber the elements
// after it, and later errors would name the wrong one); any other element takes its whole list
// with it. False if the path names nothing in the document.
bool remove_path(pb::Value& document, const std::string& path) {
  pb::Value* at = &document;
  for (size_t start = 0;;) {
    const size_t dot = path.find('.', start);
    const std::optional<PathStep> step = parse_step(path.substr(start, dot - start));
    if (!step || !at->has_struct_value()) return false;
    JsonMembers members(*at->mutable_struct_value());
    const int member = members.find(step->name);
    if (member < 0) return false;
    pb::Value* value = &members.value(member);
    for (const int index : step->indexes) {
      if (!value->has_list_value() || index >= value->list_value().values_size()) return false;
      value = value->mutable_list_value()->mutable_values(index);
    }
    if (dot == std::string::npos) {
      if (step->indexes.empty() || !value->has_struct_value()) {
        members.erase(member);
      } else {
        value->mutable_struct_value()->Clear();
      }
      return true;
    }
    at = value;
    start = dot + 1;
  }
}

pb::util::Status parse_definition(const std::string& json, v1::WorldDefinition& definition) {
  pb::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;  // a misspelt field is an error, never ignored
  definition.Clear();
  return pb::util::JsonStringToMessage(json, &definition, options);
}

// After protobuf's first error (`errors` ends with it): each field named is taken out and the
// rest parsed again, until it parses, an error names no field that can be taken out, or the
// same field again, or there are kMaxParseErrors. The tree holds numbers as doubles, so an
// integer beyond 2^53 written as a JSON number may be reported again, rounded; the first error is
// always from the document as written.
void collect_more_errors(const std::string& json, std::vector<FieldError>& errors,
                         std::optional<v1::WorldDefinition>* remainder) {
  pb::Value document;
  if (!pb::util::JsonStringToMessage(json, &document).ok()) return;
  std::set<std::string> reported{errors.back().path};
  for (size_t count = 1; remove_path(document, errors.back().path); ++count) {
    std::string rest;
    if (!pb::util::MessageToJsonString(document, &rest).ok()) return;
    v1::WorldDefinition definition;
    const pb::util::Status status = parse_definition(rest, definition);
    if (status.ok()) {
      if (remainder != nullptr) *remainder = std::move(definition);
      return;
    }
    FieldError next = rewrite(std::string(status.message()));
    if (next.path.empty() || !reported.insert(next.path).second) return;
    if (count == kMaxParseErrors) {
      errors.push_back(FieldError{"", "more errors not shown (at most " + std::to_string(kMaxParseErrors) + ")"});
      return;
    }
    errors.push_back(std::move(next));
  }
}

}  // namespace

std::optional<v1::WorldDefinition> parse_world_json(std::string_view json, std::vector<FieldError>& errors,
                                                    std::optional<v1::WorldDefinition>* remainder) {
  if (json.size() > kMaxWorldFileBytes) {
    errors.push_back(FieldError{"", "a world definition must be at most " + std::to_string(kMaxWorldFileBytes) +
                                        " bytes of JSON (got " + std::to_string(json.size()) + ")"});
    return std::nullopt;
  }
  // Decimal to double conversion (strtod) follows the rounding mode: "0.004" must be the same
  // double on a thread that runs with another one (float_environment.h).
  const FloatEnvironmentGuard fp_guard;
  v1::WorldDefinition definition;
  const std::string text(json);
  const pb::util::Status status = parse_definition(text, definition);
  if (status.ok()) return definition;
  errors.push_back(rewrite(std::string(status.message())));
  if (!errors.back().path.empty()) collect_more_errors(text, errors, remainder);
  return std::nullopt;
}

}  // namespace chunkforge
