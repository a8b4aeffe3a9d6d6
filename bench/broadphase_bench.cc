// SPDX-License-Identifier: MIT
// File: bench/broadphase_bench.cc
//
// find_pairs against four baselines on the same boxes, in one run: brute force (O(n^2), small inputs),
// the textbook hash grid (a hash map of cell lists and a global pair set: lwc::bench::hash_grid_pairs in
// bench/lwc/bench/hash_grid.h, reported as "baseline_seed"), sort-and-sweep on x (written here), and the bar of
// issue 15, "baseline_flat": a count-only flat grid with the reference-cell rule (written here, as fast
// as we could make it; its count is checked against lwc's before timing). Every implementation but the
// flat grid validates its input and returns the pairs in canonical order, so each figure is a whole call;
// the flat grid validates and counts, storing no pair.
//
// Workloads (2D, fixed seeds): "uniform": n props with sides in [0.5, 2] m, uniformly placed at 4 m^2
// per prop; "walls": the same with 1% of them replaced by walls 50-200x the mean prop size (62.5-250 m
// long, 0.5-2 m thick, along x or y); "seed729": the 729-box exhaustive set of tests/broadphase_test.cc.
// Cell size 2 m (about the largest prop). Counters: ns per box, ns per pair, the time split (validation,
// registration, pairing, in ms, of the last call, from a lwc::Timings probe) and peak heap above the
// input during a call, output included, in MB.
//
// Goals (issue 4): uniform 100k and 1M: lwc >= 5x faster than the hash-grid baseline and >= 4x faster
// than sort-and-sweep; walls: >= 6x and >= 4x; lwc's time per pair on walls <= 1.5x its time per pair on
// uniform boxes of the same count (group "per_pair", time measured per reported pair). Issue 15: lwc
// single-threaded <= 1.15x baseline_flat, uniform and walls, 100k and 1M; peak heap at 1M <= 1.3x its.
//
// Moving boxes (issue 7): the uniform 100k world, 1% ("moving_1pct") or 10% ("moving_10pct") of the boxes
// jittering by up to 0.5 m per axis each frame. "lwc_update" times one frame of the persistent grid: the
// move() calls and update(), which returns the began and ended events; "baseline_rebuild" times find_pairs
// over all boxes after the same kind of frame (without even diffing the pair sets). Drawing the random
// moves is outside the timed part of both. Goals (issue 14): 1% moved <= 0.03x the rebuild, 10% <= 0.3x,
// for W1 (uniform) and W2 (1% walls), 100k and 1M; the first build <= 1.5x a batch find_pairs; the
// "moved_per_frame" counter turns a frame's time into a time per moved box.
//
// Every core and the caller's boxes (issue 15), 1M boxes, W1 and W2: "threads_uniform"/"threads_walls"
// time find_pairs through a ThreadPool of 2, 4 and 8 threads against the same call on one thread
// ("baseline_1_thread", the plain serial call); goal: 2 threads <= 1/1.8 of one thread's time (>= 1.8x
// the throughput). "float_uniform"/"float_walls" time find_pairs over the same boxes rounded to float
// and read in place through a BoxView<2, float> against the plain double call ("baseline_double");
// goal <= 0.9x. Run them interleaved (--benchmark_enable_random_interleaving=true) and read the ratios
// of medians; the machine's load decides what a second thread can give.
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <new>
#include <random>
#include <span>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "bench_main.h"

import lwc.broadphase;
import lwc.contracts.broadphase;
import lwc.bench.hash_grid;

