// SPDX-License-Identifier: MIT
// File: tests/broadphase_test.cc
//
// Fixed examples and regressions for lwc.broadphase: every figure of the centre-cell spatial-hash example
// (the 10 m wall and the prop, two identical boxes sharing 8 cells, the 729-box exhaustive set at four cell
// sizes), closed contact on cell boundaries, rejection with the right code and no output, budgets exactly at
// and one over, the oversize levels and queries. Spec: docs/broadphase.md.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <time.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

#include "support/counting_allocator.h"  // E12: every heap allocation of the process is counted

#ifdef LWC_USE_HEADERS  // tests/header_build: the same test, lwc as headers
#include "lwc/decompose.h"
#include "lwc/broadphase.h"
#include "lwc/contracts/broadphase.h"
#include "lwc/bench/hash_grid.h"
#else
import lwc.decompose;
import lwc.broadphase;
import lwc.contracts.broadphase;
import lwc.bench.hash_grid;
#endif

namespace {

using lwc::Box2;
using lwc::Box3;
using lwc::GridConfig;
using lwc::Oversize;
using lwc::Pair;
using lwc::PairsResult;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Box2 box(double x0, double y0, double x1, double y1) { return {{x0, y0}, {x1, y1}}; }

// A config of cell size h (a valid one: the tests of invalid sizes call CellSize::create themselves).
GridConfig config(double h) {
  GridConfig c;
  c.cell_size = *lwc::CellSize::create(h);
  return c;
}

// find_pairs, asserting that the checker accepts the call (pairs, order, stats, or the error).
PairsResult checked(const std::vector<Box2>& boxes, const GridConfig& c) {
  const absl::StatusOr<PairsResult> r = lwc::find_pairs(boxes, c);
  const absl::Status verdict = lwc::contracts::check_find_pairs(boxes, c, r);
  EXPECT_TRUE(verdict.ok()) << verdict.message();
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *r : PairsResult{};
}

// The centre-cell spatial-hash example's exhaustive set: x, y in {-2, -1.5, ..., 2}, width and height in {0,
// 1, 2}.
std::vector<Box2> seed_exhaustive_set() {
  std::vector<Box2> boxes;
  for (int xi = -4; xi <= 4; ++xi) {
    for (int yi = -4; yi <= 4; ++yi) {
      for (int w = 0; w <= 2; ++w) {
        for (int h = 0; h <= 2; ++h) {
          const double x = xi / 2.0;
          const double y = yi / 2.0;
          boxes.push_back(box(x, y, x + w, y + h));
        }
      }
    }
  }
  return boxes;
}

TEST(SeedWall, CentreCellsDifferSoCentreRegistrationMissesThePair) {
  // The centre-cell spatial-hash example: wall A = [0,10] x [0,2], prop B = [9,9.5] x [0.5,1.5], h = 2.
  // Centres in (2,0) and (4,0).
  const Box2 a = box(0, 0, 10, 2);
  const Box2 b = box(9, 0.5, 9.5, 1.5);
  const auto centre = [](const Box2& x, std::size_t k) { return *lwc::cell_of((x.min[k] + x.max[k]) / 2, 2.0); };
  EXPECT_EQ(centre(a, 0), 2);
  EXPECT_EQ(centre(a, 1), 0);
  EXPECT_EQ(centre(b, 0), 4);
  EXPECT_EQ(centre(b, 1), 0);
}

TEST(SeedWall, RangeRegistrationGives13MembershipsOneCandidateOnePair) {
  const std::vector<Box2> boxes = {box(0, 0, 10, 2), box(9, 0.5, 9.5, 1.5)};
  const PairsResult r = checked(boxes, config(2));
  EXPECT_EQ(r.pairs, (std::vector<Pair>{{0, 1}}));
  EXPECT_EQ(r.stats.memberships, 13);  // A: 6 columns x 2 rows; B: 1 cell
  EXPECT_EQ(r.stats.unique_candidates, 1);
  EXPECT_EQ(r.stats.pair_visits, 1);
  EXPECT_EQ(r.stats.pairs, 1);
  const absl::StatusOr<lwc::bench::HashGridResult> baseline = lwc::bench::hash_grid_pairs(boxes, config(2));
  ASSERT_TRUE(baseline.ok());
  EXPECT_EQ(baseline->memberships, 13);
  EXPECT_EQ(baseline->unique_candidates, 1);
  EXPECT_EQ(baseline->pair_visits, 1);
  EXPECT_EQ(baseline->pairs, r.pairs);
}

TEST(SeedDuplicates, TwoIdenticalBoxesShareEightCellsAndGiveOnePair) {
  const std::vector<Box2> boxes = {box(0, 0, 6, 2), box(0, 0, 6, 2)};
  const PairsResult r = checked(boxes, config(2));
  EXPECT_EQ(r.pairs, (std::vector<Pair>{{0, 1}}));
  EXPECT_EQ(r.stats.pair_visits, 8);  // met in 8 shared cells ...
  EXPECT_EQ(r.stats.unique_candidates, 1);  // ... reported from one
  EXPECT_EQ(r.stats.occupied_cells, 8);
  const absl::StatusOr<lwc::bench::HashGridResult> baseline = lwc::bench::hash_grid_pairs(boxes, config(2));
  ASSERT_TRUE(baseline.ok());
  EXPECT_EQ(baseline->pair_visits, 8);
  EXPECT_EQ(baseline->unique_candidates, 1);
}

TEST(SeedExhaustive, Has729BoxesAnd265356PairsOf53100Overlap) {
  const std::vector<Box2> boxes = seed_exhaustive_set();
  ASSERT_EQ(boxes.size(), 729u);
  std::int64_t checked_pairs = 0;
  std::int64_t positive_area = 0;
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    for (std::size_t j = i + 1; j < boxes.size(); ++j) {
      ++checked_pairs;
      const Box2& a = boxes[i];
      const Box2& b = boxes[j];
      positive_area += std::max(a.min[0], b.min[0]) < std::min(a.max[0], b.max[0]) &&
                       std::max(a.min[1], b.min[1]) < std::min(a.max[1], b.max[1]);
    }
  }
  EXPECT_EQ(checked_pairs, 265356);
  EXPECT_EQ(lwc::contracts::brute_force_pairs(boxes).size(), 53100u);
  EXPECT_EQ(positive_area, 11390);
}

struct SeedFigure {
  double h;
  std::int64_t memberships;
  std::int64_t unique_candidates;
};

class SeedExhaustiveAtCellSize : public ::testing::TestWithParam<SeedFigure> {};

TEST_P(SeedExhaustiveAtCellSize, SameOverlapsAndTheSeedsRegistrationCounts) {
  const SeedFigure f = GetParam();
  const std::vector<Box2> boxes = seed_exhaustive_set();
  const PairsResult r = checked(boxes, config(f.h));
  EXPECT_EQ(r.pairs.size(), 53100u);
  EXPECT_EQ(r.stats.memberships, f.memberships);
  EXPECT_EQ(r.stats.unique_candidates, f.unique_candidates);
  // The textbook hash grid (bench/hash_grid.cppm), run here, reports the same registration and candidate
  // counts.
  const absl::StatusOr<lwc::bench::HashGridResult> baseline = lwc::bench::hash_grid_pairs(boxes, config(f.h));
  ASSERT_TRUE(baseline.ok());
  EXPECT_EQ(baseline->memberships, f.memberships);
  EXPECT_EQ(baseline->unique_candidates, f.unique_candidates);
  EXPECT_EQ(baseline->pair_visits, r.stats.pair_visits);
  EXPECT_EQ(baseline->pairs, r.pairs);
}

INSTANTIATE_TEST_SUITE_P(SeedFigures, SeedExhaustiveAtCellSize,
                         ::testing::Values(SeedFigure{3, 1369, 150336}, SeedFigure{2, 1600, 113400},
                                           SeedFigure{1, 2916, 72216}, SeedFigure{0.5, 6561, 53100}),
                         [](const ::testing::TestParamInfo<SeedFigure>& info) {
                           return "CellSizeTenths" + std::to_string(static_cast<int>(info.param.h * 10));
                         });

TEST(Contact, EdgeContactOnACellBoundaryIsAPair) {
  // The centre-cell spatial-hash example: boxes touching at x = 2 with h = 2; the right box starts in cell 1,
  // so the left box's last cell must be cell_of(2) = 1, not ceil(2 / 2) - 1 = 0.
  const std::vector<Box2> boxes = {box(0, 0, 2, 1), box(2, 0, 3, 1)};
  EXPECT_EQ(checked(boxes, config(2)).pairs, (std::vector<Pair>{{0, 1}}));
}

TEST(Contact, CornerContactAndZeroAreaBoxesArePairs) {
  const std::vector<Box2> boxes = {box(0, 0, 2, 2), box(2, 2, 4, 4), box(2, 2, 2, 2), box(-4, -4, -2, -2)};
  EXPECT_EQ(checked(boxes, config(2)).pairs, (std::vector<Pair>{{0, 1}, {0, 2}, {1, 2}}));
  EXPECT_EQ(checked(boxes, config(0.5)).pairs, (std::vector<Pair>{{0, 1}, {0, 2}, {1, 2}}));
}

TEST(Contact, NegativeCoordinatesUseFloorCells) {
  // The centre-cell spatial-hash example: -0.5 and 0.1 are in cells -1 and 0 at h = 2; truncation would merge
  // them.
  const std::vector<Box2> boxes = {box(-0.5, -0.5, -0.5, -0.5), box(0.1, 0.1, 0.1, 0.1)};
  const PairsResult r = checked(boxes, config(2));
  EXPECT_TRUE(r.pairs.empty());
  EXPECT_EQ(r.stats.occupied_cells, 2);
  EXPECT_EQ(r.stats.pair_visits, 0);
}

