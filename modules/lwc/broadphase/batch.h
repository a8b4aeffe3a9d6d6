// SPDX-License-Identifier: MIT
// File: modules/lwc/broadphase/batch.h
//
// The batch broad phase, find_pairs and its forms (the caller's boxes B13, the caller's output B14, every
// core B15): the boxes placed once (:box), registered level by level (:level), every level paired cell by
// cell through the one pairing kernel (:cells) and probed by the boxes of finer levels (B11), the work cut
// into parts over a task system (:tasks), and the pairs sorted once into canonical order (:sort).
// Spec: docs/broadphase.md (B1-B15).
//
// One source, two modes (lwc/config.h): `#include <lwc/broadphase.h>` brings it without module support;
// the module unit modules/broadphase/batch.cppm exports the same declarations as lwc.broadphase:batch.
#ifndef LWC_BROADPHASE_BATCH_H_
#define LWC_BROADPHASE_BATCH_H_

#include "lwc/config.h"
#ifndef LWC_MODULE_UNIT  // modules/broadphase/batch.cppm includes these in its global module fragment
#include <algorithm>
#include <atomic>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "lwc/exact_fp.h"
// ... and imports these.
#include "lwc/decompose.h"
#include "lwc/broadphase/box.h"
#include "lwc/broadphase/place.h"
#include "lwc/broadphase/cells.h"
#include "lwc/broadphase/level.h"
#include "lwc/broadphase/sort.h"
#include "lwc/broadphase/tasks.h"
#endif

// The arithmetic below is exact IEEE arithmetic whatever the consumer's flags (lwc/exact_fp.h).
LWC_EXACT_FP_BEGIN

LWC_EXPORT namespace lwc {

// Stats
//
// Exact counts (B12) of one call. A "visit" is one (pair, shared cell) incidence met while pairing; a
// "candidate" is a pair met in its reference cell, i.e. a distinct pair sharing a cell. Stats are a pure
// function of the input (equal inputs give equal stats); the time a call took is a Timings probe.
struct Stats {
  std::int64_t boxes = 0;
  std::int64_t memberships = 0;      // sum over boxes of the cells at the box's level
  std::int64_t occupied_cells = 0;   // distinct (level, cell) with at least one box
  std::int64_t pair_visits = 0;      // sum over shared cells of every candidate pair
  std::int64_t unique_candidates = 0;
  std::int64_t pairs = 0;
  std::int64_t levels = 0;           // levels holding at least one box
  std::int64_t coarse_boxes = 0;     // boxes above level 0 (kCoarserLevels only)
};

// PairsResult
//
// The pairs in canonical order (B1-B4) and the stats of the call that found them.
struct PairsResult {
  std::vector<Pair> pairs;
  Stats stats;
};

}  // namespace lwc

