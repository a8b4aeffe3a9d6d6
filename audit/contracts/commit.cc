// SPDX-License-Identifier: MIT
// File: audit/contracts/commit.cc       Module: lwc.audit.trace (implementation unit)
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
// Every clause a record violates is counted (docs/audit.md, A4): a publish is judged under T8 (what it
// prepared) and T5 (what it published) each on its own, a pending report under T4 or T5, T6 and T3.
// An open with a chunk size <= 0 is judged under decompose's D5: it must be refused.
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
module lwc.audit.trace;

import lwc.decompose;
import lwc.commit;
import lwc.contracts.commit;
import lwc.contracts.decompose;

namespace lwc::internal {
namespace {

using contracts::CommitModel;
using audit::Judgement;
using audit::TraceRecord;

// The headings of docs/commit.md, generated from the spec at build time (audit/clause_table.cmake): the
// report prints each clause as the spec states it, and a clause added to the spec is audited under it.
constexpr audit::Clause kClauses[] = {
#include "audit/clauses/commit.inc"
};

constexpr std::string_view kSizeClauses[] = {"D5"};
constexpr std::string_view kMarkClauses[] = {"T1"};
constexpr std::string_view kFailedClauses[] = {"T8"};
constexpr std::string_view kPublishClauses[] = {"T5", "T8"};
constexpr std::string_view kPendingClauses[] = {"T3"};
constexpr std::string_view kAfterFailureClauses[] = {"T3", "T4", "T6"};
constexpr std::string_view kAfterPublishClauses[] = {"T3", "T5", "T6"};

// What a committer holds, as one model sees it: the model's dirty set, and the model's view of the
// commit in progress or just ended. A session keeps two: `contract`, driven by the trace's events as a
// correct committer would be (every verdict), and `engine`, re-seeded from the pending runs the engine
// itself reports after it diverged (a violation at `diverged_at`): a later violation that is right by
// the engine's own state is a knock-on of that one, and is marked "follows line N".
struct Track {
  enum class Ended { kNone, kFailed, kPublished };

  std::optional<CommitModel> model;
  std::vector<ChunkRun> pending_before;  // at the start of the commit in progress
  Ended ended = Ended::kNone;            // the commit that just ended: the next "pending" is its state after
  std::vector<ChunkRun> batch;           // the model's batch of that commit
  std::vector<Point2> marked_during;
};

// One committer as its events have driven it.
class CommitSession final : public audit::Session {
 public:
  Track contract;
  std::uint64_t invalid_open_at = 0;  // the line of an open that accepted a chunk size <= 0, else 0
  std::optional<Track> engine;   // set once the engine diverged and reported its own pending runs
  std::uint64_t diverged_at = 0;  // the line of the violation that began the divergence, 0 if none
  std::int64_t chunk_size = 0;
  std::optional<std::uint64_t> sequence;  // the engine's published sequence, once it reported one

  // The commit in progress, from "commit" to "publish" or "prepare_failed": the engine's events.
  bool committing = false;
  CommitModel::Plan plan;
  std::vector<ChunkRun> prepared;
  std::uint64_t sequence_before = 0;
  std::vector<ChunkRun> published;  // the engine's batch of the commit that just ended
  std::uint64_t sequence_after = 0;

