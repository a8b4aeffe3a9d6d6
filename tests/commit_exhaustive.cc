// SPDX-License-Identifier: MIT
// File: tests/commit_exhaustive.cc
//
// Bounded exhaustive evidence for lwc.commit: EVERY sequence of operations up to a fixed depth over a
// tiny world, with a failure injected at every preparation a commit makes, run against lwc::Committer
// and lwc::contracts::CommitModel side by side and judged after every step by the T-checkers.
//
// The world: chunk size 2 and cells [-2, 4) on each axis, i.e. the 3 x 3 chunks {-1, 0, 1}^2 of 2 x 2
// cells, negative ones included (where floor and truncation differ). The alphabet of one step:
// - mark(c) for each of the 9 chunks; the cell marked is the chunk's cell number (depth mod 4), so a
//   chunk marked twice is mostly marked through another cell (T1, T2);
// - commit with budget unlimited or 1 (T8) x every outcome: success, or a failure injected at
//   preparation i for EVERY i below the number of runs the commit prepares (returned as an error, and in
//   builds with exceptions also thrown) (T4) x nothing marked during preparation, or one of the 9 chunks
//   marked from inside the first preparation (T6). A commit with nothing pending is one step.
// After every step: the runs prepared, the status, the published batch and the pending runs against the
// model (T3, T5), check_budget (T8), check_generations (T6), check_failed_commit (T4) or
// check_successful_commit (T5), and the batch readers see during preparation (T7, single-threaded).
// docs/commit.md ("Exhaustive evidence") gives the scope and what it shows.
//
// Each test prints "[lwc-exhaustive] commit <clause> cases=<n>" per clause, n the number of sequences of
// the full depth (every shorter one is a prefix of one and judged too); `./lwc audit` shows the sums in
// its "exhaustive" column. CTest runs the Quick depth; the audit runs the binary whole.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "support/exhaustive.h"

import lwc.decompose;
import lwc.commit;
import lwc.contracts.commit;

namespace {

using lwc::ChunkRun;
using lwc::Point2;
using lwc::contracts::CommitModel;

constexpr std::int64_t kChunkSize = 2;
constexpr int kChunks = 9;  // {-1, 0, 1}^2
#if defined(__cpp_exceptions)
constexpr bool kExceptions = true;
#else
constexpr bool kExceptions = false;
#endif

void report(const char* clause, std::uint64_t cases) { lwc::exhaustive::report("commit", clause, cases); }

// The cell of chunk `chunk` (0..8, row-major from (-1, -1)) marked at step `depth`: one of its four
// cells, turning with the depth.
Point2 cell_of(int chunk, std::size_t depth) {
  const std::int64_t cx = chunk % 3 - 1;
  const std::int64_t cy = chunk / 3 - 1;
  return Point2{cx * kChunkSize + static_cast<std::int64_t>(depth & 1),
              cy * kChunkSize + static_cast<std::int64_t>((depth >> 1) & 1)};
}

// One step of a sequence.
struct Op {
  bool commit = false;
  int chunk = -1;            // mark: the chunk marked; commit: the chunk marked during preparation 0, or -1
  std::size_t max_runs = 0;  // commit: 0 for unlimited
  int fail_at = -1;          // commit: the preparation that fails, or -1
  bool throws = false;       // commit: the failure is thrown, not returned