namespace lwc::internal {

// The registered grid of one set of boxes: one Level per level that holds boxes, level 0 first.
template <std::size_t D>
struct Index {
  std::vector<Level<D>> levels;
  std::vector<int> level_of;         // per box level; empty when every box is on level 0
  Stats stats;
  std::int64_t max_pairs = 0;
  int id_bits = 0;
};

[[nodiscard]] inline absl::Status too_many_boxes(std::size_t n) {
  return absl::ResourceExhaustedError(
      absl::StrCat(n, " boxes: box indices are 32-bit, at most 4294967295 boxes per call (B7)"));
}

// Level 0 registered from the placements (B8, B9): its residents are every box not above it, their cells
// read from the store (a dense level through its compact boxes, after which the store is released).
template <std::size_t D>
void register_base(Index<D>& index, Placements<D>& placed, std::size_t box_count, CellSize h, const TaskSystem& tasks) {
  if (placed.base_memberships == 0) return;
  Level<D> base;
  base.level = 0;
  base.size = h;
  base.origin = placed.base_cells.lo;
  base.top = placed.base_cells.hi;
  base.bounds = placed.base_bounds;
  plan_keys(base, box_count, placed.base_memberships);
  base.residents.reserve(placed.base_boxes);
  for (std::size_t i = 0; i < box_count; ++i) {
    if (index.level_of.empty() || index.level_of[i] == 0) base.residents.push_back(static_cast<std::uint32_t>(i));
  }
  const std::vector<DenseBox> compact = dense_boxes(base, placed.cells);
  if (!compact.empty()) placed.cells = {};
  register_level(base, placed.base_memberships, [&](auto&& add) {
    for (const std::uint32_t id : base.residents) add(id, placed.cells[id]);
  }, compact, tasks);
  index.levels.push_back(std::move(base));
}

// The coarser levels, ascending (B11): few boxes each, registered from their placements.
template <std::size_t D, typename Boxes>
void register_coarse(Index<D>& index, std::vector<Coarse<D>>& coarse, const Boxes& boxes, CellSize h) {
  std::sort(coarse.begin(), coarse.end(), [](const Coarse<D>& a, const Coarse<D>& b) {
    return a.where.level != b.where.level ? a.where.level < b.where.level : a.id < b.id;
  });
  for (std::size_t i = 0, j = 0; i < coarse.size(); i = j) {
    Level<D> level;
    level.level = coarse[i].where.level;
    level.size = *CellSize::create(level_cell_size(h.value(), level.level));
    level.origin = coarse[i].where.cells.lo;
    level.top = coarse[i].where.cells.hi;
    level.bounds = boxes[coarse[i].id];
    std::int64_t memberships = 0;
    for (j = i; j < coarse.size() && coarse[j].where.level == level.level; ++j) {  // ids ascend within a level
      const Box<D> b = boxes[coarse[j].id];
      memberships += coarse[j].where.cell_count;  // <= total
      level.residents.push_back(coarse[j].id);
      for (std::size_t k = 0; k < D; ++k) {
        level.origin[k] = std::min(level.origin[k], coarse[j].where.cells.lo[k]);
        level.top[k] = std::max(level.top[k], coarse[j].where.cells.hi[k]);
        level.bounds.min[k] = std::min(level.bounds.min[k], b.min[k]);
        level.bounds.max[k] = std::max(level.bounds.max[k], b.max[k]);
      }
    }
    plan_keys(level, boxes.size(), memberships);
    register_level(level, memberships, [&](auto&& add) {
      for (std::size_t m = i; m < j; ++m) add(coarse[m].id, coarse[m].where.cells);
    });
    index.levels.push_back(std::move(level));
  }
}

// build_index()
//
// Validation and placement (:box, B6-B8, B11), the membership budget (B7), then registration: nothing
// proportional to a box's cells is allocated before the span of every box and the total are known to be
// within budget. With a task system of W > 1 workers (B15) only the radix sort of a packed level that is
// not dense is split (radix_sort over the task system); the dense levels' counting sort, the common
// case, stays serial.
template <std::size_t D, typename Boxes>
[[nodiscard]] absl::StatusOr<Index<D>> build_index(const Boxes& boxes, const GridSpec<D>& spec, Timings* timings,
                                                  const TaskSystem& tasks = {}) {
  const Stopwatch validating(timings);
  if (boxes.size() > std::numeric_limits<std::uint32_t>::max()) return too_many_boxes(boxes.size());
  const GridConfig& config = spec.config();
  absl::StatusOr<Placements<D>> placed = place_all<D>(boxes, spec);
  if (!placed.ok()) return placed.status();
  if (placed->total > config.max_memberships.value()) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "the boxes need ", static_cast<std::int64_t>(placed->total), " memberships, more than max_memberships = ",
        config.max_memberships.value(), " (B7)"));
  }
  Index<D> index;
  index.max_pairs = config.max_pairs.value();
  index.id_bits = static_cast<int>(std::bit_width(boxes.size() > 1 ? boxes.size() - 1 : std::size_t{1}));
  index.stats.boxes = static_cast<std::int64_t>(boxes.size());
  index.stats.memberships = static_cast<std::int64_t>(placed->total);
  index.stats.coarse_boxes = static_cast<std::int64_t>(placed->coarse.size());
  validating.stop(timings, &Timings::validation_ns);

  const Stopwatch registering(timings);
  if (!placed->coarse.empty()) {
    index.level_of.assign(boxes.size(), 0);
    for (const Coarse<D>& c : placed->coarse) index.level_of[c.id] = c.where.level;
  }
  register_base(index, *placed, boxes.size(), spec.cell_size(), tasks);
  register_coarse(index, placed->coarse, boxes, spec.cell_size());
  for (const Level<D>& level : index.levels) index.stats.occupied_cells += level.occupied;
  index.stats.levels = static_cast<std::int64_t>(index.levels.size());
  registering.stop(timings, &Timings::registration_ns);
  return index;
}

