// File: tests/hostile/adversary/service_shape.h
//
// What the generated adversary knows of the service, all of it read from the descriptor of
// chunkforge.v1.WorldService in the generated pool (DescriptorPool::generated_pool()): its
// methods, their input types and streaming, and every field of every input message, reached
// through singular messages and repeated messages' first element. A method or field added to
// the proto is in here without anyone writing it down.
#pragma once

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include <memory>
#include <string>
#include <vector>

namespace chunkforge::hostile::adversary {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

struct Method {
  std::string name;  // "GetChunk"
  std::string path;  // "/chunkforge.v1.WorldService/GetChunk", as HTTP/2's :path
  const Descriptor* input = nullptr;
  const Descriptor* output = nullptr;
  bool client_streaming = false, server_streaming = false;
  bool streaming() const { return client_streaming || server_streaming; }
};

// The service's methods, in the descriptor's order.
std::vector<Method> service_methods();
const Method& method_named(const std::vector<Method>& methods, const std::string& name);

// A field reached from the request, one field per step; a repeated message step means its
// element 0.
using FieldPath = std::vector<const FieldDescriptor*>;

// "options.layers", "ops[].add_object.x".
std::string path_name(const FieldPath& path);

// Every field under `type`, parents before their fields, in field order. Descends into singular
// and repeated messages (never into a type already on the path, at most 4 deep).
std::vector<FieldPath> fields_of(const Descriptor* type);

// The message that holds the path's last field in `request`, made present on the way (element 0
// of a repeated message added when missing).
Message* parent_of(Message& request, const FieldPath& path);
// Whether every message on the path is present in `request` (nothing is made).
bool reaches(const Message& request, const FieldPath& path);

// An empty message of a generated type.
std::unique_ptr<Message> new_message(const Descriptor* type);
std::unique_ptr<Message> clone(const Message& message);

}  // namespace chunkforge::hostile::adversary
