// The floating-point environment guard (chunkforge/float_environment.h) and the float clamps of
// encode_chunk: what a game's thread sets is what it gets back, and encoded positions and yaws
// stay in their half-open ranges after rounding to float.
#include "chunkforge/float_environment.h"

#include <gtest/gtest.h>

#include <cfenv>
#include <cmath>

#include "chunkforge/encode.h"
#include "chunkforge/world.h"

#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

namespace chunkforge {
namespace {

#if defined(__x86_64__)
constexpr unsigned kFtzDaz = 0x8040;
unsigned csr_control() { return _mm_getcsr() & 0xffc0; }  // without the sticky flags
#endif

// Whether 2^-1074 (the smallest subnormal) survives arithmetic: false under FTZ/DAZ.
bool subnormals_work() {
  volatile double tiny = 0x1p-1074;
  volatile double doubled = tiny * 2.0;
  return doubled != 0.0;
}

TEST(FloatEnvironmentGuardTest, GivesDefaultsInsideAndRestoresTheCaller) {
  std::fenv_t before;
  std::fegetenv(&before);
  std::fesetround(FE_DOWNWARD);
#if defined(__x86_64__)
  _mm_setcsr(_mm_getcsr() | kFtzDaz);
  const unsigned hostile = csr_control();
  EXPECT_FALSE(subnormals_work());
#endif
  {
    const FloatEnvironmentGuard guard;
    EXPECT_EQ(std::fegetround(), FE_TONEAREST);
    EXPECT_TRUE(subnormals_work());
    {
      const FloatEnvironmentGuard nested;  // finds the defaults; changes nothing
      EXPECT_EQ(std::fegetround(), FE_TONEAREST);
    }
    EXPECT_EQ(std::fegetround(), FE_TONEAREST);
    EXPECT_TRUE(subnormals_work());
  }
  EXPECT_EQ(std::fegetround(), FE_DOWNWARD);
#if defined(__x86_64__)
  EXPECT_EQ(csr_control(), hostile);
#endif
  std::fesetenv(&before);
}

TEST(FloatEnvironmentGuardTest, ChangesNothingInTheDefaultEnvironment) {
  ASSERT_EQ(std::fegetround(), FE_TONEAREST);
#if defined(__x86_64__)
  const unsigned before = csr_control();
  { const FloatEnvironmentGuard guard; }
  EXPECT_EQ(csr_control(), before);
#endif
  EXPECT_EQ(std::fegetround(), FE_TONEAREST);
}

// An object at the last double below the chunk's far edge, turned just under a full turn: as
// floats those would be chunk_size and 360 exactly, outside [0, chunk_size) and [0, 360).
TEST(EncodeClampTest, PositionsAndYawStayInTheirHalfOpenRanges) {
  const World& world = default_world();
  const double size = static_cast<double>(world.chunk_size());
  ChunkData chunk;
  ResourceObject edge;
  edge.x = std::nextafter(size, 0.0);
  edge.z = std::nextafter(size, 0.0);
  edge.yaw = std::nextafter(360.0, 0.0);
  ResourceObject inside;
  inside.x = 12.25;
  inside.z = 0.0;
  inside.yaw = 359.5;
  chunk.objects = {edge, inside};
  const v1::Objects o = encode_chunk(world, chunk).objects();
  EXPECT_LT(o.x(0), static_cast<float>(size));
  EXPECT_LT(o.z(0), static_cast<float>(size));
  EXPECT_LT(o.yaw(0), 360.0f);
  EXPECT_EQ(o.x(0), std::nextafter(static_cast<float>(size), 0.0f));
  EXPECT_EQ(o.yaw(0), std::nextafter(360.0f, 0.0f));
  // Values that do not round onto a bound are untouched.
  EXPECT_EQ(o.x(1), 12.25f);
  EXPECT_EQ(o.z(1), 0.0f);
  EXPECT_EQ(o.yaw(1), 359.5f);
}

}  // namespace
}  // namespace chunkforge
