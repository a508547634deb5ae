// The batched Perlin grid's vector kernel (perlin_rows.h), compiled once per instruction set by
// Highway's foreach_target and chosen at run time (HWY_DYNAMIC_DISPATCH) by the CPU.
//
// Same bits as the scalar path (docs/determinism.md, "SIMD noise"): each lane does exactly the
// operations of perlin2_cell(), grad2(), lerp() and Fractal::finish() in noise.cc, in
// the same order, each one a single correctly rounded IEEE operation. Hence Mul then Add, never
// MulAdd (a fused multiply-add rounds once), and no reassociation. This file is built with the
// library's -ffp-contract=off like every other, so the compiler cannot fuse them either.
#include "perlin_rows.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "perlin_rows_simd.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace chunkforge::perlin_rows {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

static_assert(HWY_MAX_BYTES / sizeof(double) <= kPadLanes, "rows are padded for at most 8 lanes");

// lattice::lerp: a + t * (b - a).
template <class V>
HWY_INLINE V Lerp(V a, V b, V t) {
  return hn::Add(a, hn::Mul(t, hn::Sub(b, a)));
}

// lattice::grad2 with the x product precomputed: gx * x + gz * z.
template <class V>
HWY_INLINE V Grad(V gx_times_x, V gz, V z) {
  return hn::Add(gx_times_x, hn::Mul(gz, z));
}

// The row's perlin values times the octave's weight, added to the running sums (0.0 for the
// first octave) and finished after the last one: kFirst and kFinish select the variant once per
// row rather than per vector.
template <bool kFirst, bool kFinish>
HWY_INLINE void AccumulateRowAs(const RowInputs& in) {
  const hn::ScalableTag<double> d;
  const auto fz = hn::Set(d, in.fz), fz1 = hn::Set(d, in.fz1), v = hn::Set(d, in.v);
  const auto weight = hn::Set(d, in.weight);
  const FinishSpec spec = kFinish ? *in.finish : FinishSpec{};
  const auto off = hn::Set(d, spec.offset), amp = hn::Set(d, spec.amplitude), nrm = hn::Set(d, spec.norm);
  for (size_t i = 0; i < in.n; i += hn::Lanes(d)) {
    const auto n00 = Grad(hn::LoadU(d, in.lo.aa + i), hn::LoadU(d, in.lo.ga + i), fz);
    const auto n10 = Grad(hn::LoadU(d, in.lo.ab + i), hn::LoadU(d, in.lo.gb + i), fz);
    const auto n01 = Grad(hn::LoadU(d, in.hi.aa + i), hn::LoadU(d, in.hi.ga + i), fz1);
    const auto n11 = Grad(hn::LoadU(d, in.hi.ab + i), hn::LoadU(d, in.hi.gb + i), fz1);
    const auto u = hn::LoadU(d, in.u + i);
    const auto noise = Lerp(Lerp(n00, n10, u), Lerp(n01, n11, u), v);
    const auto sum = hn::Add(kFirst ? hn::Zero(d) : hn::LoadU(d, in.acc + i), hn::Mul(weight, noise));
    hn::StoreU(kFinish ? hn::Add(off, hn::Mul(amp, hn::Div(sum, nrm))) : sum, d, in.acc + i);
  }
}

void AccumulateRow(const RowInputs& in) {
  if (in.first) {
    in.finish ? AccumulateRowAs<true, true>(in) : AccumulateRowAs<true, false>(in);
  } else {
    in.finish ? AccumulateRowAs<false, true>(in) : AccumulateRowAs<false, false>(in);
  }
}

// Fractal::finish: offset + amplitude * (sum / norm).
void Finish(double* values, size_t n, double offset, double amplitude, double norm) {
  const hn::ScalableTag<double> d;
  const auto off = hn::Set(d, offset), amp = hn::Set(d, amplitude), nrm = hn::Set(d, norm);
  for (size_t i = 0; i < n; i += hn::Lanes(d)) {
    hn::StoreU(hn::Add(off, hn::Mul(amp, hn::Div(hn::LoadU(d, values + i), nrm))), d, values + i);
  }
}

const char* TargetName() { return hwy::TargetName(HWY_TARGET); }

}  // namespace HWY_NAMESPACE
}  // namespace chunkforge::perlin_rows
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace chunkforge::perlin_rows {

HWY_EXPORT(AccumulateRow);
HWY_EXPORT(Finish);
HWY_EXPORT(TargetName);

void accumulate_row(const RowInputs& in) { HWY_DYNAMIC_DISPATCH(AccumulateRow)(in); }
void finish(double* values, size_t n, double offset, double amplitude, double norm) {
  HWY_DYNAMIC_DISPATCH(Finish)(values, n, offset, amplitude, norm);
}
const char* target_name() { return HWY_DYNAMIC_DISPATCH(TargetName)(); }

}  // namespace chunkforge::perlin_rows
#endif  // HWY_ONCE