TEST(Contact, NeighbouringDoublesAcrossABoundary) {
  const double below = std::nextafter(2.0, 0.0);
  const double above = std::nextafter(2.0, 4.0);
  const std::vector<Box2> boxes = {box(0, 0, below, 1), box(2, 0, 3, 1), box(above, 0, 3, 1), box(below, 0, below, 1),
                                   box(-0.0, -0.0, 0.0, 0.0), box(-5e-324, -5e-324, 0, 0)};
  checked(boxes, config(2));
  checked(boxes, config(0.1));
  // At the smallest subnormal cell size the first box spans ~2^1075 cells: OutOfRange, as the oracle says.
  const absl::StatusOr<PairsResult> r = lwc::find_pairs(boxes, config(5e-324));
  EXPECT_EQ(r.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_TRUE(lwc::contracts::check_find_pairs(boxes, config(5e-324), r).ok());
}

TEST(Rejection, BadBoxesAreInvalidArgumentNamingTheIndexWithNoResult) {
  for (const Box2& bad : {box(kNaN, 0, 1, 1), box(0, 0, kInf, 1), box(-kInf, 0, 1, 1), box(2, 0, 1, 1),
                          box(0, 1, 1, 0.5)}) {
    const std::vector<Box2> boxes = {box(0, 0, 1, 1), box(0, 0, 1, 1), bad};
    const absl::StatusOr<PairsResult> r = lwc::find_pairs(boxes, config(1));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(absl::StrContains(r.status().message(), "box 2:")) << r.status();
    EXPECT_TRUE(lwc::contracts::check_find_pairs(boxes, config(1), r).ok());
  }
}

TEST(Rejection, BadCellSizesAndBudgetsAreInvalidArgument) {
  const std::vector<Box2> boxes = {box(0, 0, 1, 1)};
  // A bad cell size or budget cannot reach find_pairs: its validated type refuses it (B6).
  for (const double h : {0.0, -0.0, -1.0, kNaN, kInf}) {
    EXPECT_EQ(lwc::CellSize::create(h).status().code(), absl::StatusCode::kInvalidArgument) << h;
  }
  EXPECT_EQ(lwc::CellBudget::create(0).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(lwc::PairBudget::create(-1).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(lwc::MembershipBudget::create(-1).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(lwc::PairBudget::create(-1).status().message(), "(B6)"));
  EXPECT_TRUE(lwc::CellBudget::create(1).ok());
  EXPECT_TRUE(lwc::PairBudget::create(0).ok());
  EXPECT_TRUE(lwc::MembershipBudget::create(0).ok());
  GridConfig c = config(1);
  c.oversize = Oversize::kCoarserLevels;
  c.max_cells_per_box = *lwc::CellBudget::create(15);
  EXPECT_EQ(lwc::find_pairs(boxes, c).status().code(), absl::StatusCode::kInvalidArgument);
  c.max_cells_per_box = *lwc::CellBudget::create(16);
  EXPECT_TRUE(lwc::find_pairs(boxes, c).ok());
  const std::vector<Box3> boxes3 = {{{0, 0, 0}, {1, 1, 1}}};
  EXPECT_EQ(lwc::find_pairs(boxes3, c).status().code(), absl::StatusCode::kInvalidArgument);  // 3D needs 64
}

TEST(Rejection, CellsOutsideInt64AreOutOfRange) {
  const std::vector<Box2> boxes = {box(0, 0, 1, 1), box(1e300, 0, 1e300, 1)};
  const absl::StatusOr<PairsResult> r = lwc::find_pairs(boxes, config(1));
  EXPECT_EQ(r.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_TRUE(absl::StrContains(r.status().message(), "box 1:")) << r.status();
}

TEST(Rejection, FirstFailingBoxDecides) {
  const std::vector<Box2> boxes = {box(0, 0, 1, 1), box(1e300, 0, 1e300, 1), box(kNaN, 0, 1, 1)};
  EXPECT_EQ(lwc::find_pairs(boxes, config(1)).status().code(), absl::StatusCode::kOutOfRange);
}

// CPU time of this thread: wall time on a shared machine measures the other processes.
std::chrono::nanoseconds thread_cpu_time() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return std::chrono::seconds(t.tv_sec) + std::chrono::nanoseconds(t.tv_nsec);
}

TEST(Budgets, AHugeBoxIsRefusedFromItsSpanInMicroseconds) {
  // 10^15 cells (and far beyond: the whole double range at a tiny cell size), decided from the span: the
  // best of three calls stays far below what touching 10^15 cells, or even allocating for them, costs.
  const std::vector<Box2> boxes = {box(0, 0, 1e15, 1), box(-1e300, -1e300, 1e300, 1e300)};
  for (const double h : {1.0, 1e290}) {
    std::chrono::nanoseconds best = std::chrono::seconds(1);
    for (int i = 0; i < 3; ++i) {
      const auto start = thread_cpu_time();
      const absl::StatusOr<PairsResult> r = lwc::find_pairs(boxes, config(h));
      best = std::min(best, thread_cpu_time() - start);
      EXPECT_EQ(r.status().code(), absl::StatusCode::kResourceExhausted) << r.status();
      EXPECT_TRUE(absl::StrContains(r.status().message(), h == 1 ? "box 0:" : "box 1:")) << r.status();
    }
    EXPECT_LT(best, std::chrono::milliseconds(2));  // sanitized Debug builds included
  }
}

TEST(Budgets, CellsPerBoxExactlyAtTheBudgetIsAllowed) {
  const std::vector<Box2> boxes = {box(0, 0, 63.5, 63.5)};  // 64 x 64 cells at h = 1
  GridConfig c = config(1);
  c.max_cells_per_box = *lwc::CellBudget::create(4096);
  EXPECT_TRUE(lwc::find_pairs(boxes, c).ok());
  c.max_cells_per_box = *lwc::CellBudget::create(4095);
  EXPECT_EQ(lwc::find_pairs(boxes, c).status().code(), absl::StatusCode::kResourceExhausted);
}

TEST(Budgets, MembershipsAndPairsExactlyAtTheBudgetAreAllowed) {
  const std::vector<Box2> boxes = {box(0, 0, 1.5, 0.5), box(1, 0, 2.5, 0.5), box(2, 0, 3, 0.5)};  // 2 + 2 + 2
  GridConfig c = config(1);
  c.max_memberships = *lwc::MembershipBudget::create(6);
  c.max_pairs = *lwc::PairBudget::create(2);
  const absl::StatusOr<PairsResult> ok = lwc::find_pairs(boxes, c);
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->stats.memberships, 6);
  EXPECT_EQ(ok->pairs.size(), 2u);
  c.max_memberships = *lwc::MembershipBudget::create(5);
  EXPECT_EQ(lwc::find_pairs(boxes, c).status().code(), absl::StatusCode::kResourceExhausted);
  c.max_memberships = *lwc::MembershipBudget::create(6);
  c.max_pairs = *lwc::PairBudget::create(1);
  EXPECT_EQ(lwc::find_pairs(boxes, c).status().code(), absl::StatusCode::kResourceExhausted);
  c.max_pairs = *lwc::PairBudget::create(0);
  EXPECT_EQ(lwc::find_pairs(boxes, c).status().code(), absl::StatusCode::kResourceExhausted);
}

TEST(WideKeys, AWorldWiderThan2To64CellsSortsExplicitCells) {
  // Cells from -2^62 to 2^62 on both axes: the linear cell key does not fit 64 bits, so the grid sorts
  // (cell, id) records instead (docs: Algorithm, step 2). Same pairs, stats and queries.
  const double far = 0x1p62;
  std::vector<Box2> boxes = {box(-far, -far, -far + 2, -far + 2), box(-far + 1, -far + 1, -far + 3, -far + 1),
                             box(far, far, far, far),             box(far - 1024, far, far, far),
                             box(0, 0, 1, 1),                     box(1, 1, 1, 1)};
  const PairsResult r = checked(boxes, config(1));
  EXPECT_EQ(r.pairs, (std::vector<Pair>{{0, 1}, {2, 3}, {4, 5}}));
  const std::vector<Box2> copy = boxes;
  const absl::StatusOr<lwc::Grid<2>> grid = lwc::Grid<2>::create(std::move(boxes), config(1));
  ASSERT_TRUE(grid.ok());
  for (const Box2& probe : {box(-far, -far, -far, -far), box(far - 2048, far, far, far), box(0.5, 0.5, 2, 2),
                            box(-far, -far, far, far)}) {
    const absl::StatusOr<std::vector<std::uint32_t>> hits = grid->query(probe);
    ASSERT_TRUE(hits.ok());
    const absl::Status s = lwc::contracts::check_query<2>(copy, probe, *hits);
    EXPECT_TRUE(s.ok()) << s.message();
  }
}

// Three boxes (2 id bits, 2 flag bits: the key starts at bit 4) whose level spans 2^30 x 2^31 cells, so the
// largest cell key needs exactly 61 bits: 65 bits in all, one too many for the packed 64-bit form. B's key
// is 2^60, which packed would lose its top bit and collide with A's key 0 (mutant
// B5_packed_key_one_bit_too_wide: the occupied-cell count comes out 2, not 3).
TEST(Packing, B5_AKeyOneBitTooWideForTheWordIsNotPacked) {
  const double x_top = std::ldexp(1.0, 30) - 1;
  const double y_top = std::ldexp(1.0, 31) - 1;
  const std::vector<Box2> boxes = {box(0, 0, 0.5, 0.5), box(0, std::ldexp(1.0, 30), 0.5, std::ldexp(1.0, 30) + 0.5),
                                   box(x_top, y_top, x_top + 0.5, y_top + 0.5)};
  const PairsResult r = checked(boxes, config(1));
  EXPECT_TRUE(r.pairs.empty());
  EXPECT_EQ(r.stats.occupied_cells, 3);
}

TEST(Oversize, CoarserLevelsKeepEveryPairOfAWallAcrossAMillionCells) {
  std::vector<Box2> boxes = {box(0, 0, 1e6, 1)};
  for (int i = 0; i < 50; ++i) boxes.push_back(box(i * 20000.0 - 1, 0.5, i * 20000.0, 3));
  boxes.push_back(box(-1e300, -1e300, 1e300, 1e300));  // the whole world, as a trigger volume
  boxes.push_back(box(1e300, 1e300, 1e300, 1e300));    // far away: out of range at h = 1
  GridConfig c = config(1);
  EXPECT_FALSE(lwc::find_pairs(boxes, c).ok());
  c.oversize = Oversize::kCoarserLevels;
  const PairsResult r = checked(boxes, c);
  EXPECT_EQ(r.stats.coarse_boxes, 3);
  EXPECT_GE(r.stats.levels, 3);
}

TEST(Oversize, PlacementIsTheSmallestFittingLevel) {
  GridConfig c = config(1);
  c.oversize = Oversize::kCoarserLevels;
  c.max_cells_per_box = *lwc::CellBudget::create(64);
  const absl::StatusOr<lwc::GridSpec<2>> spec = lwc::GridSpec<2>::create(c);
  ASSERT_TRUE(spec.ok());
  for (const Box2& b : {box(0, 0, 7.5, 7.5), box(0, 0, 8, 8), box(0, 0, 1e6, 1), box(-0.5, -0.5, 0.5, 0.5),
                        box(-1.7976931348623157e308, -1.7976931348623157e308, 1.7976931348623157e308,
                            1.7976931348623157e308)}) {
    const absl::Status s = lwc::contracts::check_placement<2>(b, c, spec->place(b, 0));
    EXPECT_TRUE(s.ok()) << s.message();
  }
  EXPECT_EQ(spec->place(box(0, 0, 7.5, 7.5), 0)->level, 0);
  EXPECT_EQ(spec->place(box(0, 0, 8, 8), 0)->level, 1);  // 9 x 9 cells at h = 1; 5 x 5 at h = 2
}

TEST(Query, ReturnsEveryOverlappingBoxAscending) {
  std::vector<Box2> boxes = {box(0, 0, 10, 2), box(9, 0.5, 9.5, 1.5), box(-3, -3, -1, -1), box(4, 4, 4, 4)};
  const std::vector<Box2> copy = boxes;
  const absl::StatusOr<lwc::Grid<2>> grid = lwc::Grid<2>::create(std::move(boxes), config(2));
  ASSERT_TRUE(grid.ok());
  for (const Box2& probe : {box(8, 0, 9, 1), box(-100, -100, 100, 100), box(4, 4, 4, 4), box(-1, -1, 0, 0),
                            box(50, 50, 60, 60), box(-1e300, -1e300, 1e300, 1e300)}) {
    const absl::StatusOr<std::vector<std::uint32_t>> hits = grid->query(probe);
    ASSERT_TRUE(hits.ok());
    const absl::Status s = lwc::contracts::check_query<2>(copy, probe, *hits);
    EXPECT_TRUE(s.ok()) << s.message();
  }
  EXPECT_EQ(*grid->query(box(8, 0, 9, 1)), (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(grid->query(box(kNaN, 0, 1, 1)).status().code(), absl::StatusCode::kInvalidArgument);
  const absl::StatusOr<PairsResult> pairs = grid->pairs();
  ASSERT_TRUE(pairs.ok());
  EXPECT_EQ(pairs->pairs, lwc::contracts::brute_force_pairs(copy));
}

TEST(ThreeD, PairsAcrossCellBoundariesInThreeDimensions) {
  const std::vector<Box3> boxes = {{{0, 0, 0}, {2, 2, 2}}, {{2, 2, 2}, {3, 3, 3}}, {{-1, -1, -1}, {-0.5, 0, 0}},
                                   {{0, 0, 0}, {0, 0, 0}}, {{1, -5, 1}, {1.5, 5, 1.5}}};
  for (const double h : {0.5, 1.0, 2.0, 3.0}) {
    const absl::StatusOr<PairsResult> r = lwc::find_pairs(boxes, config(h));
    const absl::Status s = lwc::contracts::check_find_pairs(boxes, config(h), r);
    EXPECT_TRUE(s.ok()) << s.message();
  }
}

// ---------------------------------------------------------------------------------------------------
// The persistent grid (the E-clauses of docs/broadphase.md): every operation and update is judged by
// lwc::contracts::PersistentJudge (the brute-force model), and the tests name the figures they expect.

using lwc::Contact;
using lwc::ContactEvents;
using lwc::Handle;
using lwc::Motion;

// A persistent grid and its judge, driven together; every verdict must be OK.
template <std::size_t D>
struct Judged {
  explicit Judged(const GridConfig& c) : grid(*lwc::PersistentGrid<D>::create(c)), judge(c) {}

  std::size_t insert(const lwc::Box<D>& b) {
    const absl::StatusOr<Handle> h = grid.insert(b);
    expect(judge.insert(b, h));
    return judge.objects() - 1;
  }
  absl::Status move(std::size_t object, const lwc::Box<D>& b, Motion m = Motion::kTeleport) {
    const absl::Status s = grid.move(judge.handle(object), b, m);
    expect(judge.move(object, b, m, s));
    return s;
  }
  absl::Status remove(std::size_t object) {
    const absl::Status s = grid.remove(judge.handle(object));
    expect(judge.remove(object, s));
    return s;
  }
  absl::StatusOr<ContactEvents> update() {
    absl::StatusOr<ContactEvents> e = grid.update();
    expect(judge.update(e));
    expect(judge.pairs(grid.pairs()));
    const std::vector<lwc::Tracked<D>> live = grid.boxes();
    expect(lwc::contracts::check_tracked_pairs<D>(live, grid.pairs()));
    return e;
  }
  Contact contact(std::size_t a, std::size_t b) const {
    const Handle x = judge.handle(a);
    const Handle y = judge.handle(b);
    return x.slot < y.slot ? Contact{x, y} : Contact{y, x};
  }
  static void expect(const absl::Status& verdict) { EXPECT_TRUE(verdict.ok()) << verdict.message(); }

  lwc::PersistentGrid<D> grid;
  lwc::contracts::PersistentJudge<D> judge;
};

TEST(Persistent, SeedWallContactBeginsOnceAndEndsOnce) {
  // E1, E2, E5.
  Judged<2> g(config(2));
  const std::size_t wall = g.insert(box(0, 0, 10, 2));
  const std::size_t prop = g.insert(box(12, 0.5, 12.5, 1.5));
  absl::StatusOr<ContactEvents> e = g.update();
  ASSERT_TRUE(e.ok());
  EXPECT_TRUE(e->began.empty());
  EXPECT_EQ(e->stats.memberships, 13);  // the centre-cell spatial-hash example: the wall's 12 cells and the prop's 1
  ASSERT_TRUE(g.move(prop, box(9, 0.5, 9.5, 1.5)).ok());  // the centre-cell spatial-hash example's prop: in the wall's cell (4, 0)
  e = g.update();
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->began, (std::vector<Contact>{g.contact(wall, prop)}));
  EXPECT_TRUE(e->ended.empty());
  EXPECT_EQ(e->stats.memberships, 13);
  EXPECT_EQ(e->stats.memberships_touched, 2);  // the prop's old cell and its new one: nothing of the wall
  e = g.update();  // nothing moved: nothing to report, the contact persists
  ASSERT_TRUE(e.ok());
  EXPECT_TRUE(e->began.empty() && e->ended.empty());
  EXPECT_EQ(g.grid.pairs(), (std::vector<Contact>{g.contact(wall, prop)}));
  ASSERT_TRUE(g.move(prop, box(10, 0.5, 10.5, 1.5)).ok());  // touching at x = 10: still a contact (closed)
  e = g.update();
  ASSERT_TRUE(e.ok());
  EXPECT_TRUE(e->began.empty() && e->ended.empty());
  ASSERT_TRUE(g.move(prop, box(std::nextafter(10.0, 11.0), 0.5, 10.5, 1.5)).ok());  // one ulp away
  e = g.update();
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->ended, (std::vector<Contact>{g.contact(wall, prop)}));
  EXPECT_TRUE(g.grid.pairs().empty());
}

TEST(Persistent, APairThatBeganAndEndedBetweenUpdatesProducesNothing) {
  // E1.
  Judged<2> g(config(1));
  const std::size_t a = g.insert(box(0, 0, 1, 1));
  const std::size_t b = g.insert(box(5, 5, 6, 6));
  ASSERT_TRUE(g.update().ok());
  ASSERT_TRUE(g.move(b, box(0.5, 0.5, 2, 2)).ok());
  ASSERT_TRUE(g.move(b, box(5, 5, 6, 6)).ok());
  // Inserted and removed within one step: never live at an update.
  const std::size_t c = g.insert(box(0, 0, 1, 1));
  ASSERT_TRUE(g.remove(c).ok());
  const absl::StatusOr<ContactEvents> e = g.update();
  ASSERT_TRUE(e.ok());
  EXPECT_TRUE(e->began.empty() && e->ended.empty() && e->swept.empty());
  EXPECT_EQ(e->stats.dirty, 2);  // b and the slot of c
  (void)a;
}

TEST(Persistent, APairOfTwoMovedBoxesIsReportedOnce) {
  // E1.
  // Both boxes of each pair are dirty: each pair is met from both sides and reported from the lower slot.
  Judged<2> g(config(1));
  std::vector<std::size_t> ids;
  for (int i = 0; i < 6; ++i) ids.push_back(g.insert(box(10.0 * i, 0, 10.0 * i + 1, 1)));
  ASSERT_TRUE(g.update().ok());
  for (int i = 0; i < 6; ++i) ASSERT_TRUE(g.move(ids[static_cast<std::size_t>(i)], box(0.25 * i, 0, 0.25 * i + 3, 3)).ok());
  absl::StatusOr<ContactEvents> e = g.update();
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->began.size(), 15u);  // all 6 * 5 / 2 pairs, each once
  for (int i = 0; i < 6; ++i) ASSERT_TRUE(g.move(ids[static_cast<std::size_t>(i)], box(10.0 * i, 0, 10.0 * i + 1, 1)).ok());
  e = g.update();
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->ended.size(), 15u);
}

