// File: tests/hostile/adversary/derive_test.cc
//
// The adversary's derivation follows the server it probes, not a list: started with other
// limits, the server gives other maxima; and the short matrix's cells cover what cells.h says.
#include <gtest/gtest.h>

#include <set>
#include <utility>

#include "cells.h"
#include "fan_out.h"
#include "hostile/harness.h"

namespace chunkforge::hostile::adversary {
namespace {

const Maximum* find(const MethodInputs& in, const std::string& field, Knob knob) {
  for (const Maximum& m : in.maxima) {
    if (path_name(m.path) == field && m.knob == knob) return &m;
  }
  return nullptr;
}

TEST(GeneratedAdversary, DerivesTheBoundsTheServerWasStartedWith) {
  ServerProcess server("adversary_derive", {"--max-radius", "7", "--max-lod-radius", "100"});
  ASSERT_TRUE(server.serving()) << server.log();
  Prober prober(server.channel());
  const std::vector<Method> methods = service_methods();
  const std::vector<PublishedValue> published = published_values(methods, prober);

  const MethodInputs region = derive_inputs(method_named(methods, "StreamRegion"), prober, published);
  const Maximum* radius = find(region, "radius", Knob::value);
  ASSERT_NE(radius, nullptr);
  EXPECT_EQ(radius->found, 7u);
  EXPECT_FALSE(radius->any);

  const MethodInputs session = derive_inputs(method_named(methods, "Session"), prober, published);
  const Maximum* lod = find(session, "lod_radius", Knob::value);
  ASSERT_NE(lod, nullptr);
  EXPECT_EQ(lod->found, 100u);
  const Maximum* held = find(session, "held", Knob::count);
  ASSERT_NE(held, nullptr);
  EXPECT_EQ(held->found, 15u * 15u);
  // The capability the server publishes is in the base: a session that declares it generates.
  EXPECT_TRUE(session.base->GetReflection()->HasField(*session.base,
                                                      session.method.input->FindFieldByName("local_generation")));

  MethodInputs info = derive_inputs(method_named(methods, "GetWorldInfo"), prober, published);
  choose_fan_out(info, prober, 100ms);
  EXPECT_EQ(info.fan_out->ShortDebugString(), "include_definition: true");  // the resolved definition: KBs
}

TEST(GeneratedAdversary, TheShortMatrixCoversEveryPair) {
  const std::vector<Method> methods = service_methods();
  const std::vector<Cell> cells = short_cells(methods);
  std::set<std::pair<std::string, Behaviour>> method_behaviour;
  std::set<std::pair<std::string, StoreState>> method_store;
  std::set<std::pair<Behaviour, StoreState>> behaviour_store;
  std::set<SessionKind> kinds;
  for (const Cell& c : cells) {
    if (c.behaviour == Behaviour::idle) continue;  // the control
    method_behaviour.emplace(c.method, c.behaviour);
    method_store.emplace(c.method, c.store);
    behaviour_store.emplace(c.behaviour, c.store);
    if (method_named(methods, c.method).client_streaming) kinds.insert(c.kind);
  }
  const size_t behaviours = std::size(kBehaviours), stores = std::size(kStoreStates);
  EXPECT_EQ(method_behaviour.size(), methods.size() * behaviours);
  EXPECT_EQ(method_store.size(), methods.size() * stores);
  EXPECT_EQ(behaviour_store.size(), behaviours * stores);
  EXPECT_EQ(kinds.size(), std::size(kSessionKinds));
  EXPECT_EQ(cells.size(), 1 + methods.size() * behaviours);  // the control and one cell a pair
}

}  // namespace
}  // namespace chunkforge::hostile::adversary
