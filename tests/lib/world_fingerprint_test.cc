// The world fingerprint's canonical form (chunkforge/world_fingerprint.h, docs/determinism.md):
// form 1 is byte for byte what protobuf wrote when it was frozen, for shipped, test, limit and
// arbitrary worlds; a field added later at its declared default keeps every old fingerprint; the
// schema cannot gain an undeclared field; golden fingerprints of world files; the warning for an
// unpinned generator version.
#include "chunkforge/world_fingerprint.h"

#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <bit>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "chunkforge/encode.h"
#include "chunkforge/hash.h"
#include "chunkforge/world.h"
#include "world_at_limits.h"

namespace chunkforge {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::FieldDescriptorProto;
using google::protobuf::Message;

const std::string kSourceDir = CHUNKFORGE_SOURCE_DIR;

std::string errors_of(const std::vector<FieldError>& errors) {
  std::string out;
  for (const FieldError& e : errors) out += e.to_string() + "\n";
  return out;
}

// A world file of the repository, loaded and resolved; fails the test when it does not load.
World load_repo_world(const std::string& relative_path) {
  WorldResult r = load_world_file(kSourceDir + "/" + relative_path);
  EXPECT_TRUE(r.ok()) << relative_path << ":\n" << errors_of(r.errors);
  return r.ok() ? *r.world : default_world();
}

// ---------------------------------------------------------------------------------------------
// Golden fingerprints.

// These values may never change. A world's fingerprint is inside every one of its chunks'
// bytes, and stores of player edits are bound to it: a changed value here means every chunk of
// that world changed under the same generator version. If this fails, fix the code (the
// canonical form, the JSON loader, apply_defaults), never the table. Entries may be appended;
// only worlds that pin generator_version may be listed (an unpinned world follows the newest
// generator, so its fingerprint may change by design).
struct GoldenFingerprint {
  const char* file;
  const char* fingerprint;
};
constexpr GoldenFingerprint kGoldenFingerprints[] = {
    {"docs/worlds/default.json", "44ed0f2ae44a28d3"},          {"docs/worlds/default-v1.json", "9e7c8509b1c4cc46"},
    {"tests/lib/worlds/archipelago.json", "1159870e6e67f157"}, {"tests/lib/worlds/caverns.json", "a95c907048ad6c34"},
    {"tests/lib/worlds/flatland.json", "78f1c474a52e7170"},
};

bool print_mode() { return std::getenv("CHUNKFORGE_PRINT_GOLDEN") != nullptr; }

TEST(GoldenFingerprintTest, WorldFilesKeepTheirFingerprints) {
  for (const GoldenFingerprint& golden : kGoldenFingerprints) {
    const World world = load_repo_world(golden.file);
    if (print_mode()) std::printf("%s = %s\n", golden.file, world.fingerprint().c_str());
    EXPECT_EQ(world.fingerprint(), golden.fingerprint) << golden.file;
    EXPECT_TRUE(world.generator_pinned()) << golden.file << ": golden worlds pin their generator";
  }
}

// ---------------------------------------------------------------------------------------------
// Form 1 is protobuf's encoding of every field that exists today.

// Every valid world the repository has: shipped, golden, fuzz seeds, the world at the limits.
std::vector<v1::WorldDefinition> repository_worlds() {
  std::vector<v1::WorldDefinition> worlds{default_world().definition()};
  for (const GoldenFingerprint& golden : kGoldenFingerprints) {
    worlds.push_back(load_repo_world(golden.file).definition());
  }
  // The fuzzer's seed worlds (some of them deliberately invalid; those are skipped).
  const std::filesystem::path corpus = kSourceDir + "/tests/fuzz/corpus/world_json";
  if (std::filesystem::is_directory(corpus)) {
    for (const auto& entry : std::filesystem::directory_iterator(corpus)) {
      WorldResult r = load_world_file(entry.path().string());
      if (r.ok()) worlds.push_back(r.world->definition());
    }
  }
  WorldResult at_limits = World::create(test::world_at_limits());
  EXPECT_TRUE(at_limits.ok()) << errors_of(at_limits.errors);
  if (at_limits.ok()) worlds.push_back(at_limits.world->definition());
  return worlds;
}

// The encoding that fingerprints hashed before form 1 was written down.
std::string protobuf_bytes(const Message& m) {
  const std::string deterministic = canonical_bytes(m);
  EXPECT_EQ(deterministic, m.SerializeAsString());  // no maps: the two orders agree
  return deterministic;
}

TEST(FingerprintFormTest, FormOneIsProtobufsEncodingOfEveryRepositoryWorld) {
  const std::vector<v1::WorldDefinition> worlds = repository_worlds();
  EXPECT_GE(worlds.size(), std::size(kGoldenFingerprints) + 2);
  for (const v1::WorldDefinition& d : worlds) {
    EXPECT_EQ(fingerprint_form1_bytes(d), protobuf_bytes(d)) << d.name();
    // And so the fingerprint is the one computed before: the hash of protobuf's bytes.
    WorldResult r = World::create(d);
    ASSERT_TRUE(r.ok()) << errors_of(r.errors);
    EXPECT_EQ(r.world->fingerprint(), fingerprint_of(protobuf_bytes(d))) << d.name();
  }
}

// The fields a message and its nested messages write, by full name.
void collect_written_fields(const Message& m, std::set<std::string>& written) {
  std::vector<const FieldDescriptor*> fields;
  m.GetReflection()->ListFields(m, &fields);  // set, non-zero or non-empty fields
  for (const FieldDescriptor* f : fields) {
    written.insert(f->full_name());
    if (f->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) continue;
    if (!f->is_repeated()) collect_written_fields(m.GetReflection()->GetMessage(m, f), written);
    for (int i = 0; f->is_repeated() && i < m.GetReflection()->FieldSize(m, f); ++i) {
      collect_written_fields(m.GetReflection()->GetRepeatedMessage(m, f, i), written);
    }
  }
}

// Every message type reachable from `root` (itself included).
void collect_message_types(const Descriptor* root, std::set<const Descriptor*>& types) {
  if (!types.insert(root).second) return;
  for (int i = 0; i < root->field_count(); ++i) {
    if (root->field(i)->message_type()) collect_message_types(root->field(i)->message_type(), types);
  }
}

TEST(FingerprintFormTest, TheGoldenWorldsSetEveryFieldOfTheSchema) {
  // So the test above has compared, for every field, real values and not only absences, and
  // the golden fingerprints pin every field's encoding.
  std::set<std::string> written;
  for (const GoldenFingerprint& golden : kGoldenFingerprints) {
    collect_written_fields(load_repo_world(golden.file).definition(), written);
  }
  std::set<const Descriptor*> types;
  collect_message_types(v1::WorldDefinition::descriptor(), types);
  for (const Descriptor* type : types) {
    for (int i = 0; i < type->field_count(); ++i) {
      EXPECT_TRUE(written.count(type->field(i)->full_name())) << type->field(i)->full_name();
    }
  }
}

// Hand-picked corners: present optionals at zero, empty but present messages, -0.0 in a plain
// and in an optional field, negative numbers, the largest seed, multi-byte lengths.
TEST(FingerprintFormTest, FormOneIsProtobufsEncodingOfCorners) {
  v1::WorldDefinition d = default_world().definition();
  d.set_seed(std::numeric_limits<uint64_t>::max());
  d.set_name(std::string(300, 'n'));
  d.mutable_terrain()->set_sea_level(-0.0);
  d.mutable_terrain()->mutable_elevation()->set_offset(-1e6);
  d.mutable_terrain()->mutable_elevation()->set_amplitude(0.0);
  d.mutable_terrain()->mutable_temperature()->set_gain(-0.0);
  d.mutable_terrain()->clear_caves();
  d.mutable_biomes(0)->mutable_elevation()->Clear();  // present, empty
  d.mutable_structures(0)->clear_yaw_degrees();
  d.mutable_structures(1)->add_surface_falloff();  // an entry with both coordinates at zero
  d.mutable_resources(0)->set_method(v1::ResourceLayer::uniform);
  EXPECT_EQ(fingerprint_form1_bytes(d), protobuf_bytes(d));
  EXPECT_EQ(fingerprint_form1_bytes(v1::WorldDefinition()), "");
}

// Deterministic choices for filling messages with arbitrary values.
class Choices {
 public:
  explicit Choices(uint64_t seed) : seed_(seed) {}
  uint64_t next() { return hash(seed_, salt("test.fingerprint.fill"), counter_++); }
  int below(int n) { return static_cast<int>(next() % static_cast<uint64_t>(n)); }

