// SPDX-License-Identifier: MIT
// File: contracts/lwc/contracts/broadphase/batch.h
//
// The batch B-clauses (docs/broadphase.md B1-B12): checkers that judge the output of ANY broad phase —
// lwc's own or an engine's — and the models they compare with, written differently from lwc.broadphase:
//   - brute_force_pairs: every pair tested, O(n^2), intersection written as max(min) <= min(max);
//   - expected_outcome: which error (or none) a call must return, from oracle_cell_of (a binary search
//     that never divides) and int128 counts, with the level search of kCoarserLevels done by bisection.
// The persistent grid's model and checkers (E1-E6) are the partition :persistent, which reuses these.
//
// Checkers return absl::Status and never abort. On failure the message starts with the clause id:
//   "B3 exactly-once: pair (4, 9) reported twice"
//
// One source, two modes (lwc/config.h): `#include <lwc/contracts/broadphase/batch.h>` (through
// <lwc/contracts/broadphase.h>) brings it without module support; the module unit
// contracts/broadphase/batch.cppm exports the same declarations as `import lwc.contracts.broadphase:batch;`.
#ifndef LWC_CONTRACTS_BROADPHASE_BATCH_H_
#define LWC_CONTRACTS_BROADPHASE_BATCH_H_

#include "lwc/config.h"
#ifndef LWC_MODULE_UNIT  // contracts/broadphase/batch.cppm includes these in its global module fragment
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "lwc/exact_fp.h"
// ... and imports these.
#include "lwc/decompose.h"
#include "lwc/broadphase.h"
#include "lwc/contracts/decompose.h"
#endif

// The arithmetic below is exact IEEE arithmetic whatever the consumer's flags (lwc/exact_fp.h).
LWC_EXACT_FP_BEGIN

namespace lwc::internal {

template <std::size_t D>
std::string describe_box(const Box<D>& b) {
  std::ostringstream os;
  os << b;
  return os.str();
}

inline std::string describe_pair(const Pair& p) { return absl::StrCat("(", p.a, ", ", p.b, ")"); }

// The larger of two non-NaN doubles, ordered on the bits (exact under denormals-are-zero too).
inline double exact_max(double a, double b) { return fp::less_equal(a, b) ? b : a; }
inline double exact_min(double a, double b) { return fp::less_equal(a, b) ? a : b; }

// The closed intersection test of the oracle: the intersection interval is [max(min), min(max)],
// compared on the bits (the consumer's denormals-are-zero mode compares subnormals as 0).
template <std::size_t D>
bool intersect(const Box<D>& a, const Box<D>& b) {
  for (std::size_t k = 0; k < D; ++k) {
    if (!fp::less_equal(exact_max(a.min[k], b.min[k]), exact_min(a.max[k], b.max[k]))) return false;
  }
  return true;
}

// The oracle's cells of a box at cell size h (not validated here).
template <std::size_t D>
absl::StatusOr<CellRange<D>> oracle_range(const Box<D>& box, double h) {
  CellRange<D> r{};
  for (std::size_t k = 0; k < D; ++k) {
    absl::StatusOr<std::int64_t> lo = contracts::oracle_cell_of(box.min[k], h);
    if (!lo.ok()) return lo.status();
    absl::StatusOr<std::int64_t> hi = contracts::oracle_cell_of(box.max[k], h);
    if (!hi.ok()) return hi.status();
    r.lo[k] = *lo;
    r.hi[k] = *hi;
  }
  return r;
}

// Cells in r, or -1 when more than `cap`; by division instead of a saturating product.
template <std::size_t D>
std::int64_t oracle_count(const CellRange<D>& r, std::int64_t cap) {
  absl::int128 count = 1;
  for (std::size_t k = 0; k < D; ++k) {
    const absl::int128 axis = absl::int128(r.hi[k]) - r.lo[k] + 1;
    if (axis > absl::int128(cap) / count) return -1;
    count *= axis;
  }
  return static_cast<std::int64_t>(count);
}

template <std::size_t D>
bool ranges_meet(const CellRange<D>& a, const CellRange<D>& b, absl::int128* shared) {
  absl::int128 cells = 1;
  for (std::size_t k = 0; k < D; ++k) {
    const std::int64_t lo = std::max(a.lo[k], b.lo[k]);
    const std::int64_t hi = std::min(a.hi[k], b.hi[k]);
    if (lo > hi) return false;
    cells *= absl::int128(hi) - lo + 1;
  }
  if (shared != nullptr) *shared = cells;
  return true;
}

inline absl::Status fail(absl::string_view clause, const std::string& why) {
  return absl::InvalidArgumentError(absl::StrCat(clause, why));
}

}  // namespace lwc::internal

