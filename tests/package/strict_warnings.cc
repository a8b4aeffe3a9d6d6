// SPDX-License-Identifier: MIT
// File: tests/package/strict_warnings.cc
//
// The header build under a strict caller's warnings (issue 29): `./lwc package` compiles this one
// translation unit by hand, not through CMake, so lwc's headers are ordinary includes and not system
// headers, with -Wall -Wextra -Wshadow -Wconversion -Wsign-conversion -Werror, with g++-12 and clang++-19
// (`$(pkg-config --cflags --libs lwc)`), then runs it. Warnings in templates appear only where they are
// instantiated, so it runs one frame of each contract as an engine would, in 2-D and 3-D, the checkers
// included, and exits non-zero if an answer is wrong.
#include <array>
#include <cstdint>
#include <cstdio>
#include <memory>
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

int failures = 0;

void expect(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "strict_warnings: FAILED: %s\n", what);
  ++failures;
}

void decompose_and_cover() {
  constexpr lwc::ChunkSize kChunk = lwc::ChunkSize::of<1000>();
  const std::vector<std::int64_t> xs = {INT64_MIN, -1001, -1, 0, 999, INT64_MAX};
  std::vector<lwc::ChunkPoint> points(xs.size());
  expect(lwc::split_all(xs, kChunk, points).ok() && lwc::contracts::check_split_batch(xs, 1000, points).ok(),
         "split_all (D11)");
  const std::vector<double> vs = {-1e-300, -0.0, 0.5, 7.25};
  std::vector<std::int64_t> cells(vs.size());
  expect(lwc::cell_of_all(vs, *lwc::CellSize::create(0.5), cells).ok() && cells[0] == -1, "cell_of_all (D9, D11)");
  const lwc::ChunkPoint3 p = lwc::split(lwc::Point3{-1, 0, 1}, kChunk);
  expect(p.chunk.x == -1 && p.local.x == 999, "split 3-D (D8)");

  const absl::StatusOr<std::optional<lwc::ChunkSpan>> span = lwc::cover(-1000, 1, kChunk);
  expect(lwc::contracts::check_cover(-1000, 1, 1000, lwc::contracts::answer_of(span)).ok(), "cover (C1-C4)");
  const absl::StatusOr<std::optional<lwc::ChunkBox3>> box = lwc::cover_closed(lwc::Point3{-1, -1, -1}, lwc::Point3{1, 1, 1}, kChunk);
  std::uint64_t visited = 0;
  if (box.ok() && box->has_value()) {
    expect(lwc::for_each_chunk(**box, lwc::ChunkBudget::of<64>(), [&](lwc::Point3) { ++visited; }).ok(), "for_each_chunk");
  }
  expect(visited == 8, "a 3-D box around the origin covers 8 chunks (C9)");
}

