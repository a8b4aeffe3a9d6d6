// SPDX-License-Identifier: MIT
// File: contracts/lwc/contracts/commit.h
//
// Executable T-clauses (docs/commit.md): checkers that judge what ANY dirty-chunk committer reports —
// lwc's own or an engine's — and a model written differently from lwc.commit. The model keeps plain sets
// (no generations, no ordered container): a commit's effect is computed as set algebra over the chunks it
// selected and the chunks marked while it prepared; runs are built naively, each from a chunk whose left
// neighbour is clean, and then sorted. Chunks come from lwc.contracts.decompose's int128 oracle.
//
// Checkers return absl::Status and never abort. On failure the message starts with the clause id:
//   "T3 merge: runs 1 (row 0, x [0, 1]) and 2 (row 0, x [2, 2]) touch: not maximal"
//
// One source, two modes (lwc/config.h): `#include <lwc/contracts/commit.h>` brings it without module support;
// the module unit contracts/commit.cppm exports the same declarations as `import lwc.contracts.commit;`.
#ifndef LWC_CONTRACTS_COMMIT_H_
#define LWC_CONTRACTS_COMMIT_H_

#include "lwc/config.h"
#ifndef LWC_MODULE_UNIT  // contracts/commit.cppm includes these in its global module fragment
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
// ... and imports these.
#include "lwc/decompose.h"
#include "lwc/commit.h"
#include "lwc/contracts/decompose.h"
#endif

namespace lwc::internal {

inline constexpr std::int64_t kMinX = std::numeric_limits<std::int64_t>::min();
inline constexpr std::int64_t kMaxX = std::numeric_limits<std::int64_t>::max();

// Checkers expand runs into sets of chunks; a broken implementation could report a run of 2^64 chunks.
inline constexpr absl::uint128 kMaxExpandedChunks = absl::uint128(1) << 24;

[[nodiscard]] inline std::string text(const ChunkRun& r) {
  return absl::StrCat("row ", r.y, ", x [", r.x_first, ", ", r.x_last, "]");
}
[[nodiscard]] inline std::string text(Point2 c) { return absl::StrCat("(", c.x, ", ", c.y, ")"); }

[[nodiscard]] inline absl::Status violation(absl::string_view clause, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(clause, why));
}

// A set of chunks as a sorted vector without duplicates: the order and contents of a std::set<Point2>,
// held in one allocation (checkers run after every step of a fuzz input, where a node per chunk was
// most of the cost).
using ChunkSet = std::vector<Point2>;

inline void sort_unique(ChunkSet& s) {
  if (!std::is_sorted(s.begin(), s.end())) std::sort(s.begin(), s.end());
  s.erase(std::unique(s.begin(), s.end()), s.end());
}

[[nodiscard]] inline ChunkSet set_of(std::span<const Point2> chunks) {
  ChunkSet s(chunks.begin(), chunks.end());
  sort_unique(s);
  return s;
}

[[nodiscard]] inline bool has(const ChunkSet& s, Point2 c) { return std::binary_search(s.begin(), s.end(), c); }

// The chunks of `runs` as a set; an error when a run is reversed or the runs hold too many chunks to
// check. Overlaps are not an error here (T3 judges them): the set simply merges them.
[[nodiscard]] inline absl::Status expand(absl::string_view clause, absl::string_view what,
                                         std::span<const ChunkRun> runs, ChunkSet& out) {
  absl::uint128 total = 0;
  for (const ChunkRun& r : runs) {
    if (r.x_first > r.x_last) {
      return violation(clause, absl::StrCat(what, " run ", text(r), " is reversed"));
    }
    total += static_cast<absl::uint128>(absl::int128(r.x_last) - absl::int128(r.x_first)) + 1;
    if (total > kMaxExpandedChunks) {
      return violation(clause, absl::StrCat(what, " runs hold more than 2^24 chunks: too many to check"));
    }
  }
  out.clear();
  out.reserve(static_cast<std::size_t>(total));
  for (const ChunkRun& r : runs) {
    for (std::int64_t x = r.x_first;; ++x) {
      out.push_back(Point2{x, r.y});
      if (x == r.x_last) break;
    }
  }
  sort_unique(out);
  return absl::OkStatus();
}

}  // namespace lwc::internal