LWC_EXPORT namespace lwc::contracts {

// brute_force_pairs()
//
// Reference for B1-B4, obviously correct: every pair i < j tested, in lexicographic order. O(n^2).
template <std::size_t D>
[[nodiscard]] std::vector<Pair> brute_force_pairs(std::span<const Box<D>> boxes) {
  std::vector<Pair> out;
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    for (std::size_t j = i + 1; j < boxes.size(); ++j) {
      if (internal::intersect(boxes[i], boxes[j])) {
        out.push_back({static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j)});
      }
    }
  }
  return out;
}
[[nodiscard]] inline std::vector<Pair> brute_force_pairs(std::span<const Box2> boxes) { return brute_force_pairs<2>(boxes); }
[[nodiscard]] inline std::vector<Pair> brute_force_pairs(std::span<const Box3> boxes) { return brute_force_pairs<3>(boxes); }

// check_pairs()
//
// OK iff `got` is exactly brute_force_pairs(boxes): each overlapping pair once, lower index first, in
// lexicographic order. The first failure is named by its clause: B2 an index out of range or a pair that
// does not overlap, B3 a pair not lower-first or reported twice, B1 a missing pair, B4 the order.
template <std::size_t D>
[[nodiscard]] absl::Status check_pairs(std::span<const Box<D>> boxes, std::span<const Pair> got) {
  for (const Pair& p : got) {
    if (p.a >= boxes.size() || p.b >= boxes.size()) {
      return internal::fail("B2 soundness: ", absl::StrCat("pair ", internal::describe_pair(p), " names a box beyond the ",
                                                           boxes.size(), " given"));
    }
    if (p.a >= p.b) {
      return internal::fail("B3 exactly-once: ", absl::StrCat("pair ", internal::describe_pair(p),
                                                              " is not (lower index, higher index)"));
    }
  }
  std::vector<Pair> sorted(got.begin(), got.end());
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 1; i < sorted.size(); ++i) {
    if (sorted[i] == sorted[i - 1]) {
      return internal::fail("B3 exactly-once: ", absl::StrCat("pair ", internal::describe_pair(sorted[i]), " reported twice"));
    }
  }
  const std::vector<Pair> want = brute_force_pairs<D>(boxes);
  std::vector<Pair> missing;
  std::set_difference(want.begin(), want.end(), sorted.begin(), sorted.end(), std::back_inserter(missing));
  if (!missing.empty()) {
    const Pair p = missing.front();
    return internal::fail("B1 completeness: ",
                          absl::StrCat("pair ", internal::describe_pair(p), " overlaps but was not reported (",
                                       missing.size(), " missing); boxes ", internal::describe_box(boxes[p.a]),
                                       " and ", internal::describe_box(boxes[p.b])));
  }
  std::vector<Pair> extra;
  std::set_difference(sorted.begin(), sorted.end(), want.begin(), want.end(), std::back_inserter(extra));
  if (!extra.empty()) {
    const Pair p = extra.front();
    return internal::fail("B2 soundness: ", absl::StrCat("pair ", internal::describe_pair(p),
                                                         " was reported but does not overlap; boxes ",
                                                         internal::describe_box(boxes[p.a]), " and ",
                                                         internal::describe_box(boxes[p.b])));
  }
  for (std::size_t i = 1; i < got.size(); ++i) {
    if (!(got[i - 1] < got[i])) {
      return internal::fail("B4 canonical order: ", absl::StrCat("pair ", internal::describe_pair(got[i]), " at position ",
                                                                 i, " follows ", internal::describe_pair(got[i - 1])));
    }
  }
  return absl::OkStatus();
}
[[nodiscard]] inline absl::Status check_pairs(std::span<const Box2> boxes, std::span<const Pair> got) {
  return check_pairs<2>(boxes, got);
}
[[nodiscard]] inline absl::Status check_pairs(std::span<const Box3> boxes, std::span<const Pair> got) {
  return check_pairs<3>(boxes, got);
}

