// File: tests/hostile/adversary/derive.cc
//
// The derivation of derive.h: probes against the running server, in order (base, repeated
// elements, maxima, bogus).
#include "derive.h"

#include <algorithm>
#include <bit>
#include <functional>
#include <map>
#include <optional>

namespace chunkforge::hostile::adversary {
namespace {

using CppType = FieldDescriptor::CppType;

// Largest string length and repeated count tried: past any request bound a server could have
// (the request alone is then larger than 256 KiB).
constexpr uint64_t kMostElements = uint64_t{1} << 18;
// The published values read: enough for a world's catalogue.
constexpr size_t kMostPublished = 4096;

bool is_message(const FieldDescriptor* f) { return f->cpp_type() == CppType::CPPTYPE_MESSAGE; }

void publish(const Message& answer, int depth, std::vector<PublishedValue>& out) {
  const google::protobuf::Reflection* r = answer.GetReflection();
  std::vector<const FieldDescriptor*> set;
  r->ListFields(answer, &set);
  for (const FieldDescriptor* f : set) {
    if (out.size() >= kMostPublished) return;
    const int n = f->is_repeated() ? r->FieldSize(answer, f) : 1;
    for (int i = 0; i < n; ++i) {
      if (is_message(f)) {
        if (depth < 3)
          publish(f->is_repeated() ? r->GetRepeatedMessage(answer, f, i) : r->GetMessage(answer, f), depth + 1, out);
        continue;
      }
      PublishedValue v;
      v.name = f->name();
      v.type = f->cpp_type();
      if (f->cpp_type() == CppType::CPPTYPE_STRING) {
        v.text = f->is_repeated() ? r->GetRepeatedString(answer, f, i) : r->GetString(answer, f);
      } else {
        if (f->is_repeated()) continue;  // lists of numbers are not values to give back
        if (f->cpp_type() == CppType::CPPTYPE_UINT32) v.raw = r->GetUInt32(answer, f);
        if (f->cpp_type() == CppType::CPPTYPE_UINT64) v.raw = r->GetUInt64(answer, f);
        if (f->cpp_type() == CppType::CPPTYPE_INT32) v.raw = static_cast<uint64_t>(int64_t{r->GetInt32(answer, f)});
        if (f->cpp_type() == CppType::CPPTYPE_INT64) v.raw = static_cast<uint64_t>(r->GetInt64(answer, f));
        if (f->cpp_type() == CppType::CPPTYPE_DOUBLE) v.raw = std::bit_cast<uint64_t>(r->GetDouble(answer, f));
        if (f->cpp_type() == CppType::CPPTYPE_BOOL) v.raw = r->GetBool(answer, f) ? 1 : 0;
      }
      out.push_back(std::move(v));
    }
  }
}

// An input field takes a published value of the same name, or of its singular when repeated.
bool names_match(const FieldDescriptor* field, const PublishedValue& value) {
  if (field->cpp_type() != value.type) return false;
  return field->name() == value.name || (field->is_repeated() && field->name() == value.name + "s");
}

int rank(Verdict v) { return static_cast<int>(v); }

class Deriver {
 public:
  Deriver(const Method& method, Prober& prober) : method_(method), prober_(prober), paths_(fields_of(method.input)) {}

  std::unique_ptr<Message> base(const std::vector<PublishedValue>& published);
  void find_elements();
  std::vector<Maximum> maxima();
  std::vector<std::unique_ptr<Message>> bogus(const std::vector<Maximum>& maxima);

 private:
  bool accepted(const Message& request) { return prober_.probe(method_, request) != Verdict::refused; }
  bool keep_if_no_worse(const std::function<void(Message&)>& change, bool strictly = false);
  // The base with element 0 of every repeated message on `path` (but its last field) as found.
  std::unique_ptr<Message> prepared(const FieldPath& path) const;
  std::unique_ptr<Message> with(const FieldPath& path, Knob knob, uint64_t x, bool junk = false) const;
  bool knob_accepted(const FieldPath& path, Knob knob, uint64_t x) { return accepted(*with(path, knob, x)); }
  std::optional<Maximum> maximum(const FieldPath& path, Knob knob);
  void set_bools(Message& request) const;