// Heap accounting for the peak-memory counter: every operator new of the process goes through here.
namespace {
std::atomic<std::int64_t> live_bytes{0};
std::atomic<std::int64_t> peak_bytes{0};

void* counted(void* p) {
  if (p == nullptr) std::abort();
  const auto n = static_cast<std::int64_t>(malloc_usable_size(p));
  const std::int64_t now = live_bytes.fetch_add(n, std::memory_order_relaxed) + n;
  std::int64_t peak = peak_bytes.load(std::memory_order_relaxed);
  while (now > peak && !peak_bytes.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
  return p;
}
void uncounted(void* p) {
  if (p == nullptr) return;
  live_bytes.fetch_sub(static_cast<std::int64_t>(malloc_usable_size(p)), std::memory_order_relaxed);
  std::free(p);
}
}  // namespace

void* operator new(std::size_t n) { return counted(std::malloc(n == 0 ? 1 : n)); }
void* operator new[](std::size_t n) { return counted(std::malloc(n == 0 ? 1 : n)); }
void* operator new(std::size_t n, std::align_val_t a) {
  const auto align = static_cast<std::size_t>(a);
  return counted(std::aligned_alloc(align, (n + align - 1) / align * align));
}
void* operator new[](std::size_t n, std::align_val_t a) { return operator new(n, a); }
void operator delete(void* p) noexcept { uncounted(p); }
void operator delete[](void* p) noexcept { uncounted(p); }
void operator delete(void* p, std::size_t) noexcept { uncounted(p); }
void operator delete[](void* p, std::size_t) noexcept { uncounted(p); }
void operator delete(void* p, std::align_val_t) noexcept { uncounted(p); }
void operator delete[](void* p, std::align_val_t) noexcept { uncounted(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { uncounted(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { uncounted(p); }

namespace {

using lwc::Box2;
using lwc::Pair;

constexpr double kCellSize = 2.0;

std::vector<Box2> make_uniform(std::size_t n, double wall_fraction, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const double side = std::sqrt(4.0 * static_cast<double>(n));
  std::uniform_real_distribution<double> pos(0, side);
  std::uniform_real_distribution<double> size(0.5, 2.0);
  std::uniform_real_distribution<double> length(50 * 1.25, 200 * 1.25);
  std::uniform_real_distribution<double> unit(0, 1);
  std::vector<Box2> boxes(n);
  for (Box2& b : boxes) {
    const double x = pos(rng);
    const double y = pos(rng);
    double w = size(rng);
    double h = size(rng);
    if (unit(rng) < wall_fraction) {
      (unit(rng) < 0.5 ? w : h) = length(rng);
    }
    b = {{x, y}, {x + w, y + h}};
  }
  return boxes;
}

std::vector<Box2> make_seed729() {
  std::vector<Box2> boxes;
  for (int xi = -4; xi <= 4; ++xi) {
    for (int yi = -4; yi <= 4; ++yi) {
      for (int w = 0; w <= 2; ++w) {
        for (int h = 0; h <= 2; ++h) boxes.push_back({{xi / 2.0, yi / 2.0}, {xi / 2.0 + w, yi / 2.0 + h}});
      }
    }
  }
  return boxes;
}

const std::vector<Box2>& workload(char kind, std::size_t n) {
  static std::map<std::pair<char, std::size_t>, std::vector<Box2>> cache;
  auto it = cache.find({kind, n});
  if (it == cache.end()) {
    std::vector<Box2> boxes = kind == 's' ? make_seed729() : make_uniform(n, kind == 'w' ? 0.01 : 0.0, 1000 + n);
    it = cache.emplace(std::make_pair(kind, n), std::move(boxes)).first;
  }
  return it->second;
}

lwc::GridConfig grid_config() {
  lwc::GridConfig c;
  c.cell_size = lwc::CellSize::of<kCellSize>();
  c.max_memberships = *lwc::MembershipBudget::create(std::int64_t{1} << 30);
  c.max_pairs = *lwc::PairBudget::create(std::int64_t{1} << 30);
  return c;
}

// Sort and sweep on x: sort the boxes by min x, then test each box against the following ones until their
// min x passes its max x. The standard single-axis broad phase (Baraff 1992), validation included.
absl::StatusOr<std::vector<Pair>> sort_and_sweep(std::span<const Box2> boxes) {
  struct Entry {
    double min_x, max_x, min_y, max_y;
    std::uint32_t id;
  };
  std::vector<Entry> s(boxes.size());
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    if (absl::Status st = lwc::validate_box(boxes[i], i); !st.ok()) return st;
    const Box2& b = boxes[i];
    s[i] = {b.min[0], b.max[0], b.min[1], b.max[1], static_cast<std::uint32_t>(i)};
  }
  std::sort(s.begin(), s.end(), [](const Entry& a, const Entry& b) { return a.min_x < b.min_x; });
  std::vector<Pair> out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const Entry& a = s[i];
    for (std::size_t j = i + 1; j < s.size() && s[j].min_x <= a.max_x; ++j) {
      const Entry& b = s[j];
      if (a.min_y <= b.max_y && b.min_y <= a.max_y) out.push_back({std::min(a.id, b.id), std::max(a.id, b.id)});
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The bar of issue 15: an independent count-only flat grid with the reference-cell rule, written for
// speed and nothing else. Validation (finite, min <= max) fused with quantisation by floor(v / h) (any
// monotone quantiser finds every pair exactly once: docs/broadphase.md B8, B9); a counting sort of the
// memberships over the dense grid of the occupied cell range, one uint32 per membership [box id | 2
// start flags]; then, per cell of two boxes or more, the boxes gathered once into local arrays and each
// two tested: reference cell by their flags (one of them starts there on each axis), then the closed
// overlap. Returns the number of overlapping pairs, or -1 for an invalid box. No pair is stored: a
// lower bound for any implementation that must also return the pairs in canonical order. Worlds whose
// grid is far larger than the memberships are out of its scope (it would allocate the whole grid).
std::int64_t flat_grid_count(std::span<const Box2> boxes, double h) {
  const std::size_t n = boxes.size();
  if (n < 2) return 0;
  struct Cells {
    std::int32_t lo[2], hi[2];
  };
  std::vector<Cells> cells(n);
  const double inv = 1.0 / h;
  double lo_x = INFINITY, lo_y = INFINITY, hi_x = -INFINITY, hi_y = -INFINITY;
  bool valid = true;
  for (std::size_t i = 0; i < n; ++i) {
    const Box2& b = boxes[i];
    const double x0 = std::floor(b.min[0] * inv), y0 = std::floor(b.min[1] * inv);
    const double x1 = std::floor(b.max[0] * inv), y1 = std::floor(b.max[1] * inv);
    // False for NaN; infinities and cells beyond +-2^30 fail the range test.
    valid &= b.min[0] <= b.max[0] && b.min[1] <= b.max[1] && x0 >= -0x1p30 && y0 >= -0x1p30 && x1 <= 0x1p30 &&
             y1 <= 0x1p30;
    cells[i] = {{static_cast<std::int32_t>(x0), static_cast<std::int32_t>(y0)},
                {static_cast<std::int32_t>(x1), static_cast<std::int32_t>(y1)}};
    lo_x = std::min(lo_x, x0);
    lo_y = std::min(lo_y, y0);
    hi_x = std::max(hi_x, x1);
    hi_y = std::max(hi_y, y1);
  }
  if (!valid) return -1;
  const auto ox = static_cast<std::int32_t>(lo_x), oy = static_cast<std::int32_t>(lo_y);
  const auto gx = static_cast<std::size_t>(static_cast<std::int64_t>(hi_x) - ox + 1);
  const auto gy = static_cast<std::size_t>(static_cast<std::int64_t>(hi_y) - oy + 1);
  std::vector<std::uint32_t> start(gx * gy, 0);
  std::size_t m = 0;
  for (const Cells& c : cells) {
    for (std::int32_t y = c.lo[1]; y <= c.hi[1]; ++y) {
      std::uint32_t* row = &start[static_cast<std::size_t>(y - oy) * gx + static_cast<std::size_t>(-ox)];
      for (std::int32_t x = c.lo[0]; x <= c.hi[0]; ++x) ++row[x];
    }
    m += static_cast<std::size_t>(c.hi[0] - c.lo[0] + 1) * static_cast<std::size_t>(c.hi[1] - c.lo[1] + 1);
  }
  // Exclusive prefix sums: start[k] is where cell k's first membership goes; the fill advances it to the
  // end of cell k, where cell k + 1 begins.
  std::uint32_t sum = 0;
  std::uint32_t most = 0;
  for (std::size_t k = 0; k < gx * gy; ++k) {
    most = std::max(most, start[k]);
    sum += std::exchange(start[k], sum);
  }
  std::vector<std::uint32_t> members(m);
  for (std::size_t i = 0; i < n; ++i) {
    const Cells& c = cells[i];
    const auto id = static_cast<std::uint32_t>(i) << 2;
    for (std::int32_t y = c.lo[1]; y <= c.hi[1]; ++y) {
      std::uint32_t* row = &start[static_cast<std::size_t>(y - oy) * gx + static_cast<std::size_t>(-ox)];
      const std::uint32_t fy = y == c.lo[1] ? 2u : 0u;
      for (std::int32_t x = c.lo[0]; x <= c.hi[0]; ++x) members[row[x]++] = id | fy | (x == c.lo[0] ? 1u : 0u);
    }
  }
  std::int64_t pairs = 0;
  std::vector<double> gathered(4 * std::size_t{most});
  double* mnx = gathered.data();
  double* mny = mnx + most;
  double* mxx = mny + most;
  double* mxy = mxx + most;
  std::vector<std::uint32_t> flags(most);
  std::uint32_t* fl = flags.data();
  std::uint32_t begin = 0;
  constexpr std::size_t kAhead = 32;
  std::size_t fetched = 0;
  for (std::size_t k = 0; k < gx * gy; ++k) {
    const std::uint32_t end = start[k];
    const std::uint32_t c = end - begin;
    for (const std::size_t until = std::min<std::size_t>(m, end + kAhead); fetched < until; ++fetched) {
      __builtin_prefetch(&boxes[members[fetched] >> 2]);
    }
    if (c >= 2) {
      for (std::uint32_t j = 0; j < c; ++j) {
        const std::uint32_t w = members[begin + j];
        const Box2& b = boxes[w >> 2];
        mnx[j] = b.min[0];
        mny[j] = b.min[1];
        mxx[j] = b.max[0];
        mxy[j] = b.max[1];
        fl[j] = w & 3;
      }
      for (std::uint32_t a = 0; a + 1 < c; ++a) {
        const std::uint32_t fa = fl[a];
        const double ax0 = mnx[a], ay0 = mny[a], ax1 = mxx[a], ay1 = mxy[a];
        for (std::uint32_t b = a + 1; b < c; ++b) {
          pairs += static_cast<std::int64_t>(((fa | fl[b]) == 3) & (ax0 <= mxx[b]) & (mnx[b] <= ax1) &
                                             (ay0 <= mxy[b]) & (mny[b] <= ay1));
        }
      }
    }
    begin = end;
  }
  return pairs;
}

// kHashGrid is reported as "baseline_seed" (the name the goals below and past reports use).
enum class Impl { kLwc, kHashGrid, kSweep, kBrute, kFlat };

void run(benchmark::State& state, char kind, Impl impl) {
  const std::vector<Box2>& boxes = workload(kind, static_cast<std::size_t>(state.range(0)));
  const lwc::GridConfig config = grid_config();
  std::size_t pairs = 0;
  std::int64_t total_ns = 0;
  std::int64_t peak = 0;
  lwc::Stats stats;
  lwc::Timings timings;
  if (impl == Impl::kFlat) {
    // The bar must count what lwc reports: checked once per workload, before timing; abort on mismatch.
    absl::StatusOr<lwc::PairsResult> r = lwc::find_pairs(boxes, config);
    const std::int64_t count = flat_grid_count(boxes, kCellSize);
    if (!r.ok() || count != static_cast<std::int64_t>(r->pairs.size())) {
      std::fprintf(stderr, "baseline_flat counts %lld pairs, lwc %lld\n", static_cast<long long>(count),
                   r.ok() ? static_cast<long long>(r->pairs.size()) : -1LL);
      std::abort();
    }
  }
  for (auto _ : state) {
    const std::int64_t base = live_bytes.load();
    peak_bytes.store(base);
    const auto start = std::chrono::steady_clock::now();
    switch (impl) {
      case Impl::kLwc: {
        absl::StatusOr<lwc::PairsResult> r = lwc::find_pairs(boxes, config, &timings);
        if (!r.ok()) state.SkipWithError(std::string(r.status().message()).c_str());
        pairs = r.ok() ? r->pairs.size() : 0;
        if (r.ok()) stats = r->stats;
        benchmark::DoNotOptimize(r);
        break;
      }
      case Impl::kHashGrid: {
        absl::StatusOr<lwc::bench::HashGridResult> r = lwc::bench::hash_grid_pairs(boxes, config);
        if (!r.ok()) state.SkipWithError(std::string(r.status().message()).c_str());
        pairs = r.ok() ? r->pairs.size() : 0;
        benchmark::DoNotOptimize(r);
        break;
      }
      case Impl::kSweep: {
        absl::StatusOr<std::vector<Pair>> r = sort_and_sweep(boxes);
        pairs = r.ok() ? r->size() : 0;
        benchmark::DoNotOptimize(r);
        break;
      }
      case Impl::kFlat: {
        const std::int64_t count = flat_grid_count(boxes, kCellSize);
        pairs = static_cast<std::size_t>(count);
        benchmark::DoNotOptimize(count);
        break;
      }
      case Impl::kBrute: {
        std::vector<Pair> r = lwc::contracts::brute_force_pairs(boxes);
        pairs = r.size();
        benchmark::DoNotOptimize(r);
        break;
      }
    }
    const std::int64_t ns =
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
    total_ns += ns;
    peak = std::max(peak, peak_bytes.load() - base);
  }
  const double calls = static_cast<double>(state.iterations());
  state.counters["ns_per_box"] = static_cast<double>(total_ns) / calls / static_cast<double>(boxes.size());
  state.counters["ns_per_pair"] = static_cast<double>(total_ns) / calls / static_cast<double>(std::max<std::size_t>(pairs, 1));
  state.counters["pairs"] = static_cast<double>(pairs);
  state.counters["peak_MB"] = static_cast<double>(peak) / 1e6;
  state.counters["input_MB"] = static_cast<double>(boxes.size() * sizeof(Box2)) / 1e6;
  if (impl == Impl::kLwc) {
    state.counters["memberships"] = static_cast<double>(stats.memberships);
    state.counters["validation_ms"] = static_cast<double>(timings.validation_ns) / 1e6;
    state.counters["registration_ms"] = static_cast<double>(timings.registration_ns) / 1e6;
    state.counters["pairing_ms"] = static_cast<double>(timings.pairing_ns) / 1e6;
  }
}

// One frame of a moving world: `percent` of the boxes (picked at random, with repetition) jitter. Returns
// the boxes moved, in order, so that the timed part of a frame is the engine's work only.
struct MovingWorld {
  std::vector<Box2> boxes;
  std::vector<lwc::Handle> handles;
  std::mt19937_64 rng{42};
};

std::vector<std::size_t> jitter(MovingWorld& w, int percent) {
  std::uniform_int_distribution<std::size_t> pick(0, w.boxes.size() - 1);
  std::uniform_real_distribution<double> d(-0.5, 0.5);
  std::vector<std::size_t> moved;
  for (std::size_t m = w.boxes.size() * static_cast<std::size_t>(percent) / 100; m > 0; --m) {
    const std::size_t i = pick(w.rng);
    const double dx = d(w.rng);
    const double dy = d(w.rng);
    Box2& b = w.boxes[i];
    b = {{b.min[0] + dx, b.min[1] + dy}, {b.max[0] + dx, b.max[1] + dy}};
    moved.push_back(i);
  }
  return moved;
}

void moving_update(benchmark::State& state, int percent, char kind) {
  MovingWorld w;
  w.boxes = workload(kind, static_cast<std::size_t>(state.range(0)));
  absl::StatusOr<lwc::PersistentGrid<2>> grid = lwc::PersistentGrid<2>::create(grid_config());
  const auto built = std::chrono::steady_clock::now();
  for (const Box2& b : w.boxes) w.handles.push_back(*grid->insert(b));
  absl::StatusOr<lwc::ContactEvents> first = grid->update();
  const std::chrono::duration<double> build = std::chrono::steady_clock::now() - built;
  if (!first.ok()) {
    state.SkipWithError(std::string(first.status().message()).c_str());
    return;
  }
  lwc::UpdateStats stats;
  double events = 0;
  double moved_boxes = 0;
  lwc::ContactEvents e;  // reused frame after frame (E12)
  for (auto _ : state) {
    const std::vector<std::size_t> moved = jitter(w, percent);
    const auto start = std::chrono::steady_clock::now();
    for (const std::size_t i : moved) {
      if (!grid->move(w.handles[i], w.boxes[i]).ok()) std::abort();
    }
    const absl::Status s = grid->update_into(e);
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    state.SetIterationTime(elapsed.count());
    if (!s.ok()) {
      state.SkipWithError(std::string(s.message()).c_str());
      break;
    }
    stats = e.stats;
    moved_boxes += static_cast<double>(moved.size());
    events += static_cast<double>(e.began.size() + e.ended.size());
    benchmark::DoNotOptimize(e);
  }
  state.counters["moved_per_frame"] = moved_boxes / static_cast<double>(std::max<benchmark::IterationCount>(state.iterations(), 1));
  state.counters["pairs"] = static_cast<double>(stats.pairs);
  state.counters["events_per_frame"] = events / static_cast<double>(std::max<benchmark::IterationCount>(state.iterations(), 1));
  state.counters["touched"] = static_cast<double>(stats.memberships_touched);
  state.counters["visits"] = static_cast<double>(stats.pair_visits);
  state.counters["first_build_ms"] = build.count() * 1e3;
}

void moving_rebuild(benchmark::State& state, int percent, char kind) {
  MovingWorld w;
  w.boxes = workload(kind, static_cast<std::size_t>(state.range(0)));
  const lwc::GridConfig config = grid_config();
  std::size_t pairs = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(jitter(w, percent));
    const auto start = std::chrono::steady_clock::now();
    absl::StatusOr<lwc::PairsResult> r = lwc::find_pairs(w.boxes, config);
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    state.SetIterationTime(elapsed.count());
    if (!r.ok()) {
      state.SkipWithError(std::string(r.status().message()).c_str());
      break;
    }
    pairs = r->pairs.size();
    benchmark::DoNotOptimize(r);
  }
  state.counters["pairs"] = static_cast<double>(pairs);
}

// The first build of a persistent grid (every insert, then the first update, which reports every pair as
// began) against one batch find_pairs of the same boxes.
void first_build(benchmark::State& state, char kind, bool persistent) {
  const std::vector<Box2>& boxes = workload(kind, static_cast<std::size_t>(state.range(0)));
  const lwc::GridConfig config = grid_config();
  std::size_t pairs = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    if (persistent) {
      absl::StatusOr<lwc::PersistentGrid<2>> grid = lwc::PersistentGrid<2>::create(config);
      for (const Box2& b : boxes) {
        if (!grid->insert(b).ok()) std::abort();
      }
      lwc::ContactEvents e;
      if (!grid->update_into(e).ok()) std::abort();
      pairs = e.began.size();
      state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      benchmark::DoNotOptimize(e);
    } else {
      absl::StatusOr<lwc::PairsResult> r = lwc::find_pairs(boxes, config);
      if (!r.ok()) std::abort();
      pairs = r->pairs.size();
      state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      benchmark::DoNotOptimize(r);
    }
  }
  state.counters["pairs"] = static_cast<double>(pairs);
}

// lwc's time per reported pair, as the benchmark's time: the ratio of "per_pair" medians is then the
// ratio of per-pair times between the walls and the uniform workload.
void per_pair(benchmark::State& state, char kind) {
  const std::vector<Box2>& boxes = workload(kind, static_cast<std::size_t>(state.range(0)));
  const lwc::GridConfig config = grid_config();
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    absl::StatusOr<lwc::PairsResult> r = lwc::find_pairs(boxes, config);
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    if (!r.ok() || r->pairs.empty()) {
      state.SkipWithError("no pairs");
      break;
    }
    state.SetIterationTime(elapsed.count() / static_cast<double>(r->pairs.size()));
    benchmark::DoNotOptimize(r);
  }
}

// find_pairs at 1M over `threads` threads (0: the plain serial call) or, with `floats`, over the boxes
// rounded to float and read through a BoxView.
void every_core(benchmark::State& state, char kind, std::uint32_t threads, bool floats) {
  const std::vector<Box2>& boxes = workload(kind, static_cast<std::size_t>(state.range(0)));
  static std::map<std::pair<char, std::size_t>, std::vector<lwc::FloatBox<2>>> float_cache;
  std::vector<lwc::FloatBox<2>>& rounded = float_cache[{kind, boxes.size()}];
  if (floats && rounded.empty()) {
    for (const Box2& b : boxes) {
      rounded.push_back({{static_cast<float>(b.min[0]), static_cast<float>(b.min[1])},
                         {static_cast<float>(b.max[0]), static_cast<float>(b.max[1])}});
    }
  }
  std::unique_ptr<lwc::ThreadPool> pool;
  if (threads > 0) pool = *lwc::ThreadPool::create(threads);
  const lwc::GridConfig config = grid_config();
  std::size_t pairs = 0;
  lwc::Timings timings;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    absl::StatusOr<lwc::PairsResult> r =
        floats ? lwc::find_pairs(lwc::BoxView<2, float>(rounded), config, {}, &timings)
               : (pool ? lwc::find_pairs(boxes, config, pool->tasks(), &timings) : lwc::find_pairs(boxes, config, &timings));
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    if (!r.ok()) {
      state.SkipWithError(std::string(r.status().message()).c_str());
      break;
    }
    pairs = r->pairs.size();
    state.SetIterationTime(elapsed.count());
    benchmark::DoNotOptimize(r);
  }
  state.counters["pairs"] = static_cast<double>(pairs);
  // The phases of the last call (lwc::Timings), to see what a second thread splits and what it does not.
  state.counters["validation_ms"] = static_cast<double>(timings.validation_ns) / 1e6;
  state.counters["registration_ms"] = static_cast<double>(timings.registration_ns) / 1e6;
  state.counters["pairing_ms"] = static_cast<double>(timings.pairing_ns) / 1e6;
}

const bool registered = [] {
  struct Size {
    std::int64_t n;
    int repetitions;  // for lwc; 0: the default (9)
  };
  for (const char kind : {'u', 'w'}) {
    const char* group = kind == 'u' ? "uniform" : "walls";
    for (const Size s : {Size{10'000, 0}, Size{100'000, 0}, Size{1'000'000, 5}}) {
      const auto add = [&](const char* impl, Impl which) {
        benchmark::internal::Benchmark* b =
            benchmark::RegisterBenchmark((std::string(group) + "." + impl).c_str(), run, kind, which)
                ->Arg(s.n)
                ->Unit(benchmark::kMillisecond);
        // 1M: one call per repetition; the baselines take seconds each, so they get two.
        if (s.repetitions > 0) {
          b->Repetitions(which == Impl::kLwc || which == Impl::kFlat ? s.repetitions : 2)->Iterations(1);
        }
      };
      add("lwc", Impl::kLwc);
      add("baseline_flat", Impl::kFlat);
      add("baseline_seed", Impl::kHashGrid);
      add("baseline_sweep", Impl::kSweep);
      if (s.n <= 10'000) add("baseline_brute", Impl::kBrute);
    }
  }
  // Manual time is per pair (~1 us), so the iteration count is fixed: Google Benchmark would otherwise
  // run calls until a whole second of per-pair time had accumulated.
  for (const std::int64_t n : {100'000, 1'000'000}) {
    for (const auto& [name, kind] : {std::pair{"per_pair.lwc_walls", 'w'}, std::pair{"per_pair.baseline_lwc_uniform", 'u'}}) {
      benchmark::RegisterBenchmark(name, per_pair, kind)
          ->Arg(n)
          ->UseManualTime()
          ->Unit(benchmark::kNanosecond)
          ->Iterations(n >= 1'000'000 ? 2 : 10)
          ->Repetitions(n >= 1'000'000 ? 3 : 9);
    }
  }
  for (const auto& [impl, which] : {std::pair{"lwc", Impl::kLwc}, std::pair{"baseline_flat", Impl::kFlat},
                                    std::pair{"baseline_seed", Impl::kHashGrid},
                                    std::pair{"baseline_sweep", Impl::kSweep}, std::pair{"baseline_brute", Impl::kBrute}}) {
    benchmark::RegisterBenchmark((std::string("seed729.") + impl).c_str(), run, 's', which)->Arg(729)->Unit(benchmark::kMicrosecond);
  }
  // Issue 14: W1 (uniform, "moving_*") and W2 (1% walls, "moving_walls_*"), 1% and 10% moved, 100k and
  // 1M boxes (1M: fewer frames and three repetitions), against find_pairs on the same kind of frames; and
  // the first build against a batch find_pairs ("first_build", "first_build_walls").
  for (const char kind : {'u', 'w'}) {
    const std::string world = kind == 'u' ? "moving_" : "moving_walls_";
    for (const int percent : {1, 10}) {
      const std::string group = world + std::to_string(percent) + "pct";
      for (const std::int64_t n : {100'000, 1'000'000}) {
        const bool big = n >= 1'000'000;
        benchmark::RegisterBenchmark((group + ".lwc_update").c_str(), moving_update, percent, kind)
            ->Arg(n)->UseManualTime()->Unit(benchmark::kMillisecond)
            ->Iterations(big ? (percent == 1 ? 20 : 5) : (percent == 1 ? 100 : 20))->Repetitions(big ? 3 : 9);
        benchmark::RegisterBenchmark((group + ".baseline_rebuild").c_str(), moving_rebuild, percent, kind)
            ->Arg(n)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(big ? 2 : 10)->Repetitions(big ? 3 : 9);
      }
    }
    const std::string build = kind == 'u' ? "first_build" : "first_build_walls";
    for (const std::int64_t n : {100'000, 1'000'000}) {
      const bool big = n >= 1'000'000;
      benchmark::RegisterBenchmark((build + ".lwc_persistent").c_str(), first_build, kind, true)
          ->Arg(n)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(big ? 1 : 3)->Repetitions(big ? 3 : 9);
      benchmark::RegisterBenchmark((build + ".baseline_find_pairs").c_str(), first_build, kind, false)
          ->Arg(n)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(big ? 1 : 3)->Repetitions(big ? 3 : 9);
    }
  }
  for (const char kind : {'u', 'w'}) {
    const std::string threads = kind == 'u' ? "threads_uniform" : "threads_walls";
    const std::string width = kind == 'u' ? "float_uniform" : "float_walls";
    const auto add = [&](const std::string& name, std::uint32_t n, bool floats) {
      benchmark::RegisterBenchmark(name.c_str(), every_core, kind, n, floats)
          ->Arg(1'000'000)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1)->Repetitions(7);
    };
    add(threads + ".baseline_1_thread", 0, false);
    add(threads + ".lwc_2_threads", 2, false);
    add(threads + ".lwc_4_threads", 4, false);
    add(threads + ".lwc_8_threads", 8, false);
    add(width + ".baseline_double", 0, false);
    add(width + ".lwc_float", 0, true);
  }
  lwc::bench::goal("threads_uniform", "lwc_2_threads", "baseline_1_thread", 1.0 / 1.8);
  lwc::bench::goal("threads_walls", "lwc_2_threads", "baseline_1_thread", 1.0 / 1.8);
  lwc::bench::goal("float_uniform", "lwc_float", "baseline_double", 0.9);
  lwc::bench::goal("float_walls", "lwc_float", "baseline_double", 0.9);
  lwc::bench::goal("moving_1pct", "lwc_update", "baseline_rebuild", 0.03);
  lwc::bench::goal("moving_10pct", "lwc_update", "baseline_rebuild", 0.3);
  lwc::bench::goal("moving_walls_1pct", "lwc_update", "baseline_rebuild", 0.03);
  lwc::bench::goal("moving_walls_10pct", "lwc_update", "baseline_rebuild", 0.3);
  lwc::bench::goal("first_build", "lwc_persistent", "baseline_find_pairs", 1.5);
  lwc::bench::goal("first_build_walls", "lwc_persistent", "baseline_find_pairs", 1.5);
  lwc::bench::goal("uniform", "lwc", "baseline_seed", 1.0 / 5);
  lwc::bench::goal("uniform", "lwc", "baseline_sweep", 1.0 / 4);
  lwc::bench::goal("walls", "lwc", "baseline_seed", 1.0 / 6);
  lwc::bench::goal("walls", "lwc", "baseline_sweep", 1.0 / 4);
  lwc::bench::goal("per_pair", "lwc_walls", "baseline_lwc_uniform", 1.5);
  // Issue 15: single thread within 1.15x of the count-only flat grid, W1 and W2, 100k and 1M.
  lwc::bench::goal("uniform", "lwc", "baseline_flat", 1.15);
  lwc::bench::goal("walls", "lwc", "baseline_flat", 1.15);
  return true;
}();

}  // namespace