// oracle_placement()
//
// Reference for GridSpec::place (B6-B8, B11): InvalidArgument for a non-finite bound or min > max;
// kReject: level 0, OutOfRange when a cell is not int64, ResourceExhausted above max_cells_per_box;
// kCoarserLevels: the smallest level k whose cells fit, found by bisection over k (fitting is monotone
// in k). The config must be valid. Cells from oracle_cell_of.
template <std::size_t D>
[[nodiscard]] absl::StatusOr<Placement<D>> oracle_placement(const Box<D>& box, const GridConfig& config) {
  for (std::size_t k = 0; k < D; ++k) {
    if (!fp::is_finite(box.min[k]) || !fp::is_finite(box.max[k]) || !fp::less_equal(box.min[k], box.max[k])) {
      return absl::InvalidArgumentError("bad box");
    }
  }
  const std::int64_t cap = config.max_cells_per_box.value();
  const auto at = [&](int level) -> absl::StatusOr<Placement<D>> {
    double h = 0;  // h * 2^level on the bits: std::ldexp loses a subnormal h under denormals-are-zero
    if (!fp::scale_exact(config.cell_size.value(), level, h)) return absl::ResourceExhaustedError("no such level");
    absl::StatusOr<CellRange<D>> r = internal::oracle_range(box, h);
    if (!r.ok()) return r.status();
    const std::int64_t count = internal::oracle_count(*r, cap);
    if (count < 0) return absl::ResourceExhaustedError("too many cells");
    return Placement<D>{level, *r, count};
  };
  if (config.oversize == Oversize::kReject) return at(0);
  // The highest level with a finite cell size (finite at k implies finite below k): doubling steps up,
  // then halving ones, about 2 log2(top) scalings instead of one per level (top is up to 2098).
  int top = 0;
  int step = 1;
  for (double next = 0; fp::scale_exact(config.cell_size.value(), top + step, next); step *= 2) top += step;
  for (step /= 2; step > 0; step /= 2) {
    if (double next = 0; fp::scale_exact(config.cell_size.value(), top + step, next)) top += step;
  }
  // The smallest level that fits: levels 0, 1, 3, 7, ... until one fits (most boxes fit a low level),
  // then bisection in the last gap. Invariant: no level below lo fits, and level hi fits (or hi == top).
  int lo = 0;
  int hi = 0;
  for (int gap = 1; hi < top && !at(hi).ok(); gap *= 2) {
    lo = hi + 1;
    hi = std::min(top, hi + gap);
  }
  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;
    if (at(mid).ok()) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return at(lo);
}

// Expected
//
// What a call of find_pairs must return: OK or an error code, the index of the box the error names (or
// -1), the memberships and the placements.
template <std::size_t D>
struct Expected {
  absl::StatusCode code = absl::StatusCode::kOk;
  std::int64_t box = -1;
  std::int64_t memberships = 0;
  std::vector<Placement<D>> placements;
};

