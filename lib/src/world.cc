// World::create and the loaders (a definition from JSON or a file, validated and compiled),
// and the world fingerprint's canonical form, which World::create computes (kept here because
// World::create is its one caller in the library).
#include "chunkforge/world.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/text_format.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <system_error>
#include <vector>

#include "chunkforge/float_environment.h"
#include "chunkforge/hash.h"
#include "chunkforge/quote.h"
#include "chunkforge/world_fingerprint.h"
#include "chunkforge/world_limits.h"
#include "generator_versions.h"

namespace chunkforge {

WorldResult World::create(const v1::WorldDefinition& definition) {
  WorldResult result;
  result.errors = validate_world(definition);
  if (!result.errors.empty()) return result;

  auto resolved = std::make_shared<v1::WorldDefinition>(definition);
  apply_defaults(*resolved);

  World world;
  world.terrain_ = std::make_shared<const Terrain>(*resolved);
  world.resources_ = std::make_shared<const ResourceLayers>(*resolved);
  world.structures_ = std::make_shared<const StructureTypes>(*resolved);
  world.fingerprint_ = world_fingerprint(*resolved);
  world.generator_pinned_ = definition.generator_version() != 0;
  if (!world.generator_pinned_) result.warnings.push_back(unpinned_generator_warning());
  world.definition_ = std::move(resolved);
  result.world = std::move(world);
  return result;
}

World World::blended(std::shared_ptr<const ElevationBlend> blend) const {
  World w = *this;
  w.terrain_ = std::make_shared<const Terrain>(terrain_->blended(std::move(blend)));
  return w;
}

FieldError unpinned_generator_warning() {
  const std::string version = std::to_string(kGeneratorVersion);
  return FieldError{"generator_version",
                    "not pinned (absent or 0): this world runs generator " + version +
                        ", the newest this build knows, and a later release may move it to a newer "
                        "one, which changes every chunk; write \"generator_version\": " +
                        version + " into the world file"};
}

WorldResult load_world_json(std::string_view json) {
  WorldResult result;
  std::optional<v1::WorldDefinition> definition = parse_world_json(json, result.errors);
  if (!definition) return result;
  return World::create(*definition);
}

namespace {

// Paths are quoted like any input, with room for a long directory.
constexpr size_t kQuotedPathBytes = 256;

// `size`: the file's size when known (a pipe's is not).
FieldError file_too_large(const std::string& path, std::optional<uintmax_t> size) {
  return FieldError{"", "world file " + quote_input(path, kQuotedPathBytes) + " is larger than the limit of " +
                            std::to_string(kMaxWorldFileBytes) + " bytes" +
                            (size ? " (got " + std::to_string(*size) + ")" : "")};
}

}  // namespace

std::optional<v1::WorldDefinition> read_world_file(const std::string& path, std::vector<FieldError>& errors,
                                                   std::optional<v1::WorldDefinition>* remainder) {
  // The size is checked before anything is read: a huge file costs neither memory nor time.
  std::error_code ec;
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec && size > kMaxWorldFileBytes) {
    errors.push_back(file_too_large(path, size));
    return std::nullopt;
  }
  if (std::filesystem::is_directory(path, ec)) {
    errors.push_back(
        FieldError{"", "world file " + quote_input(path, kQuotedPathBytes) + " is a directory, not a file"});
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    errors.push_back(FieldError{"", "cannot read world file " + quote_input(path, kQuotedPathBytes)});
    return std::nullopt;
  }
  // Not a regular file (a pipe): read one byte past the limit to see whether it is exceeded.
  std::string text(kMaxWorldFileBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() > kMaxWorldFileBytes) {
    errors.push_back(file_too_large(path, std::nullopt));
    return std::nullopt;
  }
  // An error of the document as a whole (malformed JSON) names the file; a field's error
  // names the field.
  const size_t before = errors.size();
  std::optional<v1::WorldDefinition> definition = parse_world_json(text, errors, remainder);
  for (size_t k = before; k < errors.size(); ++k) {
    if (errors[k].path.empty()) {
      errors[k].message = "world file " + quote_input(path, kQuotedPathBytes) + ": " + errors[k].message;
    }
  }
  return definition;
}

WorldResult load_world_file(const std::string& path) {
  WorldResult result;
  std::optional<v1::WorldDefinition> definition = read_world_file(path, result.errors);
  if (!definition) return result;
  return World::create(*definition);
}

const World& default_world() {
  // Built once, on first use; the built-in definition is checked by the test suite, so a
  // failure here is a broken build, not bad input.
  static const World world = [] {
    WorldResult r = load_world_json(default_world_json());
    if (!r.ok()) {
      for (const FieldError& e : r.errors) std::fprintf(stderr, "built-in world: %s\n", e.to_string().c_str());
      std::abort();
    }
    return *std::move(r.world);
  }();
  return world;
}

