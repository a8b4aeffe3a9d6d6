// SPDX-License-Identifier: MIT
// File: bench/commit_bench.cc
//
// Merging and committing 1k, 10k and 100k dirty chunks, against a port of the tilemap dirty-chunk example's
// committer in the same run: a hash set of chunks whose Merge re-sorts the whole pending set before every run
// it takes (OrderBy(Y).ThenBy(X).First()), which is quadratic. Goal from the issue: 100k dirty chunks merged
// in well under a 16 ms frame (read merge.lwc/100000's median).
//
// Groups:
//   merge   lwc: Committer::pending_runs() (its dirty set is kept in row-major order, so this is one sweep)
//           lwc_span: merge_runs() over an unordered span (sort + sweep, for callers with their own set)
//           baseline_resort: the tilemap dirty-chunk example's Merge
//   commit  lwc: Committer::commit() with a trivial prepare: select, prepare, publish, clear
//           baseline_seed: the tilemap example's Commit: Merge, prepare, publish (a list swap), Clear()
//   mark    the price of the ordered dirty set: marking N chunks (16 cells each marked once) into lwc's
//           B-tree against the tilemap example's hash set. Engines mark as they edit, spread over
//           frames; the merge is what a frame waits for.
// At 100k chunks the baseline re-sorts the pending set ~11k times per merge (half a minute), so there it
// runs one iteration per repetition, two repetitions.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <unordered_set>
#include <vector>

#include "absl/status/statusor.h"
#include "bench_main.h"

import lwc.decompose;
import lwc.commit;