// expected_outcome()
//
// The oracle of B6, B7 and B11: config errors first (InvalidArgument), then the first box in index order
// that fails placement, then max_memberships, then max_pairs (brute force count).
template <std::size_t D>
[[nodiscard]] Expected<D> expected_outcome(std::span<const Box<D>> boxes, const GridConfig& config) {
  Expected<D> e;
  // The cell size and budgets are validated values (B6: their create() refuses what is out of range), so
  // the only config error left is the one between fields.
  const std::int64_t corner = D == 2 ? 16 : 64;
  if (config.oversize == Oversize::kCoarserLevels && config.max_cells_per_box.value() < corner) {
    e.code = absl::StatusCode::kInvalidArgument;
    return e;
  }
  absl::int128 total = 0;
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    absl::StatusOr<Placement<D>> p = oracle_placement<D>(boxes[i], config);
    if (!p.ok()) {
      e.code = p.status().code();
      e.box = static_cast<std::int64_t>(i);
      return e;
    }
    total += p->cell_count;
    e.placements.push_back(*p);
  }
  if (total > config.max_memberships.value()) {
    e.code = absl::StatusCode::kResourceExhausted;
    return e;
  }
  e.memberships = static_cast<std::int64_t>(total);
  if (static_cast<std::int64_t>(brute_force_pairs<D>(boxes).size()) > config.max_pairs.value()) {
    e.code = absl::StatusCode::kResourceExhausted;
  }
  return e;
}

