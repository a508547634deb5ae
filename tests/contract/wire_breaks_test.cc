// File: tests/contract/wire_breaks_test.cc
//
// Each rule of wire_breaks.h on a hand-made pair of files: a small service written here as a
// FileDescriptorProto, and the same with one change. A breaking change must give exactly the
// break of its rule, on the element it concerns; an addition, or a removal that reserves its
// number, must give none.
#include "wire_breaks.h"

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace chunkforge::contract {
namespace {

using google::protobuf::FileDescriptorProto;
using google::protobuf::FileDescriptorSet;

// The "before" file. Each test changes its text by replacing one exact piece of it.
constexpr const char* kBefore = R"pb(
  name: "t/v1/a.proto"
  package: "t.v1"
  syntax: "proto3"
  message_type {
    name: "Coord"
    field { name: "x" number: 1 label: LABEL_OPTIONAL type: TYPE_INT64 }
    field { name: "z" number: 2 label: LABEL_OPTIONAL type: TYPE_INT64 }
  }
  message_type {
    name: "Request"
    field { name: "coord" number: 1 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".t.v1.Coord" }
    field { name: "layers" number: 2 label: LABEL_REPEATED type: TYPE_UINT32 }
    field { name: "kind" number: 3 label: LABEL_OPTIONAL type: TYPE_ENUM type_name: ".t.v1.Kind" }
    field { name: "name" number: 4 label: LABEL_OPTIONAL type: TYPE_STRING oneof_index: 0 }
    field { name: "id" number: 5 label: LABEL_OPTIONAL type: TYPE_UINT64 oneof_index: 0 }
    field { name: "note" number: 6 label: LABEL_OPTIONAL type: TYPE_STRING }
    field { name: "inner" number: 7 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".t.v1.Request.Inner" }
    oneof_decl { name: "target" }
    reserved_range { start: 9 end: 11 }
    nested_type {
      name: "Inner"
      field { name: "depth" number: 1 label: LABEL_OPTIONAL type: TYPE_DOUBLE }
    }
  }
  message_type {
    name: "Response"
    field { name: "coords" number: 1 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".t.v1.Coord" }
  }
  message_type {
    name: "Unused"
    field { name: "flag" number: 1 label: LABEL_OPTIONAL type: TYPE_BOOL }
  }
  enum_type {
    name: "Kind"
    value { name: "KIND_UNSPECIFIED" number: 0 }
    value { name: "KIND_TREE" number: 1 }
    value { name: "KIND_ORE" number: 2 }
    reserved_range { start: 5 end: 6 }
  }
  service {
    name: "Svc"
    method { name: "Get" input_type: ".t.v1.Request" output_type: ".t.v1.Response" }
    method { name: "Stream" input_type: ".t.v1.Request" output_type: ".t.v1.Coord" server_streaming: true }
    method {
      name: "Talk"
      input_type: ".t.v1.Request"
      output_type: ".t.v1.Response"
      client_streaming: true
      server_streaming: true
    }
  }
)pb";

FileDescriptorSet set_of(const std::string& text) {
  FileDescriptorSet set;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, set.add_file())) << text;
  return set;
}

using Replacements = std::vector<std::pair<std::string, std::string>>;

// kBefore with each `from` (which must occur exactly once) replaced by its `to`.
std::string changed(const Replacements& replacements) {
  std::string text = kBefore;
  for (const auto& [from, to] : replacements) {
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    EXPECT_EQ(text.find(from, at + 1), std::string::npos) << "more than once: " << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
  }
  return text;
}

std::string changed(const std::string& from, const std::string& to) { return changed(Replacements{{from, to}}); }

std::vector<WireBreak> breaks(const std::string& after) { return wire_breaks(set_of(kBefore), set_of(after)); }

std::string listed(const std::vector<WireBreak>& found) {
  std::string text;
  for (const WireBreak& b : found) text += "\n  " + b.text();
  return text.empty() ? " none" : text;
}