TEST(Persistent, ARemovedBoxEndsItsPairsUnderItsOldHandle) {
  // E1, E3.
  Judged<2> g(config(1));
  const std::size_t a = g.insert(box(0, 0, 3, 3));
  const std::size_t b = g.insert(box(1, 1, 2, 2));
  const std::size_t c = g.insert(box(2, 2, 4, 4));
  absl::StatusOr<ContactEvents> e = g.update();
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->began.size(), 3u);
  const Handle old = g.judge.handle(a);
  ASSERT_TRUE(g.remove(a).ok());
  EXPECT_EQ(g.grid.box(old).status().code(), absl::StatusCode::kNotFound);  // stale at once
  e = g.update();
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->ended, (std::vector<Contact>{g.contact(a, b), g.contact(a, c)}));
  EXPECT_EQ(e->ended.front().a, old);
  EXPECT_EQ(g.grid.pairs(), (std::vector<Contact>{g.contact(b, c)}));
}

TEST(Persistent, StaleAndNeverIssuedHandlesAreNotFoundAndChangeNothing) {
  // E3, E4.
  Judged<2> g(config(1));
  const std::size_t a = g.insert(box(0, 0, 1, 1));
  const std::size_t b = g.insert(box(0, 0, 1, 1));
  ASSERT_TRUE(g.update().ok());
  const Handle old = g.judge.handle(a);
  ASSERT_TRUE(g.remove(a).ok());
  EXPECT_EQ(g.remove(a).code(), absl::StatusCode::kNotFound);             // removed twice
  EXPECT_EQ(g.move(a, box(0, 0, 2, 2)).code(), absl::StatusCode::kNotFound);
  ASSERT_TRUE(g.update().ok());
  // The slot is reused with the next generation; the old handle stays stale.
  const std::size_t c = g.insert(box(0, 0, 1, 1));
  EXPECT_EQ(g.judge.handle(c).slot, old.slot);
  EXPECT_EQ(g.judge.handle(c).generation, old.generation + 1);
  EXPECT_EQ(g.grid.move(old, box(0, 0, 1, 1)).code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(g.grid.remove(old).code(), absl::StatusCode::kNotFound);
  for (const Handle never : {Handle{}, Handle{0, 0}, Handle{7, 1}, Handle{0xffffffffu, 0xffffffffu}}) {
    const absl::Status s = g.grid.remove(never);
    Judged<2>::expect(g.judge.stale(s));
    EXPECT_EQ(g.grid.box(never).status().code(), absl::StatusCode::kNotFound);
  }
  const absl::StatusOr<ContactEvents> e = g.update();
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->began, (std::vector<Contact>{g.contact(b, c)}));
  EXPECT_EQ(g.grid.size(), 2);
}