// check_find_pairs()
//
// Judges one call: `got` must be the expected error (same code; B6 for bad input, B7 for a budget; a
// box-specific error names "box <index>") or, when every budget holds (exactly at one included), OK with
// exactly the oracle's pairs (B1-B4) and exact stats (B12): boxes, memberships, occupied cells, pairs,
// levels and coarse boxes always; visits and candidates when every box is on level 0 (above it they
// count probes, see the spec).
template <std::size_t D>
[[nodiscard]] absl::Status check_find_pairs(std::span<const Box<D>> boxes, const GridConfig& config,
                                            const absl::StatusOr<PairsResult>& got) {
  const Expected<D> want = expected_outcome<D>(boxes, config);
  const bool budget = want.code == absl::StatusCode::kResourceExhausted;
  const absl::string_view clause = budget ? "B7 budget boundaries: " : "B6 rejection: ";
  if (want.code != absl::StatusCode::kOk) {
    if (got.ok()) {
      return internal::fail(clause, absl::StrCat("expected ", absl::StatusCodeToString(want.code),
                                                 want.box >= 0 ? absl::StrCat(" for box ", want.box) : "",
                                                 " but the call returned ", got->pairs.size(), " pairs"));
    }
    if (got.status().code() != want.code) {
      return internal::fail(clause, absl::StrCat("expected ", absl::StatusCodeToString(want.code),
                                                 want.box >= 0 ? absl::StrCat(" for box ", want.box) : "",
                                                 " but got ", got.status().ToString()));
    }
    if (want.box >= 0 && !absl::StrContains(got.status().message(), absl::StrCat("box ", want.box, ":"))) {
      return internal::fail(clause, absl::StrCat("the error does not name box ", want.box, ": ",
                                                 got.status().ToString()));
    }
    return absl::OkStatus();
  }
  if (!got.ok()) {
    const bool exhausted = got.status().code() == absl::StatusCode::kResourceExhausted;
    return internal::fail(exhausted ? "B7 budget boundaries: " : "B6 rejection: ",
                          absl::StrCat("valid input within every budget was refused: ", got.status().ToString()));
  }
  if (absl::Status s = check_pairs<D>(boxes, got->pairs); !s.ok()) return s;
  const Stats& st = got->stats;
  const auto stat = [&](absl::string_view name, std::int64_t value, std::int64_t expected) -> absl::Status {
    if (value == expected) return absl::OkStatus();
    return internal::fail("B12 stats: ", absl::StrCat(name, " = ", value, ", expected ", expected));
  };
  std::set<int> levels;
  std::int64_t coarse = 0;
  for (const Placement<D>& p : want.placements) {
    levels.insert(p.level);
    coarse += p.level > 0 ? 1 : 0;
  }
  if (absl::Status s = stat("boxes", st.boxes, static_cast<std::int64_t>(boxes.size())); !s.ok()) return s;
  if (absl::Status s = stat("memberships", st.memberships, want.memberships); !s.ok()) return s;
  if (absl::Status s = stat("pairs", st.pairs, static_cast<std::int64_t>(got->pairs.size())); !s.ok()) return s;
  if (absl::Status s = stat("levels", st.levels, static_cast<std::int64_t>(levels.size())); !s.ok()) return s;
  if (absl::Status s = stat("coarse boxes", st.coarse_boxes, coarse); !s.ok()) return s;
  if (want.memberships <= (std::int64_t{1} << 20)) {
    // A placement that shares no cell with another on its level adds its cell count; the cells of the
    // others, every (level, cell) membership once, are sorted and the distinct ones counted (a set's
    // node per membership was most of a fuzz execution).
    std::int64_t occupied = 0;
    std::vector<std::pair<int, std::array<std::int64_t, D>>> cells;
    for (std::size_t i = 0; i < want.placements.size(); ++i) {
      const Placement<D>& p = want.placements[i];
      bool alone = true;
      for (std::size_t j = 0; j < want.placements.size() && alone; ++j) {
        alone = j == i || want.placements[j].level != p.level ||
                !internal::ranges_meet(p.cells, want.placements[j].cells, nullptr);
      }
      if (alone) {
        occupied += p.cell_count;
        continue;
      }
      std::array<std::int64_t, D> c = p.cells.lo;
      for (;;) {
        cells.emplace_back(p.level, c);
        std::size_t k = 0;
        for (; k < D; ++k) {
          if (c[k] != p.cells.hi[k]) {
            ++c[k];
            break;
          }
          c[k] = p.cells.lo[k];
        }
        if (k == D) break;
      }
    }
    std::sort(cells.begin(), cells.end());
    occupied += std::unique(cells.begin(), cells.end()) - cells.begin();
    if (absl::Status s = stat("occupied cells", st.occupied_cells, static_cast<std::int64_t>(occupied)); !s.ok()) {
      return s;
    }
  }
  if (coarse == 0) {
    std::int64_t candidates = 0;
    absl::int128 visits = 0;
    for (std::size_t i = 0; i < want.placements.size(); ++i) {
      for (std::size_t j = i + 1; j < want.placements.size(); ++j) {
        absl::int128 shared = 0;
        if (internal::ranges_meet(want.placements[i].cells, want.placements[j].cells, &shared)) {
          ++candidates;
          visits += shared;
        }
      }
    }
    if (absl::Status s = stat("unique candidates", st.unique_candidates, candidates); !s.ok()) return s;
    if (absl::Status s = stat("pair visits", st.pair_visits, static_cast<std::int64_t>(visits)); !s.ok()) return s;
  }
  return absl::OkStatus();
}
[[nodiscard]] inline absl::Status check_find_pairs(std::span<const Box2> boxes, const GridConfig& config,
                                                   const absl::StatusOr<PairsResult>& got) {
  return check_find_pairs<2>(boxes, config, got);
}
[[nodiscard]] inline absl::Status check_find_pairs(std::span<const Box3> boxes, const GridConfig& config,
                                                   const absl::StatusOr<PairsResult>& got) {
  return check_find_pairs<3>(boxes, config, got);
}

// check_same_pairs()
//
// B5: two successful calls on the same boxes with different cell sizes (or policies) agree.
[[nodiscard]] inline absl::Status check_same_pairs(double h1, std::span<const Pair> first, double h2,
                                                   std::span<const Pair> second) {
  if (std::equal(first.begin(), first.end(), second.begin(), second.end())) return absl::OkStatus();
  return internal::fail("B5 cell-size independence: ",
                        absl::StrFormat("cell size %a gives %d pairs, cell size %a gives %d", h1, first.size(), h2,
                                        second.size()));
}

