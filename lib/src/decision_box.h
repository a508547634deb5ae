// The last answer of first-match rules, reused while the values stay inside one box.
//
// Classifying a grid's samples rule by rule is a fifth of a chunk's time in a client's view, and
// neighbouring samples usually land where the previous one did. Rules made of closed intervals
// (Interval::contains: min <= v && v <= max) decide alike for every value strictly between the
// same two neighbouring interval ends on each axis: no end lies between, so no comparison can
// change. DecisionBox keeps that open box around the last values classified in full; values
// inside it take the last answer after two comparisons per axis that has ends. A value equal to
// an end has no box on that axis, so it, and every value after it, is classified in full until a
// box holds again: the answers are the rules' own, bit for bit.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "chunkforge/terrain_fields.h"

namespace chunkforge {

// The finite ends of every interval of a set of rules, axis by axis (an infinite end bounds no
// finite value, so it decides nothing): sorted, without repeats.
class AxisEnds {
 public:
  explicit AxisEnds(size_t axes) : ends_(axes) {}

  void add(size_t axis, Interval range) {
    for (double end : {range.min, range.max}) {
      if (std::isfinite(end)) ends_[axis].push_back(end);
    }
  }
  // Call once every interval is added.
  void seal() {
    for (size_t a = 0; a < ends_.size(); ++a) {
      std::vector<double>& e = ends_[a];
      std::sort(e.begin(), e.end());
      e.erase(std::unique(e.begin(), e.end()), e.end());
      if (!e.empty()) decisive_.push_back(a);
    }
  }

  size_t axes() const { return ends_.size(); }
  const std::vector<double>& of(size_t axis) const { return ends_[axis]; }
  // The axes with at least one end: only they can change an answer.
  const std::vector<size_t>& decisive() const { return decisive_; }

 private:
  std::vector<std::vector<double>> ends_;
  std::vector<size_t> decisive_;
};

class DecisionBox {
 public:
  // Empty: holds no values until around() is called.
  explicit DecisionBox(const AxisEnds& ends) : ends_(&ends) {
    for (size_t a : ends.decisive()) sides_.push_back(Sides{a, 0.0, 0.0});
  }

  // Whether values[a] lies strictly inside the box on every decisive axis (a NaN never does).
  bool holds(const double* values) const {
    for (const Sides& s : sides_) {
      const double v = values[s.axis];
      if (!(s.low < v && v < s.high)) return false;
    }
    return true;
  }

  // The box around `values`, whose answer is `answer`: on each decisive axis the open interval
  // between the nearest ends below and above, empty where the value is an end itself.
  void around(const double* values, uint32_t answer) {
    answer_ = answer;
    constexpr double kInf = std::numeric_limits<double>::infinity();
    for (Sides& s : sides_) {
      const std::vector<double>& e = ends_->of(s.axis);
      const double v = values[s.axis];
      const auto above = std::upper_bound(e.begin(), e.end(), v);
      s.low = above == e.begin() ? -kInf : *(above - 1);
      s.high = above == e.end() ? kInf : *above;
      // An end (or a NaN): no open interval holds it, so the box holds nothing on this axis.
      if (!(s.low < v && v < s.high)) s.low = s.high = 0.0;
    }
  }

  uint32_t answer() const { return answer_; }

  // The rules' answer for `values`: the box's while it holds them, else full() (the rules in
  // full), around which the next box is built while boxes pay. Once they do not (a grid whose
  // samples mostly land elsewhere), the last box stays: it is right for its own values still.
  template <typename Full>
  uint32_t answer(const double* values, const Full& full) {
    ++asked_;
    if (holds(values)) return answer_;
    ++missed_;
    const uint32_t answer = full();
    if (pays()) around(values, answer);
    return answer;
  }

 private:
  // Building a box costs about what classifying in full does, and testing one a fifth of that:
  // boxes pay while at least half of the samples are held. A chunk's grid misses 2 to 10 %; a
  // LOD tile's lattice, with samples 64 to 2,048 units apart, 70 to 95 %. Judged over all the
  // samples asked (one grid's), from the kTrial-th on.
  static constexpr size_t kTrial = 64;
  bool pays() const { return asked_ < kTrial || 2 * missed_ <= asked_; }

  struct Sides {
    size_t axis;
    double low, high;  // the open interval, empty when low == high
  };
  const AxisEnds* ends_;
  std::vector<Sides> sides_;  // one per decisive axis
  uint32_t answer_ = 0;
  size_t asked_ = 0, missed_ = 0;
};

}  // namespace chunkforge
