// File: contracts/broadphase.cppm       Module: lwc.contracts.broadphase
//
// Executable B-clauses (docs/broadphase.md): checkers that judge the output of ANY broad phase — lwc's
// own or an engine's — and models written differently from lwc.broadphase:
//   - brute_force_pairs: every pair tested, O(n^2), intersection written as max(min) <= min(max);
//   - expected_outcome: which error (or none) a call must return, from oracle_cell_of (a binary search
//     that never divides) and int128 counts, with the level search of kCoarserLevels done by bisection;
//   - seed_style_pairs: seed 001's algorithm as published (a hash map of cell lists and a global pair
//     set), reporting its own memberships, visits and candidates; the seed's figures are computed by it.
//
// Checkers return absl::Status and never abort. On failure the message starts with the clause id:
//   "B3 exactly-once: pair (4, 9) reported twice"
module;
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
export module lwc.contracts.broadphase;

import lwc.decompose;
import lwc.broadphase;
import lwc.contracts.decompose;

namespace lwc::internal {

template <std::size_t D>
std::string describe_box(const Box<D>& b) {
  std::ostringstream os;
  os << b;
  return os.str();
}

std::string describe_pair(const Pair& p) { return absl::StrCat("(", p.a, ", ", p.b, ")"); }

// The closed intersection test of the oracle: the intersection interval is [max(min), min(max)].
template <std::size_t D>
bool intersect(const Box<D>& a, const Box<D>& b) {
  for (std::size_t k = 0; k < D; ++k) {
    if (std::max(a.min[k], b.min[k]) > std::min(a.max[k], b.max[k])) return false;
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

// The seed's Dictionary<(int, int), List<int>> key hash. A rotation and xor only: nothing that wraps or
// shifts bits out (the sanitized presets trap on both in our code, and on libstdc++'s std::rotl).
template <std::size_t D>
struct CellHash {
  std::size_t operator()(const std::array<std::int64_t, D>& c) const noexcept {
    std::uint64_t h = 0;
    for (const std::int64_t v : c) {
      h = (((h & ((std::uint64_t{1} << 41) - 1)) << 23) | (h >> 41)) ^ static_cast<std::uint64_t>(v);
    }
    return static_cast<std::size_t>(h);
  }
};

absl::Status fail(absl::string_view clause, const std::string& why) {
  return absl::InvalidArgumentError(absl::StrCat(clause, why));
}

}  // namespace lwc::internal

export namespace lwc::contracts {

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
[[nodiscard]] std::vector<Pair> brute_force_pairs(std::span<const Box2> boxes) { return brute_force_pairs<2>(boxes); }
[[nodiscard]] std::vector<Pair> brute_force_pairs(std::span<const Box3> boxes) { return brute_force_pairs<3>(boxes); }

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
[[nodiscard]] absl::Status check_pairs(std::span<const Box2> boxes, std::span<const Pair> got) {
  return check_pairs<2>(boxes, got);
}
[[nodiscard]] absl::Status check_pairs(std::span<const Box3> boxes, std::span<const Pair> got) {
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
    if (!std::isfinite(box.min[k]) || !std::isfinite(box.max[k]) || box.min[k] > box.max[k]) {
      return absl::InvalidArgumentError("bad box");
    }
  }
  const std::int64_t cap = config.budgets.max_cells_per_box;
  const auto at = [&](int level) -> absl::StatusOr<Placement<D>> {
    const double h = std::ldexp(config.cell_size, level);
    if (!std::isfinite(h)) return absl::ResourceExhaustedError("no such level");
    absl::StatusOr<CellRange<D>> r = internal::oracle_range(box, h);
    if (!r.ok()) return r.status();
    const std::int64_t count = internal::oracle_count(*r, cap);
    if (count < 0) return absl::ResourceExhaustedError("too many cells");
    return Placement<D>{level, *r, count};
  };
  if (config.oversize == Oversize::kReject) return at(0);
  int top = 0;  // the highest level with a finite cell size, counted up one by one
  while (std::isfinite(std::ldexp(config.cell_size, top + 1))) ++top;
  int lo = 0;  // invariant: no level below lo fits, and level hi fits (or hi == top)
  int hi = top;
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
  const Budgets& b = config.budgets;
  const std::int64_t corner = D == 2 ? 16 : 64;
  if (!std::isfinite(config.cell_size) || !(config.cell_size > 0) || b.max_cells_per_box < 1 ||
      b.max_memberships < 0 || b.max_pairs < 0 ||
      (config.oversize == Oversize::kCoarserLevels && b.max_cells_per_box < corner)) {
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
  if (total > b.max_memberships) {
    e.code = absl::StatusCode::kResourceExhausted;
    return e;
  }
  e.memberships = static_cast<std::int64_t>(total);
  if (static_cast<std::int64_t>(brute_force_pairs<D>(boxes).size()) > b.max_pairs) {
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
[[nodiscard]] absl::Status check_find_pairs(std::span<const Box2> boxes, const GridConfig& config,
                                            const absl::StatusOr<PairsResult>& got) {
  return check_find_pairs<2>(boxes, config, got);
}
[[nodiscard]] absl::Status check_find_pairs(std::span<const Box3> boxes, const GridConfig& config,
                                            const absl::StatusOr<PairsResult>& got) {
  return check_find_pairs<3>(boxes, config, got);
}

// check_same_pairs()
//
// B5: two successful calls on the same boxes with different cell sizes (or policies) agree.
[[nodiscard]] absl::Status check_same_pairs(double h1, std::span<const Pair> first, double h2,
                                            std::span<const Pair> second) {
  if (std::equal(first.begin(), first.end(), second.begin(), second.end())) return absl::OkStatus();
  return internal::fail("B5 cell-size independence: ",
                        absl::StrFormat("cell size %a gives %d pairs, cell size %a gives %d", h1, first.size(), h2,
                                        second.size()));
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
    const absl::StatusOr<std::int64_t> c = oracle_cell_of(std::max(a.min[k], b.min[k]), h);
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

// SeedStyleResult
//
// The output of the seed's algorithm with its own counters: memberships, pair visits (every pair of every
// cell list), unique candidates (the size of the global pair set) and the overlapping pairs, sorted.
struct SeedStyleResult {
  std::vector<Pair> pairs;
  std::int64_t memberships = 0;
  std::int64_t pair_visits = 0;
  std::int64_t unique_candidates = 0;
};

// seed_style_pairs()
//
// Seed 001's SpatialHash.Build, in C++: per box, register it in every cell from cell_of(min) to
// cell_of(max) in a hash map of cell -> box list; then every pair of every list goes into a global hash
// set of (lower, higher) keys; then each candidate is tested, and the overlaps are sorted (the seed
// returns a set; sorting makes it comparable). The cells are lwc.decompose's exact cells (the seed's
// Math.Floor(v / size) agrees with them on the seed's inputs). Errors like the seed's: InvalidArgument
// for a bad box or h, OutOfRange for a cell outside int64, ResourceExhausted beyond max_cells_per_box or
// max_memberships. The baseline the benchmarks compare lwc with.
template <std::size_t D>
[[nodiscard]] absl::StatusOr<SeedStyleResult> seed_style_pairs(std::span<const Box<D>> boxes, double h,
                                                              const Budgets& budgets) {
  absl::StatusOr<CellSize> size = CellSize::create(h);
  if (!size.ok()) return size.status();
  std::unordered_map<std::array<std::int64_t, D>, std::vector<std::uint32_t>, internal::CellHash<D>> cells;
  SeedStyleResult out;
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    if (absl::Status s = validate_box(boxes[i], i); !s.ok()) return s;
    absl::StatusOr<CellRange<D>> r = cell_range(boxes[i], *size);
    if (!r.ok()) return r.status();
    if (cell_count(*r) > static_cast<absl::uint128>(budgets.max_cells_per_box)) {
      return absl::ResourceExhaustedError(absl::StrCat("box ", i, ": too many cells"));
    }
    std::array<std::int64_t, D> c = r->lo;
    for (;;) {
      if (++out.memberships > budgets.max_memberships) return absl::ResourceExhaustedError("too many memberships");
      cells[c].push_back(static_cast<std::uint32_t>(i));
      std::size_t k = 0;
      for (; k < D; ++k) {
        if (c[k] != r->hi[k]) {
          ++c[k];
          break;
        }
        c[k] = r->lo[k];
      }
      if (k == D) break;
    }
  }
  std::unordered_set<std::uint64_t> candidates;
  for (const auto& [cell, ids] : cells) {
    for (std::size_t a = 0; a < ids.size(); ++a) {
      for (std::size_t b = a + 1; b < ids.size(); ++b) {
        ++out.pair_visits;
        // Registered in index order, so ids[a] < ids[b] (as the seed notes).
        candidates.insert((static_cast<std::uint64_t>(ids[a]) << 32) | ids[b]);
      }
    }
  }
  out.unique_candidates = static_cast<std::int64_t>(candidates.size());
  for (const std::uint64_t key : candidates) {
    const auto a = static_cast<std::uint32_t>(key >> 32);
    const auto b = static_cast<std::uint32_t>(key & 0xffffffffu);
    if (overlaps(boxes[a], boxes[b])) out.pairs.push_back({a, b});
  }
  std::sort(out.pairs.begin(), out.pairs.end());
  return out;
}
[[nodiscard]] absl::StatusOr<SeedStyleResult> seed_style_pairs(std::span<const Box2> boxes, double h,
                                                              const Budgets& budgets) {
  return seed_style_pairs<2>(boxes, h, budgets);
}
[[nodiscard]] absl::StatusOr<SeedStyleResult> seed_style_pairs(std::span<const Box3> boxes, double h,
                                                              const Budgets& budgets) {
  return seed_style_pairs<3>(boxes, h, budgets);
}

// ---------------------------------------------------------------------------------------------------
// The persistent grid (E1-E6).

// ObjectPair
//
// Two objects of a PersistentModel by their insertion numbers, lower first.
using ObjectPair = std::pair<std::size_t, std::size_t>;

// PersistentModel
//
// The reference model of a persistent grid, written from the spec and nothing else: objects numbered in
// insertion order (successful inserts only), each with its box at the last update and its box now; the
// placement, error codes and cell counts from oracle_placement; the pair sets by brute force at every
// update, and the events as their set differences; the swept candidates by brute force over the step
// volumes. It is copyable, so a property can ask what an operation should do without doing it.
// Each operation returns the status code the grid must return, and applies the operation when it is OK.
template <std::size_t D>
class PersistentModel {
 public:
  struct Object {
    Box<D> then{};          // the box at the last successful update, if `committed`
    Box<D> now{};           // the box as last given, if `live`
    Box<D> volume{};        // the step volume, if `swept`
    bool committed = false;
    bool live = false;
    bool swept = false;
    bool teleported = false;  // inserted or teleported in this step: a later sweep starts at `now`
    bool dirty = false;
    std::int64_t then_cells = 0;
    std::int64_t now_cells = 0;
    std::int64_t volume_cells = 0;
  };

  // What update() must do: the code; when OK, the events as sorted object pairs and the exact counts.
  struct Update {
    absl::StatusCode code = absl::StatusCode::kOk;
    std::vector<ObjectPair> began, ended, swept;
    std::int64_t boxes = 0;
    std::int64_t memberships = 0;
    std::int64_t pairs = 0;
    std::int64_t dirty = 0;
    std::int64_t memberships_touched = 0;
  };

  explicit PersistentModel(const GridConfig& config) : config_(config) {}

  [[nodiscard]] absl::StatusCode insert(const Box<D>& box) {
    const absl::StatusOr<Placement<D>> where = oracle_placement<D>(box, config_);
    if (!where.ok()) return where.status().code();
    Object o;
    o.now = box;
    o.live = true;
    o.teleported = true;
    o.dirty = true;
    o.now_cells = where->cell_count;
    objects_.push_back(o);
    return absl::StatusCode::kOk;
  }

  [[nodiscard]] absl::StatusCode move(std::size_t object, const Box<D>& box, Motion motion) {
    if (object >= objects_.size() || !objects_[object].live) return absl::StatusCode::kNotFound;
    Object& o = objects_[object];
    const absl::StatusOr<Placement<D>> where = oracle_placement<D>(box, config_);
    if (!where.ok()) return where.status().code();
    if (motion == Motion::kSwept) {
      const Box<D>& start = o.swept ? o.volume : (o.teleported ? o.now : o.then);
      Box<D> volume;
      for (std::size_t k = 0; k < D; ++k) {
        volume.min[k] = std::min(start.min[k], box.min[k]);
        volume.max[k] = std::max(start.max[k], box.max[k]);
      }
      const absl::StatusOr<Placement<D>> swept = oracle_placement<D>(volume, config_);
      if (!swept.ok()) return swept.status().code();
      o.volume = volume;
      o.volume_cells = swept->cell_count;
      o.swept = true;
    } else {
      o.swept = false;
      o.teleported = true;
    }
    o.now = box;
    o.now_cells = where->cell_count;
    o.dirty = true;
    return absl::StatusCode::kOk;
  }

  [[nodiscard]] absl::StatusCode remove(std::size_t object) {
    if (object >= objects_.size() || !objects_[object].live) return absl::StatusCode::kNotFound;
    Object& o = objects_[object];
    o.live = false;
    o.swept = false;
    o.dirty = true;
    return absl::StatusCode::kOk;
  }

  // update(): the expected outcome; applied when OK (a refused update leaves the model as it was, E4).
  [[nodiscard]] Update update() {
    Update u;
    const std::vector<ObjectPair> before = pairs();
    std::vector<ObjectPair> after;
    absl::int128 memberships = 0;
    absl::int128 volume_memberships = 0;
    for (std::size_t i = 0; i < objects_.size(); ++i) {
      const Object& a = objects_[i];
      if (a.live) {
        memberships += a.now_cells;
        ++u.boxes;
      }
      if (a.swept) volume_memberships += a.volume_cells;
      if (a.dirty) {
        ++u.dirty;
        u.memberships_touched += (a.committed ? a.then_cells : 0) + (a.live ? a.now_cells : 0) +
                                 (a.swept ? a.volume_cells : 0);
      }
      for (std::size_t j = i + 1; j < objects_.size(); ++j) {
        const Object& b = objects_[j];
        if (!a.live || !b.live) continue;
        if (internal::intersect(a.now, b.now)) {
          after.push_back({i, j});
        } else if ((a.swept || b.swept) && internal::intersect(a.swept ? a.volume : a.now, b.swept ? b.volume : b.now)) {
          u.swept.push_back({i, j});
        }
      }
    }
    const auto limit = absl::int128(config_.budgets.max_memberships);
    if (memberships > limit || volume_memberships > limit ||
        static_cast<std::int64_t>(after.size()) > config_.budgets.max_pairs ||
        static_cast<std::int64_t>(u.swept.size()) > config_.budgets.max_pairs) {
      Update refused;
      refused.code = absl::StatusCode::kResourceExhausted;
      return refused;
    }
    std::set_difference(after.begin(), after.end(), before.begin(), before.end(), std::back_inserter(u.began));
    std::set_difference(before.begin(), before.end(), after.begin(), after.end(), std::back_inserter(u.ended));
    u.memberships = static_cast<std::int64_t>(memberships);
    u.pairs = static_cast<std::int64_t>(after.size());
    for (Object& o : objects_) {
      o.then = o.now;
      o.then_cells = o.now_cells;
      o.committed = o.live;
      o.swept = false;
      o.teleported = false;
      o.dirty = false;
    }
    return u;
  }

  // pairs(): the overlapping pairs of the boxes at the last successful update, by brute force.
  [[nodiscard]] std::vector<ObjectPair> pairs() const {
    std::vector<ObjectPair> out;
    for (std::size_t i = 0; i < objects_.size(); ++i) {
      for (std::size_t j = i + 1; j < objects_.size(); ++j) {
        if (objects_[i].committed && objects_[j].committed && internal::intersect(objects_[i].then, objects_[j].then)) {
          out.push_back({i, j});
        }
      }
    }
    return out;
  }

  [[nodiscard]] const std::vector<Object>& objects() const noexcept { return objects_; }
  [[nodiscard]] const GridConfig& config() const noexcept { return config_; }

 private:
  GridConfig config_;
  std::vector<Object> objects_;
};

}  // namespace lwc::contracts

namespace lwc::internal {

std::string describe_object_pair(const contracts::ObjectPair& p) {
  return absl::StrCat("objects (", p.first, ", ", p.second, ")");
}

// Maps a list of contacts to object pairs through `handles` (object i has handles[i]), checking that each
// contact is lower slot first, that the list is in canonical order, and that every handle is known.
absl::Status to_object_pairs(absl::string_view clause, absl::string_view what, std::span<const Contact> got,
                             std::span<const Handle> handles, std::vector<contracts::ObjectPair>& out) {
  std::map<Handle, std::size_t> object_of;
  for (std::size_t i = 0; i < handles.size(); ++i) object_of[handles[i]] = i;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const Contact& c = got[i];
    std::ostringstream os;
    os << what << " contact " << c;
    if (!(c.a.slot < c.b.slot)) return fail(clause, absl::StrCat(os.str(), " is not lower slot first"));
    if (i > 0 && !(std::pair(got[i - 1].a.slot, got[i - 1].b.slot) < std::pair(c.a.slot, c.b.slot))) {
      return fail(clause, absl::StrCat(os.str(), " at position ", i, " is not after the one before it (canonical order, each once)"));
    }
    const auto a = object_of.find(c.a);
    const auto b = object_of.find(c.b);
    if (a == object_of.end() || b == object_of.end()) {
      return fail("E3 handle safety: ", absl::StrCat(os.str(), " names a handle the grid never issued"));
    }
    out.push_back({std::min(a->second, b->second), std::max(a->second, b->second)});
  }
  std::sort(out.begin(), out.end());
  return absl::OkStatus();
}

absl::Status same_pairs(absl::string_view clause, absl::string_view what, const std::vector<contracts::ObjectPair>& got,
                        const std::vector<contracts::ObjectPair>& want) {
  if (std::adjacent_find(got.begin(), got.end()) != got.end()) {
    return fail(clause, absl::StrCat(what, ": ", describe_object_pair(*std::adjacent_find(got.begin(), got.end())),
                                     " reported twice"));
  }
  std::vector<contracts::ObjectPair> missing;
  std::set_difference(want.begin(), want.end(), got.begin(), got.end(), std::back_inserter(missing));
  if (!missing.empty()) {
    return fail(clause, absl::StrCat(what, ": ", describe_object_pair(missing.front()), " missing (", missing.size(),
                                     " missing, ", got.size(), " reported, ", want.size(), " expected)"));
  }
  std::vector<contracts::ObjectPair> extra;
  std::set_difference(got.begin(), got.end(), want.begin(), want.end(), std::back_inserter(extra));
  if (!extra.empty()) {
    return fail(clause, absl::StrCat(what, ": ", describe_object_pair(extra.front()), " reported but not expected (",
                                     extra.size(), " extra)"));
  }
  return absl::OkStatus();
}

}  // namespace lwc::internal

export namespace lwc::contracts {

// check_operation()
//
// E3, E4: the status of an insert, move or remove (or of any use of a stale handle) is the model's code.
// `want` comes from the same operation on a PersistentModel.
[[nodiscard]] inline absl::Status check_operation(absl::string_view operation, absl::StatusCode want, const absl::Status& got) {
  if (got.code() == want) return absl::OkStatus();
  const absl::string_view clause = want == absl::StatusCode::kNotFound || got.code() == absl::StatusCode::kNotFound
                                       ? "E3 handle safety: "
                                       : "E4 failure atomicity: ";
  return internal::fail(clause, absl::StrCat(operation, " must return ", absl::StatusCodeToString(want), ", got ",
                                             got.ToString()));
}

// check_fresh_handle()
//
// E3: an inserted box's handle was never issued before (`issued`: every handle returned so far).
[[nodiscard]] inline absl::Status check_fresh_handle(const Handle& got, std::span<const Handle> issued) {
  if (got.generation != 0 && std::find(issued.begin(), issued.end(), got) == issued.end()) return absl::OkStatus();
  std::ostringstream os;
  os << "insert returned handle " << got << ", " << (got.generation == 0 ? "generation 0" : "issued before");
  return internal::fail("E3 handle safety: ", os.str());
}

// check_update()
//
// E1, E2, E4, E5, E6: one update against the model's expectation (`want` = PersistentModel::update() on
// the same operations; `handles[i]` is the handle of object i). A refused update must carry the model's
// code; a successful one must report exactly the model's began and ended pairs (the set differences of the
// brute-force pair sets) and swept candidates, each list lower slot first, in canonical order, each pair
// once, and exact stats: boxes, memberships, pairs, the dirty boxes and the memberships they touch.
template <std::size_t D>
[[nodiscard]] absl::Status check_update(const typename PersistentModel<D>::Update& want,
                                        const absl::StatusOr<ContactEvents>& got, std::span<const Handle> handles) {
  if (want.code != absl::StatusCode::kOk || !got.ok()) {
    if (!got.ok() && got.status().code() == want.code) return absl::OkStatus();
    return internal::fail("E2 state equivalence: ",
                          absl::StrCat("update must return ", absl::StatusCodeToString(want.code), ", got ",
                                       got.ok() ? "OK" : got.status().ToString()));
  }
  const struct {
    absl::string_view clause, what;
    const std::vector<Contact>& got;
    const std::vector<ObjectPair>& want;
  } lists[] = {{"E1 events: ", "began", got->began, want.began},
               {"E1 events: ", "ended", got->ended, want.ended},
               {"E6 swept candidates: ", "swept", got->swept, want.swept}};
  for (const auto& list : lists) {
    std::vector<ObjectPair> mapped;
    if (absl::Status s = internal::to_object_pairs(list.clause, list.what, list.got, handles, mapped); !s.ok()) return s;
    if (absl::Status s = internal::same_pairs(list.clause, list.what, mapped, list.want); !s.ok()) return s;
  }
  const UpdateStats& st = got->stats;
  const struct {
    absl::string_view clause, name;
    std::int64_t got, want;
  } stats[] = {{"E2 state equivalence: ", "boxes", st.boxes, want.boxes},
               {"E2 state equivalence: ", "memberships", st.memberships, want.memberships},
               {"E2 state equivalence: ", "pairs", st.pairs, want.pairs},
               {"E1 events: ", "began count", st.began, static_cast<std::int64_t>(want.began.size())},
               {"E1 events: ", "ended count", st.ended, static_cast<std::int64_t>(want.ended.size())},
               {"E6 swept candidates: ", "swept count", st.swept, static_cast<std::int64_t>(want.swept.size())},
               {"E5 cost: ", "dirty boxes", st.dirty, want.dirty},
               {"E5 cost: ", "memberships touched", st.memberships_touched, want.memberships_touched}};
  for (const auto& s : stats) {
    if (s.got != s.want) return internal::fail(s.clause, absl::StrCat("stats.", s.name, " = ", s.got, ", expected ", s.want));
  }
  return absl::OkStatus();
}

// check_current_pairs()
//
// E2: the grid's pair list (PersistentGrid::pairs()) is the model's pair set at the last update, lower
// slot first, in canonical order, each once.
template <std::size_t D>
[[nodiscard]] absl::Status check_current_pairs(const PersistentModel<D>& model, std::span<const Contact> got,
                                               std::span<const Handle> handles) {
  std::vector<ObjectPair> mapped;
  if (absl::Status s = internal::to_object_pairs("E2 state equivalence: ", "current", got, handles, mapped); !s.ok()) {
    return s;
  }
  return internal::same_pairs("E2 state equivalence: ", "current pairs", mapped, model.pairs());
}

// check_tracked_pairs()
//
// E2 for any engine: `got` (contacts by handle) is exactly the overlapping pairs of `boxes` (the live
// boxes with their handles, by ascending slot), i.e. find_pairs on the boxes with positions mapped to
// handles — judged by brute force (check_pairs) after mapping each handle to its position.
template <std::size_t D>
[[nodiscard]] absl::Status check_tracked_pairs(std::span<const Tracked<D>> boxes, std::span<const Contact> got) {
  std::vector<Box<D>> plain;
  std::map<Handle, std::uint32_t> position;
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    if (i > 0 && !(boxes[i - 1].handle.slot < boxes[i].handle.slot)) {
      return internal::fail("E2 state equivalence: ", "the boxes are not listed by ascending slot");
    }
    plain.push_back(boxes[i].box);
    position[boxes[i].handle] = static_cast<std::uint32_t>(i);
  }
  std::vector<Pair> pairs;
  for (const Contact& c : got) {
    const auto a = position.find(c.a);
    const auto b = position.find(c.b);
    if (a == position.end() || b == position.end()) {
      std::ostringstream os;
      os << "contact " << c << " names a box that is not live";
      return internal::fail("E2 state equivalence: ", os.str());
    }
    pairs.push_back({a->second, b->second});
  }
  if (absl::Status s = check_pairs<D>(plain, pairs); !s.ok()) {
    return internal::fail("E2 state equivalence: ", std::string(s.message()));
  }
  return absl::OkStatus();
}

// PersistentJudge
//
// Drives a PersistentModel beside any persistent grid and judges the grid's answers, operation by
// operation: feed each operation with the grid's result (objects are numbered by successful inserts, as
// in the model). Every method returns the verdict of the clause it checks; after a failed verdict the
// judge's state is unspecified. Used by the fuzzer, the properties and the tests; an engine can drive its
// own grid through it.
//
// Example:
//   lwc::contracts::PersistentJudge<2> judge(config);
//   absl::Status v = judge.insert(box, grid.insert(box));
//   v = judge.move(0, to, lwc::Motion::kSwept, grid.move(judge.handle(0), to, lwc::Motion::kSwept));
//   v = judge.update(grid.update());
//   v = judge.pairs(grid.pairs());
template <std::size_t D>
class PersistentJudge {
 public:
  explicit PersistentJudge(const GridConfig& config) : model_(config) {}

  [[nodiscard]] absl::Status insert(const Box<D>& box, const absl::StatusOr<Handle>& got) {
    const absl::StatusCode want = model_.insert(box);
    if (absl::Status s = check_operation("insert", want, got.status()); !s.ok()) return s;
    if (!got.ok()) return absl::OkStatus();
    if (absl::Status s = check_fresh_handle(*got, handles_); !s.ok()) return s;
    handles_.push_back(*got);
    return absl::OkStatus();
  }

  [[nodiscard]] absl::Status move(std::size_t object, const Box<D>& box, Motion motion, const absl::Status& got) {
    return check_operation("move", model_.move(object, box, motion), got);
  }

  [[nodiscard]] absl::Status remove(std::size_t object, const absl::Status& got) {
    return check_operation("remove", model_.remove(object), got);
  }

  // stale(): the answer to an operation with a handle that was never issued (generation 0, or a slot
  // beyond every slot used): NotFound.
  [[nodiscard]] absl::Status stale(const absl::Status& got) {
    return check_operation("an operation with a never-issued handle", absl::StatusCode::kNotFound, got);
  }

  [[nodiscard]] absl::Status update(const absl::StatusOr<ContactEvents>& got) {
    return check_update<D>(model_.update(), got, handles_);
  }

  [[nodiscard]] absl::Status pairs(std::span<const Contact> got) const {
    return check_current_pairs<D>(model_, got, handles_);
  }

  // The handle of object `object` (issued by the grid at its insert).
  [[nodiscard]] Handle handle(std::size_t object) const { return handles_[object]; }
  [[nodiscard]] std::size_t objects() const noexcept { return handles_.size(); }
  [[nodiscard]] const PersistentModel<D>& model() const noexcept { return model_; }

 private:
  PersistentModel<D> model_;
  std::vector<Handle> handles_;
};

}  // namespace lwc::contracts
