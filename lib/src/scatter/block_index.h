// The scatter field's blocks by (layer, block coordinates): a flat open-addressing table
// (linear probing, power-of-two size, never erased) instead of a node-based map, so a lookup
// is one hash and a short scan of one array. Internal to lib/.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "chunkforge/hash.h"

namespace chunkforge::scatter {

template <typename Block>
class BlockIndex {
 public:
  BlockIndex() : slots_(kInitialSlots) {}

  Block* find(uint32_t layer, int64_t bi, int64_t bj) const {
    for (size_t s = home(layer, bi, bj);; s = (s + 1) & mask()) {
      const Slot& slot = slots_[s];
      if (slot.block == nullptr) return nullptr;
      if (slot.bi == bi && slot.bj == bj && slot.layer == layer) return slot.block;
    }
  }
  // Adds a block that find() does not hold.
  void insert(uint32_t layer, int64_t bi, int64_t bj, Block* block) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    place(Slot{bi, bj, layer, block});
    ++size_;
  }
  size_t size() const { return size_; }
  // Empties the index, keeping its table (a memo that starts afresh grows to about the same).
  void clear() {
    std::fill(slots_.begin(), slots_.end(), Slot{});
    size_ = 0;
  }

 private:
  static constexpr size_t kInitialSlots = 256;
  struct Slot {
    int64_t bi = 0, bj = 0;
    uint32_t layer = 0;
    Block* block = nullptr;  // null: empty
  };
  size_t mask() const { return slots_.size() - 1; }
  size_t home(uint32_t layer, int64_t bi, int64_t bj) const {
    const uint64_t h = mix64(static_cast<uint64_t>(bi) * 0x9e3779b97f4a7c15ULL ^
                             static_cast<uint64_t>(bj) * 0xc2b2ae3d27d4eb4fULL ^ layer);
    return static_cast<size_t>(h) & mask();
  }
  void place(const Slot& slot) {
    size_t s = home(slot.layer, slot.bi, slot.bj);
    while (slots_[s].block != nullptr) s = (s + 1) & mask();
    slots_[s] = slot;
  }
  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    for (const Slot& slot : old) {
      if (slot.block != nullptr) place(slot);
    }
  }

  std::vector<Slot> slots_;
  size_t size_ = 0;
};

}  // namespace chunkforge::scatter
