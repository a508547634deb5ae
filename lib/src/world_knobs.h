// Each world-definition field's range, default and scatter method, read at run time from its
// `knob` option in world.proto: the one place they are declared. Validation (field_checker.h),
// apply_defaults (world_defaults.cc) and the generated reference in docs/world-definition.md
// read them through these functions, so none of them writes a knob's numbers again.
// Internal to lib/.
#pragma once

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include <string>

#include "chunkforge/v1/world.pb.h"

namespace chunkforge {

// The field's knob; an empty one when it declares none.
const v1::Knob& knob_of(const google::protobuf::FieldDescriptor& field);
bool has_knob(const google::protobuf::FieldDescriptor& field);

// The field numbered `number` of `Message`, e.g. field_of<v1::NoiseField>(kOctavesFieldNumber).
template <typename Message>
const google::protobuf::FieldDescriptor& field_of(int number) {
  return *Message::descriptor()->FindFieldByNumber(number);
}

// The shortest text that reads back as `value` ("0.5", "1e+06"), as every error writes numbers.
std::string format_number(double value);

// The knob's bounds as errors and the reference write them: "[16, 1024]", "(0, 1]".
std::string interval_text(const v1::Knob& knob);

// Whether `value` is finite and within the knob's bounds.
bool within(const v1::Knob& knob, double value);

// A singular numeric, bool or enum field's value as a double.
double number_of(const google::protobuf::Message& message, const google::protobuf::FieldDescriptor& field);

// Whether the field is absent: unset (with presence), an empty list or string, or a plain
// number at 0 when its knob gives 0 that meaning (a default, a default rule or `required`).
bool is_absent(const google::protobuf::Message& message, const google::protobuf::FieldDescriptor& field);

// Whether the knob applies to `message`: always, unless it is for another scatter method than
// the message's `method`.
bool applies_to_method(const google::protobuf::Message& message, const v1::Knob& knob);

// The declared default of a singular number (NoiseField.octaves: 4), for the rules that need
// it before defaults are applied.
double declared_default(const google::protobuf::FieldDescriptor& field);

// Sets every absent field that declares a default_value to it, in `message` and the messages
// it holds (for a method-specific knob, only where it applies).
void apply_declared_defaults(google::protobuf::Message& message);

}  // namespace chunkforge