LWC_EXPORT namespace lwc::contracts {

// oracle_chunk_of()
//
// Reference for T1: the chunk of `cell` by the int128 floor division of lwc.contracts.decompose.
// Requires chunk_size > 0.
[[nodiscard]] inline Point2 oracle_chunk_of(Point2 cell, std::int64_t chunk_size) {
  return Point2{oracle_split(cell.x, chunk_size).chunk, oracle_split(cell.y, chunk_size).chunk};
}

// oracle_runs()
//
// Reference for T3, obviously correct and never optimised: a chunk starts a run iff its left neighbour
// is not in the set (or it is in column INT64_MIN); the run then extends while the next column is in the
// set (and exists). The runs are then sorted into canonical order.
[[nodiscard]] inline std::vector<ChunkRun> oracle_runs(const std::set<Point2>& chunks) {
  std::vector<ChunkRun> runs;
  for (const Point2 c : chunks) {
    if (c.x != internal::kMinX && chunks.contains(Point2{c.x - 1, c.y})) continue;
    std::int64_t last = c.x;
    while (last != internal::kMaxX && chunks.contains(Point2{last + 1, c.y})) ++last;
    runs.push_back(ChunkRun{c.y, c.x, last});
  }
  std::sort(runs.begin(), runs.end(), [](const ChunkRun& a, const ChunkRun& b) {
    return a.y != b.y ? a.y < b.y : a.x_first < b.x_first;
  });
  return runs;
}

// CommitModel
//
// The contract as a model: a set of dirty chunks and the runs last published. Feed it the same marks and
// commit plans as an implementation, and compare after every step.
class CommitModel {
 public:
  // Plan
  //
  // One commit as a test drives it: at most `max_runs` runs (0: unlimited); preparation i (0-based)
  // first marks the cells marks_during[i] (if any), then fails when i == fail_at.
  struct Plan {
    std::size_t max_runs = 0;
    std::optional<std::size_t> fail_at;
    std::vector<std::vector<Point2>> marks_during;
  };

  // Outcome
  //
  // What the commit must do: the runs `prepare` is called with, in order; whether it publishes; and the
  // chunks marked during its preparations.
  struct Outcome {
    std::vector<ChunkRun> prepared;
    bool published = false;
    std::set<Point2> marked_during;
  };

  // Requires chunk_size > 0.
  explicit CommitModel(std::int64_t chunk_size) : chunk_size_(chunk_size) {}

  [[nodiscard]] Point2 chunk_of(Point2 cell) const { return oracle_chunk_of(cell, chunk_size_); }
  void mark(Point2 cell) { dirty_.insert(chunk_of(cell)); }

  [[nodiscard]] const std::set<Point2>& dirty() const { return dirty_; }
  [[nodiscard]] std::vector<ChunkRun> pending_runs() const { return oracle_runs(dirty_); }
  [[nodiscard]] const std::vector<ChunkRun>& published_runs() const { return published_; }
  [[nodiscard]] std::uint64_t published_sequence() const { return sequence_; }

  [[nodiscard]] Outcome commit(const Plan& plan) {
    Outcome outcome;
    std::vector<ChunkRun> selected = pending_runs();
    if (plan.max_runs != 0 && selected.size() > plan.max_runs) selected.resize(plan.max_runs);
    for (std::size_t i = 0; i < selected.size(); ++i) {
      outcome.prepared.push_back(selected[i]);
      if (i < plan.marks_during.size()) {
        for (const Point2 cell : plan.marks_during[i]) outcome.marked_during.insert(chunk_of(cell));
      }
      if (plan.fail_at == i) {
        dirty_.insert(outcome.marked_during.begin(), outcome.marked_during.end());
        return outcome;
      }
    }
    if (selected.empty()) return outcome;
    // Success: the selected chunks leave the dirty set, except those marked again meanwhile.
    for (const ChunkRun& r : selected) {
      for (std::int64_t x = r.x_first;; ++x) {
        dirty_.erase(Point2{x, r.y});
        if (x == r.x_last) break;
      }
    }
    dirty_.insert(outcome.marked_during.begin(), outcome.marked_during.end());
    published_ = selected;
    ++sequence_;
    outcome.published = true;
    return outcome;
  }

 private:
  std::int64_t chunk_size_;
  std::set<Point2> dirty_;
  std::vector<ChunkRun> published_;
  std::uint64_t sequence_ = 0;
};

// check_chunk_of()
//
// T1: `chunk` is the floor of each coordinate of `cell` divided by chunk_size (a truncating quotient is
// named as such). chunk_size <= 0 is itself a violation.
[[nodiscard]] inline absl::Status check_chunk_of(Point2 cell, std::int64_t chunk_size, Point2 chunk) {
  if (chunk_size <= 0)
    return internal::violation("T1 mapping: ", absl::StrCat("chunk size ", chunk_size, " is not positive"));
  const Point2 want = oracle_chunk_of(cell, chunk_size);
  if (chunk == want) return absl::OkStatus();
  const bool truncated = chunk == Point2{cell.x / chunk_size, cell.y / chunk_size};
  return internal::violation("T1 mapping: ",
                             absl::StrCat("cell ", internal::text(cell), " by size ", chunk_size, " is in chunk ",
                                          internal::text(want), ", got ", internal::text(chunk),
                                          truncated ? " (the truncating quotient)" : ""));
}

// check_dedup()
//
// T2: after marking `marked_cells` on an empty committer, it holds exactly one pending entry per distinct
// chunk among them: `pending_entries` (the implementation's count) equals that number.
[[nodiscard]] inline absl::Status check_dedup(std::span<const Point2> marked_cells, std::int64_t chunk_size,
                                              std::size_t pending_entries) {
  std::set<Point2> chunks;
  for (const Point2 cell : marked_cells) chunks.insert(oracle_chunk_of(cell, chunk_size));
  if (pending_entries == chunks.size()) return absl::OkStatus();
  return internal::violation("T2 dedup: ",
                             absl::StrCat(marked_cells.size(), " marked cells fall in ", chunks.size(),
                                          " chunks, but ", pending_entries, " entries are pending"));
}

// check_runs()
//
// T3: `runs` is the merge of the set `dirty` (duplicates allowed): every run non-empty, runs strictly in
// canonical (row, first column) order, disjoint, maximal (no two runs on one row touch), and their union
// is exactly the set.
[[nodiscard]] inline absl::Status check_runs(std::span<const Point2> dirty, std::span<const ChunkRun> runs) {
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const ChunkRun& r = runs[i];
    if (r.x_first > r.x_last) {
      return internal::violation("T3 merge: ", absl::StrCat("run ", i, " (", internal::text(r), ") is reversed"));
    }
    if (i == 0) continue;
    const ChunkRun& p = runs[i - 1];
    if (p.y > r.y || (p.y == r.y && p.x_first >= r.x_first)) {
      return internal::violation("T3 merge: ",
                                 absl::StrCat("runs ", i - 1, " (", internal::text(p), ") and ", i, " (",
                                              internal::text(r), ") are not in canonical order"));
    }
    if (p.y == r.y && p.x_last >= r.x_first) {
      return internal::violation("T3 merge: ", absl::StrCat("runs ", i - 1, " (", internal::text(p), ") and ", i,
                                                            " (", internal::text(r), ") overlap"));
    }
    // p.x_last < r.x_first here, so p.x_last + 1 cannot overflow.
    if (p.y == r.y && p.x_last + 1 == r.x_first) {
      return internal::violation("T3 merge: ", absl::StrCat("runs ", i - 1, " (", internal::text(p), ") and ", i,
                                                            " (", internal::text(r), ") touch: not maximal"));
    }
  }
  internal::ChunkSet covered;
  if (absl::Status s = internal::expand("T3 merge: ", "the", runs, covered); !s.ok()) return s;
  const internal::ChunkSet want = internal::set_of(dirty);
  for (const Point2 c : want) {
    if (!internal::has(covered, c)) {
      return internal::violation("T3 merge: ", absl::StrCat("dirty chunk ", internal::text(c), " is in no run"));
    }
  }
  for (const Point2 c : covered) {
    if (!internal::has(want, c)) {
      return internal::violation("T3 merge: ",
                                 absl::StrCat("chunk ", internal::text(c), " is in a run but not dirty"));
    }
  }
  return absl::OkStatus();
}

