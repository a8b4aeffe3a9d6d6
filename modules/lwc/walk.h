// SPDX-License-Identifier: MIT
// File: modules/lwc/walk.h
//
// The one walk over the integer points of a closed box in D dimensions, for every module that visits
// cells or chunks: lwc.cover (for_each_chunk over a chunk box), lwc.rebase (the barrier around a target
// cell) and lwc.broadphase (:cells, the cells and rows of a box's range). A module unit includes this
// header in its global module fragment, as it does lwc/check.h; nothing here is exported.
#ifndef LWC_WALK_H_
#define LWC_WALK_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace lwc::internal {

// walk_box()
//
// Calls fn(point) for every integer point of the closed box [lo, hi] (lo[k] <= hi[k] on every axis), axis
// 0 fastest: the order of an array indexed [z][y][x]. fn returns bool; false stops the walk, and then
// walk_box returns false (else true, after the last point). A counter is compared with its bound before
// it is stepped, never after, so a box reaching INT64_MAX is walked without overflow. With From > 0 the
// axes below From stay at lo: walk_box<D, 1> visits the rows of a box (each point's axis 0 is lo[0]).
template <std::size_t D, std::size_t From = 0, typename Fn>
  requires(From < D)
[[nodiscard]] inline bool walk_box(const std::array<std::int64_t, D>& lo, const std::array<std::int64_t, D>& hi,
                                   Fn&& fn) {
  std::array<std::int64_t, D> c = lo;
  for (;;) {
    if (!fn(std::as_const(c))) return false;
    std::size_t k = From;
    for (; k < D; ++k) {
      if (c[k] != hi[k]) {
        ++c[k];
        break;
      }
      c[k] = lo[k];
    }
    if (k == D) return true;
  }
}

}  // namespace lwc::internal

#endif  // LWC_WALK_H_
