// SPDX-License-Identifier: MIT
// File: bench/c_api_bench.cc
//
// The C API's overhead (capi/include/lwc.h) against the C++ call it wraps, on the same inputs; each group's
// baseline_cpp is the C++ call (bench_main.cc prints every impl's ratio to a group's "baseline*"):
//   split_batch.{baseline_cpp,c}/N
//                           lwc::split_all vs lwc_split_all, N int64 coordinates, chunk size 1000
//   find_pairs.{baseline_cpp,c,c_view}/N
//                           lwc::find_pairs vs lwc_find_pairs2, the broad-phase bench's uniform world
//                           (sides 0.5-2 m at 4 m^2 per box, cell 2 m); C writes into a caller buffer
//                           sized once, C++ returns its vector; c_view is lwc_find_pairs2_view into a pair
//                           list reused from call to call (F8: one broad phase, no capacity to guess)
//   persistent_frame.{baseline_cpp,c}/N
//                           one frame of an engine's broad phase on a persistent grid of N boxes of that
//                           world: every box moved, half of them by 0.1 m back and forth, an update,
//                           the began and ended events read; C through one call per box and the events
//                           copied into the caller's buffers
// Goal (issue 16): the C call within 1.05x of the C++ call, for each group.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "bench_main.h"
#include "lwc.h"

import lwc;

