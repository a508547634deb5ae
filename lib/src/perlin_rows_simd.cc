// The batched Perlin grid's vector kernel (perlin_rows.h), compiled once per instruction set by
// Highway's foreach_target and chosen at run time (HWY_DYNAMIC_DISPATCH) by the CPU.
//
// Same bits as the scalar path (docs/determinism.md, "SIMD noise"): each lane does exactly the
// operations of perlin2_cell(), grad2(), lerp() and Fractal::finish() in noise.cc, in
// the same order, each one a single correctly rounded IEEE operation. Hence Mul then Add, never
// MulAdd (a fused multiply-add rounds once), and no reassociation. This file is built with the
// library's -ffp-contract=off like every other, so the compiler cannot fuse them either.
#include "perlin_lattice.h"
#include "perlin_rows.h"

#include <cstddef>
#include <cstdint>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "perlin_rows_simd.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace chunkforge::perlin_rows::HWY_NAMESPACE {
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

// The rows' perlin values times the octave's weight, added to the running sums (0.0 for the
// first octave) and finished after the last one: kFirst and kFinish select the variant once per
// call rather than per vector. Column by column, the rows inside: a column's nine table vectors
// are loaded once for all the rows of the cell, and only the sums move.
template <bool kFirst, bool kFinish>
HWY_INLINE void AccumulateRowsAs(const RowsInputs& in) {
  const hn::ScalableTag<double> d;
  const auto weight = hn::Set(d, in.weight);
  const FinishSpec spec = kFinish ? *in.finish : FinishSpec{};
  const auto off = hn::Set(d, spec.offset), amp = hn::Set(d, spec.amplitude), nrm = hn::Set(d, spec.norm);
  // Locals, not in's fields: the stores to acc could alias `in` for all the compiler knows.
  const double *row_fz = in.fz, *row_fz1 = in.fz1, *row_v = in.v;
  const size_t rows = in.rows, stride = in.stride;
  for (size_t i = 0; i < in.n; i += hn::Lanes(d)) {
    const auto aa0 = hn::LoadU(d, in.lo.aa + i), ga0 = hn::LoadU(d, in.lo.ga + i);
    const auto ab0 = hn::LoadU(d, in.lo.ab + i), gb0 = hn::LoadU(d, in.lo.gb + i);
    const auto aa1 = hn::LoadU(d, in.hi.aa + i), ga1 = hn::LoadU(d, in.hi.ga + i);
    const auto ab1 = hn::LoadU(d, in.hi.ab + i), gb1 = hn::LoadU(d, in.hi.gb + i);
    const auto u = hn::LoadU(d, in.u + i);
    double* acc = in.acc + i;
    for (size_t r = 0; r < rows; ++r, acc += stride) {
      const auto fz = hn::Set(d, row_fz[r]), fz1 = hn::Set(d, row_fz1[r]);
      const auto n00 = Grad(aa0, ga0, fz), n10 = Grad(ab0, gb0, fz);
      const auto n01 = Grad(aa1, ga1, fz1), n11 = Grad(ab1, gb1, fz1);
      const auto noise = Lerp(Lerp(n00, n10, u), Lerp(n01, n11, u), hn::Set(d, row_v[r]));
      const auto sum = hn::Add(kFirst ? hn::Zero(d) : hn::LoadU(d, acc), hn::Mul(weight, noise));
      hn::StoreU(kFinish ? hn::Add(off, hn::Mul(amp, hn::Div(sum, nrm))) : sum, d, acc);
    }
  }
}

void AccumulateRows(const RowsInputs& in) {
  if (in.first) {
    in.finish ? AccumulateRowsAs<true, true>(in) : AccumulateRowsAs<true, false>(in);
  } else {
    in.finish ? AccumulateRowsAs<false, true>(in) : AccumulateRowsAs<false, false>(in);
  }
}