  friend std::ostream& operator<<(std::ostream& os, const Op& op) {
    if (!op.commit) return os << "mark chunk " << op.chunk;
    os << "commit budget " << op.max_runs << " fail_at " << op.fail_at << (op.throws ? " (throws)" : "");
    if (op.chunk >= 0) os << " marking chunk " << op.chunk << " during preparation 0";
    return os;
  }
};

// The snapshot: its run and the step that prepared it.
struct Snap {
  ChunkRun run;
  std::size_t step = 0;
};

struct InjectedThrow {};

using Committer = lwc::Committer<Snap>;

std::vector<ChunkRun> runs_of(const lwc::Batch<Snap>& batch) {
  std::vector<ChunkRun> runs;
  for (const auto& e : batch.entries) runs.push_back(e.run);
  return runs;
}

CommitModel::Plan plan_of(const Op& op, std::size_t depth) {
  CommitModel::Plan plan;
  plan.max_runs = op.max_runs;
  if (op.fail_at >= 0) plan.fail_at = static_cast<std::size_t>(op.fail_at);
  if (op.chunk >= 0) plan.marks_during.push_back({cell_of(op.chunk, depth)});
  return plan;
}

// Runs `op` as step `depth` on the committer. Fills what the judge needs when asked.
struct Observed {
  absl::Status status;
  bool threw = false;
  std::vector<ChunkRun> prepared;
  std::vector<Point2> marked;
  bool reader_saw_previous = true;
};

Observed run(Committer& c, const Op& op, std::size_t depth) {
  Observed o;
  if (!op.commit) {
    c.mark(cell_of(op.chunk, depth));
    return o;
  }
  const std::shared_ptr<const lwc::Batch<Snap>> published_before = c.published();
  const auto prepare = [&](const ChunkRun& r) -> absl::StatusOr<Snap> {
    const std::size_t i = o.prepared.size();
    o.prepared.push_back(r);
    o.reader_saw_previous &= c.published() == published_before;  // T7
    if (i == 0 && op.chunk >= 0) {
      const Point2 cell = cell_of(op.chunk, depth);
      c.mark(cell);
      o.marked.push_back(c.chunk_of(cell));
    }
    if (op.fail_at >= 0 && static_cast<std::size_t>(op.fail_at) == i) {
#if defined(__cpp_exceptions)
      if (op.throws) throw InjectedThrow{};
#endif
      return absl::AbortedError("injected failure");
    }
    return Snap{r, depth};
  };
  const lwc::RunBudget budget = op.max_runs == 0 ? lwc::RunBudget::unlimited()
                                                 : *lwc::RunBudget::create(static_cast<std::int64_t>(op.max_runs));
#if defined(__cpp_exceptions)
  try {
    o.status = c.commit(prepare, budget).status();
  } catch (const InjectedThrow&) {
    o.threw = true;
    o.status = absl::AbortedError("prepare threw");
  }
#else
  o.status = c.commit(prepare, budget).status();
#endif
  return o;
}

// Runs `op` as step `depth` on the committer and the model and judges every clause: OK, or the first
// violation.
absl::Status judged_step(Committer& c, CommitModel& model, const Op& op, std::size_t depth) {
  const std::vector<ChunkRun> before = c.pending_runs();
  const std::shared_ptr<const lwc::Batch<Snap>> published_before = c.published();
  CommitModel::Outcome expected;
  if (!op.commit) {
    const Point2 cell = cell_of(op.chunk, depth);
    if (absl::Status s = lwc::contracts::check_chunk_of(cell, kChunkSize, c.chunk_of(cell)); !s.ok()) return s;  // T1
    model.mark(cell);
  } else {
    expected = model.commit(plan_of(op, depth));
  }
  const Observed o = run(c, op, depth);
  const std::vector<ChunkRun> after = c.pending_runs();
  const std::shared_ptr<const lwc::Batch<Snap>> published = c.published();
  if (op.commit) {
    if (o.prepared != expected.prepared) return absl::InternalError("T8 budget: not the runs the model prepares");
    if (o.status.ok() != (expected.published || expected.prepared.empty())) {
      return absl::InternalError(absl::StrCat("T4 all or nothing: status ", o.status.ToString(), ", the model ",
                                              expected.published ? "publishes" : "fails"));
    }
    if (!o.reader_saw_previous) return absl::InternalError("T7 reader isolation: a batch was visible during preparation");
    if (absl::Status s = lwc::contracts::check_budget(before, op.max_runs, o.prepared); !s.ok()) return s;  // T8
    if (absl::Status s = lwc::contracts::check_generations(o.marked, after); !s.ok()) return s;           // T6
    if (!o.status.ok()) {
      if (absl::Status s = lwc::contracts::check_failed_commit(o.status, published_before->sequence,
                                                               published->sequence, before, o.marked, after);
          !s.ok()) {
        return s;  // T4
      }
      if (published != published_before) return absl::InternalError("T4 all or nothing: a failed commit published");
    } else if (!o.prepared.empty()) {
      if (absl::Status s = lwc::contracts::check_successful_commit(before, o.prepared, runs_of(*published),
                                                                   published_before->sequence, published->sequence,
                                                                   o.marked, after);
          !s.ok()) {
        return s;  // T5
      }
      for (const auto& e : published->entries) {
        if (e.snapshot.step != depth || !(e.snapshot.run == e.run)) {
          return absl::InternalError("T5 exact clearing: a published snapshot is not this commit's");
        }
      }
    } else if (published != published_before) {
      return absl::InternalError("T5 exact clearing: an empty commit published");
    }
  }
  // The whole state against the model: T2 (one entry per chunk), T3 (the runs), the published batch.
  if (after != model.pending_runs()) return absl::InternalError("T3 merge: pending runs differ from the model's");
  const std::vector<Point2> dirty(model.dirty().begin(), model.dirty().end());
  if (absl::Status s = lwc::contracts::check_runs(dirty, after); !s.ok()) return s;
  if (c.pending_chunks() != model.dirty().size()) {
    return absl::InternalError(absl::StrCat("T2 dedup: ", c.pending_chunks(), " pending entries, the model has ",
                                            model.dirty().size()));
  }
  if (published->sequence != model.published_sequence() || runs_of(*published) != model.published_runs()) {
    return absl::InternalError("T5 exact clearing: the published batch differs from the model's");
  }
  return absl::OkStatus();
}

// Every step possible in the model's state (the alphabet in the banner).
std::vector<Op> next_ops(const CommitModel& model) {
  std::vector<Op> ops;
  for (int c = 0; c < kChunks; ++c) ops.push_back(Op{false, c, 0, -1, false});
  const std::size_t pending = model.pending_runs().size();
  if (pending == 0) {
    ops.push_back(Op{true, -1, 0, -1, false});
    return ops;
  }
  for (const std::size_t max_runs : {std::size_t{0}, std::size_t{1}}) {
    const std::size_t prepared = max_runs == 0 ? pending : std::min(max_runs, pending);
    for (int fail_at = -1; fail_at < static_cast<int>(prepared); ++fail_at) {
      for (const bool throws : {false, true}) {
        if (throws && (fail_at < 0 || !kExceptions)) continue;
        for (int during = -1; during < kChunks; ++during) {
          ops.push_back(Op{true, during, max_runs, fail_at, throws});
        }
      }
    }
  }
  return ops;
}

// What an exploration covered.
struct Tally {
  std::uint64_t sequences = 0;  // of the full depth
  std::uint64_t steps = 0;      // judged
  std::uint64_t failures = 0;
};

// Explores every continuation of `prefix` (already applied to `model`) up to `depth` steps. The
// committer cannot be copied, so each step replays its prefix on a fresh one first.
void explore(std::vector<Op>& prefix, const CommitModel& model, std::size_t depth, Tally& t) {
  if (prefix.size() == depth) {
    ++t.sequences;
    return;
  }
  for (const Op& op : next_ops(model)) {
    Committer c(*lwc::ChunkSize::create(kChunkSize));
    for (std::size_t i = 0; i < prefix.size(); ++i) (void)run(c, prefix[i], i);
    CommitModel next = model;
    const absl::Status s = judged_step(c, next, op, prefix.size());
    ++t.steps;
    prefix.push_back(op);
    if (!s.ok()) {
      if (++t.failures <= 5) {
        std::ostringstream seq;
        for (const Op& p : prefix) seq << "\n  " << p;
        ADD_FAILURE() << s << "\nafter the sequence:" << seq.str();
      }
    } else {
      explore(prefix, next, depth, t);
    }
    prefix.pop_back();
  }
}

// Every sequence of `depth` steps, the subtrees of the first two steps shared among the cores.
Tally explore_all(std::size_t depth) {
  const CommitModel empty(kChunkSize);
  std::vector<std::vector<Op>> roots;
  for (const Op& a : next_ops(empty)) {
    CommitModel m = empty;
    if (a.commit) {
      (void)m.commit(plan_of(a, 0));
    } else {
      m.mark(cell_of(a.chunk, 0));
    }
    if (depth < 2) {
      roots.push_back({a});
      continue;
    }
    for (const Op& b : next_ops(m)) roots.push_back({a, b});
  }
  std::atomic<std::size_t> next{0};
  std::mutex mutex;
  Tally total;
  std::vector<std::thread> pool;
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      Tally mine;
      for (std::size_t i = next++; i < roots.size(); i = next++) {
        // The root's steps are judged here too (a first step once per second step that follows it).
        std::vector<Op> prefix;
        CommitModel m = empty;
        bool ok = true;
        for (std::size_t d = 0; d < roots[i].size() && ok; ++d) {
          Committer c(*lwc::ChunkSize::create(kChunkSize));
          for (std::size_t k = 0; k < prefix.size(); ++k) (void)run(c, prefix[k], k);
          const absl::Status s = judged_step(c, m, roots[i][d], d);
          prefix.push_back(roots[i][d]);
          ++mine.steps;
          if (!s.ok()) {
            ok = false;
            if (++mine.failures <= 5) ADD_FAILURE() << s << " at step " << d;
          }
        }
        if (ok) explore(prefix, m, depth, mine);
      }
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
  std::printf("commit: %llu sequences of %zu steps, %llu steps judged\n", static_cast<unsigned long long>(t.sequences),
              depth, static_cast<unsigned long long>(t.steps));
  for (const char* clause : {"T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8"}) report(clause, t.sequences);
}

// Every sequence of 2 steps: a second under ASan, for every `./lwc test`.
TEST(ExhaustiveCommitQuick, T1_T8_EverySequenceOfTwoSteps) { run_depth(2); }

// Every sequence of 4 steps: the audit's run.
TEST(ExhaustiveCommit, T1_T8_EverySequenceOfFourSteps) { run_depth(4); }

}  // namespace