namespace {

constexpr std::int64_t kChunk = 1000;
constexpr double kCellSize = 2.0;

std::vector<std::int64_t> coordinates(std::size_t n) {
  std::mt19937_64 rng(7 + n);
  std::uniform_int_distribution<std::int64_t> any(-(std::int64_t{1} << 40), std::int64_t{1} << 40);
  std::vector<std::int64_t> xs(n);
  for (std::int64_t& x : xs) x = any(rng);
  return xs;
}

std::vector<lwc::Box2> uniform(std::size_t n) {
  std::mt19937_64 rng(1000 + n);
  const double side = std::sqrt(4.0 * static_cast<double>(n));
  std::uniform_real_distribution<double> pos(0, side);
  std::uniform_real_distribution<double> size(0.5, 2.0);
  std::vector<lwc::Box2> boxes(n);
  for (lwc::Box2& b : boxes) {
    const double x = pos(rng);
    const double y = pos(rng);
    b = {{x, y}, {x + size(rng), y + size(rng)}};
  }
  return boxes;
}

// The same world as C structs.
std::vector<lwc_box2> uniform_c(std::size_t n) {
  std::vector<lwc_box2> out;
  for (const lwc::Box2& b : uniform(n)) out.push_back({{b.min[0], b.min[1]}, {b.max[0], b.max[1]}});
  return out;
}

void split_cpp(benchmark::State& state) {
  const std::vector<std::int64_t> xs = coordinates(static_cast<std::size_t>(state.range(0)));
  std::vector<lwc::ChunkPoint> out(xs.size());
  const lwc::ChunkSize size = lwc::ChunkSize::of<kChunk>();
  for (auto _ : state) {
    absl::Status s = lwc::split_all(xs, size, out);
    benchmark::DoNotOptimize(s);
    benchmark::DoNotOptimize(out.data());
    if (!s.ok()) state.SkipWithError("split_all failed");
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void split_c(benchmark::State& state) {
  const std::vector<std::int64_t> xs = coordinates(static_cast<std::size_t>(state.range(0)));
  std::vector<lwc_chunk_point> out(xs.size());
  for (auto _ : state) {
    lwc_status s = lwc_split_all(xs.data(), xs.size(), kChunk, out.data());
    benchmark::DoNotOptimize(s);
    benchmark::DoNotOptimize(out.data());
    if (s != LWC_OK) state.SkipWithError("lwc_split_all failed");
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void pairs_cpp(benchmark::State& state) {
  const std::vector<lwc::Box2> boxes = uniform(static_cast<std::size_t>(state.range(0)));
  const lwc::GridConfig config{.cell_size = lwc::CellSize::of<kCellSize>()};
  for (auto _ : state) {
    absl::StatusOr<lwc::PairsResult> r = lwc::find_pairs(std::span<const lwc::Box2>(boxes), config);
    if (!r.ok()) state.SkipWithError("find_pairs failed");
    benchmark::DoNotOptimize(r);
  }
}

void pairs_c(benchmark::State& state) {
  const std::vector<lwc_box2> boxes = uniform_c(static_cast<std::size_t>(state.range(0)));
  lwc_grid_config config = lwc_grid_config_default();
  config.cell_size = kCellSize;
  std::size_t count = 0;
  if (lwc_find_pairs2(boxes.data(), boxes.size(), &config, nullptr, 0, &count, nullptr) !=
      LWC_BUFFER_TOO_SMALL && count != 0) {
    state.SkipWithError("lwc_find_pairs2 did not report its count");
    return;
  }
  std::vector<lwc_pair> pairs(count);  // the caller's buffer, sized once as an engine would
  for (auto _ : state) {
    lwc_status s = lwc_find_pairs2(boxes.data(), boxes.size(), &config, pairs.data(), pairs.size(), &count,
                                   nullptr);
    if (s != LWC_OK) state.SkipWithError("lwc_find_pairs2 failed");
    benchmark::DoNotOptimize(pairs.data());
  }
}

void pairs_c_view(benchmark::State& state) {
  const std::vector<lwc_box2> boxes = uniform_c(static_cast<std::size_t>(state.range(0)));
  lwc_grid_config config = lwc_grid_config_default();
  config.cell_size = kCellSize;
  const lwc_box_view view{boxes[0].min, boxes[0].max, boxes.size(), sizeof(lwc_box2), LWC_REAL_DOUBLE};
  lwc_pair_list* list = nullptr;
  if (lwc_pair_list_create(&list) != LWC_OK) {
    state.SkipWithError("lwc_pair_list_create failed");
    return;
  }
  for (auto _ : state) {
    lwc_status s = lwc_find_pairs2_view(&view, &config, list, nullptr);
    if (s != LWC_OK) state.SkipWithError("lwc_find_pairs2_view failed");
    const lwc_pair* pairs = nullptr;
    std::size_t count = 0;
    s = lwc_pair_list_pairs(list, &pairs, &count);
    benchmark::DoNotOptimize(pairs);
  }
  (void)lwc_pair_list_destroy(list);
}

// Frame f's box i: the uniform world's box, shifted by +0.1 m on odd frames when i is even (half the boxes
// move relative to the other half, so that pairs begin and end).
lwc::Box2 at_frame(const lwc::Box2& b, std::size_t i, int frame) {
  const double dx = frame % 2 == 1 && i % 2 == 0 ? 0.1 : 0.0;
  return {{b.min[0] + dx, b.min[1]}, {b.max[0] + dx, b.max[1]}};
}

void frame_cpp(benchmark::State& state) {
  const std::vector<lwc::Box2> boxes = uniform(static_cast<std::size_t>(state.range(0)));
  absl::StatusOr<lwc::PersistentGrid<2>> grid =
      lwc::PersistentGrid<2>::create({.cell_size = lwc::CellSize::of<kCellSize>()});
  std::vector<lwc::Handle> handles;
  for (std::size_t i = 0; i < boxes.size(); ++i) handles.push_back(*grid->insert(boxes[i], i));
  lwc::ContactEvents events;
  if (!grid->update_into(events).ok()) state.SkipWithError("update failed");
  int frame = 0;
  std::int64_t changed = 0;
  for (auto _ : state) {
    ++frame;
    for (std::size_t i = 0; i < boxes.size(); ++i) {
      if (!grid->move(handles[i], at_frame(boxes[i], i, frame)).ok()) state.SkipWithError("move failed");
    }
    if (!grid->update_into(events).ok()) state.SkipWithError("update failed");
    changed += static_cast<std::int64_t>(events.began.size() + events.ended.size());
    benchmark::DoNotOptimize(events.began.data());
  }
  state.counters["events_per_frame"] = static_cast<double>(changed) / static_cast<double>(frame);
}

void frame_c(benchmark::State& state) {
  const std::vector<lwc::Box2> boxes = uniform(static_cast<std::size_t>(state.range(0)));
  lwc_grid_config config = lwc_grid_config_default();
  config.cell_size = kCellSize;
  lwc_persistent_grid2* grid = nullptr;
  if (lwc_persistent_grid2_create(&config, nullptr, nullptr, &grid) != LWC_OK) {
    state.SkipWithError("create failed");
    return;
  }
  std::vector<lwc_handle> handles(boxes.size());
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    const lwc_box2 b{{boxes[i].min[0], boxes[i].min[1]}, {boxes[i].max[0], boxes[i].max[1]}};
    if (lwc_persistent_grid2_insert(grid, &b, i, lwc_filter_default(), &handles[i]) != LWC_OK) {
      state.SkipWithError("insert failed");
    }
  }
  if (lwc_persistent_grid2_update(grid, nullptr) != LWC_OK) state.SkipWithError("update failed");
  std::vector<lwc_contact> began(boxes.size());  // the caller's buffers, sized once as an engine would
  std::vector<lwc_contact> ended(boxes.size());
  int frame = 0;
  std::int64_t changed = 0;
  for (auto _ : state) {
    ++frame;
    for (std::size_t i = 0; i < boxes.size(); ++i) {
      const lwc::Box2 m = at_frame(boxes[i], i, frame);
      const lwc_box2 b{{m.min[0], m.min[1]}, {m.max[0], m.max[1]}};
      if (lwc_persistent_grid2_move(grid, handles[i], &b, LWC_MOTION_TELEPORT) != LWC_OK) {
        state.SkipWithError("move failed");
      }
    }
    std::size_t nb = 0;
    std::size_t ne = 0;
    if (lwc_persistent_grid2_update(grid, nullptr) != LWC_OK ||
        lwc_persistent_grid2_events(grid, LWC_EVENTS_BEGAN, began.data(), began.size(), &nb) != LWC_OK ||
        lwc_persistent_grid2_events(grid, LWC_EVENTS_ENDED, ended.data(), ended.size(), &ne) != LWC_OK) {
      state.SkipWithError("update or events failed");
    }
    changed += static_cast<std::int64_t>(nb + ne);
    benchmark::DoNotOptimize(began.data());
  }
  state.counters["events_per_frame"] = static_cast<double>(changed) / static_cast<double>(frame);
  (void)lwc_persistent_grid2_destroy(grid);
}

const bool registered = [] {
  benchmark::RegisterBenchmark("split_batch.baseline_cpp", split_cpp)->Arg(100'000);
  benchmark::RegisterBenchmark("split_batch.c", split_c)->Arg(100'000);
  benchmark::RegisterBenchmark("find_pairs.baseline_cpp", pairs_cpp)
      ->Arg(100'000)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("find_pairs.c", pairs_c)->Arg(100'000)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("find_pairs.c_view", pairs_c_view)->Arg(100'000)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("persistent_frame.baseline_cpp", frame_cpp)
      ->Arg(10'000)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("persistent_frame.c", frame_c)->Arg(10'000)->Unit(benchmark::kMillisecond);
  lwc::bench::goal("split_batch", "c", "baseline_cpp", 1.05);
  lwc::bench::goal("find_pairs", "c", "baseline_cpp", 1.05);
  lwc::bench::goal("find_pairs", "c_view", "baseline_cpp", 1.05);
  lwc::bench::goal("persistent_frame", "c", "baseline_cpp", 1.05);
  return true;
}();

}  // namespace