// check_failed_commit()
//
// T4: a commit whose preparation failed (or threw: pass its status as any non-OK status) changed nothing
// but what was marked during it: the status is not OK, the published batch is still the one before
// (sequence_after == sequence_before), and the pending set is the one before plus `marked_during`.
[[nodiscard]] inline absl::Status check_failed_commit(const absl::Status& status, std::uint64_t sequence_before,
                                                      std::uint64_t sequence_after,
                                                      std::span<const ChunkRun> pending_before,
                                                      std::span<const Point2> marked_during,
                                                      std::span<const ChunkRun> pending_after) {
  if (status.ok()) return internal::violation("T4 all or nothing: ", "a failed preparation returned OK");
  if (sequence_after != sequence_before) {
    return internal::violation("T4 all or nothing: ", absl::StrCat("a failed commit published: sequence ",
                                                                   sequence_before, " became ", sequence_after));
  }
  internal::ChunkSet before;
  internal::ChunkSet after;
  if (absl::Status s = internal::expand("T4 all or nothing: ", "pending-before", pending_before, before);
      !s.ok())
    return s;
  if (absl::Status s = internal::expand("T4 all or nothing: ", "pending-after", pending_after, after);
      !s.ok())
    return s;
  for (const Point2 c : before) {
    if (!internal::has(after, c)) {
      return internal::violation("T4 all or nothing: ",
                                 absl::StrCat("chunk ", internal::text(c), " was cleared by a failed commit"));
    }
  }
  before.insert(before.end(), marked_during.begin(), marked_during.end());
  internal::sort_unique(before);
  for (const Point2 c : after) {
    if (!internal::has(before, c)) {
      return internal::violation("T4 all or nothing: ", absl::StrCat("chunk ", internal::text(c),
                                                                     " became pending but was never marked"));
    }
  }
  return absl::OkStatus();
}

