// File: chunkforge/float_environment.h
//
// What chunkforge requires of floating point, checked at compile time, and the guard that gives
// generation the floating-point environment it needs on the calling thread.
//
// Requirements (static_asserts below): double is IEEE 754 binary64, and expressions are
// evaluated in their own type (FLT_EVAL_METHOD == 0: no x87 80-bit intermediates). Every bit of
// generated output rests on both.
//
// The environment: a game engine may run its threads with flush-to-zero / denormals-are-zero
// (set by hand, or by crtfastmath.o when anything was linked with -ffast-math / -Ofast), with
// floating-point traps enabled, or with another rounding mode. Each of those changes results.
// The library's entry points (Generator::generate, ChunkStream::generate, Terrain's sampling,
// StructurePlanner, ResourceLayers::density, encode_chunk, add_terrain, World construction)
// hold a FloatEnvironmentGuard for the duration of the call, so callers need not care. The
// building blocks below them (Coord, noise, Fractal, detmath) assume the default environment:
// a caller that uses them directly from a thread whose environment it does not control can
// hold a guard itself.
//
//   {
//     chunkforge::FloatEnvironmentGuard guard;  // round to nearest, no FTZ/DAZ, no traps
//     double h = fractal.at(x, z);
//   }  // the thread's previous environment is back
//
// Cost: on x86-64 one MXCSR read, one x87 control-word read (fegetround) and two compares when
// the environment is already the default (the usual case, and always for nested guards);
// writes and a restore otherwise.
// Not copyable; use as a local variable on the thread whose environment it guards.
#pragma once

#include <cfloat>
#include <limits>

#include <cfenv>

#if defined(__x86_64__) || defined(_M_X64)
#include <xmmintrin.h>
#define CHUNKFORGE_FLOAT_ENV_MXCSR 1
#endif

static_assert(std::numeric_limits<double>::is_iec559,
              "chunkforge needs IEEE 754 binary64 doubles: generated output is defined bit for bit");
static_assert(FLT_EVAL_METHOD == 0,
              "chunkforge needs FLT_EVAL_METHOD == 0 (each operation rounded to its own type; "
              "on x86 build with SSE2 math, e.g. x86-64, not -mfpmath=387)");

namespace chunkforge {

class FloatEnvironmentGuard {
 public:
  FloatEnvironmentGuard() noexcept;
  ~FloatEnvironmentGuard();
  FloatEnvironmentGuard(const FloatEnvironmentGuard&) = delete;
  FloatEnvironmentGuard& operator=(const FloatEnvironmentGuard&) = delete;

 private:
#ifdef CHUNKFORGE_FLOAT_ENV_MXCSR
  // On x86-64 double arithmetic is SSE2, whose whole environment is MXCSR: rounding control
  // (bits 13-14), flush-to-zero (bit 15), denormals-are-zero (bit 6) and the exception masks
  // (bits 7-12). The C library reads the rounding mode from the x87 control word instead
  // (fegetround; strtod, which parses world files, follows it), so that is put to nearest too.
  // The rest of the x87 state governs only long double, which the library never uses, and is
  // left alone: fegetenv/fesetenv would save and load all of it, at ~10x the cost.
  static constexpr unsigned kFlushToZero = 0x8000, kDenormalsAreZero = 0x0040;
  static constexpr unsigned kRoundingControl = 0x6000;  // 00: to nearest
  static constexpr unsigned kExceptionMasks = 0x1f80;   // all set: no traps
  static constexpr unsigned kControl = kFlushToZero | kDenormalsAreZero | kRoundingControl | kExceptionMasks;
  static constexpr unsigned kWanted = kExceptionMasks;  // the control bits we need
  unsigned saved_ = 0;
  int saved_rounding_ = FE_TONEAREST;  // the C library's (x87) rounding mode
#else
  // Elsewhere (aarch64: FPCR's rounding mode and FZ bit) the C library's default environment
  // is the one we need: round to nearest, no flush-to-zero, no traps.
  std::fenv_t saved_{};
#endif
  bool changed_ = false;
};

#ifdef CHUNKFORGE_FLOAT_ENV_MXCSR
// Inline and integer-only: safe to compile with any flags, and cheap enough for every entry.
inline FloatEnvironmentGuard::FloatEnvironmentGuard() noexcept
    : saved_(_mm_getcsr()), saved_rounding_(std::fegetround()) {
  if (saved_rounding_ != FE_TONEAREST) {
    std::fesetround(FE_TONEAREST);  // x87 and MXCSR both; MXCSR is set again below
    changed_ = true;
  }
  if ((saved_ & kControl) != kWanted || changed_) {
    _mm_setcsr((saved_ & ~kControl) | kWanted);
    changed_ = true;
  }
}
inline FloatEnvironmentGuard::~FloatEnvironmentGuard() {
  if (!changed_) return;
  if (saved_rounding_ != FE_TONEAREST) std::fesetround(saved_rounding_);
  _mm_setcsr(saved_);  // last: exactly the caller's MXCSR, whatever fesetround wrote into it
}
#else
inline FloatEnvironmentGuard::FloatEnvironmentGuard() noexcept {
  std::fegetenv(&saved_);
  std::fesetenv(FE_DFL_ENV);
  changed_ = true;
}
inline FloatEnvironmentGuard::~FloatEnvironmentGuard() {
  if (changed_) std::fesetenv(&saved_);
}
#endif

}  // namespace chunkforge
