// SPDX-License-Identifier: MIT
// File: fuzz/audit_fuzzer.cc
//
// libFuzzer target for the trace reader (lwc.audit.trace): any bytes as a trace. Nothing may crash
// (the fuzz preset runs it under ASan + UBSan + integer), every line must be accounted for, the report
// must stay bounded, auditing line by line must agree with auditing the whole, and the exit status must
// follow from the counts. Traps with the broken invariant on stderr.
//
// lwc-clauses: A1 A5 A6
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

import lwc.audit.trace;

namespace {

void require(bool ok, const char* invariant) {
  if (ok) return;
  std::fprintf(stderr, "audit invariant violated: %s\n", invariant);
  __builtin_trap();
}

constexpr std::size_t kExamples = 3;

lwc::audit::TraceOptions options(std::uint64_t& migrations, bool canonicalise = false) {
  lwc::audit::TraceOptions o;
  o.canonicalise_pairs = canonicalise;
  o.examples = kExamples;
  o.max_line_bytes = 512;  // small, so the fuzzer reaches the overlong path too
  o.migration = [&migrations](std::string_view line) {
    ++migrations;
    require(line.starts_with(R"({"schema":1,"line":)"), "A5 a migration line starts with its schema and line");
  };
  return o;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::uint64_t migrations = 0;
  lwc::audit::TraceAuditor whole(options(migrations));
  whole.text(text);
  const lwc::audit::TraceReport& r = whole.report();

  // A1: every line counted once; every record judged or reported; totals agree; the report is bounded.
  std::uint64_t lines = 0;
  for (std::size_t start = 0; start < text.size(); ++lines) {
    const std::size_t end = text.find('\n', start);
    start = end == std::string_view::npos ? text.size() : end + 1;
  }
  require(r.lines == lines, "A1 every line is counted");
  require(r.records <= r.lines, "A1 records are lines");
  require(r.judged + r.bad == r.records, "A1 every record is judged or reported");
  std::uint64_t by_kind = 0;
  for (const std::uint64_t n : r.bad_by_kind) by_kind += n;
  require(by_kind == r.bad, "A1 bad lines are counted by kind");
  require(r.bad_examples.size() <= kExamples, "A1 the report is bounded");
  std::uint64_t previous = 0;
  for (const auto& b : r.bad_examples) {
    require(b.line > previous && b.line <= r.lines, "A1 bad lines are reported in order with their numbers");
    previous = b.line;
  }
  std::uint64_t violations = 0;
  for (const auto& t : r.clauses) {
    require(t.examples.size() <= kExamples, "A1 the report is bounded");
    require(t.violations <= t.checked, "A1 a violation is of a checked record");
    require(t.knock_on <= t.violations, "A1 knock-ons are violations");
    for (const auto& c : t.examples) {
      require(c.line >= 1 && c.line <= r.lines, "A1 a counterexample has its line number");
      require(c.follows < c.line, "A1 a knock-on follows an earlier line");
    }
    violations += t.violations;
  }
  // Each violating record is counted under each clause it violates, so under at least one.
  require(violations >= r.violating, "A1 each violating record is counted under its clauses");
  require(r.root_causes <= r.violating, "A1 root causes are violating records");
  require(migrations == r.migrated, "A5 every migration counted is written");

  // A1: records are judged independently of each other, so line-by-line auditing agrees.
  std::uint64_t piecewise_migrations = 0;
  lwc::audit::TraceAuditor by_line(options(piecewise_migrations));
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = text.find('\n', start);
    by_line.line(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    start = end == std::string_view::npos ? text.size() : end + 1;
  }
  const lwc::audit::TraceReport& p = by_line.report();
  require(p.judged == r.judged && p.bad == r.bad && p.violating == r.violating && p.migrated == r.migrated,
          "A1 lines are judged independently");

  // --canonicalise changes verdicts on pair order only: what can be read, and every count, stays.
  std::uint64_t canonical_migrations = 0;
  lwc::audit::TraceAuditor canonical(options(canonical_migrations, true));
  canonical.text(text);
  const lwc::audit::TraceReport& c = canonical.report();
  require(c.lines == r.lines && c.judged == r.judged && c.bad == r.bad && c.migrated == r.migrated,
          "A1 canonicalised pairs are read like the others");
  require(c.violating <= r.violating, "A1 canonicalising only forgives pair order");

  // A6: the exit status follows from the counts.
  const int want = r.violating > 0 ? 1 : (r.bad > 0 || r.records == 0) ? 2 : 0;
  require(r.exit_code() == want, "A6 exit status");
  return 0;
}
