// SPDX-License-Identifier: MIT
// File: properties/audit_props.cc
//
// One RapidCheck property per A-clause of docs/audit.md: the trace reader never loses, rounds or invents
// a value, and its verdicts are the contract checkers'. Records are written here as an engine's tracer
// would write them, with values from the extreme-biased generators of support/arbitrary_decompose.h.
// Properties that audit a whole trace per case (A1, A5, A6) or several records (A2, A3) run a tenth to a
// half of the cases (LWC_PROP_SCALED), to keep each under ~20 s at 100k cases in the audit preset.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "support/arbitrary_decompose.h"
#include "support/property.h"
#include "support/split_clauses.h"

import lwc.decompose;
import lwc.contracts.decompose;
import lwc.audit.trace;

namespace {

using lwc::audit::BadKind;
using lwc::audit::TraceAuditor;
using lwc::audit::TraceOptions;
using lwc::audit::TraceReport;

std::string split_record(absl::string_view x, absl::string_view size, absl::string_view chunk, absl::string_view local) {
  return absl::StrCat(R"({"schema":1,"contract":"decompose","op":"split","in":{"x":)", x, R"(,"size":)", size,
                      R"(},"out":{"chunk":)", chunk, R"(,"local":)", local, "}}");
}

std::string split_record(std::int64_t x, std::int64_t size, std::int64_t chunk, std::int64_t local) {
  return split_record(absl::StrCat(x), absl::StrCat(size), absl::StrCat(chunk), absl::StrCat(local));
}

struct Audited {
  TraceReport report;
  std::vector<std::string> migration;
};

Audited audit(const std::string& text, std::size_t examples = 1000) {
  Audited a;
  TraceOptions options;
  options.examples = examples;
  options.migration = [&a](std::string_view line) { a.migration.emplace_back(line); };
  TraceAuditor auditor(std::move(options));
  auditor.text(text);
  a.report = auditor.report();
  return a;
}

// line -> the clause id the report names for it.
std::map<std::uint64_t, std::string> violations(const TraceReport& r) {
  std::map<std::uint64_t, std::string> out;
  for (const auto& t : r.clauses) {
    for (const auto& c : t.examples) out[c.line] = std::string(t.id);
  }
  return out;
}

std::string clause_of(const absl::Status& s) {
  const std::string m(s.message());
  return m.substr(0, m.find(' '));
}

// The output an implementation might give for (x, size): the right one, the truncating one, or a
// perturbation of either (one unit off, a wrong sign, anything).
lwc::ChunkPoint plausible_output(std::int64_t x, std::int64_t size) {
  const lwc::ChunkPoint right = lwc::contracts::oracle_split(x, size);
  const lwc::ChunkPoint truncated{x / size, x % size};
  const auto nudge = [](std::int64_t v, int d) {
    const absl::int128 w = absl::int128(v) + d;
    return w > lwc::testing::kInt64Max || w < lwc::testing::kInt64Min ? v : static_cast<std::int64_t>(w);
  };
  switch (*rc::gen::inRange(0, 5)) {
    case 0: return right;
    case 1: return truncated;
    case 2: return {nudge(right.chunk, *rc::gen::element(-1, 1)), right.local};
    case 3: return {right.chunk, nudge(right.local, *rc::gen::element(-1, 1))};
    default: return {*lwc::testing::any_int64(), *lwc::testing::any_int64()};
  }
}

// A line of a trace and what it is: blank, a record a checker must judge (clean or not), or bad.
struct Line {
  std::string text;
  enum Kind { kBlank, kClean, kViolating, kBad } kind;
  std::uint64_t clauses = 0;  // of a violating record: how many clauses it breaks
};

// How many clause ids a space-separated list names.
std::uint64_t count_ids(const std::string& ids) {
  return ids.empty() ? 0 : 1 + static_cast<std::uint64_t>(std::count(ids.begin(), ids.end(), ' '));
}

rc::Gen<Line> any_line() {
  return rc::gen::exec([] {
    const std::int64_t size = *lwc::testing::any_size();
    const std::int64_t x = *lwc::testing::any_int64();
    switch (*rc::gen::inRange(0, 8)) {
      case 0: return Line{*rc::gen::element<std::string>("", " ", "\t", " \r"), Line::kBlank};
      case 1:
      case 2:
      case 3: {
        if (size <= 0) return Line{split_record(x, size, 0, 0), Line::kViolating, 1};  // D5
        const lwc::ChunkPoint p = plausible_output(x, size);
        const bool ok = lwc::contracts::check_split(x, size, p.chunk, p.local).ok();
        return Line{split_record(x, size, p.chunk, p.local), ok ? Line::kClean : Line::kViolating,
                    count_ids(lwc::testing::split_clauses(x, size, p.chunk, p.local))};
      }
      case 4: return Line{split_record(absl::StrCat(x, ".0"), "16", "0", "0"), Line::kBad};
      case 5: return Line{split_record("1", "16", "9223372036854775808", "1"), Line::kBad};
      case 6: {
        // A valid record cut short anywhere, or with a byte replaced by one JSON cannot hold there.
        std::string s = split_record(x, 16, 0, 0);
        const std::size_t cut = *rc::gen::inRange<std::size_t>(1, s.size() - 1);
        const char replacement = *rc::gen::element('{', '"', '\x01', '\xff', ',');
        // Either way the line is bad: an object cut before its last '}' is not JSON, and a changed byte
        // breaks the syntax or renames a key or a contract.
        if (*rc::gen::arbitrary<bool>() || s[cut] == replacement) {
          s.resize(cut);
        } else {
          s[cut] = replacement;
        }
        return Line{s, Line::kBad};
      }
      default:
        return Line{*rc::gen::element<std::string>(
                        R"({"schema":1,"contract":"elsewhere","op":"split"})", R"({"schema":7})",
                        R"({"schema":1,"contract":"decompose","op":"split","in":{"size":3},"out":{"chunk":0,"local":0}})",
                        R"({"schema":1,"contract":"decompose","op":"split","in":{"x":[],"size":3},"out":{"chunk":0,"local":0}})"),
                    Line::kBad};
    }
  });
}

LWC_PROP_SCALED(Audit, A1_EveryLineIsJudgedOrReportedOnce, 10, ()) {
  const auto lines = *rc::gen::container<std::vector<Line>>(any_line());
  std::string text;
  std::set<std::uint64_t> bad;
  std::uint64_t records = 0;
  std::uint64_t violating = 0;
  std::uint64_t clause_violations = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    text += lines[i].text + "\n";
    if (lines[i].kind != Line::kBlank) ++records;
    if (lines[i].kind == Line::kViolating) ++violating;
    clause_violations += lines[i].clauses;
    // A cut line may still be valid JSON by chance only if nothing was cut; the generator never does that.
    if (lines[i].kind == Line::kBad) bad.insert(i + 1);
  }
  const std::size_t examples = *rc::gen::inRange<std::size_t>(0, 4);
  const Audited a = audit(text, examples);
  const TraceReport& r = a.report;
  RC_ASSERT(r.lines == lines.size());
  RC_ASSERT(r.records == records);
  RC_ASSERT(r.judged + r.bad == r.records);
  RC_ASSERT(r.bad == bad.size());
  std::uint64_t by_kind = 0;
  for (const std::uint64_t n : r.bad_by_kind) by_kind += n;
  RC_ASSERT(by_kind == r.bad);
  // The first `examples` bad lines, in order, with their numbers; the report's size is bounded.
  RC_ASSERT(r.bad_examples.size() == std::min<std::size_t>(examples, bad.size()));
  auto it = bad.begin();
  for (const auto& b : r.bad_examples) RC_ASSERT(b.line == *it++);
  // Each violating record once in `violating`, and once under each clause it breaks.
  std::uint64_t violations_total = 0;
  for (const auto& t : r.clauses) {
    RC_ASSERT(t.examples.size() <= examples);
    RC_ASSERT(t.violations <= t.checked);
    violations_total += t.violations;
  }
  RC_ASSERT(r.violating == violating);
  RC_ASSERT(violations_total == clause_violations);
}

