// File: tests/contract/wire_breaks.cc
//
// The rules of wire_breaks.h. Elements are matched by full name (a message may move between
// files without a break), fields and enum values by number, since the number is what travels.
#include "wire_breaks.h"

#include <google/protobuf/descriptor.h>

#include <cstdint>
#include <map>
#include <optional>
#include <utility>

namespace chunkforge::contract {
namespace {

using google::protobuf::DescriptorProto;
using google::protobuf::EnumDescriptorProto;
using google::protobuf::FieldDescriptor;
using google::protobuf::FieldDescriptorProto;
using google::protobuf::FileDescriptorProto;
using google::protobuf::FileDescriptorSet;
using google::protobuf::RepeatedPtrField;
using google::protobuf::ServiceDescriptorProto;

template <class Proto>
using Declarations = std::map<std::string, const Proto*>;

// A field (message and number) or an RPC (service and method) that uses a message or an enum.
struct Use {
  std::string owner;  // the message or the service, full name
  int number = 0;     // the field's number; 0 for an RPC
  std::string method;
};

// What one descriptor set declares, by full name (no leading dot), and who uses each message and
// enum (by the used type's full name).
struct Index {
  Declarations<DescriptorProto> messages;
  Declarations<EnumDescriptorProto> enums;
  Declarations<ServiceDescriptorProto> services;
  std::multimap<std::string, Use> users;
};

std::string scoped(const std::string& scope, const std::string& name) {
  return scope.empty() ? name : scope + "." + name;
}

// Field and RPC types are written ".package.Message" once resolved.
std::string unqualified(const std::string& type_name) {
  return !type_name.empty() && type_name[0] == '.' ? type_name.substr(1) : type_name;
}

void index_types(const std::string& scope, const RepeatedPtrField<DescriptorProto>& messages,
                 const RepeatedPtrField<EnumDescriptorProto>& enums, Index& index) {
  for (const EnumDescriptorProto& e : enums) index.enums.emplace(scoped(scope, e.name()), &e);
  for (const DescriptorProto& m : messages) {
    const std::string name = scoped(scope, m.name());
    index.messages.emplace(name, &m);
    for (const FieldDescriptorProto& f : m.field()) {
      if (!f.type_name().empty()) index.users.emplace(unqualified(f.type_name()), Use{name, f.number(), ""});
    }
    index_types(name, m.nested_type(), m.enum_type(), index);
  }
}

Index index_of(const FileDescriptorSet& set) {
  Index index;
  for (const FileDescriptorProto& file : set.file()) {
    index_types(file.package(), file.message_type(), file.enum_type(), index);
    for (const ServiceDescriptorProto& s : file.service()) {
      const std::string service = scoped(file.package(), s.name());
      index.services.emplace(service, &s);
      for (const auto& method : s.method()) {
        index.users.emplace(unqualified(method.input_type()), Use{service, 0, method.name()});
        index.users.emplace(unqualified(method.output_type()), Use{service, 0, method.name()});
      }
    }
  }
  return index;
}

// Reserved numbers as half-open ranges [first, second).
using Ranges = std::vector<std::pair<int64_t, int64_t>>;

Ranges reserved_numbers(const DescriptorProto& message) {
  Ranges ranges;
  for (const auto& r : message.reserved_range()) ranges.emplace_back(r.start(), r.end());
  return ranges;
}

Ranges reserved_numbers(const EnumDescriptorProto& e) {  // an enum's reserved end is inclusive
  Ranges ranges;
  for (const auto& r : e.reserved_range()) ranges.emplace_back(r.start(), int64_t{r.end()} + 1);
  return ranges;
}

// The first number of [begin, end) that `ranges` leave out, if any.
std::optional<int64_t> first_uncovered(int64_t begin, int64_t end, const Ranges& ranges) {
  for (bool advanced = true; begin < end && advanced;) {
    advanced = false;
    for (const auto& [first, last] : ranges) {
      if (first <= begin && begin < last) begin = last, advanced = true;
    }
  }
  if (begin < end) return begin;
  return std::nullopt;
}

bool is_reserved(int64_t number, const Ranges& ranges) { return !first_uncovered(number, number + 1, ranges); }

std::string type_of(const FieldDescriptorProto& f) {
  if (!f.type_name().empty()) return unqualified(f.type_name());
  return FieldDescriptor::TypeName(static_cast<FieldDescriptor::Type>(f.type()));
}

std::string cardinality_of(const FieldDescriptorProto& f) {
  switch (f.label()) {
    case FieldDescriptorProto::LABEL_REPEATED:
      return "repeated";
    case FieldDescriptorProto::LABEL_REQUIRED:
      return "required";
    default:
      return "singular";
  }
}

// The oneof holding `f`, or "" (a proto3 `optional` field's synthetic oneof is no oneof on the
// wire: adding `optional` is compatible).
std::string oneof_of(const DescriptorProto& message, const FieldDescriptorProto& f) {
  if (!f.has_oneof_index() || f.proto3_optional() || f.oneof_index() >= message.oneof_decl_size()) return "";
  return message.oneof_decl(f.oneof_index()).name();
}

std::string described(const std::string& oneof) { return oneof.empty() ? "no oneof" : "oneof " + oneof; }

std::string streaming(bool on) { return on ? "streaming" : "not streaming"; }

const FieldDescriptorProto* field_numbered(const DescriptorProto& message, int number) {
  for (const FieldDescriptorProto& f : message.field()) {
    if (f.number() == number) return &f;
  }
  return nullptr;
}

const FieldDescriptorProto* field_named(const DescriptorProto& message, const std::string& name) {
  for (const FieldDescriptorProto& f : message.field()) {
    if (f.name() == name) return &f;
  }
  return nullptr;
}

// Walks `before`, looking each element up in `after`.
class Checker {
 public:
  Checker(const FileDescriptorSet& before, const FileDescriptorSet& after)
      : old_(index_of(before)), new_(index_of(after)) {}

