// File: chunkforge/json_members.h
//
// The members of a JSON object held as a google.protobuf.Struct (a JSON document parsed into
// google.protobuf.Value), reached through protobuf's reflection rather than Struct's inline map
// accessors. Why: libprotobuf is built once, without sanitizers, and under ThreadSanitizer its
// headers give every map field two more members (map_field.h, MutableAccess), so code of ours
// compiled with TSan that touched Struct::fields() directly read the library's Struct at the
// wrong offsets and crashed. Reflection runs the library's own code, the same in every build.
//
//   JsonMembers members(*value.mutable_struct_value());
//   if (const int k = members.find("resources"); k >= 0) members.value(k) ...
//   members.erase(k);
//
// Members are numbered 0 .. size()-1 in no particular order; erase renumbers the last one to the
// erased one's number. Not thread-safe: one Struct, one thread.
#pragma once

#include <google/protobuf/struct.pb.h>

#include <string>

namespace chunkforge {

class JsonMembers {
 public:
  explicit JsonMembers(google::protobuf::Struct& object)
      : object_(object),
        reflection_(*object.GetReflection()),
        fields_(object.GetDescriptor()->FindFieldByName("fields")),
        key_(fields_->message_type()->FindFieldByName("key")),
        value_(fields_->message_type()->FindFieldByName("value")) {}

  int size() const { return reflection_.FieldSize(object_, fields_); }

  std::string key(int k) const {
    const google::protobuf::Message& entry = reflection_.GetRepeatedMessage(object_, fields_, k);
    return entry.GetReflection()->GetString(entry, key_);
  }

  google::protobuf::Value& value(int k) {
    google::protobuf::Message* entry = reflection_.MutableRepeatedMessage(&object_, fields_, k);
    return dynamic_cast<google::protobuf::Value&>(*entry->GetReflection()->MutableMessage(entry, value_));
  }

  // The member named `key`'s number, or -1.
  int find(const std::string& key) const {
    for (int k = 0; k < size(); ++k) {
      if (this->key(k) == key) return k;
    }
    return -1;
  }

  void erase(int k) {
    reflection_.SwapElements(&object_, fields_, k, size() - 1);
    reflection_.RemoveLast(&object_, fields_);
  }

 private:
  google::protobuf::Struct& object_;
  const google::protobuf::Reflection& reflection_;
  const google::protobuf::FieldDescriptor* const fields_;
  const google::protobuf::FieldDescriptor* const key_;
  const google::protobuf::FieldDescriptor* const value_;
};

}  // namespace chunkforge
