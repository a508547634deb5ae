// Reading world.proto's `knob` options (world_knobs.h). Declared defaults are parsed once, from
// protobuf's text format as the fingerprint's declared defaults are, and merged into messages.
#include "world_knobs.h"

#include <google/protobuf/text_format.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>

#include "chunkforge/float_environment.h"

namespace chunkforge {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

// Every message type a world definition can hold (itself included).
void collect_types(const Descriptor* type, std::set<const Descriptor*>& types) {
  if (!types.insert(type).second) return;
  for (int i = 0; i < type->field_count(); ++i) {
    if (type->field(i)->message_type()) collect_types(type->field(i)->message_type(), types);
  }
}

// One message per field with a default_value, holding that field at its default only.
using DefaultHolders = std::map<const FieldDescriptor*, std::unique_ptr<Message>>;

DefaultHolders parse_default_holders() {
  const FloatEnvironmentGuard fp_guard;  // decimal to double follows the rounding mode
  std::set<const Descriptor*> types;
  collect_types(v1::WorldDefinition::descriptor(), types);
  DefaultHolders holders;
  for (const Descriptor* type : types) {
    const Message* prototype = google::protobuf::MessageFactory::generated_factory()->GetPrototype(type);
    for (int i = 0; i < type->field_count(); ++i) {
      const FieldDescriptor* field = type->field(i);
      const std::string& text = knob_of(*field).default_value();
      if (text.empty()) continue;
      std::unique_ptr<Message> holder(prototype->New());
      if (!google::protobuf::TextFormat::ParseFromString(field->name() + ": " + text, holder.get())) {
        // The schema is compiled in: a malformed default is a broken build (and a failing
        // test, world_knobs_test.cc), never bad input.
        std::fprintf(stderr, "%s: knob default_value does not parse: %s\n", field->full_name().c_str(), text.c_str());
        std::abort();
      }
      holders.emplace(field, std::move(holder));
    }
  }
  return holders;
}

const Message& default_holder(const FieldDescriptor& field) {
  static const DefaultHolders holders = parse_default_holders();
  return *holders.at(&field);
}

}  // namespace

const v1::Knob& knob_of(const FieldDescriptor& field) { return field.options().GetExtension(v1::knob); }

bool has_knob(const FieldDescriptor& field) { return field.options().HasExtension(v1::knob); }

std::string format_number(double value) {
  char buffer[32];
  auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, value);
  return error == std::errc() ? std::string(buffer, end) : std::string("?");
}

std::string interval_text(const v1::Knob& knob) {
  return std::string(knob.min_exclusive() ? "(" : "[") + format_number(knob.min()) + ", " + format_number(knob.max()) +
         (knob.max_exclusive() ? ")" : "]");
}

bool within(const v1::Knob& knob, double value) {
  return std::isfinite(value) && (knob.min_exclusive() ? value > knob.min() : value >= knob.min()) &&
         (knob.max_exclusive() ? value < knob.max() : value <= knob.max());
}

double number_of(const Message& message, const FieldDescriptor& field) {
  const google::protobuf::Reflection& reflection = *message.GetReflection();
  switch (field.cpp_type()) {
    case FieldDescriptor::CPPTYPE_DOUBLE:
      return reflection.GetDouble(message, &field);
    case FieldDescriptor::CPPTYPE_FLOAT:
      return reflection.GetFloat(message, &field);
    case FieldDescriptor::CPPTYPE_UINT32:
      return reflection.GetUInt32(message, &field);
    case FieldDescriptor::CPPTYPE_UINT64:
      return static_cast<double>(reflection.GetUInt64(message, &field));
    case FieldDescriptor::CPPTYPE_INT32:
      return reflection.GetInt32(message, &field);
    case FieldDescriptor::CPPTYPE_INT64:
      return static_cast<double>(reflection.GetInt64(message, &field));
    case FieldDescriptor::CPPTYPE_BOOL:
      return reflection.GetBool(message, &field) ? 1 : 0;
    case FieldDescriptor::CPPTYPE_ENUM:
      return reflection.GetEnumValue(message, &field);
    default:
      return 0;  // strings and messages are not numbers
  }
}

bool is_absent(const Message& message, const FieldDescriptor& field) {
  const google::protobuf::Reflection& reflection = *message.GetReflection();
  if (field.is_repeated()) return reflection.FieldSize(message, &field) == 0;
  if (field.has_presence()) return !reflection.HasField(message, &field);
  if (field.cpp_type() == FieldDescriptor::CPPTYPE_STRING) return reflection.GetString(message, &field).empty();
  // proto3 cannot tell a plain 0 from absence; only a knob that defaults or requires the
  // field says that 0 means absent (chunk_size 0: 64). Elsewhere 0 is checked like any value.
  const v1::Knob& knob = knob_of(field);
  const bool zero_is_absent = knob.required() || !knob.default_value().empty() || !knob.default_rule().empty();
  return zero_is_absent && number_of(message, field) == 0;
}

bool applies_to_method(const Message& message, const v1::Knob& knob) {
  if (!knob.has_only_for_method()) return true;
  const FieldDescriptor* method = message.GetDescriptor()->FindFieldByName("method");
  return method != nullptr && message.GetReflection()->GetEnumValue(message, method) == knob.only_for_method();
}

double declared_default(const FieldDescriptor& field) { return number_of(default_holder(field), field); }

void apply_declared_defaults(Message& message) {
  const google::protobuf::Reflection& reflection = *message.GetReflection();
  const Descriptor& type = *message.GetDescriptor();
  for (int i = 0; i < type.field_count(); ++i) {
    const FieldDescriptor& field = *type.field(i);
    const v1::Knob& knob = knob_of(field);
    if (!knob.default_value().empty() && is_absent(message, field) && applies_to_method(message, knob)) {
      message.MergeFrom(default_holder(field));  // the holder sets this field only
    }
    if (field.cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) continue;
    if (field.is_repeated()) {
      for (int k = 0; k < reflection.FieldSize(message, &field); ++k) {
        apply_declared_defaults(*reflection.MutableRepeatedMessage(&message, &field, k));
      }
    } else if (reflection.HasField(message, &field)) {
      apply_declared_defaults(*reflection.MutableMessage(&message, &field));
    }
  }
}

}  // namespace chunkforge
