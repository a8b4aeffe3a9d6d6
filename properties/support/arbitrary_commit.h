// SPDX-License-Identifier: MIT
// File: properties/support/arbitrary_commit.h
//
// RapidCheck generators for lwc.commit, on top of arbitrary_decompose.h. Runs only form when marked
// chunks are neighbours, which independent random cells almost never are, so most cells fall in a small
// window of chunks; the window itself sits at the extremes on purpose: the first and last chunk columns
// and rows of int64 (with chunk size 1 those are INT64_MIN and INT64_MAX, where x + 1 overflows), and
// around the origin, where floor and truncation differ. A few cells are anywhere at all.
#ifndef LWC_PROPERTIES_SUPPORT_ARBITRARY_COMMIT_H_
#define LWC_PROPERTIES_SUPPORT_ARBITRARY_COMMIT_H_

#include <rapidcheck.h>

#include <algorithm>
#include <cstdint>
#include <ostream>
#include <utility>
#include <vector>

#include "absl/numeric/int128.h"
#include "support/arbitrary_decompose.h"

namespace lwc::testing {

// A cell: lwc::Point2 comes from a module, and headers come before imports.
struct Cell {
  std::int64_t x;
  std::int64_t y;
};

inline std::ostream& operator<<(std::ostream& os, const Cell& c) {
  return os << "(" << c.x << ", " << c.y << ")";
}

// A chunk size for a committer: 1 (chunks are cells, so runs reach the int64 ends), the tilemap dirty-chunk
// example's 16, and other sizes, powers of two or not, up to INT64_MAX.
inline rc::Gen<std::int64_t> commit_chunk_size() {
  return rc::gen::weightedOneOf<std::int64_t>({
      {4, rc::gen::just<std::int64_t>(1)},
      {3, rc::gen::just<std::int64_t>(16)},
      {1, rc::gen::element<std::int64_t>(2, 3, 1000, kInt64Max, std::int64_t{1} << 62)},
      {1, positive_size()},
  });
}

// A window of chunks: columns x0 .. x0 + width - 1 and rows y0 .. y0 + height - 1 (cut short where the
// chunk coordinates of the size end).
struct ChunkWindow {
  std::int64_t size;
  std::int64_t x0;
  std::int64_t y0;
  std::int64_t width;
  std::int64_t height;
};

inline std::ostream& operator<<(std::ostream& os, const ChunkWindow& w) {
  return os << "{size " << w.size << ", chunks x " << w.x0 << " + [0, " << w.width << "), y " << w.y0
            << " + [0, " << w.height << ")}";
}

// The smallest and largest chunk coordinates of a size: floor(INT64_MIN / size), floor(INT64_MAX / size).
inline std::int64_t min_chunk(std::int64_t size) {
  return kInt64Min / size - (kInt64Min % size != 0 ? 1 : 0);
}
inline std::int64_t max_chunk(std::int64_t size) { return kInt64Max / size; }

// The first chunk coordinate of a window of `extent` chunks: at either int64 end, across the origin, or
// anywhere between.
inline rc::Gen<std::int64_t> window_start(std::int64_t size, std::int64_t extent) {
  const std::int64_t lo = min_chunk(size);
  // Sizes near INT64_MAX have fewer chunk coordinates than a window: the window then starts at the first.
  const std::int64_t last = std::max(lo, max_chunk(size) - extent + 1);
  return rc::gen::weightedOneOf<std::int64_t>({
      {2, rc::gen::element(lo, last)},
      {2, rc::gen::element(std::max(lo, -extent / 2), std::max(lo, std::int64_t{0}), std::max(lo, -extent))},
      {1, last > lo ? rc::gen::inRange(lo, last) : rc::gen::just(lo)},
  });
}

inline rc::Gen<ChunkWindow> chunk_window() {
  return rc::gen::mapcat(commit_chunk_size(), [](std::int64_t size) {
    return rc::gen::mapcat(
        rc::gen::pair(rc::gen::inRange<std::int64_t>(1, 9), rc::gen::inRange<std::int64_t>(1, 4)),
        [size](std::pair<std::int64_t, std::int64_t> extent) {
          return rc::gen::map(
              rc::gen::pair(window_start(size, extent.first), window_start(size, extent.second)),
              [size, extent](std::pair<std::int64_t, std::int64_t> start) {
                return ChunkWindow{size, start.first, start.second, extent.first, extent.second};
              });
        });
  });
}

// One coordinate of a cell in chunk start + [0, extent) of `size`: the chunk's first or last cell or
// any between, computed in int128 and clamped to int64 (which also clamps chunks past the last one).
inline rc::Gen<std::int64_t> coordinate_in(std::int64_t start, std::int64_t extent, std::int64_t size) {
  return rc::gen::map(rc::gen::pair(rc::gen::inRange<std::int64_t>(0, extent),
                                    rc::gen::weightedOneOf<std::int64_t>({
                                        {1, rc::gen::element(std::int64_t{0}, size - 1)},
                                        {2, rc::gen::inRange<std::int64_t>(0, size)},
                                    })),
                      [start, size](std::pair<std::int64_t, std::int64_t> offset) {
                        const absl::int128 v = (absl::int128(start) + offset.first) * size + offset.second;
                        return static_cast<std::int64_t>(std::clamp<absl::int128>(v, kInt64Min, kInt64Max));
                      });
}

// A cell: nearly always in the window, sometimes anywhere (extremes favoured).
inline rc::Gen<Cell> window_cell(const ChunkWindow& w) {
  return rc::gen::weightedOneOf<Cell>({
      {12, rc::gen::map(
               rc::gen::pair(coordinate_in(w.x0, w.width, w.size), coordinate_in(w.y0, w.height, w.size)),
               [](std::pair<std::int64_t, std::int64_t> p) {
                 return Cell{p.first, p.second};
               })},
      {1, rc::gen::map(rc::gen::pair(any_int64(), any_int64()),
                       [](std::pair<std::int64_t, std::int64_t> p) {
                         return Cell{p.first, p.second};
                       })},
  });
}

}  // namespace lwc::testing

#endif  // LWC_PROPERTIES_SUPPORT_ARBITRARY_COMMIT_H_
