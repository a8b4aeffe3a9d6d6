// SPDX-License-Identifier: MIT
// File: fuzz/broadphase_fuzzer.cc
//
// libFuzzer target for lwc.broadphase. The input is a small header (dimension, oversize policy, cell
// size, three budgets) and then boxes, each coordinate either 8 raw bytes (every double: NaN payloads,
// infinities, subnormals, DBL_MAX) or a cell boundary k * h / 2 moved by up to 3 ulps (where overlaps,
// shared edges and rounding traps live). Every call is judged by lwc.contracts.broadphase, whose
// brute-force oracle decides the pairs, the error code and the stats; a violation traps.
//
// When the mode byte has both bits 0x10 and 0x20 set, the rest is instead an operation sequence for the
// persistent grid — inserts, moves (jitter by fractions of a cell and ulps, teleports, swept), removes,
// never-issued handles and updates — judged operation by operation by lwc::contracts::PersistentJudge
// (the brute-force model of the E-clauses), with the pair list checked after every update.
//
// Every find_pairs call of the batch mode is repeated through the caller's-output and parallel entries
// (B14, B15): a BoxView, a buffer of a fuzzed size, a callback, and task systems of 2-8 workers (a pool, and
// a job system running the ranges last first), each judged bit-identical to the plain call by
// check_identical. When the mode byte has both bits 0x40 and 0x80 set (and not 0x30), the boxes are floats
// instead (B13), each bound 4 raw bytes (every float) or a cell boundary rounded to float and moved by up
// to 3 floats, laid out in an array of structs with a fuzzed stride: find_pairs on the view must be
// find_pairs on the widened doubles, which check_find_pairs judges.
//
// lwc-clauses: B1 B2 B3 B4 B5 B6 B7 B8 B9 B10 B11 B12 B13 B14 B15 E1 E2 E3 E4 E5 E6
// (B1-B4, B6, B7, B11, B12: check_find_pairs on every call; B5: check_same_pairs at a second cell size and
// policy; B8: check_placement and check_covers per box; B9: check_reference_cell on overlapping boxes;
// B10: check_query on a fuzzed probe. E1-E6: PersistentJudge on every operation and update: events, pair
// list, handles, refused operations and updates, touched memberships, swept candidates.)
#include <fuzzer/FuzzedDataProvider.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <map>  // clang 19 modules: std::map's hidden friends used by the imported checkers are emitted from here
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "fuzz_support.h"
#include "lwc/exact_fp.h"

import lwc.decompose;
import lwc.broadphase;
import lwc.contracts.broadphase;