  template <typename F>
  void each_track(F f) {
    f(contract);
    if (engine.has_value()) f(*engine);
  }
};

absl::string_view sv(std::string_view s) { return absl::string_view(s.data(), s.size()); }

std::unique_ptr<audit::Session> open_session() { return std::make_unique<CommitSession>(); }

CommitSession& state(audit::Session& s) { return static_cast<CommitSession&>(s); }

std::string runs_text(std::span<const ChunkRun> runs) {
  std::string out = "[";
  for (std::size_t i = 0; i < runs.size(); ++i) {
    absl::StrAppend(&out, i > 0 ? ", " : "", "(row ", runs[i].y, ", x ", runs[i].x_first, "..", runs[i].x_last, ")");
  }
  return out + "]";
}

std::string chunks_text(const std::set<Point2>& chunks) {
  std::string out = "{";
  bool first = true;
  for (const Point2 c : chunks) {
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

// A model whose dirty set is exactly the chunks of `runs` (the engine's own report), or none when a chunk
// has no cell in int64 (then knock-ons are not told apart: every later violation counts as a root cause).
std::optional<CommitModel> model_of(std::int64_t chunk_size, std::span<const ChunkRun> runs) {
  CommitModel m(chunk_size);
  for (const ChunkRun& run : runs) {
    if (run.x_first > run.x_last) continue;
    for (std::int64_t x = run.x_first;; ++x) {
      std::int64_t cx = 0;
      std::int64_t cy = 0;
      if (__builtin_mul_overflow(x, chunk_size, &cx) || __builtin_mul_overflow(run.y, chunk_size, &cy)) {
        return std::nullopt;
      }
      m.mark(Point2{cx, cy});
      if (x == run.x_last) break;
    }
  }
  return m;
}

absl::Status need_open(const CommitSession& s) {
  if (s.contract.model.has_value()) return absl::OkStatus();
  if (s.invalid_open_at != 0) {
    return absl::FailedPreconditionError(absl::StrCat("the committer was opened at line ", s.invalid_open_at,
                                                      " with a chunk size <= 0 (a D5 violation), which no model "
                                                      "holds: its events are not judged"));
  }
  return absl::FailedPreconditionError("the session's first event must be \"open\" (with in.chunk_size)");
}

absl::Status need_commit(const CommitSession& s, bool inside) {
  if (s.committing == inside) return absl::OkStatus();
  return absl::FailedPreconditionError(inside ? "no commit is in progress (a \"commit\" event begins one)"
                                              : "a commit is in progress (it ends with \"publish\" or "
                                                "\"prepare_failed\")");
}

// open: {"in": {"chunk_size"}, "out": {"error"} (optional: the committer was not made)}. The size is a
// chunk size: accepted iff positive (D5). A refused open leaves the session to a later open; an accepted
// size <= 0 is a D5 violation, and the session's later events cannot be judged (no model holds it).
absl::Status on_open(const TraceRecord& r, audit::Session& session, Judgement& j) {
  CommitSession& s = state(session);
  if (s.contract.model.has_value()) return absl::FailedPreconditionError("the session is already open");
  if (s.invalid_open_at != 0) return need_open(s);
  LWC_ASSIGN_OR_RETURN(const std::int64_t size, r.int64("in", "chunk_size"));
  LWC_ASSIGN_OR_RETURN(const bool refused, read_refusal(r));
  j.checked = kSizeClauses;
  j.verdict = contracts::check_size_validation(size, !refused);
  if (!j.verdict.ok()) {
    j.input = absl::StrCat("chunk size ", size);
    j.expected = refused ? "a committer" : "an error: a chunk size <= 0 must be rejected (D5)";
    j.got = refused ? "an error" : "a committer";
  }
  if (refused) return absl::OkStatus();  // no committer: the session may open again
  if (size <= 0) {
    s.invalid_open_at = j.line;
    return absl::OkStatus();
  }
  s.chunk_size = size;
  s.contract.model.emplace(size);
  return absl::OkStatus();
}

// mark: {"in": {"cell": [x, y]}, "out": {"chunk": [cx, cy]} (optional)}
absl::Status on_mark(const TraceRecord& r, audit::Session& session, Judgement& j) {
  CommitSession& s = state(session);
  LWC_RETURN_IF_ERROR(need_open(s));
  std::vector<std::int64_t> cell;
  LWC_RETURN_IF_ERROR(r.int64s("in", "cell", cell));
  if (cell.size() != 2) {
    return absl::InvalidArgumentError(absl::StrCat("in.cell holds ", cell.size(), " coordinates, not 2"));
  }
  const Point2 c{cell[0], cell[1]};
  if (r.has("out", "chunk")) {
    std::vector<std::int64_t> chunk;
    LWC_RETURN_IF_ERROR(r.int64s("out", "chunk", chunk));
    if (chunk.size() != 2) {
      return absl::InvalidArgumentError(absl::StrCat("out.chunk holds ", chunk.size(), " coordinates, not 2"));
    }
    j.checked = kMarkClauses;
    j.verdict = contracts::check_chunk_of(c, s.chunk_size, Point2{chunk[0], chunk[1]});
    if (!j.verdict.ok()) {
      const Point2 want = s.contract.model->chunk_of(c);
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
    s.each_track([&](Track& t) {
      t.model->mark(c);
      t.ended = Track::Ended::kNone;
    });
  }
  return absl::OkStatus();
}

// commit: {"in": {"max_runs"} (optional; 0 or absent: unlimited)}
absl::Status on_commit(const TraceRecord& r, audit::Session& session, Judgement&) {
  CommitSession& s = state(session);
  LWC_RETURN_IF_ERROR(need_open(s));
  LWC_RETURN_IF_ERROR(need_commit(s, false));
  std::int64_t max_runs = 0;
  if (r.has("in", "max_runs")) {
    LWC_ASSIGN_OR_RETURN(max_runs, r.int64("in", "max_runs"));
    if (max_runs < 0) return absl::InvalidArgumentError(absl::StrCat("in.max_runs = ", max_runs, " is negative"));
  }
  s.committing = true;
  s.plan = CommitModel::Plan{static_cast<std::size_t>(max_runs), std::nullopt, {}};
  s.each_track([](Track& t) {
    t.ended = Track::Ended::kNone;
    t.pending_before = t.model->pending_runs();
  });
  s.prepared.clear();
  s.sequence_before = s.sequence.value_or(0);
  return absl::OkStatus();
}

// prepare: {"in": {"run": [y, x_first, x_last]}}
absl::Status on_prepare(const TraceRecord& r, audit::Session& session, Judgement&) {
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

// Ends the commit in progress on a track's model: the same budget, failure point and marks as the engine's.
void end_commit(Track& t, const CommitModel::Plan& plan, bool failed) {
  const CommitModel::Outcome outcome = t.model->commit(plan);
  if (outcome.prepared.empty()) {
    // Nothing was pending: such a commit returns at once, so its "marks during" are plain marks.
    for (const std::vector<Point2>& marks : plan.marks_during) {
      for (const Point2 cell : marks) t.model->mark(cell);
    }
  }
  t.batch = outcome.prepared;
  t.marked_during.assign(outcome.marked_during.begin(), outcome.marked_during.end());
  t.ended = failed ? Track::Ended::kFailed : Track::Ended::kPublished;
}

void end_commit(CommitSession& s, bool failed) {
  if (failed) s.plan.fail_at = s.prepared.size() - 1;
  s.each_track([&](Track& t) { end_commit(t, s.plan, failed); });
  s.committing = false;
}

void explain_budget(const CommitSession& s, Judgement& j) {
  j.input = absl::StrCat("budget ", s.plan.max_runs, " runs, pending before ", runs_text(s.contract.pending_before));
  j.expected = absl::StrCat("prepared ", runs_text(s.contract.batch));
  j.got = absl::StrCat("prepared ", runs_text(s.prepared));
}

// After a violation: a knock-on if the engine's own state (when it reported one) makes the engine's
// output right; else the start of a divergence, whose engine track is seeded by the next "pending".
void classify(CommitSession& s, Judgement& j, const absl::Status& by_engine_state) {
  if (j.verdict.ok()) return;
  if (s.diverged_at != 0 && s.engine.has_value() && by_engine_state.ok()) {
    j.follows = s.diverged_at;
    return;
  }
  s.diverged_at = j.line;
  s.engine.reset();
}

// The verdicts on a commit that ended by publishing, judged against one track (after end_commit), each
// clause on its own: T8 on the runs it prepared, T5 on the batch and sequence it published.
struct PublishVerdicts {
  absl::Status budget;   // T8
  absl::Status clearing;  // T5
  [[nodiscard]] absl::Status first() const { return budget.ok() ? clearing : budget; }
};

PublishVerdicts publish_verdicts(const CommitSession& s, const Track& t) {
  PublishVerdicts v{contracts::check_budget(t.pending_before, s.plan.max_runs, s.prepared), absl::OkStatus()};
  if (t.batch.empty()) {
    if (!s.published.empty() || s.sequence_after != s.sequence_before) {
      v.clearing = absl::InvalidArgumentError(absl::StrCat(
          "T5 exact clearing: nothing was pending, yet the implementation published ", s.published.size(),
          " runs (sequence ", s.sequence_before, " became ", s.sequence_after, ")"));
    }
    return v;
  }
  const std::vector<ChunkRun> after = t.model->pending_runs();
  v.clearing = contracts::check_successful_commit(t.pending_before, t.batch, s.published, s.sequence_before,
                                                  s.sequence_after, t.marked_during, after);
  return v;
}

// prepare_failed: {} — the last run prepared failed; the commit ends.
absl::Status on_prepare_failed(const TraceRecord&, audit::Session& session, Judgement& j) {
  CommitSession& s = state(session);
  LWC_RETURN_IF_ERROR(need_open(s));
  LWC_RETURN_IF_ERROR(need_commit(s, true));
  if (s.prepared.empty()) return absl::FailedPreconditionError("prepare_failed, but no run was prepared");
  j.verdict = contracts::check_budget(s.contract.pending_before, s.plan.max_runs, s.prepared);
  const absl::Status by_engine = s.engine.has_value()
                                     ? contracts::check_budget(s.engine->pending_before, s.plan.max_runs, s.prepared)
                                     : absl::UnknownError("no engine state");
  end_commit(s, true);
  s.sequence_after = s.sequence_before;
  if (!j.verdict.ok()) explain_budget(s, j);
  classify(s, j, by_engine);
  return absl::OkStatus();
}

// publish: {"out": {"runs": [[y, x_first, x_last], ...], "sequence", "partial"} (sequence, partial optional)}
// "partial": true says the commit stopped after the runs it published (a time budget the engine decided
// during the commit): it is judged as a commit with that budget, whose other runs stay pending (T8).
absl::Status on_publish(const TraceRecord& r, audit::Session& session, Judgement& j) {
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
  if (r.has("out", "partial")) {
    LWC_ASSIGN_OR_RETURN(const bool partial, r.boolean("out", "partial"));
    if (partial) {
      if (s.published.empty()) {
        return absl::InvalidArgumentError(
            "out.partial with no runs: a commit that publishes nothing ends with prepare_failed, or publishes "
            "\"runs\": [] when nothing was pending");
      }
      if (s.plan.max_runs == 0 || s.published.size() < s.plan.max_runs) s.plan.max_runs = s.published.size();
    }
  }
  end_commit(s, false);
  s.sequence_after = has_sequence ? sequence : s.sequence_before + (s.contract.batch.empty() ? 0 : 1);
  if (has_sequence) s.sequence = sequence;
  PublishVerdicts verdicts = publish_verdicts(s, s.contract);
  const absl::Status by_engine =
      s.engine.has_value() ? publish_verdicts(s, *s.engine).first() : absl::UnknownError("no engine state");
  // A commit with nothing pending publishes nothing, and the state after is judged like any other (T3).
  s.each_track([](Track& t) {
    if (t.batch.empty()) t.ended = Track::Ended::kNone;
  });
  const Track& t = s.contract;
  if (!verdicts.budget.ok()) {
    explain_budget(s, j);
    add_violation(j, std::move(verdicts.budget), j.expected, j.got);
  }
  if (!verdicts.clearing.ok()) {
    add_violation(j, std::move(verdicts.clearing),
                  absl::StrCat("published ", runs_text(t.batch), " as sequence ",
                               s.sequence_before + (t.batch.empty() ? 0 : 1), " (the model)"),
                  absl::StrCat("published ", runs_text(s.published), " as sequence ", s.sequence_after,
                               " (the implementation)"));
  }
  if (!j.verdict.ok()) j.input = absl::StrCat("budget ", s.plan.max_runs, ", pending before ", runs_text(t.pending_before));
  classify(s, j, by_engine);
  return absl::OkStatus();
}

// The verdicts on the pending runs an engine reports, against one track, each clause on its own: after a
// commit T4 (failed) or T5 (published), and T6; always T3. The first violated is the record's verdict.
std::vector<absl::Status> pending_verdicts(const CommitSession& s, const Track& t, Track::Ended ended,
                                           std::span<const ChunkRun> runs) {
  std::vector<absl::Status> v;
  if (ended == Track::Ended::kFailed) {
    v.push_back(contracts::check_failed_commit(absl::UnknownError("the preparation failed"), s.sequence_before,
                                               s.sequence_after, t.pending_before, t.marked_during, runs));
  } else if (ended == Track::Ended::kPublished) {
    // The batch and sequence were judged at "publish": here only the clearing, against the model's batch.
    v.push_back(contracts::check_successful_commit(t.pending_before, t.batch, t.batch, 0, 1, t.marked_during, runs));
  }
  if (ended != Track::Ended::kNone) v.push_back(contracts::check_generations(t.marked_during, runs));
  const std::vector<Point2> dirty(t.model->dirty().begin(), t.model->dirty().end());
  v.push_back(contracts::check_runs(dirty, runs));
  return v;
}

absl::Status first_failure(const std::vector<absl::Status>& verdicts) {
  for (const absl::Status& v : verdicts) {
    if (!v.ok()) return v;
  }
  return absl::OkStatus();
}

// pending: {"out": {"runs": [[y, x_first, x_last], ...]}} — the engine's pending runs, outside a commit.
absl::Status on_pending(const TraceRecord& r, audit::Session& session, Judgement& j) {
  CommitSession& s = state(session);
  LWC_RETURN_IF_ERROR(need_open(s));
  LWC_RETURN_IF_ERROR(need_commit(s, false));
  std::vector<ChunkRun> runs;
  LWC_RETURN_IF_ERROR(read_runs(r, "out", runs));
  const Track::Ended ended = s.contract.ended;
  if (ended == Track::Ended::kFailed) j.checked = kAfterFailureClauses;
  if (ended == Track::Ended::kPublished) j.checked = kAfterPublishClauses;
  std::vector<absl::Status> verdicts = pending_verdicts(s, s.contract, ended, runs);
  const absl::Status by_engine = s.engine.has_value()
                                     ? first_failure(pending_verdicts(s, *s.engine, s.engine->ended, runs))
                                     : absl::UnknownError("no engine state");
  s.each_track([](Track& t) { t.ended = Track::Ended::kNone; });
  if (!first_failure(verdicts).ok()) {
    j.input = ended == Track::Ended::kNone
                  ? absl::StrCat("dirty chunks ", chunks_text(s.contract.model->dirty()))
                  : absl::StrCat("after a ", ended == Track::Ended::kFailed ? "failed" : "successful",
                                 " commit; pending before ", runs_text(s.contract.pending_before));
    const std::string expected = absl::StrCat("pending ", runs_text(s.contract.model->pending_runs()), " (the model)");
    const std::string got = absl::StrCat("pending ", runs_text(runs), " (the implementation)");
    for (absl::Status& v : verdicts) add_violation(j, std::move(v), expected, got);
  }
  classify(s, j, by_engine);
  if (j.verdict.ok()) {
    // The engine's state is the contract's again: a later violation is a root cause of its own.
    s.diverged_at = 0;
    s.engine.reset();
  } else if (s.diverged_at != 0) {
    // The engine told its state: later events are also judged against it, to tell knock-ons apart.
    std::optional<CommitModel> m = model_of(s.chunk_size, runs);
    if (m.has_value()) {
      s.engine.emplace();
      s.engine->model = std::move(m);
    } else {
      s.engine.reset();
    }
  }
  return absl::OkStatus();
}

// end: {} — the session ends; its state is released.
absl::Status on_end(const TraceRecord&, audit::Session& session, Judgement&) {
  CommitSession& s = state(session);
  LWC_RETURN_IF_ERROR(need_open(s));
  return need_commit(s, false);
}

constexpr audit::RecordKind kKinds[] = {
    {"open", {}, nullptr, false, &on_open},
    {"mark", {}, nullptr, false, &on_mark},
    {"commit", {}, nullptr, false, &on_commit},
    {"prepare", {}, nullptr, false, &on_prepare},
    {"prepare_failed", kFailedClauses, nullptr, false, &on_prepare_failed},
    {"publish", kPublishClauses, nullptr, false, &on_publish},
    {"pending", kPendingClauses, nullptr, false, &on_pending, true},
    {"end", {}, nullptr, false, &on_end, false, true},
};

}  // namespace

const audit::ContractAudit& commit_audit() {
  static constexpr audit::ContractAudit kAudit = {"commit", kClauses, kKinds, &open_session};
  return kAudit;
}

}  // namespace lwc::internal
