// SPDX-License-Identifier: MIT
// File: properties/commit_props.cc
//
// One RapidCheck property per T-clause of docs/commit.md, named by clause id, judged by
// lwc.contracts.commit. T1-T3 are plain properties over cells and chunk windows at the int64 extremes.
// T4-T6 and T8 are model-based (rc::state): random sequences of marks and commits — budgets, a
// preparation failing or throwing at a random run, cells marked from inside preparations — run against
// lwc::Committer and lwc::contracts::CommitModel side by side and compared after every step; every
// clause is checked at every step, and each property weights the sequence towards its own clause. T7
// adds a reader thread taking the published batch while the sequence runs.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <rapidcheck/state.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "support/arbitrary_commit.h"
#include "support/arbitrary_decompose.h"
#include "support/property.h"

import lwc.decompose;
import lwc.commit;
import lwc.contracts.commit;

namespace {

using lwc::ChunkRun;
using lwc::Point2;
using lwc::contracts::CommitModel;
using lwc::testing::Cell;
using lwc::testing::ChunkWindow;

// Fails the property with the checker's message (which names the clause).
void assert_ok(const absl::Status& status) {
  if (!status.ok()) RC_FAIL(std::string(status.message()));
}

Point2 to_int2(Cell c) { return Point2{c.x, c.y}; }

lwc::ChunkSize size_of(std::int64_t s) { return *lwc::ChunkSize::create(s); }

std::vector<Point2> gen_cells(const ChunkWindow& w, int max_count) {
  const auto cells =
      *rc::gen::resize(max_count, rc::gen::container<std::vector<Cell>>(lwc::testing::window_cell(w)));
  std::vector<Point2> out;
  for (const Cell c : cells) out.push_back(to_int2(c));
  return out;
}

// The snapshot: the run it was prepared for and the commit attempt that prepared it.
struct Snap {
  ChunkRun run;
  std::uint64_t origin = 0;
};

// Thrown from `prepare` to test strong exception safety.
struct InjectedThrow {};

std::vector<ChunkRun> runs_of(const lwc::Batch<Snap>& batch) {
  std::vector<ChunkRun> runs;
  for (const auto& e : batch.entries) runs.push_back(e.run);
  return runs;
}

// T1-T3 ---------------------------------------------------------------------------------------------

LWC_PROP(Commit, T1_CellDirtiesItsFloorChunk, ()) {
  const ChunkWindow w = *lwc::testing::chunk_window();
  const std::int64_t s =
      *rc::gen::weightedOneOf<std::int64_t>({{3, rc::gen::just(w.size)}, {1, lwc::testing::positive_size()}});
  const Point2 cell = to_int2(*rc::gen::weightedOneOf<Cell>(
      {{1, lwc::testing::window_cell(ChunkWindow{s, w.x0, w.y0, w.width, w.height})},
       {1, rc::gen::map(rc::gen::pair(lwc::testing::near_multiple_of(s), lwc::testing::any_int64()),
                        [](std::pair<std::int64_t, std::int64_t> p) {
                          return Cell{p.first, p.second};
                        })}}));
  lwc::Committer<Snap> committer(size_of(s));
  const Point2 chunk = committer.chunk_of(cell);
  RC_CLASSIFY(cell.x < 0 && chunk.x != cell.x / s, "floor differs from truncation");
  assert_ok(lwc::contracts::check_chunk_of(cell, s, chunk));
  committer.mark(cell);
  RC_ASSERT(committer.pending_runs() == (std::vector<ChunkRun>{{chunk.y, chunk.x, chunk.x}}));
}

LWC_PROP(Commit, T2_OneEntryPerChunk, ()) {
  const ChunkWindow w = *lwc::testing::chunk_window();
  const std::vector<Point2> cells = gen_cells(w, 60);
  lwc::Committer<Snap> committer(size_of(w.size));
  for (const Point2 c : cells) committer.mark(c);
  assert_ok(lwc::contracts::check_dedup(cells, w.size, committer.pending_chunks()));
  // Marking them all again changes nothing.
  for (const Point2 c : cells) committer.mark(c);
  assert_ok(lwc::contracts::check_dedup(cells, w.size, committer.pending_chunks()));
}

LWC_PROP(Commit, T3_RunsAreTheMaximalCanonicalCover, ()) {
  const ChunkWindow w = *lwc::testing::chunk_window();
  const std::vector<Point2> cells = gen_cells(w, 60);
  lwc::Committer<Snap> committer(size_of(w.size));
  std::vector<Point2> chunks;
  for (const Point2 c : cells) {
    committer.mark(c);
    chunks.push_back(committer.chunk_of(c));
  }
  const std::vector<ChunkRun> runs = committer.pending_runs();
  RC_CLASSIFY(std::any_of(runs.begin(), runs.end(), [](const ChunkRun& r) { return r.x_first != r.x_last; }),
              "a run longer than one chunk");
  assert_ok(lwc::contracts::check_runs(chunks, runs));
  RC_ASSERT(runs == lwc::contracts::oracle_runs(std::set<Point2>(chunks.begin(), chunks.end())));
  assert_ok(lwc::contracts::check_runs(chunks, lwc::merge_runs(chunks)));
  RC_ASSERT(lwc::merge_runs(chunks) == runs);
}

// The model-based sequences ---------------------------------------------------------------------------

// How a sequence leans: command weights, and how often a commit fails, marks during preparation, or
// has a budget (percentages).
struct Profile {
  int mark_weight;
  int commit_weight;
  int fail_percent;
  int marks_during_percent;
  int budget_percent;
};

struct Model {
  ChunkWindow window;
  Profile profile;
  CommitModel commits;
};

struct System {
  explicit System(std::int64_t size) : committer(size_of(size)) {}
  lwc::Committer<Snap> committer;
  std::uint64_t attempts = 0;
  // What the sequence exercised, for the distribution RapidCheck prints.
  int published = 0;
  int failed = 0;
  int threw = 0;
  int marked_during = 0;
  int budget_cut = 0;
};

using Command = rc::state::Command<Model, System>;

// Compares the committer with the model: the same pending runs (T3 against the model's oracle runs) and
// the same published batch.
void assert_same_state(const CommitModel& want, const System& sut) {
  const std::vector<ChunkRun> pending = sut.committer.pending_runs();
  RC_ASSERT(pending == want.pending_runs());
  std::vector<Point2> dirty(want.dirty().begin(), want.dirty().end());
  assert_ok(lwc::contracts::check_runs(dirty, pending));
  RC_ASSERT(sut.committer.pending_chunks() == want.dirty().size());
  const std::shared_ptr<const lwc::Batch<Snap>> published = sut.committer.published();
  RC_ASSERT(published->sequence == want.published_sequence());
  RC_ASSERT(runs_of(*published) == want.published_runs());
}

struct MarkCells : Command {
  std::vector<Point2> cells;