namespace {

using lwc::fuzzing::require;

double raw_double(FuzzedDataProvider& in) { return std::bit_cast<double>(lwc::fuzzing::word(in)); }

// The cell sizes of most inputs; mode bit 2 asks for any double instead (any bits: NaN, infinities, 0 and
// subnormals included).
constexpr std::array<double, 6> kSizes = {0.5, 1.0, 2.0, 3.0, 0.1, 1.0 / 3.0};

double cell_size(FuzzedDataProvider& in, std::uint8_t mode) {
  return (mode & 4) != 0 ? raw_double(in) : kSizes[in.ConsumeIntegral<std::uint8_t>() % kSizes.size()];
}

double nudge(double v, int steps) {
  for (int i = 0; i < std::abs(steps); ++i) {
    v = std::nextafter(v, steps > 0 ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity());
  }
  return v;
}

double coordinate(FuzzedDataProvider& in, double h) {
  const auto control = in.ConsumeIntegral<std::uint8_t>();
  if (control < 64) return raw_double(in);
  const auto k = in.ConsumeIntegral<std::int8_t>();
  double v = k * h / 2;
  if (!std::isfinite(v)) v = k;
  const int steps = control % 7 - 3;
  for (int i = 0; i < std::abs(steps); ++i) {
    v = std::nextafter(v, steps > 0 ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity());
  }
  return v;
}

template <std::size_t D>
lwc::Box<D> box(FuzzedDataProvider& in, double h) {
  lwc::Box<D> b{};
  for (std::size_t k = 0; k < D; ++k) {
    b.min[k] = coordinate(in, h);
    b.max[k] = coordinate(in, h);
  }
  return b;
}

// B6 for one validated field: `got` is refused, with InvalidArgument naming B6, exactly when `valid` is
// false. True when it was accepted (the caller then stores it).
template <typename T>
bool accepted(const absl::StatusOr<T>& got, bool valid) {
  if (got.ok() != valid) require(absl::InternalError(absl::StrCat("B6 bad config: ", got.ok() ? "accepted" : "refused",
                                                                  " a value that is ", valid ? "valid" : "invalid")));
  if (!got.ok() && (got.status().code() != absl::StatusCode::kInvalidArgument ||
                    !absl::StrContains(got.status().message(), "B6"))) {
    require(absl::InternalError(absl::StrCat("B6 bad config: refused as ", got.status().ToString())));
  }
  return got.ok();
}

// The config header: cell size h and three budgets read as raw values (budgets from -1, so that each
// refusal is reached), each through its validated type. False when one is refused (checked by accepted()).
bool configure(FuzzedDataProvider& in, std::uint8_t mode, double h, std::int64_t max_memberships,
               std::int64_t max_pairs, lwc::GridConfig& config) {
  config.oversize = (mode & 2) != 0 ? lwc::Oversize::kCoarserLevels : lwc::Oversize::kReject;
  const std::int64_t cells = in.ConsumeIntegralInRange<std::int64_t>(-1, 5000);
  const std::int64_t memberships = in.ConsumeIntegralInRange<std::int64_t>(-1, max_memberships);
  const std::int64_t pairs = in.ConsumeIntegralInRange<std::int64_t>(-1, max_pairs);
  const absl::StatusOr<lwc::CellSize> size = lwc::CellSize::create(h);
  const absl::StatusOr<lwc::CellBudget> cell_budget = lwc::CellBudget::create(cells);
  const absl::StatusOr<lwc::MembershipBudget> membership_budget = lwc::MembershipBudget::create(memberships);
  const absl::StatusOr<lwc::PairBudget> pair_budget = lwc::PairBudget::create(pairs);
  // CellSize::create names D9 (decompose's clause); find_pairs' B6 refuses the same values.
  if (size.ok() != (std::isfinite(h) && h > 0)) require(absl::InternalError("B6 bad config: cell size judged wrongly"));
  const bool cells_ok = accepted(cell_budget, cells >= 1);  // each judged, even after a refusal
  const bool memberships_ok = accepted(membership_budget, memberships >= 0);
  const bool pairs_ok = accepted(pair_budget, pairs >= 0);
  if (!size.ok() || !cells_ok || !memberships_ok || !pairs_ok) return false;
  config.cell_size = *size;
  config.max_cells_per_box = *cell_budget;
  config.max_memberships = *membership_budget;
  config.max_pairs = *pair_budget;
  return true;
}

// The pool of the parallel checks, made once (threads are costly to start per input).
lwc::ThreadPool& pool() {
  static const std::unique_ptr<lwc::ThreadPool> p = *lwc::ThreadPool::create(3);
  return *p;
}

// A job system that runs the ranges serially, last first (a valid schedule no pool produces).
void* reversed(lwc::TaskSystem::Task task, std::uint32_t items, std::uint32_t, void* context, void*) {
  for (std::uint32_t i = items; i > 0; --i) task(i - 1, i, 0, context);
  return nullptr;
}
void finished(void*, void*) {}

// B14 and B15 for one call: the caller's-output and parallel entries agree with `reference`, the plain
// find_pairs on `boxes` (a view of them), to the bit.
template <std::size_t D, typename F>
void check_entries(const lwc::BoxView<D, F>& boxes, const lwc::GridConfig& config,
                   const absl::StatusOr<lwc::PairsResult>& reference, std::size_t room, std::uint32_t workers) {
  require(lwc::contracts::check_identical("B13 view", reference, lwc::find_pairs(boxes, config)));
  const lwc::TaskSystem serial_reversed{.workers = workers, .enqueue = &reversed, .finish = &finished};
  require(lwc::contracts::check_identical("B15 job system", reference, lwc::find_pairs(boxes, config, serial_reversed)));
  require(lwc::contracts::check_identical("B15 pool", reference, lwc::find_pairs(boxes, config, pool().tasks())));
  const lwc::Pair untouched{0xdeadbeef, 0xfeedface};
  std::vector<lwc::Pair> out(room, untouched);
  const absl::StatusOr<lwc::Stats> into = lwc::find_pairs_into(boxes, config, std::span<lwc::Pair>(out), pool().tasks());
  const bool fits = reference.ok() && reference->pairs.size() <= room;
  if (into.ok() != fits) require(absl::InternalError("B14 buffer: success iff the pairs fit"));
  const std::size_t written = into.ok() ? reference->pairs.size() : 0;
  if (into.ok() && !std::equal(reference->pairs.begin(), reference->pairs.end(), out.begin())) {
    require(absl::InternalError("B14 buffer: the pairs differ from find_pairs'"));
  }
  for (std::size_t i = written; i < out.size(); ++i) {
    if (!(out[i] == untouched)) require(absl::InternalError("B14 buffer: written beyond the pairs, or on refusal"));
  }
  std::size_t calls = 0;
  bool same = true;
  const absl::StatusOr<lwc::Stats> each = lwc::for_each_pair(boxes, config, [&](lwc::Pair p) {
    same &= reference.ok() && calls < reference->pairs.size() && reference->pairs[calls] == p;
    ++calls;
  });
  if (each.ok() != reference.ok() || (!each.ok() && each.status() != reference.status()) || (!each.ok() && calls != 0) ||
      (each.ok() && (!same || calls != reference->pairs.size()))) {
    require(absl::InternalError("B14 callback: not exactly find_pairs' pairs in order, or called on refusal"));
  }
}

template <std::size_t D>
void run(FuzzedDataProvider& in, std::uint8_t mode) {
  const double h = cell_size(in, mode);
  lwc::GridConfig config;
  if (!configure(in, mode, h, 20000, 2000, config)) return;
  const double h2 = (mode & 8) != 0 ? h * 2 : kSizes[mode % kSizes.size()];
  const lwc::Box<D> probe = box<D>(in, h);
  std::vector<lwc::Box<D>> boxes;
  while (in.remaining_bytes() > 0 && boxes.size() < 40) boxes.push_back(box<D>(in, h));
  const std::span<const lwc::Box<D>> view(boxes);

  const absl::StatusOr<lwc::PairsResult> r = lwc::find_pairs(view, config);
  require(lwc::contracts::check_find_pairs(view, config, r));  // B1-B4 B6 B7 B11 B12
  check_entries<D>(lwc::BoxView<D, double>(view), config, r, static_cast<std::size_t>(mode) * 3 % 97,
                   2 + mode % 7);  // B14 B15

  if (const absl::StatusOr<lwc::CellSize> size2 = lwc::CellSize::create(h2); size2.ok()) {  // h * 2 may be +inf
    lwc::GridConfig other = config;
    other.cell_size = *size2;
    other.oversize = config.oversize == lwc::Oversize::kReject ? lwc::Oversize::kCoarserLevels : lwc::Oversize::kReject;
    if (other.oversize == lwc::Oversize::kCoarserLevels && other.max_cells_per_box.value() < 64) {
      other.max_cells_per_box = lwc::CellBudget::of<64>();
    }
    const absl::StatusOr<lwc::PairsResult> r2 = lwc::find_pairs(view, other);
    require(lwc::contracts::check_find_pairs(view, other, r2));
    if (r.ok() && r2.ok()) require(lwc::contracts::check_same_pairs(h, r->pairs, h2, r2->pairs));  // B5
  }

  const absl::StatusOr<lwc::GridSpec<D>> spec = lwc::GridSpec<D>::create(config);
  if (spec.ok()) {
    for (std::size_t i = 0; i < boxes.size(); ++i) {
      const absl::StatusOr<lwc::Placement<D>> where = spec->place(boxes[i], i);
      require(lwc::contracts::check_placement<D>(boxes[i], config, where));  // B8 B11
      if (where.ok() && where->level == 0) {
        require(lwc::contracts::check_covers<D>(boxes[i], h, where->cells, boxes[i].min));  // B8
        require(lwc::contracts::check_covers<D>(boxes[i], h, where->cells, boxes[i].max));
      }
    }
    const absl::StatusOr<lwc::CellSize> size = lwc::CellSize::create(h);
    for (std::size_t i = 0; i + 1 < boxes.size() && i < 8; ++i) {
      if (!lwc::validate_box(boxes[i], i).ok() || !lwc::validate_box(boxes[i + 1], i + 1).ok()) continue;
      const absl::StatusOr<lwc::CellRange<D>> ra = lwc::cell_range(boxes[i], *size);
      const absl::StatusOr<lwc::CellRange<D>> rb = lwc::cell_range(boxes[i + 1], *size);
      if (ra.ok() && rb.ok()) {
        require(lwc::contracts::check_reference_cell<D>(boxes[i], boxes[i + 1], h, *ra, *rb));  // B9
      }
    }
  }
  std::vector<lwc::Box<D>> owned = boxes;
  const absl::StatusOr<lwc::Grid<D>> grid = lwc::Grid<D>::create(std::move(owned), config);
  if (grid.ok()) {
    const absl::StatusOr<std::vector<std::uint32_t>> hits = grid->query(probe);
    if (hits.ok()) {
      require(lwc::contracts::check_query<D>(view, probe, *hits));  // B10
    } else if (lwc::validate_box(probe, 0).ok()) {
      require(absl::InternalError("B10 query: a valid probe was refused"));
    }
    const absl::StatusOr<lwc::PairsResult> again = grid->pairs();
    if (r.ok()) {
      if (!again.ok()) require(absl::InternalError("B5 cell-size independence: Grid::pairs failed where find_pairs did not"));
      require(lwc::contracts::check_same_pairs(h, r->pairs, h, again->pairs));
    }
  }
}

// One engine operation of the persistent grid (E7-E11, issue 14): an insert with a payload and filter bits
// (as doubles or as a FloatBox), a filter or payload change, a refilter, a box query or a ray cast between
// operations, each judged against the model. Returns true when it gave a box a filter other than the
// default (then the pair set is the model's, not find_pairs').
template <std::size_t D>
bool engine_step(FuzzedDataProvider& in, lwc::PersistentGrid<D>& grid, lwc::contracts::PersistentJudge<D>& judge,
                 double h) {
  const auto pick = in.ConsumeIntegral<std::uint8_t>();
  const std::size_t i = judge.objects() == 0 ? 0 : in.ConsumeIntegral<std::uint8_t>() % judge.objects();
  const lwc::Filter filter = (pick & 0x80) != 0 ? lwc::Filter{std::uint64_t{1} << (pick & 3), (pick >> 2) & 7u} : lwc::Filter{};
  const auto user = static_cast<lwc::UserData>(in.ConsumeIntegral<std::uint8_t>());
  const bool filtered = !(filter == lwc::Filter{});
  switch (pick % 6) {
    case 0: {
      const lwc::Box<D> b = box<D>(in, h);
      if ((pick & 0x40) != 0) {  // E10: the float box nearest to b, and the doubles it is
        lwc::FloatBox<D> f{};
        lwc::Box<D> w{};
        for (std::size_t k = 0; k < D; ++k) {
          f.min[k] = static_cast<float>(b.min[k]);
          f.max[k] = static_cast<float>(b.max[k]);
          w.min[k] = f.min[k];
          w.max[k] = f.max[k];
        }
        require(judge.insert(w, user, filter, grid.insert(f, user, filter)));
      } else {
        require(judge.insert(b, user, filter, grid.insert(b, user, filter)));
      }
      return filtered;
    }
    case 1:
      if (judge.objects() == 0) return false;
      require(judge.set_filter(i, filter, grid.set_filter(judge.handle(i), filter)));
      return filtered;
    case 2:
      if (judge.objects() == 0) return false;
      require(judge.set_user_data(i, user, grid.set_user_data(judge.handle(i), user)));
      return false;
    case 3:
      if (judge.objects() == 0) return false;
      require(judge.refilter(i, grid.refilter(judge.handle(i))));
      return false;
    case 4: {
      const lwc::Box<D> q = box<D>(in, h);
      std::vector<lwc::contracts::Hit> hits;
      const absl::Status s = grid.query(q, [&](lwc::Handle hd, lwc::UserData u) {
        hits.push_back({hd, u, 0});
        return true;
      });
      if (s.ok() != lwc::validate_box<D>(q, 0).ok()) require(absl::InternalError("E11 queries: the query box is judged unlike B6"));
      if (s.ok()) require(judge.query(q, hits));
      return false;
    }
    default: {
      const lwc::Box<D> ends = box<D>(in, h);
      const lwc::Segment<D> seg{ends.min, (pick & 0x40) != 0 ? ends.min : ends.max};
      std::vector<lwc::contracts::Hit> hits;
      const absl::Status s = grid.raycast(seg, [&](lwc::Handle hd, lwc::UserData u, double t) {
        hits.push_back({hd, u, t});
        return true;
      });
      if (s.ok() != lwc::validate_segment<D>(seg).ok()) require(absl::InternalError("E9 ray cast: the segment is judged unlike validate_segment"));
      if (s.ok()) require(judge.ray(seg, hits));
      return false;
    }
  }
}

template <std::size_t D>
void run_persistent(FuzzedDataProvider& in, std::uint8_t mode) {
  const double h = cell_size(in, mode);
  lwc::GridConfig config;
  if (!configure(in, mode, h, 400, 100, config)) return;
  absl::StatusOr<lwc::PersistentGrid<D>> grid = lwc::PersistentGrid<D>::create(config);
  const bool config_ok = lwc::contracts::expected_outcome<D>({}, config).code == absl::StatusCode::kOk;
  if (grid.ok() != config_ok) require(absl::InternalError("E2 state equivalence: the config is judged unlike find_pairs"));
  if (!grid.ok()) return;
  lwc::contracts::PersistentJudge<D> judge(config);
  const auto object = [&](std::uint8_t pick) { return judge.objects() == 0 ? 0 : pick % judge.objects(); };
  bool filtered = false;  // some box had a non-default filter: find_pairs is no longer the pair set (E8)
  for (int ops = 0; ops < 96 && in.remaining_bytes() > 0; ++ops) {
    const auto op = in.ConsumeIntegral<std::uint8_t>();
    const lwc::Motion motion = (op & 0x80) != 0 ? lwc::Motion::kSwept : lwc::Motion::kTeleport;
    switch (op % 8) {
      case 0:
      case 1: {
        const lwc::Box<D> b = box<D>(in, h);
        require(judge.insert(b, grid->insert(b)));
        break;
      }
      case 2:
      case 3: {
        if (judge.objects() == 0) break;
        const std::size_t i = object(in.ConsumeIntegral<std::uint8_t>());
        lwc::Box<D> b = judge.model().objects()[i].now;
        if (op % 8 == 2) {  // jitter: a fraction of a cell and a few ulps on every axis
          for (std::size_t k = 0; k < D; ++k) {
            const double shift = in.ConsumeIntegral<std::int8_t>() * h / 4;
            const int ulps = in.ConsumeIntegralInRange<int>(-2, 2);
            const double lo = nudge(b.min[k] + shift, ulps);
            const double hi = nudge(b.max[k] + shift, ulps);
            if (lo <= hi) {
              b.min[k] = lo;
              b.max[k] = hi;
            }
          }
        } else {
          b = box<D>(in, h);  // a teleport (or any box at all: invalid ones must be refused)
        }
        require(judge.move(i, b, motion, grid->move(judge.handle(i), b, motion)));
        break;
      }
      case 4: {
        if (judge.objects() == 0) break;
        const std::size_t i = object(in.ConsumeIntegral<std::uint8_t>());
        require(judge.remove(i, grid->remove(judge.handle(i))));
        break;
      }
      case 5: {
        const auto slot = in.ConsumeIntegral<std::uint32_t>();
        const lwc::Handle never = (op & 0x40) != 0 ? lwc::Handle{slot, 0} : lwc::Handle{slot | 0x80000000u, slot};
        require(judge.stale(grid->remove(never)));
        require(judge.stale(grid->move(never, box<D>(in, h), motion)));
        break;
      }
      default: {
        if ((op & 0x48) == 0x48) {  // issue 14's engine operations
          filtered = engine_step<D>(in, *grid, judge, h) || filtered;
          break;
        }
        require(judge.update(grid->update()));
        const std::vector<lwc::Contact> pairs = grid->pairs();
        require(judge.pairs(pairs));
        const std::vector<lwc::Tracked<D>> live = grid->boxes();
        if (!filtered) require(lwc::contracts::check_tracked_pairs<D>(live, pairs));
        break;
      }
    }
  }
  require(judge.update(grid->update()));
  require(judge.pairs(grid->pairs()));
}

float float_coordinate(FuzzedDataProvider& in, double h) {
  const auto control = in.ConsumeIntegral<std::uint8_t>();
  if (control < 64) return std::bit_cast<float>(in.ConsumeIntegral<std::uint32_t>());
  const auto k = in.ConsumeIntegral<std::int8_t>();
  const double v = k * h / 2;
  float f = std::fabs(v) < 1e38 ? static_cast<float>(v) : static_cast<float>(k);
  const int steps = control % 7 - 3;
  for (int i = 0; i < std::abs(steps); ++i) {
    f = std::nextafter(f, steps > 0 ? std::numeric_limits<float>::infinity() : -std::numeric_limits<float>::infinity());
  }
  return f;
}

// B13: float boxes in an array of structs of a fuzzed stride, against their widened doubles.
template <std::size_t D>
void run_float(FuzzedDataProvider& in, std::uint8_t mode) {
  const double h = cell_size(in, mode);
  lwc::GridConfig config;
  if (!configure(in, mode, h, 20000, 2000, config)) return;
  const std::size_t pad = in.ConsumeIntegralInRange<std::size_t>(0, 3);  // floats before the max corner
  const std::size_t stride = 2 * D + pad;
  std::vector<float> memory;
  std::vector<lwc::Box<D>> widened;
  while (in.remaining_bytes() > 0 && widened.size() < 40) {
    lwc::Box<D> b{};
    const std::size_t at = memory.size();
    memory.resize(at + stride, -7.0F);
    for (std::size_t k = 0; k < D; ++k) {
      const float lo = float_coordinate(in, h);
      const float hi = float_coordinate(in, h);
      memory[at + k] = lo;
      memory[at + D + pad + k] = hi;
      b.min[k] = lwc::fp::widen(lo);
      b.max[k] = lwc::fp::widen(hi);
    }
    widened.push_back(b);
  }
  const std::span<const lwc::Box<D>> doubles(widened);
  const absl::StatusOr<lwc::PairsResult> r = lwc::find_pairs(doubles, config);
  require(lwc::contracts::check_find_pairs(doubles, config, r));  // B1-B4 B6 B7 B11 B12 on the widened boxes
  // With no box, memory.data() may be null, and null + offset is undefined: the view gets two nulls.
  const float* const min = memory.data();
  const float* const max = memory.empty() ? nullptr : min + D + pad;
  const absl::StatusOr<lwc::BoxView<D, float>> view =
      lwc::BoxView<D, float>::strided(min, max, widened.size(), stride * sizeof(float));
  if (!view.ok()) require(absl::InternalError("B13 view: a valid layout was refused"));
  check_entries<D>(*view, config, r, static_cast<std::size_t>(mode) * 5 % 89, 2 + mode % 7);  // B13 B14 B15
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const auto mode = in.ConsumeIntegral<std::uint8_t>();
  if ((mode & 0x30) == 0x30) {
    if ((mode & 1) != 0) {
      run_persistent<3>(in, mode);
    } else {
      run_persistent<2>(in, mode);
    }
  } else if ((mode & 0xc0) == 0xc0) {
    if ((mode & 1) != 0) {
      run_float<3>(in, mode);
    } else {
      run_float<2>(in, mode);
    }
  } else if ((mode & 1) != 0) {
    run<3>(in, mode);
  } else {
    run<2>(in, mode);
  }
  return 0;
}