LWC_PROP_SCALED(Audit, A2_Int64FieldsAreExactOrRefused, 2, ()) {
  const std::int64_t x = *lwc::testing::any_int64();
  const std::int64_t size = *lwc::testing::positive_size();
  const lwc::ChunkPoint right = lwc::contracts::oracle_split(x, size);
  // Written exactly, every int64 reads back exactly: the right answer is clean, one unit off is not.
  RC_ASSERT(audit(split_record(x, size, right.chunk, right.local)).report.exit_code() == 0);
  if (right.local + 1 < size) {
    const auto off = violations(audit(split_record(x, size, right.chunk, right.local + 1)).report);
    RC_ASSERT(off.size() == 1u);
    RC_ASSERT(off.begin()->second == "D1");
  }
  // A real-number literal of the same value, or an integer beyond int64, is refused, never rounded.
  const absl::int128 beyond = *rc::gen::element(absl::int128(lwc::testing::kInt64Max) + 1 + *rc::gen::inRange(0, 1000),
                                                absl::int128(lwc::testing::kInt64Min) - 1 - *rc::gen::inRange(0, 1000),
                                                absl::MakeInt128(*rc::gen::inRange<std::int64_t>(1, 1 << 20), 0));
  std::ostringstream beyond_text;
  beyond_text << beyond;
  for (const std::string& literal : {absl::StrCat(x, ".0"), absl::StrCat(x, "e0"), beyond_text.str()}) {
    const Audited a = audit(split_record(literal, absl::StrCat(size), absl::StrCat(right.chunk), absl::StrCat(right.local)));
    RC_ASSERT(a.report.judged == 0u);
    RC_ASSERT(a.report.bad_by_kind[static_cast<int>(BadKind::kInexactNumber)] == 1u);
    RC_ASSERT(a.report.bad_examples.at(0).reason.find("in.x") == 0u);
  }
}

