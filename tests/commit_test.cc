// SPDX-License-Identifier: MIT
// File: tests/commit_test.cc
//
// Fixed examples and regressions for lwc.commit: every figure of the tilemap dirty-chunk example (chunk size
// 16; (-1, -1) in chunk (-1, -1); four cells -> 3 chunks -> 2 runs, published 2, pending 0; the second of two
// preparations failing -> prepared 2, published 0, pending 2), the int64 ends the tilemap dirty-chunk
// example's FloorDiv cannot reach, generations, budgets, exceptions, and a concurrency test: reader threads
// snapshotting the published batch and marker threads editing while commits run (also run under
// ThreadSanitizer, preset tsan). Spec: docs/commit.md.
#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/string_view.h"

#ifdef LWC_USE_HEADERS  // tests/header_build: the same test, lwc as headers
#include "lwc/decompose.h"
#include "lwc/commit.h"
#include "lwc/contracts/commit.h"
#else
import lwc.decompose;
import lwc.commit;
import lwc.contracts.commit;
#endif

namespace {

using lwc::ChunkRun;
using lwc::Point2;

constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr lwc::ChunkSize kSixteen = lwc::ChunkSize::of<16>();

// A snapshot that remembers which run it was prepared for and by which commit attempt.
struct Snap {
  ChunkRun run;
  std::uint64_t origin = 0;
};

using Committer = lwc::Committer<Snap>;

// A `prepare` that succeeds on every run, counting its calls.
auto succeed(int& calls, std::uint64_t origin = 1) {
  return [&calls, origin](const ChunkRun& run) -> absl::StatusOr<Snap> {
    ++calls;
    return Snap{run, origin};
  };
}

std::vector<ChunkRun> published_runs(const Committer& c) {
  std::vector<ChunkRun> runs;
  for (const auto& entry : c.published()->entries) runs.push_back(entry.run);
  return runs;
}

// The tilemap dirty-chunk example
// ------------------------------------------------------------------------------------------

TEST(Commit, SeedMinusOneIsInChunkMinusOne) {
  // T1.
  const Committer c(kSixteen);
  EXPECT_EQ(c.chunk_size().value(), 16);
  EXPECT_EQ(c.chunk_of({-1, -1}), (Point2{-1, -1}));
  EXPECT_EQ(c.chunk_of({-16, -17}), (Point2{-1, -2}));
  EXPECT_EQ(c.chunk_of({15, 16}), (Point2{0, 1}));
}

TEST(Commit, SeedFourCellsAreThreeChunksInTwoRuns) {
  // T2, T3, T5.
  Committer c(kSixteen);
  for (const Point2 cell : {Point2{0, 0}, Point2{15, 15}, Point2{16, 0}, Point2{0, 16}}) c.mark(cell);
  EXPECT_EQ(c.pending_chunks(), 3u);
  EXPECT_EQ(c.pending_runs(), (std::vector<ChunkRun>{{0, 0, 1}, {1, 0, 0}}));
  int prepared = 0;
  const absl::StatusOr<lwc::CommitReport> report = c.commit(succeed(prepared));
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(prepared, 2);
  EXPECT_EQ(report->runs_published, 2u);
  EXPECT_EQ(report->chunks_published, 3u);
  EXPECT_EQ(c.published()->entries.size(), 2u);  // published 2
  EXPECT_EQ(c.pending_chunks(), 0u);             // pending 0
  EXPECT_EQ(report->chunks_pending, 0u);
}

TEST(Commit, SeedSecondPreparationFailurePublishesNothing) {
  // T4.
  Committer c(kSixteen);
  c.mark({1, 1});
  c.mark({1, 17});
  int prepared = 0;
  const absl::StatusOr<lwc::CommitReport> report = c.commit([&](const ChunkRun& run) -> absl::StatusOr<Snap> {
    if (++prepared == 2) return absl::UnavailableError("collision rebuild rejected");
    return Snap{run, 1};
  });
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(prepared, 2);                        // prepared 2
  EXPECT_EQ(c.published()->entries.size(), 0u);  // published 0
  EXPECT_EQ(c.published()->sequence, 0u);
  EXPECT_EQ(c.pending_chunks(), 2u);  // pending 2
  // The error keeps prepare's code and names the run.
  EXPECT_EQ(report.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(absl::StrContains(report.status().message(), "run 2 of 2 (row 1, x [0, 0])"))
      << report.status();
  EXPECT_TRUE(absl::StrContains(report.status().message(), "collision rebuild rejected")) << report.status();
}

TEST(Commit, DuplicateCellsCollapseToOneChunk) {
  // T2.
  Committer c(kSixteen);
  for (std::int64_t x = 0; x < 16; ++x) {
    for (std::int64_t y = 0; y < 16; ++y) c.mark({x, y});
  }
  c.mark({0, 0});
  EXPECT_EQ(c.pending_chunks(), 1u);
  EXPECT_EQ(c.pending_runs(), (std::vector<ChunkRun>{{0, 0, 0}}));
}

// The int64 ends -----------------------------------------------------------------------------------

TEST(Commit, ExtremeCellsUseFloorDivision) {
  // T1. The tilemap dirty-chunk example's FloorDiv computes value - divisor + 1, which overflows int32 near
  // INT32_MIN; lwc.decompose is exact at every int64.
  const Committer c(kSixteen);
  EXPECT_EQ(c.chunk_of({kMin, kMax}), (Point2{kMin / 16, kMax / 16}));
  EXPECT_EQ(c.chunk_of({kMin + 1, -17}), (Point2{kMin / 16, -2}));
  const std::int64_t int32_min = std::numeric_limits<std::int32_t>::min();
  EXPECT_EQ(c.chunk_of({int32_min, int32_min + 1}), (Point2{int32_min / 16, int32_min / 16}));
  EXPECT_EQ(c.chunk_of({int32_min - 1, 0}), (Point2{int32_min / 16 - 1, 0}));
  for (const Point2 cell : {Point2{kMin, kMax}, Point2{kMin + 1, -17}, Point2{int32_min - 1, 0}}) {
    EXPECT_TRUE(lwc::contracts::check_chunk_of(cell, 16, c.chunk_of(cell)).ok());
  }
}

TEST(Commit, RunsStopAtTheEndOfTheRowWithoutWrapping) {
  // T3.
  // Chunk size 1: chunks reach INT64_MAX. x_last + 1 would overflow there, and INT64_MIN is not next.
  Committer c(lwc::ChunkSize::of<1>());
  for (const Point2 cell :
       {Point2{kMax - 1, 0}, Point2{kMax, 0}, Point2{kMin, 0}, Point2{kMin + 1, 0}, Point2{kMax, -1}}) {
    c.mark(cell);
  }
  const std::vector<ChunkRun> want = {{-1, kMax, kMax}, {0, kMin, kMin + 1}, {0, kMax - 1, kMax}};
  EXPECT_EQ(c.pending_runs(), want);
  const std::vector<Point2> chunks = {{kMax - 1, 0}, {kMax, 0}, {kMin, 0}, {kMin + 1, 0}, {kMax, -1}};
  EXPECT_EQ(lwc::merge_runs(chunks), want);
  EXPECT_TRUE(lwc::contracts::check_runs(chunks, want).ok());
  EXPECT_EQ((ChunkRun{0, kMax - 1, kMax}).size(), 2u);
  EXPECT_EQ((ChunkRun{0, -1, 1}).size(), 3u);
  EXPECT_EQ((ChunkRun{0, kMin, -1}).size(), std::uint64_t{1} << 63);
  EXPECT_EQ((ChunkRun{0, kMin, kMax - 1}).size(), std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ((ChunkRun{0, kMin, kMax}).size(), std::numeric_limits<std::uint64_t>::max());  // 2^64: saturates
  int prepared = 0;
  ASSERT_TRUE(c.commit(succeed(prepared)).ok());
  EXPECT_EQ(prepared, 3);
  EXPECT_EQ(c.pending_chunks(), 0u);
}

// Merge ---------------------------------------------------------------------------------------------

TEST(Merge, CanonicalOrderAndMaximalRuns) {
  // T3.
  const std::vector<Point2> chunks = {{5, 2}, {3, 0}, {1, 0}, {2, 0}, {-1, 2}, {0, 2}, {2, 0}, {7, -3}};
  const std::vector<ChunkRun> want = {{-3, 7, 7}, {0, 1, 3}, {2, -1, 0}, {2, 5, 5}};
  EXPECT_EQ(lwc::merge_runs(chunks), want);
  EXPECT_TRUE(lwc::contracts::check_runs(chunks, want).ok());
  EXPECT_EQ(lwc::contracts::oracle_runs(std::set<Point2>(chunks.begin(), chunks.end())), want);
  EXPECT_TRUE(lwc::merge_runs(std::vector<Point2>{}).empty());
}

// Budget --------------------------------------------------------------------------------------------

TEST(Commit, BudgetPublishesTheFirstRunsAndKeepsTheRest) {
  // T8.
  Committer c(lwc::ChunkSize::of<1>());
  for (const Point2 cell : {Point2{0, 2}, Point2{0, 0}, Point2{1, 0}, Point2{5, 0}, Point2{-3, 1}}) c.mark(cell);
  int prepared = 0;
  const absl::StatusOr<lwc::CommitReport> report = c.commit(succeed(prepared), lwc::RunBudget::of<2>());
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(prepared, 2);
  EXPECT_EQ(published_runs(c), (std::vector<ChunkRun>{{0, 0, 1}, {0, 5, 5}}));
  EXPECT_EQ(c.pending_runs(), (std::vector<ChunkRun>{{1, -3, -3}, {2, 0, 0}}));
  EXPECT_EQ(report->chunks_pending, 2u);
  ASSERT_TRUE(c.commit(succeed(prepared), *lwc::RunBudget::create(5)).ok());
  EXPECT_EQ(published_runs(c), (std::vector<ChunkRun>{{1, -3, -3}, {2, 0, 0}}));
  EXPECT_EQ(c.published()->sequence, 2u);
  EXPECT_EQ(c.pending_chunks(), 0u);
}

TEST(Commit, BudgetOfZeroIsRejected) {
  // T8.
  for (const std::int64_t k : {std::int64_t{0}, std::int64_t{-1}, kMin}) {
    EXPECT_EQ(lwc::RunBudget::create(k).status().code(), absl::StatusCode::kInvalidArgument) << k;
  }
  EXPECT_EQ(lwc::RunBudget::create(1)->value(), 1);
  EXPECT_TRUE(lwc::RunBudget::unlimited().is_unlimited());
}

// Generations -----------------------------------------------------------------------------------------

TEST(Commit, MarksDuringPreparationBelongToTheNextGeneration) {
  // T5, T6.
  Committer c(kSixteen);
  c.mark({0, 0});
  c.mark({100, 0});
  const std::uint64_t generation = c.generation();
  int prepared = 0;
  const absl::StatusOr<lwc::CommitReport> report = c.commit([&](const ChunkRun& run) -> absl::StatusOr<Snap> {
    ++prepared;
    c.mark({1, 1});    // chunk (0, 0): in this batch, edited while prepared: its snapshot may be stale
    c.mark({0, 160});  // chunk (0, 10): new
    EXPECT_EQ(c.generation(), generation + 1);
    return Snap{run, 1};
  });
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->generation, generation);
  EXPECT_EQ(published_runs(c), (std::vector<ChunkRun>{{0, 0, 0}, {0, 6, 6}}));
  EXPECT_EQ(report->chunks_cleared, 1u);  // (6, 0) only
  EXPECT_EQ(c.pending_runs(), (std::vector<ChunkRun>{{0, 0, 0}, {10, 0, 0}}));
  EXPECT_EQ(prepared, 2);
}

TEST(Commit, MarksDuringAFailedPreparationAreKept) {
  // T4, T6.
  Committer c(kSixteen);
  c.mark({0, 0});
  const absl::StatusOr<lwc::CommitReport> report = c.commit([&](const ChunkRun&) -> absl::StatusOr<Snap> {
    c.mark({32, 32});
    return absl::InternalError("bake failed");
  });
  EXPECT_EQ(report.status().code(), absl::StatusCode::kInternal);
  EXPECT_EQ(c.pending_runs(), (std::vector<ChunkRun>{{0, 0, 0}, {2, 2, 2}}));
}

// Edge cases ----------------------------------------------------------------------------------------

TEST(Commit, NothingPendingPublishesNothing) {
  // T5.
  Committer c(kSixteen);
  c.mark({3, 3});
  int prepared = 0;
  ASSERT_TRUE(c.commit(succeed(prepared)).ok());
  const std::shared_ptr<const Committer::BatchType> before = c.published();
  const absl::StatusOr<lwc::CommitReport> report = c.commit(succeed(prepared));
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->runs_published, 0u);
  EXPECT_EQ(report->sequence, 1u);
  EXPECT_EQ(c.published(), before);
  EXPECT_EQ(prepared, 1);
}

TEST(Commit, CommitFromInsidePrepareIsRefused) {
  // T4 (one commit at a time).
  Committer c(kSixteen);
  c.mark({0, 0});
  absl::Status inner = absl::OkStatus();
  int inner_prepared = 0;
  const absl::StatusOr<lwc::CommitReport> report = c.commit([&](const ChunkRun& run) -> absl::StatusOr<Snap> {
    inner = c.commit(succeed(inner_prepared)).status();
    return Snap{run, 1};
  });
  EXPECT_EQ(inner.code(), absl::StatusCode::kFailedPrecondition) << inner;
  EXPECT_EQ(inner_prepared, 0);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(c.published()->entries.size(), 1u);
  // The flag is released: the next commit runs.
  c.mark({0, 0});
  int prepared = 0;
  EXPECT_TRUE(c.commit(succeed(prepared)).ok());
  EXPECT_EQ(prepared, 1);
}

TEST(Commit, ReadersKeepTheirBatchAcrossLaterCommits) {
  // T7.
  Committer c(kSixteen);
  c.mark({0, 0});
  int prepared = 0;
  ASSERT_TRUE(c.commit(succeed(prepared, 7)).ok());
  const std::shared_ptr<const Committer::BatchType> held = c.published();
  c.mark({16, 0});
  ASSERT_TRUE(c.commit(succeed(prepared, 8)).ok());
  ASSERT_EQ(held->entries.size(), 1u);
  EXPECT_EQ(held->entries[0].run, (ChunkRun{0, 0, 0}));
  EXPECT_EQ(held->entries[0].snapshot.origin, 7u);
  EXPECT_EQ(c.published()->entries[0].snapshot.origin, 8u);
  EXPECT_EQ(c.published()->sequence, held->sequence + 1);
}

TEST(Commit, PrepareMayReturnTheSnapshotItself) {
  // T5.
  Committer c(kSixteen);
  c.mark({0, 0});
  ASSERT_TRUE(c.commit([](const ChunkRun& run) { return Snap{run, 3}; }).ok());
  EXPECT_EQ(c.published()->entries[0].snapshot.origin, 3u);
}

#if __cpp_exceptions
TEST(Commit, ThrowingPrepareLeavesEverythingAsItWas) {
  // T4 (strong exception safety).
  Committer c(kSixteen);
  c.mark({0, 0});
  c.mark({0, 16});
  int prepared = 0;
  ASSERT_TRUE(c.commit(succeed(prepared, 1)).ok());
  c.mark({0, 0});
  c.mark({50, 50});
  const std::shared_ptr<const Committer::BatchType> before = c.published();
  EXPECT_THROW((void)c.commit([&](const ChunkRun& run) -> absl::StatusOr<Snap> {
    c.mark({99, 99});
    if (run.y == 3) throw std::runtime_error("out of memory in the baker");
    return Snap{run, 2};
  }),
               std::runtime_error);
  EXPECT_EQ(c.published(), before);
  EXPECT_EQ(c.pending_runs(), (std::vector<ChunkRun>{{0, 0, 0}, {3, 3, 3}, {6, 6, 6}}));
  // Not stuck: the next commit runs and publishes everything.
  ASSERT_TRUE(c.commit(succeed(prepared, 3)).ok());
  EXPECT_EQ(c.published()->entries.size(), 3u);
  EXPECT_EQ(c.pending_chunks(), 0u);
}
#endif

// Checkers ------------------------------------------------------------------------------------------

TEST(Checker, NamesTheClause) {
  using lwc::contracts::check_runs;
  const std::vector<Point2> dirty = {{0, 0}, {1, 0}, {3, 0}};
  EXPECT_TRUE(check_runs(dirty, std::vector<ChunkRun>{{0, 0, 1}, {0, 3, 3}}).ok());
  const auto t3 = [&](std::vector<ChunkRun> runs) {
    const absl::Status s = check_runs(dirty, runs);
    return absl::StartsWith(s.message(), "T3 merge: ") ? std::string(s.message().substr(10))
                                                       : "no T3: " + s.ToString();
  };
  EXPECT_TRUE(absl::StrContains(t3({{0, 0, 0}, {0, 1, 1}, {0, 3, 3}}), "not maximal"));
  EXPECT_TRUE(absl::StrContains(t3({{0, 3, 3}, {0, 0, 1}}), "canonical order"));
  EXPECT_TRUE(absl::StrContains(t3({{0, 0, 1}, {0, 1, 3}}), "overlap"));
  EXPECT_TRUE(absl::StrContains(t3({{0, 0, 1}}), "in no run"));
  EXPECT_TRUE(absl::StrContains(t3({{0, 0, 1}, {0, 3, 4}}), "not dirty"));
  EXPECT_TRUE(absl::StrContains(t3({{0, 1, 0}}), "reversed"));
  EXPECT_TRUE(absl::StrContains(t3({{0, kMin, kMax}}), "too many"));

  EXPECT_TRUE(absl::StartsWith(lwc::contracts::check_chunk_of({-1, -1}, 16, {0, 0}).message(), "T1"));
  EXPECT_TRUE(
      absl::StrContains(lwc::contracts::check_chunk_of({-1, -1}, 16, {0, 0}).message(), "truncating"));
  EXPECT_TRUE(absl::StartsWith(lwc::contracts::check_dedup(dirty, 1, 4).message(), "T2"));
  const std::vector<ChunkRun> before = {{0, 0, 1}, {0, 3, 3}};
  // A failed commit that published, or cleared a chunk.
  EXPECT_TRUE(absl::StartsWith(
      lwc::contracts::check_failed_commit(absl::InternalError("x"), 0, 1, before, {}, before).message(),
      "T4"));
  EXPECT_TRUE(absl::StartsWith(lwc::contracts::check_failed_commit(absl::InternalError("x"), 0, 0, before, {},
                                                                   std::vector<ChunkRun>{{0, 0, 1}})
                                   .message(),
                               "T4"));
  // A successful commit that left a published chunk pending, or cleared one it did not publish.
  EXPECT_TRUE(absl::StartsWith(lwc::contracts::check_successful_commit(before, before, before, 0, 1, {},
                                                                       std::vector<ChunkRun>{{0, 3, 3}})
                                   .message(),
                               "T5"));
  EXPECT_TRUE(
      absl::StartsWith(lwc::contracts::check_successful_commit(before, std::vector<ChunkRun>{{0, 0, 1}},
                                                               std::vector<ChunkRun>{{0, 0, 1}}, 0, 1, {}, {})
                           .message(),
                       "T5"));
  const std::vector<Point2> marked = {{0, 0}};
  EXPECT_TRUE(absl::StartsWith(lwc::contracts::check_generations(marked, {}).message(), "T6"));
  EXPECT_TRUE(absl::StartsWith(lwc::contracts::check_budget(before, 1, before).message(), "T8"));
  EXPECT_TRUE(absl::StartsWith(
      lwc::contracts::check_budget(before, 1, std::vector<ChunkRun>{{0, 3, 3}}).message(), "T8"));
  const std::vector<lwc::contracts::BatchView> history = {{1, {{0, 0, 1}, {0, 3, 3}}, {5, 5}}};
  EXPECT_TRUE(lwc::contracts::check_reader_view(history[0], history).ok());
  EXPECT_TRUE(absl::StartsWith(
      lwc::contracts::check_reader_view({1, {{0, 0, 1}, {0, 3, 3}}, {5, 6}}, history).message(), "T7"));
  EXPECT_TRUE(absl::StartsWith(lwc::contracts::check_reader_view({2, {}, {}}, history).message(), "T7"));
}

// Concurrency -----------------------------------------------------------------------------------------
//
// Two marker threads edit a 32 x 8-chunk world (bump a chunk's version, then mark one of its cells),
// two reader threads take the published batch over and over, and one thread commits in a loop, every
// fourth commit failing at a preparation. The markers run until at least 100 commits have found work, so
// that edits and commits overlap however the threads are scheduled. Each snapshot records the world versions
// its run had when it was prepared. Checked: every batch a reader saw is one whole published batch (T7); and
// once the markers stop and the dirty set is drained, the latest snapshot of every chunk holds its final
// version, so no edit was lost or cleared by a batch that had already read its chunk (T4, T5, T6).

struct WorldSnap {
  ChunkRun run;
  std::uint64_t origin = 0;
  std::vector<std::uint64_t> versions;
};

constexpr std::int64_t kWorldWidth = 32;
constexpr std::int64_t kWorldHeight = 8;

TEST(Concurrency, ReadersSeeWholeBatchesAndNoEditIsLost) {
  // T4, T5, T6, T7.
  lwc::Committer<WorldSnap> committer(kSixteen);
  std::vector<std::atomic<std::uint64_t>> versions(kWorldWidth * kWorldHeight);
  const auto index = [](std::int64_t x, std::int64_t y) {
    return static_cast<std::size_t>(y * kWorldWidth + x);
  };
  std::atomic<int> markers_running{2};
  std::atomic<int> readers_started{0};
  std::atomic<bool> stop_readers{false};
  std::atomic<std::uint64_t> attempts_made{0};  // commits that found something pending

  const auto marker = [&](std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<std::int64_t> cx(0, kWorldWidth * 16 - 1);
    std::uniform_int_distribution<std::int64_t> cy(0, kWorldHeight * 16 - 1);
    for (int i = 0; i < 1'000'000 && (i < 4000 || attempts_made.load() < 100); ++i) {
      const Point2 cell{cx(rng), cy(rng)};
      versions[index(cell.x / 16, cell.y / 16)].fetch_add(1, std::memory_order_release);
      committer.mark(cell);
    }
    markers_running.fetch_sub(1);
  };

  std::vector<std::vector<std::shared_ptr<const lwc::Committer<WorldSnap>::BatchType>>> seen(2);
  std::vector<std::string> reader_errors(2);
  std::vector<std::atomic<std::uint64_t>> reader_at(2);  // the last sequence each reader saw
  const auto reader = [&](std::size_t r) {
    std::uint64_t last = 0;
    bool started = false;
    while (!stop_readers.load(std::memory_order_acquire)) {
      std::shared_ptr<const lwc::Committer<WorldSnap>::BatchType> batch = committer.published();
      if (batch->sequence < last) reader_errors[r] = "published sequence went backwards";
      if (batch->sequence != last || seen[r].empty()) seen[r].push_back(batch);
      last = batch->sequence;
      reader_at[r].store(last, std::memory_order_release);
      if (!started) {
        started = true;
        readers_started.fetch_add(1);
      }
      (void)committer.pending_runs();  // reads the dirty set while markers write it
    }
  };

  std::vector<std::shared_ptr<const lwc::Committer<WorldSnap>::BatchType>> history;
  std::vector<std::uint64_t> history_attempts;
  std::uint64_t attempt = 0;
  std::uint64_t failures = 0;
  // Every 4th commit fails while preparing its (attempt % 7)-th run. A commit with fewer runs than that
  // (the markers' pace decides how many are pending) owes its failure to the next commit with a run,
  // which fails at its first: so failures are injected however the threads are scheduled.
  bool owed = false;
  const auto commit_once = [&](bool inject_failures) {
    ++attempt;
    const bool fails = inject_failures && (owed || attempt % 4 == 0);
    const std::uint64_t fail_at = owed ? 0 : attempt % 7;
    std::uint64_t call = 0;
    owed = fails;
    const absl::StatusOr<lwc::CommitReport> report =
        committer.commit([&](const ChunkRun& run) -> absl::StatusOr<WorldSnap> {
          if (fails && call++ == fail_at) {
            owed = false;
            return absl::UnavailableError("injected");
          }
          WorldSnap snap{run, attempt, {}};
          for (std::int64_t x = run.x_first; x <= run.x_last; ++x) {
            snap.versions.push_back(versions[index(x, run.y)].load(std::memory_order_acquire));
          }
          return snap;
        });
    if (!report.ok()) {
      ++failures;
    } else if (report->runs_published > 0) {
      history.push_back(committer.published());
      history_attempts.push_back(attempt);
    } else {
      std::this_thread::yield();  // nothing was pending: let the markers run
      return;
    }
    attempts_made.fetch_add(1);
  };

  // Readers first, so that each sees the empty batch of sequence 0 and later ones.
  std::thread r1(reader, 0);
  std::thread r2(reader, 1);
  while (readers_started.load() < 2) std::this_thread::yield();
  std::thread m1(marker, 1);
  std::thread m2(marker, 2);
  while (markers_running.load() > 0) commit_once(true);
  m1.join();
  m2.join();
  while (committer.pending_chunks() > 0) commit_once(false);
  // Let both readers see the last batch (bounded: a stuck reader fails the view count below).
  const std::uint64_t last = committer.published()->sequence;
  for (int spin = 0; spin < 1'000'000 && (reader_at[0].load() != last || reader_at[1].load() != last);
       ++spin) {
    std::this_thread::yield();
  }
  stop_readers.store(true, std::memory_order_release);
  r1.join();
  r2.join();

  EXPECT_GT(history.size(), 1u);
  EXPECT_GT(failures, 0u);

  // T7: every batch a reader held is one whole published batch.
  std::vector<lwc::contracts::BatchView> published;
  const auto view = [](const lwc::Committer<WorldSnap>::BatchType& b) {
    lwc::contracts::BatchView v{b.sequence, {}, {}};
    for (const auto& e : b.entries) {
      v.runs.push_back(e.run);
      v.origins.push_back(e.snapshot.origin);
    }
    return v;
  };
  published.push_back(lwc::contracts::BatchView{});  // the empty batch of sequence 0
  // What the committing side published: batch k came from the attempt recorded with it.
  for (std::size_t k = 0; k < history.size(); ++k) {
    lwc::contracts::BatchView v = view(*history[k]);
    v.origins.assign(v.runs.size(), history_attempts[k]);
    published.push_back(std::move(v));
  }
  std::size_t views = 0;
  for (std::size_t r = 0; r < 2; ++r) {
    EXPECT_EQ(reader_errors[r], "");
    for (const auto& b : seen[r]) {
      const absl::Status s = lwc::contracts::check_reader_view(view(*b), published);
      EXPECT_TRUE(s.ok()) << s;
      for (const auto& e : b->entries) EXPECT_EQ(e.snapshot.run, e.run);
      ++views;
    }
  }
  EXPECT_GE(views, 4u);  // each reader: the empty batch and the last, at least
  std::cout << "[concurrency] " << attempt << " commits tried, " << history.size() << " published, "
            << failures << " failed; readers held " << views << " distinct batches\n";

  // T4-T6: the latest snapshot of every chunk is its final version.
  std::map<std::size_t, std::uint64_t> latest;
  for (const auto& b : history) {
    for (const auto& e : b->entries) {
      for (std::int64_t x = e.run.x_first; x <= e.run.x_last; ++x) {
        latest[index(x, e.run.y)] = e.snapshot.versions[static_cast<std::size_t>(x - e.run.x_first)];
      }
    }
  }
  for (std::size_t i = 0; i < versions.size(); ++i) {
    const std::uint64_t final_version = versions[i].load();
    if (final_version == 0) continue;
    ASSERT_TRUE(latest.contains(i)) << "chunk " << i << " was edited but never published";
    EXPECT_EQ(latest[i], final_version) << "chunk " << i << ": an edit was lost";
  }
}

}  // namespace

// A run compares every field and prints as its row and x range.
namespace {

TEST(ValueTypes, ChunkRunComparesEveryFieldAndPrints) {
  const lwc::ChunkRun r{4, -1, 2};
  EXPECT_EQ(r, (lwc::ChunkRun{4, -1, 2}));
  EXPECT_NE(r, (lwc::ChunkRun{5, -1, 2}));
  EXPECT_NE(r, (lwc::ChunkRun{4, 0, 2}));
  EXPECT_NE(r, (lwc::ChunkRun{4, -1, 3}));
  EXPECT_LT(r, (lwc::ChunkRun{4, -1, 3}));   // y, x_first equal: x_last decides
  EXPECT_LT(r, (lwc::ChunkRun{5, -9, -9}));  // y decides first
  EXPECT_EQ(::testing::PrintToString(r), "row 4, x [-1, 2]");
}

}  // namespace
