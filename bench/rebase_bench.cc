// SPDX-License-Identifier: MIT
// File: bench/rebase_bench.cc
//
// to_render throughput against the plan/commit floating-origin example's formula ((cell - origin) * size +
// offset in double, then float: two roundings, no bubble), and the cost of a rebase with 10k and 100k active
// objects — commit plus re-deriving every local position from its anchor — against the late-chunk
// floating-origin example's `local -= shift` in float (which drifts: tests/rebase_test.cc, NoDrift), in the
// same run. Medians and ratios only.
#include <benchmark/benchmark.h>

#include <array>
#include <cstdint>
#include <random>
#include <vector>

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
      for (std::size_t a = 0; a < 3; ++a) {
        locals[i][a] = static_cast<float>(static_cast<double>((objects[i].cell[a] - origin[a]) * size) +
                                          objects[i].offset[a]);
      }
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
    const absl::StatusOr<lwc::Rebased<3>> done = view.commit({view.origin(), stops[next], view.version()});
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

const bool registered = [] {
  benchmark::RegisterBenchmark("to_render.lwc_single", to_render_single_lwc)->Arg(1 << 14);
  benchmark::RegisterBenchmark("to_render.lwc_batch", to_render_batch_lwc)->Arg(1 << 14);
  benchmark::RegisterBenchmark("to_render.baseline_seed002", to_render_seed)->Arg(1 << 14);
  for (const std::int64_t n : {10000, 100000}) {
    benchmark::RegisterBenchmark("rebase.lwc", rebase_lwc)->Arg(n);
    benchmark::RegisterBenchmark("rebase.baseline_float_shift", rebase_float_shift)->Arg(n);
  }
  return true;
}();

}  // namespace