  // Zero, the extremes, -1 and arbitrary bits, as 64 bits the setters narrow.
  uint64_t integer() {
    const uint64_t corners[] = {0, 1, ~uint64_t{0}, uint64_t{1} << 63, 127, 128, 0x7fffffff, next()};
    return corners[below(8)];
  }
  double real() {
    constexpr double kInfinity = std::numeric_limits<double>::infinity();
    constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
    const double corners[] = {0.0, -0.0, 1.0, -2.5, 1e300, -kInfinity, kNaN, std::bit_cast<double>(next())};
    return corners[below(8)];
  }
  std::string text() {
    const std::string corners[] = {"", "a", std::string("\xc3\xbc\0x", 4), std::string(200, 'z')};
    return corners[below(4)];
  }

 private:
  uint64_t seed_;
  uint64_t counter_ = 0;
};

void fill(Message& m, Choices& choices, int depth);
bool in_form_one(const FieldDescriptor* f);

// One value into a singular field or onto a list. Enums also get values outside their
// declaration (proto3 enums are open), negative ones included.
void set_value(Message& m, const FieldDescriptor* f, Choices& c, int depth) {
  const auto& r = *m.GetReflection();
  const bool list = f->is_repeated();
  const uint64_t n = c.integer();
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_DOUBLE: {
      const double v = c.real();
      return list ? r.AddDouble(&m, f, v) : r.SetDouble(&m, f, v);
    }
    case FieldDescriptor::CPPTYPE_UINT32:
      return list ? r.AddUInt32(&m, f, static_cast<uint32_t>(n)) : r.SetUInt32(&m, f, static_cast<uint32_t>(n));
    case FieldDescriptor::CPPTYPE_UINT64:
      return list ? r.AddUInt64(&m, f, n) : r.SetUInt64(&m, f, n);
    case FieldDescriptor::CPPTYPE_BOOL:
      return list ? r.AddBool(&m, f, n & 1) : r.SetBool(&m, f, n & 1);
    case FieldDescriptor::CPPTYPE_ENUM: {
      const int v = c.below(2) ? c.below(f->enum_type()->value_count()) : static_cast<int>(n);
      return list ? r.AddEnumValue(&m, f, v) : r.SetEnumValue(&m, f, v);
    }
    case FieldDescriptor::CPPTYPE_STRING:
      return list ? r.AddString(&m, f, c.text()) : r.SetString(&m, f, c.text());
    case FieldDescriptor::CPPTYPE_MESSAGE:
      return fill(list ? *r.AddMessage(&m, f) : *r.MutableMessage(&m, f), c, depth + 1);
    default:
      FAIL() << f->full_name() << ": world.proto has no such type; extend the filler";
  }
}

