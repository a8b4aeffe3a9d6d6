// SPDX-License-Identifier: MIT
// File: audit/contracts/cover.cc        Module: lwc.audit.trace (implementation unit)
//
// The records of lwc.cover in a trace (docs/audit.md, "cover"), each judged by the checkers of
// lwc.contracts.cover:
//   cover   one 1-D cover call: min and max_exclusive (or max_inclusive, the closed form) and size ->
//           the span first..last, no chunks ("none": true) or an error code; optionally the count the
//           implementation gave for its span                                      C1 C2 C3 C4 C10 (C6)
// A size <= 0 that is accepted is named D5 by the checker and counted under decompose's D5. C5 relates
// two calls, C7 and C8 an enumeration, C9 a box: none is a property of one traced 1-D call.
// Every clause a record violates is counted (docs/audit.md, A4): the checker's verdict first, then each of
// C1 C2 C3 a span breaks, decided on its own (span_failures()), and C6 for a wrong count whatever the span.
module;
#include <cstdint>
#include <ostream>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "lwc/check.h"
module lwc.audit.trace;

import lwc.contracts.cover;

namespace lwc::internal {
namespace {

using contracts::CoverAnswer;
using audit::Judgement;
using audit::TraceRecord;

// The headings of docs/cover.md, generated from the spec at build time (audit/clause_table.cmake): the
// report prints each clause as the spec states it, and a clause added to the spec is audited under it.
constexpr audit::Clause kClauses[] = {
#include "audit/clauses/cover.inc"
};

constexpr std::string_view kCoverClauses[] = {"C1", "C2", "C3", "C4", "C10"};
constexpr std::string_view kCountedClauses[] = {"C1", "C2", "C3", "C4", "C6", "C10"};
constexpr std::string_view kSizeClauses[] = {"D5"};

std::string show(const CoverAnswer& a) {
  std::ostringstream os;
  os << a;
  return os.str();
}

std::string show_count(const absl::StatusOr<std::uint64_t>& count) {
  if (count.ok()) return absl::StrCat("count ", *count);
  return absl::StrCat("count error ", absl::StatusCodeToString(count.status().code()));
}

// The clauses of C1 C2 C3 that the span `got` breaks for a non-empty range `range` whose points lie in
// the chunks [want.first, want.last] (the oracle's), each decided on its own:
//   C1  the chunk of an end point of the range lies outside the span (f > want.first or l < want.last)
//   C2  an end chunk of the span holds no point of the range (f or l outside [want.first, want.last])
//   C3  a chunk strictly between the span's ends holds no point (its ends are C2's)
std::vector<absl::Status> span_failures(const CoverAnswer& got, const CoverAnswer& want, const std::string& range,
                                        std::int64_t size) {
  std::vector<absl::Status> out;
  const auto fail = [&](std::string_view clause, const std::string& why) {
    out.push_back(absl::InvalidArgumentError(absl::StrCat(absl::string_view(clause.data(), clause.size()), why,
                                                          " (range ", range, ", size ", size, ", answer ", show(got), ")")));
  };
  const absl::int128 f = got.first;
  const absl::int128 l = got.last;
  const absl::int128 lo = want.first;
  const absl::int128 hi = want.last;
  if (f > lo) fail("C1 completeness: ", absl::StrCat("the range's first point lies in chunk ", want.first, ", before the answer"));
  if (l < hi) fail("C1 completeness: ", absl::StrCat("the range's last point lies in chunk ", want.last, ", after the answer"));
  for (const absl::int128 c : {f, l}) {
    if (c < lo || c > hi) {
      fail("C2 tightness: ", absl::StrCat("end chunk ", static_cast<std::int64_t>(c), " holds no point of the range"));
      break;
    }
  }
  if (f + 1 < l && (f + 1 < lo || l - 1 > hi)) {
    const absl::int128 c = f + 1 < lo ? f + 1 : l - 1;
    fail("C3 contiguity: ", absl::StrCat("chunk ", static_cast<std::int64_t>(c), " between the ends holds no point of the range"));
  }
  return out;
}

// out.count: a uint64 literal, or the error code the count returned ("OutOfRange").
// Returns OK with `count` set, or the reason the field cannot be read.
absl::Status read_count(const TraceRecord& r, absl::StatusOr<std::uint64_t>& count) {
  absl::StatusOr<std::uint64_t> n = r.uint64("out", "count");
  if (n.ok()) {
    count = *n;
    return absl::OkStatus();
  }
  if (n.status().code() != absl::StatusCode::kInvalidArgument) return n.status();
  absl::StatusOr<std::string_view> text = r.text("out", "count");
  if (!text.ok()) return n.status();  // neither an integer nor a string: the integer's message says why
  count = absl::Status(status_code_of(*text), "traced");
  return absl::OkStatus();
}

// cover: {"in": {"min", "max_exclusive" | "max_inclusive", "size"},
//         "out": {"first", "last"[, "count"]} | {"none": true} | {"error": "InvalidArgument"}}
absl::Status judge_cover(const TraceRecord& r, Judgement& j) {
  LWC_ASSIGN_OR_RETURN(const std::int64_t min, r.int64("in", "min"));
  LWC_ASSIGN_OR_RETURN(const std::int64_t size, r.int64("in", "size"));
  const bool closed = r.has("in", "max_inclusive");
  if (closed == r.has("in", "max_exclusive")) {
    if (closed) return absl::InvalidArgumentError("in has both max_exclusive and max_inclusive");
    return absl::NotFoundError("missing field in.max_exclusive (or in.max_inclusive for a closed range)");
  }
  LWC_ASSIGN_OR_RETURN(const std::int64_t max, r.int64("in", closed ? "max_inclusive" : "max_exclusive"));

  CoverAnswer got;
  const bool has_error = r.has("out", "error");
  const bool has_none = r.has("out", "none");
  const bool has_span = r.has("out", "first") || r.has("out", "last");
  const bool has_count = r.has("out", "count");
  if (int{has_error} + int{has_none} + int{has_span} > 1) {
    return absl::InvalidArgumentError("out holds more than one of: an error, \"none\", a span (first, last)");
  }
  if (has_count && !has_span) return absl::InvalidArgumentError("out.count is given without a span");
  const CoverAnswer want = closed ? contracts::oracle_cover_closed(min, max, size)
                                  : contracts::oracle_cover(min, max, size);
  if (has_error) {
    // The error rule of every op: a code name is judged as that code, free text as the refusal due.
    LWC_ASSIGN_OR_RETURN(const TracedError error, read_error(r, "out"));
    const absl::Status want_status = want.code == absl::StatusCode::kOk ? absl::OkStatus() : absl::Status(want.code, "");
    got = CoverAnswer::error(as_traced(error, want_status).code());
  } else if (has_none) {
    LWC_ASSIGN_OR_RETURN(const bool none, r.boolean("out", "none"));
    if (!none) return absl::InvalidArgumentError("out.none is false: write the span (first, last) instead");
    got = CoverAnswer::none();
  } else {
    LWC_ASSIGN_OR_RETURN(const std::int64_t first, r.int64("out", "first"));
    LWC_ASSIGN_OR_RETURN(const std::int64_t last, r.int64("out", "last"));
    got = CoverAnswer::chunks(first, last);
  }
  absl::StatusOr<std::uint64_t> count = absl::UnknownError("unset");
  if (has_count) {
    LWC_RETURN_IF_ERROR(read_count(r, count));
    j.checked = kCountedClauses;
  }

  if (size <= 0) j.checked = kSizeClauses;  // a size <= 0 must be refused (D5): no range to judge
  j.verdict = closed ? contracts::check_cover_closed(min, max, size, got) : contracts::check_cover(min, max, size, got);
  // C6 is the count of the engine's own span, judged whether or not the span is right.
  const absl::Status counted =
      has_count && size > 0 ? contracts::check_count(got.first, got.last, count) : absl::OkStatus();
  if (j.verdict.ok() && counted.ok()) return absl::OkStatus();
  j.input = absl::StrCat("[", min, ", ", max, closed ? "]" : ")", ", size ", size);
  j.expected = show(want);
  j.got = show(got);
  if (has_count) {
    if (want.has_chunks()) {
      const absl::uint128 n = contracts::oracle_count(want.first, want.last);
      if (absl::Uint128High64(n) == 0) {
        absl::StrAppend(&j.expected, ", count ", absl::Uint128Low64(n));
      } else {
        absl::StrAppend(&j.expected, ", count error OUT_OF_RANGE");
      }
    }
    absl::StrAppend(&j.got, ", ", show_count(count));
  }
  if (!j.verdict.ok() && want.has_chunks() && got.has_chunks()) {
    const std::string range = closed ? absl::StrCat("[", min, ", ", max, "]") : absl::StrCat("[", min, ", ", max, ")");
    for (absl::Status& f : span_failures(got, want, range, size)) add_violation(j, std::move(f), j.expected, j.got);
  }
  add_violation(j, counted, j.expected, j.got);
  return absl::OkStatus();
}

constexpr audit::RecordKind kKinds[] = {
    {"cover", kCoverClauses, &judge_cover, false},
};

}  // namespace

const audit::ContractAudit& cover_audit() {
  static constexpr audit::ContractAudit kAudit = {"cover", kClauses, kKinds};
  return kAudit;
}

}  // namespace lwc::internal
