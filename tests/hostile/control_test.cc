// The control scenario: the harness itself on a server nobody attacks. Its bounds must hold with
// room to spare, or every other scenario's figures mean nothing.
#include "harness.h"

namespace chunkforge::hostile {
namespace {

TEST(HostileScenario, NobodyAttacks) {
  Scenario scenario("control", {});
  scenario.attack(3s, [](std::stop_token stop) {
    while (!stop.stop_requested()) std::this_thread::sleep_for(10ms);
  });
  scenario.expect_within_bounds();
  EXPECT_GT(scenario.report().health_probes, 20);
  EXPECT_GT(scenario.report().probe_calls, 50);
}

}  // namespace
}  // namespace chunkforge::hostile
