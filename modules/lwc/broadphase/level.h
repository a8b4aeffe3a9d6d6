// SPDX-License-Identifier: MIT
// File: modules/lwc/broadphase/level.h
//
// One level of the batch grid: the placed boxes of one cell size registered in their cells, sorted by
// (cell, box), then paired cell by cell through the pairing kernel (B1-B3, B9) or probed by a box of
// another level or a query (B10, B11). The batch pass (:batch) builds one Level per occupied level from
// the placements of :box; the immutable Grid (:grid) keeps them for queries.
// Spec: docs/broadphase.md (B1-B5, B9-B11).
//
// One source, two modes (lwc/config.h): `#include <lwc/broadphase.h>` brings it without module support;
// the module unit modules/broadphase/level.cppm exports the same declarations as lwc.broadphase:level.
#ifndef LWC_BROADPHASE_LEVEL_H_
#define LWC_BROADPHASE_LEVEL_H_

#include "lwc/config.h"
#ifndef LWC_MODULE_UNIT  // modules/broadphase/level.cppm includes these in its global module fragment
#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include "absl/numeric/int128.h"
#include "absl/status/statusor.h"
#include "lwc/exact_fp.h"
// ... and imports these.
#include "lwc/decompose.h"
#include "lwc/broadphase/box.h"
#include "lwc/broadphase/place.h"
#include "lwc/broadphase/cells.h"
#include "lwc/broadphase/sort.h"
#include "lwc/broadphase/tasks.h"
#endif

// The arithmetic below is exact IEEE arithmetic whatever the consumer's flags (lwc/exact_fp.h).
LWC_EXACT_FP_BEGIN

namespace lwc::internal {

template <std::size_t D>
inline void prefetch_box(std::span<const Box<D>> boxes, std::uint64_t id) {
  __builtin_prefetch(&boxes[id]);
}
template <std::size_t D, typename F>
inline void prefetch_box(const BoxView<D, F>& boxes, std::uint64_t id) {
  boxes.prefetch(id);
}

// One level of the grid: its boxes' (cell, box) memberships sorted by cell, then box.
//
// Packed form (the common case): one uint64 per membership, [cell key | box id | D start flags], where
// the key linearises the cell relative to the level's lowest cell with x fastest, so the words sort by
// (z, y, x, id) and a row of cells along x is contiguous. Start flag k is set when the cell is the box's
// first cell on axis k: then the reference cell of two boxes sharing cell c, max(lo_a, lo_b) per axis,
// equals c exactly when, on every axis, one of the two boxes starts there (B9).
// Dense form (a packed key whose range is at most about twice the memberships, as in any populated
// world): the memberships bucketed by key with a counting sort, one uint32 each, [box id | D start
// flags], cell k's at members[starts[k], starts[k + 1]); no sort and half the memory of the packed form.
// Wide form, when the key, id and flags do not fit 64 bits (a world spanning more than ~2^40 cells):
// the same order on explicit coordinates.
template <std::size_t D>
struct Level {
  int level = 0;
  CellSize size = *CellSize::create(1.0);  // h * 2^level
  std::array<std::int64_t, D> origin{};  // lowest cell on each axis
  std::array<std::int64_t, D> top{};     // highest cell on each axis
  std::array<std::uint64_t, D> stride{};  // key = sum (c[k] - origin[k]) * stride[k]
  bool packed = true;
  int id_bits = 0;
  int key_shift = 0;
  int key_bits = 0;
  std::uint64_t keys = 0;            // packed: the number of keys, one per cell of [origin, top]
  bool dense = false;
  std::vector<std::uint32_t> starts;   // dense form: keys + 1 offsets into members
  std::vector<std::uint32_t> members;  // dense form
  std::vector<std::uint64_t> words;  // packed form
  struct Wide {  // LCOV_EXCL_LINE: clang maps this line to the implicit special members of a trivially copyable type, and the unused ones are never emitted
    std::array<std::int64_t, D> reversed;  // (z, y, x): lexicographic order puts rows along x together
    std::uint32_t id;
    std::uint32_t flags;
    friend bool operator<(const Wide& a, const Wide& b) {
      return a.reversed != b.reversed ? a.reversed < b.reversed : a.id < b.id;
    }
  };
  std::vector<Wide> wide;       // wide form
  std::vector<std::uint32_t> residents;  // boxes on this level, ascending
  Box<D> bounds{};              // union of the residents' boxes
  std::int64_t occupied = 0;

