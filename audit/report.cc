// SPDX-License-Identifier: MIT
// File: audit/report.cc                 Module: lwc.audit.trace (implementation unit)
//
// The two report writers: format_report() (the text lwc-audit prints) and report_json() (--json).
module;
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
module lwc.audit.trace;

namespace lwc::internal {
namespace {

absl::string_view sv(std::string_view s) { return absl::string_view(s.data(), s.size()); }
std::string_view stdsv(absl::string_view s) { return std::string_view(s.data(), s.size()); }

}  // namespace
}  // namespace lwc::internal

namespace lwc::audit {

std::string format_report(const TraceReport& r) {
  std::string out = absl::StrCat("lwc-audit: ", r.lines, " lines, ", r.records, " records: ", r.judged,
                                 " judged, ", r.violating, " violating, ", r.bad, " not readable\n");
  if (r.violating > r.root_causes) {
    absl::StrAppend(&out, "  of the violating records, ", r.violating - r.root_causes,
                    " follow from an earlier violation of their session (marked \"follows line N\"), ",
                    r.root_causes, " do not\n");
  }
  if (!r.clauses.empty()) {
    absl::StrAppend(&out, "\n", absl::StrFormat("%-12s %-6s %12s %11s  %s\n", "contract", "clause", "checked",
                                                "violations", "statement"));
  }
  for (const ClauseTally& t : r.clauses) {
    absl::StrAppend(&out, absl::StrFormat("%-12s %-6s %12s %11s  %s\n", internal::sv(t.contract), internal::sv(t.id),
                                          t.checked > 0 ? absl::StrCat(t.checked) : "-",
                                          t.checked > 0 ? absl::StrCat(t.violations) : "-",
                                          internal::sv(t.statement)));
    for (const Counterexample& c : t.examples) {
      absl::StrAppend(&out, "    line ", c.line, ": ", c.op, " ", c.input,
                      c.follows != 0 ? absl::StrCat(" (follows line ", c.follows, ")") : std::string(),
                      "\n      expected ", c.expected,
                      "\n      got      ", c.got, "\n      ", c.message, "\n");
    }
    if (t.violations > t.examples.size()) {
      absl::StrAppend(&out, "    ... and ", t.violations - t.examples.size(), " more\n");
    }
    if (t.knock_on > 0) {
      absl::StrAppend(&out, "    (", t.knock_on, " of the ", t.violations, " follow from an earlier violation)\n");
    }
  }
  if (r.bad > 0) {
    absl::StrAppend(&out, "\nnot readable: ", r.bad, " records (");
    bool first = true;
    for (int k = 0; k < kBadKinds; ++k) {
      if (r.bad_by_kind[k] == 0) continue;
      absl::StrAppend(&out, first ? "" : ", ", internal::sv(bad_kind_name(static_cast<BadKind>(k))), " ",
                      r.bad_by_kind[k]);
      first = false;
    }
    absl::StrAppend(&out, ")\n");
    for (const BadLine& b : r.bad_examples) absl::StrAppend(&out, "    line ", b.line, ": ", b.reason, "\n");
    if (r.bad > r.bad_examples.size()) absl::StrAppend(&out, "    ... and ", r.bad - r.bad_examples.size(), " more\n");
  }
  if (r.migrated + r.unmigratable > 0) {
    absl::StrAppend(&out, "\nstored addresses: ", r.migrated + r.unmigratable, " misfiled; ", r.migrated,
                    " with a migration line, ", r.unmigratable, " with no valid key\n");
  }
  if (!r.io.ok()) absl::StrAppend(&out, "\ninput: ", r.io.message(), "\n");
  const int code = r.exit_code();
  absl::StrAppend(&out, "\nresult: ",
                  code == 0   ? "clean"
                  : code == 1 ? "VIOLATIONS"
                  : r.records == 0 && r.io.ok() ? "NO RECORDS"
                                                : "UNREADABLE INPUT",
                  " (exit ", code, ")\n");
  return out;
}

std::string report_json(const TraceReport& r) {
  using internal::json_string;
  std::string out = absl::StrCat("{\"schema\":", kTraceSchema, ",\"lines\":", r.lines, ",\"records\":", r.records,
                                 ",\"judged\":", r.judged, ",\"violating\":", r.violating,
                                 ",\"root_causes\":", r.root_causes, ",\"bad\":", r.bad,
                                 ",\"bad_by_kind\":{");
  for (int k = 0; k < kBadKinds; ++k) {
    absl::StrAppend(&out, k > 0 ? "," : "", json_string(bad_kind_name(static_cast<BadKind>(k))), ":",
                    r.bad_by_kind[k]);
  }
  absl::StrAppend(&out, "},\"bad_examples\":[");
  for (std::size_t i = 0; i < r.bad_examples.size(); ++i) {
    absl::StrAppend(&out, i > 0 ? "," : "", "{\"line\":", r.bad_examples[i].line,
                    ",\"reason\":", json_string(r.bad_examples[i].reason), "}");
  }
  absl::StrAppend(&out, "],\"clauses\":[");
  for (std::size_t i = 0; i < r.clauses.size(); ++i) {
    const ClauseTally& t = r.clauses[i];
    absl::StrAppend(&out, i > 0 ? "," : "", "{\"contract\":", json_string(t.contract), ",\"id\":", json_string(t.id),
                    ",\"statement\":", json_string(t.statement), ",\"checked\":", t.checked,
                    ",\"violations\":", t.violations, ",\"knock_on\":", t.knock_on, ",\"examples\":[");
    for (std::size_t j = 0; j < t.examples.size(); ++j) {
      const Counterexample& c = t.examples[j];
      absl::StrAppend(&out, j > 0 ? "," : "", "{\"line\":", c.line, ",\"op\":", json_string(c.op),
                      ",\"input\":", json_string(c.input), ",\"expected\":", json_string(c.expected),
                      ",\"got\":", json_string(c.got), ",\"message\":", json_string(c.message),
                      ",\"follows\":", c.follows, "}");
    }
    absl::StrAppend(&out, "]}");
  }
  absl::StrAppend(&out, "],\"migrated\":", r.migrated, ",\"unmigratable\":", r.unmigratable,
                  ",\"io\":", r.io.ok() ? "null" : json_string(internal::stdsv(r.io.message())), ",\"exit_code\":", r.exit_code(),
                  "}\n");
  return out;
}

}  // namespace lwc::audit