TEST(Persistent, RejectedOperationsChangeNothing) {
  // E4, E6 (a swept volume over budget).
  GridConfig c = config(1);
  c.max_cells_per_box = *lwc::CellBudget::create(16);
  Judged<2> g(c);
  const std::size_t a = g.insert(box(0, 0, 1, 1));
  ASSERT_TRUE(g.update().ok());
  for (const Box2& bad : {box(kNaN, 0, 1, 1), box(0, 0, kInf, 1), box(2, 0, 1, 1), box(0, 0, 10, 10), box(1e300, 0, 1e300, 0)}) {
    const absl::StatusOr<Handle> h = g.grid.insert(bad);
    Judged<2>::expect(g.judge.insert(bad, h));
    EXPECT_FALSE(h.ok());
    EXPECT_FALSE(g.move(a, bad).ok());
    EXPECT_FALSE(g.move(a, bad, Motion::kSwept).ok());
  }
  EXPECT_EQ(g.grid.insert(box(0, 0, 10, 10)).status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(g.grid.insert(box(0, 0, 1e300, 0)).status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(g.grid.insert(box(kNaN, 0, 0, 0)).status().code(), absl::StatusCode::kInvalidArgument);
  // A swept move whose volume spans more than max_cells_per_box is refused whole: the box stays.
  EXPECT_EQ(g.move(a, box(10, 0, 11, 1), Motion::kSwept).code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(g.grid.box(g.judge.handle(a))->max[0], 1.0);
  EXPECT_EQ(g.grid.pending(), 0u);
  const absl::StatusOr<ContactEvents> e = g.update();
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->stats.dirty, 0);
}

TEST(Persistent, ARefusedUpdateChangesNothingAndKeepsItsOperations) {
  // E2, E4.
  GridConfig c = config(1);
  c.max_pairs = *lwc::PairBudget::create(3);
  c.max_memberships = *lwc::MembershipBudget::create(12);
  Judged<2> g(c);
  const std::size_t a = g.insert(box(0, 0, 0.5, 0.5));
  const std::size_t b = g.insert(box(0, 0, 0.5, 0.5));
  ASSERT_TRUE(g.update().ok());
  const std::size_t d = g.insert(box(0.25, 0.25, 0.5, 0.5));
  const std::size_t e = g.insert(box(0.25, 0.25, 0.75, 0.75));  // 6 pairs in all: over max_pairs
  absl::StatusOr<ContactEvents> r = g.update();
  EXPECT_EQ(r.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(g.grid.pairs(), (std::vector<Contact>{g.contact(a, b)}));  // as before
  EXPECT_EQ(g.grid.pending(), 2u);
  ASSERT_TRUE(g.move(e, box(0, 0, 3, 3)).ok());  // 16 memberships: over max_memberships
  r = g.update();
  EXPECT_EQ(r.status().code(), absl::StatusCode::kResourceExhausted);
  ASSERT_TRUE(g.move(e, box(5, 5, 5, 5)).ok());
  r = g.update();  // the refused updates' operations are reported now, once
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->began, (std::vector<Contact>{g.contact(a, d), g.contact(b, d)}));
}

// A refused update_into leaves the caller's lists as they were: the events of the last successful update,
// which a frame loop that reads them after a failure must not see vanish or half-written.
TEST(Persistent, E4_ARefusedUpdateIntoLeavesTheCallersEventsAsTheyWere) {
  GridConfig c = config(1);
  c.max_pairs = *lwc::PairBudget::create(1);
  lwc::PersistentGrid<2> grid = *lwc::PersistentGrid<2>::create(c);
  ASSERT_TRUE(grid.insert(box(0, 0, 1, 1)).ok());
  ASSERT_TRUE(grid.insert(box(0.5, 0.5, 1, 1)).ok());
  ContactEvents out;
  ASSERT_TRUE(grid.update_into(out).ok());
  ASSERT_EQ(out.began.size(), 1u);
  const std::vector<Contact> began = out.began;
  const lwc::UpdateStats stats = out.stats;
  ASSERT_TRUE(grid.insert(box(0, 0, 1, 1)).ok());  // two pairs more: over max_pairs
  EXPECT_EQ(grid.update_into(out).code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(out.began, began);
  EXPECT_TRUE(out.ended.empty() && out.swept.empty());
  EXPECT_EQ(out.stats.pairs, stats.pairs);
  EXPECT_EQ(out.stats.boxes, stats.boxes);
  EXPECT_EQ(grid.pairs(), began);
}

TEST(Persistent, SweptCandidatesOverMaxPairsAreRefusedChangingNothing) {
  // E4, E6 (B7): two bullets through two thin walls are two swept candidates, one over max_pairs = 1; the
  // update is refused and both moves stay pending.
  GridConfig c = config(1);
  c.max_pairs = *lwc::PairBudget::create(1);
  Judged<2> g(c);
  g.insert(box(2, 0, 2.1, 1));
  g.insert(box(2, 3, 2.1, 4));
  const std::size_t a = g.insert(box(0, 0.25, 0.5, 0.75));
  const std::size_t b = g.insert(box(0, 3.25, 0.5, 3.75));
  ASSERT_TRUE(g.update().ok());
  ASSERT_TRUE(g.move(a, box(3, 0.25, 3.5, 0.75), Motion::kSwept).ok());
  ASSERT_TRUE(g.move(b, box(3, 3.25, 3.5, 3.75), Motion::kSwept).ok());
  const absl::StatusOr<ContactEvents> r = g.update();
  EXPECT_EQ(r.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(std::string(r.status().message()).find("swept candidates (B7, E6)"), std::string::npos) << r.status();
  EXPECT_EQ(g.grid.pending(), 2u);
}

TEST(Persistent, ABulletThroughAWallIsASweptCandidateOnlyWhenSwept) {
  // E6. The centre-cell spatial-hash example leaves swept boxes open: a fast box that passes through a thin
  // wall within one step is disjoint from it at both ends, so the end boxes never overlap.
  for (const Motion motion : {Motion::kTeleport, Motion::kSwept}) {
    Judged<2> g(config(2));
    const std::size_t wall = g.insert(box(10, -5, 10.25, 5));
    const std::size_t bullet = g.insert(box(0, 0, 0.1, 0.1));
    ASSERT_TRUE(g.update().ok());
    ASSERT_TRUE(g.move(bullet, box(20, 0, 20.1, 0.1), motion).ok());
    const absl::StatusOr<ContactEvents> e = g.update();
    ASSERT_TRUE(e.ok());
    EXPECT_TRUE(e->began.empty() && e->ended.empty());
    if (motion == Motion::kSwept) {
      EXPECT_EQ(e->swept, (std::vector<Contact>{g.contact(wall, bullet)}));
    } else {
      EXPECT_TRUE(e->swept.empty());
    }
    // The candidate is for that step only.
    const absl::StatusOr<ContactEvents> next = g.update();
    ASSERT_TRUE(next.ok());
    EXPECT_TRUE(next->swept.empty());
  }
}

TEST(Persistent, TwoSweptBoxesCrossingEachOtherAreOneCandidate) {
  // E6.
  Judged<2> g(config(1));
  const std::size_t a = g.insert(box(0, 0, 1, 1));
  const std::size_t b = g.insert(box(10, 0, 11, 1));
  const std::size_t resting = g.insert(box(5, 5, 6, 6));
  ASSERT_TRUE(g.update().ok());
  ASSERT_TRUE(g.move(a, box(5, 0, 6, 1), Motion::kSwept).ok());
  ASSERT_TRUE(g.move(a, box(12, 0, 13, 1), Motion::kSwept).ok());  // the volume accumulates: [0, 13]
  ASSERT_TRUE(g.move(b, box(-2, 0, -1, 1), Motion::kSwept).ok());
  const absl::StatusOr<ContactEvents> e = g.update();
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->swept, (std::vector<Contact>{g.contact(a, b)}));
  (void)resting;
}

TEST(Persistent, CoarseBoxesMoveAcrossFineOnes) {
  // E1, E6 across oversize levels (B11).
  GridConfig c = config(1);
  c.oversize = Oversize::kCoarserLevels;
  c.max_cells_per_box = *lwc::CellBudget::create(16);
  Judged<2> g(c);
  std::vector<std::size_t> fine;
  for (int i = 0; i < 40; ++i) fine.push_back(g.insert(box(i * 3.0, 0, i * 3.0 + 1, 1)));
  const std::size_t wall = g.insert(box(0, 0.5, 1e6, 0.75));
  const std::size_t world = g.insert(box(-1e300, -1e300, 1e300, 1e300));
  ASSERT_TRUE(g.update().ok());
  ASSERT_TRUE(g.move(wall, box(0, 2, 1e6, 3)).ok());
  ASSERT_TRUE(g.move(fine[3], box(1e5, 2.5, 1e5 + 1, 2.75), Motion::kSwept).ok());
  absl::StatusOr<ContactEvents> e = g.update();
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->ended.size(), 39u);  // the wall left every fine box but fine[3], which moved with it
  EXPECT_TRUE(e->began.empty());
  ASSERT_TRUE(g.move(world, box(1e300, 1e300, 1e300, 1e300)).ok());
  ASSERT_TRUE(g.move(wall, box(-1e9, -1e9, 1e9, 1e9), Motion::kSwept).ok());
  e = g.update();
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->ended.size(), 41u);  // the world box left all 41 others
  EXPECT_EQ(e->began.size(), 39u);  // the wall, now 2e9 wide, meets the 39 fine boxes it had left
}

TEST(Persistent, CostDoesNotGrowWithStaticBoxesElsewhere) {
  // E5: the same moves in a world with 20,000 more static boxes far away touch the same memberships and
  // visit the same residents.
  std::vector<lwc::UpdateStats> stats;
  for (const int extra : {0, 20000}) {
    lwc::PersistentGrid<2> grid = *lwc::PersistentGrid<2>::create(config(1));
    std::vector<Handle> near;
    // Boxes on a lattice: box i in column i % k, row i / k (integer rows, so each row's y is exact).
    for (int i = 0; i < 100; ++i) {
      const int col = i % 10, row = i / 10;
      near.push_back(*grid.insert(box(col * 1.5, row * 1.5, col * 1.5 + 2, row * 1.5 + 2)));
    }
    for (int i = 0; i < extra; ++i) {
      const int col = i % 200, row = i / 200;
      ASSERT_TRUE(grid.insert(box(1000.0 + col, 1000.0 + row, 1000.5 + col, 1000.5 + row)).ok());
    }
    ASSERT_TRUE(grid.update().ok());
    for (int i = 0; i < 100; i += 7) {
      const int col = i % 10, row = i / 10;
      const Box2 moved = box(col * 1.5 + 0.7, row * 1.5, col * 1.5 + 2.7, row * 1.5 + 2);
      ASSERT_TRUE(grid.move(near[static_cast<std::size_t>(i)], moved, Motion::kSwept).ok());
    }
    const absl::StatusOr<ContactEvents> e = grid.update();
    ASSERT_TRUE(e.ok());
    stats.push_back(e->stats);
  }
  EXPECT_EQ(stats[0].memberships_touched, stats[1].memberships_touched);
  EXPECT_EQ(stats[0].pair_visits, stats[1].pair_visits);
  EXPECT_EQ(stats[0].began, stats[1].began);
  EXPECT_EQ(stats[0].ended, stats[1].ended);
  EXPECT_GT(stats[0].began + stats[0].ended, 0);
}

// One frame of a 2-D persistent grid whose slots are the boxes' indices (nothing removed): update() and
// the live pairs must be find_pairs' on `boxes`, and the events the difference from `before` (E1, E2),
// which then becomes this frame's pairs. Returns find_pairs' pair count.
std::size_t ExpectUpdateMatchesFindPairs(lwc::PersistentGrid<2>& grid, const std::vector<Box2>& boxes,
                                         std::vector<Pair>& before) {
  const absl::StatusOr<ContactEvents> e = grid.update();
  EXPECT_TRUE(e.ok());
  const absl::StatusOr<PairsResult> now = lwc::find_pairs(boxes, config(2));
  EXPECT_TRUE(now.ok());
  if (!e.ok() || !now.ok()) return 0;
  const auto indices = [](const std::vector<Contact>& cs) {
    std::vector<Pair> out;
    for (const Contact& c : cs) out.push_back({c.a.slot, c.b.slot});
    return out;
  };
  std::vector<Pair> began;
  std::vector<Pair> ended;
  std::set_difference(now->pairs.begin(), now->pairs.end(), before.begin(), before.end(), std::back_inserter(began));
  std::set_difference(before.begin(), before.end(), now->pairs.begin(), now->pairs.end(), std::back_inserter(ended));
  EXPECT_EQ(indices(grid.pairs()), now->pairs);
  EXPECT_EQ(indices(e->began), began);
  EXPECT_EQ(indices(e->ended), ended);
  EXPECT_EQ(e->stats.memberships, now->stats.memberships);
  before = now->pairs;
  return before.size();
}

TEST(Persistent, ThousandsOfMovingBoxesMatchFindPairsEveryFrame) {
  // E1, E2.
  // A larger world than the properties reach: 3,000 boxes, 5% jittering and 0.5% teleporting per frame,
  // every frame compared with find_pairs and the events with the difference of consecutive results.
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> pos(0, 110);
  std::uniform_real_distribution<double> size(0.5, 2);
  std::uniform_real_distribution<double> jitter(-0.5, 0.5);
  std::uniform_int_distribution<std::size_t> pick(0, 2999);
  lwc::PersistentGrid<2> grid = *lwc::PersistentGrid<2>::create(config(2));
  std::vector<Box2> boxes;
  std::vector<Handle> handles;
  for (int i = 0; i < 3000; ++i) {
    const double x = pos(rng);
    const double y = pos(rng);
    boxes.push_back(box(x, y, x + size(rng), y + size(rng)));
    handles.push_back(*grid.insert(boxes.back()));
  }
  std::vector<Pair> before;
  for (int frame = 0; frame < 12; ++frame) {
    ExpectUpdateMatchesFindPairs(grid, boxes, before);
    for (int m = 0; m < 150; ++m) {
      const std::size_t i = pick(rng);
      const double dx = m < 15 ? pos(rng) - boxes[i].min[0] : jitter(rng);
      const double dy = m < 15 ? pos(rng) - boxes[i].min[1] : jitter(rng);
      boxes[i] = box(boxes[i].min[0] + dx, boxes[i].min[1] + dy, boxes[i].max[0] + dx, boxes[i].max[1] + dy);
      ASSERT_TRUE(grid.move(handles[i], boxes[i]).ok());
    }
  }
}

TEST(Persistent, ManyNewBoxesInOneUpdateMatchFindPairs) {
  // E1, E2: updates that register thousands of new boxes together (CellGrid::add_many, from 4,096 new
  // boxes on) — a first build of 6,000, and 5,000 added to 1,000 committed boxes while some of those
  // move — then frames of moves and teleports over the boxes registered so, and one in which every box
  // moves: every frame against find_pairs and the difference of consecutive results.
  for (const int committed_first : {0, 1000}) {
    std::mt19937_64 rng(11);
    std::uniform_real_distribution<double> pos(0, 150);
    std::uniform_real_distribution<double> size(0.5, 2);
    std::uniform_real_distribution<double> jitter(-0.5, 0.5);
    std::uniform_int_distribution<std::size_t> pick(0, 5999);
    lwc::PersistentGrid<2> grid = *lwc::PersistentGrid<2>::create(config(2));
    std::vector<Box2> boxes;
    std::vector<Handle> handles;
    std::vector<Pair> before;
    const auto add = [&](int n) {
      for (int i = 0; i < n; ++i) {
        const double x = pos(rng);
        const double y = pos(rng);
        boxes.push_back(box(x, y, x + size(rng), y + size(rng)));
        handles.push_back(*grid.insert(boxes.back()));
      }
    };
    const auto judge = [&] { EXPECT_GT(ExpectUpdateMatchesFindPairs(grid, boxes, before), 1000u); };
    const auto move_some = [&](std::size_t limit) {
      for (int m = 0; m < 300; ++m) {
        const std::size_t i = pick(rng) % limit;
        const double dx = m < 30 ? pos(rng) - boxes[i].min[0] : jitter(rng);
        const double dy = m < 30 ? pos(rng) - boxes[i].min[1] : jitter(rng);
        boxes[i] = box(boxes[i].min[0] + dx, boxes[i].min[1] + dy, boxes[i].max[0] + dx, boxes[i].max[1] + dy);
        ASSERT_TRUE(grid.move(handles[i], boxes[i]).ok());
      }
    };
    if (committed_first > 0) {
      add(committed_first);
      ASSERT_TRUE(grid.update().ok());
      before = lwc::find_pairs(boxes, config(2))->pairs;
      move_some(boxes.size());
    }
    add(6000 - committed_first);
    judge();
    for (int frame = 0; frame < 4; ++frame) {
      move_some(boxes.size());
      judge();
    }
    // A frame in which every box moves: 6,000 dirty boxes, none new, so they are not registered
    // together but one by one, as any moved box.
    for (std::size_t i = 0; i < boxes.size(); ++i) {
      const double d = jitter(rng);
      boxes[i] = box(boxes[i].min[0] + d, boxes[i].min[1] - d, boxes[i].max[0] + d, boxes[i].max[1] - d);
      ASSERT_TRUE(grid.move(handles[i], boxes[i]).ok());
    }
    judge();
  }
}

TEST(Persistent, ThreeDimensionalBoxesAcrossCellBoundaries) {
  // E1, E6.
  Judged<3> g(config(1));
  const std::size_t a = g.insert({{0, 0, 0}, {1, 1, 1}});
  const std::size_t b = g.insert({{2, 2, 2}, {3, 3, 3}});
  ASSERT_TRUE(g.update().ok());
  ASSERT_TRUE(g.move(b, {{1, 1, 1}, {2, 2, 2}}).ok());  // corner contact on a cell corner
  absl::StatusOr<ContactEvents> e = g.update();
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->began, (std::vector<Contact>{g.contact(a, b)}));
  ASSERT_TRUE(g.move(b, {{-5, -5, -5}, {-4, -4, -4}}, Motion::kSwept).ok());
  e = g.update();
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->ended, (std::vector<Contact>{g.contact(a, b)}));
  EXPECT_EQ(e->swept, (std::vector<Contact>{g.contact(a, b)}));
}

