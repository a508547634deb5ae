// File: tests/hostile/adversary/cells.cc
//
// The matrix's selections and each cell's plan (cells.h).
#include "cells.h"

#include <bit>
#include <cmath>

namespace chunkforge::hostile::adversary {
namespace {

using CppType = FieldDescriptor::CppType;

bool streams_in(const std::vector<Method>& methods, const std::string& name) {
  return method_named(methods, name).client_streaming;
}

const FieldDescriptor* field(const Descriptor* type, const char* name) {
  return type == nullptr ? nullptr : type->FindFieldByName(name);
}

// The kind's fields, as SessionUpdate names them; a kind whose fields the input lacks changes
// nothing.
void apply_kind(SessionKind kind, bool bogus, const MethodInputs& inputs, Message& update) {
  const FieldDescriptor* local = field(inputs.method.input, "local_generation");
  const FieldDescriptor* lod = field(inputs.method.input, "lod_radius");
  const FieldDescriptor* tiles = local == nullptr ? nullptr : field(local->message_type(), "generates_tiles");
  const google::protobuf::Reflection* r = update.GetReflection();
  const bool lod_kind = kind == SessionKind::lod_server || kind == SessionKind::lod_client;
  if (lod != nullptr) set_raw(update, {lod}, lod_kind ? inputs.highest({lod}) : 0);
  if (bogus || local == nullptr) return;
  if (kind == SessionKind::server_chunks || kind == SessionKind::lod_server) return r->ClearField(&update, local);
  // The declaration the base holds: the published generator version and fingerprint.
  const Message& declared = inputs.base->GetReflection()->GetMessage(*inputs.base, local);
  r->MutableMessage(&update, local)->CopyFrom(declared);
  if (tiles != nullptr) set_raw(update, {local, tiles}, kind == SessionKind::lod_client ? 1 : 0);
}

// Every later message of a streamed call: the first as it is, and every other one with its
// floating-point fields (a position) moved far within their accepted range, each time elsewhere.
std::vector<std::string> follow_ups(const MethodInputs& inputs, const Message& first) {
  std::vector<FieldPath> floats;
  for (const FieldPath& path : fields_of(inputs.method.input)) {
    const auto t = path.back()->cpp_type();
    if (path.size() == 1 && !path.back()->is_repeated() && (t == CppType::CPPTYPE_DOUBLE)) floats.push_back(path);
  }
  std::vector<std::string> out;
  for (int k = 0; k < 16; ++k) {
    std::unique_ptr<Message> message = clone(first);
    for (size_t f = 0; f < floats.size() && k % 2 == 1; ++f) {
      const double most = std::bit_cast<double>(inputs.highest(floats[f]));
      const double part = std::fmod(0.6180339887 * (k * 3 + static_cast<int>(f) + 1), 1.0);
      set_raw(*message, floats[f], std::bit_cast<uint64_t>((f + k / 2) % 2 == 0 ? most * part : -most * part));
    }
    out.push_back(message->SerializeAsString());
  }
  return out;
}

Cell control_cell() {
  Cell cell;
  cell.behaviour = Behaviour::idle;
  cell.store = kStoreStates[0];
  return cell;
}

}  // namespace

const char* kind_name(SessionKind kind) {
  switch (kind) {
    case SessionKind::none:
      return "";
    case SessionKind::server_chunks:
      return "server_chunks";
    case SessionKind::local_generation:
      return "local_generation";
    case SessionKind::lod_server:
      return "lod_server";
    case SessionKind::lod_client:
      return "lod_client";
  }
  return "?";
}

std::string Cell::name() const {
  if (behaviour == Behaviour::idle) return std::string("control (no attack) / ") + store_name(store);
  std::string text = method + " x " + behaviour_name(behaviour) + " / " + store_name(store);
  if (kind != SessionKind::none) text += std::string(" / ") + kind_name(kind);
  return text;
}

std::vector<Cell> full_cells(const std::vector<Method>& methods) {
  std::vector<Cell> cells{control_cell()};
  for (const Method& m : methods) {
    for (Behaviour b : kBehaviours) {
      for (StoreState s : kStoreStates) {
        if (!m.client_streaming) {
          cells.push_back({m.name, b, s});
          continue;
        }
        for (SessionKind k : kSessionKinds) cells.push_back({m.name, b, s, k});
      }
    }
  }
  return cells;
}

std::vector<Cell> short_cells(const std::vector<Method>& methods) {
  std::vector<Cell> cells{control_cell()};
  constexpr size_t kStates = std::size(kStoreStates), kKinds = std::size(kSessionKinds);
  for (size_t i = 0; i < methods.size(); ++i) {
    for (size_t j = 0; j < std::size(kBehaviours); ++j) {
      const SessionKind kind = streams_in(methods, methods[i].name) ? kSessionKinds[j % kKinds] : SessionKind::none;
      cells.push_back({methods[i].name, kBehaviours[j], kStoreStates[(i + j) % kStates], kind});
    }
  }
  return cells;
}

std::vector<Cell> sanitizer_cells(const std::vector<Method>& methods) {
  std::vector<Cell> cells{control_cell()};
  for (size_t j = 0; j < std::size(kBehaviours); ++j) {
    const Method& m = methods[j % methods.size()];
    const SessionKind kind = m.client_streaming ? kSessionKinds[j % std::size(kSessionKinds)] : SessionKind::none;
    cells.push_back({m.name, kBehaviours[j], StoreState::empty, kind});
  }
  return cells;
}

CallPlan plan_for(const Cell& cell, const MethodInputs& inputs) {
  std::vector<const Message*> requests;
  switch (cell.behaviour) {
    case Behaviour::idle:
      return {};
    case Behaviour::floods:
      requests = {inputs.minimal.get(), inputs.base.get()};
      break;
    case Behaviour::maximal_inputs:
      for (const Maximum& m : inputs.maxima) requests.push_back(m.request.get());
      break;
    case Behaviour::bogus_capabilities:
      for (const auto& b : inputs.bogus) requests.push_back(b.get());
      break;
    default:
      requests = {inputs.fan_out.get()};
      break;
  }
  CallPlan plan;
  plan.path = inputs.method.path;
  plan.streams_in = inputs.method.client_streaming;
  for (const Message* request : requests) {
    std::unique_ptr<Message> copy = clone(*request);
    if (cell.kind != SessionKind::none) {
      apply_kind(cell.kind, cell.behaviour == Behaviour::bogus_capabilities, inputs, *copy);
    }
    if (plan.streams_in && plan.follow_ups.empty()) plan.follow_ups = follow_ups(inputs, *copy);
    plan.requests.push_back(copy->SerializeAsString());
  }
  return plan;
}

}  // namespace chunkforge::hostile::adversary
