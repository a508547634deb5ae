// world.proto's knobs (lib/src/world_knobs.h) are a well-formed table: every number and Range of
// the schema has one, bounds where the generic check needs them, defaults inside their ranges,
// method knobs only where there is a method; and apply_defaults sets every declared default, in
// every message that holds one. Defaults cannot drift from ranges: both are read from the knob.
#include "world_knobs.h"

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "chunkforge/world.h"

namespace chunkforge {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

std::vector<const FieldDescriptor*> schema_fields() {
  std::set<const Descriptor*> types;
  std::vector<const Descriptor*> pending{v1::WorldDefinition::descriptor()};
  std::vector<const FieldDescriptor*> fields;
  while (!pending.empty()) {
    const Descriptor* type = pending.back();
    pending.pop_back();
    if (!types.insert(type).second) continue;
    for (int i = 0; i < type->field_count(); ++i) {
      fields.push_back(type->field(i));
      if (type->field(i)->message_type()) pending.push_back(type->field(i)->message_type());
    }
  }
  return fields;
}

bool is_number(const FieldDescriptor& field) {
  switch (field.cpp_type()) {
    case FieldDescriptor::CPPTYPE_DOUBLE:
    case FieldDescriptor::CPPTYPE_FLOAT:
    case FieldDescriptor::CPPTYPE_INT32:
    case FieldDescriptor::CPPTYPE_INT64:
    case FieldDescriptor::CPPTYPE_UINT32:
    case FieldDescriptor::CPPTYPE_UINT64:
      return true;
    default:
      return false;
  }
}

// Fields whose every value is valid, so that they have no range to declare.
const std::set<std::string> kAnyValue = {"chunkforge.v1.WorldDefinition.seed"};

// What is wrong with one field's knob, or "".
std::string knob_problem(const FieldDescriptor& field) {
  if (kAnyValue.count(field.full_name())) return has_knob(field) ? "a knob on a field that takes any value" : "";
  // A Range's bounds are checked against the knob of the field that holds the Range.
  if (field.containing_type() == v1::Range::descriptor()) return has_knob(field) ? "a knob inside Range" : "";
  const v1::Knob& knob = knob_of(field);
  const bool ranged = is_number(field) || field.message_type() == v1::Range::descriptor();
  if (ranged && !has_knob(field)) return "a number or Range without a knob";
  if (ranged && knob.rule().empty() && !(knob.has_min() && knob.has_max())) return "no rule and not both bounds";
  if (knob.has_min() && knob.has_max() && knob.min() > knob.max()) return "min > max";
  if (knob.required() && !knob.default_value().empty()) return "both required and a default";
  if (!knob.default_value().empty() && !knob.default_rule().empty()) return "two defaults";
  if (knob.has_only_for_method() && field.containing_type() != v1::ResourceLayer::descriptor()) {
    return "only_for_method outside ResourceLayer";
  }
  if (!knob.what().empty() && !(knob.required() && is_number(field)))
    return "`what` on a field that is not a required number";
  return "";
}

TEST(WorldKnobsTest, EveryFieldsKnobIsWellFormed) {
  std::vector<std::string> problems;
  for (const FieldDescriptor* field : schema_fields()) {
    const std::string problem = knob_problem(*field);
    if (!problem.empty()) problems.push_back(field->full_name() + ": " + problem);
  }
  EXPECT_TRUE(problems.empty()) << ::testing::PrintToString(problems);
}

// A default outside its own range would be rejected had the designer written it.
TEST(WorldKnobsTest, EveryDeclaredDefaultLiesInItsRange) {
  int checked = 0;
  for (const FieldDescriptor* field : schema_fields()) {
    const v1::Knob& knob = knob_of(*field);
    if (knob.default_value().empty() || field->is_repeated() || !is_number(*field)) continue;
    EXPECT_TRUE(within(knob, declared_default(*field)))
        << field->full_name() << ": default " << knob.default_value() << " outside " << interval_text(knob);
    ++checked;
  }
  EXPECT_GE(checked, 9);
}

// A field added later declares its fingerprint default (docs/determinism.md); where it also has
// a knob default, the two are one value.
TEST(WorldKnobsTest, FingerprintDefaultsAgreeWithKnobDefaults) {
  for (const FieldDescriptor* field : schema_fields()) {
    const v1::Knob& knob = knob_of(*field);
    if (knob.default_value().empty() || !field->options().HasExtension(v1::fingerprint_default)) continue;
    EXPECT_EQ(knob.default_value(), field->options().GetExtension(v1::fingerprint_default)) << field->full_name();
  }
}

// `message` with every field that declares a default made absent, in every message it holds.
void clear_defaulted(Message& message) {
  const google::protobuf::Reflection& reflection = *message.GetReflection();
  for (int i = 0; i < message.GetDescriptor()->field_count(); ++i) {
    const FieldDescriptor& field = *message.GetDescriptor()->field(i);
    if (!knob_of(field).default_value().empty()) reflection.ClearField(&message, &field);
    if (field.cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) continue;
    for (int k = 0; field.is_repeated() && k < reflection.FieldSize(message, &field); ++k) {
      clear_defaulted(*reflection.MutableRepeatedMessage(&message, &field, k));
    }
    if (!field.is_repeated() && reflection.HasField(message, &field)) {
      clear_defaulted(*reflection.MutableMessage(&message, &field));
    }
  }
}

// The field of `message` alone, as protobuf's bytes.
std::string field_alone(const Message& message, const FieldDescriptor& field) {
  std::unique_ptr<Message> copy(message.New());
  copy->CopyFrom(message);
  for (int i = 0; i < copy->GetDescriptor()->field_count(); ++i) {
    if (copy->GetDescriptor()->field(i) != &field)
      copy->GetReflection()->ClearField(copy.get(), copy->GetDescriptor()->field(i));
  }
  return copy->SerializeAsString();
}

// Every field with a declared default, found absent, holds exactly that default afterwards;
// `seen` collects them.
void expect_declared_defaults(const Message& message, std::set<std::string>& seen) {
  const google::protobuf::Reflection& reflection = *message.GetReflection();
  for (int i = 0; i < message.GetDescriptor()->field_count(); ++i) {
    const FieldDescriptor& field = *message.GetDescriptor()->field(i);
    const v1::Knob& knob = knob_of(field);
    if (!knob.default_value().empty() && applies_to_method(message, knob)) {
      std::unique_ptr<Message> expected(message.New());
      ASSERT_TRUE(
          google::protobuf::TextFormat::ParseFromString(field.name() + ": " + knob.default_value(), expected.get()));
      EXPECT_EQ(field_alone(message, field), expected->SerializeAsString()) << field.full_name();
      seen.insert(field.full_name());
    }
    if (field.cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) continue;
    for (int k = 0; field.is_repeated() && k < reflection.FieldSize(message, &field); ++k) {
      expect_declared_defaults(reflection.GetRepeatedMessage(message, &field, k), seen);
    }
    if (!field.is_repeated() && reflection.HasField(message, &field)) {
      expect_declared_defaults(reflection.GetMessage(message, &field), seen);
    }
  }
}

TEST(WorldKnobsTest, ApplyDefaultsSetsEveryDeclaredDefault) {
  v1::WorldDefinition definition = default_world().definition();
  // A layer of each method that a knob with a default belongs to (jitter: jittered_grid), read
  // from the knobs, so that a new method's defaults are checked without anyone listing it.
  std::set<int> methods;
  for (const FieldDescriptor* field : schema_fields()) {
    const v1::Knob& knob = knob_of(*field);
    if (!knob.default_value().empty() && knob.has_only_for_method()) methods.insert(knob.only_for_method());
  }
  const v1::ResourceLayer model = definition.resources(0);
  for (const int method : methods) {
    v1::ResourceLayer& layer = *definition.add_resources();
    layer = model;
    layer.set_name(model.name() + "_" + v1::ResourceLayer::Method_Name(method));
    layer.set_method(static_cast<v1::ResourceLayer::Method>(method));
  }
  clear_defaulted(definition);
  apply_defaults(definition);
  std::set<std::string> seen;
  expect_declared_defaults(definition, seen);
  for (const FieldDescriptor* field : schema_fields()) {
    if (knob_of(*field).default_value().empty()) continue;
    EXPECT_TRUE(seen.count(field->full_name())) << field->full_name();
  }
}

TEST(WorldKnobsTest, MethodKnobsAreFilledOnlyForTheirMethod) {
  v1::WorldDefinition definition = default_world().definition();
  definition.mutable_resources(0)->set_method(v1::ResourceLayer::blue_noise);
  definition.mutable_resources(0)->clear_jitter();
  apply_defaults(definition);
  EXPECT_FALSE(definition.resources(0).has_jitter());
}

}  // namespace
}  // namespace chunkforge