  void check_file(const FileDescriptorProto& file) {
    file_ = file.name();
    check_types(file.package(), file.message_type(), file.enum_type());
    for (const ServiceDescriptorProto& s : file.service()) check_service(scoped(file.package(), s.name()), s);
  }

  std::vector<WireBreak> breaks;

 private:
  // Whether a field or an RPC of `before` that used the type `name` is still there in `after`
  // (a type removed with all its users carries no bytes any more).
  bool still_used(const std::string& name) const {
    const auto [first, last] = old_.users.equal_range(name);
    for (auto use = first; use != last; ++use) {
      const Use& u = use->second;
      if (u.number != 0) {
        const auto message = new_.messages.find(u.owner);
        if (message != new_.messages.end() && field_numbered(*message->second, u.number)) return true;
      } else if (const auto service = new_.services.find(u.owner); service != new_.services.end()) {
        for (const auto& m : service->second->method()) {
          if (m.name() == u.method) return true;
        }
      }
    }
    return false;
  }

  void report(const char* rule, const std::string& element, const std::string& change) {
    breaks.push_back({rule, file_, element, change});
  }

  void check_types(const std::string& scope, const RepeatedPtrField<DescriptorProto>& messages,
                   const RepeatedPtrField<EnumDescriptorProto>& enums) {
    for (const EnumDescriptorProto& e : enums) check_enum(scoped(scope, e.name()), e);
    for (const DescriptorProto& m : messages) {
      const std::string name = scoped(scope, m.name());
      check_message(name, m);
      check_types(name, m.nested_type(), m.enum_type());
    }
  }

  void check_message(const std::string& name, const DescriptorProto& before) {
    const auto found = new_.messages.find(name);
    if (found == new_.messages.end()) {
      // A map's entry goes with its field, which is checked.
      if (still_used(name) && !before.options().map_entry()) {
        report("MESSAGE_NO_DELETE_WHILE_REFERENCED", name, "message removed while a field or RPC still uses it");
      }
      return;
    }
    const DescriptorProto& after = *found->second;
    for (const FieldDescriptorProto& f : before.field()) check_field(name, before, f, after);
    const Ranges reserved = reserved_numbers(after);
    for (const auto& [first, last] : reserved_numbers(before)) {
      if (const std::optional<int64_t> n = first_uncovered(first, last, reserved)) {
        report("RESERVED_MESSAGE_NO_DELETE", name, "reserved number " + std::to_string(*n) + " no longer reserved");
      }
    }
  }

  void check_field(const std::string& message, const DescriptorProto& before, const FieldDescriptorProto& f,
                   const DescriptorProto& after) {
    const std::string element = message + "." + f.name();
    const std::string number = "field " + std::to_string(f.number());
    const FieldDescriptorProto* g = field_numbered(after, f.number());
    if (g == nullptr) {
      if (const FieldDescriptorProto* moved = field_named(after, f.name())) {
        report("FIELD_SAME_NUMBER", element, number + " renumbered to " + std::to_string(moved->number()));
      } else if (!is_reserved(f.number(), reserved_numbers(after))) {
        report("FIELD_NO_DELETE_UNLESS_NUMBER_RESERVED", element, number + " removed without reserving its number");
      }
      return;
    }
    if (g->name() != f.name()) {
      report("FIELD_SAME_NAME", element, number + " renamed from " + f.name() + " to " + g->name());
    }
    if (type_of(*g) != type_of(f) || g->type() != f.type()) {
      report("FIELD_SAME_TYPE", element, number + " changed type from " + type_of(f) + " to " + type_of(*g));
    }
    if (g->label() != f.label()) {
      report("FIELD_SAME_CARDINALITY", element,
             number + " changed from " + cardinality_of(f) + " to " + cardinality_of(*g));
    }
    if (oneof_of(after, *g) != oneof_of(before, f)) {
      report("FIELD_SAME_ONEOF", element,
             number + " moved from " + described(oneof_of(before, f)) + " to " + described(oneof_of(after, *g)));
    }
  }