// Exactly one break, of `rule` on `element`.
void expect_break(const std::vector<WireBreak>& found, const std::string& rule, const std::string& element) {
  ASSERT_EQ(found.size(), 1u) << "expected " << rule << " on " << element << "; got" << listed(found);
  EXPECT_EQ(found[0].rule, rule) << listed(found);
  EXPECT_EQ(found[0].element, element) << listed(found);
  EXPECT_EQ(found[0].file, "t/v1/a.proto");
}

void expect_none(const std::vector<WireBreak>& found) { EXPECT_TRUE(found.empty()) << listed(found); }

TEST(WireBreaksTest, TheSameFilesAreCompatible) { expect_none(breaks(kBefore)); }

TEST(WireBreaksTest, AdditionsAreCompatible) {
  // A field with a new number, a message, an enum value, an RPC, a service and a file.
  std::string after = changed(R"(name: "note" number: 6 label: LABEL_OPTIONAL type: TYPE_STRING })",
                              R"(name: "note" number: 6 label: LABEL_OPTIONAL type: TYPE_STRING }
                                 field { name: "extra" number: 12 label: LABEL_REPEATED type: TYPE_SINT32 })");
  after += R"pb(
    message_type {
      name: "Added"
      field { name: "a" number: 1 label: LABEL_OPTIONAL type: TYPE_BYTES }
    }
    service {
      name: "Other"
      method { name: "Ping" input_type: ".t.v1.Added" output_type: ".t.v1.Added" }
    }
  )pb";
  FileDescriptorSet set = set_of(after);
  auto* kind = set.mutable_file(0)->mutable_enum_type(0)->add_value();
  kind->set_name("KIND_ROCK");
  kind->set_number(3);
  auto* rpc = set.mutable_file(0)->mutable_service(0)->add_method();
  rpc->set_name("Put");
  rpc->set_input_type(".t.v1.Coord");
  rpc->set_output_type(".t.v1.Coord");
  set.add_file()->set_name("t/v1/b.proto");
  expect_none(wire_breaks(set_of(kBefore), set));
}

TEST(WireBreaksTest, ARemovedFieldBreaksUnlessItsNumberIsReserved) {
  const std::string note = R"(field { name: "note" number: 6 label: LABEL_OPTIONAL type: TYPE_STRING })";
  expect_break(breaks(changed(note, "")), "FIELD_NO_DELETE_UNLESS_NUMBER_RESERVED", "t.v1.Request.note");
  expect_none(breaks(changed(note, "reserved_range { start: 6 end: 7 } reserved_name: \"note\"")));
}

TEST(WireBreaksTest, ARenumberedFieldBreaksEvenWithItsOldNumberReserved) {
  const std::string from = R"(name: "note" number: 6)", to = R"(name: "note" number: 8)";
  expect_break(breaks(changed(from, to)), "FIELD_SAME_NUMBER", "t.v1.Request.note");
  expect_break(breaks(changed({{from, to},
                               {"reserved_range { start: 9",
                                "reserved_range { start: 6 end: 7 } "
                                "reserved_range { start: 9"}})),
               "FIELD_SAME_NUMBER", "t.v1.Request.note");
}

TEST(WireBreaksTest, ANumberWithAnotherNameBreaks) {
  expect_break(breaks(changed(R"(name: "note" number: 6)", R"(name: "comment" number: 6)")), "FIELD_SAME_NAME",
               "t.v1.Request.note");
}

TEST(WireBreaksTest, AChangedFieldTypeBreaks) {
  expect_break(breaks(changed(R"(name: "x" number: 1 label: LABEL_OPTIONAL type: TYPE_INT64)",
                              R"(name: "x" number: 1 label: LABEL_OPTIONAL type: TYPE_INT32)")),
               "FIELD_SAME_TYPE", "t.v1.Coord.x");
  expect_break(breaks(changed(R"(type_name: ".t.v1.Request.Inner")", R"(type_name: ".t.v1.Coord")")), "FIELD_SAME_TYPE",
               "t.v1.Request.inner");
  const std::vector<WireBreak> to_scalar =
      breaks(changed(R"(type: TYPE_ENUM type_name: ".t.v1.Kind")", R"(type: TYPE_UINT32)"));
  expect_break(to_scalar, "FIELD_SAME_TYPE", "t.v1.Request.kind");
  EXPECT_EQ(to_scalar.at(0).change, "field 3 changed type from t.v1.Kind to uint32");
}