// Every field of form 1, at random: fields with presence set or not, lists of 0 to 3 entries.
// A field added later is not protobuf's encoding at its declared default (form 1 leaves it out
// there); the later release's schema below tests those.
void fill(Message& m, Choices& c, int depth) {
  if (depth > 4) return;
  for (int i = 0; i < m.GetDescriptor()->field_count(); ++i) {
    const FieldDescriptor* f = m.GetDescriptor()->field(i);
    if (!in_form_one(f)) continue;
    const int count = f->is_repeated() ? c.below(4) : (f->has_presence() ? c.below(2) : 1);
    for (int k = 0; k < count; ++k) set_value(m, f, c, depth);
  }
}

TEST(FingerprintFormTest, FormOneIsProtobufsEncodingOfArbitraryDefinitions) {
  // Not valid worlds: the form is defined for any value of every field, not only valid ones.
  for (uint64_t seed = 0; seed < 500; ++seed) {
    Choices choices(seed);
    v1::WorldDefinition d;
    fill(d, choices, 0);
    ASSERT_EQ(fingerprint_form1_bytes(d), protobuf_bytes(d)) << "seed " << seed << ":\n" << d.DebugString();
  }
}

TEST(FingerprintFormTest, EveryGeneratorVersionSoFarUsesFormOne) {
  for (uint32_t v = kOldestGeneratorVersion; v <= kGeneratorVersion; ++v) {
    EXPECT_EQ(fingerprint_form(v), kFingerprintForm1) << v;
  }
  EXPECT_EQ(world_fingerprint(default_world().definition()), "44ed0f2ae44a28d3");
}

