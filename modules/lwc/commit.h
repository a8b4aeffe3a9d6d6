// SPDX-License-Identifier: MIT
// File: modules/lwc/commit.h
//
// All-or-nothing commit of dirty tilemap chunks. An edited cell marks its chunk dirty (one entry per
// chunk, however many of its cells change); the dirty set merges into maximal horizontal runs; a commit
// prepares an immutable snapshot for every run first and only then publishes the whole batch with one
// pointer swap, so that rendering, navigation and physics never see half of an edit. Marks made while a
// batch is being prepared belong to the next generation: never lost, never cleared by the batch they
// missed. Spec: docs/commit.md (clauses T1-T8). Checker and model: lwc.contracts.commit.
//
// One source, two modes (lwc/config.h): `#include <lwc/commit.h>` brings it without module support; the
// module unit modules/commit.cppm exports the same declarations as `import lwc.commit;`.
#ifndef LWC_COMMIT_H_
#define LWC_COMMIT_H_

#include "lwc/config.h"
#ifndef LWC_MODULE_UNIT  // modules/commit.cppm includes these in its global module fragment
#include <algorithm>
#include <atomic>
#include <compare>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <limits>
#include <memory>
#include <mutex>
#include <ostream>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/container/btree_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "lwc/kernels.h"
// ... and imports these.
#include "lwc/budget.h"
#include "lwc/decompose.h"
#endif

namespace lwc::internal {

// The commit's budget (lwc/budget.h): runs per commit.
struct RunBudgetTag {
  using Count = std::int64_t;
  static constexpr Count kMin = 1;
  static constexpr const char* kName = "run budget";
  static constexpr const char* kWhy = ": a commit could never make progress";
  static constexpr const char* kClause = "T8";
};

}  // namespace lwc::internal

LWC_EXPORT namespace lwc {

using RunBudget = Budget<internal::RunBudgetTag>;

// ChunkRun
//
// A horizontal run of chunks: row `y`, columns x_first..x_last, both ends included (a run may end at
// INT64_MAX, which no half-open bound could express). Ordered canonically: by row, then by first column.
struct ChunkRun {
  std::int64_t y;
  std::int64_t x_first;
  std::int64_t x_last;

  // size()
  //
  // The number of chunks, x_last - x_first + 1, for a run with x_first <= x_last; exact up to 2^64 - 1.
  // The whole row, 2^64 chunks, reads UINT64_MAX: no dirty set can hold it.
  [[nodiscard]] constexpr std::uint64_t size() const noexcept {
    // x_last - x_first as an exact uint64, without the wrap-around (well defined, but flagged by
    // -fsanitize=integer) that subtracting the casts would rely on when x_first < 0 <= x_last.
    const std::uint64_t span =
        (x_first < 0) == (x_last < 0)
            ? static_cast<std::uint64_t>(x_last - x_first)
            : static_cast<std::uint64_t>(x_last) + static_cast<std::uint64_t>(-(x_first + 1)) + 1;
    return span == std::numeric_limits<std::uint64_t>::max() ? span : span + 1;
  }

  [[nodiscard]] constexpr bool contains(Point2 chunk) const noexcept {
    return chunk.y == y && x_first <= chunk.x && chunk.x <= x_last;
  }

  friend constexpr bool operator==(const ChunkRun&, const ChunkRun&) noexcept = default;
  friend constexpr auto operator<=>(const ChunkRun&, const ChunkRun&) noexcept = default;
  friend std::ostream& operator<<(std::ostream& os, const ChunkRun& r) {
    return os << "row " << r.y << ", x [" << r.x_first << ", " << r.x_last << "]";
  }
};

}  // namespace lwc

