// SPDX-License-Identifier: MIT
// File: bench/c_api_bench.cc
//
// The C API's overhead (capi/include/lwc.h) against the C++ call it wraps, on the same inputs:
//   split_batch.{cpp,c}/N   lwc::split_all vs lwc_split_all, N int64 coordinates, chunk size 1000
//   find_pairs.{cpp,c}/N    lwc::find_pairs vs lwc_find_pairs2, the broad-phase bench's uniform world
//                           (sides 0.5-2 m at 4 m^2 per box, cell 2 m); C writes into a caller buffer
//                           sized once, C++ returns its vector
// Goal (issue 16): the C call within 1.05x of the C++ call for both, at 100k.
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
  const std::vector<lwc::Box2> cpp = uniform(static_cast<std::size_t>(state.range(0)));
  std::vector<lwc_box2> boxes(cpp.size());
  for (std::size_t i = 0; i < cpp.size(); ++i) {
    boxes[i] = {{cpp[i].min[0], cpp[i].min[1]}, {cpp[i].max[0], cpp[i].max[1]}};
  }
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

const bool registered = [] {
  benchmark::RegisterBenchmark("split_batch.cpp", split_cpp)->Arg(100'000);
  benchmark::RegisterBenchmark("split_batch.c", split_c)->Arg(100'000);
  benchmark::RegisterBenchmark("find_pairs.cpp", pairs_cpp)->Arg(100'000)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("find_pairs.c", pairs_c)->Arg(100'000)->Unit(benchmark::kMillisecond);
  lwc::bench::goal("split_batch", "c", "cpp", 1.05);
  lwc::bench::goal("find_pairs", "c", "cpp", 1.05);
  return true;
}();

}  // namespace
