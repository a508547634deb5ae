// DecisionBox (lib/src/decision_box.h): a remembered answer of first-match interval rules is
// the rules' own answer for every value it is reused for, including values on interval ends.
#include "decision_box.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace chunkforge {
namespace {

constexpr size_t kAxes = 3;
using Rule = std::array<Interval, kAxes>;
using Values = std::array<double, kAxes>;

uint32_t first_match(const std::vector<Rule>& rules, const Values& v) {
  for (uint32_t id = 0; id < rules.size(); ++id) {
    bool holds = true;
    for (size_t a = 0; a < kAxes; ++a) holds = holds && rules[id][a].contains(v[a]);
    if (holds) return id;
  }
  return static_cast<uint32_t>(rules.size());
}

AxisEnds ends_of(const std::vector<Rule>& rules) {
  AxisEnds ends(kAxes);
  for (const Rule& r : rules) {
    for (size_t a = 0; a < kAxes; ++a) ends.add(a, r[a]);
  }
  ends.seal();
  return ends;
}

TEST(DecisionBoxTest, HoldsStrictlyBetweenNeighbouringEnds) {
  const std::vector<Rule> rules = {{Interval{0.0, 1.0}, Interval{}, Interval{}}};
  const AxisEnds ends = ends_of(rules);
  EXPECT_EQ(ends.decisive(), std::vector<size_t>{0});
  DecisionBox box(ends);
  const Values inside{0.5, 7.0, -7.0};
  EXPECT_FALSE(box.holds(inside.data())) << "a new box holds nothing";
  box.around(inside.data(), 4);
  EXPECT_EQ(box.answer(), 4u);
  EXPECT_TRUE(box.holds(Values{0.999, -1e9, 1e9}.data())) << "axes without ends never decide";
  EXPECT_FALSE(box.holds(Values{1.0, 0.0, 0.0}.data()));
  EXPECT_FALSE(box.holds(Values{0.0, 0.0, 0.0}.data()));
  EXPECT_FALSE(box.holds(Values{std::nan(""), 0.0, 0.0}.data()));
  box.around(Values{1.0, 0.0, 0.0}.data(), 5);  // on an end: nothing is held
  EXPECT_FALSE(box.holds(Values{1.0, 0.0, 0.0}.data()));
  EXPECT_FALSE(box.holds(Values{0.5, 0.0, 0.0}.data()));
  EXPECT_FALSE(box.holds(Values{1.5, 0.0, 0.0}.data()));
  box.around(Values{std::nan(""), 0.0, 0.0}.data(), 6);  // nor around a NaN
  EXPECT_FALSE(box.holds(Values{1.5, 0.0, 0.0}.data()));
  box.around(Values{2.0, 0.0, 0.0}.data(), 7);  // past the last end: up to infinity
  EXPECT_TRUE(box.holds(Values{1e300, 0.0, 0.0}.data()));
  EXPECT_FALSE(box.holds(Values{std::numeric_limits<double>::infinity(), 0.0, 0.0}.data()));
}

// Rules and a walk on a coarse lattice, so that values land on interval ends often: every
// answer reused from the box equals the rules' own.
TEST(DecisionBoxTest, ReusedAnswersAreTheRulesOwn) {
  std::mt19937_64 rng(46);
  std::uniform_int_distribution<int> tick(-8, 8), coin(0, 3);
  for (int world = 0; world < 50; ++world) {
    std::vector<Rule> rules(6);
    for (Rule& r : rules) {
      for (Interval& i : r) {
        if (coin(rng) == 0) continue;  // unbounded on this axis
        const double a = tick(rng) / 4.0, b = tick(rng) / 4.0;
        i = Interval{std::min(a, b), coin(rng) == 0 ? std::numeric_limits<double>::infinity() : std::max(a, b)};
      }
    }
    const AxisEnds ends = ends_of(rules);
    DecisionBox box(ends);
    Values v{0.0, 0.0, 0.0};
    int reused = 0;
    for (int step = 0; step < 2000; ++step) {
      v[static_cast<size_t>(step) % kAxes] += tick(rng) / 32.0;
      if (box.holds(v.data())) {
        ++reused;
      } else {
        box.around(v.data(), first_match(rules, v));
      }
      ASSERT_EQ(box.answer(), first_match(rules, v)) << "world " << world << " step " << step;
    }
    EXPECT_GT(reused, 0) << "world " << world;
  }
}

// answer(): the rules' answer whatever the walk: boxes reused while samples agree, none built
// once most samples have missed (big jumps), the last one still used where it holds.
TEST(DecisionBoxTest, AnswersAreTheRulesOwnWhetherBoxesPayOrNot) {
  std::mt19937_64 rng(4646);
  std::uniform_int_distribution<int> tick(-8, 8), jump(-400, 400);
  const std::vector<Rule> rules = {{Interval{-1.0, 1.0}, Interval{-0.5, 2.0}, Interval{}},
                                   {Interval{.min = 0.5}, Interval{}, Interval{.max = -1.0}},
                                   {Interval{}, Interval{-2.0, 0.0}, Interval{0.0, 0.25}}};
  const AxisEnds ends = ends_of(rules);
  DecisionBox box(ends);
  Values v{0.0, 0.0, 0.0};
  int full = 0;
  for (int step = 0; step < 3000; ++step) {  // small steps, then big jumps, then small again
    const size_t axis = static_cast<size_t>(step) % kAxes;
    v[axis] = step >= 1000 && step < 2000 ? jump(rng) / 100.0 : v[axis] + tick(rng) / 64.0;
    const uint32_t answer = box.answer(v.data(), [&] {
      ++full;
      return first_match(rules, v);
    });
    ASSERT_EQ(answer, first_match(rules, v)) << "step " << step;
    if (step == 999) EXPECT_LT(full, 500) << "boxes reused while samples agree";
  }
}

}  // namespace
}  // namespace chunkforge