// ---------------------------------------------------------------------------------------------
// The schema: every field added after form 1 declares its default.

// The last field number of each message when form 1 was frozen. Field numbers are never
// reused, so any field numbered higher, or in a message not listed, came later. Never edit.
const std::map<std::string, int> kFormOneLastFieldNumber = {
    {"chunkforge.v1.Range", 2},           {"chunkforge.v1.NoiseField", 7},     {"chunkforge.v1.Terrain", 5},
    {"chunkforge.v1.Caves", 3},           {"chunkforge.v1.Biome", 5},          {"chunkforge.v1.Material", 9},
    {"chunkforge.v1.Correlation", 2},     {"chunkforge.v1.ResourceLayer", 18}, {"chunkforge.v1.Offset", 3},
    {"chunkforge.v1.Check", 6},           {"chunkforge.v1.CurvePoint", 2},     {"chunkforge.v1.Structure", 13},
    {"chunkforge.v1.WorldDefinition", 9},
};

bool in_form_one(const FieldDescriptor* f) {
  const auto last = kFormOneLastFieldNumber.find(f->containing_type()->full_name());
  return last != kFormOneLastFieldNumber.end() && f->number() <= last->second;
}

// What is wrong with one field's declaration, or "".
std::string declaration_problem(const FieldDescriptor* f, google::protobuf::MessageFactory& factory) {
  const bool declared = f->options().HasExtension(v1::fingerprint_default);
  if (f->is_map()) return "a map (its order is not defined): use a list of messages";
  if (in_form_one(f)) return declared ? "a form-1 field may not gain a declared default" : "";
  if (!declared) return "added after form 1 without [(chunkforge.v1.fingerprint_default) = ...]";
  std::unique_ptr<Message> holder(factory.GetPrototype(f->containing_type())->New());
  const std::string text = f->name() + ": " + f->options().GetExtension(v1::fingerprint_default);
  if (!google::protobuf::TextFormat::ParseFromString(text, holder.get())) return "default does not parse: " + text;
  std::vector<const FieldDescriptor*> set;
  holder->GetReflection()->ListFields(*holder, &set);
  if (set.size() > 1) return "default sets more than the field: " + text;
  return "";
}

// "full name: problem" for each field of the schema under `root` that breaks the rules.
std::vector<std::string> declaration_problems(const Descriptor* root, google::protobuf::MessageFactory& factory) {
  std::set<const Descriptor*> types;
  collect_message_types(root, types);
  std::vector<std::string> problems;
  for (const Descriptor* type : types) {
    for (int i = 0; i < type->field_count(); ++i) {
      const std::string problem = declaration_problem(type->field(i), factory);
      if (!problem.empty()) problems.push_back(type->field(i)->full_name() + ": " + problem);
    }
  }
  return problems;
}

TEST(FingerprintSchemaTest, WorldProtoFollowsTheRules) {
  const auto problems =
      declaration_problems(v1::WorldDefinition::descriptor(), *google::protobuf::MessageFactory::generated_factory());
  EXPECT_TRUE(problems.empty()) << "see docs/determinism.md, \"The world fingerprint\":\n"
                                << ::testing::PrintToString(problems);
}

