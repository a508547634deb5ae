// The public helpers called from code compiled the way a game might compile it (fma_caller.cc:
// FMA contraction on), the library with its own flags. The results must be the library's bits,
// pinned below: an inline copy of a rounding-sensitive helper in a public header would be
// contracted in fma_caller.cc and differ.
#include <gtest/gtest.h>

#include <cstring>

#include "fma_caller.h"

namespace chunkforge {
namespace {

using fma_caller::cpu_has_fma;

void expect_bits(const char* what, double got, double expected) {
  EXPECT_TRUE(std::memcmp(&got, &expected, sizeof got) == 0)
      << what << ": got " << std::hexfloat << got << ", library " << expected;
}

TEST(FmaCallerTest, ScaledGivesTheLibrarysBits) {
  if (!cpu_has_fma()) GTEST_SKIP() << "this CPU has no FMA";
  // Far cells, long mantissas: points where a contracted copy of the exact product rounds
  // differently (found among 2 million random ones; about 1 in 400 000 differs).
  struct Case {
    int64_t cell;
    double frac, factor;
    int64_t scaled_cell;
    double scaled_frac;
  };
  const Case cases[] = {
      {-399724383498LL, 0x1.17748f97b26a8p-3, 0x1.d5123382cf463p-1, -366209288404LL, 0x1.c46b7868ef4a2p-2},
      {-402542282978LL, 0x1.1234e1b8f2d48p-3, 0x1.ddeb145054bc9p-1, -375746708966LL, 0x1.fb920105219c1p-2},
      {-539603239946LL, 0x1.2e91fdfb43e8p-7, 0x1.b014777707bcdp-1, -455374491792LL, 0x1.9e248e4c858ebp-6},
      {332129635858LL, 0x1.9aa8f01c24e89p-1, 0x1.3f2de9dddc866p-2, 103524337122LL, 0x1.b4cbff2c523bbp-2},
      {-234130547931LL, 0x1.25f2ed6c95158p-2, 0x1.bde399dedd20cp-3, -50974732171LL, 0x1.60e9825fe26aep-4},
  };
  for (const Case& c : cases) {
    const Coord s = fma_caller::scaled(Coord::from_parts(c.cell, c.frac), c.factor);
    EXPECT_EQ(s.cell, c.scaled_cell);
    expect_bits("scaled.frac", s.frac, c.scaled_frac);
  }
}

TEST(FmaCallerTest, DetmathGivesTheLibrarysBits) {
  if (!cpu_has_fma()) GTEST_SKIP() << "this CPU has no FMA";
  expect_bits("log(12.5)", fma_caller::log(12.5), 0x1.434b1382efeb7p+1);
  expect_bits("exp(-3.3)", fma_caller::exp(-3.3), 0x1.2e259bb85be85p-5);
  expect_bits("pow(0.3, 2.7)", fma_caller::pow(0.3, 2.7), 0x1.3d6858f505911p-5);  // contracted: ...90e
}

TEST(FmaCallerTest, NoiseAtFarPositionsGivesTheLibrarysBits) {
  if (!cpu_has_fma()) GTEST_SKIP() << "this CPU has no FMA";
  // A fractal at 2^40 built and evaluated from fma_caller.cc: the evaluation is the library's.
  const Coord far = Coord::from_parts(int64_t{1} << 40, 0.375);
  expect_bits("fractal_far", fma_caller::fractal_at(far, far.plus(0.1)), 0x1.2866fd53ec82ap-2);
}

}  // namespace
}  // namespace chunkforge
