// File: properties/broadphase_props.cc
//
// One RapidCheck property per B-clause of docs/broadphase.md, named by clause id, over the scenes of
// support/arbitrary_broadphase.h (boundaries, -0.0, zero area, shared edges, walls, extremes), judged by
// lwc.contracts.broadphase's brute-force oracle and checkers. Heavy properties (an O(n^2) oracle and an
// exact binary-search quantiser per coordinate) run at a fraction of the case count.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "support/property.h"
#include "support/arbitrary_broadphase.h"

import lwc.decompose;
import lwc.broadphase;
import lwc.contracts.broadphase;

namespace {

using lwc::Box;
using lwc::GridConfig;
using lwc::Oversize;
using lwc::Pair;
using lwc::PairsResult;

void assert_ok(const absl::Status& status) {
  if (!status.ok()) RC_FAIL(std::string(status.message()));
}

GridConfig roomy(double h, Oversize oversize = Oversize::kReject) {
  GridConfig c;
  c.cell_size = h;
  c.oversize = oversize;
  c.budgets.max_cells_per_box = 1 << 14;
  c.budgets.max_memberships = 1 << 18;
  c.budgets.max_pairs = 1 << 18;
  return c;
}

// A valid scene and a successful call on it (cases whose cells leave int64 or the budgets are discarded
// here; B6, B7 and B11 cover them).
template <std::size_t D>
struct Solved {
  double h;
  std::vector<Box<D>> boxes;
  PairsResult result;
};

template <std::size_t D>
Solved<D> solved_scene() {
  const double h = *lwc::testing::scene_cell_size();
  std::vector<Box<D>> boxes = *lwc::testing::scene<D>(h);
  absl::StatusOr<PairsResult> r = lwc::find_pairs(std::span<const Box<D>>(boxes), roomy(h));
  RC_TAG(r.ok() ? "solved" : absl::StatusCodeToString(r.status().code()));
  RC_PRE(r.ok());
  return {h, std::move(boxes), *std::move(r)};
}

LWC_PROP_SCALED(Broadphase, B1_EveryOverlapIsReported, 8, ()) {
  const Solved<2> s = solved_scene<2>();
  const std::vector<Pair> want = lwc::contracts::brute_force_pairs(s.boxes);
  RC_CLASSIFY(want.empty(), "no overlap");
  for (const Pair& p : want) {
    if (!std::binary_search(s.result.pairs.begin(), s.result.pairs.end(), p)) {
      RC_FAIL("B1 completeness: pair (" + std::to_string(p.a) + ", " + std::to_string(p.b) + ") missing");
    }
  }
  const Solved<3> t = solved_scene<3>();
  for (const Pair& p : lwc::contracts::brute_force_pairs(t.boxes)) {
    RC_ASSERT(std::binary_search(t.result.pairs.begin(), t.result.pairs.end(), p));
  }
}

LWC_PROP_SCALED(Broadphase, B2_EveryReportedPairOverlaps, 4, ()) {
  const Solved<2> s = solved_scene<2>();
  for (const Pair& p : s.result.pairs) {
    RC_ASSERT(p.a < s.boxes.size());
    RC_ASSERT(p.b < s.boxes.size());
    const lwc::Box2& a = s.boxes[p.a];
    const lwc::Box2& b = s.boxes[p.b];
    for (std::size_t k = 0; k < 2; ++k) RC_ASSERT(std::max(a.min[k], b.min[k]) <= std::min(a.max[k], b.max[k]));
  }
}

LWC_PROP_SCALED(Broadphase, B3_EachPairOnceLowerIndexFirst, 4, ()) {
  const Solved<2> s = solved_scene<2>();
  std::vector<Pair> sorted = s.result.pairs;
  std::sort(sorted.begin(), sorted.end());
  RC_ASSERT(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
  for (const Pair& p : s.result.pairs) RC_ASSERT(p.a < p.b);
  // Identical boxes share many cells: still one pair each.
  std::vector<lwc::Box2> doubled = s.boxes;
  doubled.insert(doubled.end(), s.boxes.begin(), s.boxes.end());
  absl::StatusOr<PairsResult> r = lwc::find_pairs(doubled, roomy(s.h));
  RC_PRE(r.ok());
  assert_ok(lwc::contracts::check_pairs(doubled, r->pairs));
}

LWC_PROP_SCALED(Broadphase, B4_PairsInLexicographicOrder, 4, ()) {
  const Solved<2> s = solved_scene<2>();
  RC_ASSERT(std::is_sorted(s.result.pairs.begin(), s.result.pairs.end()));
  RC_ASSERT(std::adjacent_find(s.result.pairs.begin(), s.result.pairs.end()) == s.result.pairs.end());
}

LWC_PROP_SCALED(Broadphase, B5_SameResultForEveryCellSize, 6, ()) {
  const Solved<2> s = solved_scene<2>();
  const double h2 = *lwc::testing::scene_cell_size();
  const Oversize policy = *rc::gen::element(Oversize::kReject, Oversize::kCoarserLevels);
  GridConfig c = roomy(h2, policy);
  c.budgets.max_cells_per_box = *rc::gen::element(16, 64, 1 << 14);
  const absl::StatusOr<PairsResult> other = lwc::find_pairs(s.boxes, c);
  RC_PRE(other.ok());
  assert_ok(lwc::contracts::check_same_pairs(s.h, s.result.pairs, h2, other->pairs));
  assert_ok(lwc::contracts::check_pairs(s.boxes, s.result.pairs));
}

LWC_PROP_SCALED(Broadphase, B6_BadInputIsRefusedWithNoOutput, 4, ()) {
  const double h = *rc::gen::weightedOneOf<double>({{6, lwc::testing::scene_cell_size()}, {1, lwc::testing::any_cell_size()}});
  std::vector<lwc::Box2> boxes = *lwc::testing::scene<2>(h, 8);
  const int bad = *rc::gen::inRange(0, 3);
  for (int i = 0; i < bad; ++i) {
    const auto at = static_cast<std::size_t>(*rc::gen::inRange<int>(0, static_cast<int>(boxes.size()) + 1));
    boxes.insert(boxes.begin() + static_cast<std::ptrdiff_t>(at), *lwc::testing::any_box<2>(h));
  }
  GridConfig c = roomy(h, *rc::gen::element(Oversize::kReject, Oversize::kCoarserLevels));
  if (*rc::gen::weightedOneOf<bool>({{9, rc::gen::just(false)}, {1, rc::gen::just(true)}})) {
    c.budgets.max_pairs = *rc::gen::element<std::int64_t>(-1, 0);
    c.budgets.max_cells_per_box = *rc::gen::element<std::int64_t>(0, 1, 15, 16);
  }
  const absl::StatusOr<PairsResult> r = lwc::find_pairs(boxes, c);
  RC_TAG(r.ok() ? "ok" : absl::StatusCodeToString(r.status().code()));
  assert_ok(lwc::contracts::check_find_pairs(boxes, c, r));
}

LWC_PROP_SCALED(Broadphase, B7_BudgetsHoldExactlyAtTheLimit, 4, ()) {
  const Solved<2> s = solved_scene<2>();
  std::int64_t widest = 1;
  for (const lwc::Box2& b : s.boxes) {
    widest = std::max(widest, lwc::contracts::oracle_placement<2>(b, roomy(s.h))->cell_count);
  }
  const int which = *rc::gen::inRange(0, 3);
  const std::int64_t at = which == 0 ? widest : which == 1 ? s.result.stats.memberships : s.result.stats.pairs;
  for (const std::int64_t limit : {at, at - 1}) {
    GridConfig c = roomy(s.h);
    (which == 0 ? c.budgets.max_cells_per_box : which == 1 ? c.budgets.max_memberships : c.budgets.max_pairs) = limit;
    const absl::StatusOr<PairsResult> r = lwc::find_pairs(s.boxes, c);
    RC_ASSERT(r.ok() == (limit == at));
    assert_ok(lwc::contracts::check_find_pairs(s.boxes, c, r));
  }
}

LWC_PROP(Broadphase, B8_RegisteredCellsHoldEveryPointOfTheBox, ()) {
  const double h = *lwc::testing::scene_cell_size();
  const lwc::Box2 box = *lwc::testing::valid_box<2>(h);
  GridConfig c = roomy(h);
  c.budgets.max_cells_per_box = std::numeric_limits<std::int64_t>::max();
  const absl::StatusOr<lwc::GridSpec<2>> spec = lwc::GridSpec<2>::create(c);
  RC_ASSERT(spec.ok());
  const absl::StatusOr<lwc::Placement<2>> where = spec->place(box, 0);
  assert_ok(lwc::contracts::check_placement<2>(box, c, where));
  RC_PRE(where.ok());
  // Points: the corners, neighbours just inside them, and interpolations.
  std::array<double, 2> p{};
  for (std::size_t k = 0; k < 2; ++k) {
    const double t = *rc::gen::element(0.0, 1.0, 0.5, 0.25, 1.0 / 3.0);
    const int inward = *rc::gen::inRange(0, 3);
    const double lo = box.min[k];
    const double hi = box.max[k];
    double v = lo + (hi - lo) * t;
    if (!std::isfinite(v)) v = t < 0.5 ? lo : hi;
    v = std::clamp(lwc::testing::nudge(v, t < 0.5 ? inward : -inward), lo, hi);
    p[k] = v;
  }
  assert_ok(lwc::contracts::check_covers<2>(box, h, where->cells, p));
}

LWC_PROP_SCALED(Broadphase, B9_ReferenceCellIsSharedAndUnique, 4, ()) {
  const double h = *lwc::testing::scene_cell_size();
  const std::vector<lwc::Box2> two = *lwc::testing::scene<2>(h, 2, 2);
  const absl::StatusOr<lwc::CellSize> size = lwc::CellSize::create(h);
  const absl::StatusOr<lwc::CellRange<2>> ra = lwc::cell_range(two[0], *size);
  const absl::StatusOr<lwc::CellRange<2>> rb = lwc::cell_range(two[1], *size);
  RC_PRE(ra.ok() && rb.ok());
  RC_CLASSIFY(lwc::overlaps(two[0], two[1]), "overlapping");
  assert_ok(lwc::contracts::check_reference_cell<2>(two[0], two[1], h, *ra, *rb));
}

LWC_PROP_SCALED(Broadphase, B10_QueryReturnsExactlyTheOverlappingBoxes, 4, ()) {
  const double h = *lwc::testing::scene_cell_size();
  std::vector<lwc::Box2> boxes = *lwc::testing::scene<2>(h);
  const std::vector<lwc::Box2> copy = boxes;
  const GridConfig c = roomy(h, *rc::gen::element(Oversize::kReject, Oversize::kCoarserLevels));
  const absl::StatusOr<lwc::Grid<2>> grid = lwc::Grid<2>::build(std::move(boxes), c);
  RC_PRE(grid.ok());
  for (int i = 0; i < 3; ++i) {
    const lwc::Box2 probe = *rc::gen::weightedOneOf<lwc::Box2>(
        {{4, lwc::testing::valid_box<2>(h)},
         {1, rc::gen::just(lwc::Box2{{-1e300, -1e300}, {1e300, 1e300}})},
         {1, rc::gen::just(lwc::Box2{{-std::numeric_limits<double>::max(), 0.0}, {std::numeric_limits<double>::max(), 0.0}})}});
    const absl::StatusOr<std::vector<std::uint32_t>> hits = grid->query(probe);
    RC_ASSERT(hits.ok());
    assert_ok(lwc::contracts::check_query<2>(copy, probe, *hits));
  }
}

LWC_PROP_SCALED(Broadphase, B11_CoarserLevelsAcceptEveryBoxAndKeepEveryPair, 12, ()) {
  const double h = *lwc::testing::scene_cell_size();
  std::vector<lwc::Box2> boxes = *lwc::testing::scene<2>(h, 16);
  // Add boxes too large (or too far) for level 0 under a small per-box budget.
  for (int i = *rc::gen::inRange(0, 3); i > 0; --i) {
    const double big = *rc::gen::element(1e3, 1e6, 1e15, 1e300, std::numeric_limits<double>::max());
    const double at = *lwc::testing::scene_coordinate(h);
    boxes.push_back({{std::max(at - big, -std::numeric_limits<double>::max()), at},
                     {std::min(at + big, std::numeric_limits<double>::max()), at + 1}});
  }
  GridConfig c = roomy(h, Oversize::kCoarserLevels);
  c.budgets.max_cells_per_box = *rc::gen::element(16, 64, 256);
  const absl::StatusOr<PairsResult> r = lwc::find_pairs(boxes, c);
  RC_TAG(r.ok() ? "ok" : absl::StatusCodeToString(r.status().code()));
  if (r.ok()) RC_CLASSIFY(r->stats.coarse_boxes > 0, "coarse boxes");
  assert_ok(lwc::contracts::check_find_pairs(boxes, c, r));
  const absl::StatusOr<lwc::GridSpec<2>> spec = lwc::GridSpec<2>::create(c);
  for (std::size_t i = 0; i < boxes.size(); ++i) assert_ok(lwc::contracts::check_placement<2>(boxes[i], c, spec->place(boxes[i], i)));
}

LWC_PROP_SCALED(Broadphase, B12_StatsAreExact, 16, ()) {
  const Solved<2> s = solved_scene<2>();
  assert_ok(lwc::contracts::check_find_pairs(s.boxes, roomy(s.h), absl::StatusOr<PairsResult>(s.result)));
  const Solved<3> t = solved_scene<3>();
  assert_ok(lwc::contracts::check_find_pairs(t.boxes, roomy(t.h), absl::StatusOr<PairsResult>(t.result)));
}

}  // namespace
