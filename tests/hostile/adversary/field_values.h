// File: tests/hostile/adversary/field_values.h
//
// Setting one field of a request by reflection, as the adversary's probes do: a scalar from a
// raw 64-bit number, a string's length, a repeated field's count. A raw number is the value for
// integers, enums and bools, and the bit pattern for floating point (non-negative floats and
// doubles order as their bit patterns do, so bisecting the bits bisects the values).
#pragma once

#include <cstdint>
#include <string>

#include "service_shape.h"

namespace chunkforge::hostile::adversary {

// What a probe varies in a field.
enum class Knob {
  value,   // a singular scalar, or element 0 of a repeated one
  length,  // a string or bytes field (element 0 when repeated)
  count,   // a repeated field's number of elements
};

// The knobs of a field: a singular scalar has one, a repeated scalar its count and its element,
// a message none (its fields have theirs), a repeated message its count.
std::vector<Knob> knobs_of(const FieldDescriptor* field);

// The largest raw number of the field's type (the largest finite value for floating point);
// the most negative one (as a two's complement raw) for `lowest_raw`, 0 for unsigned.
uint64_t highest_raw(const FieldDescriptor* field);
uint64_t lowest_raw(const FieldDescriptor* field);
bool integer_like(const FieldDescriptor* field);  // not floating point

// The field at `path` set to `raw` (element 0 of a repeated field: made if missing).
void set_raw(Message& request, const FieldPath& path, uint64_t raw);
// The string at `path` (element 0 if repeated) set to `length` characters: 'x', or printable
// junk.
void set_length(Message& request, const FieldPath& path, size_t length, bool junk = false);
// The string at `path` (element 0 if repeated) set to `text`.
void set_text(Message& request, const FieldPath& path, const std::string& text);
// The repeated field at `path` made `count` elements long: copies of its element 0 (an empty
// element when it has none), or random values for junk scalars.
void set_count(Message& request, const FieldPath& path, size_t count, bool junk = false);
// Sets the field at `path` from the same field of `source` (both of the request's type).
void copy_field(Message& request, const Message& source, const FieldPath& path);

// A raw number as its type shows it ("4096", "63.99", "true").
std::string show_raw(const FieldDescriptor* field, uint64_t raw);

}  // namespace chunkforge::hostile::adversary