  explicit MarkCells(const Model& m) : cells(gen_cells(m.window, 8)) {}

  void apply(Model& m) const override {
    for (const Point2 c : cells) m.commits.mark(c);
  }

  void run(const Model& m, System& sut) const override {
    CommitModel want = m.commits;
    for (const Point2 c : cells) {
      assert_ok(lwc::contracts::check_chunk_of(c, m.window.size, sut.committer.chunk_of(c)));  // T1
      sut.committer.mark(c);
      want.mark(c);
    }
    assert_same_state(want, sut);  // T2, T3
  }

  void show(std::ostream& os) const override {
    os << "mark";
    for (const Point2 c : cells) os << " " << c;
  }
};

struct Commit : Command {
  CommitModel::Plan plan;
  bool throws = false;

  explicit Commit(const Model& m) {
    const Profile& p = m.profile;
    if (*rc::gen::inRange(0, 100) < p.budget_percent) plan.max_runs = *rc::gen::inRange<std::size_t>(1, 4);
    if (*rc::gen::inRange(0, 100) < p.fail_percent) {
      plan.fail_at = *rc::gen::inRange<std::size_t>(0, 4);
      throws = *rc::gen::arbitrary<bool>();
    }
    if (*rc::gen::inRange(0, 100) < p.marks_during_percent) {
      const auto during = *rc::gen::inRange<std::size_t>(1, 5);
      for (std::size_t i = 0; i < during; ++i) plan.marks_during.push_back(gen_cells(m.window, 3));
    }
  }

  void apply(Model& m) const override { (void)m.commits.commit(plan); }