// Every box of [begin, end) against every coarser level than its own (B11): it probes the level and meets
// each resident there once, from their reference cell. Returns false when `limit` is full.
template <std::size_t D, typename Boxes>
[[nodiscard]] bool probe_coarse(const Index<D>& index, const Boxes& boxes, std::size_t begin, std::size_t end,
                                PairLimit& limit, PairBlocks& out, Counters& counters) {
  bool within = true;
  for (const Level<D>& level : index.levels) {
    if (level.level == 0 || !within) continue;
    for (std::size_t i = begin; i < end && within; ++i) {
      const int own = index.level_of.empty() ? 0 : index.level_of[i];
      if (own >= level.level) continue;
      const auto id = static_cast<std::uint32_t>(i);
      probe_level(level, boxes, boxes[i], counters, [&](std::uint32_t resident) {
        if (!within) return;
        if (limit.full(out.size())) {
          within = false;
          return;
        }
        out.push_back({std::min(id, resident), std::max(id, resident)});
      });
    }
  }
  return within;
}

// One part of a pairing pass, on cache lines of its own: the counters and the pair count are written for
// every cell and pair, and two parts sharing a line would make every write a miss on the other core.
struct alignas(64) PairingPart {
  PairingPart(std::uint64_t limit, std::atomic<std::uint64_t>* shared) : budget(limit, shared) {}
  PairLimit budget;  // publishes this part's count to `shared`
  PairBlocks pairs;
  Counters counters;
};

// The cut points of a packed level between `parts` parts, on cell boundaries (a cell's memberships are
// never split): a dense level by keys, about the same number of memberships each; a sorted packed level
// by words.
template <std::size_t D>
[[nodiscard]] std::vector<std::uint64_t> cut_points(const Level<D>& level, std::uint32_t parts) {
  std::vector<std::uint64_t> cut(parts + 1);
  cut[0] = 0;
  if (level.dense) {
    cut[parts] = level.keys;
    const std::size_t m = level.members.size();
    for (std::uint32_t p = 1; p < parts; ++p) {
      // The first key whose memberships start at or after p / parts of them.
      const auto* at = std::lower_bound(level.starts.data(), level.starts.data() + level.keys, m / parts * p);
      cut[p] = std::max<std::uint64_t>(cut[p - 1], static_cast<std::uint64_t>(at - level.starts.data()));
    }
    return cut;
  }
  const std::vector<std::uint64_t>& w = level.words;
  cut[parts] = w.size();
  for (std::uint32_t p = 1; p < parts; ++p) {
    std::size_t c = std::max<std::size_t>(static_cast<std::size_t>(cut[p - 1]), w.size() / parts * p);
    while (c > cut[p - 1] && c < w.size() && (w[c] >> level.key_shift) == (w[c - 1] >> level.key_shift)) ++c;
    cut[p] = c;
  }
  return cut;
}

// The pairs of an index, unsorted, one PairBlocks per part, with the work counters; within == false when
// there are more than `limit` (B7). Within every level, then every box against every coarser level it is
// finer than. No pair set: each pair is met in one reference cell only.
struct FoundPairs {
  std::vector<PairBlocks> parts;
  Counters counters;
  std::size_t size = 0;
  bool within = true;
};

