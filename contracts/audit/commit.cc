// SPDX-License-Identifier: MIT
// File: contracts/audit/commit.cc       Module: lwc.contracts.audit (implementation unit)
//
// The event logs of lwc.commit in a trace (docs/audit.md, "commit"): each session is one dirty-chunk
// committer, its events in the order the engine saw them, judged against lwc.contracts.commit's
// CommitModel and checkers:
//   open            the committer's chunk size                                              (no clause)
//   mark            a marked cell [and the chunk the engine filed it under]                 T1
//   commit          a commit begins, with its run budget                                    (no clause)
//   prepare         the commit prepares a run                                               (no clause)
//   prepare_failed  a preparation failed: the commit ends, publishing nothing               T8
//   publish         the commit ends by publishing its batch [and sequence]                  T5 T8
//   pending         the engine's pending runs                                   T3, after a commit T4/T5 T6
//   end             the session ends                                                        (no clause)
// A commit's marks are the marks between its "commit" and its end. The model runs each commit whole
// when it ends (CommitModel::commit with the trace's budget, failure point and marks), so the engine's
// prepared runs, batch and the pending runs that follow are all judged against the same model step.
// T2 (a count of pending entries) and T7 (readers on other threads) are not traced.
module;
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "lwc/check.h"
module lwc.contracts.audit;

import lwc.decompose;
import lwc.commit;
import lwc.contracts.commit;

namespace lwc::internal {
namespace {

using contracts::CommitModel;
using contracts::Judgement;
using contracts::TraceRecord;

// The headings of docs/commit.md, verbatim (tests/audit_test.cc compares them).
constexpr contracts::Clause kClauses[] = {
    {"T1", "Mapping: a marked cell dirties its floor chunk"},
    {"T2", "Dedup: one pending entry per chunk, however many of its cells are marked"},
    {"T3", "Merge: pending runs are disjoint, cover exactly the dirty set, are maximal, in canonical order"},
    {"T4", "All or nothing: a failed or throwing preparation publishes nothing and leaves every dirty chunk pending"},
    {"T5", "Exact clearing: a successful commit publishes its batch with one swap, then clears exactly its chunks"},
    {"T6", "Generations: chunks marked while a batch is prepared stay pending for the next commit"},
    {"T7", "Reader isolation: a reader sees one whole published batch, never a mix"},
    {"T8", "Budget: a commit with budget K publishes the first K runs in canonical order and keeps the rest"},
};

constexpr std::string_view kMarkClauses[] = {"T1"};
constexpr std::string_view kFailedClauses[] = {"T8"};
constexpr std::string_view kPublishClauses[] = {"T5", "T8"};
constexpr std::string_view kPendingClauses[] = {"T3"};
constexpr std::string_view kAfterFailureClauses[] = {"T3", "T4", "T6"};
constexpr std::string_view kAfterPublishClauses[] = {"T3", "T5", "T6"};

// One committer as its events have driven it.
class CommitSession final : public contracts::Session {
 public:
  enum class Ended { kNone, kFailed, kPublished };

  std::optional<CommitModel> model;
  std::int64_t chunk_size = 0;
  std::optional<std::uint64_t> sequence;  // the engine's published sequence, once it reported one

  // The commit in progress, from "commit" to "publish" or "prepare_failed".
  bool committing = false;
  CommitModel::Plan plan;
  std::vector<ChunkRun> pending_before;
  std::vector<ChunkRun> prepared;
  std::uint64_t sequence_before = 0;