// check_identical()
//
// B13-B15: `got` is bit-identical to `reference`, the outcome of the plain find_pairs on the same boxes:
// the same error (code and message), or the same pairs in the same order and the same stats, field by
// field. `clause` starts the message ("B15 thread-count equivalence"), then what differs.
[[nodiscard]] inline absl::Status check_identical(absl::string_view clause, const absl::StatusOr<PairsResult>& reference,
                                                  const absl::StatusOr<PairsResult>& got) {
  if (reference.ok() != got.ok() || (!reference.ok() && reference.status() != got.status())) {
    return internal::fail(clause, absl::StrCat(": expected ", reference.ok() ? "OK" : reference.status().ToString(),
                                               ", got ", got.ok() ? "OK" : got.status().ToString()));
  }
  if (!reference.ok()) return absl::OkStatus();
  if (reference->pairs != got->pairs) {
    return internal::fail(clause, absl::StrCat(": ", reference->pairs.size(), " pairs expected, ", got->pairs.size(),
                                               " got, or the same number in another order"));
  }
  const Stats& a = reference->stats;
  const Stats& b = got->stats;
  const std::array<std::pair<const char*, std::pair<std::int64_t, std::int64_t>>, 8> fields = {{
      {"boxes", {a.boxes, b.boxes}},
      {"memberships", {a.memberships, b.memberships}},
      {"occupied_cells", {a.occupied_cells, b.occupied_cells}},
      {"pair_visits", {a.pair_visits, b.pair_visits}},
      {"unique_candidates", {a.unique_candidates, b.unique_candidates}},
      {"pairs", {a.pairs, b.pairs}},
      {"levels", {a.levels, b.levels}},
      {"coarse_boxes", {a.coarse_boxes, b.coarse_boxes}},
  }};
  for (const auto& [name, values] : fields) {
    if (values.first != values.second) {
      return internal::fail(clause, absl::StrCat(": stats.", name, " ", values.first, " expected, ", values.second, " got"));
    }
  }
  return absl::OkStatus();
}

// check_placement()
//
// B8 and B11: a placement (an implementation's level and cells for `box`) is the oracle's: level 0 and
// cells [cell_of(min), cell_of(max)] under kReject, the smallest fitting level under kCoarserLevels,
// with the same error code when there is none.
template <std::size_t D>
[[nodiscard]] absl::Status check_placement(const Box<D>& box, const GridConfig& config,
                                           const absl::StatusOr<Placement<D>>& got) {
  const absl::StatusOr<Placement<D>> want = oracle_placement<D>(box, config);
  const absl::string_view clause =
      config.oversize == Oversize::kCoarserLevels ? "B11 oversize levels: " : "B8 registration: ";
  if (!want.ok()) {
    if (!got.ok() && got.status().code() == want.status().code()) return absl::OkStatus();
    return internal::fail(clause, absl::StrCat("box ", internal::describe_box(box), " must fail with ",
                                               absl::StatusCodeToString(want.status().code()), ", got ",
                                               got.ok() ? "a placement" : got.status().ToString()));
  }
  if (!got.ok()) {
    return internal::fail(clause, absl::StrCat("box ", internal::describe_box(box), " has a placement at level ",
                                               want->level, " but got ", got.status().ToString()));
  }
  if (got->level != want->level || !(got->cells == want->cells) || got->cell_count != want->cell_count) {
    std::ostringstream os;
    os << "box " << internal::describe_box(box) << ": got level " << got->level << ", cells";
    for (std::size_t k = 0; k < D; ++k) os << " [" << got->cells.lo[k] << ", " << got->cells.hi[k] << "]";
    os << " (" << got->cell_count << "); want level " << want->level << ", cells";
    for (std::size_t k = 0; k < D; ++k) os << " [" << want->cells.lo[k] << ", " << want->cells.hi[k] << "]";
    os << " (" << want->cell_count << ")";
    return internal::fail(clause, os.str());
  }
  return absl::OkStatus();
}

