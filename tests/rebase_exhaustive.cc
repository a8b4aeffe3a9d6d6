// SPDX-License-Identifier: MIT
// File: tests/rebase_exhaustive.cc
//
// Bounded exhaustive evidence for lwc.rebase: EVERY sequence of operations up to a fixed depth on one
// view of a tiny world, run against lwc::OriginCoordinator and lwc::contracts::OriginModel side by side
// and judged after every step.
//
// The world: cell size 4, threshold 2 cells, barrier radius 1 (a 3 x 3 barrier), the origin at (0, 0),
// version 0, nothing loaded; four observer cells O = (0, 0), (1, 1), (2, 0), (-2, 1), whose barriers
// overlap (the column x = 1 is in three of them). The alphabet of one step:
// - load the barrier of o, for each o in O (its 9 cells);
// - unload one cell of U = (1, 0), (2, 0), (3, 1), (-3, 0) -- an edge of three barriers, a centre, an
//   upper and a lower corner: a barrier broken on either side at every step, in particular between a
//   plan and its commit (R6);
// - plan for an observer in each cell of O (offset (1.5, 0.25)), and for one that is not normalised
//   (offset 4 = the cell size): no plan, a plan, FailedPrecondition or InvalidArgument (R1, R6);
// - commit each distinct plan issued so far in the sequence, stale ones included (R8), and a forged plan
//   from another origin at the current version (InvalidArgument).
// After every step: the plan or commit judged by the model's check_plan / check_commit (R3, R6, R8), the
// view's origin, version and loaded cells against the model (R7, after failures too), and every
// observer position rendered and judged by check_render against the model's origin and version (R3, R4).
// docs/rebase.md ("Exhaustive evidence") gives the scope and what it shows.
//
// Each test prints "[lwc-exhaustive] rebase <clause> cases=<n>" per clause, n the number of sequences
// of the full depth (every shorter one is a prefix of one and judged too); `./lwc audit` shows the sums
// in its "exhaustive" column. CTest runs the Quick depth; the audit runs the binary whole.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "support/exhaustive.h"

import lwc.rebase;
import lwc.contracts.rebase;

namespace {

using lwc::CellIndex;
using lwc::OriginCoordinator;
using lwc::RebasePlan;
using lwc::WorldPosition;
using lwc::contracts::OriginModel;
using lwc::contracts::RenderSpec;

constexpr std::int64_t kCellSize = 4;
constexpr std::int64_t kThreshold = 2;
constexpr std::int64_t kRadius = 1;
constexpr std::array<CellIndex<2>, 4> kObservers = {{{0, 0}, {1, 1}, {2, 0}, {-2, 1}}};
constexpr std::array<CellIndex<2>, 4> kUnloaded = {{{1, 0}, {2, 0}, {3, 1}, {-3, 0}}};

void report(const char* clause, std::uint64_t cases) { lwc::exhaustive::report("rebase", clause, cases); }

WorldPosition<2> observer_at(std::size_t o) { return WorldPosition<2>{kObservers[o], {1.5, 0.25}}; }
// Not normalised: the offset equals the cell size.
WorldPosition<2> bad_observer() { return WorldPosition<2>{kObservers[2], {kCellSize, 0.25}}; }

// One step of a sequence.
struct Op {
  enum Kind { kLoadBarrier, kUnload, kPlan, kPlanInvalid, kCommit, kCommitForged } kind;
  std::size_t index = 0;  // into kObservers (load, plan), kUnloaded (unload) or the plans issued (commit)