  [[nodiscard]] std::size_t count() const { return dense ? members.size() : packed ? words.size() : wide.size(); }
  [[nodiscard]] std::uint64_t key_of(const std::array<std::int64_t, D>& c) const {
    std::uint64_t key = 0;
    for (std::size_t k = 0; k < D; ++k) key += static_cast<std::uint64_t>(c[k] - origin[k]) * stride[k];
    return key;
  }
  [[nodiscard]] static Wide wide_of(const std::array<std::int64_t, D>& c, std::uint32_t id, std::uint32_t flags) {
    Wide w{};
    for (std::size_t k = 0; k < D; ++k) w.reversed[D - 1 - k] = c[k];
    w.id = id;
    w.flags = flags;
    return w;
  }
};

// Key layout of a level from its cell bounds: packed iff the key, the id and D flags fit 64 bits.
// Dense (a counting sort on the key) when the key range is at most twice the memberships plus 1024 (so
// its offsets cost at most ~2 uint32 per membership) and a membership fits a uint32.
template <std::size_t D>
void plan_keys(Level<D>& level, std::size_t box_count, std::int64_t memberships) {
  level.id_bits = static_cast<int>(std::bit_width(box_count > 1 ? box_count - 1 : std::size_t{1}));
  absl::uint128 cells = 1;
  bool fits = true;
  for (std::size_t k = 0; k < D; ++k) {
    const absl::uint128 span =
        static_cast<absl::uint128>(absl::int128(level.top[k]) - absl::int128(level.origin[k]) + 1);
    if (!fits) break;
    level.stride[k] = static_cast<std::uint64_t>(cells);
    cells *= span;  // both factors <= 2^64, so no wrap
    if (cells > absl::uint128(std::numeric_limits<std::uint64_t>::max())) fits = false;
  }
  level.key_shift = level.id_bits + static_cast<int>(D);
  if (fits) {
    const auto max_key = static_cast<std::uint64_t>(cells - 1);
    level.key_bits = static_cast<int>(std::bit_width(max_key));
    fits = level.key_bits + level.key_shift <= 64;
    level.keys = static_cast<std::uint64_t>(cells);
  }
  level.packed = fits;
  level.dense = fits && level.id_bits + static_cast<int>(D) <= 32 &&
                memberships <= std::int64_t{std::numeric_limits<std::uint32_t>::max()} &&
                absl::uint128(level.keys) <= 2 * absl::uint128(static_cast<std::uint64_t>(memberships)) + 1024;
}

// Appends the memberships of one box to a packed or wide level.
template <std::size_t D>
inline void register_box(Level<D>& level, std::uint32_t id, const CellRange<D>& r) {
  if (level.packed) {
    const std::uint64_t tag = static_cast<std::uint64_t>(id) << D;
    for_each_cell<D>(r, [&](const std::array<std::int64_t, D>& c, std::uint32_t flags) {
      level.words.push_back((level.key_of(c) << level.key_shift) | tag | flags);
    });
  } else {
    for_each_cell<D>(r, [&](const std::array<std::int64_t, D>& c, std::uint32_t flags) {
      level.wide.push_back(Level<D>::wide_of(c, id, flags));
    });
  }
}

// Sorts the level's memberships by (cell, id) and counts its occupied cells.
template <std::size_t D>
void sort_level(Level<D>& level, const TaskSystem& tasks = {}) {
  std::int64_t cells = 0;
  if (level.dense) {
    for (std::uint64_t k = 0; k < level.keys; ++k) cells += level.starts[k + 1] != level.starts[k] ? 1 : 0;
  } else if (level.packed) {
    std::vector<std::uint64_t> scratch;
    radix_sort(level.words, scratch, level.key_shift, level.key_bits, tasks);
    for (std::size_t i = 0; i < level.words.size(); ++i) {
      cells += (i == 0 || (level.words[i] >> level.key_shift) != (level.words[i - 1] >> level.key_shift)) ? 1 : 0;
    }
  } else {
    // Memberships are appended in ascending id order, so a stable sort by cell alone would do; sorting by
    // (cell, id) states the order outright.
    std::sort(level.wide.begin(), level.wide.end());
    for (std::size_t i = 0; i < level.wide.size(); ++i) {
      cells += (i == 0 || level.wide[i].reversed != level.wide[i - 1].reversed) ? 1 : 0;
    }
  }
  level.occupied = cells;
}

// One box of a dense level, compact: the key of its first cell and its span (cells - 1) on each axis, in
// 32 / D bits each (CellStore's packing). Made once from the placements, then read twice (count, place)
// with the memberships' offsets prefetched a few boxes ahead: the offsets are the random accesses of
// registration.
struct DenseBox {
  std::uint32_t key;
  std::uint32_t spans;
};

// Calls fn(key, flags) for every cell of a dense box, x fastest (the order of for_each_cell).
template <std::size_t D, typename Fn>
inline void for_each_key(const Level<D>& level, DenseBox b, Fn&& fn) {
  constexpr std::uint32_t kBits = 32 / D;
  constexpr std::uint32_t kMask = (std::uint32_t{1} << kBits) - 1;
  const std::uint32_t sx = b.spans & kMask;
  const std::uint32_t sy = (b.spans >> kBits) & kMask;
  std::uint32_t sz = 0;
  if constexpr (D == 3) sz = (b.spans >> (2 * kBits)) & kMask;
  for (std::uint32_t z = 0; z <= sz; ++z) {
    for (std::uint32_t y = 0; y <= sy; ++y) {
      const std::uint64_t row = b.key + y * level.stride[1] + (D == 3 ? z * level.stride[D - 1] : 0);
      const std::uint32_t outer = (y == 0 ? 2u : 0u) | (D == 3 && z == 0 ? 4u : 0u);
      fn(row, outer | 1u);
      for (std::uint32_t x = 1; x <= sx; ++x) fn(row + x, outer);
    }
  }
}

// The compact boxes of a dense level's residents from their stored cells (the level's memberships need
// 32-bit keys, and the store must be compact: its spans are DenseBox's); empty when they cannot be.
template <std::size_t D>
[[nodiscard]] std::vector<DenseBox> dense_boxes(const Level<D>& level, const CellStore<D>& cells) {
  std::vector<DenseBox> out;
  if (!level.dense || !cells.compact() || level.keys > std::uint64_t{std::numeric_limits<std::uint32_t>::max()}) {
    return out;
  }
  out.resize(level.residents.size());
  const auto& entries = cells.entries();
  for (std::size_t i = 0; i < out.size(); ++i) {
    const auto& e = entries[level.residents[i]];
    std::uint64_t key = 0;  // < keys: the cell lies in [origin, top]
    for (std::size_t k = 0; k < D; ++k) {
      key += static_cast<std::uint64_t>(cells.anchor()[k] + e.lo[k] - level.origin[k]) * level.stride[k];
    }
    out[i] = {static_cast<std::uint32_t>(key), e.spans};
  }
  return out;
}

// A dense level registered from its residents' compact boxes, a stable counting sort in two passes
// (count, then place) with the offsets of boxes kAhead ahead prefetched. starts[k + 1] counts key k, then
// becomes where key k's next membership goes, and ends as the end of key k: the beginning of key k + 1.
template <std::size_t D>
void register_dense(Level<D>& level, std::int64_t memberships, const std::vector<DenseBox>& boxes) {
  constexpr std::size_t kAhead = 8;
  level.starts.assign(static_cast<std::size_t>(level.keys) + 1, 0);
  std::uint32_t* const starts = level.starts.data() + 1;
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    if (i + kAhead < boxes.size()) __builtin_prefetch(&starts[boxes[i + kAhead].key], 1);
    for_each_key<D>(level, boxes[i], [&](std::uint64_t key, std::uint32_t) { ++starts[key]; });
  }
  std::uint32_t sum = 0;
  for (std::uint64_t k = 0; k < level.keys; ++k) sum += std::exchange(starts[k], sum);
  level.members.resize(static_cast<std::size_t>(memberships));
  std::uint32_t* const members = level.members.data();
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    if (i + kAhead < boxes.size()) __builtin_prefetch(&starts[boxes[i + kAhead].key], 1);
    const std::uint32_t tag = level.residents[i] << D;
    for_each_key<D>(level, boxes[i], [&](std::uint64_t key, std::uint32_t flags) { members[starts[key]++] = tag | flags; });
  }
}