// ---------------------------------------------------------------------------------------------
// A later release's schema: world.proto rebuilt at run time with fields that a release might
// add, each declaring its default as world.proto would.

FieldDescriptorProto& add_field(google::protobuf::FileDescriptorProto& file, const std::string& message,
                                const std::string& name, int number, FieldDescriptorProto::Type type,
                                const std::string& declared_default) {
  google::protobuf::DescriptorProto* target = nullptr;
  for (auto& m : *file.mutable_message_type()) {
    if (m.name() == message) target = &m;
  }
  if (!target) {
    target = file.add_message_type();
    target->set_name(message);
  }
  FieldDescriptorProto& f = *target->add_field();
  f.set_name(name);
  f.set_number(number);
  f.set_type(type);
  f.set_label(FieldDescriptorProto::LABEL_OPTIONAL);
  if (!declared_default.empty()) f.mutable_options()->SetExtension(v1::fingerprint_default, declared_default);
  return f;
}

// Makes `f` a proto3 `optional` field (explicit presence): a synthetic oneof of its own.
void make_explicit_presence(google::protobuf::FileDescriptorProto& file, const std::string& message,
                            FieldDescriptorProto& f) {
  for (auto& m : *file.mutable_message_type()) {
    if (m.name() != message) continue;
    f.set_proto3_optional(true);
    f.set_oneof_index(m.oneof_decl_size());
    m.add_oneof_decl()->set_name("_" + f.name());
  }
}

// The new fields: every kind of field, with and without presence, defaults at zero and not.
void add_later_fields(google::protobuf::FileDescriptorProto& file) {
  using T = FieldDescriptorProto;
  make_explicit_presence(file, "WorldDefinition",
                         add_field(file, "WorldDefinition", "weather_scale", 100, T::TYPE_DOUBLE, "0.7"));
  // With presence, so that perlin (0) can differ from the default; without it, 0 would read as
  // absent, which means the default (as `octaves` 0 means 4).
  FieldDescriptorProto& climate = add_field(file, "WorldDefinition", "climate", 101, T::TYPE_ENUM, "simplex");
  climate.set_type_name(".chunkforge.v1.NoiseField.Kind");
  make_explicit_presence(file, "WorldDefinition", climate);
  add_field(file, "WorldDefinition", "ocean", 102, T::TYPE_MESSAGE, "{ min: 0 }").set_type_name(".chunkforge.v1.Range");
  add_field(file, "WorldDefinition", "weather", 103, T::TYPE_MESSAGE, "{}").set_type_name(".chunkforge.v1.Weather");
  add_field(file, "Weather", "wind", 1, T::TYPE_DOUBLE, "0");
  add_field(file, "Weather", "tags", 2, T::TYPE_STRING, "[]").set_label(T::LABEL_REPEATED);
  add_field(file, "NoiseField", "warp", 100, T::TYPE_UINT32, "2");
  add_field(file, "Biome", "music", 100, T::TYPE_STRING, "\"calm\"");
  add_field(file, "ResourceLayer", "glow", 100, T::TYPE_BOOL, "false");
  add_field(file, "Structure", "floors", 100, T::TYPE_UINT32, "[1, 2]").set_label(T::LABEL_REPEATED);
}

class LaterSchema {
 public:
  // `declare`: false leaves one new field (Structure.floors) without its declared default.
  explicit LaterSchema(bool declare = true) {
    google::protobuf::FileDescriptorProto descriptor_file, world_file;
    google::protobuf::FieldOptions::descriptor()->file()->CopyTo(&descriptor_file);
    v1::WorldDefinition::descriptor()->file()->CopyTo(&world_file);
    add_later_fields(world_file);
    if (!declare) strip_floors_declaration(world_file);
    EXPECT_NE(pool_.BuildFile(descriptor_file), nullptr);
    EXPECT_NE(pool_.BuildFile(world_file), nullptr);
    root_ = pool_.FindMessageTypeByName("chunkforge.v1.WorldDefinition");
  }
  const Descriptor* root() const { return root_; }
  google::protobuf::MessageFactory& factory() { return factory_; }