// lattice::corner's and gradient2's work for whole vectors of columns: mix64 of
// seed + c * kPrimeX + zc * kPrimeZ (wrapping integer arithmetic, so the order of the sums does
// not matter), its top three bits choosing one of the eight gradients (a lane permutation of
// kGrad2's columns), then gx * fx as the scalar loop forms it.
size_t HashRow(const HashRowInputs& in) {
#if HWY_TARGET <= HWY_AVX3
  const hn::ScalableTag<double> d;
  const hn::RebindToUnsigned<decltype(d)> du;
  const hn::RebindToSigned<decltype(d)> di;
  static_assert(MaxLanes(d) == 8, "one lane per gradient of kGrad2");
  alignas(64) static constexpr double kGx[8] = {1, -1, 1, -1, 1, -1, 0, 0};
  alignas(64) static constexpr double kGz[8] = {1, 1, -1, -1, 0, 0, 1, -1};
  for (int g = 0; g < 8; ++g) HWY_DASSERT(kGx[g] == lattice::kGrad2[g][0] && kGz[g] == lattice::kGrad2[g][1]);
  const auto gx = hn::Load(d, kGx), gz = hn::Load(d, kGz);
  const auto row = hn::Set(du, in.seed + static_cast<uint64_t>(in.zc) * lattice::kPrimeZ);
  const auto prime_x = hn::Set(du, lattice::kPrimeX);
  auto mix = [&](auto z) {
    z = hn::Mul(hn::Xor(z, hn::ShiftRight<30>(z)), hn::Set(du, 0xbf58476d1ce4e5b9ULL));
    z = hn::Mul(hn::Xor(z, hn::ShiftRight<27>(z)), hn::Set(du, 0x94d049bb133111ebULL));
    return hn::Xor(z, hn::ShiftRight<31>(z));
  };
  const size_t whole_vectors = in.n / 8 * 8;
  for (size_t i = 0; i < whole_vectors; i += 8) {
    const auto a = hn::Add(row, hn::Mul(hn::BitCast(du, hn::LoadU(di, in.cell + i)), prime_x));
    const auto ia = hn::IndicesFromVec(d, hn::BitCast(di, hn::ShiftRight<61>(mix(a))));
    const auto ib = hn::IndicesFromVec(d, hn::BitCast(di, hn::ShiftRight<61>(mix(hn::Add(a, prime_x)))));
    hn::StoreU(hn::Mul(hn::TableLookupLanes(gx, ia), hn::LoadU(d, in.frac + i)), d, in.out.aa + i);
    hn::StoreU(hn::Mul(hn::TableLookupLanes(gx, ib), hn::LoadU(d, in.frac1 + i)), d, in.out.ab + i);
    hn::StoreU(hn::TableLookupLanes(gz, ia), d, in.out.ga + i);
    hn::StoreU(hn::TableLookupLanes(gz, ib), d, in.out.gb + i);
  }
  return whole_vectors;
#else
  (void)in;
  return 0;
#endif
}

// floor_to_int (coord.h): truncate, then one less where that rounded up. Every value here is
// below 2^62 in magnitude, and its truncation converts back exactly.
template <class DI, class V>
HWY_INLINE hn::Vec<DI> FloorToInt(DI di, V v) {
  const hn::Rebind<double, DI> d;
  const auto truncated = hn::ConvertTo(di, v);
  const auto rounded_up = hn::RebindMask(di, hn::Lt(v, hn::ConvertTo(d, truncated)));
  return hn::Sub(truncated, hn::IfThenElseZero(rounded_up, hn::Set(di, 1)));
}

