// SPDX-License-Identifier: MIT
// File: modules/lwc/broadphase/cells.h
//
// The second room of a box's way: its cells. The walk over a range of cells with each cell's start flags
// (bit k: the cell is the range's first on axis k), and the reference-cell pairing kernel that the batch
// grid and the persistent grid's first build share: the boxes of one cell gathered once, and every pair of
// them that overlaps reported from their reference cell only (B3, B9), each once.
// Spec: docs/broadphase.md (B3, B8, B9).
//
// One source, two modes (lwc/config.h): `#include <lwc/broadphase.h>` brings it without module support;
// the module unit modules/broadphase/cells.cppm exports the same declarations as lwc.broadphase:cells.
#ifndef LWC_BROADPHASE_CELLS_H_
#define LWC_BROADPHASE_CELLS_H_

#include "lwc/config.h"
#ifndef LWC_MODULE_UNIT  // modules/broadphase/cells.cppm includes these in its global module fragment
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <type_traits>
#include <utility>
#include <vector>

#include "lwc/exact_fp.h"
#include "lwc/walk.h"
// ... and imports these.
#include "lwc/broadphase/box.h"
#endif

// The arithmetic below is exact IEEE arithmetic whatever the consumer's flags (lwc/exact_fp.h).
LWC_EXACT_FP_BEGIN

LWC_EXPORT namespace lwc {

// Pair
//
// Two box indices into the input span, a < b. Pairs order lexicographically (the canonical order).
struct Pair {
  std::uint32_t a;
  std::uint32_t b;

  friend constexpr bool operator==(const Pair&, const Pair&) noexcept = default;
  friend constexpr auto operator<=>(const Pair&, const Pair&) noexcept = default;
  friend std::ostream& operator<<(std::ostream& os, const Pair& p) {
    return os << "(" << p.a << ", " << p.b << ")";
  }
};

}  // namespace lwc

namespace lwc::internal {

// The start flags of a cell that is every box's first on every axis.
template <std::size_t D>
[[nodiscard]] constexpr std::uint32_t all_flags() {
  return (std::uint32_t{1} << D) - 1;
}

// Calls fn(cell, flags) or, for a fn returning bool, until it returns false; returns false iff it did.
template <typename Fn, typename... Args>
[[nodiscard]] inline bool go_on(Fn& fn, Args&&... args) {
  if constexpr (std::is_same_v<std::invoke_result_t<Fn&, Args...>, bool>) {
    return fn(std::forward<Args>(args)...);
  } else {
    fn(std::forward<Args>(args)...);
    return true;
  }
}

// for_each_row()
//
// Calls fn(row, flags) for every row of `r` (the cells of r whose axis 0 is r.lo[0]), axis 1 fastest, then
// axis 2; bit k of flags (k >= 1) is set iff row[k] == r.lo[k]. A fn returning bool stops the walk by
// returning false (then for_each_row returns false). The rows are lwc/walk.h's walk of r from axis 1 on,
// so a range reaching INT64_MAX is walked without overflow.
template <std::size_t D, typename Fn>
bool for_each_row(const CellRange<D>& r, Fn&& fn) {
  return walk_box<D, 1>(r.lo, r.hi, [&](const std::array<std::int64_t, D>& row) {
    std::uint32_t outer = 0;
    for (std::size_t k = 1; k < D; ++k) outer |= static_cast<std::uint32_t>(row[k] == r.lo[k]) << k;
    return go_on(fn, row, outer);
  });
}

// for_each_cell()
//
// Calls fn(cell, flags) for every cell of `r`, x fastest (the order of an array indexed [z][y][x]); bit k
// of flags is set iff cell[k] == r.lo[k], the cell is the range's first on axis k. A fn returning bool
// stops the walk by returning false (then for_each_cell returns false).
template <std::size_t D, typename Fn>
bool for_each_cell(const CellRange<D>& r, Fn&& fn) {
  return for_each_row<D>(r, [&](const std::array<std::int64_t, D>& row, std::uint32_t outer) {
    std::array<std::int64_t, D> c = row;
    for (std::int64_t x = r.lo[0];; ++x) {
      c[0] = x;
      if (!go_on(fn, std::as_const(c), outer | static_cast<std::uint32_t>(x == r.lo[0]))) return false;
      if (x == r.hi[0]) return true;
    }
  });
}

template <std::size_t D>
[[nodiscard]] bool contains(const CellRange<D>& r, const std::array<std::int64_t, D>& c) {
  for (std::size_t k = 0; k < D; ++k) {
    if (c[k] < r.lo[k] || c[k] > r.hi[k]) return false;
  }
  return true;
}

// The work counters of a pairing or probing pass.
struct Counters {
  std::int64_t visits = 0;
  std::int64_t candidates = 0;
};

// The boxes of one cell gathered once, axis by axis (structure of arrays). A pair is a candidate iff the
// cell is its reference cell, i.e. iff the union of the two boxes' start flags is all_flags (B9). A cell
// of more than kSmall boxes is grouped by flags (group f holds the boxes whose flags are f, in
// membership order), so that its candidates are exactly the pairs of the groups f, g with f | g ==
// all_flags and no other pair is looked at; a smaller one keeps membership order and each box's flags.
template <std::size_t D>
struct CellBoxes {
  static constexpr std::size_t kGroups = std::size_t{1} << D;
  static constexpr std::size_t kSmall = 8;
  std::vector<std::uint32_t> ids;
  std::vector<std::uint32_t> flags;  // small cells only
  std::vector<std::uint32_t> hits;  // pair_cell's scratch: the local indices of one box's hits
  std::vector<double> coords;  // axis k: mins at [2k * capacity, ...), maxes at [(2k + 1) * capacity, ...)
  std::size_t capacity = 0;
  std::array<std::size_t, kGroups + 1> group{};  // group f is [group[f], group[f + 1])