// ---------------------------------------------------------------------------------------------
// The world fingerprint's canonical form (docs/determinism.md, "The world fingerprint").
// Form 1 writes proto3's binary wire format by hand, field by field, so that the bytes of every
// field that existed when it was frozen are exactly those protobuf wrote then, and the rule for
// later fields (left out at their declared default) is ours, not the serializer's.

namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// The wire format's value encodings (the low 3 bits of a tag).
enum WireType : uint64_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

// Base-128, least significant group first, high bit set on all but the last byte.
void append_varint(std::string& out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

// Little-endian whatever the host's byte order.
void append_little_endian(std::string& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

WireType wire_type(const FieldDescriptor* field) {
  switch (field->type()) {
    case FieldDescriptor::TYPE_DOUBLE:
    case FieldDescriptor::TYPE_FIXED64:
    case FieldDescriptor::TYPE_SFIXED64:
      return kFixed64;
    case FieldDescriptor::TYPE_FLOAT:
    case FieldDescriptor::TYPE_FIXED32:
    case FieldDescriptor::TYPE_SFIXED32:
      return kFixed32;
    case FieldDescriptor::TYPE_STRING:
    case FieldDescriptor::TYPE_BYTES:
    case FieldDescriptor::TYPE_MESSAGE:
      return kLengthDelimited;
    default:  // integers, bools and enums (proto3 has no groups)
      return kVarint;
  }
}

void append_tag(std::string& out, const FieldDescriptor* field, WireType type) {
  append_varint(out, (static_cast<uint64_t>(field->number()) << 3) | type);
}

// A numeric field's value as 64 bits: signed integers and enums sign-extended (as the wire
// format extends them), unsigned ones zero-extended, floating point as its bit pattern (so
// -0.0 is not zero, as protobuf 3.21 treats it). `index` < 0: the singular value; else a list
// entry.
uint64_t raw_number(const Message& m, const FieldDescriptor* f, int index) {
  const Reflection& r = *m.GetReflection();
  const bool entry = index >= 0;
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      return static_cast<uint64_t>(int64_t{entry ? r.GetRepeatedInt32(m, f, index) : r.GetInt32(m, f)});
    case FieldDescriptor::CPPTYPE_INT64:
      return static_cast<uint64_t>(entry ? r.GetRepeatedInt64(m, f, index) : r.GetInt64(m, f));
    case FieldDescriptor::CPPTYPE_UINT32:
      return entry ? r.GetRepeatedUInt32(m, f, index) : r.GetUInt32(m, f);
    case FieldDescriptor::CPPTYPE_UINT64:
      return entry ? r.GetRepeatedUInt64(m, f, index) : r.GetUInt64(m, f);
    case FieldDescriptor::CPPTYPE_DOUBLE:
      return std::bit_cast<uint64_t>(entry ? r.GetRepeatedDouble(m, f, index) : r.GetDouble(m, f));
    case FieldDescriptor::CPPTYPE_FLOAT:
      return std::bit_cast<uint32_t>(entry ? r.GetRepeatedFloat(m, f, index) : r.GetFloat(m, f));
    case FieldDescriptor::CPPTYPE_BOOL:
      return (entry ? r.GetRepeatedBool(m, f, index) : r.GetBool(m, f)) ? 1 : 0;
    case FieldDescriptor::CPPTYPE_ENUM:
      return static_cast<uint64_t>(int64_t{entry ? r.GetRepeatedEnumValue(m, f, index) : r.GetEnumValue(m, f)});
    default:  // strings and messages are not numbers
      return 0;
  }
}

uint64_t zigzag(int64_t n) { return (static_cast<uint64_t>(n) << 1) ^ static_cast<uint64_t>(n >> 63); }

// A number without its tag. sint32 zigzags the 32-bit value: sign-extending it first gives the
// same result.
void append_number(std::string& out, const FieldDescriptor* f, uint64_t raw) {
  switch (f->type()) {
    case FieldDescriptor::TYPE_SINT32:
    case FieldDescriptor::TYPE_SINT64:
      return append_varint(out, zigzag(static_cast<int64_t>(raw)));
    default:
      if (wire_type(f) == kFixed64) return append_little_endian(out, raw, 8);
      if (wire_type(f) == kFixed32) return append_little_endian(out, raw, 4);
      return append_varint(out, raw);
  }
}

std::string message_form(const Message& message);

// A value without its tag: a number, a length-prefixed string, or a length-prefixed nested
// message in its own canonical form.
void append_payload(std::string& out, const Message& m, const FieldDescriptor* f, int index) {
  const Reflection& r = *m.GetReflection();
  std::string bytes;
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_STRING:
      bytes = index < 0 ? r.GetString(m, f) : r.GetRepeatedString(m, f, index);
      break;
    case FieldDescriptor::CPPTYPE_MESSAGE:
      bytes = message_form(index < 0 ? r.GetMessage(m, f) : r.GetRepeatedMessage(m, f, index));
      break;
    default:
      return append_number(out, f, raw_number(m, f, index));
  }
  append_varint(out, bytes.size());
  out += bytes;
}