  // The commit that just ended: the next "pending" event is its state after (T4 or T5, T6).
  Ended ended = Ended::kNone;
  std::vector<ChunkRun> batch;     // the model's batch
  std::vector<ChunkRun> published;  // the engine's
  std::uint64_t sequence_after = 0;
  std::vector<Int2> marked_during;
};

absl::string_view sv(std::string_view s) { return absl::string_view(s.data(), s.size()); }

std::unique_ptr<contracts::Session> open_session() { return std::make_unique<CommitSession>(); }

CommitSession& state(contracts::Session& s) { return static_cast<CommitSession&>(s); }

std::string runs_text(std::span<const ChunkRun> runs) {
  std::string out = "[";
  for (std::size_t i = 0; i < runs.size(); ++i) {
    absl::StrAppend(&out, i > 0 ? ", " : "", "(row ", runs[i].y, ", x ", runs[i].x_first, "..", runs[i].x_last, ")");
  }
  return out + "]";
}

std::string chunks_text(const std::set<Int2>& chunks) {
  std::string out = "{";
  bool first = true;
  for (const Int2 c : chunks) {
    absl::StrAppend(&out, first ? "" : ", ", "(", c.x, ", ", c.y, ")");
    first = false;
  }
  return out + "}";
}

// The checkers judge runs as sets of chunks; a record's runs may hold at most this many, so that one line
// cannot make the audit allocate without bound (a run may span 2^64 chunks).
constexpr std::uint64_t kMaxRecordChunks = std::uint64_t{1} << 18;

absl::Status read_runs(const TraceRecord& r, std::string_view section, std::vector<ChunkRun>& runs) {
  std::vector<std::int64_t> flat;
  LWC_RETURN_IF_ERROR(r.int64_tuples(section, "runs", 3, flat));
  runs.clear();
  std::uint64_t chunks = 0;
  for (std::size_t i = 0; i + 2 < flat.size(); i += 3) {
    const ChunkRun run{flat[i], flat[i + 1], flat[i + 2]};
    // A reversed run holds no chunk; T3 names it.
    if (run.x_first <= run.x_last) chunks += std::min(run.size(), kMaxRecordChunks + 1);
    if (chunks > kMaxRecordChunks) {
      return absl::ResourceExhaustedError(absl::StrCat(sv(section), ".runs hold more than ", kMaxRecordChunks,
                                                       " chunks: too many to judge in bounded memory"));
    }
    runs.push_back(run);
  }
  return absl::OkStatus();
}

absl::Status need_open(const CommitSession& s) {
  if (s.model.has_value()) return absl::OkStatus();
  return absl::FailedPreconditionError("the session's first event must be \"open\" (with in.chunk_size)");
}

absl::Status need_commit(const CommitSession& s, bool inside) {
  if (s.committing == inside) return absl::OkStatus();
  return absl::FailedPreconditionError(inside ? "no commit is in progress (a \"commit\" event begins one)"
                                              : "a commit is in progress (it ends with \"publish\" or "
                                                "\"prepare_failed\")");
}

// open: {"in": {"chunk_size"}}
absl::Status on_open(const TraceRecord& r, contracts::Session& session, Judgement&) {
  CommitSession& s = state(session);
  if (s.model.has_value()) return absl::FailedPreconditionError("the session is already open");
  LWC_ASSIGN_OR_RETURN(const std::int64_t size, r.int64("in", "chunk_size"));
  if (size <= 0) {
    return absl::InvalidArgumentError(absl::StrCat("in.chunk_size = ", size, " is not a chunk size (> 0)"));
  }
  s.chunk_size = size;
  s.model.emplace(size);
  return absl::OkStatus();
}

// mark: {"in": {"cell": [x, y]}, "out": {"chunk": [cx, cy]} (optional)}
absl::Status on_mark(const TraceRecord& r, contracts::Session& session, Judgement& j) {
  CommitSession& s = state(session);
  LWC_RETURN_IF_ERROR(need_open(s));
  std::vector<std::int64_t> cell;
  LWC_RETURN_IF_ERROR(r.int64s("in", "cell", cell));
  if (cell.size() != 2) {
    return absl::InvalidArgumentError(absl::StrCat("in.cell holds ", cell.size(), " coordinates, not 2"));
  }
  const Int2 c{cell[0], cell[1]};
  if (r.has("out", "chunk")) {
    std::vector<std::int64_t> chunk;
    LWC_RETURN_IF_ERROR(r.int64s("out", "chunk", chunk));
    if (chunk.size() != 2) {
      return absl::InvalidArgumentError(absl::StrCat("out.chunk holds ", chunk.size(), " coordinates, not 2"));
    }
    j.checked = kMarkClauses;
    j.verdict = contracts::check_chunk_of(c, s.chunk_size, Int2{chunk[0], chunk[1]});
    if (!j.verdict.ok()) {
      const Int2 want = s.model->chunk_of(c);
      j.input = absl::StrCat("cell (", c.x, ", ", c.y, "), chunk size ", s.chunk_size);
      j.expected = absl::StrCat("chunk (", want.x, ", ", want.y, ")");
      j.got = absl::StrCat("chunk (", chunk[0], ", ", chunk[1], ")");
    }
  }
  if (s.committing) {
    // Marked during the preparation of the runs prepared so far (before the first: during the first).
    const std::size_t i = s.prepared.empty() ? 0 : s.prepared.size() - 1;
    if (s.plan.marks_during.size() <= i) s.plan.marks_during.resize(i + 1);
    s.plan.marks_during[i].push_back(c);
  } else {
    s.model->mark(c);
    s.ended = CommitSession::Ended::kNone;
  }
  return absl::OkStatus();
}

// commit: {"in": {"max_runs"} (optional; 0 or absent: unlimited)}
absl::Status on_commit(const TraceRecord& r, contracts::Session& session, Judgement&) {
  CommitSession& s = state(session);
  LWC_RETURN_IF_ERROR(need_open(s));
  LWC_RETURN_IF_ERROR(need_commit(s, false));
  std::int64_t max_runs = 0;
  if (r.has("in", "max_runs")) {
    LWC_ASSIGN_OR_RETURN(max_runs, r.int64("in", "max_runs"));
    if (max_runs < 0) return absl::InvalidArgumentError(absl::StrCat("in.max_runs = ", max_runs, " is negative"));
  }
  s.committing = true;
  s.ended = CommitSession::Ended::kNone;
  s.plan = CommitModel::Plan{static_cast<std::size_t>(max_runs), std::nullopt, {}};
  s.pending_before = s.model->pending_runs();
  s.prepared.clear();
  s.sequence_before = s.sequence.value_or(0);
  return absl::OkStatus();
}

// prepare: {"in": {"run": [y, x_first, x_last]}}
absl::Status on_prepare(const TraceRecord& r, contracts::Session& session, Judgement&) {
  CommitSession& s = state(session);
  LWC_RETURN_IF_ERROR(need_open(s));
  LWC_RETURN_IF_ERROR(need_commit(s, true));
  std::vector<std::int64_t> run;
  LWC_RETURN_IF_ERROR(r.int64s("in", "run", run));
  if (run.size() != 3) {
    return absl::InvalidArgumentError(absl::StrCat("in.run holds ", run.size(), " integers, not 3 (y, x_first, x_last)"));
  }
  s.prepared.push_back(ChunkRun{run[0], run[1], run[2]});
  return absl::OkStatus();
}

// Ends the commit in progress on the model: the same budget, failure point and marks as the engine's.
void end_commit(CommitSession& s, bool failed) {
  if (failed) s.plan.fail_at = s.prepared.size() - 1;
  const CommitModel::Outcome outcome = s.model->commit(s.plan);
  if (outcome.prepared.empty()) {
    // Nothing was pending: such a commit returns at once, so its "marks during" are plain marks.
    for (const std::vector<Int2>& marks : s.plan.marks_during) {
      for (const Int2 cell : marks) s.model->mark(cell);
    }
  }
  s.committing = false;
  s.batch = outcome.prepared;
  s.marked_during.assign(outcome.marked_during.begin(), outcome.marked_during.end());
  s.ended = failed ? CommitSession::Ended::kFailed : CommitSession::Ended::kPublished;
}

void explain_budget(const CommitSession& s, Judgement& j) {
  j.input = absl::StrCat("budget ", s.plan.max_runs, " runs, pending before ", runs_text(s.pending_before));
  j.expected = absl::StrCat("prepared ", runs_text(s.batch));
  j.got = absl::StrCat("prepared ", runs_text(s.prepared));
}

// prepare_failed: {} — the last run prepared failed; the commit ends.
absl::Status on_prepare_failed(const TraceRecord&, contracts::Session& session, Judgement& j) {
  CommitSession& s = state(session);
  LWC_RETURN_IF_ERROR(need_open(s));
  LWC_RETURN_IF_ERROR(need_commit(s, true));
  if (s.prepared.empty()) return absl::FailedPreconditionError("prepare_failed, but no run was prepared");
  j.verdict = contracts::check_budget(s.pending_before, s.plan.max_runs, s.prepared);
  end_commit(s, true);
  s.sequence_after = s.sequence_before;
  if (!j.verdict.ok()) explain_budget(s, j);
  return absl::OkStatus();
}

// publish: {"out": {"runs": [[y, x_first, x_last], ...], "sequence"} (sequence optional)}
absl::Status on_publish(const TraceRecord& r, contracts::Session& session, Judgement& j) {
  CommitSession& s = state(session);
  LWC_RETURN_IF_ERROR(need_open(s));
  LWC_RETURN_IF_ERROR(need_commit(s, true));
  LWC_RETURN_IF_ERROR(read_runs(r, "out", s.published));
  const bool has_sequence = r.has("out", "sequence");
  std::uint64_t sequence = 0;
  if (has_sequence) {
    // An int64 >= 0, so that the sequence after it always exists (the checkers add one).
    LWC_ASSIGN_OR_RETURN(const std::int64_t n, r.int64("out", "sequence"));
    if (n < 0) return absl::InvalidArgumentError(absl::StrCat("out.sequence = ", n, " is negative"));
    sequence = static_cast<std::uint64_t>(n);
  }
  j.verdict = contracts::check_budget(s.pending_before, s.plan.max_runs, s.prepared);
  end_commit(s, false);
  s.sequence_after = has_sequence ? sequence : s.sequence_before + (s.batch.empty() ? 0 : 1);
  if (has_sequence) s.sequence = sequence;
  if (!j.verdict.ok()) {
    explain_budget(s, j);
    return absl::OkStatus();
  }
  if (s.batch.empty()) {
    // Nothing was pending: the model publishes nothing, the sequence stays, and the state after is
    // judged like any other (T3).
    s.ended = CommitSession::Ended::kNone;
    if (!s.published.empty() || s.sequence_after != s.sequence_before) {
      j.verdict = absl::InvalidArgumentError(absl::StrCat(
          "T5 exact clearing: nothing was pending, yet ", s.published.size(), " runs were published (sequence ",
          s.sequence_before, " became ", s.sequence_after, ")"));
    }
  } else {
    const std::vector<ChunkRun> after = s.model->pending_runs();
    j.verdict = contracts::check_successful_commit(s.pending_before, s.batch, s.published, s.sequence_before,
                                                   s.sequence_after, s.marked_during, after);
  }
  if (!j.verdict.ok()) {
    j.input = absl::StrCat("budget ", s.plan.max_runs, ", pending before ", runs_text(s.pending_before));
    j.expected = absl::StrCat("published ", runs_text(s.batch), " as sequence ", s.sequence_before + (s.batch.empty() ? 0 : 1));
    j.got = absl::StrCat("published ", runs_text(s.published), " as sequence ", s.sequence_after);
  }
  return absl::OkStatus();
}

// pending: {"out": {"runs": [[y, x_first, x_last], ...]}} — the engine's pending runs, outside a commit.
absl::Status on_pending(const TraceRecord& r, contracts::Session& session, Judgement& j) {
  CommitSession& s = state(session);
  LWC_RETURN_IF_ERROR(need_open(s));
  LWC_RETURN_IF_ERROR(need_commit(s, false));
  std::vector<ChunkRun> runs;
  LWC_RETURN_IF_ERROR(read_runs(r, "out", runs));
  const CommitSession::Ended ended = s.ended;
  s.ended = CommitSession::Ended::kNone;
  if (ended == CommitSession::Ended::kFailed) {
    j.checked = kAfterFailureClauses;
    j.verdict = contracts::check_failed_commit(absl::UnknownError("the preparation failed"), s.sequence_before,
                                               s.sequence_after, s.pending_before, s.marked_during, runs);
  } else if (ended == CommitSession::Ended::kPublished) {
    j.checked = kAfterPublishClauses;
    // The batch and sequence were judged at "publish": here only the clearing, against the model's batch.
    j.verdict = contracts::check_successful_commit(s.pending_before, s.batch, s.batch, 0, 1, s.marked_during, runs);
  }
  if (j.verdict.ok() && ended != CommitSession::Ended::kNone) {
    j.verdict = contracts::check_generations(s.marked_during, runs);
  }
  const std::vector<Int2> dirty(s.model->dirty().begin(), s.model->dirty().end());
  if (j.verdict.ok()) j.verdict = contracts::check_runs(dirty, runs);
  if (!j.verdict.ok()) {
    j.input = ended == CommitSession::Ended::kNone
                  ? absl::StrCat("dirty chunks ", chunks_text(s.model->dirty()))
                  : absl::StrCat("after a ", ended == CommitSession::Ended::kFailed ? "failed" : "successful",
                                 " commit; pending before ", runs_text(s.pending_before));
    j.expected = absl::StrCat("pending ", runs_text(s.model->pending_runs()));
    j.got = absl::StrCat("pending ", runs_text(runs));
  }
  return absl::OkStatus();
}

// end: {} — the session ends; its state is released.
absl::Status on_end(const TraceRecord&, contracts::Session& session, Judgement&) {
  CommitSession& s = state(session);
  LWC_RETURN_IF_ERROR(need_open(s));
  return need_commit(s, false);
}

constexpr contracts::RecordKind kKinds[] = {
    {"open", {}, nullptr, false, &on_open},
    {"mark", {}, nullptr, false, &on_mark},
    {"commit", {}, nullptr, false, &on_commit},
    {"prepare", {}, nullptr, false, &on_prepare},
    {"prepare_failed", kFailedClauses, nullptr, false, &on_prepare_failed},
    {"publish", kPublishClauses, nullptr, false, &on_publish},
    {"pending", kPendingClauses, nullptr, false, &on_pending, true},
    {"end", {}, nullptr, false, &on_end},
};

}  // namespace

const contracts::ContractAudit& commit_audit() {
  static constexpr contracts::ContractAudit kAudit = {"commit", kClauses, kKinds, &open_session};
  return kAudit;
}

}  // namespace lwc::internal