// Every level paired within itself, over the parts: a packed level cut between them (cut_points), a wide
// level (a world of more than ~2^40 cells) whole by part 0.
template <std::size_t D, typename Boxes>
void pair_levels(const Index<D>& index, const Boxes& boxes, std::vector<PairingPart>& part, const TaskSystem& tasks,
                 std::atomic<bool>& over) {
  const auto parts = static_cast<std::uint32_t>(part.size());
  for (const Level<D>& level : index.levels) {
    if (over.load(std::memory_order_relaxed)) return;
    if (parts == 1 || !level.packed) {
      if (!pair_level(level, boxes, part[0].budget, part[0].pairs, part[0].counters)) over.store(true);
      continue;
    }
    const std::vector<std::uint64_t> cut = cut_points(level, parts);
    auto run = [&](std::uint32_t p) {
      if (cut[p] < cut[p + 1] && !over.load(std::memory_order_relaxed) &&
          !pair_level(level, boxes, part[p].budget, part[p].pairs, part[p].counters, cut[p], cut[p + 1])) {
        over.store(true, std::memory_order_relaxed);
      }
    };
    run_parts(tasks, parts, run);
  }
}

// find_unsorted()
//
// With a task system of W > 1 workers (B15) the work is cut into W parts: each level by pair_levels, the
// probes of the coarser levels (B11) by ranges of boxes. Each part has its own pair blocks, counters and
// share of the one pair budget (PairLimit): every cell and every probing box is handled by exactly one
// part, so the counters' sums and the set of pairs are those of the serial pass, and the final sort makes
// the order the same.
template <std::size_t D, typename Boxes>
[[nodiscard]] FoundPairs find_unsorted(const Index<D>& index, const Boxes& boxes, std::uint64_t limit,
                                       const TaskSystem& tasks) {
  const std::uint32_t parts = std::max<std::uint32_t>(1, tasks.workers);
  std::atomic<std::uint64_t> shared{0};
  std::vector<PairingPart> part;
  part.reserve(parts);
  for (std::uint32_t p = 0; p < parts; ++p) part.emplace_back(limit, parts == 1 ? nullptr : &shared);
  std::atomic<bool> over{false};
  pair_levels(index, boxes, part, tasks, over);
  bool coarse = false;
  for (const Level<D>& level : index.levels) coarse |= level.level != 0;
  if (coarse && !over.load(std::memory_order_relaxed)) {
    const PartRanges range{boxes.size(), parts};
    auto run = [&](std::uint32_t p) {
      if (!probe_coarse(index, boxes, range.begin(p), range.end(p), part[p].budget, part[p].pairs, part[p].counters)) {
        over.store(true, std::memory_order_relaxed);
      }
    };
    run_parts(tasks, parts, run);
  }
  FoundPairs result;
  result.parts.reserve(parts);
  for (PairingPart& p : part) {
    result.counters.visits += p.counters.visits;
    result.counters.candidates += p.counters.candidates;
    result.size += p.pairs.size();
    result.parts.push_back(std::move(p.pairs));
  }
  // Each part stops only when the published total proves more than `limit` pairs; the sum decides.
  result.within = !over.load(std::memory_order_relaxed) && result.size <= limit;
  return result;
}

// ResourceExhausted for more pairs than the limit: over max_pairs (B7), or over the caller's buffer of
// `room` pairs when that is the smaller (B14).
[[nodiscard]] inline absl::Status too_many_pairs(std::int64_t max_pairs, std::size_t room) {
  if (static_cast<std::uint64_t>(room) < static_cast<std::uint64_t>(max_pairs)) {
    return absl::ResourceExhaustedError(absl::StrCat("more than the output buffer's ", room,
                                                     " pairs (max_pairs = ", max_pairs, "); nothing written (B14)"));
  }
  return absl::ResourceExhaustedError(absl::StrCat("more than max_pairs = ", max_pairs, " overlapping pairs (B7)"));
}

// Level 0's resident list is read only by probes of level 0, i.e. queries: a spent index drops it
// before pairing, which lowers the peak memory of find_pairs.
template <std::size_t D>
void release_level0_residents(Index<D>& spent) {
  for (Level<D>& level : spent.levels) {
    if (level.level == 0) level.residents = {};
  }
}

