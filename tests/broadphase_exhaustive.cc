// SPDX-License-Identifier: MIT
// File: tests/broadphase_exhaustive.cc
//
// Bounded exhaustive evidence for lwc.broadphase: EVERY box on a small lattice, at every cell size of a
// list and under both oversize policies, against the brute-force oracle of lwc.contracts.broadphase:
// every pair of the set, at every size.
//
// The scopes: - 2D, the centre-cell spatial-hash example's set: x, y in {-2, -1.5, ..., 2}, width and height
// in {0, 1, 2}: 729 boxes, 265,356
//   pairs (boxes touching at an edge or a corner, zero-area boxes, negative coordinates, boundaries on
//   and off cell boundaries);
// - 3D: on each axis [a, a + w] with a in {-1, -0.5, 0} and w in {0, 0.5, 1.5}: 729 boxes, 265,356 pairs.
// The cell sizes: 0.1, 0.25, 0.3, 0.5, 1, 1.5, 2, 3, 4, 1000 (powers of two and not, smaller and larger
// than the boxes); the policies: kReject, and kCoarserLevels with the smallest cell budget it accepts
// (4^D), which sends every box more than a few cells wide to a coarser level (B11).
// At each (scope, size, policy): find_pairs judged by check_find_pairs (B1-B4 every pair, B12 exact
// stats), its pairs equal to those at the first size (B5), every box's placement by check_placement (B8,
// B11) and its corners and centre by check_covers (B8), every overlapping pair's reference cell by
// check_reference_cell (B9, level-0 boxes), and a Grid query with every box of the set as the probe by
// check_query (B10). docs/broadphase.md ("Exhaustive evidence") gives the scope and what it shows.
//
// Each test prints "[lwc-exhaustive] broadphase <clause> cases=<n>" per clause (pairs for the pair
// clauses, boxes for the per-box ones, summed over sizes and policies); `./lwc audit` shows the sums in
// its "exhaustive" column. CTest runs the Quick part (smaller lattices); the audit runs the binary whole.
#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "support/exhaustive.h"

import lwc.broadphase;
import lwc.contracts.broadphase;

namespace {

using lwc::Box;
using lwc::GridConfig;
using lwc::Oversize;
using lwc::Pair;
using lwc::PairsResult;

void report(const char* clause, std::uint64_t cases) { lwc::exhaustive::report("broadphase", clause, cases); }

// Every box whose interval on each axis is [a, a + w], a from `starts` and w from `widths`.
template <std::size_t D>
std::vector<Box<D>> lattice(std::span<const double> starts, std::span<const double> widths) {
  std::vector<Box<D>> boxes;
  const std::size_t per_axis = starts.size() * widths.size();
  std::size_t total = 1;
  for (std::size_t k = 0; k < D; ++k) total *= per_axis;
  for (std::size_t i = 0; i < total; ++i) {
    Box<D> b{};
    std::size_t rest = i;
    for (std::size_t k = 0; k < D; ++k) {
      const std::size_t axis = rest % per_axis;
      rest /= per_axis;
      b.min[k] = starts[axis / widths.size()];
      b.max[k] = b.min[k] + widths[axis % widths.size()];
    }
    boxes.push_back(b);
  }
  return boxes;
}

std::vector<Box<2>> seed_set() {
  std::vector<double> starts;
  for (int i = -4; i <= 4; ++i) starts.push_back(i / 2.0);
  const double widths[] = {0, 1, 2};
  return lattice<2>(starts, widths);
}

std::vector<Box<3>> set_3d() {
  const double starts[] = {-1, -0.5, 0};
  const double widths[] = {0, 0.5, 1.5};
  return lattice<3>(starts, widths);
}

struct Tally {
  std::uint64_t pairs = 0;   // pairs judged (B1-B5, B9)
  std::uint64_t boxes = 0;   // boxes judged (B8, B10, B11)
  std::uint64_t failures = 0;
};

// The pairs of the first (size, policy) judged, for B5.
struct Reference {
  double h = 0;
  std::vector<Pair> pairs;
};

// Judges everything at one (set, size, policy).
template <std::size_t D>
void judge(const std::vector<Box<D>>& boxes, double h, Oversize policy, Reference& reference, Tally& t) {
  GridConfig config;
  config.cell_size = *lwc::CellSize::create(h);
  config.oversize = policy;
  if (policy == Oversize::kCoarserLevels) config.max_cells_per_box = *lwc::CellBudget::create(D == 2 ? 16 : 64);
  const auto fail = [&](const absl::Status& s) {
    if (!s.ok() && ++t.failures <= 5) ADD_FAILURE() << D << "D, h = " << h << ": " << s;
  };
  const std::span<const Box<D>> all(boxes);
  const absl::StatusOr<PairsResult> got = lwc::find_pairs(all, config);
  fail(lwc::contracts::check_find_pairs<D>(all, config, got));  // B1-B4, B12
  if (!got.ok()) return;
  if (reference.h == 0) reference = {h, got->pairs};
  fail(lwc::contracts::check_same_pairs(reference.h, reference.pairs, h, got->pairs));  // B5
  t.pairs += boxes.size() * (boxes.size() - 1) / 2;

  const absl::StatusOr<lwc::GridSpec<D>> spec = lwc::GridSpec<D>::create(config);
  ASSERT_TRUE(spec.ok()) << spec.status();
  std::vector<absl::StatusOr<lwc::Placement<D>>> placed;
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    placed.push_back(spec->place(boxes[i], i));
    fail(lwc::contracts::check_placement<D>(boxes[i], config, placed.back()));  // B8, B11
    if (!placed.back().ok() || placed.back()->level != 0) continue;
    // Every corner and the centre: each in the registered cells (B8).
    for (std::size_t corner = 0; corner <= (std::size_t{1} << D); ++corner) {
      std::array<double, D> p{};
      for (std::size_t k = 0; k < D; ++k) {
        p[k] = corner == (std::size_t{1} << D) ? (boxes[i].min[k] + boxes[i].max[k]) / 2
                                                : ((corner >> k) & 1 ? boxes[i].max[k] : boxes[i].min[k]);
      }
      fail(lwc::contracts::check_covers<D>(boxes[i], h, placed.back()->cells, p));
    }
  }
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    for (std::size_t j = i + 1; j < boxes.size(); ++j) {
      if (!placed[i].ok() || !placed[j].ok() || placed[i]->level != 0 || placed[j]->level != 0) continue;
      fail(lwc::contracts::check_reference_cell<D>(boxes[i], boxes[j], h, placed[i]->cells, placed[j]->cells));  // B9
    }
  }

  const absl::StatusOr<lwc::Grid<D>> grid = lwc::Grid<D>::create(boxes, config);
  ASSERT_TRUE(grid.ok()) << grid.status();
  for (const Box<D>& probe : boxes) {
    const absl::StatusOr<std::vector<std::uint32_t>> hits = grid->query(probe);
    ASSERT_TRUE(hits.ok()) << hits.status();
    fail(lwc::contracts::check_query<D>(all, probe, *hits));  // B10
  }
  t.boxes += boxes.size();
}