// The same counting sort, cell by cell from each(fn) (fn(id, cells) for every resident in ascending id
// order), for a dense level whose boxes have no compact form (keys or spans too wide).
template <std::size_t D, typename Each>
void register_dense_cells(Level<D>& level, std::int64_t memberships, Each&& each) {
  level.starts.assign(static_cast<std::size_t>(level.keys) + 1, 0);
  std::uint32_t* const starts = level.starts.data() + 1;
  each([&](std::uint32_t, const CellRange<D>& r) {
    for_each_cell<D>(r, [&](const std::array<std::int64_t, D>& c, std::uint32_t) { ++starts[level.key_of(c)]; });
  });
  std::uint32_t sum = 0;
  for (std::uint64_t k = 0; k < level.keys; ++k) sum += std::exchange(starts[k], sum);
  level.members.resize(static_cast<std::size_t>(memberships));
  std::uint32_t* const members = level.members.data();
  each([&](std::uint32_t id, const CellRange<D>& r) {
    const std::uint32_t tag = id << D;
    for_each_cell<D>(r, [&](const std::array<std::int64_t, D>& c, std::uint32_t flags) {
      members[starts[level.key_of(c)]++] = tag | flags;
    });
  });
}

// Registers the residents of a level of `memberships` memberships (plan_keys done, residents listed):
// each(fn) calls fn(id, cells) for every resident in ascending id order, and `compact`, when not empty,
// is a dense level's compact boxes, one per resident (then each() is not called). A dense level is a
// stable counting sort (ids ascend within a cell); the others append and sort.
template <std::size_t D, typename Each>
void register_level(Level<D>& level, std::int64_t memberships, Each&& each, const std::vector<DenseBox>& compact = {},
                    const TaskSystem& tasks = {}) {
  if (level.dense && !compact.empty()) {
    register_dense(level, memberships, compact);
  } else if (level.dense) {
    register_dense_cells(level, memberships, each);
  } else {
    if (level.packed) {
      level.words.reserve(static_cast<std::size_t>(memberships));
    } else {
      level.wide.reserve(static_cast<std::size_t>(memberships));
    }
    each([&](std::uint32_t id, const CellRange<D>& r) { register_box(level, id, r); });
  }
  sort_level(level, tasks);
}