// pair_index()
//
// Pairing (B1-B4): find_unsorted, then one radix sort into canonical order, at most min(max_pairs, room)
// pairs (B7, B14). `spent`, when given, is `index` itself, no longer needed by the caller: level 0's
// resident list is released before pairing and the memberships before the final sort, which lowers the
// peak memory of find_pairs.
template <std::size_t D, typename Boxes>
[[nodiscard]] absl::StatusOr<PairsResult> pair_index(const Index<D>& index, const Boxes& boxes, Timings* timings,
                                                     Index<D>* spent = nullptr, const TaskSystem& tasks = {},
                                                     std::size_t room = std::numeric_limits<std::size_t>::max()) {
  const Stopwatch pairing(timings);
  if (spent != nullptr) release_level0_residents(*spent);
  const std::uint64_t limit = std::min(static_cast<std::uint64_t>(index.max_pairs), static_cast<std::uint64_t>(room));
  FoundPairs found = find_unsorted(index, boxes, limit, tasks);
  if (!found.within) return too_many_pairs(index.max_pairs, room);
  PairsResult result;
  result.stats = index.stats;
  const int id_bits = index.id_bits;
  if (spent != nullptr) {
    spent->levels = {};
    spent->level_of = {};
  }
  radix_sort_pairs(std::span<PairBlocks>(found.parts), result.pairs, id_bits, tasks);
  result.stats.pair_visits = found.counters.visits;
  result.stats.unique_candidates = found.counters.candidates;
  result.stats.pairs = static_cast<std::int64_t>(result.pairs.size());
  pairing.stop(timings, &Timings::pairing_ns);
  return result;
}

// The one path of every find_pairs form: the task system, the config, the index, the pairs (at most
// `room` of them, B14).
template <std::size_t D, typename Boxes>
[[nodiscard]] absl::StatusOr<PairsResult> find_pairs(const Boxes& boxes, const GridConfig& config, Timings* timings,
                                                     const TaskSystem& tasks = {},
                                                     std::size_t room = std::numeric_limits<std::size_t>::max()) {
  if (absl::Status s = validate_tasks(tasks); !s.ok()) return s;
  absl::StatusOr<GridSpec<D>> spec = GridSpec<D>::create(config);
  if (!spec.ok()) return spec.status();
  absl::StatusOr<Index<D>> index = build_index<D>(boxes, *spec, timings, tasks);
  if (!index.ok()) return index.status();
  return pair_index<D>(*index, boxes, timings, &*index, tasks, room);
}

}  // namespace lwc::internal

