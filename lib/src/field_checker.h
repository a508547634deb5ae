// The checks every field of a world definition shares: errors at JSON field paths in one
// wording, and each field checked against its knob (world_knobs.h) in field-number order. The
// Validator (world_validate.cc) derives from it and adds the rules that relate fields.
// Internal to lib/.
#pragma once

#include <google/protobuf/message.h>

#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "chunkforge/v1/world.pb.h"
#include "chunkforge/world.h"

namespace chunkforge {

// "path.field" ("field" at the top level) and "path[index]".
std::string at(const std::string& path, const char* field);
std::string at(const std::string& path, int index);

class FieldChecker {
 public:
  virtual ~FieldChecker() = default;
  std::vector<FieldError> take_errors() { return std::move(errors_); }

 protected:
  // A rule that relates fields, run at one field's place in check_fields' walk: at a number,
  // after the number's own check; at a message or a list, instead of entering it (the rule
  // takes charge of what it holds).
  struct FieldRule {
    int field_number;
    std::function<void()> check;
  };

  // Checks the fields of `message` (at `path`) in field-number order: enums against their
  // values, numbers and Ranges against their knobs, required fields, method-specific knobs;
  // enters present messages (not lists). Then message_rules.
  void check_fields(const std::string& path, const google::protobuf::Message& message,
                    std::initializer_list<FieldRule> rules = {});
  // Rules of a message type wherever it stands, after its fields (NoiseField's finest octave).
  virtual void message_rules(const std::string& path, const google::protobuf::Message& message);

  void error(const std::string& path, std::string message);
  bool has_errors() const { return !errors_.empty(); }

  // `value` must lie in [lo, hi]; `lo_open` / `hi_open` exclude the bound.
  bool in_range(const std::string& path, double value, double lo, double hi, bool lo_open = false,
                bool hi_open = false);
  bool in_range(const std::string& path, double value, const v1::Knob& knob);
  // Each present bound finite and within the knob's bounds; min <= max.
  void range(const std::string& path, const v1::Range& range, const v1::Knob& knob);

 private:
  void check_field(const std::string& path, const google::protobuf::Message& message,
                   const google::protobuf::FieldDescriptor& field, bool ruled);
  void check_message_field(const std::string& path, const google::protobuf::Message& message,
                           const google::protobuf::FieldDescriptor& field);
  void check_enum(const std::string& path, const google::protobuf::Message& message,
                  const google::protobuf::FieldDescriptor& field);

  std::vector<FieldError> errors_;
};

}  // namespace chunkforge