  friend std::ostream& operator<<(std::ostream& os, const Op& op) {
    switch (op.kind) {
      case kLoadBarrier: return os << "load the barrier of observer " << op.index;
      case kUnload: return os << "unload cell " << op.index << " of U";
      case kPlan: return os << "plan for observer " << op.index;
      case kPlanInvalid: return os << "plan for an observer that is not normalised";
      case kCommit: return os << "commit plan " << op.index;
      case kCommitForged: return os << "commit a plan forged from another origin";
    }
    return os;
  }
};

// One node of the exploration: the view, its model and the plans issued so far.
struct State {
  OriginCoordinator<2> view;
  OriginModel<2> model;
  std::vector<RebasePlan<2>> plans;
};

State initial() {
  lwc::ViewConfig config;
  config.threshold_cells = lwc::ThresholdCells::of<(kThreshold)>();
  config.barrier_radius = lwc::BarrierRadius::of<(kRadius)>();
  absl::StatusOr<OriginCoordinator<2>> view = OriginCoordinator<2>::create(*lwc::WorldGrid::create(*lwc::ChunkSize::create(kCellSize)), config);
  const lwc::ViewId id = view->id();
  return State{*std::move(view), OriginModel<2>(kCellSize, kThreshold, kRadius, {}, 0, id), {}};
}

// Applies `op` to the view and the model and judges every clause: OK, or the first violation.
absl::Status judged_step(State& s, const Op& op) {
  switch (op.kind) {
    case Op::kLoadBarrier:
      for (std::int64_t dx = -kRadius; dx <= kRadius; ++dx) {
        for (std::int64_t dy = -kRadius; dy <= kRadius; ++dy) {
          const CellIndex<2> c = {kObservers[op.index][0] + dx, kObservers[op.index][1] + dy};
          s.view.load(c);
          s.model.load(c);
        }
      }
      break;
    case Op::kUnload:
      s.view.unload(kUnloaded[op.index]);
      s.model.unload(kUnloaded[op.index]);
      break;
    case Op::kPlan:
    case Op::kPlanInvalid: {
      const WorldPosition<2> observer = op.kind == Op::kPlan ? observer_at(op.index) : bad_observer();
      const absl::StatusOr<std::optional<RebasePlan<2>>> plan = s.view.plan(observer);
      if (absl::Status c = s.model.check_plan(observer, plan); !c.ok()) return c;  // R1, R6, R8
      if (plan.ok() && plan->has_value() && std::find(s.plans.begin(), s.plans.end(), **plan) == s.plans.end()) {
        s.plans.push_back(**plan);
      }
      break;
    }
    case Op::kCommit:
    case Op::kCommitForged: {
      const RebasePlan<2> plan =
          op.kind == Op::kCommit
              ? s.plans[op.index]
              : RebasePlan<2>{{s.view.origin()[0] + 1, s.view.origin()[1]}, kObservers[2], s.view.version(), s.view.id()};
      if (absl::Status c = s.model.check_commit(plan, s.view.commit(plan)); !c.ok()) return c;  // R3, R6, R8
      break;
    }
  }
  if (absl::Status c = s.model.check_view(s.view.origin(), s.view.version(), s.view.loaded_cells()); !c.ok()) {
    return c;  // R7
  }
  const RenderSpec spec = lwc::contracts::spec_of(s.view);
  for (std::size_t o = 0; o < kObservers.size(); ++o) {
    const WorldPosition<2> p = observer_at(o);
    if (absl::Status c = lwc::contracts::check_render(spec, s.model.origin(), s.model.version(), p, s.view.to_render(p));
        !c.ok()) {
      return c;  // R3, R4: rendered from the model's origin, tagged with its version
    }
  }
  return absl::OkStatus();
}

// Every step possible in the state (the alphabet in the banner).
std::vector<Op> next_ops(const State& s) {
  std::vector<Op> ops;
  for (std::size_t i = 0; i < kObservers.size(); ++i) ops.push_back({Op::kLoadBarrier, i});
  for (std::size_t i = 0; i < kUnloaded.size(); ++i) ops.push_back({Op::kUnload, i});
  for (std::size_t i = 0; i < kObservers.size(); ++i) ops.push_back({Op::kPlan, i});
  ops.push_back({Op::kPlanInvalid, 0});
  for (std::size_t i = 0; i < s.plans.size(); ++i) ops.push_back({Op::kCommit, i});
  ops.push_back({Op::kCommitForged, 0});
  return ops;
}

struct Tally {
  std::uint64_t sequences = 0;  // of the full depth
  std::uint64_t steps = 0;      // judged
  std::uint64_t failures = 0;
};

void explore(std::vector<Op>& prefix, const State& s, std::size_t depth, Tally& t) {
  if (prefix.size() == depth) {
    ++t.sequences;
    return;
  }
  for (const Op& op : next_ops(s)) {
    State next = s;
    const absl::Status c = judged_step(next, op);
    ++t.steps;
    prefix.push_back(op);
    if (!c.ok()) {
      if (++t.failures <= 5) {
        std::ostringstream seq;
        for (const Op& p : prefix) seq << "\n  " << p;
        ADD_FAILURE() << c << "\nafter the sequence:" << seq.str();
      }
    } else {
      explore(prefix, next, depth, t);
    }
    prefix.pop_back();
  }
}

// Every sequence of `depth` steps, the subtrees after the first two steps shared among the cores.
Tally explore_all(std::size_t depth) {
  struct Root {
    std::vector<Op> prefix;
    State state;
  };
  std::vector<Root> roots;
  Tally total;
  const State start = initial();
  for (const Op& a : next_ops(start)) {
    State sa = start;
    ++total.steps;
    if (absl::Status c = judged_step(sa, a); !c.ok()) {
      ADD_FAILURE() << c << " at the first step: " << a;
      ++total.failures;
      continue;
    }
    if (depth < 2) {
      roots.push_back({{a}, sa});
      continue;
    }
    for (const Op& b : next_ops(sa)) {
      State sb = sa;
      ++total.steps;
      if (absl::Status c = judged_step(sb, b); !c.ok()) {
        ADD_FAILURE() << c << " after " << a << ", at " << b;
        ++total.failures;
        continue;
      }
      roots.push_back({{a, b}, std::move(sb)});
    }
  }
  std::atomic<std::size_t> next{0};
  std::mutex mutex;
  std::vector<std::thread> pool;
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      Tally mine;
      for (std::size_t i = next++; i < roots.size(); i = next++) explore(roots[i].prefix, roots[i].state, depth, mine);
      const std::lock_guard<std::mutex> lock(mutex);
      total.sequences += mine.sequences;
      total.steps += mine.steps;
      total.failures += mine.failures;
    });
  }
  for (std::thread& th : pool) th.join();
  return total;
}

void run_depth(std::size_t depth) {
  const Tally t = explore_all(depth);
  EXPECT_EQ(t.failures, 0u);
  std::printf("rebase: %llu sequences of %zu steps, %llu steps judged\n", static_cast<unsigned long long>(t.sequences),
              depth, static_cast<unsigned long long>(t.steps));
  for (const char* clause : {"R3", "R4", "R6", "R7", "R8"}) report(clause, t.sequences);
}

// Every sequence of 3 steps: seconds under ASan, for every `./lwc test`.
TEST(ExhaustiveRebaseQuick, R3_R4_R6_R7_R8_EverySequenceOfThreeSteps) { run_depth(3); }

// Every sequence of 5 steps: the audit's run.
TEST(ExhaustiveRebase, R3_R4_R6_R7_R8_EverySequenceOfFiveSteps) { run_depth(5); }

}  // namespace