namespace {

// The tilemap dirty-chunk example's chunk set (C# HashSet -> std::unordered_set).
struct SeedChunkHash {
  std::size_t operator()(lwc::Point2 c) const noexcept {
    return std::hash<std::int64_t>()(c.x) * 31 + std::hash<std::int64_t>()(c.y);
  }
};
using SeedSet = std::unordered_set<lwc::Point2, SeedChunkHash>;

// Dirty chunks as edits leave them: horizontal brush strokes of 1-12 chunks, about 40% of a region dense,
// in random order. Deterministic.
const std::vector<lwc::Point2>& dirty_chunks(std::size_t n) {
  static std::vector<std::vector<lwc::Point2>> cache(3);
  std::vector<lwc::Point2>& chunks = cache[n <= 1000 ? 0 : (n <= 10000 ? 1 : 2)];
  if (chunks.size() == n) return chunks;
  std::mt19937_64 rng(n);
  const auto side = static_cast<std::int64_t>(std::sqrt(static_cast<double>(n) / 0.4));
  std::uniform_int_distribution<std::int64_t> x(-side, side);
  std::uniform_int_distribution<std::int64_t> y(-side / 4, side / 4);
  std::uniform_int_distribution<std::int64_t> length(1, 12);
  SeedSet seen;
  chunks.clear();
  while (chunks.size() < n) {
    const std::int64_t x0 = x(rng);
    const std::int64_t y0 = y(rng);
    for (std::int64_t i = length(rng); i > 0 && chunks.size() < n; --i) {
      if (seen.insert({x0 + i, y0}).second) chunks.push_back({x0 + i, y0});
    }
  }
  std::shuffle(chunks.begin(), chunks.end(), rng);
  return chunks;
}

// The tilemap dirty-chunk example's Merge, ported line for line.
std::vector<lwc::ChunkRun> seed_merge(const SeedSet& source) {
  SeedSet pending(source);
  std::vector<lwc::ChunkRun> ranges;
  while (!pending.empty()) {
    // pending.OrderBy(c => c.Y).ThenBy(c => c.X).First()
    std::vector<lwc::Point2> ordered(pending.begin(), pending.end());
    std::sort(ordered.begin(), ordered.end(),
              [](lwc::Point2 a, lwc::Point2 b) { return a.y != b.y ? a.y < b.y : a.x < b.x; });
    const lwc::Point2 seed = ordered.front();
    std::int64_t max_x = seed.x;
    while (pending.contains({max_x + 1, seed.y})) ++max_x;
    for (std::int64_t x = seed.x; x <= max_x; ++x) pending.erase({x, seed.y});
    ranges.push_back({seed.y, seed.x, max_x});
  }
  return ranges;
}

std::size_t n_of(const benchmark::State& state) { return static_cast<std::size_t>(state.range(0)); }

void merge_lwc(benchmark::State& state) {
  lwc::Committer<lwc::ChunkRun> committer(lwc::ChunkSize::of<1>());
  for (const lwc::Point2 c : dirty_chunks(n_of(state))) committer.mark(c);
  for (auto _ : state) benchmark::DoNotOptimize(committer.pending_runs());
  state.counters["runs"] = static_cast<double>(committer.pending_runs().size());
}

void merge_lwc_span(benchmark::State& state) {
  const std::vector<lwc::Point2>& chunks = dirty_chunks(n_of(state));
  for (auto _ : state) benchmark::DoNotOptimize(lwc::merge_runs(chunks));
}

void merge_baseline(benchmark::State& state) {
  const std::vector<lwc::Point2>& chunks = dirty_chunks(n_of(state));
  const SeedSet dirty(chunks.begin(), chunks.end());
  for (auto _ : state) benchmark::DoNotOptimize(seed_merge(dirty));
}

void commit_lwc(benchmark::State& state) {
  const std::vector<lwc::Point2>& chunks = dirty_chunks(n_of(state));
  lwc::Committer<lwc::ChunkRun> committer(lwc::ChunkSize::of<1>());
  for (auto _ : state) {
    state.PauseTiming();
    for (const lwc::Point2 c : chunks) committer.mark(c);
    state.ResumeTiming();
    benchmark::DoNotOptimize(committer.commit([](const lwc::ChunkRun& run) { return run; }));
  }
}

void commit_baseline(benchmark::State& state) {
  const std::vector<lwc::Point2>& chunks = dirty_chunks(n_of(state));
  SeedSet dirty;
  auto published = std::make_shared<const std::vector<lwc::ChunkRun>>();
  for (auto _ : state) {
    state.PauseTiming();
    dirty.insert(chunks.begin(), chunks.end());
    state.ResumeTiming();
    const std::vector<lwc::ChunkRun> ranges = seed_merge(dirty);
    std::vector<lwc::ChunkRun> prepared;
    prepared.reserve(ranges.size());
    for (const lwc::ChunkRun& range : ranges) prepared.push_back(range);
    published = std::make_shared<const std::vector<lwc::ChunkRun>>(std::move(prepared));
    dirty.clear();
    benchmark::DoNotOptimize(published);
  }
}

// Marks the cells of N chunks of 16 x 16 cells, 16 cells per chunk (its diagonal).
void mark_lwc(benchmark::State& state) {
  const std::vector<lwc::Point2>& chunks = dirty_chunks(n_of(state));
  for (auto _ : state) {
    lwc::Committer<lwc::ChunkRun> committer(lwc::ChunkSize::of<16>());
    for (const lwc::Point2 c : chunks) {
      for (std::int64_t i = 0; i < 16; ++i) committer.mark({c.x * 16 + i, c.y * 16 + i});
    }
    benchmark::DoNotOptimize(committer.pending_chunks());
  }
}

void mark_baseline(benchmark::State& state) {
  const std::vector<lwc::Point2>& chunks = dirty_chunks(n_of(state));
  for (auto _ : state) {
    SeedSet dirty;
    for (const lwc::Point2 c : chunks) {
      // The tilemap dirty-chunk example's FloorDiv (here in int64, where value - divisor + 1 cannot overflow
      // for these cells).
      const auto floor_div = [](std::int64_t v) { return v >= 0 ? v / 16 : (v - 16 + 1) / 16; };
      for (std::int64_t i = 0; i < 16; ++i) dirty.insert({floor_div(c.x * 16 + i), floor_div(c.y * 16 + i)});
    }
    benchmark::DoNotOptimize(dirty.size());
  }
}

const bool registered = [] {
  for (const std::int64_t n : {1000, 10000, 100000}) {
    benchmark::RegisterBenchmark("merge.lwc", merge_lwc)->Arg(n)->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("merge.lwc_span", merge_lwc_span)->Arg(n)->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("commit.lwc", commit_lwc)->Arg(n)->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("mark.lwc", mark_lwc)->Arg(n)->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("mark.baseline_hashset", mark_baseline)
        ->Arg(n)
        ->Unit(benchmark::kMicrosecond);
    auto* merge_base = benchmark::RegisterBenchmark("merge.baseline_resort", merge_baseline)
                           ->Arg(n)
                           ->Unit(benchmark::kMicrosecond);
    auto* commit_base = benchmark::RegisterBenchmark("commit.baseline_seed", commit_baseline)
                            ->Arg(n)
                            ->Unit(benchmark::kMicrosecond);
    if (n == 100000) {
      // About half a minute per iteration here; two repetitions are the fewest that give a median.
      merge_base->Iterations(1)->Repetitions(2);
      commit_base->Iterations(1)->Repetitions(2);
    }
  }
  lwc::bench::goal("merge", "lwc", "baseline_resort", 0.05);
  lwc::bench::goal("commit", "lwc", "baseline_seed", 0.05);
  return true;
}();

}  // namespace
