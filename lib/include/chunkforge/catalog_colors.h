// File: chunkforge/catalog_colors.h
//
// The colours chunkforge draws a world in from above, written once for the pictures that must
// agree: the live map's layers (server/map), `chunkforge render` and `chunkforge lod`. A
// catalogue entry's colour ("#rrggbb" in the world definition; magenta where malformed, which
// validation prevents), and the relief that shades terrain: lighter where higher, darker water
// where deeper.
//
//   const std::vector<Rgb> materials = catalog_colors(world.definition().materials());
//   Rgb pixel = relief(materials[grid.material[k]], grid.elevation()[k], sea_level);
//
// Header-only and dependency-free, in chunkforge::common: the live map's library (server/map)
// reaches it through chunkforge::gen, and the `chunkforge` command links it whether or not the
// server, and so the map library, is built. Opaque RGB: an image with an alpha channel (the
// map's Rgba tiles) adds its own. Pure; thread-safe.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace chunkforge {

struct Rgb {
  uint8_t r = 0, g = 0, b = 0;
};

// "#rrggbb" as a colour; nullopt if malformed.
inline std::optional<Rgb> parse_color(const std::string& text) {
  unsigned r = 0, g = 0, b = 0;
  if (text.size() != 7 || std::sscanf(text.c_str(), "#%02x%02x%02x", &r, &g, &b) != 3) return std::nullopt;
  return Rgb{static_cast<uint8_t>(r), static_cast<uint8_t>(g), static_cast<uint8_t>(b)};
}

// A catalogue entry's colour: magenta where it does not parse, so that a bad one shows.
inline Rgb catalog_color(const std::string& text) { return parse_color(text).value_or(Rgb{255, 0, 255}); }

// The colours of a catalogue (biomes, materials, resources or structures: any entries with a
// `color()`, the world definition's or WorldInfo's), indexed as the entries are.
template <typename Entries>
std::vector<Rgb> catalog_colors(const Entries& entries) {
  std::vector<Rgb> out;
  for (const auto& e : entries) out.push_back(catalog_color(e.color()));
  return out;
}

// Each channel times f, clamped to [0, 255] and truncated.
inline Rgb scaled(Rgb c, double f) {
  auto channel = [f](uint8_t v) { return static_cast<uint8_t>(std::clamp(v * f, 0.0, 255.0)); };
  return Rgb{channel(c.r), channel(c.g), channel(c.b)};
}

// Terrain's colour with relief: under water down to 0.55 of it 27 units below sea level, above
// from 0.85 at sea level up to 1.1 of it 50 units higher.
inline Rgb relief(Rgb c, double elevation, double sea_level) {
  return scaled(c, elevation < sea_level ? std::clamp(1.0 + (elevation - sea_level) / 60.0, 0.55, 1.0)
                                         : std::clamp(0.85 + (elevation - sea_level) / 200.0, 0.85, 1.1));
}

}  // namespace chunkforge
