// tests/fuzz/world_json.dict, the world_json fuzzer's dictionary, is typed by hand: it holds
// every field name and every enum value of world.proto's schema (read here from the
// descriptors, from WorldDefinition down), so that a new field or scatter method is fuzzed as
// a token too and cannot be forgotten there.
#include <google/protobuf/descriptor.h>
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "chunkforge/v1/world.pb.h"

namespace chunkforge {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;

// The JSON tokens a definition can hold: "name": for each field, "value" for each enum value,
// of every message reachable from `message`.
void schema_tokens(const Descriptor* message, std::set<const Descriptor*>& seen, std::set<std::string>& tokens) {
  if (!seen.insert(message).second) return;
  for (int k = 0; k < message->field_count(); ++k) {
    const FieldDescriptor* field = message->field(k);
    tokens.insert("\"\\\"" + std::string(field->name()) + "\\\":\"");
    if (field->enum_type() != nullptr) {
      for (int v = 0; v < field->enum_type()->value_count(); ++v) {
        tokens.insert("\"\\\"" + std::string(field->enum_type()->value(v)->name()) + "\\\"\"");
      }
    }
    if (field->message_type() != nullptr) schema_tokens(field->message_type(), seen, tokens);
  }
}

TEST(FuzzDictionaryTest, TheWorldJsonDictionaryHoldsEveryFieldAndEnumValueOfTheSchema) {
  std::ifstream file(CHUNKFORGE_SOURCE_DIR "/tests/fuzz/world_json.dict");
  ASSERT_TRUE(file) << "tests/fuzz/world_json.dict";
  std::set<std::string> lines;
  for (std::string line; std::getline(file, line);) lines.insert(line);
  std::set<const Descriptor*> seen;
  std::set<std::string> tokens;
  schema_tokens(v1::WorldDefinition::descriptor(), seen, tokens);
  ASSERT_GT(tokens.size(), 50u);
  for (const std::string& token : tokens) {
    EXPECT_EQ(lines.count(token), 1u) << "tests/fuzz/world_json.dict has no line " << token;
  }
}

}  // namespace
}  // namespace chunkforge