// check_successful_commit()
//
// T5: a successful commit published exactly `batch` (the runs it prepared, `published_runs` as readers
// see them, with sequence_after == sequence_before + 1) and then cleared exactly its chunks: a chunk of
// the batch is no longer pending unless it was marked during the preparation, and every chunk pending
// before and not in the batch still is.
[[nodiscard]] inline absl::Status check_successful_commit(
    std::span<const ChunkRun> pending_before, std::span<const ChunkRun> batch,
    std::span<const ChunkRun> published_runs, std::uint64_t sequence_before, std::uint64_t sequence_after,
    std::span<const Point2> marked_during, std::span<const ChunkRun> pending_after) {
  if (sequence_after != sequence_before + 1) {
    return internal::violation("T5 exact clearing: ", absl::StrCat("sequence ", sequence_before, " became ",
                                                                   sequence_after, ", not one more"));
  }
  if (!std::equal(batch.begin(), batch.end(), published_runs.begin(), published_runs.end())) {
    return internal::violation("T5 exact clearing: ",
                               absl::StrCat("the implementation published ", published_runs.size(),
                                            " runs, but the batch a correct committer prepares here holds ",
                                            batch.size(), " (the model's count)"));
  }
  internal::ChunkSet before;
  internal::ChunkSet in_batch;
  internal::ChunkSet after;
  if (absl::Status s = internal::expand("T5 exact clearing: ", "pending-before", pending_before, before);
      !s.ok())
    return s;
  if (absl::Status s = internal::expand("T5 exact clearing: ", "batch", batch, in_batch); !s.ok()) return s;
  if (absl::Status s = internal::expand("T5 exact clearing: ", "pending-after", pending_after, after);
      !s.ok())
    return s;
  const internal::ChunkSet marked = internal::set_of(marked_during);
  for (const Point2 c : in_batch) {
    if (!internal::has(before, c)) {
      return internal::violation("T5 exact clearing: ",
                                 absl::StrCat("chunk ", internal::text(c), " was published but not dirty"));
    }
    if (internal::has(after, c) && !internal::has(marked, c)) {
      return internal::violation("T5 exact clearing: ",
                                 absl::StrCat("chunk ", internal::text(c), " was published but not cleared"));
    }
  }
  for (const Point2 c : before) {
    if (!internal::has(in_batch, c) && !internal::has(after, c)) {
      return internal::violation("T5 exact clearing: ",
                                 absl::StrCat("chunk ", internal::text(c), " was cleared but not published"));
    }
  }
  for (const Point2 c : after) {
    if (!internal::has(before, c) && !internal::has(marked, c)) {
      return internal::violation("T5 exact clearing: ", absl::StrCat("chunk ", internal::text(c),
                                                                     " became pending but was never marked"));
    }
  }
  return absl::OkStatus();
}