namespace lwc::internal {

// Row-major order of chunks, the order of runs: by y, then by x.
struct RowMajor {  // LCOV_EXCL_LINE: clang maps this line to the implicit special members of a trivially copyable type, and the unused ones are never emitted
  [[nodiscard]] constexpr bool operator()(Point2 a, Point2 b) const noexcept {
    return a.y != b.y ? a.y < b.y : a.x < b.x;
  }
};

[[nodiscard]] inline std::string describe(const ChunkRun& run) {
  return absl::StrCat("row ", run.y, ", x [", run.x_first, ", ", run.x_last, "]");
}

// True when `chunk`, which comes after every chunk of `run` in row-major order, extends it by one.
// Invariant: chunk.x > run.x_last when the rows agree, so chunk.x - 1 cannot overflow; and a run that
// ends at INT64_MAX is never extended, because no column follows it.
// The kernel (modules/lwc/kernels.h) is the code proved by proofs/commit_proof.cc.
[[nodiscard]] constexpr bool extends(const ChunkRun& run, Point2 chunk) noexcept {
  return kernels::extends_run(kernels::MachineOps<std::int64_t>{}, run, chunk);
}

// The output of kernels::merge_sorted_runs: appends to a vector of runs.
struct RunsOut {
  std::vector<ChunkRun>& runs;
  // `inline`: a member defined in its class in a named module is not implicitly inline, and its importers
  // could not inline it.
  [[nodiscard]] LWC_KERNEL_INLINE inline bool empty() const noexcept { return runs.empty(); }
  [[nodiscard]] LWC_KERNEL_INLINE inline const ChunkRun& back() const noexcept { return runs.back(); }
  LWC_KERNEL_INLINE inline void extend_last(std::int64_t x) const noexcept { runs.back().x_last = x; }
  LWC_KERNEL_INLINE inline void start(std::int64_t y, std::int64_t x) const { runs.push_back(ChunkRun{y, x, x}); }
};

// The dirty set: every dirty chunk, with the generation of its latest mark, in row-major order (a B-tree: the
// tilemap dirty-chunk example's own remedy for a pending set that keeps growing), so that merging is one
// linear sweep. Thread-safe: every member takes the lock.
class DirtySet {
  using Map = absl::btree_map<Point2, std::uint64_t, RowMajor>;

 public:
  struct Selection {
    std::vector<ChunkRun> runs;
    std::uint64_t generation;  // the generation the selection closed
  };

  struct Cleared {
    std::size_t chunks_cleared;
    std::size_t chunks_pending;
  };

  void mark(Point2 chunk) {
    const std::lock_guard<std::mutex> lock(mutex_);
    // Edits are coherent in space: consecutive marks mostly hit one chunk. A repeat of the last mark in
    // the open generation is already recorded, so the tree need not be searched again.
    if (last_generation_ == generation_ && last_chunk_ == chunk) return;
    chunks_.insert_or_assign(chunk, generation_);
    last_chunk_ = chunk;
    last_generation_ = generation_;
  }

  // The first `max_runs` maximal runs, in canonical order. When any chunk is dirty, also closes the open
  // generation: every later mark carries a higher one, so `clear` can tell it from what was selected.
  [[nodiscard]] Selection select(std::size_t max_runs) {
    const std::lock_guard<std::mutex> lock(mutex_);
    Selection selection{runs_locked(max_runs), generation_};
    if (!selection.runs.empty()) ++generation_;
    return selection;
  }

  [[nodiscard]] std::vector<ChunkRun> runs() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return runs_locked(std::numeric_limits<std::size_t>::max());
  }

  // Erases every chunk of `runs` whose latest mark is in `generation` or earlier. A chunk marked again
  // since (a later generation) stays: the snapshot just published may predate that edit. `runs` must
  // be in canonical order, as `select` returns them.
  [[nodiscard]] Cleared clear(std::span<const ChunkRun> runs, std::uint64_t generation) {
    std::uint64_t selected = 0;
    for (const ChunkRun& run : runs) selected += run.size();
    Map dropped;  // destroyed after the lock is released
    const std::lock_guard<std::mutex> lock(mutex_);
    const std::size_t before = chunks_.size();
    if (selected >= before / 2) {
      // Most of the set goes: one sweep that copies the survivors into a new tree beats erasing node
      // by node. Runs and chunks ascend together, so one pass decides membership.
      Map survivors;
      auto run = runs.begin();
      for (const auto& [chunk, marked] : chunks_) {
        while (run != runs.end() && RowMajor{}(Point2{run->x_last, run->y}, chunk)) ++run;
        if (run == runs.end() || !run->contains(chunk) || marked > generation) {
          survivors.insert(survivors.end(), {chunk, marked});
        }
      }
      dropped.swap(chunks_);
      chunks_.swap(survivors);
    } else {
      for (const ChunkRun& run : runs) {
        auto it = chunks_.lower_bound(Point2{run.x_first, run.y});
        while (it != chunks_.end() && it->first.y == run.y && it->first.x <= run.x_last) {
          it = it->second <= generation ? chunks_.erase(it) : std::next(it);
        }
      }
    }
    return {before - chunks_.size(), chunks_.size()};
  }