  // Gathers c memberships: get(m) returns {id, flags} of the m-th; boxes[id] is read once (a BoxView's
  // float box is widened here, B13).
  template <typename Boxes, typename Get>
  void gather(std::size_t c, const Boxes& boxes, Get&& get) {
    if (c > capacity) grow(c);
    if (c <= kSmall) {
      for (std::size_t m = 0; m < c; ++m) {
        const auto [id, f] = get(m);
        flags[m] = f;
        put(m, id, boxes[id]);
      }
      return;
    }
    std::array<std::size_t, kGroups> at{};
    for (std::size_t m = 0; m < c; ++m) ++at[get(m).second];
    std::size_t sum = 0;
    for (std::size_t f = 0; f < kGroups; ++f) {
      group[f] = sum;
      sum += std::exchange(at[f], sum);
    }
    group[kGroups] = sum;
    for (std::size_t m = 0; m < c; ++m) {
      const auto [id, f] = get(m);
      put(at[f]++, id, boxes[id]);
    }
  }

  // Box `slot`'s bounds on every axis.
  [[nodiscard]] std::array<double, 2 * D> corners(std::size_t slot) const {
    std::array<double, 2 * D> out;
    for (std::size_t k = 0; k < D; ++k) {
      out[2 * k] = coords[2 * k * capacity + slot];
      out[2 * k + 1] = coords[(2 * k + 1) * capacity + slot];
    }
    return out;
  }