// check_generations()
//
// T6: every chunk marked while a commit prepared its batch is pending after that commit, whatever its
// outcome, and even if the chunk is in the batch just published.
[[nodiscard]] inline absl::Status check_generations(std::span<const Point2> marked_during,
                                                    std::span<const ChunkRun> pending_after) {
  for (const Point2 c : marked_during) {
    const bool pending = std::any_of(pending_after.begin(), pending_after.end(),
                                     [c](const ChunkRun& r) { return r.contains(c); });
    if (!pending) {
      return internal::violation(
          "T6 generations: ",
          absl::StrCat("chunk ", internal::text(c), " was marked during preparation but is not pending"));
    }
  }
  return absl::OkStatus();
}

// check_budget()
//
// T8: a commit with budget `max_runs` (0: unlimited) prepared the first min(max_runs, |runs|) runs of
// the pending runs before it, in that order: `prepared` is that prefix.
[[nodiscard]] inline absl::Status check_budget(std::span<const ChunkRun> pending_before, std::size_t max_runs,
                                               std::span<const ChunkRun> prepared) {
  const std::size_t want = max_runs == 0 ? pending_before.size() : std::min(max_runs, pending_before.size());
  if (prepared.size() > want) {
    return internal::violation("T8 budget: ",
                               absl::StrCat(prepared.size(), " runs prepared; the budget allows ", want));
  }
  for (std::size_t i = 0; i < prepared.size(); ++i) {
    if (prepared[i] != pending_before[i]) {
      return internal::violation(
          "T8 budget: ",
          absl::StrCat("run ", i, " prepared is ", internal::text(prepared[i]), "; the ", i,
                       "-th pending run in canonical order is ", internal::text(pending_before[i])));
    }
  }
  return absl::OkStatus();
}

// BatchView
//
// A published batch as a reader saw it: its sequence, its runs, and for each entry the commit that
// prepared its snapshot (`origins`, as the snapshot itself records it).
struct BatchView {
  std::uint64_t sequence = 0;
  std::vector<ChunkRun> runs;
  std::vector<std::uint64_t> origins;
};

// check_reader_view()
//
// T7: what a reader saw is one whole published batch: the batch of the same sequence among `published`
// (every batch the committing side published, each with one origin), run for run, and every snapshot
// from that batch's commit.
[[nodiscard]] inline absl::Status check_reader_view(const BatchView& seen, std::span<const BatchView> published) {
  const auto it = std::find_if(published.begin(), published.end(),
                               [&](const BatchView& b) { return b.sequence == seen.sequence; });
  if (it == published.end()) {
    return internal::violation("T7 reader isolation: ",
                               absl::StrCat("batch ", seen.sequence, " was never published"));
  }
  if (seen.runs != it->runs) {
    return internal::violation("T7 reader isolation: ",
                               absl::StrCat("batch ", seen.sequence, " was seen with ", seen.runs.size(),
                                            " runs differing from the ", it->runs.size(), " published"));
  }
  if (seen.origins.size() != seen.runs.size()) {
    return internal::violation("T7 reader isolation: ",
                               absl::StrCat("batch ", seen.sequence, " has ", seen.runs.size(), " runs but ",
                                            seen.origins.size(), " snapshots"));
  }
  // The commit that prepared the published batch (all its origins are one; the empty batch has none).
  const std::uint64_t want = it->origins.empty() ? 0 : it->origins[0];
  for (std::size_t i = 0; i < seen.origins.size(); ++i) {
    if (seen.origins[i] != want) {
      return internal::violation("T7 reader isolation: ",
                                 absl::StrCat("batch ", seen.sequence, " mixes snapshots of commits ", want,
                                              " and ", seen.origins[i], " (entry ", i, ")"));
    }
  }
  return absl::OkStatus();
}

}  // namespace lwc::contracts

#endif  // LWC_CONTRACTS_COMMIT_H_
