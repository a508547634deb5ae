// File: tests/hostile/adversary/service_shape.cc
//
// The service's methods and fields by reflection (service_shape.h).
#include "service_shape.h"

#include <algorithm>
#include <stdexcept>

namespace chunkforge::hostile::adversary {
namespace {

constexpr char kService[] = "chunkforge.v1.WorldService";
constexpr size_t kMaxDepth = 4;

void collect(const Descriptor* type, FieldPath& prefix, std::vector<const Descriptor*>& on_path,
             std::vector<FieldPath>& out) {
  for (int i = 0; i < type->field_count(); ++i) {
    const FieldDescriptor* field = type->field(i);
    prefix.push_back(field);
    out.push_back(prefix);
    const Descriptor* nested = field->message_type();
    if (nested != nullptr && prefix.size() < kMaxDepth &&
        std::find(on_path.begin(), on_path.end(), nested) == on_path.end()) {
      on_path.push_back(nested);
      collect(nested, prefix, on_path, out);
      on_path.pop_back();
    }
    prefix.pop_back();
  }
}

}  // namespace

std::vector<Method> service_methods() {
  const google::protobuf::ServiceDescriptor* service =
      google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(kService);
  if (service == nullptr) throw std::runtime_error(std::string(kService) + " is not in the generated pool");
  std::vector<Method> methods;
  for (int i = 0; i < service->method_count(); ++i) {
    const google::protobuf::MethodDescriptor* m = service->method(i);
    methods.push_back({m->name(), "/" + service->full_name() + "/" + m->name(), m->input_type(), m->output_type(),
                       m->client_streaming(), m->server_streaming()});
  }
  return methods;
}

const Method& method_named(const std::vector<Method>& methods, const std::string& name) {
  for (const Method& m : methods) {
    if (m.name == name) return m;
  }
  throw std::runtime_error("no method " + name);
}

std::string path_name(const FieldPath& path) {
  std::string name;
  for (size_t i = 0; i < path.size(); ++i) {
    if (i > 0) name += ".";
    name += path[i]->name();
    if (path[i]->is_repeated() && (i + 1 < path.size())) name += "[]";
  }
  return name;
}

std::vector<FieldPath> fields_of(const Descriptor* type) {
  std::vector<FieldPath> out;
  FieldPath prefix;
  std::vector<const Descriptor*> on_path{type};
  collect(type, prefix, on_path, out);
  return out;
}

Message* parent_of(Message& request, const FieldPath& path) {
  Message* at = &request;
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    const google::protobuf::Reflection* r = at->GetReflection();
    if (path[i]->is_repeated()) {
      if (r->FieldSize(*at, path[i]) == 0) r->AddMessage(at, path[i]);
      at = r->MutableRepeatedMessage(at, path[i], 0);
    } else {
      at = r->MutableMessage(at, path[i]);
    }
  }
  return at;
}

bool reaches(const Message& request, const FieldPath& path) {
  const Message* at = &request;
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    const google::protobuf::Reflection* r = at->GetReflection();
    if (path[i]->is_repeated()) {
      if (r->FieldSize(*at, path[i]) == 0) return false;
      at = &r->GetRepeatedMessage(*at, path[i], 0);
    } else {
      if (!r->HasField(*at, path[i])) return false;
      at = &r->GetMessage(*at, path[i]);
    }
  }
  return true;
}

std::unique_ptr<Message> new_message(const Descriptor* type) {
  const Message* prototype = google::protobuf::MessageFactory::generated_factory()->GetPrototype(type);
  return std::unique_ptr<Message>(prototype->New());
}

std::unique_ptr<Message> clone(const Message& message) {
  std::unique_ptr<Message> copy(message.New());
  copy->CopyFrom(message);
  return copy;
}

}  // namespace chunkforge::hostile::adversary