TEST(WireBreaksTest, AChangedCardinalityBreaks) {
  expect_break(breaks(changed(R"(name: "layers" number: 2 label: LABEL_REPEATED)",
                              R"(name: "layers" number: 2 label: LABEL_OPTIONAL)")),
               "FIELD_SAME_CARDINALITY", "t.v1.Request.layers");
  expect_break(
      breaks(changed(R"(name: "z" number: 2 label: LABEL_OPTIONAL)", R"(name: "z" number: 2 label: LABEL_REPEATED)")),
      "FIELD_SAME_CARDINALITY", "t.v1.Coord.z");
}

TEST(WireBreaksTest, AChangedOneofMembershipBreaks) {
  expect_break(breaks(changed("type: TYPE_UINT64 oneof_index: 0", "type: TYPE_UINT64")), "FIELD_SAME_ONEOF",
               "t.v1.Request.id");
  expect_break(breaks(changed(R"(name: "note" number: 6 label: LABEL_OPTIONAL type: TYPE_STRING)",
                              R"(name: "note" number: 6 label: LABEL_OPTIONAL type: TYPE_STRING oneof_index: 0)")),
               "FIELD_SAME_ONEOF", "t.v1.Request.note");
}

TEST(WireBreaksTest, AProto3OptionalIsNoOneof) {
  expect_none(breaks(changed(
      {{R"(name: "note" number: 6 label: LABEL_OPTIONAL type: TYPE_STRING)",
        R"(name: "note" number: 6 label: LABEL_OPTIONAL type: TYPE_STRING oneof_index: 1
                                  proto3_optional: true)"},
       {R"(oneof_decl { name: "target" })", R"(oneof_decl { name: "target" } oneof_decl { name: "_note" })"}})));
}

TEST(WireBreaksTest, ARemovedMessageBreaksWhileAFieldOrRpcStillUsesIt) {
  expect_break(breaks(changed("name: \"Coord\"", "name: \"Gone\"")), "MESSAGE_NO_DELETE_WHILE_REFERENCED",
               "t.v1.Coord");
  // Unused, or removed with the only field using it (its number reserved): no bytes are misread.
  expect_none(breaks(changed("name: \"Unused\"", "name: \"Renamed\"")));
  const std::string inner =
      R"(field { name: "inner" number: 7 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".t.v1.Request.Inner" })";
  expect_none(breaks(changed({{inner, "reserved_range { start: 7 end: 8 }"}, {"name: \"Inner\"", "name: \"Other\""}})));
}

TEST(WireBreaksTest, AMessageMayMoveToAnotherFile) {
  FileDescriptorSet after = set_of(kBefore);
  *after.add_file() = after.file(0);
  after.mutable_file(1)->set_name("t/v1/b.proto");
  after.mutable_file(0)->mutable_message_type()->DeleteSubrange(3, 1);  // Unused
  after.mutable_file(1)->mutable_message_type()->DeleteSubrange(0, 3);
  after.mutable_file(1)->clear_enum_type();
  after.mutable_file(1)->clear_service();
  expect_none(wire_breaks(set_of(kBefore), after));
}

TEST(WireBreaksTest, ADroppedReservationBreaks) {
  expect_break(breaks(changed("reserved_range { start: 9 end: 11 }", "reserved_range { start: 9 end: 10 }")),
               "RESERVED_MESSAGE_NO_DELETE", "t.v1.Request");
  expect_break(breaks(changed("reserved_range { start: 5 end: 6 }", "")), "RESERVED_ENUM_NO_DELETE", "t.v1.Kind");
  // Split into two ranges that cover the same numbers: still reserved.
  expect_none(breaks(changed("reserved_range { start: 9 end: 11 }",
                             "reserved_range { start: 10 end: 11 } reserved_range { start: 9 end: 10 }")));
}

