// The batched 2D Perlin grid's inner loop as vector code (perlin_rows_simd.cc, Highway with
// runtime dispatch): the grid rows of one octave inside one lattice cell, and the final
// offset/amplitude step. The caller (noise_grid_batched.cc) prepares per-column tables so that the
// kernel only loads, multiplies, adds and stores: the same IEEE operations, in the same order, as
// perlin2_cell() + Fractal::finish() in noise.cc, so every lane equals the scalar path's bits.
#pragma once

#include <cstddef>
#include <cstdint>

#include "chunkforge/coord.h"

namespace chunkforge::perlin_rows {

// Row lengths given to the kernel are multiples of this (AVX-512 holds 8 doubles); tables are
// padded with zeros to it, and padded lanes are computed and thrown away.
constexpr size_t kPadLanes = 8;

// One lattice row zc of one octave, per sample column i whose lattice cell is c_i and whose
// fraction is fx_i. gx, gz: the gradient of the corner (kGrad2 via the corner hash).
struct LatticeRowView {
  const double* aa;  // gx(c_i, zc) * fx_i
  const double* ab;  // gx(c_i + 1, zc) * (fx_i - 1.0)
  const double* ga;  // gz(c_i, zc)
  const double* gb;  // gz(c_i + 1, zc)
};

// A lattice row's tables as hash_row writes them (LatticeRowView's four).
struct LatticeRowTables {
  double* aa;
  double* ab;
  double* ga;
  double* gb;
};

// One lattice row zc of one octave, hashed column by column (noise_grid_batched.cc's
// build_lattice_row: lattice::corner, gradient2 and the products gx * fx).
struct HashRowInputs {
  uint64_t seed;        // the octave's
  int64_t zc;           // the lattice row
  const int64_t* cell;  // c_i
  const double* frac;   // fx_i
  const double* frac1;  // fx_i - 1.0
  LatticeRowTables out;
  size_t n;  // columns
};

// Coordinates scaled to one octave's lattice, with what the kernel needs of each
// (Coord::scaled, then fade; views of n entries).
struct ScaledCoords {
  int64_t* cell;  // the lattice cell
  double* frac;   // the fraction f in it
  double* frac1;  // f - 1.0
  double* fade;   // lattice::fade(f)
};

// Fractal::finish's constants: offset + amplitude * (sum / norm).
struct FinishSpec {
  double offset;
  double amplitude;
  double norm;
};

// The grid rows of one octave that lie in one lattice cell (z between zc and zc + 1): they share
// the two lattice rows' tables and differ in fz alone.
struct RowsInputs {
  LatticeRowView lo;  // lattice row zc: corners 00 and 10
  LatticeRowView hi;  // lattice row zc + 1: corners 01 and 11
  const double* u;    // fade(fx_i)
  const double* fz;   // each row's fraction in the cell
  const double* fz1;  // fz - 1.0
  const double* v;    // fade(fz)
  size_t rows;
  double weight;  // the octave's weight
  double* acc;    // the first row's running sums: row r at acc + r * stride
  size_t stride;
  size_t n;  // columns: a multiple of kPadLanes
  // The first octave: acc is not read, the sum starts at 0.0 (0.0 + x, as the scalar sum does:
  // it turns -0.0 into +0.0), so the accumulator need not be zeroed beforehand.
  bool first = false;
  // The last octave: acc receives the finished value (Fractal::finish of the sum) rather than
  // the sum, saving a pass over the grid.
  const FinishSpec* finish = nullptr;
};

// acc[r * stride + i] += weight * lerp(lerp(n00, n10, u), lerp(n01, n11, u), v[r]) for r < rows,
// i < n (see `first` and `finish` above for the first and last octaves).
void accumulate_rows(const RowsInputs& in);
// The row's tables for the first columns that fill whole vectors, where the instruction set
// multiplies 64-bit integers (AVX-512; elsewhere none): returns how many it did.
size_t hash_row(const HashRowInputs& in);
// out[i] = exact::scaled(in[i], factor) and its derived values, for the first i < n that fill
// whole vectors: returns how many it did; the caller does the rest with the scalar functions
// (the same bits either way).
size_t scale_coords(const Coord* in, size_t n, double factor, const ScaledCoords& out);
// values[i] = offset + amplitude * (values[i] / norm) for i < n (n a multiple of kPadLanes).
void finish(double* values, size_t n, double offset, double amplitude, double norm);
// The instruction set the dispatcher chose on this CPU ("AVX2", "AVX3", "EMU128", ...).
const char* target_name();

}  // namespace chunkforge::perlin_rows
