// The seen-land record (chunkforge/seen_land.h): per region of 16 x 16 chunks, one bitmap for
// each epoch whose chunks were first seen there, and its canonical bytes.
#include "chunkforge/seen_land.h"

#include <algorithm>
#include <bit>
#include <map>
#include <tuple>

#include "chunkforge/coord.h"
#include "chunkforge/hash.h"

namespace chunkforge {
namespace {

constexpr uint8_t kFormat = 1;
constexpr size_t kMapBytes = 8 + 8 + 4 + 32;

void put(std::string& out, uint64_t v, int bytes) {
  for (int k = 0; k < bytes; ++k) out.push_back(static_cast<char>((v >> (8 * k)) & 0xff));
}

uint64_t get(std::string_view in, size_t at, int bytes) {
  uint64_t v = 0;
  for (int k = 0; k < bytes; ++k) v |= static_cast<uint64_t>(static_cast<uint8_t>(in[at + k])) << (8 * k);
  return v;
}

}  // namespace

size_t SeenLand::RegionHash::operator()(const RegionKey& k) const {
  return static_cast<size_t>(mix64(mix64(static_cast<uint64_t>(k.x)) ^ static_cast<uint64_t>(k.z)));
}

SeenLand::RegionKey SeenLand::region_of(ChunkCoord c) {
  return {floor_div(c.x, kRegionSide), floor_div(c.z, kRegionSide)};
}

unsigned SeenLand::bit_of(ChunkCoord c) {
  const auto i = static_cast<unsigned>(c.x - floor_div(c.x, kRegionSide) * kRegionSide);
  const auto j = static_cast<unsigned>(c.z - floor_div(c.z, kRegionSide) * kRegionSide);
  return (j << kRegionShift) | i;
}

std::optional<uint32_t> SeenLand::epoch_in(const Region& region, unsigned bit) const {
  for (const EpochBits& m : region) {
    if (((m.bits[bit >> 6] >> (bit & 63)) & 1) != 0) return m.epoch;
  }
  return std::nullopt;
}

SeenLand::EpochBits& SeenLand::map_for(Region& region, uint32_t epoch) {
  auto it =
      std::lower_bound(region.begin(), region.end(), epoch, [](const EpochBits& m, uint32_t e) { return m.epoch < e; });
  if (it == region.end() || it->epoch != epoch) it = region.insert(it, EpochBits{.epoch = epoch});
  return *it;
}

uint32_t SeenLand::mark(ChunkCoord c, uint32_t epoch) {
  Region& region = regions_[region_of(c)];
  const unsigned bit = bit_of(c);
  if (const std::optional<uint32_t> seen = epoch_in(region, bit)) return *seen;
  map_for(region, epoch).bits[bit >> 6] |= uint64_t{1} << (bit & 63);
  ++chunks_;
  return epoch;
}

void SeenLand::merge(int64_t region_x, int64_t region_z, uint32_t epoch, const Bits& bits) {
  Region& region = regions_[{region_x, region_z}];
  Bits fresh = bits;  // the chunks no earlier epoch holds
  for (EpochBits& m : region) {
    for (size_t w = 0; w < fresh.size(); ++w) {
      if (m.epoch < epoch) {
        fresh[w] &= ~m.bits[w];
      } else if (m.epoch > epoch) {
        chunks_ -= static_cast<size_t>(std::popcount(m.bits[w] & fresh[w]));
        m.bits[w] &= ~fresh[w];  // seen earlier than recorded there
      }
    }
  }
  std::erase_if(region, [](const EpochBits& m) { return m.bits == Bits{}; });
  if (fresh == Bits{}) {
    if (region.empty()) regions_.erase({region_x, region_z});
    return;
  }
  EpochBits& m = map_for(region, epoch);
  for (size_t w = 0; w < fresh.size(); ++w) {
    chunks_ += static_cast<size_t>(std::popcount(fresh[w] & ~m.bits[w]));
    m.bits[w] |= fresh[w];
  }
}

void SeenLand::for_each_map(const std::function<void(int64_t, int64_t, uint32_t, const Bits&)>& fn) const {
  std::map<std::tuple<int64_t, int64_t>, const Region*> ordered;
  for (const auto& [key, region] : regions_) ordered[{key.z, key.x}] = &region;
  for (const auto& [zx, region] : ordered) {
    for (const EpochBits& m : *region) fn(std::get<1>(zx), std::get<0>(zx), m.epoch, m.bits);
  }
}

std::optional<uint32_t> SeenLand::epoch_of(ChunkCoord c) const {
  const auto it = regions_.find(region_of(c));
  if (it == regions_.end()) return std::nullopt;
  return epoch_in(it->second, bit_of(c));
}

template <typename Fn>
bool SeenLand::find_map_before(ChunkCoord lo, ChunkCoord hi, uint32_t epoch, Fn&& fn) const {
  if (epoch == 0 || regions_.empty()) return false;
  const RegionKey r0 = region_of(lo), r1 = region_of(hi);
  for (int64_t rz = r0.z; rz <= r1.z; ++rz) {
    for (int64_t rx = r0.x; rx <= r1.x; ++rx) {
      const auto it = regions_.find({rx, rz});
      if (it == regions_.end()) continue;
      for (const EpochBits& m : it->second) {
        if (m.epoch >= epoch) break;
        if (fn(rx, rz, m)) return true;
      }
    }
  }
  return false;
}

bool SeenLand::any_before(ChunkCoord lo, ChunkCoord hi, uint32_t epoch) const {
  return find_map_before(lo, hi, epoch, [&](int64_t rx, int64_t rz, const EpochBits& m) {
    // The map's rows and columns that fall inside [lo, hi].
    for (int64_t z = std::max(lo.z, rz * kRegionSide); z <= std::min(hi.z, rz * kRegionSide + kRegionSide - 1); ++z) {
      for (int64_t x = std::max(lo.x, rx * kRegionSide); x <= std::min(hi.x, rx * kRegionSide + kRegionSide - 1); ++x) {
        const unsigned bit = bit_of({x, z});
        if (((m.bits[bit >> 6] >> (bit & 63)) & 1) != 0) return true;
      }
    }
    return false;
  });
}

void SeenLand::merge(const SeenLand& other) {
  other.for_each_map([this](int64_t x, int64_t z, uint32_t epoch, const Bits& bits) { merge(x, z, epoch, bits); });
}

SeenLand SeenLand::excerpt(ChunkCoord lo, ChunkCoord hi, uint32_t epoch) const {
  SeenLand out;
  find_map_before(lo, hi, epoch, [&](int64_t rx, int64_t rz, const EpochBits& m) {
    out.merge(rx, rz, m.epoch, m.bits);
    return false;
  });
  return out;
}

size_t SeenLand::maps() const {
  size_t n = 0;
  for (const auto& [key, region] : regions_) n += region.size();
  return n;
}

size_t SeenLand::epochs() const {
  size_t n = 0;
  for (const auto& [key, region] : regions_) n = std::max(n, static_cast<size_t>(region.back().epoch) + 1);
  return n;
}

std::string SeenLand::encode() const {
  std::string out(1, static_cast<char>(kFormat));
  out.reserve(1 + maps() * kMapBytes);
  for_each_map([&](int64_t x, int64_t z, uint32_t epoch, const Bits& bits) {
    put(out, static_cast<uint64_t>(x), 8);
    put(out, static_cast<uint64_t>(z), 8);
    put(out, epoch, 4);
    for (uint64_t word : bits) put(out, word, 8);
  });
  return out;
}

std::optional<SeenLand> SeenLand::decode(std::string_view bytes, std::string& error) {
  if (bytes.empty() || static_cast<uint8_t>(bytes[0]) != kFormat) {
    error = "seen land: not format " + std::to_string(kFormat);
    return std::nullopt;
  }
  if ((bytes.size() - 1) % kMapBytes != 0) {
    error = "seen land: " + std::to_string(bytes.size() - 1) + " bytes of maps is not a whole number of " +
            std::to_string(kMapBytes) + "-byte maps";
    return std::nullopt;
  }
  SeenLand seen;
  for (size_t at = 1; at < bytes.size(); at += kMapBytes) {
    const RegionKey key{static_cast<int64_t>(get(bytes, at, 8)), static_cast<int64_t>(get(bytes, at + 8, 8))};
    EpochBits m{.epoch = static_cast<uint32_t>(get(bytes, at + 16, 4))};
    for (size_t w = 0; w < m.bits.size(); ++w) m.bits[w] = get(bytes, at + 20 + 8 * w, 8);
    if (m.bits == Bits{}) {
      error = "seen land: an empty map at byte " + std::to_string(at);
      return std::nullopt;
    }
    Region& region = seen.regions_[key];
    if (!region.empty() && region.back().epoch >= m.epoch) {
      error = "seen land: maps out of order or repeated at byte " + std::to_string(at);
      return std::nullopt;
    }
    for (const EpochBits& earlier : region) {
      for (size_t w = 0; w < m.bits.size(); ++w) {
        if ((earlier.bits[w] & m.bits[w]) != 0) {
          error = "seen land: a chunk seen in two epochs at byte " + std::to_string(at);
          return std::nullopt;
        }
      }
    }
    for (uint64_t word : m.bits) seen.chunks_ += static_cast<size_t>(std::popcount(word));
    region.push_back(m);
  }
  return seen;
}

}  // namespace chunkforge