// The pairing of one part of a level: each shared cell's boxes gathered once and paired by the kernel,
// the pairs appended to `out` while `limit` allows (B7; shared by the parts of a parallel call, B15).
template <std::size_t D, typename Boxes>
struct CellPairing {
  const Boxes& boxes;
  PairLimit& limit;
  PairBlocks& out;
  Counters& counters;
  CellBoxes<D> cell{};
  bool within = true;

  // The cell of c >= 2 memberships, get(m) = {id, start flags} of the m-th.
  template <typename Get>
  void operator()(std::size_t c, Get&& get) {
    counters.visits += static_cast<std::int64_t>(c * (c - 1) / 2);
    cell.gather(c, boxes, get);
    within = pair_cell(cell, c, [&](std::uint32_t a, std::uint32_t b) {
      if (limit.full(out.size())) return false;
      out.push_back({a, b});
      return true;
    }, counters.candidates);
  }
};

using IdFlags = std::pair<std::uint32_t, std::uint32_t>;  // a membership's box id and start flags

// A wide level's cells of two or more boxes, whole.
template <std::size_t D, typename Boxes>
[[nodiscard]] bool pair_wide(const Level<D>& level, CellPairing<D, Boxes>& pair) {
  const std::size_t n = level.wide.size();
  for (std::size_t i = 0, j = 0; i < n && pair.within; i = j) {
    for (j = i + 1; j < n && level.wide[j].reversed == level.wide[i].reversed;) ++j;
    if (j - i < 2) continue;
    pair(j - i, [&](std::size_t m) { return IdFlags{level.wide[i + m].id, level.wide[i + m].flags}; });
  }
  return pair.within;
}

// The boxes of the next memberships are prefetched kAhead ahead: the box loads are the only random
// accesses of pairing, and they dominate its time without it.
constexpr std::size_t kPrefetchAhead = 40;

