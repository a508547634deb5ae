// Fractal::grid for Perlin noise, batched: the scalar path's arithmetic (noise.cc,
// perlin2_cell) reorganised so that a vector kernel (perlin_rows.h) does the per-sample work.
//
// Per octave, everything that depends only on a column (its lattice cell, fraction and fade) is
// computed once; everything that depends only on a lattice row z = zc (the corner hashes, the
// gradients, and gx * fx) is computed once per lattice row and reused by every grid row inside
// that cell, and the row above becomes the row below when the grid crosses into the next cell.
// Products are formed exactly as the scalar path forms them, so the bits are the same; the
// saving is in hashing (once per lattice row, not per grid row) and in the vector kernel.
#include <algorithm>
#include <initializer_list>
#include <vector>

#include "chunkforge/noise.h"
#include "exact_arith.h"
#include "perlin_lattice.h"
#include "perlin_rows.h"

namespace chunkforge {
namespace {

// One octave's columns, zero padded to the kernel's row length (views into GridScratch).
struct Columns {
  int64_t* cell;  // lattice cell c_i of column i
  double* frac;   // fx_i
  double* frac1;  // fx_i - 1.0
  double* u;      // fade(fx_i)
};

void set_columns(const Coord* xs, int nx, double frequency, Columns& cols) {
  for (int i = 0; i < nx; ++i) {
    const Coord lx = exact::scaled(xs[i], frequency);
    cols.cell[i] = lx.cell;
    cols.frac[i] = lx.frac;
    cols.frac1[i] = lx.frac - 1.0;
    cols.u[i] = lattice::fade(lx.frac);
  }
}

// The gradients of lattice row zc at every column's two x corners (perlin_rows.h; views into
// GridScratch).
struct LatticeRow {
  perlin_rows::LatticeRowView view() const { return {aa, ab, ga, gb}; }
  int64_t zc = 0;
  double *aa, *ab, *ga, *gb;
};

// A thread's working memory for grids: small grids (a scatter group's 8 x 8 densities) are
// computed by the hundred per chunk, and allocating a dozen buffers each time cost about a
// third of such a call. It grows to the largest grid the thread has computed and stays: in the
// server a map tile's 256 x 256 samples, about 0.6 MB.
struct GridScratch {
  std::vector<double> doubles;
  std::vector<int64_t> cells;
  // Carves the accumulator (`acc_size` doubles, not zeroed: the first octave writes it), then
  // the columns and two lattice rows for rows of `stride`, zeroed so that padded lanes compute
  // on zeros.
  double* carve(size_t stride, size_t acc_size, Columns& cols, LatticeRow& lo, LatticeRow& hi) {
    constexpr size_t kArrays = 3 + 2 * 4;  // the columns' doubles, then each lattice row's
    doubles.resize(acc_size + kArrays * stride);
    cells.resize(stride);
    double* next = doubles.data() + acc_size;
    std::fill(next, next + kArrays * stride, 0.0);
    auto take = [&] {
      double* p = next;
      next += stride;
      return p;
    };
    cols = Columns{cells.data(), take(), take(), take()};
    for (LatticeRow* row : {&lo, &hi}) {
      row->aa = take();
      row->ab = take();
      row->ga = take();
      row->gb = take();
    }
    return doubles.data();
  }
};

// Hashes each distinct corner of the row once: neighbouring columns share a cell, or the next
// cell's left corner is this cell's right one (the scalar grid reuses the first kind too).
void build_lattice_row(uint64_t seed, const Columns& cols, int nx, int64_t zc, LatticeRow& row) {
  uint64_t ha = 0, hb = 0;
  for (int i = 0; i < nx; ++i) {
    const int64_t c = cols.cell[i];
    if (i == 0 || c != cols.cell[i - 1]) {
      ha = (i > 0 && c - 1 == cols.cell[i - 1]) ? hb : lattice::corner(seed, c, zc);
      hb = lattice::corner(seed, c + 1, zc);
    }
    const double* a = lattice::gradient2(ha);
    const double* b = lattice::gradient2(hb);
    row.aa[i] = a[0] * cols.frac[i];
    row.ab[i] = b[0] * cols.frac1[i];
    row.ga[i] = a[1];
    row.gb[i] = b[1];
  }
  row.zc = zc;
}

struct OctaveRun {
  uint64_t seed;
  double frequency;
  double weight;
  bool first;                              // the sums start here (perlin_rows.h, RowInputs)
  const perlin_rows::FinishSpec* finish;  // the last octave: finish the sums
};

// Adds one octave to every row of acc (rows of `stride` doubles); lo and hi are scratch rows of
// that length, allocated once per grid rather than per octave.
void accumulate_octave(const OctaveRun& o, const Columns& cols, int nx, const Coord* zs, int nz, LatticeRow& lo,
                       LatticeRow& hi, double* acc, size_t stride) {
  bool have_rows = false;
  for (int j = 0; j < nz; ++j) {
    const Coord lz = exact::scaled(zs[j], o.frequency);
    if (!have_rows || lz.cell != lo.zc) {
      if (have_rows && lz.cell == hi.zc) {
        std::swap(lo, hi);  // moved up one cell: the old upper row is the new lower one
      } else {
        build_lattice_row(o.seed, cols, nx, lz.cell, lo);
      }
      build_lattice_row(o.seed, cols, nx, lz.cell + 1, hi);
      have_rows = true;
    }
    const perlin_rows::RowInputs in{lo.view(),     hi.view(),
                                    cols.u,        lz.frac,
                                    lz.frac - 1.0, lattice::fade(lz.frac),
                                    o.weight,      acc + static_cast<size_t>(j) * stride,
                                    stride,        o.first,
                                    o.finish};
    perlin_rows::accumulate_row(in);
  }
}

}  // namespace

void Fractal::grid_perlin_batched(const Coord* xs, int nx, const Coord* zs, int nz, double* out) const {
  constexpr size_t kPad = perlin_rows::kPadLanes;
  const size_t stride = (static_cast<size_t>(nx) + kPad - 1) / kPad * kPad;
  const size_t count = stride * static_cast<size_t>(nz);
  // Rows a whole number of vectors long are summed in `out` itself: no copy at the end.
  const bool in_place = stride == static_cast<size_t>(nx);
  thread_local GridScratch scratch;
  Columns cols;
  LatticeRow lo, hi;
  double* scratch_acc = scratch.carve(stride, in_place ? 0 : count, cols, lo, hi);
  double* acc = in_place ? out : scratch_acc;
  const perlin_rows::FinishSpec finish{spec_.offset, spec_.amplitude, norm_};
  for (size_t k = 0; k < octaves_.size(); ++k) {
    const Octave& o = octaves_[k];
    set_columns(xs, nx, o.frequency, cols);
    const OctaveRun run{o.seed, o.frequency, o.weight, k == 0, k + 1 == octaves_.size() ? &finish : nullptr};
    accumulate_octave(run, cols, nx, zs, nz, lo, hi, acc, stride);
  }
  if (octaves_.empty()) {  // no octave wrote the sums: finish the scalar path's 0.0
    std::fill(acc, acc + count, 0.0);
    perlin_rows::finish(acc, count, spec_.offset, spec_.amplitude, norm_);
  }
  if (in_place) return;
  for (int j = 0; j < nz; ++j) {
    const double* row = acc + static_cast<size_t>(j) * stride;
    std::copy(row, row + nx, out + static_cast<size_t>(j) * static_cast<size_t>(nx));
  }
}

}  // namespace chunkforge