  const Method& method_;
  Prober& prober_;
  std::vector<FieldPath> paths_;
  std::unique_ptr<Message> base_;
  Verdict base_verdict_ = Verdict::refused;
  std::map<std::string, std::unique_ptr<Message>> elements_;  // by path_name of the repeated field
};

bool Deriver::keep_if_no_worse(const std::function<void(Message&)>& change, bool strictly) {
  std::unique_ptr<Message> candidate = clone(*base_);
  change(*candidate);
  const Verdict v = prober_.probe(method_, *candidate);
  if (rank(v) < rank(base_verdict_) || (strictly && rank(v) == rank(base_verdict_))) return false;
  base_ = std::move(candidate);
  base_verdict_ = v;
  return true;
}

std::unique_ptr<Message> Deriver::base(const std::vector<PublishedValue>& published) {
  base_ = new_message(method_.input);
  base_verdict_ = prober_.probe(method_, *base_);
  for (const FieldPath& path : paths_) {  // published values into fields of their name
    for (const PublishedValue& v : published) {
      if (is_message(path.back()) || !names_match(path.back(), v)) continue;
      keep_if_no_worse([&](Message& r) {
        if (v.type == CppType::CPPTYPE_STRING) return set_text(r, path, v.text);
        set_raw(r, path, v.raw);
      });
      break;
    }
  }
  for (const FieldPath& path : paths_) {  // every singular message present
    if (!is_message(path.back()) || path.back()->is_repeated()) continue;
    if (std::any_of(path.begin(), path.end() - 1, [](const FieldDescriptor* f) { return f->is_repeated(); })) continue;
    keep_if_no_worse([&](Message& r) {
      Message* parent = parent_of(r, path);
      parent->GetReflection()->MutableMessage(parent, path.back());
    });
  }
  for (const FieldPath& path : paths_) {  // a string refused empty: the first published one accepted
    if (base_verdict_ != Verdict::refused) break;
    if (path.back()->cpp_type() != CppType::CPPTYPE_STRING || path.back()->is_repeated()) continue;
    for (const PublishedValue& v : published) {
      if (v.type != CppType::CPPTYPE_STRING || v.text.empty()) continue;
      if (keep_if_no_worse([&](Message& r) { set_text(r, path, v.text); }, true)) break;
    }
  }
  return clone(*base_);
}

void Deriver::find_elements() {
  for (const FieldPath& path : paths_) {
    if (!is_message(path.back()) || !path.back()->is_repeated()) continue;
    const Descriptor* type = path.back()->message_type();
    std::vector<std::unique_ptr<Message>> candidates;
    candidates.push_back(new_message(type));
    for (int i = 0; i < type->field_count(); ++i) {
      std::unique_ptr<Message> e = new_message(type);
      const FieldDescriptor* f = type->field(i);
      if (is_message(f)) {
        if (!f->is_repeated()) e->GetReflection()->MutableMessage(e.get(), f);
      } else if (f->cpp_type() == CppType::CPPTYPE_STRING) {
        set_length(*e, {f}, 1);
      } else {
        set_raw(*e, {f}, 1);
      }
      candidates.push_back(std::move(e));
    }
    for (std::unique_ptr<Message>& e : candidates) {
      std::unique_ptr<Message> request = prepared(path);
      Message* parent = parent_of(*request, path);
      parent->GetReflection()->AddMessage(parent, path.back())->CopyFrom(*e);
      if (accepted(*request)) {
        elements_[path_name(path)] = std::move(e);
        break;
      }
    }
  }
}

std::unique_ptr<Message> Deriver::prepared(const FieldPath& path) const {
  std::unique_ptr<Message> request = clone(*base_);
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    if (!path[i]->is_repeated()) continue;
    const FieldPath prefix(path.begin(), path.begin() + static_cast<std::ptrdiff_t>(i) + 1);
    Message* parent = parent_of(*request, prefix);
    const google::protobuf::Reflection* r = parent->GetReflection();
    if (r->FieldSize(*parent, path[i]) > 0) continue;
    Message* element = r->AddMessage(parent, path[i]);
    if (auto it = elements_.find(path_name(prefix)); it != elements_.end()) element->CopyFrom(*it->second);
  }
  return request;
}

std::unique_ptr<Message> Deriver::with(const FieldPath& path, Knob knob, uint64_t x, bool junk) const {
  std::unique_ptr<Message> request = prepared(path);
  if (knob == Knob::count) {
    if (is_message(path.back())) {  // copies of the element found (set_count copies element 0)
      Message* parent = parent_of(*request, path);
      const google::protobuf::Reflection* r = parent->GetReflection();
      if (x > 0 && r->FieldSize(*parent, path.back()) == 0) {
        Message* element = r->AddMessage(parent, path.back());
        if (auto it = elements_.find(path_name(path)); it != elements_.end()) element->CopyFrom(*it->second);
      }
    }
    set_count(*request, path, x, junk);
  } else if (knob == Knob::length) {
    set_length(*request, path, x, junk);
  } else {
    set_raw(*request, path, x);
  }
  return request;
}

std::optional<Maximum> Deriver::maximum(const FieldPath& path, Knob knob) {
  if (knob == Knob::count && is_message(path.back()) && elements_.count(path_name(path)) == 0) return std::nullopt;
  const bool value = knob == Knob::value;
  const uint64_t hi = value ? highest_raw(path.back()) : kMostElements;
  uint64_t lo = 0;
  if (!knob_accepted(path, knob, lo)) {
    if (!value || !knob_accepted(path, knob, 1)) return std::nullopt;  // no value found the server takes
    lo = 1;
  }
  Maximum m;
  m.path = path;
  m.knob = knob;
  if (knob_accepted(path, knob, hi)) {
    m.found = hi;
    m.any = true;
  } else {
    uint64_t bad = hi;
    while (bad - lo > 1) {
      const uint64_t mid = lo + (bad - lo) / 2;
      (knob_accepted(path, knob, mid) ? lo : bad) = mid;
    }
    m.found = lo;
    if (!value || integer_like(path.back())) {
      for (int bit = static_cast<int>(std::bit_width(lo)); bit < 64 && (uint64_t{1} << bit) < hi; ++bit) {
        if (knob_accepted(path, knob, uint64_t{1} << bit)) m.found = uint64_t{1} << bit;
      }
    }
  }
  m.request = with(path, knob, m.found);
  return m;
}

std::vector<Maximum> Deriver::maxima() {
  std::vector<Maximum> found;
  for (const FieldPath& path : paths_) {
    for (Knob knob : knobs_of(path.back())) {
      if (std::optional<Maximum> m = maximum(path, knob)) found.push_back(std::move(*m));
    }
  }
  return found;
}

void Deriver::set_bools(Message& request) const {
  for (const FieldPath& path : paths_) {
    if (path.back()->cpp_type() == CppType::CPPTYPE_BOOL && !path.back()->is_repeated()) set_raw(request, path, 1);
  }
}

std::vector<std::unique_ptr<Message>> Deriver::bogus(const std::vector<Maximum>& maxima) {
  std::vector<std::unique_ptr<Message>> out;
  for (const Maximum& m : maxima) {  // each long string, each long list of scalars, as junk
    const bool text = m.knob == Knob::length;
    const bool list = m.knob == Knob::count && !is_message(m.path.back());
    if (!text && !list) continue;
    // Room for the bools: the largest length or count may fill the request bound exactly.
    const uint64_t size = m.found > 64 ? m.found - 16 : m.found;
    std::unique_ptr<Message> request = with(m.path, m.knob, size, true);
    set_bools(*request);
    out.push_back(std::move(request));
  }
  for (const bool highest : {true, false}) {  // every number at an extreme of its type
    std::unique_ptr<Message> request = clone(*base_);
    set_bools(*request);
    for (const FieldPath& path : paths_) {
      const FieldDescriptor* f = path.back();
      if (is_message(f) || f->is_repeated() || f->cpp_type() == CppType::CPPTYPE_STRING ||
          f->cpp_type() == CppType::CPPTYPE_BOOL) {
        continue;
      }
      if (std::any_of(path.begin(), path.end() - 1, [](const FieldDescriptor* p) { return p->is_repeated(); }))
        continue;
      set_raw(*request, path, highest ? highest_raw(f) : lowest_raw(f));
    }
    out.push_back(std::move(request));
  }
  return out;
}

}  // namespace