TEST(Persistent, ConfigIsValidatedLikeFindPairs) {
  // E2: the config errors of find_pairs (B6; a bad cell size or budget is refused by its own create()).
  GridConfig c = config(1);
  c.oversize = Oversize::kCoarserLevels;
  c.max_cells_per_box = *lwc::CellBudget::create(15);
  EXPECT_EQ(lwc::PersistentGrid<2>::create(c).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(Timings, AreAProbeTheCallerPassesNotPartOfTheResult) {
  // Each call fills the phases it ran and leaves the others untouched; without a probe the results are the
  // same (stats are exact counts only).
  const std::vector<Box2> boxes = {box(0, 0, 10, 2), box(9, 0.5, 9.5, 1.5)};
  lwc::Timings t{.validation_ns = -1, .registration_ns = -1, .pairing_ns = -1, .update_ns = -1};
  const absl::StatusOr<PairsResult> probed = lwc::find_pairs(boxes, config(2), &t);
  const absl::StatusOr<PairsResult> plain = lwc::find_pairs(boxes, config(2));
  ASSERT_TRUE(probed.ok() && plain.ok());
  EXPECT_EQ(probed->pairs, plain->pairs);
  EXPECT_EQ(probed->stats.memberships, plain->stats.memberships);
  EXPECT_GE(t.validation_ns, 0);
  EXPECT_GE(t.registration_ns, 0);
  EXPECT_GE(t.pairing_ns, 0);
  EXPECT_EQ(t.update_ns, -1);
  lwc::Timings u{.validation_ns = -1, .registration_ns = -1, .pairing_ns = -1, .update_ns = -1};
  absl::StatusOr<lwc::PersistentGrid<2>> grid = lwc::PersistentGrid<2>::create(config(2));
  ASSERT_TRUE(grid.ok());
  ASSERT_TRUE(grid->insert(boxes[0]).ok());
  ASSERT_TRUE(grid->update(&u).ok());
  EXPECT_GE(u.update_ns, 0);
  EXPECT_EQ(u.validation_ns, -1);
}

}  // namespace

// The value types compare every field (the order of pairs and contacts is lexicographic, lower field
// first: the canonical order of pairs and the sorted contact lists rest on it) and print as documented.
namespace {

TEST(ValueTypes, PairComparesBothIndicesLexicographically) {  // B3
  const lwc::Pair p{1, 2};
  EXPECT_EQ(p, (lwc::Pair{1, 2}));
  EXPECT_NE(p, (lwc::Pair{0, 2}));
  EXPECT_NE(p, (lwc::Pair{1, 3}));
  EXPECT_LT(p, (lwc::Pair{1, 3}));
  EXPECT_GT(p, (lwc::Pair{0, 9}));
  EXPECT_EQ(::testing::PrintToString(p), "(1, 2)");
}

TEST(ValueTypes, CellRangeComparesLowAndHighCorners) {  // B9
  const lwc::CellRange<2> r{{0, 1}, {2, 3}};
  EXPECT_EQ(r, (lwc::CellRange<2>{{0, 1}, {2, 3}}));
  EXPECT_NE(r, (lwc::CellRange<2>{{0, 0}, {2, 3}}));
  EXPECT_NE(r, (lwc::CellRange<2>{{0, 1}, {2, 4}}));
}

TEST(ValueTypes, HandleAndContactCompareEveryField) {  // E1 E3
  const lwc::Handle h{3, 7};
  EXPECT_EQ(h, (lwc::Handle{3, 7}));
  EXPECT_NE(h, (lwc::Handle{4, 7}));
  EXPECT_NE(h, (lwc::Handle{3, 8}));   // the same slot, another generation, is another handle (E3)
  EXPECT_LT(h, (lwc::Handle{3, 8}));
  EXPECT_GT(h, (lwc::Handle{2, 99}));
  const lwc::Contact c{{1, 0}, {2, 0}};
  EXPECT_EQ(c, (lwc::Contact{{1, 0}, {2, 0}}));
  EXPECT_NE(c, (lwc::Contact{{1, 1}, {2, 0}}));
  EXPECT_NE(c, (lwc::Contact{{1, 0}, {2, 1}}));
  EXPECT_LT(c, (lwc::Contact{{1, 0}, {2, 1}}));
  EXPECT_GT(c, (lwc::Contact{{0, 9}, {9, 9}}));
}

// The engine features of the persistent grid (E7-E12).

std::vector<std::uintptr_t> users_of(const std::vector<Contact>& cs) {
  std::vector<std::uintptr_t> out;
  for (const Contact& c : cs) {
    out.push_back(c.user_a);
    out.push_back(c.user_b);
  }
  return out;
}

TEST(Persistent, E7_PayloadsComeBackWithEventsAndQueryHits) {
  auto grid = lwc::PersistentGrid<2>::create(config(2));
  ASSERT_TRUE(grid.ok());
  const absl::StatusOr<Handle> wall = grid->insert(box(0, 0, 10, 2), 100);
  const absl::StatusOr<Handle> prop = grid->insert(box(12, 0, 13, 1), 200);
  ASSERT_TRUE(wall.ok() && prop.ok());
  EXPECT_EQ(*grid->user_data(*prop), 200u);
  ContactEvents e;
  ASSERT_TRUE(grid->update_into(e).ok());
  ASSERT_TRUE(grid->move(*prop, box(9, 0, 10, 1)).ok());
  ASSERT_TRUE(grid->update_into(e).ok());
  EXPECT_EQ(users_of(e.began), (std::vector<std::uintptr_t>{100, 200}));
  EXPECT_EQ(users_of(grid->pairs()), (std::vector<std::uintptr_t>{100, 200}));
  std::vector<std::uintptr_t> hit;
  ASSERT_TRUE(grid->query(box(9.5, 0.5, 9.5, 0.5), [&](Handle, std::uintptr_t u) { hit.push_back(u); return true; }).ok());
  std::sort(hit.begin(), hit.end());
  EXPECT_EQ(hit, (std::vector<std::uintptr_t>{100, 200}));
  // A new payload: the pair is re-judged, nothing begins or ends, and ended events carry the old payload.
  ASSERT_TRUE(grid->set_user_data(*prop, 300).ok());
  ASSERT_TRUE(grid->update_into(e).ok());
  EXPECT_TRUE(e.began.empty() && e.ended.empty());
  ASSERT_TRUE(grid->remove(*prop).ok());
  ASSERT_TRUE(grid->update_into(e).ok());
  EXPECT_EQ(users_of(e.ended), (std::vector<std::uintptr_t>{100, 300}));
  EXPECT_EQ(grid->user_data(*prop).status().code(), absl::StatusCode::kNotFound);
}

TEST(Persistent, E8_FilteredPairsNeverAppearAndFilterChangesYieldTheirEvents) {
  auto grid = lwc::PersistentGrid<2>::create(config(1));
  ASSERT_TRUE(grid.ok());
  // Bullet's groups: a static box (group 2) collides with everything but statics (mask ~2).
  const lwc::Filter kStatic{.group = 2, .mask = ~std::uint64_t{2}};
  const lwc::Filter kDefault{};
  const absl::StatusOr<Handle> a = grid->insert(box(0, 0, 1, 1), 1, kStatic);
  const absl::StatusOr<Handle> b = grid->insert(box(0.5, 0.5, 2, 2), 2, kStatic);
  const absl::StatusOr<Handle> c = grid->insert(box(0.8, 0.8, 3, 3), 3, kDefault);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_TRUE(lwc::passes(kStatic, kDefault));
  EXPECT_FALSE(lwc::passes(kStatic, kStatic));
  ContactEvents e;
  ASSERT_TRUE(grid->update_into(e).ok());
  EXPECT_EQ(e.began, (std::vector<Contact>{{*a, *c, 1, 3}, {*b, *c, 2, 3}}));  // (a, b): two statics, filtered
  // b becomes dynamic: (a, b) begins, (b, c) stays; nothing else.
  ASSERT_TRUE(grid->set_filter(*b, kDefault).ok());
  EXPECT_EQ(*grid->filter(*b), kDefault);
  ASSERT_TRUE(grid->update_into(e).ok());
  EXPECT_EQ(e.began, (std::vector<Contact>{{*a, *b, 1, 2}}));
  EXPECT_TRUE(e.ended.empty());
  // c stops colliding with group 1 (b): (b, c) ends; (a, c) stays.
  ASSERT_TRUE(grid->set_filter(*c, {.group = 1, .mask = 2}).ok());
  ASSERT_TRUE(grid->update_into(e).ok());
  EXPECT_TRUE(e.began.empty());
  EXPECT_EQ(e.ended, (std::vector<Contact>{{*b, *c, 2, 3}}));
  EXPECT_EQ(grid->pairs(), (std::vector<Contact>{{*a, *b, 1, 2}, {*a, *c, 1, 3}}));
  // Setting a filter and moving in the same step: the events are those of the change of the pair set.
  ASSERT_TRUE(grid->set_filter(*c, kDefault).ok());
  ASSERT_TRUE(grid->move(*c, box(5, 5, 6, 6)).ok());
  ASSERT_TRUE(grid->update_into(e).ok());
  EXPECT_TRUE(e.began.empty());
  EXPECT_EQ(e.ended, (std::vector<Contact>{{*a, *c, 1, 3}}));
  EXPECT_EQ(grid->set_filter(Handle{}, kDefault).code(), absl::StatusCode::kNotFound);
}

// The pair predicate: refuses pairs whose payloads have the same parity, and counts its calls.
struct Parity {
  int calls = 0;
  std::vector<std::pair<std::uintptr_t, std::uintptr_t>> asked;
  static bool accept(void* context, std::uintptr_t lower, std::uintptr_t higher) {
    auto* self = static_cast<Parity*>(context);
    ++self->calls;
    self->asked.emplace_back(lower, higher);
    return (lower % 2) != (higher % 2);
  }
};

TEST(Persistent, E8_ThePairPredicateIsAskedLowerSlotFirstAndRefilterReasksIt) {
  Parity parity;
  auto grid = lwc::PersistentGrid<2>::create(config(1), {&Parity::accept, &parity});
  ASSERT_TRUE(grid.ok());
  const absl::StatusOr<Handle> a = grid->insert(box(0, 0, 1, 1), 11);
  const absl::StatusOr<Handle> b = grid->insert(box(0, 0, 1, 1), 12);
  const absl::StatusOr<Handle> c = grid->insert(box(0, 0, 1, 1), 13);
  ContactEvents e;
  ASSERT_TRUE(grid->update_into(e).ok());
  EXPECT_EQ(e.began, (std::vector<Contact>{{*a, *b, 11, 12}, {*b, *c, 12, 13}}));
  for (const auto& [lower, higher] : parity.asked) EXPECT_LT(lower, higher);  // payloads ascend with slots here
  // The engine changes what the predicate answers for c (payload 13 -> 14 through set_user_data).
  ASSERT_TRUE(grid->set_user_data(*c, 14).ok());
  ASSERT_TRUE(grid->update_into(e).ok());
  EXPECT_EQ(e.began, (std::vector<Contact>{{*a, *c, 11, 14}}));
  EXPECT_EQ(e.ended, (std::vector<Contact>{{*b, *c, 12, 13}}));
  // refilter() only re-asks: with the same answers, nothing.
  ASSERT_TRUE(grid->refilter(*a).ok());
  EXPECT_EQ(grid->pending(), 1u);
  ASSERT_TRUE(grid->update_into(e).ok());
  EXPECT_TRUE(e.began.empty() && e.ended.empty());
}

TEST(Persistent, E9_RaycastHitsInOrderOfEntryAndStopsEarly) {
  auto grid = lwc::PersistentGrid<2>::create(config(1));
  ASSERT_TRUE(grid.ok());
  const absl::StatusOr<Handle> far = grid->insert(box(8, -1, 9, 1), 3);
  const absl::StatusOr<Handle> near = grid->insert(box(2, -1, 3, 1), 1);
  const absl::StatusOr<Handle> mid = grid->insert(box(5, 0, 6, 2), 2);     // touched at y = 0 (closed)
  const absl::StatusOr<Handle> off = grid->insert(box(4, 0.5, 4.5, 2), 9);  // above the ray
  const absl::StatusOr<Handle> behind = grid->insert(box(-3, -1, -2, 1), 8);
  ASSERT_TRUE(far.ok() && near.ok() && mid.ok() && off.ok() && behind.ok());
  const lwc::Segment<2> ray{{0, 0}, {10, 0}};
  std::vector<std::pair<std::uintptr_t, double>> hits;
  ASSERT_TRUE(grid->raycast(ray, [&](Handle, std::uintptr_t u, double t) {
                    hits.emplace_back(u, t);
                    return true;
                  }).ok());
  EXPECT_EQ(hits, (std::vector<std::pair<std::uintptr_t, double>>{{1, 0.2}, {2, 0.5}, {3, 0.8}}));
  hits.clear();
  ASSERT_TRUE(grid->raycast(ray, [&](Handle, std::uintptr_t u, double t) {
                    hits.emplace_back(u, t);
                    return false;  // the closest hit only
                  }).ok());
  EXPECT_EQ(hits, (std::vector<std::pair<std::uintptr_t, double>>{{1, 0.2}}));
  // A segment starting inside a box enters it at t = 0; a zero-length segment is a point test.
  hits.clear();
  ASSERT_TRUE(grid->raycast({{2.5, 0}, {2.5, 0}}, [&](Handle, std::uintptr_t u, double t) {
                    hits.emplace_back(u, t);
                    return true;
                  }).ok());
  EXPECT_EQ(hits, (std::vector<std::pair<std::uintptr_t, double>>{{1, 0.0}}));
  const auto never = [](Handle, std::uintptr_t, double) {
    ADD_FAILURE() << "called for an invalid segment";
    return true;
  };
  EXPECT_EQ(grid->raycast({{kNaN, 0}, {1, 0}}, never).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(grid->raycast({{0, 0}, {kInf, 0}}, never).code(), absl::StatusCode::kInvalidArgument);
  const double big = std::numeric_limits<double>::max();
  EXPECT_EQ(grid->raycast({{-big, 0}, {big, 0}}, never).code(), absl::StatusCode::kInvalidArgument);  // to - from overflows
}

// The model test's Ray command at cell size DBL_MAX generated k * h / 4 = -inf and expected the ray to be
// answered: a property bug (the grid was right to refuse it), found by the audit at 100000 cases:
// RC_PARAMS="max_success=100000 reproduce=BIjQy9WYkBHahNXZvU0NfBVY5x2bhR2cD9WblJUYjt2VpRHaFZXZylXR2Vmb0FkbkhUa0drAX6Jh0ArTsC2Fwf8CEXJ9NrbfAp7haVFhgUKdESETACIgQAgGZBAAAcQ_BIQABEQABA seed=20261129"
//   build/audit/properties/broadphase_props --gtest_filter=Broadphase.E7_PayloadsComeBackWithEveryEventAndHit
// (and E9, E11 the same). At that cell size a finite ray is answered and an infinite one refused.
TEST(Persistent, E9_RaycastAtDblMaxCellSizeAnswersFiniteRaysAndRefusesInfiniteOnes) {
  const double big = std::numeric_limits<double>::max();
  auto grid = lwc::PersistentGrid<2>::create(config(big));
  ASSERT_TRUE(grid.ok());
  ASSERT_TRUE(grid->insert(box(-big, -big, big / 4, 0), 5).ok());
  ASSERT_TRUE(grid->update().ok());
  std::vector<std::uintptr_t> hits;
  ASSERT_TRUE(grid->raycast({{-big / 2, -big / 2}, {big / 2, big / 4}}, [&](Handle, std::uintptr_t u, double) {
                    hits.push_back(u);
                    return true;
                  }).ok());
  EXPECT_EQ(hits, std::vector<std::uintptr_t>{5});
  const double inf = std::numeric_limits<double>::infinity();
  const auto never = [](Handle, std::uintptr_t, double) {
    ADD_FAILURE() << "called for an invalid segment";
    return true;
  };
  EXPECT_EQ(grid->raycast({{-inf, -inf}, {-inf, -inf}}, never).code(), absl::StatusCode::kInvalidArgument);
}

TEST(Persistent, E10_FloatBoxesAreTheirDoublesExactly) {
  auto fgrid = lwc::PersistentGrid<2>::create(config(0.1));
  auto dgrid = lwc::PersistentGrid<2>::create(config(0.1));
  ASSERT_TRUE(fgrid.ok() && dgrid.ok());
  // 0.3f is above 0.3 and 0.1f above 0.1: cell_of on the float's exact value, not on a rounded decimal.
  const lwc::FloatBox<2> f{{0.1f, 0.3f}, {0.3f, 0.7f}};
  const Box2 d{{static_cast<double>(0.1f), static_cast<double>(0.3f)}, {static_cast<double>(0.3f), static_cast<double>(0.7f)}};
  const absl::StatusOr<Handle> hf = fgrid->insert(f);
  const absl::StatusOr<Handle> hd = dgrid->insert(d);
  ASSERT_TRUE(hf.ok() && hd.ok());
  ContactEvents ef, ed;
  ASSERT_TRUE(fgrid->update_into(ef).ok());
  ASSERT_TRUE(dgrid->update_into(ed).ok());
  EXPECT_EQ(ef.stats.memberships, ed.stats.memberships);
  const absl::StatusOr<lwc::PairsResult> batch = lwc::find_pairs(std::vector<Box2>{d}, config(0.1));
  ASSERT_TRUE(batch.ok());
  EXPECT_EQ(ef.stats.memberships, batch->stats.memberships);
  const absl::StatusOr<Box2> stored = fgrid->box(*hf);
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored->min, d.min);
  EXPECT_EQ(stored->max, d.max);
  // A float NaN and an inverted float box are refused like their doubles.
  EXPECT_EQ(fgrid->insert(lwc::FloatBox<2>{{std::numeric_limits<float>::quiet_NaN(), 0}, {1, 1}}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(fgrid->move(*hf, lwc::FloatBox<2>{{1, 0}, {0, 1}}).code(), absl::StatusCode::kInvalidArgument);
  // Moving by float boxes pairs like the doubles.
  const absl::StatusOr<Handle> g = fgrid->insert(lwc::FloatBox<2>{{0.3f, 0.7f}, {1, 1}});  // touches f's corner
  ASSERT_TRUE(g.ok());
  ASSERT_TRUE(fgrid->update_into(ef).ok());
  EXPECT_EQ(ef.began.size(), 1u);
  int hits = 0;
  ASSERT_TRUE(fgrid->query(lwc::FloatBox<2>{{0.3f, 0.7f}, {0.3f, 0.7f}}, [&](Handle, std::uintptr_t) { return ++hits > 0; }).ok());
  EXPECT_EQ(hits, 2);
}

TEST(Persistent, E11_QueriesSeeTheBoxesAsLastGiven) {
  auto grid = lwc::PersistentGrid<2>::create(config(1));
  ASSERT_TRUE(grid.ok());
  const absl::StatusOr<Handle> a = grid->insert(box(0, 0, 1, 1), 1);
  const absl::StatusOr<Handle> b = grid->insert(box(5, 5, 6, 6), 2);
  ASSERT_TRUE(a.ok() && b.ok());
  const auto hits = [&](const Box2& q) {
    std::vector<std::uintptr_t> out;
    EXPECT_TRUE(grid->query(q, [&](Handle, std::uintptr_t u) { out.push_back(u); return true; }).ok());
    std::sort(out.begin(), out.end());
    return out;
  };
  // Before any update: the pending inserts are seen.
  EXPECT_EQ(hits(box(0, 0, 6, 6)), (std::vector<std::uintptr_t>{1, 2}));
  ContactEvents e;
  ASSERT_TRUE(grid->update_into(e).ok());
  ASSERT_TRUE(grid->move(*a, box(10, 10, 11, 11)).ok());
  ASSERT_TRUE(grid->remove(*b).ok());
  const absl::StatusOr<Handle> c = grid->insert(box(0, 0, 1, 1), 3);
  ASSERT_TRUE(c.ok());
  // Between operations and update(): the moved box at its new place, the removed one gone, the new one in.
  EXPECT_EQ(hits(box(0, 0, 6, 6)), (std::vector<std::uintptr_t>{3}));
  EXPECT_EQ(hits(box(10.5, 10.5, 10.5, 10.5)), (std::vector<std::uintptr_t>{1}));
  std::vector<std::uintptr_t> ray;
  ASSERT_TRUE(grid->raycast({{0.5, 0.5}, {12, 12}}, [&](Handle, std::uintptr_t u, double) { ray.push_back(u); return true; }).ok());
  EXPECT_EQ(ray, (std::vector<std::uintptr_t>{3, 1}));
  // pairs() and boxes() still describe the last update.
  EXPECT_EQ(grid->boxes().size(), 2u);
  EXPECT_EQ(grid->query(box(1, 0, 0, 1), [](Handle, std::uintptr_t) { return true; }).code(), absl::StatusCode::kInvalidArgument);
}

TEST(Persistent, E9_RaycastEqualsBruteForceOnAWorldOfThousands) {
  // Enough residents for the walk along the segment's cells (the small worlds above scan), long and short
  // segments, axis-aligned ones, ones starting and ending on cell boundaries, and a coarse level.
  std::mt19937_64 rng(14);
  std::uniform_real_distribution<double> at(-60, 60);
  std::uniform_real_distribution<double> side(0.1, 2);
  GridConfig c = config(2);
  c.oversize = Oversize::kCoarserLevels;
  c.max_cells_per_box = *lwc::CellBudget::create(64);
  auto grid = lwc::PersistentGrid<2>::create(c);
  ASSERT_TRUE(grid.ok());
  std::vector<Box2> boxes;
  for (int i = 0; i < 3000; ++i) {
    const double x = at(rng), y = at(rng);
    const double w = i % 100 == 0 ? 40 : side(rng);  // walls on a coarser level
    boxes.push_back(box(x, y, x + w, y + side(rng)));
    ASSERT_TRUE(grid->insert(boxes.back(), static_cast<std::uintptr_t>(i)).ok());
  }
  std::vector<lwc::Segment<2>> rays = {{{-70, 0}, {70, 0}}, {{0, -70}, {0, 70}}, {{-64, -64}, {64, 64}},
                                       {{2, 2}, {4, 4}},    {{1, 1}, {1, 1}},    {{-10, 6}, {30, -2}}};
  for (int i = 0; i < 60; ++i) rays.push_back({{at(rng), at(rng)}, {at(rng), at(rng)}});
  for (const lwc::Segment<2>& ray : rays) {
    std::vector<std::pair<double, std::uintptr_t>> want;
    for (std::size_t i = 0; i < boxes.size(); ++i) {
      double t = 0;
      if (lwc::ray_entry(boxes[i], ray, t)) want.emplace_back(t, i);
    }
    std::sort(want.begin(), want.end());
    std::vector<std::pair<double, std::uintptr_t>> got;
    ASSERT_TRUE(grid->raycast(ray, [&](Handle, std::uintptr_t u, double t) {
                      got.emplace_back(t, u);
                      return true;
                    }).ok());
    EXPECT_EQ(got, want);
    std::vector<std::uintptr_t> inside;
    const Box2 q = box(std::min(ray.from[0], ray.to[0]), std::min(ray.from[1], ray.to[1]),
                       std::max(ray.from[0], ray.to[0]), std::max(ray.from[1], ray.to[1]));
    ASSERT_TRUE(grid->query(q, [&](Handle, std::uintptr_t u) { inside.push_back(u); return true; }).ok());
    std::sort(inside.begin(), inside.end());
    std::vector<std::uintptr_t> brute;
    for (std::size_t i = 0; i < boxes.size(); ++i) {
      if (lwc::overlaps(q, boxes[i])) brute.push_back(i);
    }
    EXPECT_EQ(inside, brute);
  }
}

TEST(Persistent, E12_AWarmGridAllocatesNothingPerFrame) {
  ASSERT_TRUE(lwc::testing::counting_allocations());
  // A world of 2,000 boxes; each frame moves 10% of them (a fixed cycle of frames, so that "warm" is
  // reached: every bucket, list and buffer has met its largest size), changes filters and payloads,
  // removes and re-inserts boxes, queries and casts rays, and updates into the same events.
  std::mt19937_64 rng(12);
  std::uniform_real_distribution<double> at(0, 90);
  std::uniform_real_distribution<double> jit(-0.5, 0.5);
  auto grid = lwc::PersistentGrid<2>::create(config(2));
  ASSERT_TRUE(grid.ok());
  std::vector<Box2> home;
  std::vector<Handle> handles;
  for (int i = 0; i < 2000; ++i) {
    const double x = at(rng), y = at(rng);
    home.push_back(box(x, y, x + 1.5, y + 1.5));
    handles.push_back(*grid->insert(home.back(), static_cast<std::uintptr_t>(i)));
  }
  ContactEvents e;
  e.began.reserve(4096);
  e.ended.reserve(4096);
  e.swept.reserve(4096);
  ASSERT_TRUE(grid->update_into(e).ok());
  constexpr int kFrames = 6;
  std::vector<std::vector<std::pair<std::size_t, Box2>>> frames(kFrames);
  for (auto& f : frames) {
    for (int m = 0; m < 200; ++m) {
      const std::size_t i = rng() % home.size();
      const double dx = jit(rng), dy = jit(rng);
      f.emplace_back(i, box(home[i].min[0] + dx, home[i].min[1] + dy, home[i].max[0] + dx, home[i].max[1] + dy));
    }
  }
  std::int64_t events = 0;
  const auto frame = [&](int k) {
    for (const auto& [i, b] : frames[static_cast<std::size_t>(k)]) ASSERT_TRUE(grid->move(handles[i], b).ok());
    ASSERT_TRUE(grid->move(handles[7], box(40, 40, 41, 41), k % 2 ? Motion::kSwept : Motion::kTeleport).ok());
    ASSERT_TRUE(grid->set_filter(handles[3], {.group = 1, .mask = k % 2 ? 1u : 2u}).ok());
    ASSERT_TRUE(grid->set_user_data(handles[5], static_cast<std::uintptr_t>(k)).ok());
    ASSERT_TRUE(grid->remove(handles[11]).ok());
    ASSERT_TRUE(grid->update_into(e).ok());
    events += static_cast<std::int64_t>(e.began.size() + e.ended.size());
    const absl::StatusOr<Handle> back = grid->insert(home[11], 11);
    ASSERT_TRUE(back.ok());
    handles[11] = *back;
    int hits = 0;
    ASSERT_TRUE(grid->query(box(10, 10, 30, 30), [&](Handle, std::uintptr_t) { return ++hits > 0; }).ok());
    ASSERT_TRUE(grid->raycast({{0, 45}, {90, 46}}, [&](Handle, std::uintptr_t, double) { return ++hits > 0; }).ok());
    ASSERT_TRUE(grid->update_into(e).ok());
  };
  for (int warm = 0; warm < 8; ++warm) {
    for (int k = 0; k < kFrames; ++k) frame(k);
  }
  const std::int64_t before = lwc::testing::allocations();
  for (int k = 0; k < kFrames; ++k) frame(k);
  const std::int64_t allocations = lwc::testing::allocations() - before;
  EXPECT_GT(before, 100);  // the counter counts: building the world allocated (gtest's EXPECTs may too)
  EXPECT_EQ(allocations, 0);
  EXPECT_GT(events, 0);  // the frames did change the pair set
}

}  // namespace

namespace {

TEST(FindPairs, B7_RefusesMoreBoxesThanIndicesHold) {
  // B7: box indices are 32-bit, so a call with 2^32 + 1 boxes is refused before any box is read. The span
  // lies over address space that is reserved but inaccessible (PROT_NONE): reading a single box would
  // fault, so the test also shows that the refusal comes first.
  const std::size_t n = (std::size_t{1} << 32) + 1;
  void* memory = mmap(nullptr, n * sizeof(Box2), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (memory == MAP_FAILED) GTEST_SKIP() << "cannot reserve " << n * sizeof(Box2) << " bytes of address space";
  const std::span<const Box2> boxes(static_cast<const Box2*>(memory), n);
  const absl::StatusOr<PairsResult> r = lwc::find_pairs(boxes, config(1));
  EXPECT_EQ(r.status().code(), absl::StatusCode::kResourceExhausted) << r.status();
  EXPECT_TRUE(absl::StrContains(r.status().message(), "4294967297 boxes")) << r.status();
  munmap(memory, n * sizeof(Box2));
}

}  // namespace

// The caller's boxes, the caller's output and every core (issue 15).
namespace {

using lwc::BoxView;
using lwc::FloatBox;
using lwc::TaskSystem;
using lwc::ThreadPool;

// An engine's AABB as it might lie in memory: floats, with a field between the corners.
struct EngineAabb {
  float lower[2];
  std::int32_t tag;
  float upper[2];
};

std::vector<Box2> widened(const std::vector<EngineAabb>& aabbs) {
  std::vector<Box2> out;
  for (const EngineAabb& a : aabbs) out.push_back(box(a.lower[0], a.lower[1], a.upper[0], a.upper[1]));
  return out;
}

BoxView<2, float> view_of(const std::vector<EngineAabb>& aabbs) {
  absl::StatusOr<BoxView<2, float>> v =
      BoxView<2, float>::strided(aabbs.data()->lower, aabbs.data()->upper, aabbs.size(), sizeof(EngineAabb));
  EXPECT_TRUE(v.ok()) << v.status();
  return v.ok() ? *v : BoxView<2, float>();
}

void expect_identical(const absl::StatusOr<PairsResult>& reference, const absl::StatusOr<PairsResult>& got,
                      absl::string_view clause) {
  const absl::Status verdict = lwc::contracts::check_identical(clause, reference, got);
  EXPECT_TRUE(verdict.ok()) << verdict;
}

// A world of n boxes of sizes 0.5-2 m and a few walls, from a fixed seed.
std::vector<Box2> world(std::size_t n, std::uint32_t seed, double side) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> at(0, side);
  std::uniform_real_distribution<double> size(0.5, 2.0);
  std::vector<Box2> boxes;
  for (std::size_t i = 0; i < n; ++i) {
    const double x = at(rng);
    const double y = at(rng);
    const double w = i % 97 == 0 ? 60.0 : size(rng);
    boxes.push_back(box(x, y, x + w, y + size(rng)));
  }
  return boxes;
}

TEST(CallerBoxes, B13_AnEngineFloatArrayIsReadInPlaceAsItsDoubles) {
  // The seed wall and prop, as floats inside an engine's struct (stride 20 bytes, a tag between corners).
  const std::vector<EngineAabb> aabbs = {{{0, 0}, 7, {10, 2}}, {{9, 0.5F}, 8, {9.5F, 1.5F}}, {{20, 20}, 9, {21, 21}}};
  const absl::StatusOr<PairsResult> r = lwc::find_pairs(view_of(aabbs), config(2));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->pairs, (std::vector<Pair>{{0, 1}}));
  EXPECT_EQ(r->stats.memberships, 14);  // 13 as in the seed, and one for the far box
  expect_identical(lwc::find_pairs(widened(aabbs), config(2)), r, "B13 float layout");
}

TEST(CallerBoxes, B13_FloatBoundsAreQuantisedAtTheirExactValue) {
  // 0.3f lies above 0.3: at h = 0.1 its exact floor is cell 3, where the double 0.3 has cell 2. A float box
  // [0.3f, 0.3f] and a double box starting at cell 3's boundary 0.30000001 (widened 0.3f) touch.
  const std::vector<FloatBox<2>> floats = {{{0.3F, 0}, {0.3F, 0}}, {{0.1F, 0}, {0.2F, 0}}};
  const absl::StatusOr<PairsResult> r = lwc::find_pairs(BoxView<2, float>(floats), config(0.1));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*lwc::cell_of(static_cast<double>(0.3F), 0.1), 3);
  EXPECT_EQ(*lwc::cell_of(0.3, 0.1), 2);
  const std::vector<Box2> doubles = {box(0.3F, 0, 0.3F, 0), box(0.1F, 0, 0.2F, 0)};
  expect_identical(lwc::find_pairs(doubles, config(0.1)), r, "B13 float quantisation");
  EXPECT_EQ(r->stats.occupied_cells, 3);  // cells 3, and 1..2 of the second box (0.1f is above 0.1)
}

TEST(CallerBoxes, B13_FloatExtremesAreRefusedOrPlacedAsTheirDoubles) {
  const float kFloatNaN = std::numeric_limits<float>::quiet_NaN();
  const float kTiny = std::numeric_limits<float>::denorm_min();
  const float kBig = std::numeric_limits<float>::max();
  for (const std::vector<FloatBox<2>>& floats : std::vector<std::vector<FloatBox<2>>>{
           {{{-kTiny, 0}, {kTiny, 0}}, {{kTiny, 0}, {kTiny, 0}}, {{-0.0F, -0.0F}, {0, 0}}},
           {{{0, 0}, {1, 1}}, {{kFloatNaN, 0}, {1, 1}}},
           {{{0, 0}, {1, 1}}, {{2, 0}, {1, 1}}},
           {{{-kBig, 0}, {kBig, 1}}},
           {{{0x1p24F, 0}, {0x1p24F + 2, 0}}, {{0x1p24F + 2, 0}, {0x1p25F, 0}}},
           {{{0, 0}, {std::numeric_limits<float>::infinity(), 1}}}}) {
    std::vector<Box2> doubles;
    for (const FloatBox<2>& f : floats) doubles.push_back(box(f.min[0], f.min[1], f.max[0], f.max[1]));
    for (const Oversize policy : {Oversize::kReject, Oversize::kCoarserLevels}) {
      GridConfig c = config(2);
      c.oversize = policy;
      const absl::StatusOr<PairsResult> reference = lwc::find_pairs(doubles, c);
      expect_identical(reference, lwc::find_pairs(BoxView<2, float>(floats), c), "B13 float extremes");
      const absl::Status verdict = lwc::contracts::check_find_pairs(std::span<const Box2>(doubles), c, reference);
      EXPECT_TRUE(verdict.ok()) << verdict;
    }
  }
  // The NaN box is named by its index, as for doubles.
  const std::vector<FloatBox<2>> nan_second = {{{0, 0}, {1, 1}}, {{kFloatNaN, 0}, {1, 1}}};
  const absl::StatusOr<PairsResult> r = lwc::find_pairs(BoxView<2, float>(nan_second), config(1));
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StartsWith(r.status().message(), "box 1:")) << r.status();
}

TEST(CallerBoxes, B13_SeparateMinAndMaxArraysIn3D) {
  const std::vector<std::array<double, 3>> mins = {{0, 0, 0}, {1, 1, 1}, {5, 5, 5}};
  const std::vector<std::array<double, 3>> maxs = {{1, 1, 1}, {2, 2, 2}, {6, 6, 6}};
  const absl::StatusOr<BoxView<3, double>> v = BoxView<3, double>::separate(mins, maxs);
  ASSERT_TRUE(v.ok()) << v.status();
  const absl::StatusOr<PairsResult> r = lwc::find_pairs(*v, config(1));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->pairs, (std::vector<Pair>{{0, 1}}));
  std::vector<Box3> boxes;
  for (std::size_t i = 0; i < mins.size(); ++i) boxes.push_back({mins[i], maxs[i]});
  expect_identical(lwc::find_pairs(boxes, config(1)), r, "B13 separate arrays");
  const absl::StatusOr<BoxView<3, double>> uneven =
      BoxView<3, double>::separate(mins, std::span<const std::array<double, 3>>(maxs).first(2));
  EXPECT_EQ(uneven.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(uneven.status().message(), "3 min corners but 2 max corners")) << uneven.status();
}

