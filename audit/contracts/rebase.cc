// SPDX-License-Identifier: MIT
// File: audit/contracts/rebase.cc       Module: lwc.audit.trace (implementation unit)
//
// The event logs of lwc.rebase in a trace (docs/audit.md, "rebase"): each session is one floating-origin
// view (2-D or 3-D), its events in the order the engine saw them, judged against lwc.contracts.rebase's
// OriginModel and checkers:
//   open        the view's grid and configuration, its origin and version, its id (optional) (no clause)
//   load        a cell loaded; unload: a cell unloaded                                       (no clause)
//   plan        plan(observer): nothing, a plan, or an error                                 R1 R6 R8
//   commit      commit(plan): the new origin and version, or an error; the model follows     R3 R6 R7 R8 R12 R13
//   to_render   to_render(p): floats and version, or an error                                R1 R3 R4 R5
//   late        place_late(result started at a version, relocatable or baked)                R9
//   view        the view's origin, version and loaded cells                                  R7
//   begin_step  begin_step(): OK or an error (inside a step already)                         R13
//   end_step    end_step(): OK or an error (outside a step)                                  R13
// The view ids (R12) are optional everywhere: "in.view" of open is the view's id; a plan ("out.view" of
// plan, "in.view" of commit), a late ticket ("in.view" of late) and a render point ("out.view") may carry
// the id they were stamped with, and one that is absent is the view's own (traces from before R12).
//   end         the session ends                                                             (no clause)
// R2 (authoritative positions untouched), R10 (batch re-derivation) and R11 (from_render) are not traced.
// Every clause a record violates is counted (docs/audit.md, A4): a render point's version (R3), floats (R4)
// and view (R12) each on its own, a plan's view (R12) beside its origin and version (R8), and a commit
// that succeeded where it had to fail under each clause that required the refusal (R6 R7 R8 R12 R13).
// An open whose cell size is <= 0 is judged under decompose's D5: a chunk size must be refused.
module;
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lwc/check.h"
#include "lwc/exact_fp.h"
module lwc.audit.trace;

import lwc.rebase;
import lwc.contracts.rebase;
import lwc.contracts.decompose;

