// SPDX-License-Identifier: MIT
// File: bench/decompose_bench.cc
//
// split against its cheap, wrong baseline (plain truncating / and %), and the power-of-two path against a
// bare arithmetic shift and mask, one call at a time and in batch, in the same run. Also cell_of against
// plain floor(v / h) (faster, and wrong where the division rounds). Goals from the foundation issue:
// floor split <= 1.15x truncation, power-of-two path <= 1.05x a bare shift.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "bench_main.h"

import lwc.decompose;

namespace {

constexpr std::size_t kCount = 1 << 14;

const std::vector<std::int64_t>& inputs() {
  static const std::vector<std::int64_t> xs = [] {
    std::mt19937_64 rng(42);
    std::vector<std::int64_t> v(kCount);
    // Half near the origin (where engines live), half anywhere: both signs, so the correction matters.
    for (std::size_t i = 0; i < kCount; ++i) {
      const auto bits = static_cast<std::int64_t>(rng());
      v[i] = i % 2 == 0 ? bits % 1'000'000 : bits;
    }
    return v;
  }();
  return xs;
}

// The size is read at run time, as an engine's configuration would be, so nothing folds it.
std::int64_t opaque(std::int64_t v) {
  benchmark::DoNotOptimize(v);
  return v;
}

// One call at a time: each result is folded into a running value (so nothing is dead) instead of being
// stored, which would measure the store buffer and stack-slot placement rather than the arithmetic.
std::int64_t fold(lwc::ChunkPoint p) { return p.chunk ^ p.local; }

lwc::ChunkSize size_arg(const benchmark::State& state) { return *lwc::ChunkSize::create(opaque(state.range(0))); }

void split_single_lwc(benchmark::State& state) {
  const lwc::ChunkSize size = size_arg(state);
  for (auto _ : state) {
    std::int64_t acc = 0;
    for (const std::int64_t x : inputs()) acc += fold(lwc::split(x, size));
    benchmark::DoNotOptimize(acc);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(kCount));
}

void split_single_trunc(benchmark::State& state) {
  const std::int64_t s = opaque(state.range(0));
  for (auto _ : state) {
    std::int64_t acc = 0;
    for (const std::int64_t x : inputs()) acc += fold(lwc::ChunkPoint{x / s, x % s});
    benchmark::DoNotOptimize(acc);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(kCount));
}

void split_batch_lwc(benchmark::State& state) {
  const lwc::ChunkSize size = size_arg(state);
  std::vector<lwc::ChunkPoint> out(kCount);
  for (auto _ : state) {
    benchmark::DoNotOptimize(lwc::split_all(inputs(), size, out));
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(kCount));
}

void split_batch_trunc(benchmark::State& state) {
  const std::int64_t s = opaque(state.range(0));
  std::vector<lwc::ChunkPoint> out(kCount);
  const std::vector<std::int64_t>& xs = inputs();
  benchmark::DoNotOptimize(out.data());
  for (auto _ : state) {
    for (std::size_t i = 0; i < kCount; ++i) out[i] = {xs[i] / s, xs[i] % s};
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(kCount));
}

void pow2_single_shift(benchmark::State& state) {
  const int k = static_cast<int>(opaque(std::countr_zero(static_cast<std::uint64_t>(state.range(0)))));
  const std::int64_t mask = opaque(state.range(0) - 1);
  for (auto _ : state) {
    std::int64_t acc = 0;
    for (const std::int64_t x : inputs()) acc += fold(lwc::ChunkPoint{x >> k, x & mask});
    benchmark::DoNotOptimize(acc);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(kCount));
}

void pow2_batch_shift(benchmark::State& state) {
  const int k = static_cast<int>(opaque(std::countr_zero(static_cast<std::uint64_t>(state.range(0)))));
  const std::int64_t mask = opaque(state.range(0) - 1);
  std::vector<lwc::ChunkPoint> out(kCount);
  const std::vector<std::int64_t>& xs = inputs();
  benchmark::DoNotOptimize(out.data());
  for (auto _ : state) {
    for (std::size_t i = 0; i < kCount; ++i) out[i] = {xs[i] >> k, xs[i] & mask};
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(kCount));
}

const std::vector<double>& real_inputs() {
  static const std::vector<double> vs = [] {
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> d(-1e6, 1e6);
    std::vector<double> v(kCount);
    for (double& x : v) x = d(rng);
    return v;
  }();
  return vs;
}

void cell_of_lwc(benchmark::State& state) {
  const lwc::CellSize h = *lwc::CellSize::create(static_cast<double>(opaque(state.range(0))) / 8);
  std::vector<std::int64_t> out(kCount);
  for (auto _ : state) {
    benchmark::DoNotOptimize(lwc::cell_of_all(real_inputs(), h, out));
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(kCount));
}

void cell_of_floor(benchmark::State& state) {
  const double h = static_cast<double>(opaque(state.range(0))) / 8;
  std::vector<std::int64_t> out(kCount);
  const std::vector<double>& vs = real_inputs();
  benchmark::DoNotOptimize(out.data());
  for (auto _ : state) {
    for (std::size_t i = 0; i < kCount; ++i) out[i] = static_cast<std::int64_t>(std::floor(vs[i] / h));
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(kCount));
}

const bool registered = [] {
  for (const std::int64_t size : {1000, 3}) {
    benchmark::RegisterBenchmark("split_single.lwc", split_single_lwc)->Arg(size);
    benchmark::RegisterBenchmark("split_single.baseline_trunc", split_single_trunc)->Arg(size);
    benchmark::RegisterBenchmark("split_batch.lwc", split_batch_lwc)->Arg(size);
    benchmark::RegisterBenchmark("split_batch.baseline_trunc", split_batch_trunc)->Arg(size);
  }
  benchmark::RegisterBenchmark("pow2_single.lwc", split_single_lwc)->Arg(1024);
  benchmark::RegisterBenchmark("pow2_single.baseline_shift", pow2_single_shift)->Arg(1024);
  benchmark::RegisterBenchmark("pow2_batch.lwc", split_batch_lwc)->Arg(1024);
  benchmark::RegisterBenchmark("pow2_batch.baseline_shift", pow2_batch_shift)->Arg(1024);
  benchmark::RegisterBenchmark("cell_of_batch.lwc", cell_of_lwc)->Arg(8)->Arg(1);
  benchmark::RegisterBenchmark("cell_of_batch.baseline_floor", cell_of_floor)->Arg(8)->Arg(1);
  lwc::bench::goal("split_single", "lwc", "baseline_trunc", 1.15);
  lwc::bench::goal("split_batch", "lwc", "baseline_trunc", 1.15);
  lwc::bench::goal("pow2_single", "lwc", "baseline_shift", 1.05);
  lwc::bench::goal("pow2_batch", "lwc", "baseline_shift", 1.05);
  return true;
}();

}  // namespace