  [[nodiscard]] std::size_t size() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return chunks_.size();
  }

  [[nodiscard]] std::uint64_t generation() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return generation_;
  }

 private:
  // One sweep in row-major order: a chunk either extends the last run or starts a new one, so every run
  // is maximal and the runs come out in canonical order. Stops before starting run max_runs + 1.
  [[nodiscard]] std::vector<ChunkRun> runs_locked(std::size_t max_runs) const {
    std::vector<ChunkRun> runs;
    for (const auto& [chunk, generation] : chunks_) {
      if (!runs.empty() && extends(runs.back(), chunk)) {
        runs.back().x_last = chunk.x;
        continue;
      }
      if (runs.size() == max_runs) break;
      runs.push_back(ChunkRun{chunk.y, chunk.x, chunk.x});
    }
    return runs;
  }

  mutable std::mutex mutex_;
  // Invariant: every value is <= generation_ (marks take the open generation, which only grows).
  Map chunks_;
  std::uint64_t generation_ = 1;
  // Invariant: if last_generation_ == generation_, chunks_ maps last_chunk_ to generation_ (clearing
  // only erases closed generations, and closing one makes the two differ).
  Point2 last_chunk_{0, 0};
  std::uint64_t last_generation_ = 0;
};

// Releases the one-commit-at-a-time flag when a commit returns, or unwinds because `prepare` threw.
class CommitFlag {
 public:
  explicit CommitFlag(std::atomic<bool>& flag) noexcept : flag_(flag) {}
  CommitFlag(const CommitFlag&) = delete;
  CommitFlag& operator=(const CommitFlag&) = delete;
  ~CommitFlag() { flag_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool>& flag_;
};

}  // namespace lwc::internal