namespace lwc::internal {
namespace {

using audit::Judgement;
using audit::TraceRecord;

// The headings of docs/rebase.md, generated from the spec at build time (audit/clause_table.cmake): the
// report prints each clause as the spec states it, and a clause added to the spec is audited under it.
constexpr audit::Clause kClauses[] = {
#include "audit/clauses/rebase.inc"
};

constexpr std::string_view kPlanClauses[] = {"R1", "R6", "R8"};
constexpr std::string_view kCommitClauses[] = {"R3", "R6", "R7", "R8", "R12", "R13"};
constexpr std::string_view kRenderClauses[] = {"R1", "R3", "R4", "R5", "R12"};
constexpr std::string_view kLateClauses[] = {"R9", "R12"};
constexpr std::string_view kStepClauses[] = {"R13"};
constexpr std::string_view kViewClauses[] = {"R7"};
constexpr std::string_view kSizeClauses[] = {"D5"};

// A view's loaded cells live in the model; so that one line cannot grow them without bound, a view
// record may list at most this many.
constexpr std::size_t kMaxViewCells = std::size_t{1} << 16;

// One view as its events have driven it: the model of its dimension. Once the engine's view diverged from
// the model (a commit judged wrong at `diverged_at`), `engine2`/`engine3` follow the view the engine itself
// reported (its origin and version after that commit): a later violation that is right by that view is a
// knock-on of the first, marked "follows line N".
class RebaseSession final : public audit::Session {
 public:
  std::size_t dims = 0;  // 0 until "open"
  std::uint64_t invalid_open_at = 0;  // the line of an open that accepted a cell size <= 0, else 0
  contracts::RenderSpec spec;
  std::int64_t threshold = 1;
  std::int64_t radius = 0;
  std::optional<contracts::OriginModel<2>> model2;
  std::optional<contracts::OriginModel<3>> model3;
  std::optional<contracts::OriginModel<2>> engine2;
  std::optional<contracts::OriginModel<3>> engine3;
  std::uint64_t diverged_at = 0;
};

std::unique_ptr<audit::Session> open_session() { return std::make_unique<RebaseSession>(); }

RebaseSession& state(audit::Session& s) { return static_cast<RebaseSession&>(s); }

template <std::size_t D>
contracts::OriginModel<D>& model(RebaseSession& s) {
  if constexpr (D == 2) {
    return *s.model2;
  } else {
    return *s.model3;
  }
}

template <std::size_t D>
std::optional<contracts::OriginModel<D>>& engine_model(RebaseSession& s) {
  if constexpr (D == 2) {
    return s.engine2;
  } else {
    return s.engine3;
  }
}

// After a judged event: a violation that the engine's own view makes right follows the divergence; any
// other violation starts one (its commit handler seeds the engine's view); a clean view (the whole state)
// ends it.
template <std::size_t D, typename F>
void classify(RebaseSession& s, Judgement& j, F&& verdict_on, bool whole_state) {
  std::optional<contracts::OriginModel<D>>& engine = engine_model<D>(s);
  if (j.verdict.ok()) {
    if (whole_state) {
      s.diverged_at = 0;
      engine.reset();
    }
    return;
  }
  if (s.diverged_at != 0 && engine.has_value() && verdict_on(*engine).ok()) {
    j.follows = s.diverged_at;
    return;
  }
  s.diverged_at = j.line;
  engine.reset();
}

template <std::size_t D>
std::string cells_text(const CellIndex<D>& c) {
  std::string out = "(";
  for (std::size_t a = 0; a < D; ++a) absl::StrAppend(&out, a > 0 ? ", " : "", c[a]);
  return out + ")";
}

template <std::size_t D>
std::string position_text(const WorldPosition<D>& p) {
  std::string out = absl::StrCat("cell ", cells_text<D>(p.cell), " offset (");
  for (std::size_t a = 0; a < D; ++a) absl::StrAppend(&out, a > 0 ? ", " : "", real_text(p.offset[a]));
  return out + ")";
}

std::string status_text(const absl::Status& s) { return absl::StrCat("error ", absl::StatusCodeToString(s.code())); }

absl::StatusOr<std::int64_t> read_in_range(const TraceRecord& r, std::string_view key, std::int64_t lo,
                                           std::int64_t hi) {
  LWC_ASSIGN_OR_RETURN(const std::int64_t v, r.int64("in", key));
  if (v < lo || v > hi) {
    return absl::InvalidArgumentError(absl::StrCat("in.", absl::string_view(key.data(), key.size()), " = ", v,
                                                   " is outside [", lo, ", ", hi, "]"));
  }
  return v;
}

template <std::size_t D>
absl::Status read_cell(const TraceRecord& r, std::string_view section, std::string_view key, CellIndex<D>& out) {
  std::vector<std::int64_t> v;
  LWC_RETURN_IF_ERROR(r.int64s(section, key, v));
  if (v.size() != D) {
    return absl::InvalidArgumentError(absl::StrCat(absl::string_view(section.data(), section.size()), ".",
                                                   absl::string_view(key.data(), key.size()), " holds ", v.size(),
                                                   " coordinates; this view has ", D));
  }
  for (std::size_t a = 0; a < D; ++a) out[a] = v[a];
  return absl::OkStatus();
}

// A position: in.cell (int64s) and in.offset (reals).
template <std::size_t D>
absl::Status read_position(const TraceRecord& r, WorldPosition<D>& p) {
  LWC_RETURN_IF_ERROR(read_cell<D>(r, "in", "cell", p.cell));
  std::vector<double> offset;
  LWC_RETURN_IF_ERROR(r.reals("in", "offset", offset));
  if (offset.size() != D) {
    return absl::InvalidArgumentError(absl::StrCat("in.offset holds ", offset.size(), " values; this view has ", D));
  }
  for (std::size_t a = 0; a < D; ++a) p.offset[a] = offset[a];
  return absl::OkStatus();
}

// A version: an int64 >= 0 (so that the model's version + 1 always exists in the trace's terms).
absl::StatusOr<std::uint64_t> read_version(const TraceRecord& r, std::string_view section, std::string_view key) {
  LWC_ASSIGN_OR_RETURN(const std::int64_t v, r.int64(section, key));
  if (v < 0) {
    return absl::InvalidArgumentError(absl::StrCat(absl::string_view(section.data(), section.size()), ".",
                                                   absl::string_view(key.data(), key.size()), " = ", v,
                                                   " is negative"));
  }
  return static_cast<std::uint64_t>(v);
}

// An optional view id (R12) at section.view: a uint64; `fallback` (the view's own id) when absent.
absl::StatusOr<ViewId> read_view_id(const TraceRecord& r, std::string_view section, ViewId fallback) {
  if (!r.has(section, "view")) return fallback;
  LWC_ASSIGN_OR_RETURN(const std::uint64_t v, r.uint64(section, "view"));
  return ViewId{v};
}

// out: a render point {"at": [floats], "version", "view" (optional)} or {"error": code}. Each coordinate must be exactly a
// float: a float's value written as a double (JavaScript's Math.fround, C's (double)f with %.17g or %a)
// reads back exactly; 9 significant digits do not, and are refused rather than rounded a second time.
// An error follows the rule of every op: a code name is that code, free text the refusal `want` is.
template <std::size_t D>
absl::Status read_render(const TraceRecord& r, absl::StatusOr<RenderPoint<D>>& got, const absl::Status& want,
                         ViewId own) {
  if (r.has("out", "error")) {
    if (r.has("out", "at")) return absl::InvalidArgumentError("out has both an error and a render point");
    LWC_ASSIGN_OR_RETURN(const TracedError error, read_error(r, "out"));
    got = as_traced(error, want);
    return absl::OkStatus();
  }
  std::vector<double> at;
  LWC_RETURN_IF_ERROR(r.reals("out", "at", at));
  if (at.size() != D) {
    return absl::InvalidArgumentError(absl::StrCat("out.at holds ", at.size(), " values; this view has ", D));
  }
  RenderPoint<D> p;
  for (std::size_t a = 0; a < D; ++a) {
    // NaN passes through; any other double must be a float value (the range check keeps the cast defined).
    const bool fits = lwc::fp::is_nan(at[a]) || lwc::fp::is_inf(at[a]) ||
                      (std::fabs(at[a]) <= static_cast<double>(std::numeric_limits<float>::max()) &&
                       static_cast<double>(static_cast<float>(at[a])) == at[a]);
    if (!fits) {
      return absl::OutOfRangeError(absl::StrCat(
          "out.at[", a, "] = ", real_text(at[a]), " is not exactly a float (the nearest is ",
          real_text(static_cast<double>(static_cast<float>(std::clamp(at[a], -0x1.fffffep127, 0x1.fffffep127)))),
          "): write the float's own value (%.17g or %a of it)"));
    }
    p.at[a] = static_cast<float>(at[a]);
  }
  LWC_ASSIGN_OR_RETURN(p.version, read_version(r, "out", "version"));
  LWC_ASSIGN_OR_RETURN(p.view, read_view_id(r, "out", own));
  got = p;
  return absl::OkStatus();
}

// A float as messages print it: the shortest decimal that reads back as this float, then its hex.
std::string float_text(float f) {
  if (std::isnan(f) || std::isinf(f)) return real_text(static_cast<double>(f));
  char buf[48];
  const std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, f);
  return absl::StrCat(std::string(buf, static_cast<std::size_t>(r.ptr - buf)), " (",
                      absl::StrFormat("%a", static_cast<double>(f)), ")");
}

template <std::size_t D>
std::string render_text(const absl::StatusOr<RenderPoint<D>>& p) {
  if (!p.ok()) return status_text(p.status());
  std::string out = "(";
  for (std::size_t a = 0; a < D; ++a) {
    absl::StrAppend(&out, a > 0 ? ", " : "", float_text(p->at[a]));
  }
  return absl::StrCat(out, ") at version ", p->version);
}

template <std::size_t D>
absl::Status open_view(const TraceRecord& r, RebaseSession& s) {
  CellIndex<D> origin{};
  LWC_RETURN_IF_ERROR(read_cell<D>(r, "in", "origin", origin));
  std::uint64_t version = 0;
  if (r.has("in", "version")) {
    LWC_ASSIGN_OR_RETURN(version, read_version(r, "in", "version"));
  }
  // The ranges of WorldGrid::create and ViewConfig (docs/rebase.md, Notation). A cell size <= 0 was
  // judged under D5 by on_open before this.
  LWC_ASSIGN_OR_RETURN(const std::int64_t size, read_in_range(r, "cell_size", 1, std::int64_t{1} << 53));
  LWC_ASSIGN_OR_RETURN(const std::int64_t threshold,
                       read_in_range(r, "threshold_cells", 1, std::numeric_limits<std::int64_t>::max()));
  LWC_ASSIGN_OR_RETURN(const std::int64_t radius, read_in_range(r, "barrier_radius", 0, 64));
  LWC_ASSIGN_OR_RETURN(const std::int64_t d, read_in_range(r, "units_per_render_unit", 1, std::int64_t{1} << 20));
  LWC_ASSIGN_OR_RETURN(const std::int64_t bubble, read_in_range(r, "bubble_units", 1, std::int64_t{1} << 44));
  s.spec = contracts::RenderSpec{size, d, bubble};
  s.threshold = threshold;
  s.radius = radius;
  s.dims = D;
  LWC_ASSIGN_OR_RETURN(const ViewId id, read_view_id(r, "in", ViewId{}));
  if constexpr (D == 2) {
    s.model2.emplace(size, threshold, radius, origin, version, id);
  } else {
    s.model3.emplace(size, threshold, radius, origin, version, id);
  }
  return absl::OkStatus();
}

// Why an event of a session without a view cannot be judged.
absl::Status unopened(const RebaseSession& s) {
  if (s.invalid_open_at != 0) {
    return absl::FailedPreconditionError(absl::StrCat("the view was opened at line ", s.invalid_open_at,
                                                      " with a cell size <= 0 (a D5 violation), which no model "
                                                      "holds: its events are not judged"));
  }
  return absl::FailedPreconditionError("the session's first event must be \"open\" (the view's configuration)");
}

// open: {"in": {"origin": [..] (2 or 3 cells), "version" (optional), "cell_size", "threshold_cells",
//               "barrier_radius", "units_per_render_unit", "bubble_units", "view" (optional, R12)},
//        "out": {"error"} (optional: the view was not made)}. The cell size is a chunk size, accepted iff
// positive (D5): a view refused for a size <= 0 leaves the session to a later open, one that accepted it is
// a D5 violation whose later events cannot be judged (no model holds it). Another refusal is judged by no
// clause and is reported unless a parameter is outside its range.
absl::Status on_open(const TraceRecord& r, audit::Session& session, Judgement& j) {
  RebaseSession& s = state(session);
  if (s.dims != 0) return absl::FailedPreconditionError("the session is already open");
  if (s.invalid_open_at != 0) return unopened(s);
  std::vector<std::int64_t> origin;
  LWC_RETURN_IF_ERROR(r.int64s("in", "origin", origin));
  if (origin.size() != 2 && origin.size() != 3) {
    return absl::InvalidArgumentError(absl::StrCat("in.origin holds ", origin.size(), " cells, not 2 or 3"));
  }
  LWC_ASSIGN_OR_RETURN(const std::int64_t size, r.int64("in", "cell_size"));
  LWC_ASSIGN_OR_RETURN(const bool refused, read_refusal(r));
  if (size <= 0) {
    j.checked = kSizeClauses;
    j.verdict = contracts::check_size_validation(size, !refused);
    if (!refused) {
      j.input = absl::StrCat("cell size ", size);
      j.expected = "an error: a cell size <= 0 must be rejected (D5)";
      j.got = "a view";
      s.invalid_open_at = j.line;
    }
    return absl::OkStatus();
  }
  absl::Status opened = origin.size() == 2 ? open_view<2>(r, s) : open_view<3>(r, s);
  if (!refused) {
    if (opened.ok()) j.checked = kSizeClauses;  // a positive cell size, accepted
    return opened;
  }
  s.dims = 0;  // refused: no view, whatever was read
  if (!opened.ok()) return absl::OkStatus();  // a parameter outside its range, refused as it must be
  return absl::InvalidArgumentError(
      "out.error on an open whose configuration is within every range (docs/rebase.md, Notation): no clause "
      "judges that refusal; leave refused opens out, or give the parameter that was refused");
}

// Runs `f.template operator()<D>()` for the session's dimension; FailedPrecondition before "open".
template <typename F>
absl::Status with_view(RebaseSession& s, F&& f) {
  if (s.dims == 2) return f.template operator()<2>();
  if (s.dims == 3) return f.template operator()<3>();
  return unopened(s);
}

// load / unload: {"in": {"cell": [..]}}
absl::Status on_load(const TraceRecord& r, audit::Session& session, Judgement&) {
  RebaseSession& s = state(session);
  return with_view(s, [&]<std::size_t D>() -> absl::Status {
    CellIndex<D> c{};
    LWC_RETURN_IF_ERROR(read_cell<D>(r, "in", "cell", c));
    model<D>(s).load(c);
    if (engine_model<D>(s).has_value()) engine_model<D>(s)->load(c);
    return absl::OkStatus();
  });
}

absl::Status on_unload(const TraceRecord& r, audit::Session& session, Judgement&) {
  RebaseSession& s = state(session);
  return with_view(s, [&]<std::size_t D>() -> absl::Status {
    CellIndex<D> c{};
    LWC_RETURN_IF_ERROR(read_cell<D>(r, "in", "cell", c));
    model<D>(s).unload(c);
    if (engine_model<D>(s).has_value()) engine_model<D>(s)->unload(c);
    return absl::OkStatus();
  });
}

// A plan: {"from": [..], "target": [..], "version", "view" (optional: `own` when absent)} in `section`.
template <std::size_t D>
absl::Status read_plan(const TraceRecord& r, std::string_view section, RebasePlan<D>& plan, ViewId own) {
  LWC_RETURN_IF_ERROR(read_cell<D>(r, section, "from", plan.from));
  LWC_RETURN_IF_ERROR(read_cell<D>(r, section, "target", plan.target));
  LWC_ASSIGN_OR_RETURN(plan.expected_version, read_version(r, section, "version"));
  LWC_ASSIGN_OR_RETURN(plan.view, read_view_id(r, section, own));
  return absl::OkStatus();
}

template <std::size_t D>
std::string plan_text(const absl::StatusOr<std::optional<RebasePlan<D>>>& p) {
  if (!p.ok()) return status_text(p.status());
  if (!p->has_value()) return "nothing";
  return absl::StrCat("plan from ", cells_text<D>((*p)->from), " to ", cells_text<D>((*p)->target), " at version ",
                      (*p)->expected_version, " of view ", (*p)->view.value);
}

// Each clause that requires commit(plan) to fail in the model's state, with why (expected_commit names the
// first only): R12 another view's plan, R13 inside a simulation step, R8 a stale plan or one made at
// another origin, R6 a barrier cell not loaded, R7 the version counter exhausted (the failure must change
// nothing).
template <std::size_t D>
std::vector<absl::Status> refusals_due(const contracts::OriginModel<D>& m, const RebasePlan<D>& plan) {
  std::vector<absl::Status> out;
  const std::string call = absl::StrCat("commit(plan from ", cells_text<D>(plan.from), " to ", cells_text<D>(plan.target),
                                        " at version ", plan.expected_version, ") succeeded, but ");
  if (plan.view != m.view()) {
    out.push_back(absl::InvalidArgumentError(absl::StrCat("R12 view identity: ", call, "the plan is view ",
                                                          plan.view.value, "'s, not view ", m.view().value, "'s")));
  }
  if (m.in_step()) {
    out.push_back(absl::InvalidArgumentError(absl::StrCat("R13 safe phase: ", call, "it came inside a simulation step")));
  }
  if (plan.expected_version != m.version() || plan.from != m.origin()) {
    out.push_back(absl::InvalidArgumentError(absl::StrCat("R8 staleness: ", call, "the view is at origin ",
                                                          cells_text<D>(m.origin()), " version ", m.version())));
  }
  if (const std::vector<CellIndex<D>> gone = m.missing(plan.target); !gone.empty()) {
    out.push_back(absl::InvalidArgumentError(absl::StrCat("R6 barrier: ", call, cells_text<D>(gone.front()),
                                                          " is not loaded at commit time")));
  }
  if (m.version() == std::numeric_limits<std::uint64_t>::max()) {
    out.push_back(absl::InvalidArgumentError(absl::StrCat("R7 failure atomicity: ", call, "the version counter is exhausted")));
  }
  return out;
}

// plan: {"in": {"cell", "offset"} (the observer), "out": {"none": true} | {"from", "target", "version"} |
//        {"error": code}}
absl::Status on_plan(const TraceRecord& r, audit::Session& session, Judgement& j) {
  RebaseSession& s = state(session);
  return with_view(s, [&]<std::size_t D>() -> absl::Status {
    WorldPosition<D> observer;
    LWC_RETURN_IF_ERROR(read_position<D>(r, observer));
    absl::StatusOr<std::optional<RebasePlan<D>>> got = std::optional<RebasePlan<D>>();
    const int forms = int{r.has("out", "error")} + int{r.has("out", "none")} + int{r.has("out", "target")};
    if (forms != 1) {
      return absl::InvalidArgumentError("out must hold exactly one of: an error, \"none\": true, a plan (from, target, version)");
    }
    const contracts::OriginModel<D>& m = model<D>(s);
    const auto want = m.expected_plan(observer);
    if (r.has("out", "error")) {
      LWC_ASSIGN_OR_RETURN(const TracedError error, read_error(r, "out"));
      got = as_traced(error, want.status());
    } else if (r.has("out", "none")) {
      LWC_ASSIGN_OR_RETURN(const bool none, r.boolean("out", "none"));
      if (!none) return absl::InvalidArgumentError("out.none is false: write the plan instead");
    } else {
      RebasePlan<D> plan;
      LWC_RETURN_IF_ERROR(read_plan<D>(r, "out", plan, model<D>(s).view()));
      got = std::optional<RebasePlan<D>>(plan);
    }
    j.verdict = m.check_plan(observer, got);
    if (!j.verdict.ok()) {
      j.input = absl::StrCat("observer ", position_text<D>(observer), " at origin ", cells_text<D>(m.origin()),
                             " version ", m.version());
      j.expected = plan_text<D>(want);
      j.got = plan_text<D>(got);
      // The plan's view (R12) and its origin, version and target (R8), each on its own.
      if (want.ok() && want->has_value() && got.ok() && got->has_value() && (**got).view != (**want).view) {
        RebasePlan<D> stamped = **got;
        stamped.view = (**want).view;
        add_violation(j, m.check_plan(observer, std::optional<RebasePlan<D>>(stamped)), j.expected, j.got);
      }
    }
    classify<D>(s, j, [&](const contracts::OriginModel<D>& e) { return e.check_plan(observer, got); }, false);
    return absl::OkStatus();
  });
}

// commit: {"in": {"from", "target", "version"} (the plan), "out": {"origin", "version"} | {"error": code}}
absl::Status on_commit(const TraceRecord& r, audit::Session& session, Judgement& j) {
  RebaseSession& s = state(session);
  return with_view(s, [&]<std::size_t D>() -> absl::Status {
    RebasePlan<D> plan;
    LWC_RETURN_IF_ERROR(read_plan<D>(r, "in", plan, model<D>(s).view()));
    contracts::OriginModel<D>& m = model<D>(s);
    const absl::StatusOr<Rebased<D>> want = m.expected_commit(plan);
    absl::StatusOr<Rebased<D>> got = absl::UnknownError("unset");
    if (r.has("out", "error")) {
      if (r.has("out", "origin")) return absl::InvalidArgumentError("out has both an error and an origin");
      LWC_ASSIGN_OR_RETURN(const TracedError error, read_error(r, "out"));
      got = as_traced(error, want.status());
    } else {
      Rebased<D> rebased;
      LWC_RETURN_IF_ERROR(read_cell<D>(r, "out", "origin", rebased.origin));
      LWC_ASSIGN_OR_RETURN(rebased.version, read_version(r, "out", "version"));
      got = rebased;
    }
    const CellIndex<D> origin = m.origin();
    const std::uint64_t version = m.version();
    std::optional<contracts::OriginModel<D>>& engine = engine_model<D>(s);
    const contracts::OriginModel<D> before = engine.has_value() ? *engine : m;
    // A commit that succeeded where it had to fail breaks every clause that required the refusal.
    std::vector<absl::Status> refusals;
    if (!want.ok() && got.ok()) refusals = refusals_due(m, plan);
    j.verdict = m.check_commit(plan, got);  // advances the model when the commit was due to succeed
    if (!j.verdict.ok()) {
      j.input = absl::StrCat("plan from ", cells_text<D>(plan.from), " to ", cells_text<D>(plan.target),
                             " at version ", plan.expected_version, " of view ", plan.view.value, "; view ",
                             m.view().value, " at ", cells_text<D>(origin), " version ", version,
                             m.in_step() ? " inside a step" : "");
      j.expected = want.ok() ? absl::StrCat("origin ", cells_text<D>(want->origin), " version ", want->version)
                             : status_text(want.status());
      j.got = got.ok() ? absl::StrCat("origin ", cells_text<D>(got->origin), " version ", got->version)
                       : status_text(got.status());
      for (absl::Status& refusal : refusals) add_violation(j, std::move(refusal), j.expected, j.got);
    }
    absl::Status by_engine = absl::UnknownError("no engine view");
    if (engine.has_value()) by_engine = engine->check_commit(plan, got);  // advances the engine's view too
    classify<D>(s, j, [&](const contracts::OriginModel<D>&) { return by_engine; }, false);
    if (!j.verdict.ok() && j.follows == 0) {
      // A new divergence: from here the engine's view is the one it reported.
      if (got.ok()) {
        contracts::OriginModel<D> e(s.spec.cell_size, s.threshold, s.radius, got->origin, got->version, m.view());
        for (const CellIndex<D>& c : m.loaded()) e.load(c);
        if (m.in_step()) (void)e.check_begin_step(absl::OkStatus());  // the engine's view is in the step too
        engine.emplace(std::move(e));
      } else {
        engine.emplace(before);  // the engine refused: its view stayed where it was
      }
    }
    return absl::OkStatus();
  });
}

// to_render: {"in": {"cell", "offset"}, "out": {"at": [..], "version"} | {"error": code}}
absl::Status on_to_render(const TraceRecord& r, audit::Session& session, Judgement& j) {
  RebaseSession& s = state(session);
  return with_view(s, [&]<std::size_t D>() -> absl::Status {
    WorldPosition<D> p;
    LWC_RETURN_IF_ERROR(read_position<D>(r, p));
    const contracts::OriginModel<D>& m = model<D>(s);
    const absl::StatusOr<RenderPoint<D>> want = contracts::oracle_render<D>(s.spec, m.origin(), m.version(), p);
    absl::StatusOr<RenderPoint<D>> got = absl::UnknownError("unset");
    LWC_RETURN_IF_ERROR(read_render<D>(r, got, want.status(), m.view()));
    j.verdict = contracts::check_render<D>(s.spec, m.origin(), m.version(), p, got);
    const absl::Status stamped = got.ok() ? contracts::check_stamped(m.view(), got->view, "a render point") : absl::OkStatus();
    if (!j.verdict.ok() || !stamped.ok()) {
      j.input = absl::StrCat(position_text<D>(p), " at origin ", cells_text<D>(m.origin()), " version ", m.version());
      j.expected = render_text<D>(want);
      j.got = render_text<D>(got);
      // The version (R3) and the floats (R4), each on its own: the floats judged as if tagged right.
      if (!j.verdict.ok() && got.ok() && got->version != m.version()) {
        RenderPoint<D> retagged = *got;
        retagged.version = m.version();
        add_violation(j, contracts::check_render<D>(s.spec, m.origin(), m.version(), p, retagged), j.expected, j.got);
      }
      add_violation(j, stamped, j.expected, j.got);
    }
    classify<D>(s, j, [&](const contracts::OriginModel<D>& e) {
      return contracts::check_render<D>(s.spec, e.origin(), e.version(), p, got);
    }, false);
    return absl::OkStatus();
  });
}

// late: {"in": {"cell", "offset", "started_version", "placement": "relocatable" | "baked"},
//        "out": {"at", "version"} | {"error": code}}
absl::Status on_late(const TraceRecord& r, audit::Session& session, Judgement& j) {
  RebaseSession& s = state(session);
  return with_view(s, [&]<std::size_t D>() -> absl::Status {
    LateResult<D> result;
    LWC_RETURN_IF_ERROR(read_position<D>(r, result.anchor));
    LWC_ASSIGN_OR_RETURN(result.started_version, read_version(r, "in", "started_version"));
    LWC_ASSIGN_OR_RETURN(result.view, read_view_id(r, "in", model<D>(s).view()));
    LWC_ASSIGN_OR_RETURN(const std::string_view placement, r.text("in", "placement"));
    if (placement == "relocatable") {
      result.placement = LatePlacement::kRelocatable;
    } else if (placement == "baked") {
      result.placement = LatePlacement::kBakedLocal;
    } else {
      return absl::InvalidArgumentError(absl::StrCat("in.placement = \"", absl::string_view(placement.data(), placement.size()),
                                                     "\" is not \"relocatable\" or \"baked\""));
    }
    const contracts::OriginModel<D>& m = model<D>(s);
    // R9's answer: InvalidArgument from the future, Aborted for a stale baked result, else the fresh
    // conversion of the anchor now, printed as the floats it must be.
    absl::StatusOr<RenderPoint<D>> want = absl::UnknownError("unset");
    std::string why;
    if (result.view != m.view()) {
      want = absl::InvalidArgumentError("another view's");
      why = " (a ticket of another view, R12)";
    } else if (result.started_version > m.version()) {
      want = absl::InvalidArgumentError("from the future");
      why = " (a result from the future)";
    } else if (result.placement == LatePlacement::kBakedLocal && result.started_version != m.version()) {
      want = absl::AbortedError("stale");
      why = " (baked in an older frame: stale)";
    } else {
      want = contracts::oracle_render<D>(s.spec, m.origin(), m.version(), result.anchor);
      why = " (the fresh conversion of the anchor now)";
    }
    absl::StatusOr<RenderPoint<D>> got = absl::UnknownError("unset");
    LWC_RETURN_IF_ERROR(read_render<D>(r, got, want.status(), m.view()));
    j.verdict = contracts::check_late<D>(s.spec, m.origin(), m.version(), m.view(), result, got);
    // The placement's stamp (R12) on its own: check_late judges it only when the placement is right (R9).
    const absl::Status stamped = got.ok() && result.view == m.view()
                                     ? contracts::check_stamped(m.view(), got->view, "a late placement")
                                     : absl::OkStatus();
    if (!j.verdict.ok()) {
      j.input = absl::StrCat(placement == "baked" ? "baked" : "relocatable", " result anchored at ",
                             position_text<D>(result.anchor), ", started at version ", result.started_version,
                             "; view at ", cells_text<D>(m.origin()), " version ", m.version());
      j.expected = render_text<D>(want) + why;
      j.got = render_text<D>(got);
      add_violation(j, stamped, j.expected, j.got);
    }
    classify<D>(s, j, [&](const contracts::OriginModel<D>& e) {
      return contracts::check_late<D>(s.spec, e.origin(), e.version(), e.view(), result, got);
    }, false);
    return absl::OkStatus();
  });
}

// view: {"out": {"origin", "version", "loaded": [[..], ...]}}
absl::Status on_view(const TraceRecord& r, audit::Session& session, Judgement& j) {
  RebaseSession& s = state(session);
  return with_view(s, [&]<std::size_t D>() -> absl::Status {
    CellIndex<D> origin{};
    LWC_RETURN_IF_ERROR(read_cell<D>(r, "out", "origin", origin));
    LWC_ASSIGN_OR_RETURN(const std::uint64_t version, read_version(r, "out", "version"));
    std::vector<std::int64_t> flat;
    LWC_RETURN_IF_ERROR(r.int64_tuples("out", "loaded", D, flat));
    if (flat.size() / D > kMaxViewCells) {
      return absl::ResourceExhaustedError(absl::StrCat("out.loaded lists more than ", kMaxViewCells, " cells"));
    }
    std::vector<CellIndex<D>> loaded(flat.size() / D);
    for (std::size_t i = 0; i < loaded.size(); ++i) {
      for (std::size_t a = 0; a < D; ++a) loaded[i][a] = flat[i * D + a];
    }
    const contracts::OriginModel<D>& m = model<D>(s);
    j.verdict = m.check_view(origin, version, loaded);
    if (!j.verdict.ok()) {
      j.input = "the view's state";
      j.expected = absl::StrCat("origin ", cells_text<D>(m.origin()), " version ", m.version(), ", ", m.loaded().size(),
                                " loaded cells");
      j.got = absl::StrCat("origin ", cells_text<D>(origin), " version ", version, ", ", loaded.size(), " loaded cells");
    }
    classify<D>(s, j, [&](const contracts::OriginModel<D>& e) { return e.check_view(origin, version, loaded); }, true);
    return absl::OkStatus();
  });
}

// begin_step / end_step: {"out": {} | {"error": code}} (R13). The model follows a step that was due.
absl::Status on_step(const TraceRecord& r, audit::Session& session, Judgement& j, bool begin) {
  RebaseSession& s = state(session);
  return with_view(s, [&]<std::size_t D>() -> absl::Status {
    contracts::OriginModel<D>& m = model<D>(s);
    const absl::Status want = begin ? m.expected_begin_step() : m.expected_end_step();
    absl::Status got = absl::OkStatus();
    if (r.has("out", "error")) {
      LWC_ASSIGN_OR_RETURN(const TracedError error, read_error(r, "out"));
      got = as_traced(error, want);
    }
    const bool was_in_step = m.in_step();
    j.verdict = begin ? m.check_begin_step(got) : m.check_end_step(got);
    if (!j.verdict.ok()) {
      j.input = absl::StrCat(begin ? "begin_step" : "end_step", was_in_step ? " inside" : " outside", " a step");
      j.expected = want.ok() ? std::string("OK") : status_text(want);
      j.got = got.ok() ? std::string("OK") : status_text(got);
    }
    std::optional<contracts::OriginModel<D>>& engine = engine_model<D>(s);
    if (engine.has_value()) (void)(begin ? engine->check_begin_step(got) : engine->check_end_step(got));
    return absl::OkStatus();
  });
}

absl::Status on_begin_step(const TraceRecord& r, audit::Session& session, Judgement& j) {
  return on_step(r, session, j, true);
}

absl::Status on_end_step(const TraceRecord& r, audit::Session& session, Judgement& j) {
  return on_step(r, session, j, false);
}

// end: {} — the session ends; its model is released.
absl::Status on_end(const TraceRecord&, audit::Session& session, Judgement&) {
  return with_view(state(session), []<std::size_t D>() -> absl::Status { return absl::OkStatus(); });
}

constexpr audit::RecordKind kKinds[] = {
    {"open", {}, nullptr, false, &on_open},
    {"load", {}, nullptr, false, &on_load},
    {"unload", {}, nullptr, false, &on_unload},
    {"plan", kPlanClauses, nullptr, false, &on_plan, true},
    {"commit", kCommitClauses, nullptr, false, &on_commit},
    {"to_render", kRenderClauses, nullptr, false, &on_to_render, true},
    {"late", kLateClauses, nullptr, false, &on_late, true},
    {"view", kViewClauses, nullptr, false, &on_view, true},
    {"begin_step", kStepClauses, nullptr, false, &on_begin_step},
    {"end_step", kStepClauses, nullptr, false, &on_end_step},
    {"end", {}, nullptr, false, &on_end, false, true},
};

}  // namespace

const audit::ContractAudit& rebase_audit() {
  static constexpr audit::ContractAudit kAudit = {"rebase", kClauses, kKinds, &open_session};
  return kAudit;
}

}  // namespace lwc::internal