  void run(const Model& m, System& sut) const override {
    CommitModel want = m.commits;
    const CommitModel::Outcome expected = want.commit(plan);
    lwc::Committer<Snap>& c = sut.committer;
    const std::vector<ChunkRun> before = c.pending_runs();
    const std::shared_ptr<const lwc::Batch<Snap>> published_before = c.published();
    const std::uint64_t origin = ++sut.attempts;

    std::vector<ChunkRun> prepared;
    std::vector<Point2> marked;
    const auto prepare = [&](const ChunkRun& run) -> absl::StatusOr<Snap> {
      const std::size_t i = prepared.size();
      prepared.push_back(run);
      // T7: while a batch is prepared, readers still get the previous one, whole.
      RC_ASSERT(c.published() == published_before);
      if (i < plan.marks_during.size()) {
        for (const Point2 cell : plan.marks_during[i]) {
          c.mark(cell);
          marked.push_back(c.chunk_of(cell));
        }
      }
      if (plan.fail_at == i) {
        if (throws) throw InjectedThrow{};
        return absl::AbortedError("injected failure");
      }
      return Snap{run, origin};
    };

    absl::Status status;
    bool threw = false;
    try {
      const lwc::RunBudget budget = plan.max_runs == 0
                                        ? lwc::RunBudget::unlimited()
                                        : *lwc::RunBudget::create(static_cast<std::int64_t>(plan.max_runs));
      status = c.commit(prepare, budget).status();
    } catch (const InjectedThrow&) {
      threw = true;
      status = absl::AbortedError("prepare threw");
    }
    RC_ASSERT(prepared == expected.prepared);
    RC_ASSERT(status.ok() == (expected.published || expected.prepared.empty()));
    RC_ASSERT(threw == (throws && plan.fail_at.has_value() && *plan.fail_at < expected.prepared.size()));

    const std::vector<ChunkRun> after = c.pending_runs();
    const std::shared_ptr<const lwc::Batch<Snap>> published = c.published();
    assert_ok(lwc::contracts::check_budget(before, plan.max_runs, prepared));  // T8
    assert_ok(lwc::contracts::check_generations(marked, after));               // T6
    if (!status.ok()) {
      assert_ok(lwc::contracts::check_failed_commit(status, published_before->sequence, published->sequence,
                                                    before, marked, after));  // T4
      RC_ASSERT(published == published_before);
      if (!threw) {
        RC_ASSERT(status.code() == absl::StatusCode::kAborted);
        RC_ASSERT(absl::StrContains(
            status.message(), absl::StrCat("(row ", prepared.back().y, ", x [", prepared.back().x_first, ", ",
                                           prepared.back().x_last, "])")));
      }
    } else if (!prepared.empty()) {
      assert_ok(lwc::contracts::check_successful_commit(before, prepared, runs_of(*published),
                                                        published_before->sequence, published->sequence,
                                                        marked, after));  // T5
      for (const auto& e : published->entries) {
        RC_ASSERT(e.snapshot.origin == origin && e.snapshot.run == e.run);
      }
    } else {
      RC_ASSERT(published == published_before);
    }
    assert_same_state(want, sut);
    sut.published += status.ok() && !prepared.empty() ? 1 : 0;
    sut.failed += !status.ok() && !threw ? 1 : 0;
    sut.threw += threw ? 1 : 0;
    sut.marked_during += marked.empty() ? 0 : 1;
    sut.budget_cut += plan.max_runs != 0 && before.size() > plan.max_runs ? 1 : 0;
  }