// Whether protobuf writes a singular field: when present, for a field with presence (proto3
// `optional`, messages); when not zero or empty, for the rest.
bool is_written(const Message& m, const FieldDescriptor* f) {
  if (f->has_presence()) return m.GetReflection()->HasField(m, f);
  if (f->cpp_type() == FieldDescriptor::CPPTYPE_STRING) return !m.GetReflection()->GetString(m, f).empty();
  return raw_number(m, f, -1) != 0;
}

// A list: numbers packed into one length-prefixed run (proto3's default), anything else (or a
// number list marked packed = false) as one tagged value per entry; entries in list order.
void append_list(std::string& out, const Message& m, const FieldDescriptor* f) {
  const int size = m.GetReflection()->FieldSize(m, f);
  if (size == 0) return;
  if (!f->is_packed()) {
    for (int i = 0; i < size; ++i) {
      append_tag(out, f, wire_type(f));
      append_payload(out, m, f, i);
    }
    return;
  }
  std::string run;
  for (int i = 0; i < size; ++i) append_number(run, f, raw_number(m, f, i));
  append_tag(out, f, kLengthDelimited);
  append_varint(out, run.size());
  out += run;
}

// One field with its tag(s) as the wire format writes it, or "" when protobuf leaves it out.
std::string field_encoding(const Message& m, const FieldDescriptor* f) {
  std::string out;
  if (f->is_repeated()) {
    append_list(out, m, f);
  } else if (is_written(m, f)) {
    append_tag(out, f, wire_type(f));
    append_payload(out, m, f, -1);
  }
  return out;
}

// The encoding of a field at its declared default: the option's text parsed as the field's
// value into an empty message of the same type.
std::string declared_default_encoding(const Message& m, const FieldDescriptor* f) {
  const std::string& text = f->options().GetExtension(v1::fingerprint_default);
  const FloatEnvironmentGuard fp_guard;  // decimal to double follows the rounding mode
  std::unique_ptr<Message> holder(m.New());
  if (!google::protobuf::TextFormat::ParseFromString(f->name() + ": " + text, holder.get())) {
    // The schema is compiled in, so a malformed declaration is a broken build (and a failing
    // test), never bad input; fingerprinting past it would give a wrong fingerprint.
    std::fprintf(stderr, "%s: fingerprint_default does not parse: %s\n", f->full_name().c_str(), text.c_str());
    std::abort();
  }
  return field_encoding(*holder, f);
}

// A field's part of the form: its encoding, unless it is at its declared default.
std::string field_form(const Message& m, const FieldDescriptor* f) {
  std::string bytes = field_encoding(m, f);
  if (bytes.empty() || !f->options().HasExtension(v1::fingerprint_default)) return bytes;
  return bytes == declared_default_encoding(m, f) ? std::string() : bytes;
}

// The fields in field-number order (protobuf's order too), unknown fields left out (a world
// read from JSON has none).
std::string message_form(const Message& message) {
  const google::protobuf::Descriptor& type = *message.GetDescriptor();
  std::vector<const FieldDescriptor*> fields;
  fields.reserve(static_cast<size_t>(type.field_count()));
  for (int i = 0; i < type.field_count(); ++i) fields.push_back(type.field(i));
  std::sort(fields.begin(), fields.end(),
            [](const FieldDescriptor* a, const FieldDescriptor* b) { return a->number() < b->number(); });
  std::string out;
  for (const FieldDescriptor* f : fields) out += field_form(message, f);
  return out;
}

}  // namespace

int fingerprint_form(uint32_t generator_version) {
  // Frozen per version in the version's row. A later form's bytes would start with the byte 2
  // (no form-1 bytes can: a tag's field number is at least 1, so its first byte is at least 8).
  return chunkforge::generator_version(generator_version).fingerprint_form;
}

std::string fingerprint_form1_bytes(const google::protobuf::Message& message) { return message_form(message); }

std::string fingerprint_of(std::string_view form_bytes) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx",
                static_cast<unsigned long long>(hash_bytes(0, salt("world.fingerprint"), form_bytes)));
  return hex;
}

std::string world_fingerprint(const v1::WorldDefinition& resolved) {
  switch (fingerprint_form(resolved.generator_version())) {
    case kFingerprintForm1:
      return fingerprint_of(fingerprint_form1_bytes(resolved));
  }
  throw std::logic_error("a generator version names a fingerprint form this code does not write");
}

}  // namespace chunkforge