std::string Maximum::describe() const {
  const char* what = knob == Knob::count ? "count" : knob == Knob::length ? "length" : "value";
  const std::string shown = knob == Knob::value ? show_raw(path.back(), found) : std::to_string(found);
  return path_name(path) + " " + what + " " + (any ? "any (" + shown + ")" : shown);
}

uint64_t MethodInputs::highest(const FieldPath& path) const {
  for (const Maximum& m : maxima) {
    if (m.path == path && m.knob == Knob::value) return m.found;
  }
  return 0;
}

std::vector<PublishedValue> published_values(const std::vector<Method>& methods, Prober& prober) {
  std::vector<PublishedValue> out;
  for (const Method& method : methods) {
    bool flags_only = !method.streaming();
    for (int i = 0; i < method.input->field_count(); ++i) {
      const FieldDescriptor* f = method.input->field(i);
      flags_only = flags_only && f->cpp_type() == CppType::CPPTYPE_BOOL && !f->is_repeated();
    }
    if (!flags_only) continue;
    grpc::ByteBuffer bytes;
    if (!prober.unary(method, *new_message(method.input), &bytes)) continue;
    std::unique_ptr<Message> answer = new_message(method.output);
    std::vector<grpc::Slice> slices;
    bytes.Dump(&slices);
    std::string text;
    for (const grpc::Slice& s : slices) text.append(reinterpret_cast<const char*>(s.begin()), s.size());
    if (answer->ParseFromString(text)) publish(*answer, 0, out);
  }
  return out;
}

MethodInputs derive_inputs(const Method& method, Prober& prober, const std::vector<PublishedValue>& published) {
  const int before = prober.calls();
  Deriver d(method, prober);
  MethodInputs in;
  in.method = method;
  in.minimal = new_message(method.input);
  in.base = d.base(published);
  d.find_elements();
  in.maxima = d.maxima();
  in.bogus = d.bogus(in.maxima);
  in.probes = prober.calls() - before;
  return in;
}

}  // namespace chunkforge::hostile::adversary
