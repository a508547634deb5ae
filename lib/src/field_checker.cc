// The generic half of validation (field_checker.h): what world.proto's knobs declare, checked
// for every field, with the error texts that tests/lib/world_validation_test.cc pins.
#include "field_checker.h"

#include <algorithm>

#include "world_knobs.h"

namespace chunkforge {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

std::string at(const std::string& path, const char* field) {
  return path.empty() ? std::string(field) : path + "." + field;
}

std::string at(const std::string& path, int index) { return path + "[" + std::to_string(index) + "]"; }

void FieldChecker::error(const std::string& path, std::string message) {
  errors_.push_back(FieldError{path, std::move(message)});
}

bool FieldChecker::in_range(const std::string& path, double value, double lo, double hi, bool lo_open, bool hi_open) {
  v1::Knob bounds;
  bounds.set_min(lo);
  bounds.set_max(hi);
  bounds.set_min_exclusive(lo_open);
  bounds.set_max_exclusive(hi_open);
  return in_range(path, value, bounds);
}

bool FieldChecker::in_range(const std::string& path, double value, const v1::Knob& knob) {
  if (within(knob, value)) return true;
  error(path, "must be in " + interval_text(knob) + " (got " + format_number(value) + ")");
  return false;
}

void FieldChecker::range(const std::string& path, const v1::Range& range, const v1::Knob& knob) {
  bool ok = true;
  if (range.has_min()) ok &= in_range(at(path, "min"), range.min(), knob);
  if (range.has_max()) ok &= in_range(at(path, "max"), range.max(), knob);
  if (ok && range.has_min() && range.has_max() && range.min() > range.max()) {
    error(path,
          "min must be <= max (got min " + format_number(range.min()) + ", max " + format_number(range.max()) + ")");
  }
}

void FieldChecker::check_fields(const std::string& path, const Message& message,
                                std::initializer_list<FieldRule> rules) {
  const google::protobuf::Descriptor& type = *message.GetDescriptor();
  std::vector<const FieldDescriptor*> fields;
  for (int i = 0; i < type.field_count(); ++i) fields.push_back(type.field(i));
  std::sort(fields.begin(), fields.end(),
            [](const FieldDescriptor* a, const FieldDescriptor* b) { return a->number() < b->number(); });
  for (const FieldDescriptor* field : fields) {
    const auto is_this_field = [&](const FieldRule& rule) { return rule.field_number == field->number(); };
    check_field(path, message, *field, std::any_of(rules.begin(), rules.end(), is_this_field));
    for (const FieldRule& rule : rules) {
      if (is_this_field(rule)) rule.check();
    }
  }
  message_rules(path, message);
}

void FieldChecker::message_rules(const std::string&, const Message&) {}

void FieldChecker::check_field(const std::string& path, const Message& message, const FieldDescriptor& field,
                               bool ruled) {
  const std::string field_path = at(path, field.name().c_str());
  if (field.is_repeated()) return;  // lists: their limits, names and entries are rules
  if (field.cpp_type() == FieldDescriptor::CPPTYPE_ENUM) check_enum(field_path, message, field);
  if (field.cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
    if (!ruled) check_message_field(field_path, message, field);
    return;
  }
  const v1::Knob& knob = knob_of(field);
  if (!has_knob(field) || !knob.rule().empty()) return;  // no knob, or one that rules check
  if (is_absent(message, field)) {
    if (knob.required()) error(field_path, "required: " + knob.what() + ", in " + interval_text(knob));
    return;
  }
  if (!applies_to_method(message, knob)) {
    error(field_path, "only used by method " + v1::ResourceLayer::Method_Name(knob.only_for_method()));
    return;
  }
  in_range(field_path, number_of(message, field), knob);
}

// A Range against the knob's bounds; another message checked when present, "required" when a
// required one is absent. A message whose knob names a rule is left to that rule.
void FieldChecker::check_message_field(const std::string& path, const Message& message, const FieldDescriptor& field) {
  const v1::Knob& knob = knob_of(field);
  if (!knob.rule().empty()) return;  // the Validator's rules check it
  const google::protobuf::Reflection& reflection = *message.GetReflection();
  if (field.message_type() == v1::Range::descriptor()) {
    range(path, static_cast<const v1::Range&>(reflection.GetMessage(message, &field)), knob);
    return;
  }
  if (reflection.HasField(message, &field)) {
    check_fields(path, reflection.GetMessage(message, &field));
  } else if (knob.required()) {
    error(path, "required");
  }
}

void FieldChecker::check_enum(const std::string& path, const Message& message, const FieldDescriptor& field) {
  const int value = message.GetReflection()->GetEnumValue(message, &field);
  if (field.enum_type()->FindValueByNumber(value) != nullptr) return;
  std::string names;
  for (int i = 0; i < field.enum_type()->value_count(); ++i) {
    names += (i > 0 ? ", " : "") + field.enum_type()->value(i)->name();
  }
  error(path, "must be one of " + names + " (got " + std::to_string(value) + ")");
}

}  // namespace chunkforge