TEST(WireBreaksTest, EnumValuesKeepTheirNumbersAndNames) {
  const std::string ore = R"(value { name: "KIND_ORE" number: 2 })";
  expect_break(breaks(changed(ore, "")), "ENUM_VALUE_NO_DELETE_UNLESS_NUMBER_RESERVED", "t.v1.Kind.KIND_ORE");
  expect_none(breaks(changed(ore, "reserved_range { start: 2 end: 2 }")));  // an enum's end is inclusive
  expect_break(breaks(changed(ore, R"(value { name: "KIND_ORE" number: 3 })")), "ENUM_VALUE_SAME_NUMBER",
               "t.v1.Kind.KIND_ORE");
  expect_break(breaks(changed(ore, R"(value { name: "KIND_ROCK" number: 2 })")), "ENUM_VALUE_SAME_NAME",
               "t.v1.Kind.KIND_ORE");
  // An alias beside the value is an addition.
  expect_none(breaks(changed(ore, R"(value { name: "KIND_ORE" number: 2 } value { name: "KIND_ROCK" number: 2 })")));
}

TEST(WireBreaksTest, ARemovedEnumBreaksWhileAFieldStillUsesIt) {
  expect_break(breaks(changed("name: \"Kind\"\n", "name: \"Sort\"\n")), "ENUM_NO_DELETE_WHILE_REFERENCED", "t.v1.Kind");
}

TEST(WireBreaksTest, RpcsKeepTheirTypesAndStreaming) {
  const std::string get = R"(method { name: "Get" input_type: ".t.v1.Request" output_type: ".t.v1.Response" })";
  expect_break(breaks(changed(get, "")), "RPC_NO_DELETE", "t.v1.Svc.Get");
  expect_break(
      breaks(changed(R"(name: "Get" input_type: ".t.v1.Request")", R"(name: "Get" input_type: ".t.v1.Coord")")),
      "RPC_SAME_REQUEST_TYPE", "t.v1.Svc.Get");
  expect_break(breaks(changed(R"(input_type: ".t.v1.Request" output_type: ".t.v1.Response" })",
                              R"(input_type: ".t.v1.Request" output_type: ".t.v1.Coord" })")),
               "RPC_SAME_RESPONSE_TYPE", "t.v1.Svc.Get");
  expect_break(breaks(changed("client_streaming: true", "")), "RPC_SAME_CLIENT_STREAMING", "t.v1.Svc.Talk");
  expect_break(breaks(changed(R"(output_type: ".t.v1.Coord" server_streaming: true)", R"(output_type: ".t.v1.Coord")")),
               "RPC_SAME_SERVER_STREAMING", "t.v1.Svc.Stream");
}

TEST(WireBreaksTest, ARemovedOrRenamedServiceBreaks) {
  expect_break(breaks(changed("name: \"Svc\"", "name: \"Service\"")), "SERVICE_NO_DELETE", "t.v1.Svc");
}

// The service is where every old call starts: its removal is the break reported, not each
// message it reached.
TEST(WireBreaksTest, AChangedPackageBreaksTheService) {
  std::string after = kBefore;
  for (size_t at; (at = after.find("t.v1")) != std::string::npos;) after.replace(at, 4, "t.v2");
  expect_break(breaks(after), "SERVICE_NO_DELETE", "t.v1.Svc");
}

TEST(WireBreaksTest, ABreakReadsAsOneLine) {
  const std::vector<WireBreak> found =
      breaks(changed(R"(field { name: "note" number: 6 label: LABEL_OPTIONAL type: TYPE_STRING })", ""));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].text(),
            "t/v1/a.proto: t.v1.Request.note: field 6 removed without reserving its number "
            "[FIELD_NO_DELETE_UNLESS_NUMBER_RESERVED]");
}

}  // namespace
}  // namespace chunkforge::contract