// A dense level's keys [from, to).
template <std::size_t D, typename Boxes>
[[nodiscard]] bool pair_dense(const Level<D>& level, CellPairing<D, Boxes>& pair, std::uint64_t from, std::uint64_t to) {
  const std::uint32_t* const members = level.members.data();
  const std::uint32_t* const starts = level.starts.data();
  const std::uint64_t last = std::min(to, level.keys);
  if (from >= last) return true;
  const std::size_t n = starts[last];  // the end of this part's memberships
  std::size_t fetched = starts[from];
  for (std::uint64_t key = from; key < last && pair.within; ++key) {
    const std::size_t i = starts[key];
    const std::size_t j = starts[key + 1];
    for (const std::size_t until = std::min(n, j + kPrefetchAhead); fetched < until; ++fetched) {
      prefetch_box(pair.boxes, members[fetched] >> D);
    }
    if (j - i < 2) continue;
    pair(j - i, [&](std::size_t m) { return IdFlags{members[i + m] >> D, members[i + m] & all_flags<D>()}; });
  }
  return pair.within;
}

// A packed level's sorted words [from, to) (cut at cell boundaries): the runs of equal keys, decoded in
// place.
template <std::size_t D, typename Boxes>
[[nodiscard]] bool pair_packed(const Level<D>& level, CellPairing<D, Boxes>& pair, std::uint64_t from, std::uint64_t to) {
  const std::vector<std::uint64_t>& w = level.words;
  const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(w.size(), to));
  const int shift = level.key_shift;
  const std::uint64_t id_mask = (std::uint64_t{1} << level.id_bits) - 1;
  std::size_t fetched = static_cast<std::size_t>(from);
  for (std::size_t i = static_cast<std::size_t>(from), j = i; i < n && pair.within; i = j) {
    const std::uint64_t key = w[i] >> shift;
    for (j = i + 1; j < n && (w[j] >> shift) == key;) ++j;
    for (const std::size_t until = std::min(n, j + kPrefetchAhead); fetched < until; ++fetched) {
      prefetch_box(pair.boxes, (w[fetched] >> D) & id_mask);
    }
    if (j - i < 2) continue;
    pair(j - i, [&](std::size_t m) {
      return IdFlags{static_cast<std::uint32_t>((w[i + m] >> D) & id_mask), static_cast<std::uint32_t>(w[i + m] & all_flags<D>())};
    });
  }
  return pair.within;
}

// Pairs the residents of one level with each other: in every shared cell, each two boxes once, reported
// only when the cell is their reference cell and they overlap (B1-B3, B9). Returns false as soon as
// `limit` says more than max_pairs pairs exist. A packed level is paired over the cells of its keys
// [from, to) (dense) or of its words [from, to) (sorted words, cut at cell boundaries), which a parallel
// call splits between its parts (B15); a wide level always whole.
template <std::size_t D, typename Boxes>
[[nodiscard]] bool pair_level(const Level<D>& level, const Boxes& boxes, PairLimit& limit, PairBlocks& out,
                              Counters& counters, std::uint64_t from = 0,
                              std::uint64_t to = std::numeric_limits<std::uint64_t>::max()) {
  CellPairing<D, Boxes> pair{boxes, limit, out, counters};
  if (!level.packed) return pair_wide(level, pair);
  if (level.dense) return pair_dense(level, pair, from, to);
  return pair_packed(level, pair, from, to);
}

// The cells of `probe` on `level`, clamped to the level's cell bounds (which leaves every reference cell
// in place, as residents start inside them). A finite probe coordinate outside int64 cells saturates:
// saturation is monotone, so it keeps the order that completeness needs, and the clamp removes it anyway.
template <std::size_t D>
[[nodiscard]] CellRange<D> clamped_cells(const Level<D>& level, const Box<D>& probe) {
  CellRange<D> r{};
  for (std::size_t k = 0; k < D; ++k) {
    for (const bool upper : {false, true}) {
      const double v = upper ? probe.max[k] : probe.min[k];
      absl::StatusOr<std::int64_t> c = cell_of(v, level.size);
      std::int64_t cell = c.ok() ? *c : (v < 0 ? std::numeric_limits<std::int64_t>::min()
                                               : std::numeric_limits<std::int64_t>::max());
      (upper ? r.hi[k] : r.lo[k]) = std::clamp(cell, level.origin[k], level.top[k]);
    }
  }
  return r;
}