template <std::size_t D>
void broad_phase() {
  std::vector<lwc::Box<D>> boxes(3);
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    for (std::size_t k = 0; k < D; ++k) {
      boxes[i].min[k] = static_cast<double>(i);
      boxes[i].max[k] = static_cast<double>(i) + 1.0;  // each box touches the next on a corner
    }
  }
  const lwc::GridConfig config{.cell_size = lwc::CellSize::of<1.0>()};
  const absl::StatusOr<lwc::PairsResult> serial = lwc::find_pairs(std::span<const lwc::Box<D>>(boxes), config);
  expect(serial.ok() && serial->pairs.size() == 2 &&
             lwc::contracts::check_pairs(std::span<const lwc::Box<D>>(boxes), serial->pairs).ok(),
         "find_pairs (B1-B4)");
  absl::StatusOr<std::unique_ptr<lwc::ThreadPool>> pool = lwc::ThreadPool::create(2);
  if (pool.ok()) {
    const absl::StatusOr<lwc::PairsResult> parallel =
        lwc::find_pairs(std::span<const lwc::Box<D>>(boxes), config, (*pool)->tasks());
    expect(parallel.ok() && serial.ok() && parallel->pairs == serial->pairs, "find_pairs on 2 threads (B15)");
  }
  std::vector<lwc::FloatBox<D>> floats(boxes.size());
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    for (std::size_t k = 0; k < D; ++k) {
      floats[i].min[k] = static_cast<float>(boxes[i].min[k]);
      floats[i].max[k] = static_cast<float>(boxes[i].max[k]);
    }
  }
  const lwc::BoxView<D, float> view = lwc::BoxView<D, float>(std::span<const lwc::FloatBox<D>>(floats));
  const absl::StatusOr<lwc::PairsResult> from_floats = lwc::find_pairs(view, config);
  expect(from_floats.ok() && serial.ok() && from_floats->pairs == serial->pairs, "find_pairs on floats (B13)");

  // The persistent grid as an engine drives it: payloads, a filter, a move, events, a query, a ray.
  absl::StatusOr<lwc::PersistentGrid<D>> grid = lwc::PersistentGrid<D>::create(config);
  if (!grid.ok()) return expect(false, "PersistentGrid::create");
  std::vector<lwc::Handle> handles;
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    const absl::StatusOr<lwc::Handle> h = grid->insert(boxes[i], lwc::UserData{100 + i}, lwc::Filter{});
    if (h.ok()) handles.push_back(*h);
  }
  lwc::ContactEvents events;
  expect(handles.size() == 3 && grid->update_into(events).ok() && events.began.size() == 2, "insert + update (E1)");
  lwc::Box<D> far = boxes[2];
  for (std::size_t k = 0; k < D; ++k) {
    far.min[k] += 10.0;
    far.max[k] += 10.0;
  }
  expect(grid->move(handles[2], far, lwc::Motion::kSwept).ok() && grid->update_into(events).ok() &&
             events.ended.size() == 1,
         "move + update (E1)");
  std::uint64_t hits = 0;
  expect(grid->query(boxes[0], [&](lwc::Handle, lwc::UserData) { return ++hits < 10; }).ok() && hits == 2,
         "query (B10, E11)");
  lwc::Segment<D> ray{};
  ray.to.fill(2.5);
  std::uint64_t crossed = 0;
  expect(grid->raycast(ray, [&](lwc::Handle, lwc::UserData, double) { return ++crossed < 10; }).ok() && crossed == 2,
         "raycast (E9)");
}

void rebase() {
  const absl::StatusOr<lwc::WorldGrid> grid = lwc::WorldGrid::create(lwc::ChunkSize::of<1024>());
  if (!grid.ok()) return expect(false, "WorldGrid::create");
  const lwc::WorldPosition<3> at = grid->from_fixed(lwc::FixedPoint<3>{{INT64_MAX - 10, -5, 7}});
  absl::StatusOr<lwc::OriginCoordinator<3>> view = lwc::OriginCoordinator<3>::create(
      *grid, lwc::ViewConfig{.threshold_cells = lwc::ThresholdCells::of<2>(), .barrier_radius = lwc::BarrierRadius::of<1>(), .units_per_render_unit = lwc::UnitsPerRenderUnit::of<1>()}, at.cell);
  if (!view.ok()) return expect(false, "OriginCoordinator::create");
  const absl::StatusOr<lwc::RenderPoint<3>> render = view->to_render(at);
  expect(render.ok() && lwc::contracts::check_render(lwc::contracts::spec_of(*view), view->origin(), view->version(),
                                                      at, render)
                            .ok(),
         "to_render (R4, R5)");
  const absl::StatusOr<lwc::LateResult<3>> late = view->start_late(at, lwc::LatePlacement::kRelocatable);
  if (late.ok()) expect(view->place_late(*late).ok(), "place_late (R9)");
}

struct Baked {
  std::uint64_t chunks;
};

void commit() {
  lwc::Committer<Baked> terrain(lwc::ChunkSize::of<16>());
  for (std::int64_t x = -20; x <= 20; x += 4) terrain.mark({x, -1});
  const absl::StatusOr<lwc::CommitReport> report =
      terrain.commit([](const lwc::ChunkRun& run) -> absl::StatusOr<Baked> { return Baked{run.size()}; });
  expect(report.ok() && terrain.pending_chunks() == 0, "commit (T4, T5)");
  const std::vector<lwc::Point2> dirty = {{0, 0}, {1, 0}, {0, 1}};
  expect(lwc::contracts::check_runs(dirty, lwc::merge_runs(dirty)).ok(), "merge_runs (T3)");
}

}  // namespace

int main() {
  decompose_and_cover();
  broad_phase<2>();
  broad_phase<3>();
  rebase();
  commit();
  std::printf("strict_warnings: %s\n", failures == 0 ? "ok" : "FAILED");
  return failures == 0 ? 0 : 1;
}
