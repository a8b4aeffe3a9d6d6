// SPDX-License-Identifier: MIT
// File: tests/consumer/second_unit.cc
//
// The header build's second translation unit: it includes the same lwc headers as main.cc and uses the
// same inline functions (split, check_split), so the program links only if the headers keep the one
// definition rule; it also runs one call of every contract, each audited by its checker.
#include <cstdint>
#include <cstdio>
#include <optional>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lwc/contracts/broadphase.h"
#include "lwc/contracts/commit.h"
#include "lwc/contracts/cover.h"
#include "lwc/contracts/decompose.h"
#include "lwc/contracts/rebase.h"
#include "lwc/lwc.h"

namespace {

bool expect(bool ok, const char* what) {
  if (!ok) std::fprintf(stderr, "consumer (second unit): FAILED: %s\n", what);
  return ok;
}

}  // namespace

bool second_unit_ok() {
  constexpr lwc::ChunkSize kChunk = lwc::ChunkSize::of<1000>();
  bool ok = true;

  // lwc.decompose: the same calls as main.cc (one definition in the program), and the batch.
  const lwc::ChunkPoint p = lwc::split(-1, kChunk);
  ok &= expect(lwc::contracts::check_split(-1, 1000, p.chunk, p.local).ok(), "split (D1-D4)");
  const std::vector<std::int64_t> xs = {INT64_MIN, -1001, -1, 0, 999, INT64_MAX};
  std::vector<lwc::ChunkPoint> points(xs.size());
  ok &= expect(lwc::split_all(xs, kChunk, points).ok() &&
                   lwc::contracts::check_split_batch(xs, 1000, points).ok(),
               "split_all (D11)");

  // lwc.cover: [-1000, 1) is chunks -1 and 0.
  const absl::StatusOr<std::optional<lwc::ChunkSpan>> span = lwc::cover(-1000, 1, kChunk);
  ok &= expect(lwc::contracts::check_cover(-1000, 1, 1000, lwc::contracts::answer_of(span)).ok() &&
                   span.ok() && span->has_value() && (*span)->first() == -1 && (*span)->last() == 0,
               "cover (C1-C4)");

  // lwc.broadphase: three unit boxes in a row, the middle one touching both others.
  const std::vector<lwc::Box2> boxes = {{{0.0, 0.0}, {1.0, 1.0}}, {{1.0, 0.0}, {2.0, 1.0}}, {{2.0, 0.0}, {3.0, 1.0}}};
  const absl::StatusOr<lwc::PairsResult> pairs =
      lwc::find_pairs(std::span<const lwc::Box2>(boxes), lwc::GridConfig{.cell_size = lwc::CellSize::of<1.0>()});
  ok &= expect(pairs.ok() && pairs->pairs.size() == 2 &&
                   lwc::contracts::check_pairs(std::span<const lwc::Box2>(boxes), pairs->pairs).ok(),
               "find_pairs (B1-B4)");

  // lwc.commit: the runs of a dirty set.
  const std::vector<lwc::Point2> dirty = {{0, 0}, {1, 0}, {0, 1}, {1, 0}};
  const std::vector<lwc::ChunkRun> runs = lwc::merge_runs(dirty);
  ok &= expect(runs.size() == 2 && lwc::contracts::check_runs(dirty, runs).ok(), "merge_runs (T3)");

  // lwc.rebase: a position at the far end of int64 rendered next to the origin of its cell.
  const absl::StatusOr<lwc::WorldGrid> grid = lwc::WorldGrid::create(kChunk);
  if (!expect(grid.ok(), "WorldGrid::create")) return false;
  const lwc::WorldPosition<2> at = grid->from_fixed(lwc::FixedPoint<2>{{INT64_MAX - 10, -5}});
  const absl::StatusOr<lwc::OriginCoordinator<2>> view = lwc::OriginCoordinator<2>::create(
      *grid, lwc::ViewConfig{.threshold_cells = lwc::ThresholdCells::of<2>(), .barrier_radius = lwc::BarrierRadius::of<1>(), .units_per_render_unit = lwc::UnitsPerRenderUnit::of<1>()}, at.cell);
  if (!expect(view.ok(), "OriginCoordinator::create")) return false;
  const absl::StatusOr<lwc::RenderPoint<2>> render = view->to_render(at);
  ok &= expect(render.ok() &&
                   lwc::contracts::check_render(lwc::contracts::spec_of(*view), view->origin(), view->version(),
                                                at, render)
                       .ok(),
               "to_render (R4, R5)");
  return ok;
}