TEST(CallerBoxes, B13_BadViewsAreInvalidArgument) {
  alignas(8) static float storage[16] = {};
  const auto code = [](const auto& v) { return v.status().code(); };
  EXPECT_EQ(code(BoxView<2, float>::strided(nullptr, storage, 1, 16)), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code(BoxView<2, float>::strided(storage, nullptr, 1, 16)), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code(BoxView<2, float>::strided(storage, storage + 2, 2, 6)), absl::StatusCode::kInvalidArgument);
  const auto* misaligned = reinterpret_cast<const double*>(reinterpret_cast<const char*>(storage) + 4);
  EXPECT_EQ(code(BoxView<2, double>::strided(misaligned, misaligned, 1, 32)), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code(BoxView<2, float>::strided(storage, storage + 2, std::numeric_limits<std::size_t>::max(), 16)),
            absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE((BoxView<2, float>::strided(nullptr, nullptr, 0, 0).ok()));  // no boxes: nothing to read
  EXPECT_TRUE((BoxView<2, float>::strided(storage, storage + 2, 4, 16).ok()));
  const absl::StatusOr<PairsResult> r = lwc::find_pairs(BoxView<2, float>(), config(1));
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->pairs.empty());
}

TEST(CallerOutput, B14_ABufferReceivesThePairsOrNothing) {
  const std::vector<Box2> boxes = seed_exhaustive_set();
  const BoxView<2, double> v = BoxView<2, double>(boxes);
  const absl::StatusOr<PairsResult> reference = lwc::find_pairs(boxes, config(1));
  ASSERT_TRUE(reference.ok());
  ASSERT_EQ(reference->pairs.size(), 53100U);
  const Pair kUntouched{0xdeadbeef, 0xfeedface};
  for (const std::size_t room : {std::size_t{53100}, std::size_t{53105}, std::size_t{53099}, std::size_t{0}}) {
    std::vector<Pair> out(room, kUntouched);
    const absl::StatusOr<lwc::Stats> s = lwc::find_pairs_into(v, config(1), out);
    if (room >= 53100) {
      ASSERT_TRUE(s.ok()) << s.status();
      EXPECT_EQ(s->pairs, 53100);
      EXPECT_EQ(s->pair_visits, reference->stats.pair_visits);
      EXPECT_TRUE(std::equal(reference->pairs.begin(), reference->pairs.end(), out.begin()));
      EXPECT_TRUE(std::all_of(out.begin() + 53100, out.end(), [&](Pair p) { return p == kUntouched; }));
    } else {
      EXPECT_EQ(s.status().code(), absl::StatusCode::kResourceExhausted);
      EXPECT_TRUE(absl::StrContains(s.status().message(), absl::StrCat("more than the output buffer's ", room, " pairs")))
          << s.status();
      EXPECT_TRUE(std::all_of(out.begin(), out.end(), [&](Pair p) { return p == kUntouched; }));
    }
  }
  // max_pairs below the buffer: the error of find_pairs (B7), nothing written.
  GridConfig tight = config(1);
  tight.max_pairs = *lwc::PairBudget::create(53099);
  std::vector<Pair> out(60000, kUntouched);
  const absl::StatusOr<lwc::Stats> s = lwc::find_pairs_into(v, tight, out);
  EXPECT_EQ(s.status(), lwc::find_pairs(boxes, tight).status());
  EXPECT_TRUE(std::all_of(out.begin(), out.end(), [&](Pair p) { return p == kUntouched; }));
}

