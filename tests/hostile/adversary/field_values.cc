// File: tests/hostile/adversary/field_values.cc
//
// Reflection setters of field_values.h.
#include "field_values.h"

#include <bit>
#include <cfloat>
#include <cstdio>
#include <limits>
#include <random>

namespace chunkforge::hostile::adversary {
namespace {

using CppType = FieldDescriptor::CppType;
using google::protobuf::Reflection;

std::string junk_text(size_t length, std::mt19937_64& random) {
  std::string text(length, ' ');
  for (char& c : text) c = static_cast<char>('!' + random() % 94);  // printable ASCII: valid UTF-8
  return text;
}

void add_raw(Message& m, const FieldDescriptor* f, uint64_t raw) {
  const Reflection* r = m.GetReflection();
  switch (f->cpp_type()) {
    case CppType::CPPTYPE_INT32:
      return r->AddInt32(&m, f, static_cast<int32_t>(raw));
    case CppType::CPPTYPE_INT64:
      return r->AddInt64(&m, f, static_cast<int64_t>(raw));
    case CppType::CPPTYPE_UINT32:
      return r->AddUInt32(&m, f, static_cast<uint32_t>(raw));
    case CppType::CPPTYPE_UINT64:
      return r->AddUInt64(&m, f, raw);
    case CppType::CPPTYPE_DOUBLE:
      return r->AddDouble(&m, f, std::bit_cast<double>(raw));
    case CppType::CPPTYPE_FLOAT:
      return r->AddFloat(&m, f, std::bit_cast<float>(static_cast<uint32_t>(raw)));
    case CppType::CPPTYPE_BOOL:
      return r->AddBool(&m, f, raw != 0);
    case CppType::CPPTYPE_ENUM:
      return r->AddEnumValue(&m, f, static_cast<int>(raw));
    case CppType::CPPTYPE_STRING:
      return r->AddString(&m, f, "");
    case CppType::CPPTYPE_MESSAGE:
      r->AddMessage(&m, f);
      return;
  }
}

uint64_t get_raw(const Message& m, const FieldDescriptor* f, int i) {
  const Reflection* r = m.GetReflection();
  switch (f->cpp_type()) {
    case CppType::CPPTYPE_INT32:
      return static_cast<uint64_t>(int64_t{r->GetRepeatedInt32(m, f, i)});
    case CppType::CPPTYPE_INT64:
      return static_cast<uint64_t>(r->GetRepeatedInt64(m, f, i));
    case CppType::CPPTYPE_UINT32:
      return r->GetRepeatedUInt32(m, f, i);
    case CppType::CPPTYPE_UINT64:
      return r->GetRepeatedUInt64(m, f, i);
    case CppType::CPPTYPE_DOUBLE:
      return std::bit_cast<uint64_t>(r->GetRepeatedDouble(m, f, i));
    case CppType::CPPTYPE_FLOAT:
      return std::bit_cast<uint32_t>(r->GetRepeatedFloat(m, f, i));
    case CppType::CPPTYPE_BOOL:
      return r->GetRepeatedBool(m, f, i) ? 1 : 0;
    case CppType::CPPTYPE_ENUM:
      return static_cast<uint64_t>(r->GetRepeatedEnumValue(m, f, i));
    default:
      return 0;
  }
}

void set_one(Message& m, const FieldDescriptor* f, uint64_t raw) {
  const Reflection* r = m.GetReflection();
  if (f->is_repeated()) {
    if (r->FieldSize(m, f) == 0) add_raw(m, f, 0);
    switch (f->cpp_type()) {
      case CppType::CPPTYPE_INT32:
        return r->SetRepeatedInt32(&m, f, 0, static_cast<int32_t>(raw));
      case CppType::CPPTYPE_INT64:
        return r->SetRepeatedInt64(&m, f, 0, static_cast<int64_t>(raw));
      case CppType::CPPTYPE_UINT32:
        return r->SetRepeatedUInt32(&m, f, 0, static_cast<uint32_t>(raw));
      case CppType::CPPTYPE_UINT64:
        return r->SetRepeatedUInt64(&m, f, 0, raw);
      case CppType::CPPTYPE_DOUBLE:
        return r->SetRepeatedDouble(&m, f, 0, std::bit_cast<double>(raw));
      case CppType::CPPTYPE_FLOAT:
        return r->SetRepeatedFloat(&m, f, 0, std::bit_cast<float>(static_cast<uint32_t>(raw)));
      case CppType::CPPTYPE_BOOL:
        return r->SetRepeatedBool(&m, f, 0, raw != 0);
      case CppType::CPPTYPE_ENUM:
        return r->SetRepeatedEnumValue(&m, f, 0, static_cast<int>(raw));
      default:
        return;
    }
  }
  switch (f->cpp_type()) {
    case CppType::CPPTYPE_INT32:
      return r->SetInt32(&m, f, static_cast<int32_t>(raw));
    case CppType::CPPTYPE_INT64:
      return r->SetInt64(&m, f, static_cast<int64_t>(raw));
    case CppType::CPPTYPE_UINT32:
      return r->SetUInt32(&m, f, static_cast<uint32_t>(raw));
    case CppType::CPPTYPE_UINT64:
      return r->SetUInt64(&m, f, raw);
    case CppType::CPPTYPE_DOUBLE:
      return r->SetDouble(&m, f, std::bit_cast<double>(raw));
    case CppType::CPPTYPE_FLOAT:
      return r->SetFloat(&m, f, std::bit_cast<float>(static_cast<uint32_t>(raw)));
    case CppType::CPPTYPE_BOOL:
      return r->SetBool(&m, f, raw != 0);
    case CppType::CPPTYPE_ENUM:
      return r->SetEnumValue(&m, f, static_cast<int>(raw));
    default:
      return;
  }
}

}  // namespace

std::vector<Knob> knobs_of(const FieldDescriptor* field) {
  const bool text = field->cpp_type() == CppType::CPPTYPE_STRING;
  if (field->cpp_type() == CppType::CPPTYPE_MESSAGE) {
    return field->is_repeated() ? std::vector<Knob>{Knob::count} : std::vector<Knob>{};
  }
  std::vector<Knob> knobs;
  if (field->is_repeated()) knobs.push_back(Knob::count);
  knobs.push_back(text ? Knob::length : Knob::value);
  return knobs;
}

uint64_t highest_raw(const FieldDescriptor* field) {
  switch (field->cpp_type()) {
    case CppType::CPPTYPE_INT32:
      return std::numeric_limits<int32_t>::max();
    case CppType::CPPTYPE_INT64:
      return std::numeric_limits<int64_t>::max();
    case CppType::CPPTYPE_UINT32:
      return std::numeric_limits<uint32_t>::max();
    case CppType::CPPTYPE_UINT64:
      return std::numeric_limits<uint64_t>::max();
    case CppType::CPPTYPE_DOUBLE:
      return std::bit_cast<uint64_t>(DBL_MAX);
    case CppType::CPPTYPE_FLOAT:
      return std::bit_cast<uint32_t>(FLT_MAX);
    case CppType::CPPTYPE_BOOL:
      return 1;
    case CppType::CPPTYPE_ENUM: {
      int most = 0;
      for (int i = 0; i < field->enum_type()->value_count(); ++i) {
        most = std::max(most, field->enum_type()->value(i)->number());
      }
      return static_cast<uint64_t>(most);
    }
    default:
      return 0;
  }
}

uint64_t lowest_raw(const FieldDescriptor* field) {
  switch (field->cpp_type()) {
    case CppType::CPPTYPE_INT32:
      return static_cast<uint64_t>(static_cast<int64_t>(std::numeric_limits<int32_t>::min()));
    case CppType::CPPTYPE_INT64:
      return static_cast<uint64_t>(std::numeric_limits<int64_t>::min());
    case CppType::CPPTYPE_DOUBLE:
      return std::bit_cast<uint64_t>(-DBL_MAX);
    case CppType::CPPTYPE_FLOAT:
      return std::bit_cast<uint32_t>(-FLT_MAX);
    default:
      return 0;
  }
}

bool integer_like(const FieldDescriptor* field) {
  return field->cpp_type() != CppType::CPPTYPE_DOUBLE && field->cpp_type() != CppType::CPPTYPE_FLOAT;
}

void set_raw(Message& request, const FieldPath& path, uint64_t raw) {
  set_one(*parent_of(request, path), path.back(), raw);
}

void set_length(Message& request, const FieldPath& path, size_t length, bool junk) {
  static std::mt19937_64 random(7);
  set_text(request, path, junk ? junk_text(length, random) : std::string(length, 'x'));
}

void set_text(Message& request, const FieldPath& path, const std::string& text) {
  Message& m = *parent_of(request, path);
  const FieldDescriptor* f = path.back();
  const Reflection* r = m.GetReflection();
  if (!f->is_repeated()) return r->SetString(&m, f, text);
  if (r->FieldSize(m, f) == 0) r->AddString(&m, f, "");
  r->SetRepeatedString(&m, f, 0, text);
}

void set_count(Message& request, const FieldPath& path, size_t count, bool junk) {
  static std::mt19937_64 random(11);
  Message& m = *parent_of(request, path);
  const FieldDescriptor* f = path.back();
  const Reflection* r = m.GetReflection();
  if (r->FieldSize(m, f) == 0 && count > 0) add_raw(m, f, 0);
  std::unique_ptr<Message> element;
  if (f->cpp_type() == CppType::CPPTYPE_MESSAGE && r->FieldSize(m, f) > 0) {
    element = clone(r->GetRepeatedMessage(m, f, 0));
  }
  const std::string text = f->cpp_type() == CppType::CPPTYPE_STRING && r->FieldSize(m, f) > 0
                               ? r->GetRepeatedString(m, f, 0)
                               : std::string();
  while (static_cast<size_t>(r->FieldSize(m, f)) > count) r->RemoveLast(&m, f);
  while (static_cast<size_t>(r->FieldSize(m, f)) < count) {
    if (element) {
      r->AddMessage(&m, f)->CopyFrom(*element);
    } else if (f->cpp_type() == CppType::CPPTYPE_STRING) {
      r->AddString(&m, f, junk ? junk_text(text.size(), random) : text);
    } else {
      const uint64_t span = highest_raw(f) == 0 ? 1 : highest_raw(f);
      add_raw(m, f, junk && integer_like(f) ? random() % span : get_raw(m, f, 0));
    }
  }
}

void copy_field(Message& request, const Message& source, const FieldPath& path) {
  if (!reaches(source, path)) return;
  Message* to = parent_of(request, path);
  const Message* from = &source;
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    const Reflection* r = from->GetReflection();
    from = path[i]->is_repeated() ? &r->GetRepeatedMessage(*from, path[i], 0) : &r->GetMessage(*from, path[i]);
  }
  const FieldDescriptor* f = path.back();
  to->GetReflection()->ClearField(to, f);
  std::unique_ptr<Message> only(from->New());
  only->CopyFrom(*from);
  std::vector<const FieldDescriptor*> others;
  for (int i = 0; i < only->GetDescriptor()->field_count(); ++i) {
    if (only->GetDescriptor()->field(i) != f) others.push_back(only->GetDescriptor()->field(i));
  }
  for (const FieldDescriptor* o : others) only->GetReflection()->ClearField(only.get(), o);
  to->MergeFrom(*only);
}

std::string show_raw(const FieldDescriptor* field, uint64_t raw) {
  char text[64];
  switch (field->cpp_type()) {
    case CppType::CPPTYPE_INT32:
    case CppType::CPPTYPE_INT64:
      std::snprintf(text, sizeof text, "%lld", static_cast<long long>(raw));
      break;
    case CppType::CPPTYPE_DOUBLE:
      std::snprintf(text, sizeof text, "%.17g", std::bit_cast<double>(raw));
      break;
    case CppType::CPPTYPE_FLOAT:
      std::snprintf(text, sizeof text, "%.9g", std::bit_cast<float>(static_cast<uint32_t>(raw)));
      break;
    case CppType::CPPTYPE_BOOL:
      return raw != 0 ? "true" : "false";
    default:
      std::snprintf(text, sizeof text, "%llu", static_cast<unsigned long long>(raw));
      break;
  }
  return text;
}

}  // namespace chunkforge::hostile::adversary