template <std::size_t D>
Tally judge_sizes(const std::vector<Box<D>>& boxes, std::span<const double> sizes) {
  Tally t;
  Reference reference;
  for (const Oversize policy : {Oversize::kReject, Oversize::kCoarserLevels}) {
    for (const double h : sizes) judge<D>(boxes, h, policy, reference, t);
  }
  return t;
}

void report_all(const Tally& t) {
  EXPECT_EQ(t.failures, 0u);
  for (const char* clause : {"B1", "B2", "B3", "B4", "B5", "B9", "B12"}) report(clause, t.pairs);
  for (const char* clause : {"B8", "B10", "B11"}) report(clause, t.boxes);
}

constexpr double kSizes[] = {0.1, 0.25, 0.3, 0.5, 1, 1.5, 2, 3, 4, 1000};
constexpr double kQuickSizes[] = {0.3, 2};

// The quick scopes, for every `./lwc test` (seconds under ASan): the same lattices, coarser. 2D: x, y in
// {-1, -0.5, 0, 0.5}, width and height in {0, 1} (64 boxes); 3D: on each axis a in {-0.5, 0}, w in {0, 1}
// (64 boxes). Sizes 0.3 and 2 (below and above the width of the boxes), both policies.
std::vector<Box<2>> quick_2d() {
  const double starts[] = {-1, -0.5, 0, 0.5};
  const double widths[] = {0, 1};
  return lattice<2>(starts, widths);
}
std::vector<Box<3>> quick_3d() {
  const double starts[] = {-0.5, 0};
  const double widths[] = {0, 1};
  return lattice<3>(starts, widths);
}

TEST(ExhaustiveBroadphaseQuick, B1_B12_Lattice2dTwoSizes) { report_all(judge_sizes<2>(quick_2d(), kQuickSizes)); }

TEST(ExhaustiveBroadphaseQuick, B1_B12_Lattice3dTwoSizes) { report_all(judge_sizes<3>(quick_3d(), kQuickSizes)); }

// The centre-cell spatial-hash example's 729 boxes and the 3D lattice of 729, at every size: the audit's run.
TEST(ExhaustiveBroadphase, B1_B12_SeedSetEverySize) { report_all(judge_sizes<2>(seed_set(), kSizes)); }

TEST(ExhaustiveBroadphase, B1_B12_Lattice3dEverySize) { report_all(judge_sizes<3>(set_3d(), kSizes)); }

}  // namespace
