// SPDX-License-Identifier: MIT
// File: examples/origin/main.cc
//
// A floating origin in an engine's frame loop (docs/rebase.md, R1-R13), with only the public API. The
// authoritative position of the player is an integer world point in centimetres, 2^50 cm (about 11 million
// km) east of the world's origin, where a float has an ulp of 128 km; the camera renders in metres around
// an origin cell that moves only by a plan and a commit:
//
//   1. plan: each frame, inside the simulation step, the camera decides whether to rebase onto the
//      player's cell (two cells away or more);
//   2. barrier: a plan is refused (FailedPrecondition) while a cell around its target is not loaded; the
//      engine asks its streaming system for exactly those cells, which arrive the next frame;
//   3. commit: at the frame boundary, outside the step, the plan commits; render coordinates are then
//      re-derived from the authoritative positions, never shifted;
//   4. late results: a terrain build and a baked decal start near the player; several rebases later the
//      terrain is placed through its world anchor, exactly where to_render puts that anchor now, and the
//      decal, baked in an older render frame, is refused.
//
// The program checks each of these and exits non-zero if any fails, so it runs as a test in every
// preset, the `engine` one (-fno-exceptions -fno-rtti) included. docs/rebase.md quotes the loop below
// (scripts/api.py keeps the quote equal to this file).
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

import lwc;

namespace {

int failures = 0;

void expect(bool ok, const char* what) {
  if (!ok) {
    std::printf("FAILED: %s\n", what);
    ++failures;
  }
}

}  // namespace

int main() {
  // quote: setup
  // Cells of 1024 world units (centimetres: 10.24 m); the camera renders in metres and rebases when the
  // player is two cells from its origin, once the 3 x 3 cells around the new origin are loaded.
  absl::StatusOr<lwc::WorldGrid> grid = lwc::WorldGrid::create(lwc::ChunkSize::of<1024>());
  if (!grid.ok()) return 1;
  const lwc::ViewConfig config{.threshold_cells = lwc::ThresholdCells::of<2>(), .barrier_radius = lwc::BarrierRadius::of<1>(), .units_per_render_unit = lwc::UnitsPerRenderUnit::of<100>()};
  lwc::FixedPoint<2> player{.units = {std::int64_t{1} << 50, -3'000}};
  const lwc::WorldPosition<2> start = grid->from_fixed(player);
  absl::StatusOr<lwc::OriginCoordinator<2>> camera =
      lwc::OriginCoordinator<2>::create(*grid, config, start.cell);
  if (!camera.ok()) {
    std::printf("create: %s\n", camera.status().ToString().c_str());
    return 1;
  }
  for (const lwc::CellIndex<2>& c : camera->missing_cells(start.cell)) camera->load(c);
  // end quote: setup

  std::vector<lwc::CellIndex<2>> arriving;  // what the streaming system delivers at the next frame
  lwc::LateResult<2> terrain{}, decal{};
  absl::StatusOr<lwc::RenderPoint<2>> placed = absl::UnknownError("not finished");
  absl::StatusOr<lwc::RenderPoint<2>> stale = absl::UnknownError("not finished");
  int refused = 0, rebases = 0, refused_then_committed = 0;
  bool refused_last_frame = false;

  for (int frame = 0; frame < 40; ++frame) {
    // quote: frame-loop
    for (const lwc::CellIndex<2>& c : arriving) camera->load(c);  // streamed in since the last frame
    arriving.clear();

    // The simulation step: the authoritative position moves 3 m east; the camera plans (never commits)
    // inside it.
    if (!camera->begin_step().ok()) return 1;
    player.units[0] += 300;
    const lwc::WorldPosition<2> observer = grid->from_fixed(player);
    absl::StatusOr<std::optional<lwc::RebasePlan<2>>> plan = camera->plan(observer);
    if (!camera->end_step().ok()) return 1;

    // The frame boundary: commit the plan, or ask for the cells its barrier misses (R6).
    if (!plan.ok()) {
      if (plan.status().code() != absl::StatusCode::kFailedPrecondition) return 1;
      arriving = camera->missing_cells(observer.cell);
      ++refused;
    } else if (plan->has_value()) {
      absl::StatusOr<lwc::Rebased<2>> done = camera->commit(**plan);
      if (!done.ok()) {
        std::printf("commit: %s\n", done.status().ToString().c_str());
        return 1;
      }
      ++rebases;
    }

    // Render coordinates come from the authoritative position under the current origin (R4).
    absl::StatusOr<lwc::RenderPoint<2>> seen = camera->to_render(observer);
    if (!seen.ok()) return 1;
    // end quote: frame-loop

    if (refused_last_frame && plan.ok() && plan->has_value()) ++refused_then_committed;
    refused_last_frame = !plan.ok();
    // Near the origin, whatever the world coordinate: within threshold + 1 cells, in metres.
    expect(std::fabs(seen->at[0]) <= 3 * 10.24f && std::fabs(seen->at[1]) <= 3 * 10.24f,
           "the player renders near the origin");

    // quote: late
    if (frame == 5) {  // asynchronous builds start, anchored 50 m ahead of the player
      const lwc::FixedPoint<2> ahead{.units = {player.units[0] + 5'000, player.units[1]}};
      const lwc::WorldPosition<2> site = grid->from_fixed(ahead);
      terrain = camera->start_late(site, lwc::LatePlacement::kRelocatable);
      decal = camera->start_late(site, lwc::LatePlacement::kBakedLocal);
    }
    if (frame == 35) {  // they finish several rebases later
      placed = camera->place_late(terrain);  // through its world anchor, under today's origin (R9)
      stale = camera->place_late(decal);     // Aborted: its coordinates are in an older render frame
    }
    // end quote: late
    if (frame == 35) {
      absl::StatusOr<lwc::RenderPoint<2>> now = camera->to_render(terrain.anchor);
      expect(camera->version() > terrain.started_version, "the builds outlive at least one rebase");
      expect(placed.ok() && now.ok() && *placed == *now,
             "a late relocatable result lands exactly where to_render puts its anchor now");
      expect(!stale.ok() && stale.status().code() == absl::StatusCode::kAborted,
             "a late result baked in an older render frame is refused");
    }
  }

  expect(refused >= 1, "the barrier refuses a plan while cells around its target are missing");
  expect(refused_then_committed >= 1, "a refused plan commits once the missing cells have arrived");
  expect(rebases >= 3 && camera->version() == static_cast<std::uint64_t>(rebases),
         "every commit moves the origin and its version");
  std::printf("origin: %d rebases, %d refused by the barrier, origin cell (%lld, %lld), version %llu: %s\n",
              rebases, refused, static_cast<long long>(camera->origin()[0]),
              static_cast<long long>(camera->origin()[1]), static_cast<unsigned long long>(camera->version()),
              failures == 0 ? "ok" : "FAILED");
  return failures == 0 ? 0 : 1;
}
