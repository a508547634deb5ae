// File: tests/hostile/adversary/derive.h
//
// The requests the adversary derives for one method from the service itself (docs/server.md,
// "The generated adversary"): nothing here names a method or a field.
//
// - minimal: the empty message.
// - base, the minimal valid request: the empty message, with the values the service publishes
//   (the answers of its calls that take nothing but flags: WorldInfo) put into the input fields
//   of the same name (`fingerprint`, `generator_version` -> `generator_versions`), every
//   singular message present, and a string the server refuses empty given the first published
//   string it accepts; each kept only if the server takes the request no worse with it.
// - maxima: for each knob of each field (a repeated field's count, a string's length, a number's
//   value), the largest the server accepts without INVALID_ARGUMENT or the request bound,
//   bisected with every other field as in the base (a repeated message's element: the first of
//   the empty element and one field set that the server accepts); a knob accepted at its type's
//   maximum stays there. A power of two above the bisected value that is accepted wins (a value
//   that must divide something, as a terrain step, is not monotonic).
// - bogus capability declarations: every bool set, and in turn each string at its largest
//   accepted length of junk, each repeated scalar at its largest count of junk values; and every
//   number at its type's extremes.
// - fan_out (fan_out.h): the request whose answer is largest per request byte.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "field_values.h"
#include "prober.h"

namespace chunkforge::hostile::adversary {

// A value one of the service's answers holds: its field's name and type, and the value.
struct PublishedValue {
  std::string name;
  FieldDescriptor::CppType type;
  uint64_t raw = 0;  // numbers, as field_values.h
  std::string text;  // strings
};

// The values published by the methods whose input has only bool fields (asked with the empty
// request), in field order.
std::vector<PublishedValue> published_values(const std::vector<Method>& methods, Prober& prober);

struct Maximum {
  FieldPath path;
  Knob knob = Knob::value;
  uint64_t found = 0;                // raw value, length or count
  bool any = false;                  // accepted at the type's maximum (or at the largest length or count tried)
  std::unique_ptr<Message> request;  // the base with this knob at `found`
  std::string describe() const;      // "coords count 1089"
};

struct MethodInputs {
  Method method;
  std::unique_ptr<Message> minimal, base;
  std::vector<Maximum> maxima;
  std::vector<std::unique_ptr<Message>> bogus;
  std::unique_ptr<Message> fan_out;  // fan_out.h
  double fan_out_ratio = 0;          // its answer bytes per request byte
  int probes = 0;                    // calls the derivation made

  // The largest accepted raw value of a field (0 when not probed).
  uint64_t highest(const FieldPath& path) const;
};

// Everything but the fan-out, probed now.
MethodInputs derive_inputs(const Method& method, Prober& prober, const std::vector<PublishedValue>& published);

}  // namespace chunkforge::hostile::adversary