LWC_EXPORT namespace lwc {

// merge_runs()
//
// The maximal horizontal runs of the set of `chunks` (duplicates allowed), in canonical order: disjoint,
// covering exactly the distinct chunks, no two on one row touching (T3). Deterministic; O(n log n) (one
// sort and one sweep). `Committer` keeps its dirty set ordered and needs only the sweep; this form is for
// callers with their own dirty set.
//
// Example: merge_runs({{0, 0}, {1, 0}, {0, 1}, {1, 0}}) == {{0, 0, 1}, {1, 0, 0}}.
[[nodiscard]] inline std::vector<ChunkRun> merge_runs(std::span<const Point2> chunks) {
  std::vector<Point2> sorted(chunks.begin(), chunks.end());
  std::sort(sorted.begin(), sorted.end(), internal::RowMajor{});
  std::vector<ChunkRun> runs;
  // The sweep is the kernel (modules/lwc/kernels.h) that proofs/commit_proof.cc proves yields the maximal
  // canonical runs of every sorted sequence of up to its bound of chunks.
  internal::RunsOut out{runs};
  kernels::merge_sorted_runs(kernels::MachineOps<std::int64_t>{}, sorted, out);
  return runs;
}

// Batch
//
// What a commit publishes: one snapshot per run, all prepared before any was visible. Immutable once
// published (readers hold it as `std::shared_ptr<const Batch>`). `sequence` is 0 for the empty batch a
// committer starts with and grows by one with every publishing commit, so a consumer can tell whether it
// missed one; `generation` is the generation of marks the batch committed.
template <typename Snapshot>
struct Batch {
  struct Entry {
    ChunkRun run;
    Snapshot snapshot;
  };

  std::uint64_t sequence = 0;
  std::uint64_t generation = 0;
  std::vector<Entry> entries;
};

// CommitReport
//
// What a successful commit did. When nothing was pending it published nothing: runs_published is 0 and
// `sequence` is that of the batch still published.
struct CommitReport {
  std::uint64_t sequence;          // of the published batch
  std::uint64_t generation;        // the generation committed (0 when nothing was pending)
  std::size_t runs_published;
  std::uint64_t chunks_published;  // the chunks of those runs
  std::size_t chunks_cleared;      // chunks_published minus those marked again during preparation (T6)
  std::size_t chunks_pending;      // dirty after the commit: runs beyond the budget and the next generation
};

// Preparer
//
// `prepare(run)` builds the snapshot of one run, or says why it cannot: it returns
// absl::StatusOr<Snapshot> (or anything convertible to it, such as a Snapshot).
template <typename F, typename Snapshot>
concept Preparer = std::invocable<F&, const ChunkRun&> &&
                   std::convertible_to<std::invoke_result_t<F&, const ChunkRun&>, absl::StatusOr<Snapshot>>;

// Committer
//
// The dirty set of a tilemap and the batch last published from it, for a fixed chunk size. A `Snapshot`
// is whatever a run's consumers need (a baked collision shape, a render mesh), built by the `prepare`
// callback that `commit` is given.
//
// Thread safety: `mark`, `chunk_of`, `pending_chunks`, `pending_runs`, `generation` and `published` may
// be called from any thread at any time, concurrently with each other and with a running `commit`, and
// from inside `prepare`. `commit` may be called from any thread; one runs at a time: a commit started
// while another is running (from another thread, or from inside its own `prepare`) returns
// FailedPrecondition and changes nothing. `prepare` runs on the committing thread with no lock held.
// Destruction must not race with any call.
//
// Example:
//   lwc::Committer<Collision> committer(lwc::ChunkSize::of<16>());
//   committer.mark({x, y});                                         // on every edited cell
//   absl::StatusOr<lwc::CommitReport> r = committer.commit(
//       [&](const lwc::ChunkRun& run) -> absl::StatusOr<Collision> { return bake(run); });
//   std::shared_ptr<const lwc::Batch<Collision>> batch = committer.published();   // any thread
template <std::move_constructible Snapshot>
class Committer {
 public:
  using BatchType = Batch<Snapshot>;

  explicit Committer(ChunkSize size) : size_(size), published_(std::make_shared<const BatchType>()) {}
  Committer(const Committer&) = delete;
  Committer& operator=(const Committer&) = delete;

  [[nodiscard]] ChunkSize chunk_size() const noexcept { return size_; }

  // chunk_of()
  //
  // The chunk holding `cell`: the floor of each coordinate divided by the chunk size (T1), exact for
  // every int64 (lwc.decompose). (-1, -1) is in chunk (-1, -1), not (0, 0).
  [[nodiscard]] Point2 chunk_of(Point2 cell) const noexcept { return split(cell, size_).chunk; }

  // mark()
  //
  // Marks the chunk of `cell` dirty. A chunk is one entry however often its cells are marked (T2). A
  // mark made while a commit prepares its batch belongs to the next generation: it stays pending after
  // that commit, even if its chunk is in the batch (T6).
  void mark(Point2 cell) { dirty_.mark(chunk_of(cell)); }

  // pending_chunks(), pending_runs()
  //
  // The dirty set now: its number of chunks, and its maximal runs in canonical order (T3).
  [[nodiscard]] std::size_t pending_chunks() const { return dirty_.size(); }
  [[nodiscard]] std::vector<ChunkRun> pending_runs() const { return dirty_.runs(); }

  // generation()
  //
  // The open generation: the one the next mark joins. Every commit that selects a batch closes it.
  [[nodiscard]] std::uint64_t generation() const { return dirty_.generation(); }

  // published()
  //
  // The batch last published, never null (the empty batch of sequence 0 before the first commit). It
  // is immutable and stays valid as long as it is held, whatever commits follow; a reader holding it
  // sees one whole batch, never parts of two (T7).
  [[nodiscard]] std::shared_ptr<const BatchType> published() const {
    const std::lock_guard<std::mutex> lock(published_mutex_);
    return published_;
  }

  // commit()
  //
  // Takes the first `budget` runs of the dirty set in canonical order (T8) and calls `prepare` on each,
  // in that order, before publishing anything. If every preparation succeeds, publishes the batch with
  // one swap and only then clears exactly its chunks, except those marked again meanwhile (T5, T6). If
  // one fails, returns its error code with a message naming the run, having prepared no further run,
  // published nothing and cleared nothing (T4). If `prepare` throws (in a build with exceptions), the
  // exception propagates with the same guarantee: the committer is as it was, plus the marks made
  // meanwhile. With nothing pending, publishes nothing and returns a report of zero runs.
  // Errors: prepare's own code; FailedPrecondition while another commit of this committer is running.
  template <Preparer<Snapshot> Prepare>
  [[nodiscard]] absl::StatusOr<CommitReport> commit(Prepare&& prepare,
                                                    RunBudget budget = RunBudget::unlimited()) {
    // Refused, not queued: waiting would deadlock a commit called from inside `prepare`.
    if (committing_.exchange(true, std::memory_order_acquire)) {
      return absl::FailedPreconditionError("commit: another commit of this committer is running");
    }
    const internal::CommitFlag running(committing_);

    internal::DirtySet::Selection selection = dirty_.select(static_cast<std::size_t>(budget.value()));
    if (selection.runs.empty()) return CommitReport{published()->sequence, 0, 0, 0, 0, 0};

    // Phase 1: prepare every run into a batch nobody else can see. Nothing shared changes here, so a
    // failure (or an exception) only has to drop the local batch.
    auto batch = std::make_shared<BatchType>();
    batch->generation = selection.generation;
    batch->entries.reserve(selection.runs.size());
    std::uint64_t chunks = 0;
    for (std::size_t i = 0; i < selection.runs.size(); ++i) {
      const ChunkRun& run = selection.runs[i];
      absl::StatusOr<Snapshot> snapshot = std::invoke(prepare, run);
      if (!snapshot.ok()) {
        return absl::Status(
            snapshot.status().code(),
            absl::StrCat("commit: preparing run ", i + 1, " of ", selection.runs.size(), " (",
                         internal::describe(run), ") failed: ", snapshot.status().message(),
                         "; nothing was published and every dirty chunk stays pending (T4)"));
      }
      batch->entries.push_back(typename BatchType::Entry{run, *std::move(snapshot)});
      chunks += run.size();
    }

    // Phase 2: publish with one swap, which cannot fail, then clear. Clearing allocates only for the
    // survivors of a sweep; were that to throw bad_alloc, the batch would be published and its chunks
    // merely still pending: committed again later, never lost.
    std::shared_ptr<const BatchType> previous;
    std::uint64_t sequence = 0;
    {
      const std::lock_guard<std::mutex> lock(published_mutex_);
      sequence = published_->sequence + 1;
      batch->sequence = sequence;
      previous = std::exchange(published_, std::move(batch));
    }
    const internal::DirtySet::Cleared cleared = dirty_.clear(selection.runs, selection.generation);
    // `previous` is released here, outside every lock: dropping a large batch never blocks a reader.
    return CommitReport{sequence, selection.generation,   selection.runs.size(),
                        chunks,   cleared.chunks_cleared, cleared.chunks_pending};
  }

 private:
  ChunkSize size_;
  internal::DirtySet dirty_;
  mutable std::mutex published_mutex_;
  // Invariant: never null; replaced only by `commit`, under published_mutex_.
  std::shared_ptr<const BatchType> published_;
  // Invariant: true exactly while a commit runs.
  std::atomic<bool> committing_{false};
};

}  // namespace lwc

#endif  // LWC_COMMIT_H_