  // An old world as the later release reads it.
  std::unique_ptr<Message> read(const v1::WorldDefinition& old) {
    std::unique_ptr<Message> m(factory_.GetPrototype(root_)->New());
    EXPECT_TRUE(m->ParseFromString(old.SerializeAsString()));
    return m;
  }

 private:
  static void strip_floors_declaration(google::protobuf::FileDescriptorProto& file) {
    for (auto& m : *file.mutable_message_type()) {
      for (auto& f : *m.mutable_field()) {
        if (f.name() == "floors") f.clear_options();
      }
    }
  }
  google::protobuf::DescriptorPool pool_;
  google::protobuf::DynamicMessageFactory factory_{&pool_};
  const Descriptor* root_ = nullptr;
};

// Merges protobuf text into `m` (a singular field is overwritten, a list appended to).
void merge(Message& m, const std::string& text) {
  EXPECT_TRUE(google::protobuf::TextFormat::MergeFromString(text, &m)) << text;
}

// Merges `text` into every message of type `type` in the tree under `m` (m included).
void merge_into_each(Message& m, const std::string& type, const std::string& text) {
  if (m.GetDescriptor()->name() == type) merge(m, text);
  const auto& r = *m.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  r.ListFields(m, &fields);
  for (const FieldDescriptor* f : fields) {
    if (f->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) continue;
    if (!f->is_repeated()) merge_into_each(*r.MutableMessage(&m, f), type, text);
    for (int i = 0; f->is_repeated() && i < r.FieldSize(m, f); ++i) {
      merge_into_each(*r.MutableRepeatedMessage(&m, f, i), type, text);
    }
  }
}

// What the later release's apply_defaults would do: every new field at its declared default
// (the values written out here, not read from the declarations).
void resolve_later_fields(Message& world) {
  merge(world, "weather_scale: 0.7 climate: simplex ocean { min: 0 } weather { wind: 0 }");
  merge_into_each(world, "NoiseField", "warp: 2");
  merge_into_each(world, "Biome", "music: \"calm\"");
  merge_into_each(world, "ResourceLayer", "glow: false");
  merge_into_each(world, "Structure", "floors: [1, 2]");
}

TEST(FingerprintLaterFieldTest, AnOldWorldKeepsItsFingerprintUnderALaterSchema) {
  LaterSchema later;
  for (const v1::WorldDefinition& old : repository_worlds()) {
    const std::string old_form = fingerprint_form1_bytes(old);
    std::unique_ptr<Message> read = later.read(old);
    EXPECT_EQ(fingerprint_form1_bytes(*read), old_form) << old.name() << ": read as it is";
    resolve_later_fields(*read);
    EXPECT_EQ(fingerprint_form1_bytes(*read), old_form) << old.name() << ": new fields at their defaults";
    EXPECT_NE(read->SerializeAsString(), old.SerializeAsString()) << "protobuf's bytes would have changed";
  }
}

// One new field moved off its declared default: text merged into the world, or into one entry
// of one of its lists.
struct OffDefault {
  const char* what;
  const char* list;  // nullptr: the world itself
  int index;
  const char* text;
};
constexpr OffDefault kOffDefault[] = {
    {"weather_scale", nullptr, 0, "weather_scale: 0.75"},
    {"weather_scale present at 0", nullptr, 0, "weather_scale: 0"},
    {"climate present at 0", nullptr, 0, "climate: perlin"},
    {"ocean", nullptr, 0, "ocean { max: 5 }"},
    {"weather.wind", nullptr, 0, "weather { wind: 3 }"},
    {"weather.tags", nullptr, 0, "weather { tags: \"storm\" }"},
    {"one NoiseField.warp", nullptr, 0, "terrain { moisture { warp: 3 } }"},
    {"one Biome.music", "biomes", 2, "music: \"storm\""},
    {"one ResourceLayer.glow", "resources", 1, "glow: true"},
    {"one Structure.floors", "structures", 0, "floors: 3"},
};