std::string cell_record(absl::string_view v, absl::string_view h, absl::string_view out) {
  return absl::StrCat(R"({"schema":1,"contract":"decompose","op":"cell_of","in":{"v":)", v, R"(,"h":)", h,
                      R"(},"out":)", out, "}");
}

LWC_PROP_SCALED(Audit, A3_RealFieldsAreExact, 2, ()) {
  const double v = *lwc::testing::any_double();
  const double h = *lwc::testing::positive_cell_size();
  // Every way a tracer may write a double: 17 significant digits, a hex float string, and NaN/Infinity
  // strings for the values JSON has no literal for.
  // (A decimal real needs a real literal: "-0" is the integer zero, so -0.0 is written "-0.0".)
  const auto write = [](double d) -> std::string {
    if (std::isnan(d)) return R"("NaN")";
    if (std::isinf(d)) return d > 0 ? R"("Infinity")" : R"("-Infinity")";
    if (*rc::gen::arbitrary<bool>()) {
      std::string text = absl::StrFormat("%.17g", d);
      if (text.find_first_of(".e") == std::string::npos) text += ".0";
      return text;
    }
    return absl::StrFormat("\"%a\"", d);
  };
  // An answer that is wrong for the exact values, so the report prints the values it read.
  const absl::StatusOr<std::int64_t> right = lwc::contracts::oracle_cell_of(v, h);
  const std::string wrong = right.ok() ? R"({"error":"InvalidArgument"})" : R"({"cell":0})";
  const Audited a = audit(cell_record(write(v), write(h), wrong));
  RC_ASSERT(a.report.judged == 1u);
  RC_ASSERT(a.report.violating == 1u);
  const auto* tally = &a.report.clauses.at(8);
  RC_ASSERT(tally->id == "D9");
  // NaN is read as the quiet NaN: JSON has no way to write a payload or a sign, and no clause reads them.
  const double read_v = std::isnan(v) ? std::numeric_limits<double>::quiet_NaN() : v;
  // Messages print a real as its shortest round-trip decimal beside its hex float.
  const auto shown = [](double d) -> std::string {
    if (std::isnan(d)) return "NaN";
    if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
    char buf[64];
    const std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, d);
    return absl::StrFormat("%s (%a)", std::string(buf, r.ptr), d);
  };
  RC_ASSERT(tally->examples.at(0).input == absl::StrCat("v = ", shown(read_v), ", h = ", shown(h)));
  // And the right answer is clean.
  const std::string good = right.ok() ? absl::StrCat(R"({"cell":)", *right, "}")
                           : right.status().code() == absl::StatusCode::kOutOfRange ? R"({"error":"OutOfRange"})"
                                                                                     : R"({"error":"InvalidArgument"})";
  RC_ASSERT(audit(cell_record(write(v), write(h), good)).report.exit_code() == 0);
}

LWC_PROP(Audit, A4_VerdictsAreTheCheckers, ()) {
  const std::int64_t size = *rc::gen::weightedOneOf<std::int64_t>(
      {{4, lwc::testing::positive_size()}, {1, lwc::testing::any_size()}});
  const std::int64_t x = *rc::gen::weightedOneOf<std::int64_t>(
      {{1, lwc::testing::any_int64()}, {1, lwc::testing::near_multiple_of(size > 0 ? size : 1)}});
  const lwc::ChunkPoint p = size > 0 ? plausible_output(x, size) : lwc::ChunkPoint{0, 0};
  const absl::Status want = lwc::contracts::check_split(x, size, p.chunk, p.local);
  RC_TAG(want.ok() ? "clean" : clause_of(want));
  const Audited a = audit(split_record(x, size, p.chunk, p.local));
  RC_ASSERT(a.report.judged == 1u);
  // Every clause the answer breaks, decided from the clauses' statements (D5 alone for a size <= 0).
  const std::string clauses = want.ok() ? "" : size <= 0 ? "D5" : lwc::testing::split_clauses(x, size, p.chunk, p.local);
  RC_ASSERT(want.ok() == clauses.empty());
  std::string got;
  for (const auto& t : a.report.clauses) {
    for (const auto& c : t.examples) {
      got += (got.empty() ? "" : " ") + std::string(t.id);
      // The checker's clause carries the checker's own message, every other clause a message of its own;
      // each the oracle's answer.
      if (t.id == clause_of(want)) {
        RC_ASSERT(c.message == std::string(want.message()));
      } else {
        RC_ASSERT(c.message.rfind(std::string(t.id) + " ", 0) == 0u);
      }
      if (size > 0) {
        const lwc::ChunkPoint right = lwc::contracts::oracle_split(x, size);
        RC_ASSERT(c.expected == absl::StrCat("(chunk ", right.chunk, ", local ", right.local, ")"));
      }
    }
  }
  RC_ASSERT(got == clauses);
  RC_ASSERT(a.report.violating == (want.ok() ? 0u : 1u));
}