  void show(std::ostream& os) const override {
    os << "commit budget " << plan.max_runs << " fail_at "
       << (plan.fail_at ? std::to_string(*plan.fail_at) : std::string("none")) << (throws ? " (throws)" : "");
    for (std::size_t i = 0; i < plan.marks_during.size(); ++i) {
      os << " | during " << i << ":";
      for (const Point2 c : plan.marks_during[i]) os << " " << c;
    }
  }
};

rc::Gen<std::shared_ptr<const Command>> next_command(const Model& m) {
  return rc::gen::weightedOneOf<std::shared_ptr<const Command>>({
      {m.profile.mark_weight,
       rc::gen::exec([m] { return std::shared_ptr<const Command>(std::make_shared<MarkCells>(m)); })},
      {m.profile.commit_weight,
       rc::gen::exec([m] { return std::shared_ptr<const Command>(std::make_shared<Commit>(m)); })},
  });
}

void check_sequences(const Profile& profile) {
  const ChunkWindow window = *lwc::testing::chunk_window();
  const Model initial{window, profile, CommitModel(window.size)};
  System sut(window.size);
  rc::state::check(initial, sut, &next_command);
  RC_CLASSIFY(sut.published > 0, "published");
  RC_CLASSIFY(sut.failed > 0, "failed");
  RC_CLASSIFY(sut.threw > 0, "threw");
  RC_CLASSIFY(sut.marked_during > 0, "marked during preparation");
  RC_CLASSIFY(sut.budget_cut > 0, "budget cut a batch");
}

// Sequences are expensive cases: a tenth of the configured count, each a sequence of up to ~100 steps.
LWC_PROP_SCALED(Commit, T4_FailedCommitChangesNothing, 10, ()) {
  check_sequences({.mark_weight = 2,
                   .commit_weight = 2,
                   .fail_percent = 60,
                   .marks_during_percent = 40,
                   .budget_percent = 30});
}

LWC_PROP_SCALED(Commit, T5_SuccessClearsExactlyTheBatch, 10, ()) {
  check_sequences({.mark_weight = 3,
                   .commit_weight = 2,
                   .fail_percent = 10,
                   .marks_during_percent = 30,
                   .budget_percent = 20});
}

LWC_PROP_SCALED(Commit, T6_MarksDuringPreparationStayPending, 10, ()) {
  check_sequences({.mark_weight = 2,
                   .commit_weight = 2,
                   .fail_percent = 25,
                   .marks_during_percent = 90,
                   .budget_percent = 30});
}

LWC_PROP_SCALED(Commit, T8_BudgetPublishesTheFirstRuns, 10, ()) {
  check_sequences({.mark_weight = 3,
                   .commit_weight = 2,
                   .fail_percent = 15,
                   .marks_during_percent = 30,
                   .budget_percent = 90});
}

// T7 with a real reader thread: it takes the published batch over and over while this thread runs a
// random sequence of marks and commits (a fifth failing); afterwards every batch it held must be one
// whole published batch, from one commit.
LWC_PROP_SCALED(Commit, T7_ReaderSeesOneWholeBatch, 20, ()) {
  const ChunkWindow w = *lwc::testing::chunk_window();
  const auto steps = *rc::gen::container<std::vector<std::vector<Cell>>>(
      rc::gen::resize(8, rc::gen::container<std::vector<Cell>>(lwc::testing::window_cell(w))));
  const auto fail_at = *rc::gen::container<std::vector<int>>(steps.size(), rc::gen::inRange(-4, 4));

  lwc::Committer<Snap> committer(size_of(w.size));
  std::atomic<bool> done{false};
  std::atomic<std::uint64_t> reader_at{0};  // the last sequence the reader saw, plus one
  std::vector<std::shared_ptr<const lwc::Batch<Snap>>> seen;
  std::thread reader([&] {
    while (!done.load(std::memory_order_acquire)) {
      std::shared_ptr<const lwc::Batch<Snap>> b = committer.published();
      if (seen.empty() || b->sequence != seen.back()->sequence) seen.push_back(b);
      reader_at.store(b->sequence + 1, std::memory_order_release);
      std::this_thread::yield();  // on a busy machine, a reader spinning flat out would starve the commits
    }
  });
  // Start only once the reader reads, so that its reads interleave with the commits.
  while (reader_at.load(std::memory_order_acquire) == 0) std::this_thread::yield();
  std::vector<lwc::contracts::BatchView> history = {lwc::contracts::BatchView{}};
  for (std::size_t step = 0; step < steps.size(); ++step) {
    for (const Cell cell : steps[step]) committer.mark(to_int2(cell));
    int call = 0;
    const absl::StatusOr<lwc::CommitReport> report =
        committer.commit([&](const ChunkRun& run) -> absl::StatusOr<Snap> {
          if (call++ == fail_at[step]) return absl::AbortedError("injected failure");
          return Snap{run, step + 1};
        });
    if (report.ok() && report->runs_published > 0) {
      const auto b = committer.published();
      history.push_back({b->sequence, runs_of(*b), std::vector<std::uint64_t>(b->entries.size(), step + 1)});
    }
    std::this_thread::yield();
  }
  done.store(true, std::memory_order_release);
  reader.join();
  RC_CLASSIFY(seen.size() > 1, "reader saw several batches");
  for (const auto& b : seen) {
    lwc::contracts::BatchView view{b->sequence, runs_of(*b), {}};
    for (const auto& e : b->entries) view.origins.push_back(e.snapshot.origin);
    assert_ok(lwc::contracts::check_reader_view(view, history));
  }
}

}  // namespace