// check_covers()
//
// B8, the monotone quantisation lemma: for a point p of `box` (min <= p <= max on every axis), the cell of
// p lies in the registered range `cells` of the box at cell size h.
template <std::size_t D>
[[nodiscard]] absl::Status check_covers(const Box<D>& box, double h, const CellRange<D>& cells,
                                        const std::array<double, D>& p) {
  for (std::size_t k = 0; k < D; ++k) {
    if (!(box.min[k] <= p[k] && p[k] <= box.max[k])) return absl::OkStatus();  // not a point of the box
  }
  for (std::size_t k = 0; k < D; ++k) {
    const absl::StatusOr<std::int64_t> c = oracle_cell_of(p[k], h);
    if (!c.ok() || *c < cells.lo[k] || *c > cells.hi[k]) {
      return internal::fail("B8 registration: ",
                            absl::StrFormat("point %a on axis %d of box %s is in cell %s, outside the registered "
                                            "[%d, %d] at h = %a",
                                            p[k], k, internal::describe_box(box),
                                            c.ok() ? absl::StrCat(*c) : c.status().ToString(), cells.lo[k],
                                            cells.hi[k], h));
    }
  }
  return absl::OkStatus();
}

// check_reference_cell()
//
// B9: for two overlapping boxes with registered ranges ra, rb at cell size h, the cell of the lower
// corner of their intersection is max(ra.lo, rb.lo) on every axis, and lies in both ranges — so exactly
// one shared cell is the pair's reference cell.
template <std::size_t D>
[[nodiscard]] absl::Status check_reference_cell(const Box<D>& a, const Box<D>& b, double h, const CellRange<D>& ra,
                                                const CellRange<D>& rb) {
  if (!internal::intersect(a, b)) return absl::OkStatus();
  for (std::size_t k = 0; k < D; ++k) {
    const absl::StatusOr<std::int64_t> c = oracle_cell_of(internal::exact_max(a.min[k], b.min[k]), h);
    const std::int64_t want = std::max(ra.lo[k], rb.lo[k]);
    if (!c.ok() || *c != want || *c > ra.hi[k] || *c > rb.hi[k]) {
      return internal::fail("B9 reference cell: ",
                            absl::StrFormat("boxes %s and %s at h = %a: the intersection's lower corner on axis "
                                            "%d is in cell %s; max of the first cells is %d; last cells %d, %d",
                                            internal::describe_box(a), internal::describe_box(b), h, k,
                                            c.ok() ? absl::StrCat(*c) : c.status().ToString(), want, ra.hi[k],
                                            rb.hi[k]));
    }
  }
  return absl::OkStatus();
}

// check_query()
//
// B10: a query answer is exactly the indices of the boxes intersecting `probe`, ascending, each once.
template <std::size_t D>
[[nodiscard]] absl::Status check_query(std::span<const Box<D>> boxes, const Box<D>& probe,
                                       std::span<const std::uint32_t> got) {
  std::vector<std::uint32_t> want;
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    if (internal::intersect(boxes[i], probe)) want.push_back(static_cast<std::uint32_t>(i));
  }
  if (std::equal(want.begin(), want.end(), got.begin(), got.end())) return absl::OkStatus();
  std::size_t i = 0;
  while (i < want.size() && i < got.size() && want[i] == got[i]) ++i;
  return internal::fail("B10 query: ", absl::StrCat("probe ", internal::describe_box(probe), ": ", got.size(),
                                                    " ids, want ", want.size(), "; first difference at position ", i,
                                                    ": got ", i < got.size() ? absl::StrCat(got[i]) : "nothing",
                                                    ", want ", i < want.size() ? absl::StrCat(want[i]) : "nothing"));
}

}  // namespace lwc::contracts

LWC_EXACT_FP_END

#endif  // LWC_CONTRACTS_BROADPHASE_BATCH_H_
