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

// Scales n coordinates to an octave's lattice: the vector kernel takes whole vectors, the scalar
// functions the rest (the same bits either way).
void scale_coords(const Coord* in, int n, double factor, const perlin_rows::ScaledCoords& out) {
  for (size_t i = perlin_rows::scale_coords(in, static_cast<size_t>(n), factor, out); i < static_cast<size_t>(n); ++i) {
    const Coord l = exact::scaled(in[i], factor);
    out.cell[i] = l.cell;
    out.frac[i] = l.frac;
    out.frac1[i] = l.frac - 1.0;
    out.fade[i] = lattice::fade(l.frac);
  }
}

void set_columns(const Coord* xs, int nx, double frequency, Columns& cols) {
  scale_coords(xs, nx, frequency, perlin_rows::ScaledCoords{cols.cell, cols.frac, cols.frac1, cols.u});
}

// The gradients of lattice row zc at every column's two x corners (perlin_rows.h; views into
// GridScratch).
struct LatticeRow {
  perlin_rows::LatticeRowView view() const { return {aa, ab, ga, gb}; }
  perlin_rows::LatticeRowTables writable() const { return {aa, ab, ga, gb}; }
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
  // Carves the accumulator (`acc_size` doubles, not zeroed: the first octave writes it), the
  // grid rows' scaled coordinates (`rows`), then the columns and two lattice rows for rows of
  // `stride`, zeroed so that padded lanes compute on zeros.
  double* carve(size_t stride, size_t acc_size, size_t rows, Columns& cols, perlin_rows::ScaledCoords& row_coords,
                LatticeRow& lo, LatticeRow& hi) {
    constexpr size_t kArrays = 3 + 2 * 4;  // the columns' doubles, then each lattice row's
    doubles.resize(acc_size + 3 * rows + kArrays * stride);
    cells.resize(stride + rows);
    double* next = doubles.data() + acc_size;
    row_coords = perlin_rows::ScaledCoords{cells.data() + stride, next, next + rows, next + 2 * rows};
    next += 3 * rows;
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
// cell's left corner is this cell's right one (the scalar grid reuses the first kind too). The
// vector kernel hashes every column's corners where it can (64-bit multiplies: AVX-512 only) and
// leaves the rest of the row, or all of it, to the scalar loop: the same hashes either way.
void build_lattice_row(uint64_t seed, const Columns& cols, int nx, int64_t zc, LatticeRow& row) {
  const int start = static_cast<int>(perlin_rows::hash_row(
      perlin_rows::HashRowInputs{seed, zc, cols.cell, cols.frac, cols.frac1, row.writable(), static_cast<size_t>(nx)}));
  uint64_t ha = 0, hb = 0;
  for (int i = start; i < nx; ++i) {
    const int64_t c = cols.cell[i];
    if (i == start || c != cols.cell[i - 1]) {
      ha = (i > start && c - 1 == cols.cell[i - 1]) ? hb : lattice::corner(seed, c, zc);
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
  double weight;
  bool first;                             // the sums start here (perlin_rows.h, RowInputs)
  const perlin_rows::FinishSpec* finish;  // the last octave: finish the sums
};

// Adds one octave to every row of acc (rows of `stride` doubles); `rows` are the grid rows'
// coordinates scaled to the octave; lo and hi are scratch rows of that length, allocated once
// per grid rather than per octave. The grid rows inside one lattice cell go to the kernel
// together (RowsInputs): they share both lattice rows.
void accumulate_octave(const OctaveRun& o, const Columns& cols, int nx, const perlin_rows::ScaledCoords& rows, int nz,
                       LatticeRow& lo, LatticeRow& hi, double* acc, size_t stride) {
  bool have_rows = false;
  for (int j = 0; j < nz;) {
    const int64_t zc = rows.cell[j];
    if (!have_rows || zc != lo.zc) {
      if (have_rows && zc == hi.zc) {
        std::swap(lo, hi);  // moved up one cell: the old upper row is the new lower one
      } else {
        build_lattice_row(o.seed, cols, nx, zc, lo);
      }
      build_lattice_row(o.seed, cols, nx, zc + 1, hi);
      have_rows = true;
    }
    int end = j + 1;
    while (end < nz && rows.cell[end] == zc) ++end;
    const perlin_rows::RowsInputs in{.lo = lo.view(),
                                     .hi = hi.view(),
                                     .u = cols.u,
                                     .fz = rows.frac + j,
                                     .fz1 = rows.frac1 + j,
                                     .v = rows.fade + j,
                                     .rows = static_cast<size_t>(end - j),
                                     .weight = o.weight,
                                     .acc = acc + static_cast<size_t>(j) * stride,
                                     .stride = stride,
                                     .n = stride,
                                     .first = o.first,
                                     .finish = o.finish};
    perlin_rows::accumulate_rows(in);
    j = end;
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
  perlin_rows::ScaledCoords rows;
  LatticeRow lo, hi;
  double* scratch_acc = scratch.carve(stride, in_place ? 0 : count, static_cast<size_t>(nz), cols, rows, lo, hi);
  double* acc = in_place ? out : scratch_acc;
  const perlin_rows::FinishSpec finish{spec_.offset, spec_.amplitude, norm_};
  for (size_t k = 0; k < octaves_.size(); ++k) {
    const Octave& o = octaves_[k];
    set_columns(xs, nx, o.frequency, cols);
    scale_coords(zs, nz, o.frequency, rows);
    const OctaveRun run{o.seed, o.weight, k == 0, k + 1 == octaves_.size() ? &finish : nullptr};
    accumulate_octave(run, cols, nx, rows, nz, lo, hi, acc, stride);
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