LWC_EXPORT namespace lwc {

// find_pairs()
//
// Every pair of overlapping boxes (closed: touching counts), each exactly once as (a, b) with a < b, in
// lexicographic order (B1-B4); the same for every valid cell size and either oversize policy (B5).
// Errors, with no partial result (B6, B7): InvalidArgument for a bad config or a bad box (NaN or
// infinite bound, min > max; the message names the box index); OutOfRange for a box whose cells are not
// int64 (kReject); ResourceExhausted when a box spans more than max_cells_per_box cells (kReject), the
// memberships exceed max_memberships, or the pairs exceed max_pairs. The first failing box in index
// order decides; totals are checked after every box. Budgets are decided before anything proportional
// to them is allocated: a box spanning 10^15 cells is refused in constant time. `timings`, when given,
// receives the time of each phase (validation, registration, pairing).
//
// Example:
//   std::vector<lwc::Box2> boxes = {{{0, 0}, {10, 2}}, {{9, 0.5}, {9.5, 1.5}}};
//   absl::StatusOr<lwc::PairsResult> r = lwc::find_pairs(boxes, {.cell_size = lwc::CellSize::of<2.0>()});
//   // r->pairs == {(0, 1)}; r->stats.memberships == 13
[[nodiscard]] inline absl::StatusOr<PairsResult> find_pairs(std::span<const Box2> boxes, const GridConfig& config,
                                                            Timings* timings = nullptr) {
  return internal::find_pairs<2>(boxes, config, timings);
}
[[nodiscard]] inline absl::StatusOr<PairsResult> find_pairs(std::span<const Box3> boxes, const GridConfig& config,
                                                            Timings* timings = nullptr) {
  return internal::find_pairs<3>(boxes, config, timings);
}

// find_pairs(), parallel
//
// The same call split over `tasks` (a ThreadPool's, or the caller's job system): bit-identical pairs and
// stats and the same errors as the serial call for every input (B15); InvalidArgument for an unusable
// task system (0 or more than 256 workers, or more than one without enqueue and finish).
//
// Example:
//   absl::StatusOr<std::unique_ptr<lwc::ThreadPool>> pool = lwc::ThreadPool::create(4);
//   absl::StatusOr<lwc::PairsResult> r = lwc::find_pairs(boxes, config, (*pool)->tasks());
[[nodiscard]] inline absl::StatusOr<PairsResult> find_pairs(std::span<const Box2> boxes, const GridConfig& config,
                                                            const TaskSystem& tasks, Timings* timings = nullptr) {
  return internal::find_pairs<2>(boxes, config, timings, tasks);
}
[[nodiscard]] inline absl::StatusOr<PairsResult> find_pairs(std::span<const Box3> boxes, const GridConfig& config,
                                                            const TaskSystem& tasks, Timings* timings = nullptr) {
  return internal::find_pairs<3>(boxes, config, timings, tasks);
}

// find_pairs(), the caller's boxes
//
// find_pairs over boxes read in place through a BoxView (B13): floats or doubles, an array of structs
// with any stride or separate min and max arrays, never copied. The result, the stats and the errors are
// those of find_pairs on the same boxes as a vector of Box<D> (each float widened exactly), B1-B7, B11,
// B12; with `tasks`, split as in B15.
//
// Example:
//   std::vector<lwc::FloatBox<2>> boxes = ...;   // or an engine's own AABB array through strided()
//   absl::StatusOr<lwc::PairsResult> r = lwc::find_pairs(lwc::BoxView<2, float>(boxes), config);
template <std::size_t D, typename F>
[[nodiscard]] absl::StatusOr<PairsResult> find_pairs(const BoxView<D, F>& boxes, const GridConfig& config,
                                                     const TaskSystem& tasks = {}, Timings* timings = nullptr) {
  return internal::find_pairs<D>(boxes, config, timings, tasks);
}

// find_pairs_into()
//
// find_pairs writing the pairs into the caller's buffer (B14): on success out[0, stats.pairs) holds them
// in canonical order (B4) and the rest of `out` is untouched; the stats are find_pairs'. A buffer is a
// pair budget of its own: with more than out.size() pairs (and out.size() < max_pairs) the call is
// ResourceExhausted ("more than the output buffer's N pairs") and writes nothing; over max_pairs, the
// error of find_pairs. Every other error is find_pairs', with nothing written either.
//
// Example:
//   std::vector<lwc::Pair> out(1 << 20);
//   absl::StatusOr<lwc::Stats> s = lwc::find_pairs_into(view, config, out);
//   if (s.ok()) use(std::span(out).first(s->pairs));
template <std::size_t D, typename F>
[[nodiscard]] absl::StatusOr<Stats> find_pairs_into(const BoxView<D, F>& boxes, const GridConfig& config,
                                                    std::span<Pair> out, const TaskSystem& tasks = {},
                                                    Timings* timings = nullptr) {
  absl::StatusOr<PairsResult> r = internal::find_pairs<D>(boxes, config, timings, tasks, out.size());
  if (!r.ok()) return r.status();
  std::copy(r->pairs.begin(), r->pairs.end(), out.begin());
  return r->stats;
}

// for_each_pair()
//
// find_pairs streaming the pairs to fn(Pair) in canonical order (B4, B14), on the calling thread, only
// after the whole call has succeeded: on any error (find_pairs', B6, B7) fn is never called. Returns the
// stats of find_pairs.
//
// Example:
//   absl::StatusOr<lwc::Stats> s = lwc::for_each_pair(view, config, [&](lwc::Pair p) { narrow(p.a, p.b); });
template <std::size_t D, typename F, typename Fn>
  requires std::invocable<Fn&, Pair>
[[nodiscard]] absl::StatusOr<Stats> for_each_pair(const BoxView<D, F>& boxes, const GridConfig& config, Fn&& fn,
                                                  const TaskSystem& tasks = {}, Timings* timings = nullptr) {
  absl::StatusOr<PairsResult> r = internal::find_pairs<D>(boxes, config, timings, tasks);
  if (!r.ok()) return r.status();
  for (const Pair p : r->pairs) fn(p);
  return r->stats;
}

}  // namespace lwc

LWC_EXACT_FP_END

#endif  // LWC_BROADPHASE_BATCH_H_
