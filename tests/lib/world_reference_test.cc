// The field reference in docs/world-definition.md is generated from world.proto's knobs, and the
// committed page must equal the generated text, so the docs cannot drift from what validation
// and apply_defaults do. After changing a knob, regenerate the section with
//   CHUNKFORGE_UPDATE_DOCS=1 build/tests/lib_tests --gtest_filter='WorldReferenceTest.*'
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "chunkforge/v1/world.pb.h"
#include "world_knobs.h"

namespace chunkforge {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;

const std::string kDocPath = std::string(CHUNKFORGE_SOURCE_DIR) + "/docs/world-definition.md";
const std::string kBegin =
    "<!-- knob-reference:begin (generated from world.proto; see tests/lib/world_reference_test.cc) -->\n";
const std::string kEnd = "<!-- knob-reference:end -->\n";

std::string code(const std::string& text) { return "`" + text + "`"; }

std::string enum_values(const FieldDescriptor& field) {
  std::string names;
  for (int i = 0; i < field.enum_type()->value_count(); ++i) {
    names += (i > 0 ? ", " : "") + code(field.enum_type()->value(i)->name());
  }
  return names;
}

// The range column: a rule in words, a Range's bounds, a number's interval or an enum's values.
std::string range_cell(const FieldDescriptor& field, const v1::Knob& knob) {
  if (!knob.rule().empty()) return knob.rule();
  if (field.enum_type()) return "one of " + enum_values(field);
  if (field.message_type() == v1::Range::descriptor()) return "bounds in " + interval_text(knob);
  if (knob.has_min() && knob.has_max()) return interval_text(knob);
  return "";
}

std::string default_cell(const FieldDescriptor& field, const v1::Knob& knob) {
  if (!knob.default_value().empty()) return code(knob.default_value());
  if (!knob.default_rule().empty()) return knob.default_rule();
  if (knob.required()) return "required";
  if (field.enum_type()) return code(field.enum_type()->value(0)->name());
  return "";
}

std::string notes_cell(const v1::Knob& knob) {
  std::string notes = knob.what();
  if (knob.has_only_for_method()) {
    notes += "only for method " + code(v1::ResourceLayer::Method_Name(knob.only_for_method()));
  }
  return notes;
}

// One table per message with knobs or enums, in world.proto's order.
std::string message_table(const Descriptor& type) {
  std::string rows;
  for (int i = 0; i < type.field_count(); ++i) {
    const FieldDescriptor& field = *type.field(i);
    if (!has_knob(field) && !field.enum_type()) continue;
    const v1::Knob& knob = knob_of(field);
    rows += "| " + code(field.name()) + " | " + range_cell(field, knob) + " | " + default_cell(field, knob) + " | " +
            notes_cell(knob) + " |\n";
  }
  if (rows.empty()) return "";
  return "### " + type.name() + "\n\n| field | range | default | notes |\n| --- | --- | --- | --- |\n" + rows + "\n";
}

std::string generated_reference() {
  std::string out =
      "## Field reference\n\n"
      "Every field's range and default, as validation checks and applies them (each field's `knob` option\n"
      "in world.proto). A range is closed unless written with a parenthesis; a plain number left at 0\n"
      "counts as absent where it has a default. Fields not listed are names, colours and lists, whose\n"
      "rules are in world.proto's comments and under \"Limits\".\n\n";
  const google::protobuf::FileDescriptor& file = *v1::WorldDefinition::descriptor()->file();
  for (int i = 0; i < file.message_type_count(); ++i) {
    if (file.message_type(i) != v1::Knob::descriptor()) out += message_table(*file.message_type(i));
  }
  return out;
}

std::string read_doc() {
  std::ifstream in(kDocPath);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(WorldReferenceTest, TheDocsReferenceIsTheGeneratedOne) {
  std::string doc = read_doc();
  const size_t begin = doc.find(kBegin);
  const size_t end = doc.find(kEnd);
  ASSERT_NE(begin, std::string::npos) << kDocPath << " lacks the marker " << kBegin;
  ASSERT_NE(end, std::string::npos) << kDocPath << " lacks the marker " << kEnd;
  ASSERT_LT(begin, end);
  const std::string committed = doc.substr(begin + kBegin.size(), end - begin - kBegin.size());
  const std::string generated = generated_reference();
  if (std::getenv("CHUNKFORGE_UPDATE_DOCS") != nullptr && committed != generated) {
    doc.replace(begin + kBegin.size(), committed.size(), generated);
    std::ofstream(kDocPath) << doc;
    GTEST_SKIP() << "rewrote " << kDocPath;
  }
  EXPECT_EQ(committed, generated) << "regenerate: CHUNKFORGE_UPDATE_DOCS=1 build/tests/lib_tests "
                                     "--gtest_filter='WorldReferenceTest.*'";
}

}  // namespace
}  // namespace chunkforge