 private:
  void grow(std::size_t c) {
    capacity = std::max({c, 2 * capacity, std::size_t{64}});
    ids.resize(capacity);
    flags.resize(capacity);
    hits.resize(capacity);
    coords.resize(2 * D * capacity);
  }
  template <typename B>
  void put(std::size_t slot, std::uint32_t id, const B& box) {  // a Box, or a BoxView's by value
    ids[slot] = id;
    for (std::size_t k = 0; k < D; ++k) {
      coords[2 * k * capacity + slot] = box.min[k];
      coords[(2 * k + 1) * capacity + slot] = box.max[k];
    }
  }
};

// The boxes of [b, b_end) of a gathered cell that meet box a (bounds `am`), as local indices in g.hits,
// without branches (the outcome is unpredictable); returns how many. `candidate(b)` is 1 when (a, b) is
// a candidate, 0 when not (the reference test of a small cell; always 1 across groups).
template <std::size_t D, typename Candidate>
[[nodiscard]] [[gnu::always_inline]] inline std::size_t meeting(CellBoxes<D>& g, const std::array<double, 2 * D>& am, std::size_t b,
                                         std::size_t b_end, Candidate&& candidate) {
  const double* const coords = g.coords.data();
  std::uint32_t* const hits = g.hits.data();
  const std::size_t cap = g.capacity;
  std::size_t found = 0;
  for (; b < b_end; ++b) {
    std::uint32_t hit = candidate(b);
    for (std::size_t k = 0; k < D; ++k) {
      hit &= static_cast<std::uint32_t>(
          meets(am[2 * k], am[2 * k + 1], coords[2 * k * cap + b], coords[(2 * k + 1) * cap + b]));
    }
    hits[found] = static_cast<std::uint32_t>(b);
    found += hit;
  }
  return found;
}

// Reports box a with each of its `found` hits, lower id first, each confirmed on the bits under
// denormals-are-zero (overlaps()); false as soon as emit(lower, higher) returns false.
template <std::size_t D, typename Emit>
[[nodiscard]] [[gnu::always_inline]] inline bool report(const CellBoxes<D>& g, std::size_t a, const std::array<double, 2 * D>& am,
                                 std::size_t found, Emit& emit) {
  for (std::size_t j = 0; j < found; ++j) {
    const std::uint32_t b = g.hits[j];
#if LWC_DENORMALS_ARE_ZERO
    const std::array<double, 2 * D> bm = g.corners(b);
    bool exact = true;
    for (std::size_t k = 0; k < D; ++k) exact = exact && meets_exactly(am[2 * k], am[2 * k + 1], bm[2 * k], bm[2 * k + 1]);
    if (!exact) continue;
#endif
    if (!emit(std::min(g.ids[a], g.ids[b]), std::max(g.ids[a], g.ids[b]))) return false;
  }
  return true;
}

// pair_cell()
//
// The one reference-cell pairing kernel: emit(lower id, higher id) for every two boxes of a gathered cell
// of c boxes that overlap (closed) and whose reference cell it is (B3: every two boxes of the cell at
// most once, and only from their reference cell, B9): in a small cell each two in membership order with
// the reference test folded into the hit; in a large one the pairs within group all_flags and across
// groups f < h with f | h == all_flags. Returns false as soon as emit does (a budget is full, B7);
// `candidates` counts the pairs looked at in their reference cell.
template <std::size_t D, typename Emit>
[[nodiscard]] inline bool pair_cell(CellBoxes<D>& g, std::size_t c, Emit&& emit, std::int64_t& candidates) {
  constexpr std::uint32_t kAll = all_flags<D>();
  if (c <= CellBoxes<D>::kSmall) {
    std::int64_t considered = 0;
    for (std::size_t a = 0; a + 1 < c; ++a) {
      const std::uint32_t fa = g.flags[a];
      const std::array<double, 2 * D> am = g.corners(a);
      const std::size_t found = meeting<D>(g, am, a + 1, c, [&](std::size_t b) {
        const std::uint32_t reference = (fa | g.flags[b]) == kAll ? 1u : 0u;
        considered += reference;
        return reference;
      });
      if (!report<D>(g, a, am, found, emit)) return false;
    }
    candidates += considered;
    return true;
  }
  for (std::size_t f = 0; f < CellBoxes<D>::kGroups; ++f) {
    for (std::size_t h = f; h < CellBoxes<D>::kGroups; ++h) {
      if ((f | h) != kAll) continue;
      const std::size_t na = g.group[f + 1] - g.group[f];
      const std::size_t nb = g.group[h + 1] - g.group[h];
      candidates += static_cast<std::int64_t>(f == h ? na * (na - (na > 0 ? 1 : 0)) / 2 : na * nb);
      for (std::size_t a = g.group[f]; a < g.group[f + 1]; ++a) {
        const std::array<double, 2 * D> am = g.corners(a);
        const std::size_t found =
            meeting<D>(g, am, f == h ? a + 1 : g.group[h], g.group[h + 1], [](std::size_t) { return 1u; });
        if (!report<D>(g, a, am, found, emit)) return false;
      }
    }
  }
  return true;
}

}  // namespace lwc::internal

LWC_EXACT_FP_END

#endif  // LWC_BROADPHASE_CELLS_H_