// Calls visit(id, flags, x) for every membership of the row of `row` (cells row[1..]) from x = lo to hi,
// in the level's form: one binary search for the row's first cell (packed, wide) or its keys (dense).
template <std::size_t D, typename Visit>
void probe_row(const Level<D>& level, std::array<std::int64_t, D> row, std::int64_t lo, std::int64_t hi, Visit&& visit) {
  row[0] = lo;
  if (level.dense || level.packed) {
    const std::uint64_t first = level.key_of(row);
    const std::uint64_t last = first + static_cast<std::uint64_t>(hi - lo);
    if (level.dense) {
      for (std::uint64_t key = first; key <= last; ++key) {
        const auto x = lo + static_cast<std::int64_t>(key - first);
        for (std::uint32_t m = level.starts[key]; m < level.starts[key + 1]; ++m) {
          visit(level.members[m] >> D, level.members[m] & all_flags<D>(), x);
        }
      }
      return;
    }
    const std::uint64_t id_mask = (std::uint64_t{1} << level.id_bits) - 1;
    for (auto it = std::lower_bound(level.words.begin(), level.words.end(), first << level.key_shift);
         it != level.words.end() && (*it >> level.key_shift) <= last; ++it) {
      const auto x = lo + static_cast<std::int64_t>((*it >> level.key_shift) - first);
      visit(static_cast<std::uint32_t>((*it >> D) & id_mask), static_cast<std::uint32_t>(*it & all_flags<D>()), x);
    }
    return;
  }
  const typename Level<D>::Wide from = Level<D>::wide_of(row, 0, 0);
  for (auto it = std::lower_bound(level.wide.begin(), level.wide.end(), from); it != level.wide.end(); ++it) {
    bool same_row = true;
    for (std::size_t k = 0; k + 1 < D; ++k) same_row &= it->reversed[k] == from.reversed[k];
    if (!same_row || it->reversed[D - 1] > hi) break;
    visit(it->id, it->flags, it->reversed[D - 1]);
  }
}

// Calls fn(resident id) once for every resident of `level` whose cells meet the probe's and that
// overlaps `probe`, from the reference cell of the two (B9, B10), row by row; a probe whose clamped range
// has more rows than the level has memberships scans the residents instead.
template <std::size_t D, typename Boxes, typename Fn>
void probe_level(const Level<D>& level, const Boxes& boxes, const Box<D>& probe, Counters& counters, Fn&& fn) {
  if (level.residents.empty() || !overlaps(probe, level.bounds)) return;
  const CellRange<D> r = clamped_cells(level, probe);
  absl::uint128 rows = 1;
  for (std::size_t k = 1; k < D; ++k) rows *= static_cast<absl::uint128>(absl::int128(r.hi[k]) - absl::int128(r.lo[k]) + 1);
  if (rows > absl::uint128(level.count())) {
    for (const std::uint32_t id : level.residents) {
      ++counters.visits;
      ++counters.candidates;
      if (overlaps(probe, boxes[id])) fn(id);
    }
    return;
  }
  (void)for_each_row<D>(r, [&](const std::array<std::int64_t, D>& row, std::uint32_t outer) {
    // Reference cell of (probe, resident): max(lo_probe, lo_resident) on every axis. The walk starts at
    // lo_probe, so the cell is the reference on an axis iff the probe or the resident starts there: on
    // every axis where the probe does not start in this cell, the resident must (its start flag).
    const std::uint32_t outer_need = ~outer & all_flags<D>() & ~1u;
    probe_row(level, row, r.lo[0], r.hi[0], [&](std::uint32_t id, std::uint32_t flags, std::int64_t x) {
      ++counters.visits;
      const std::uint32_t need = outer_need | static_cast<std::uint32_t>(x != r.lo[0]);
      if ((flags & need) != need) return;
      ++counters.candidates;
      if (overlaps(probe, boxes[id])) fn(id);
    });
  });
}

}  // namespace lwc::internal

LWC_EXACT_FP_END

#endif  // LWC_BROADPHASE_LEVEL_H_