TEST(FingerprintLaterFieldTest, ANewFieldOffItsDefaultChangesTheFingerprint) {
  LaterSchema later;
  const std::string old_fingerprint = default_world().fingerprint();
  for (const OffDefault& change : kOffDefault) {
    std::unique_ptr<Message> world = later.read(default_world().definition());
    resolve_later_fields(*world);
    Message* target = world.get();
    if (change.list) {
      const FieldDescriptor* list = world->GetDescriptor()->FindFieldByName(change.list);
      target = world->GetReflection()->MutableRepeatedMessage(world.get(), list, change.index);
    }
    merge(*target, change.text);
    EXPECT_NE(fingerprint_of(fingerprint_form1_bytes(*world)), old_fingerprint) << change.what;
  }
}

TEST(FingerprintLaterFieldTest, TheSchemaCheckCatchesAnUndeclaredField) {
  LaterSchema declared(true);
  EXPECT_TRUE(declaration_problems(declared.root(), declared.factory()).empty())
      << ::testing::PrintToString(declaration_problems(declared.root(), declared.factory()));
  LaterSchema undeclared(false);
  const auto problems = declaration_problems(undeclared.root(), undeclared.factory());
  ASSERT_EQ(problems.size(), 1u) << ::testing::PrintToString(problems);
  EXPECT_EQ(problems[0].rfind("chunkforge.v1.Structure.floors: added after form 1", 0), 0u) << problems[0];
}

// ---------------------------------------------------------------------------------------------
// Generator version pinning.

constexpr const char* kUnpinnedWorld = R"({
  "terrain": {"elevation": {"frequency": 0.01}, "temperature": {"frequency": 0.01},
              "moisture": {"frequency": 0.01}},
  "biomes": [{"name": "all", "color": "#000000"}],
  "materials": [{"name": "rock", "color": "#ffffff"}]
})";

TEST(GeneratorPinTest, AnUnpinnedWorldIsValidButWarned) {
  WorldResult r = load_world_json(kUnpinnedWorld);
  ASSERT_TRUE(r.ok()) << errors_of(r.errors);
  EXPECT_FALSE(r.world->generator_pinned());
  EXPECT_EQ(r.world->generator_version(), kGeneratorVersion);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0].path, "generator_version");
  EXPECT_NE(r.warnings[0].message.find("not pinned"), std::string::npos) << r.warnings[0].message;
}

TEST(GeneratorPinTest, PinningTheCurrentVersionKeepsTheFingerprint) {
  std::string pinned = kUnpinnedWorld;
  pinned.insert(1, "\"generator_version\": " + std::to_string(kGeneratorVersion) + ",");
  WorldResult unpinned_result = load_world_json(kUnpinnedWorld), pinned_result = load_world_json(pinned);
  ASSERT_TRUE(pinned_result.ok()) << errors_of(pinned_result.errors);
  EXPECT_TRUE(pinned_result.world->generator_pinned());
  EXPECT_TRUE(pinned_result.warnings.empty()) << errors_of(pinned_result.warnings);
  EXPECT_EQ(pinned_result.world->fingerprint(), unpinned_result.world->fingerprint());
}

TEST(GeneratorPinTest, TheShippedWorldPinsItsGenerator) {
  std::vector<FieldError> errors;
  const auto shipped = read_world_file(kSourceDir + "/docs/worlds/default.json", errors);
  ASSERT_TRUE(shipped) << errors_of(errors);
  EXPECT_EQ(shipped->generator_version(), 2u) << "the file itself names its version";
  const auto old = read_world_file(kSourceDir + "/docs/worlds/default-v1.json", errors);
  ASSERT_TRUE(old) << errors_of(errors);
  EXPECT_EQ(old->generator_version(), 1u) << "the built-in world of generator version 1";
  EXPECT_TRUE(default_world().generator_pinned());
}

}  // namespace
}  // namespace chunkforge