// exact::scaled (exact_arith.h: Dekker's two-product, then Coord::from_parts) and lattice::fade,
// lane by lane, the same operations in the same order.
size_t ScaleCoords(const Coord* in, size_t n, double factor, const ScaledCoords& out) {
  static_assert(sizeof(Coord) == 2 * sizeof(uint64_t) && offsetof(Coord, frac) == sizeof(uint64_t));
  const hn::ScalableTag<double> d;
  const hn::RebindToSigned<decltype(d)> di;
  const hn::RebindToUnsigned<decltype(d)> du;
  const double factor_split = 134217729.0 * factor;  // exact::split(factor), as scalars
  const double factor_hi = factor_split - (factor_split - factor), factor_lo = factor - factor_hi;
  const auto f = hn::Set(d, factor), fh = hn::Set(d, factor_hi), fl = hn::Set(d, factor_lo);
  const auto splitter = hn::Set(d, 134217729.0), one = hn::Set(d, 1.0);
  const size_t lanes = hn::Lanes(d), whole_vectors = n / lanes * lanes;
  for (size_t i = 0; i < whole_vectors; i += lanes) {
    hn::Vec<decltype(du)> cell_bits, frac_bits;
    hn::LoadInterleaved2(du, reinterpret_cast<const uint64_t*>(in + i), cell_bits, frac_bits);
    const auto a = hn::ConvertTo(d, hn::BitCast(di, cell_bits));
    const auto p = hn::Mul(a, f);
    const auto c = hn::Mul(splitter, a);
    const auto ah = hn::Sub(c, hn::Sub(c, a)), al = hn::Sub(a, ah);
    const auto err =
        hn::Add(hn::Add(hn::Add(hn::Sub(hn::Mul(ah, fh), p), hn::Mul(ah, fl)), hn::Mul(al, fh)), hn::Mul(al, fl));
    const auto whole = FloorToInt(di, p);
    const auto sum = hn::Add(hn::Sub(p, hn::ConvertTo(d, whole)), hn::Add(err, hn::Mul(hn::BitCast(d, frac_bits), f)));
    const auto sum_whole = FloorToInt(di, sum);  // Coord::from_parts(whole, sum)
    auto cell = hn::Add(whole, sum_whole);
    auto frac = hn::Sub(sum, hn::ConvertTo(d, sum_whole));
    const auto rounded_to_one = hn::Ge(frac, one);
    cell = hn::Add(cell, hn::IfThenElseZero(hn::RebindMask(di, rounded_to_one), hn::Set(di, 1)));
    frac = hn::IfThenZeroElse(rounded_to_one, frac);
    hn::StoreU(cell, di, out.cell + i);
    hn::StoreU(frac, d, out.frac + i);
    hn::StoreU(hn::Sub(frac, one), d, out.frac1 + i);
    const auto inner =
        hn::Add(hn::Mul(frac, hn::Sub(hn::Mul(frac, hn::Set(d, 6.0)), hn::Set(d, 15.0))), hn::Set(d, 10.0));
    hn::StoreU(hn::Mul(hn::Mul(hn::Mul(frac, frac), frac), inner), d, out.fade + i);
  }
  return whole_vectors;
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

}  // namespace chunkforge::perlin_rows::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace chunkforge::perlin_rows {

HWY_EXPORT(AccumulateRows);
HWY_EXPORT(ScaleCoords);
HWY_EXPORT(HashRow);
HWY_EXPORT(Finish);
HWY_EXPORT(TargetName);

void accumulate_rows(const RowsInputs& in) { HWY_DYNAMIC_DISPATCH(AccumulateRows)(in); }
size_t hash_row(const HashRowInputs& in) { return HWY_DYNAMIC_DISPATCH(HashRow)(in); }
size_t scale_coords(const Coord* in, size_t n, double factor, const ScaledCoords& out) {
  return HWY_DYNAMIC_DISPATCH(ScaleCoords)(in, n, factor, out);
}
void finish(double* values, size_t n, double offset, double amplitude, double norm) {
  HWY_DYNAMIC_DISPATCH(Finish)(values, n, offset, amplitude, norm);
}
const char* target_name() { return HWY_DYNAMIC_DISPATCH(TargetName)(); }

}  // namespace chunkforge::perlin_rows
#endif  // HWY_ONCE