  void check_enum(const std::string& name, const EnumDescriptorProto& before) {
    const auto found = new_.enums.find(name);
    if (found == new_.enums.end()) {
      if (still_used(name)) report("ENUM_NO_DELETE_WHILE_REFERENCED", name, "enum removed while a field still uses it");
      return;
    }
    const EnumDescriptorProto& after = *found->second;
    const Ranges reserved = reserved_numbers(after);
    for (const auto& v : before.value()) check_enum_value(name, v, after, reserved);
    for (const auto& [first, last] : reserved_numbers(before)) {
      if (const std::optional<int64_t> n = first_uncovered(first, last, reserved)) {
        report("RESERVED_ENUM_NO_DELETE", name, "reserved number " + std::to_string(*n) + " no longer reserved");
      }
    }
  }

  void check_enum_value(const std::string& e, const google::protobuf::EnumValueDescriptorProto& v,
                        const EnumDescriptorProto& after, const Ranges& reserved) {
    const std::string element = e + "." + v.name(), number = "value " + std::to_string(v.number());
    const google::protobuf::EnumValueDescriptorProto *same_number = nullptr, *same_name = nullptr;
    for (const auto& w : after.value()) {
      if (w.number() == v.number() && (same_number == nullptr || w.name() == v.name())) same_number = &w;
      if (w.name() == v.name()) same_name = &w;
    }
    if (same_name != nullptr && same_name->number() != v.number()) {
      report("ENUM_VALUE_SAME_NUMBER", element, number + " renumbered to " + std::to_string(same_name->number()));
    } else if (same_number != nullptr && same_number->name() != v.name()) {
      report("ENUM_VALUE_SAME_NAME", element, number + " renamed from " + v.name() + " to " + same_number->name());
    } else if (same_number == nullptr && !is_reserved(v.number(), reserved)) {
      report("ENUM_VALUE_NO_DELETE_UNLESS_NUMBER_RESERVED", element, number + " removed without reserving its number");
    }
  }

  void check_service(const std::string& name, const ServiceDescriptorProto& before) {
    const auto found = new_.services.find(name);
    if (found == new_.services.end()) return report("SERVICE_NO_DELETE", name, "service removed");
    std::map<std::string, const google::protobuf::MethodDescriptorProto*> methods;
    for (const auto& m : found->second->method()) methods.emplace(m.name(), &m);
    for (const auto& m : before.method()) {
      const std::string element = name + "." + m.name();
      const auto now = methods.find(m.name());
      if (now == methods.end()) {
        report("RPC_NO_DELETE", element, "RPC removed");
        continue;
      }
      const auto& n = *now->second;
      const auto changed = [](const std::string& from, const std::string& to) {
        return " changed from " + unqualified(from) + " to " + unqualified(to);
      };
      if (unqualified(n.input_type()) != unqualified(m.input_type())) {
        report("RPC_SAME_REQUEST_TYPE", element, "request" + changed(m.input_type(), n.input_type()));
      }
      if (unqualified(n.output_type()) != unqualified(m.output_type())) {
        report("RPC_SAME_RESPONSE_TYPE", element, "response" + changed(m.output_type(), n.output_type()));
      }
      if (n.client_streaming() != m.client_streaming()) {
        report("RPC_SAME_CLIENT_STREAMING", element,
               "request changed from " + streaming(m.client_streaming()) + " to " + streaming(n.client_streaming()));
      }
      if (n.server_streaming() != m.server_streaming()) {
        report("RPC_SAME_SERVER_STREAMING", element,
               "response changed from " + streaming(m.server_streaming()) + " to " + streaming(n.server_streaming()));
      }
    }
  }

  const Index old_, new_;
  std::string file_;
};

}  // namespace

std::string WireBreak::text() const { return file + ": " + element + ": " + change + " [" + rule + "]"; }

std::vector<WireBreak> wire_breaks(const FileDescriptorSet& before, const FileDescriptorSet& after) {
  Checker checker(before, after);
  for (const FileDescriptorProto& file : before.file()) checker.check_file(file);
  return std::move(checker.breaks);
}

}  // namespace chunkforge::contract
