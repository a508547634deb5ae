// File: chunkforge/terrain_fields.h
//
// The terrain's scalar fields, declared once: kTerrainFields has one row per field with its name
// and where the world definition (world.proto) speaks of it: its NoiseField in Terrain and its
// Range in each rule message that can test it. Sampling, the grid, biome and material rules,
// structure checks, resource filters, validation and `chunkforge sample` loop over this table,
// so a new noise field is its proto fields plus one row here (docs/extending.md).
//
//   const TerrainPoint p = world.terrain().sample(x, z);
//   for (size_t f = 0; f < kTerrainFieldCount; ++f) print(kTerrainFields[f].name, p.values[f]);
//   double t = p.values[terrain_field("temperature")];
//
// Values are held in arrays indexed by a field's row (TerrainValues, TerrainGrid::values), so the
// row order is part of the API: append new fields, never reorder.
#pragma once

#include <array>
#include <cstddef>
#include <limits>
#include <string_view>

#include "chunkforge/v1/world.pb.h"

namespace chunkforge {

struct Interval {
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool contains(double v) const { return v >= min && v <= max; }
  // Finite on either side (every bound a world can set is within +-1e9).
  bool bounded() const { return min > -1e300 || max < 1e300; }
};

// An absent bound of the Range is unbounded.
inline Interval to_interval(const v1::Range& r) {
  Interval i;
  if (r.has_min()) i.min = r.min();
  if (r.has_max()) i.max = r.max();
  return i;
}

// A rule message's Range for a field, as its protobuf accessor (&v1::Biome::elevation).
template <typename Rule>
using RangeAccessor = const v1::Range& (Rule::*)() const;

struct TerrainFieldSpec {
  // The proto field name everywhere it appears (Terrain, the rules, TerrainSample), and the
  // salt of its noise, "terrain.<name>".
  std::string_view name;
  // Its noise in Terrain; nullptr for a field Terrain derives from others (slope, from
  // elevation), which needs code of its own in terrain.cc.
  const v1::NoiseField& (v1::Terrain::*noise)() const;
  // Its range in each rule message; nullptr where that rule cannot test it.
  RangeAccessor<v1::Biome> biome;
  RangeAccessor<v1::Material> material;
  RangeAccessor<v1::Check> check;
  RangeAccessor<v1::ResourceLayer> resource;  // besides max_slope (resource_layer.cc)
};

inline constexpr TerrainFieldSpec kTerrainFields[] = {
    // Surface height y, world units.
    {"elevation", &v1::Terrain::elevation, &v1::Biome::elevation, &v1::Material::elevation, &v1::Check::elevation,
     &v1::ResourceLayer::elevation},
    // Unitless climate fields.
    {"temperature", &v1::Terrain::temperature, &v1::Biome::temperature, &v1::Material::temperature, nullptr, nullptr},
    {"moisture", &v1::Terrain::moisture, &v1::Biome::moisture, &v1::Material::moisture, nullptr, nullptr},
    // Rise over run: central difference of elevation over +-1 unit.
    {"slope", nullptr, nullptr, &v1::Material::slope, &v1::Check::slope, nullptr},
};

inline constexpr size_t kTerrainFieldCount = std::size(kTerrainFields);

// The row of the field called `name`; in a constant expression an unknown name does not compile.
constexpr size_t terrain_field(std::string_view name) {
  for (size_t f = 0; f < kTerrainFieldCount; ++f) {
    if (kTerrainFields[f].name == name) return f;
  }
  throw "no terrain field of that name";
}

// The fields code refers to by name: the surface, and the field derived from it.
inline constexpr size_t kElevation = terrain_field("elevation");
inline constexpr size_t kSlope = terrain_field("slope");

// One value per field, indexed by row.
using TerrainValues = std::array<double, kTerrainFieldCount>;

// A rule's conditions on the terrain fields: an interval per field, unbounded where the rule
// sets none or cannot test the field. Only the bounded ones are kept and tested: an unbounded
// interval holds every value a field takes (all are finite), and rules usually bound one or two
// fields, so classification compares no more than it must.
class TerrainBounds {
 public:
  // Field `field` within `range`; an unbounded range removes the condition.
  void set(size_t field, Interval range) {
    size_t k = 0;
    while (k < count_ && conditions_[k].field != field) ++k;
    if (!range.bounded()) {
      if (k < count_) conditions_[k] = conditions_[--count_];
      return;
    }
    conditions_[k] = Condition{field, range};
    if (k == count_) ++count_;
  }
  Interval of(size_t field) const {
    for (size_t k = 0; k < count_; ++k) {
      if (conditions_[k].field == field) return conditions_[k].range;
    }
    return Interval{};
  }
  bool contains(const TerrainValues& values) const {
    return holds([&](size_t field) { return values[field]; });
  }
  // contains() with each bounded field's value asked of value_of(field) when its condition is
  // tested, so that a point query computes only the fields it needs, up to the first failing.
  template <typename ValueOf>
  bool holds(ValueOf value_of) const {
    for (size_t k = 0; k < count_; ++k) {
      if (!conditions_[k].range.contains(value_of(conditions_[k].field))) return false;
    }
    return true;
  }
  bool bounded() const { return count_ > 0; }

 private:
  struct Condition {
    size_t field = 0;
    Interval range;
  };
  std::array<Condition, kTerrainFieldCount> conditions_{};
  size_t count_ = 0;
};

// The bounds a rule message sets, through one column of the table:
//   terrain_bounds(biome, &TerrainFieldSpec::biome)
template <typename Rule>
TerrainBounds terrain_bounds(const Rule& rule, RangeAccessor<Rule> TerrainFieldSpec::*column) {
  TerrainBounds bounds;
  for (size_t f = 0; f < kTerrainFieldCount; ++f) {
    if (const RangeAccessor<Rule> range = kTerrainFields[f].*column) bounds.set(f, to_interval((rule.*range)()));
  }
  return bounds;
}

}  // namespace chunkforge