LWC_PROP_SCALED(Audit, A5_MigrationMovesExactlyTheMisfiled, 10, ()) {
  // A save of n records, each filed under the right key, the truncated one, or another wrong one.
  const std::int64_t size = *rc::gen::weightedOneOf<std::int64_t>(
      {{8, lwc::testing::positive_size()}, {1, rc::gen::element<std::int64_t>(0, -1000)}});
  const auto xs = *rc::gen::container<std::vector<std::int64_t>>(
      rc::gen::weightedOneOf<std::int64_t>({{1, lwc::testing::any_int64()},
                                            {1, lwc::testing::near_multiple_of(size > 0 ? size : 1)}}));
  std::string text;
  std::map<std::uint64_t, std::string> want;
  std::uint64_t unmigratable = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const std::int64_t x = xs[i];
    const bool with_local = *rc::gen::arbitrary<bool>();
    const lwc::ChunkPoint stored = size > 0 ? plausible_output(x, size) : lwc::ChunkPoint{0, 0};
    const std::string from = with_local ? absl::StrCat(R"({"chunk":)", stored.chunk, R"(,"local":)", stored.local, "}")
                                        : absl::StrCat(R"({"chunk":)", stored.chunk, "}");
    absl::StrAppend(&text, R"({"schema":1,"contract":"decompose","op":"stored","id":)", i, R"(,"in":{"x":)", x,
                    R"(,"size":)", size, R"(},"stored":)", from, "}\n");
    if (size <= 0) {
      ++unmigratable;
      continue;
    }
    const lwc::ChunkPoint right = lwc::contracts::oracle_split(x, size);
    if (stored.chunk == right.chunk && (!with_local || stored.local == right.local)) continue;
    const std::string to = with_local ? absl::StrCat(R"({"chunk":)", right.chunk, R"(,"local":)", right.local, "}")
                                      : absl::StrCat(R"({"chunk":)", right.chunk, "}");
    const absl::Status verdict = with_local ? lwc::contracts::check_split(x, size, stored.chunk, stored.local)
                                            : lwc::contracts::check_chunk(x, size, stored.chunk);
    want[i + 1] = absl::StrCat(R"({"schema":1,"line":)", i + 1, R"(,"contract":"decompose","op":"stored","id":)", i,
                               R"(,"x":)", x, R"(,"size":)", size, R"(,"from":)", from, R"(,"to":)", to,
                               R"(,"clause":")", clause_of(verdict), R"("})");
  }
  const Audited a = audit(text);
  std::map<std::uint64_t, std::string> got;
  for (const std::string& m : a.migration) {
    unsigned long long line = 0;
    RC_ASSERT(std::sscanf(m.c_str(), R"({"schema":1,"line":%llu,)", &line) == 1);
    got[line] = m;
  }
  RC_ASSERT(got == want);
  RC_ASSERT(a.report.migrated == want.size());
  RC_ASSERT(a.report.unmigratable == unmigratable);
}

LWC_PROP_SCALED(Audit, A6_ExitStatusIsCleanViolationsUnreadable, 10, ()) {
  const auto lines = *rc::gen::container<std::vector<Line>>(any_line());
  std::string text;
  bool violating = false;
  bool bad = false;
  bool any = false;
  for (const Line& l : lines) {
    text += l.text + "\n";
    violating |= l.kind == Line::kViolating;
    bad |= l.kind == Line::kBad;
    any |= l.kind != Line::kBlank;
  }
  const int want = violating ? 1 : (bad || !any) ? 2 : 0;
  RC_TAG(want);
  RC_ASSERT(audit(text, 0).report.exit_code() == want);
}

}  // namespace