TEST(CallerOutput, B14_ACallbackSeesThePairsInOrderOnlyAfterSuccess) {
  const std::vector<Box2> boxes = {box(0, 0, 10, 2), box(9, 0.5, 9.5, 1.5), box(9.2, 0, 12, 1), box(50, 50, 51, 51)};
  std::vector<Pair> seen;
  const absl::StatusOr<lwc::Stats> s =
      lwc::for_each_pair(BoxView<2, double>(boxes), config(2), [&](Pair p) { seen.push_back(p); });
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(seen, (std::vector<Pair>{{0, 1}, {0, 2}, {1, 2}}));
  EXPECT_EQ(s->pairs, 3);
  // Refused: over max_pairs after two pairs were found, and a NaN box: the callback is never called.
  GridConfig tight = config(2);
  tight.max_pairs = *lwc::PairBudget::create(2);
  int calls = 0;
  EXPECT_EQ(lwc::for_each_pair(BoxView<2, double>(boxes), tight, [&](Pair) { ++calls; }).status().code(),
            absl::StatusCode::kResourceExhausted);
  std::vector<Box2> bad = boxes;
  bad[3].min[0] = kNaN;
  EXPECT_EQ(lwc::for_each_pair(BoxView<2, double>(bad), config(2), [&](Pair) { ++calls; }).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(calls, 0);
}

// A caller's job system in Box2D v3's shape: one std::thread per range, joined by finish.
struct ThreadPerRange {
  static void* enqueue(TaskSystem::Task task, std::uint32_t items, std::uint32_t, void* context, void*) {
    auto* threads = new std::vector<std::thread>;
    for (std::uint32_t i = 0; i < items; ++i) {
      threads->emplace_back([=] { task(i, i + 1, i, context); });
    }
    return threads;
  }
  static void finish(void* handle, void*) {
    auto* threads = static_cast<std::vector<std::thread>*>(handle);
    for (std::thread& t : *threads) t.join();
    delete threads;
  }
};

// A job system that runs every range serially, last first, before returning (and so returns nullptr).
void* reversed_serial(TaskSystem::Task task, std::uint32_t items, std::uint32_t, void* context, void*) {
  for (std::uint32_t i = items; i > 0; --i) task(i - 1, i, 0, context);
  return nullptr;
}

std::vector<TaskSystem> task_systems(std::vector<std::unique_ptr<ThreadPool>>& pools) {
  std::vector<TaskSystem> systems;
  for (std::uint32_t n = 1; n <= 8; ++n) {
    pools.push_back(*ThreadPool::create(n));
    systems.push_back(pools.back()->tasks());
  }
  systems.push_back({.workers = 5, .enqueue = &ThreadPerRange::enqueue, .finish = &ThreadPerRange::finish});
  systems.push_back({.workers = 3, .enqueue = &reversed_serial, .finish = &ThreadPerRange::finish});
  return systems;
}

TEST(EveryCore, B15_OneToEightThreadsAndAJobSystemGiveTheSerialResult) {
  std::vector<std::unique_ptr<ThreadPool>> pools;
  const std::vector<TaskSystem> systems = task_systems(pools);
  // 40,000 boxes: registration and the membership sort split too (from 4,096 boxes and 16,384 words);
  // that world is judged under one policy and without the budget variants (seconds under sanitizers).
  const std::vector<Box2> worlds[] = {seed_exhaustive_set(), world(5000, 15, 150), world(40000, 16, 400), world(3, 1, 10), {}};
  for (const std::vector<Box2>& boxes : worlds) {
    const bool big = boxes.size() > 10000;
    for (const Oversize policy : {Oversize::kReject, Oversize::kCoarserLevels}) {
      if (big && policy == Oversize::kReject) continue;
      GridConfig c = config(2);
      c.oversize = policy;
      c.max_cells_per_box = *lwc::CellBudget::create(policy == Oversize::kReject ? 4096 : 16);
      const absl::StatusOr<PairsResult> reference = lwc::find_pairs(boxes, c);
      for (const TaskSystem& tasks : systems) {
        expect_identical(reference, lwc::find_pairs(boxes, c, tasks), "B15 thread-count equivalence");
        if (!reference.ok() || reference->pairs.empty() || big) continue;
        // Every budget just below the need: the same error whatever the split.
        GridConfig tight = c;
        tight.max_pairs = *lwc::PairBudget::create(static_cast<std::int64_t>(reference->pairs.size()) - 1);
        expect_identical(lwc::find_pairs(boxes, tight), lwc::find_pairs(boxes, tight, tasks), "B15 budget");
        std::vector<Pair> out(reference->pairs.size() - 1);
        const absl::StatusOr<lwc::Stats> into = lwc::find_pairs_into(BoxView<2, double>(boxes), c, out, tasks);
        EXPECT_EQ(into.status().code(), absl::StatusCode::kResourceExhausted);
      }
    }
  }
}

TEST(EveryCore, B15_ThreeDimensionsAndFloatsInParallel) {
  std::vector<std::unique_ptr<ThreadPool>> pools;
  const std::vector<TaskSystem> systems = task_systems(pools);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> at(-15, 15);
  std::vector<FloatBox<3>> floats;
  for (int i = 0; i < 3000; ++i) {
    const float x = at(rng), y = at(rng), z = at(rng);
    floats.push_back({{x, y, z}, {x + 1.5F, y + 1.25F, z + (i % 50 == 0 ? 30.0F : 1.0F)}});
  }
  const absl::StatusOr<PairsResult> reference = lwc::find_pairs(BoxView<3, float>(floats), config(1));
  ASSERT_TRUE(reference.ok()) << reference.status();
  EXPECT_GT(reference->pairs.size(), 500U);
  for (const TaskSystem& tasks : systems) {
    expect_identical(reference, lwc::find_pairs(BoxView<3, float>(floats), config(1), tasks), "B15 3D floats");
  }
}

TEST(EveryCore, B15_UnusableTaskSystemsAndPoolsAreInvalidArgument) {
  const std::vector<Box2> boxes = {box(0, 0, 1, 1)};
  EXPECT_EQ(lwc::find_pairs(boxes, config(1), TaskSystem{.workers = 0}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(lwc::find_pairs(boxes, config(1), TaskSystem{.workers = 2}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(lwc::find_pairs(boxes, config(1), TaskSystem{.workers = 257}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ThreadPool::create(0).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ThreadPool::create(257).status().code(), absl::StatusCode::kInvalidArgument);
  // One pool, many calls in a row (the workers sleep and wake between them).
  absl::StatusOr<std::unique_ptr<ThreadPool>> pool = ThreadPool::create(4);
  ASSERT_TRUE(pool.ok());
  EXPECT_EQ((*pool)->threads(), 4u);
  EXPECT_EQ((*pool)->tasks().workers, 4u);
  const std::vector<Box2> w = world(2000, 3, 80);
  const absl::StatusOr<PairsResult> reference = lwc::find_pairs(w, config(2));
  for (int i = 0; i < 50; ++i) expect_identical(reference, lwc::find_pairs(w, config(2), (*pool)->tasks()), "B15 reuse");
}

// Messages (issue 29): an error names what the caller gave — the box's index in its span for the batch
// calls, the call and the handle for the persistent grid, "query" for a query — writes each float once
// in its shortest decimal (the exact hex beside it where two close values are compared), and says the
// real cause.
TEST(Messages, ABatchErrorNamesTheBoxIndexAndItsBoundsInShortestDecimal) {
  const absl::StatusOr<PairsResult> nan = lwc::find_pairs(std::vector<Box2>{box(0, 0, 1, 1), box(0.1, 0, kInf, 1)}, config(1));
  EXPECT_EQ(nan.status().message(), "box 1: bound on axis 0 is not finite (min 0.1, max inf) (B6)");
  const absl::StatusOr<PairsResult> order = lwc::find_pairs(std::vector<Box2>{box(0, 1, 1, 0.9999999999999999)}, config(1));
  EXPECT_EQ(order.status().message(), "box 0: min 1 (0x1p+0) > max 0.9999999999999999 (0x1.fffffffffffffp-1) on axis 1 (B6)");
  const absl::StatusOr<PairsResult> far = lwc::find_pairs(std::vector<Box2>{box(0, 0, 1, 1), box(0, 0, 1e300, 1)}, config(2));
  EXPECT_EQ(far.status().message(), "box 1: max 1e+300 on axis 0 is in cell floor(1e+300 / 2), outside int64 (B6)");
  const absl::StatusOr<PairsResult> wide = lwc::find_pairs(std::vector<Box2>{box(0, 0, 99.5, 99.5)}, config(0.5));
  EXPECT_EQ(wide.status().message(), "box 0: spans 40000 cells at cell size 0.5, more than max_cells_per_box = 4096 (B7)");
}

TEST(Messages, APersistentErrorNamesTheCallAndTheHandleNotASlot) {
  lwc::PersistentGrid<2> grid = *lwc::PersistentGrid<2>::create(config(1));
  std::vector<lwc::Handle> handles;
  for (int i = 0; i < 10000; ++i) handles.push_back(*grid.insert(box(i, 0, i + 0.5, 0.5)));
  ASSERT_TRUE(grid.update().ok());
  const absl::StatusOr<lwc::Handle> bad = grid.insert(box(0, 0, kNaN, 1));
  EXPECT_EQ(bad.status().message(), "insert: bound on axis 0 is not finite (min 0, max nan) (B6)");
  const lwc::Handle h = handles[7];
  EXPECT_EQ(grid.move(h, box(2, 0, 1, 1)).message(),
            absl::StrCat("move #", h.slot, ".", h.generation, ": min 2 (0x1p+1) > max 1 (0x1p+0) on axis 0 (B6)"));
  ASSERT_TRUE(grid.remove(h).ok());
  EXPECT_EQ(grid.remove(h).message(),
            absl::StrCat("remove: handle #", h.slot, ".", h.generation, " names no live box (removed, stale or never issued) (E3)"));
  const absl::Status query = grid.query(box(0, 0, -kInf, 1), [](lwc::Handle, lwc::UserData) { return true; });
  EXPECT_EQ(query.message(), "query: bound on axis 0 is not finite (min 0, max -inf) (B6)");
  const lwc::Grid<2> batch = *lwc::Grid<2>::create({box(0, 0, 1, 1)}, config(1));
  EXPECT_EQ(batch.query(box(1, 0, 0, 1)).status().message(), "query: min 1 (0x1p+0) > max 0 (0x0p+0) on axis 0 (B6)");
}

TEST(Messages, ARayBetweenFiniteEndsWhoseLengthOverflowsSaysSo) {
  lwc::PersistentGrid<2> grid = *lwc::PersistentGrid<2>::create(config(1));
  const auto none = [](lwc::Handle, lwc::UserData, double) { return true; };
  EXPECT_EQ(grid.raycast({{-1e308, 0}, {1e308, 0}}, none).message(),
            "raycast: the segment's length on axis 0, to - from = 1e+308 - -1e+308, overflows the doubles (E9)");
  EXPECT_EQ(grid.raycast({{0, kNaN}, {1, 0}}, none).message(),
            "raycast: the segment's from on axis 1 is not finite (from nan to 0) (E9)");
}

}  // namespace
