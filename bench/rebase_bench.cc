// SPDX-License-Identifier: MIT
// File: bench/rebase_bench.cc
//
// to_render throughput against the plan/commit floating-origin example's formula ((cell - origin) * size +
// offset in double, then float: two roundings, no bubble), and the cost of a rebase with 10k and 100k active
// objects — commit plus re-deriving every local position from its anchor — against the late-chunk
// floating-origin example's `local -= shift` in float (which drifts: tests/rebase_test.cc, NoDrift), in the
// same run; and many views at scale (issue 19): 64 views of one world of 100k entities, each view at its
// own origin re-deriving every entity with to_render_all, against the same 64 x 100k conversions with the
// plan/commit example's double formula; and barriers that scale (R16): plan plus commit with the whole
// barrier loaded at radius 1, 4, 16 and 64 in 2-D and 3-D, by rows, against the cell-by-cell scan lwc
// did before (one hash lookup per barrier cell, at plan and again at commit). Medians and ratios only.
#include <benchmark/benchmark.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "bench_main.h"

import lwc.rebase;

namespace {

constexpr std::int64_t kCellSize = 1024;

// Objects within 8 cells of the origin: where a view renders. Offsets are random doubles in the cell.
std::vector<lwc::WorldPosition<3>> anchors(std::size_t n) {
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<std::int64_t> cell(-8, 8);
  std::uniform_real_distribution<double> offset(0.0, static_cast<double>(kCellSize));
  std::vector<lwc::WorldPosition<3>> v(n);
  for (lwc::WorldPosition<3>& p : v) {
    p.cell = {cell(rng), cell(rng), cell(rng)};
    p.offset = {offset(rng), offset(rng), offset(rng)};
  }
  return v;
}

lwc::OriginCoordinator<3> make_view() {
  absl::StatusOr<lwc::OriginCoordinator<3>> v =
      lwc::OriginCoordinator<3>::create(*lwc::WorldGrid::create(*lwc::ChunkSize::create(kCellSize)), lwc::ViewConfig{});
  return *std::move(v);
}

void to_render_single_lwc(benchmark::State& state) {
  const std::vector<lwc::WorldPosition<3>> objects = anchors(static_cast<std::size_t>(state.range(0)));
  const lwc::OriginCoordinator<3> view = make_view();
  for (auto _ : state) {
    float acc = 0;
    for (const lwc::WorldPosition<3>& p : objects) {
      const absl::StatusOr<lwc::RenderPoint<3>> r = view.to_render(p);
      acc += r.ok() ? r->at[0] + r->at[1] + r->at[2] : 0.0f;
    }
    benchmark::DoNotOptimize(acc);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void to_render_batch_lwc(benchmark::State& state) {
  const std::vector<lwc::WorldPosition<3>> objects = anchors(static_cast<std::size_t>(state.range(0)));
  const lwc::OriginCoordinator<3> view = make_view();
  std::vector<std::array<float, 3>> locals(objects.size());
  for (auto _ : state) {
    benchmark::DoNotOptimize(view.to_render_all(objects, locals));
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

// The frame of the oriented benchmarks (R17): a 30-degree turn about z.
lwc::Rotation<3> thirty_degrees_about_z() {
  const double c = std::cos(0.5235987755982988);
  const double s = std::sin(0.5235987755982988);
  return lwc::Rotation<3>{{{{c, -s, 0.0}, {s, c, 0.0}, {0.0, 0.0, 1.0}}}};
}

// The seed's toRenderSpace of one object: the world difference in double, with no bubble and no bound.
std::array<double, 3> seed_render_units(const lwc::WorldPosition<3>& p, const std::array<std::int64_t, 3>& origin,
                                        std::int64_t size) {
  std::array<double, 3> x{};
  for (std::size_t a = 0; a < 3; ++a) x[a] = static_cast<double>((p.cell[a] - origin[a]) * size) + p.offset[a];
  return x;
}

// An oriented view (R17): the same objects through a 30-degree turn about z.
void to_render_oriented_lwc(benchmark::State& state) {
  const std::vector<lwc::WorldPosition<3>> objects = anchors(static_cast<std::size_t>(state.range(0)));
  const lwc::OriginCoordinator<3> view = make_view();
  const lwc::Rotation<3> r = thirty_degrees_about_z();
  for (auto _ : state) {
    float acc = 0;
    for (const lwc::WorldPosition<3>& p : objects) {
      const absl::StatusOr<lwc::RenderPoint<3>> out = view.to_render_oriented(p, r);
      acc += out.ok() ? out->at[0] + out->at[1] + out->at[2] : 0.0f;
    }
    benchmark::DoNotOptimize(acc);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

// The same turn for every object in one call: the rotation is checked once.
void to_render_all_oriented_lwc(benchmark::State& state) {
  const std::vector<lwc::WorldPosition<3>> objects = anchors(static_cast<std::size_t>(state.range(0)));
  const lwc::OriginCoordinator<3> view = make_view();
  const lwc::Rotation<3> r = thirty_degrees_about_z();
  std::vector<std::array<float, 3>> locals(objects.size());
  for (auto _ : state) {
    benchmark::DoNotOptimize(view.to_render_all_oriented(objects, r, locals));
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

// The seed's toRenderSpace in double, turned by the same rotation in double, then to float: no bubble,
// no validation, no bound.
void to_render_oriented_seed(benchmark::State& state) {
  const std::vector<lwc::WorldPosition<3>> objects = anchors(static_cast<std::size_t>(state.range(0)));
  std::vector<std::array<float, 3>> locals(objects.size());
  std::array<std::int64_t, 3> origin{};
  std::int64_t size = kCellSize;
  std::array<std::array<double, 3>, 3> r = thirty_degrees_about_z().rows;
  benchmark::DoNotOptimize(origin.data());
  benchmark::DoNotOptimize(size);
  benchmark::DoNotOptimize(r.data());
  for (auto _ : state) {
    for (std::size_t i = 0; i < objects.size(); ++i) {
      const std::array<double, 3> x = seed_render_units(objects[i], origin, size);
      for (std::size_t a = 0; a < 3; ++a) {
        locals[i][a] = static_cast<float>(r[a][0] * x[0] + r[a][1] * x[1] + r[a][2] * x[2]);
      }
    }
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

// The plan/commit floating-origin example's toRenderSpace, in double, then to float for the GPU.
void to_render_seed(benchmark::State& state) {
  const std::vector<lwc::WorldPosition<3>> objects = anchors(static_cast<std::size_t>(state.range(0)));
  std::vector<std::array<float, 3>> locals(objects.size());
  std::array<std::int64_t, 3> origin{};
  std::int64_t size = kCellSize;
  benchmark::DoNotOptimize(origin.data());
  benchmark::DoNotOptimize(size);
  for (auto _ : state) {
    for (std::size_t i = 0; i < objects.size(); ++i) {
      const std::array<double, 3> x = seed_render_units(objects[i], origin, size);
      for (std::size_t a = 0; a < 3; ++a) locals[i][a] = static_cast<float>(x[a]);
    }
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

// One rebase: commit (barrier re-checked) and re-derive every active object's local from its anchor.
// The origin alternates between two cells so every commit is a real move.
void rebase_lwc(benchmark::State& state) {
  const std::vector<lwc::WorldPosition<3>> objects = anchors(static_cast<std::size_t>(state.range(0)));
  lwc::OriginCoordinator<3> view = make_view();
  const std::array<lwc::CellIndex<3>, 2> stops = {lwc::CellIndex<3>{0, 0, 0}, lwc::CellIndex<3>{3, -2, 1}};
  for (const lwc::CellIndex<3>& s : stops) {
    for (const lwc::CellIndex<3>& c : view.missing_cells(s)) view.load(c);
  }
  std::vector<std::array<float, 3>> locals(objects.size());
  std::size_t next = 1;
  for (auto _ : state) {
    const absl::StatusOr<lwc::Rebased<3>> done = view.commit({view.origin(), stops[next], view.version(), view.id()});
    if (!done.ok()) state.SkipWithError("commit failed");
    benchmark::DoNotOptimize(view.to_render_all(objects, locals));
    benchmark::ClobberMemory();
    next ^= 1;
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

// The late-chunk floating-origin example's Rebase: every active local -= the float shift.
void rebase_float_shift(benchmark::State& state) {
  const std::vector<lwc::WorldPosition<3>> objects = anchors(static_cast<std::size_t>(state.range(0)));
  const lwc::OriginCoordinator<3> view = make_view();
  std::vector<std::array<float, 3>> locals(objects.size());
  (void)view.to_render_all(objects, locals);
  std::array<float, 3> shift = {3 * 1024.0f, -2 * 1024.0f, 1024.0f};
  benchmark::DoNotOptimize(shift.data());
  for (auto _ : state) {
    for (std::array<float, 3>& l : locals) {
      for (std::size_t a = 0; a < 3; ++a) l[a] -= shift[a];
    }
    benchmark::ClobberMemory();
    for (float& s : shift) s = -s;
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

// Many views at scale: one world of `state.range(1)` entities, `state.range(0)` views (split screens,
// cameras, server-side client views) at origins a few cells apart, each with its own locals buffer;
// one iteration renders the whole world in every view.
constexpr std::int64_t kViews = 64;

std::vector<lwc::OriginCoordinator<3>> many_views(std::size_t count) {
  std::vector<lwc::OriginCoordinator<3>> views;
  for (std::size_t i = 0; i < count; ++i) {
    const auto k = static_cast<std::int64_t>(i);
    absl::StatusOr<lwc::OriginCoordinator<3>> v = lwc::OriginCoordinator<3>::create(
        *lwc::WorldGrid::create(*lwc::ChunkSize::create(kCellSize)), lwc::ViewConfig{},
        lwc::CellIndex<3>{k % 4 - 2, k / 4 % 4 - 2, k / 16 - 2});
    views.push_back(*std::move(v));
  }
  return views;
}

void many_views_lwc(benchmark::State& state) {
  const std::vector<lwc::WorldPosition<3>> objects = anchors(static_cast<std::size_t>(state.range(1)));
  const std::vector<lwc::OriginCoordinator<3>> views = many_views(static_cast<std::size_t>(state.range(0)));
  std::vector<std::vector<std::array<float, 3>>> locals(views.size(), std::vector<std::array<float, 3>>(objects.size()));
  for (auto _ : state) {
    for (std::size_t v = 0; v < views.size(); ++v) {
      const absl::StatusOr<std::size_t> outside = views[v].to_render_all(objects, locals[v]);
      if (!outside.ok() || *outside != 0) state.SkipWithError("an entity left a view's bubble");
    }
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0) * state.range(1));
}

// The same work with the plan/commit example's toRenderSpace (double, then float; no bubble, two roundings).
void many_views_seed(benchmark::State& state) {
  const std::vector<lwc::WorldPosition<3>> objects = anchors(static_cast<std::size_t>(state.range(1)));
  const std::vector<lwc::OriginCoordinator<3>> views = many_views(static_cast<std::size_t>(state.range(0)));
  std::vector<std::vector<std::array<float, 3>>> locals(views.size(), std::vector<std::array<float, 3>>(objects.size()));
  std::int64_t size = kCellSize;
  benchmark::DoNotOptimize(size);
  for (auto _ : state) {
    for (std::size_t v = 0; v < views.size(); ++v) {
      const lwc::CellIndex<3> origin = views[v].origin();
      for (std::size_t i = 0; i < objects.size(); ++i) {
        const std::array<double, 3> x = seed_render_units(objects[i], origin, size);
        for (std::size_t a = 0; a < 3; ++a) locals[v][i][a] = static_cast<float>(x[a]);
      }
    }
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0) * state.range(1));
}

// Barriers: two stops (more than the threshold apart) with both barriers loaded; every iteration plans
// from the other stop and commits, so each iteration checks one barrier twice (R6: at plan and commit).
template <std::size_t D>
lwc::OriginCoordinator<D> barrier_view(std::int64_t radius, const std::array<lwc::CellIndex<D>, 2>& stops) {
  absl::StatusOr<lwc::OriginCoordinator<D>> v = lwc::OriginCoordinator<D>::create(
      *lwc::WorldGrid::create(*lwc::ChunkSize::create(kCellSize)), lwc::ViewConfig{.barrier_radius = *lwc::BarrierRadius::create(radius)});
  for (const lwc::CellIndex<D>& s : stops) {
    for (const lwc::CellIndex<D>& c : v->missing_cells(s)) v->load(c);
  }
  return *std::move(v);
}

template <std::size_t D>
std::array<lwc::CellIndex<D>, 2> barrier_stops() {
  lwc::CellIndex<D> far{};
  far[0] = 3;
  return {lwc::CellIndex<D>{}, far};
}

template <std::size_t D>
void barrier_rows_lwc(benchmark::State& state) {
  const std::array<lwc::CellIndex<D>, 2> stops = barrier_stops<D>();
  lwc::OriginCoordinator<D> view = barrier_view<D>(state.range(0), stops);
  std::size_t next = 1;
  for (auto _ : state) {
    const absl::StatusOr<std::optional<lwc::RebasePlan<D>>> plan = view.plan({stops[next], {}});
    if (!plan.ok() || !plan->has_value() || !view.commit(**plan).ok()) state.SkipWithError("plan/commit failed");
    next ^= 1;
  }
}

// The cell-by-cell scan (lwc before R16, and the seed's barrier): every barrier cell looked up.
template <std::size_t D>
std::size_t scan_missing(const absl::flat_hash_set<lwc::CellIndex<D>>& loaded, const lwc::CellIndex<D>& target,
                         std::int64_t r) {
  std::size_t missing = 0;
  lwc::CellIndex<D> c;
  for (std::size_t a = 0; a < D; ++a) c[a] = target[a] - r;
  while (true) {
    missing += !loaded.contains(c);
    std::size_t a = D;
    while (a > 0 && c[a - 1] == target[a - 1] + r) {
      c[a - 1] = target[a - 1] - r;
      --a;
    }
    if (a == 0) return missing;
    ++c[a - 1];
  }
}

template <std::size_t D>
void barrier_scan_baseline(benchmark::State& state) {
  const std::array<lwc::CellIndex<D>, 2> stops = barrier_stops<D>();
  const lwc::OriginCoordinator<D> view = barrier_view<D>(state.range(0), stops);
  const std::vector<lwc::CellIndex<D>> cells = view.loaded_cells();
  const absl::flat_hash_set<lwc::CellIndex<D>> loaded(cells.begin(), cells.end());
  std::size_t next = 1;
  for (auto _ : state) {
    const std::size_t at_plan = scan_missing<D>(loaded, stops[next], state.range(0));
    const std::size_t at_commit = scan_missing<D>(loaded, stops[next], state.range(0));
    if (at_plan + at_commit != 0) state.SkipWithError("barrier not loaded");
    benchmark::DoNotOptimize(at_plan);
    next ^= 1;
  }
}

const bool registered = [] {
  benchmark::RegisterBenchmark("to_render.lwc_single", to_render_single_lwc)->Arg(1 << 14);
  benchmark::RegisterBenchmark("to_render.lwc_batch", to_render_batch_lwc)->Arg(1 << 14);
  benchmark::RegisterBenchmark("to_render.baseline_seed002", to_render_seed)->Arg(1 << 14);
  benchmark::RegisterBenchmark("oriented.lwc", to_render_oriented_lwc)->Arg(1 << 14);
  benchmark::RegisterBenchmark("oriented.baseline_lwc_unrotated", to_render_single_lwc)->Arg(1 << 14);
  benchmark::RegisterBenchmark("oriented_batch.lwc", to_render_all_oriented_lwc)->Arg(1 << 14);
  benchmark::RegisterBenchmark("oriented_batch.baseline_lwc_unrotated", to_render_batch_lwc)->Arg(1 << 14);
  benchmark::RegisterBenchmark("oriented_batch.baseline_seed002_rotated", to_render_oriented_seed)->Arg(1 << 14);
  for (const std::int64_t n : {10000, 100000}) {
    benchmark::RegisterBenchmark("rebase.lwc", rebase_lwc)->Arg(n);
    benchmark::RegisterBenchmark("rebase.baseline_float_shift", rebase_float_shift)->Arg(n);
  }
  for (const std::int64_t r : {1, 4, 16, 64}) {
    benchmark::RegisterBenchmark("barrier2d.lwc_rows", barrier_rows_lwc<2>)->Arg(r);
    benchmark::RegisterBenchmark("barrier2d.baseline_scan", barrier_scan_baseline<2>)->Arg(r);
    benchmark::RegisterBenchmark("barrier3d.lwc_rows", barrier_rows_lwc<3>)->Arg(r);
    benchmark::RegisterBenchmark("barrier3d.baseline_scan", barrier_scan_baseline<3>)->Arg(r);
  }
  benchmark::RegisterBenchmark("many_views.lwc", many_views_lwc)->Args({kViews, 100000})->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("many_views.baseline_seed002", many_views_seed)
      ->Args({kViews, 100000})
      ->Unit(benchmark::kMillisecond);
  return true;
}();

}  // namespace
