// SPDX-License-Identifier: MIT
// File: tests/audit_test.cc
//
// The trace audit (docs/audit.md) on the committed traces of examples/audit/ — a naive Node.js tracer, its
// BigInt twin, a truncating C split and a save written with truncated chunk ids — and on every kind of bad
// input. Expected verdicts are derived here independently: the fixtures are re-parsed with sscanf, the
// naive algorithms are re-run in C++, and the right answers come from lwc.contracts.decompose's oracle.
// When node and gcc are installed the fixtures are also regenerated and compared byte for byte.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "support/split_clauses.h"

import lwc.decompose;
import lwc.contracts.decompose;
import lwc.audit.trace;

namespace {

using lwc::audit::BadKind;
using lwc::audit::Counterexample;
using lwc::audit::TraceAuditor;
using lwc::audit::TraceOptions;
using lwc::audit::TraceReport;

constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();

std::string source(const std::string& relative) { return std::string(LWC_SOURCE_DIR) + "/" + relative; }

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Audits `text` keeping every counterexample, and collects the migration lines.
struct Audit {
  TraceReport report;
  std::vector<std::string> migration;
};

Audit audit(const std::string& text, std::size_t max_line_bytes = std::size_t{1} << 20) {
  Audit a;
  TraceOptions options;
  options.examples = 100000;
  options.max_line_bytes = max_line_bytes;
  options.migration = [&a](std::string_view line) { a.migration.emplace_back(line); };
  TraceAuditor auditor(std::move(options));
  auditor.text(text);
  a.report = auditor.report();
  return a;
}

// line -> the ids of every clause the line violates, in report order, space-separated ("D2 D3 D6"): a
// record is counted under each clause it violates.
std::map<std::uint64_t, std::string> violations(const TraceReport& r) {
  std::map<std::uint64_t, std::string> out;
  for (const auto& tally : r.clauses) {
    for (const Counterexample& c : tally.examples) {
      std::string& ids = out[c.line];
      ids += (ids.empty() ? "" : " ") + std::string(tally.id);
    }
  }
  return out;
}

const Counterexample* example_at(const TraceReport& r, std::uint64_t line) {
  for (const auto& tally : r.clauses) {
    for (const Counterexample& c : tally.examples) {
      if (c.line == line) return &c;
    }
  }
  return nullptr;
}

// Every counterexample in the report, by clause.
std::map<std::string, std::vector<Counterexample>> examples_by_clause(const TraceReport& r) {
  std::map<std::string, std::vector<Counterexample>> out;
  for (const auto& t : r.clauses) {
    for (const Counterexample& c : t.examples) out[std::string(t.id)].push_back(c);
  }
  return out;
}

std::uint64_t violations_of(const TraceReport& r, std::string_view id) {
  for (const auto& t : r.clauses) {
    if (t.id == id) return t.violations;
  }
  return 0;
}

std::uint64_t checked_of(const TraceReport& r, std::string_view id) {
  for (const auto& t : r.clauses) {
    if (t.id == id) return t.checked;
  }
  return 0;
}

// The exact decimal text of an integral double, as JavaScript's BigInt(n).toString() writes it.
std::string integer_text(double d) {
  if (d >= 0x1p63) return std::to_string(static_cast<unsigned long long>(d));  // d < 2^64 here
  return std::to_string(static_cast<long long>(d));
}

// A split record of the tracers' fixed format; `ok` is false when a field does not fit int64.
struct SplitLine {
  bool ok = false;
  std::int64_t x = 0, size = 0, chunk = 0, local = 0;
  std::string chunk_text, local_text;
};

SplitLine parse_split(const std::string& line) {
  SplitLine s;
  char chunk[32] = {};
  char local[32] = {};
  long long x = 0;
  long long size = 0;
  if (std::sscanf(line.c_str(),
                  R"({"schema":1,"contract":"decompose","op":"split","in":{"x":%lld,"size":%lld},"out":{"chunk":%31[-0-9],"local":%31[-0-9]}})",
                  &x, &size, chunk, local) != 4) {
    ADD_FAILURE() << "unexpected fixture line: " << line;
    return s;
  }
  s.x = x;
  s.size = size;
  s.chunk_text = chunk;
  s.local_text = local;
  errno = 0;
  s.chunk = std::strtoll(chunk, nullptr, 10);
  s.local = std::strtoll(local, nullptr, 10);
  s.ok = errno == 0;
  return s;
}

// Every clause of D1 D2 D3 D6 a wrong answer violates, decided from the clauses' statements.
std::string clauses_for(std::int64_t x, std::int64_t size, std::int64_t chunk, std::int64_t local) {
  return lwc::testing::split_clauses(x, size, chunk, local);
}

std::string clauses_for(const SplitLine& s) { return clauses_for(s.x, s.size, s.chunk, s.local); }

// ---------------------------------------------------------------------------------------------------
// The committed traces of examples/audit/traces/

TEST(NodeTrace, NaiveMathFloorIsFlaggedOnExactlyTheWrongLines) {  // A4 D1 D2
  const std::string text = read_file(source("examples/audit/traces/node_naive.jsonl"));
  const std::vector<std::string> lines = lines_of(text);
  ASSERT_EQ(lines.size(), 62u);
  std::map<std::uint64_t, std::string> want;
  std::set<std::uint64_t> unreadable;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const SplitLine s = parse_split(lines[i]);
    // The fixture is the naive tracer's: Math.floor on Number, re-run here in doubles.
    const double xn = static_cast<double>(s.x);
    const double sn = static_cast<double>(s.size);
    const double chunk = std::floor(xn / sn);
    EXPECT_EQ(s.chunk_text, integer_text(chunk)) << "line " << i + 1;
    EXPECT_EQ(s.local_text, integer_text(xn - chunk * sn)) << "line " << i + 1;
    if (!s.ok) {
      unreadable.insert(i + 1);
      continue;
    }
    if (lwc::contracts::oracle_split(s.x, s.size) != lwc::ChunkPoint{s.chunk, s.local}) want[i + 1] = clauses_for(s);
    // Below 2^53 a double holds x exactly and Math.floor(x / size) is right: the bug is only beyond.
    if (s.x > -(std::int64_t{1} << 53) && s.x < (std::int64_t{1} << 53)) EXPECT_EQ(want.count(i + 1), 0u);
  }
  const Audit a = audit(text);
  EXPECT_EQ(violations(a.report), want);
  EXPECT_GT(want.size(), 30u);
  EXPECT_EQ(a.report.violating, want.size());
  // The one output that is not an int64 at all (2^63, from x = INT64_MAX by 1) is reported, not judged.
  ASSERT_EQ(unreadable, (std::set<std::uint64_t>{22}));
  ASSERT_EQ(a.report.bad, 1u);
  EXPECT_EQ(a.report.bad_examples[0].line, 22u);
  EXPECT_EQ(a.report.bad_by_kind[static_cast<int>(BadKind::kInexactNumber)], 1u);
  EXPECT_EQ(a.report.exit_code(), 1);

  // By hand: line 13 is x = 2^53 + 1 = 9007199254740993 by 1000. Number(x) rounds to 2^53, whose floor
  // quotient 9007199254740 is right but whose remainder 992 is one short: chunk * size + local = 2^53 != x.
  const Counterexample* c = example_at(a.report, 13);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(want[13], "D1");
  EXPECT_EQ(c->input, "x = 9007199254740993, size = 1000");
  EXPECT_EQ(c->expected, "(chunk 9007199254740, local 993)");
  EXPECT_EQ(c->got, "(chunk 9007199254740, local 992)");
  EXPECT_EQ(c->message.rfind("D1 reconstruction:", 0), 0u) << c->message;
  // And line 1, the truncating-division example's x = -1, is right: Math.floor is a floor.
  EXPECT_EQ(example_at(a.report, 1), nullptr);
}

TEST(NodeTrace, BigIntTwinPasses) {  // A4 A6
  const Audit a = audit(read_file(source("examples/audit/traces/node_bigint.jsonl")));
  EXPECT_EQ(a.report.records, 62u);
  EXPECT_EQ(a.report.judged, 62u);
  EXPECT_EQ(a.report.violating, 0u);
  EXPECT_EQ(a.report.bad, 0u);
  EXPECT_EQ(a.report.exit_code(), 0);
}

TEST(CTrace, TruncatingSplitIsFlaggedAsD2D3D6OnEveryNegativeNonMultiple) {  // A4 D2 D3 D6
  const std::string text = read_file(source("examples/audit/traces/c_truncating.jsonl"));
  const std::vector<std::string> lines = lines_of(text);
  std::map<std::uint64_t, std::string> want;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const SplitLine s = parse_split(lines[i]);
    ASSERT_TRUE(s.ok);
    EXPECT_EQ(s.chunk, s.x / s.size);  // the fixture is C's truncating split
    EXPECT_EQ(s.local, s.x % s.size);
    // The truncating pair reconstructs x (D1 holds), but its local is negative (D2), its chunk is not the
    // floor (D3), and it is the truncating quotient (D6).
    if (s.x < 0 && s.x % s.size != 0) want[i + 1] = "D2 D3 D6";
  }
  const Audit a = audit(text);
  EXPECT_EQ(violations(a.report), want);
  EXPECT_GT(want.size(), 10u);
  for (const auto& t : a.report.clauses) {
    if (t.id == "D1") EXPECT_EQ(t.violations, 0u);
    if (t.id == "D2" || t.id == "D3" || t.id == "D6") EXPECT_EQ(t.violations, want.size()) << t.id;
  }
  EXPECT_EQ(a.report.violating, want.size());
  // Line 1 is the truncating-division example's x = -1 by 1000: C gives chunk 0, local -1.
  const Counterexample* c = example_at(a.report, 1);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->expected, "(chunk -1, local 999)");
  EXPECT_EQ(c->got, "(chunk 0, local -1)");
  EXPECT_EQ(a.report.exit_code(), 1);
}

TEST(SaveTrace, MigrationMovesExactlyTheMisfiledRecords) {  // A5
  const std::string text = read_file(source("examples/audit/traces/c_save.jsonl"));
  const std::vector<std::string> lines = lines_of(text);
  // line -> the migration line it must produce, built here from the oracle.
  std::map<std::uint64_t, std::string> want;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    int id = 0;
    long long x = 0, size = 0, chunk = 0, local = 0;
    ASSERT_EQ(std::sscanf(lines[i].c_str(),
                          R"({"schema":1,"contract":"decompose","op":"stored","id":"asset-%d","in":{"x":%lld,"size":%lld},"stored":{"chunk":%lld,"local":%lld}})",
                          &id, &x, &size, &chunk, &local),
              5)
        << lines[i];
    const lwc::ChunkPoint right = lwc::contracts::oracle_split(x, size);
    if (right == lwc::ChunkPoint{chunk, local}) continue;
    std::ostringstream m;
    m << R"({"schema":1,"line":)" << i + 1 << R"(,"contract":"decompose","op":"stored","id":"asset-)" << id
      << R"(","x":)" << x << R"(,"size":)" << size << R"(,"from":{"chunk":)" << chunk << R"(,"local":)" << local
      << R"(},"to":{"chunk":)" << right.chunk << R"(,"local":)" << right.local << R"(},"clause":"D6"})";
    want[i + 1] = m.str();
  }
  const Audit a = audit(text);
  std::map<std::uint64_t, std::string> got;
  for (const std::string& m : a.migration) {
    unsigned long long line = 0;
    ASSERT_EQ(std::sscanf(m.c_str(), R"({"schema":1,"line":%llu,)", &line), 1) << m;
    got[line] = m;
  }
  EXPECT_EQ(got, want);
  EXPECT_GT(want.size(), 10u);
  EXPECT_LT(want.size(), lines.size());  // some records are filed right (negative multiples, x >= 0)
  EXPECT_EQ(a.report.migrated, want.size());
  EXPECT_EQ(a.report.unmigratable, 0u);
}

// A cover record of cover_tracer's fixed format: the inputs, and whether the range is closed.
struct CoverLine {
  long long min = 0, max = 0, size = 0;
  bool closed = false;
};

CoverLine parse_cover(const std::string& line) {
  CoverLine c;
  char key[16] = {};
  if (std::sscanf(line.c_str(), R"({"schema":1,"contract":"cover","op":"cover","in":{"min":%lld,"%15[a-z_]":%lld,"size":%lld},)",
                  &c.min, key, &c.max, &c.size) != 4) {
    ADD_FAILURE() << "unexpected fixture line: " << line;
  }
  c.closed = std::string(key) == "max_inclusive";
  return c;
}

TEST(CoverTrace, OffByOneAtTheExclusiveEndIsFlaggedAsC2OnEveryMultiple) {  // A4 C2
  const std::string text = read_file(source("examples/audit/traces/c_cover_off_by_one.jsonl"));
  const std::vector<std::string> lines = lines_of(text);
  // floor(max_exclusive / size) is one chunk too many exactly when a non-empty half-open range ends on a
  // multiple of the size; closed ranges, empty and refused calls are right in both variants.
  std::map<std::uint64_t, std::string> want;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const CoverLine c = parse_cover(lines[i]);
    if (!c.closed && c.size > 0 && c.min < c.max && c.max % c.size == 0) want[i + 1] = "C2";
  }
  const Audit a = audit(text);
  EXPECT_EQ(a.report.bad, 0u);
  EXPECT_EQ(a.report.judged, lines.size());
  EXPECT_EQ(violations(a.report), want);
  EXPECT_GT(want.size(), 10u);
  // Line 1 is the truncating-division example's [-1000, 0): the chunk of 0 holds no point of the range.
  const Counterexample* c = example_at(a.report, 1);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->input, "[-1000, 0), size 1000");
  EXPECT_EQ(c->expected, "[-1, -1], count 1");
  EXPECT_EQ(c->got, "[-1, 0], count 2");
  EXPECT_EQ(c->message.rfind("C2 tightness: end chunk 0 = [0, 1000) holds no point of the range", 0), 0u) << c->message;
  EXPECT_EQ(a.report.exit_code(), 1);
}

TEST(CoverTrace, RightCoverPassesWithItsCounts) {  // A4 A6 C6
  const std::string text = read_file(source("examples/audit/traces/c_cover_right.jsonl"));
  const Audit a = audit(text);
  EXPECT_EQ(a.report.records, lines_of(text).size());
  EXPECT_EQ(a.report.judged, a.report.records);
  EXPECT_EQ(a.report.violating, 0u);
  std::map<std::string, std::uint64_t> checked;
  for (const auto& t : a.report.clauses) checked[std::string(t.contract) + " " + std::string(t.id)] = t.checked;
  // A record with a size <= 0 is judged by decompose's D5 alone (it must be refused), every other by C1-C4.
  std::uint64_t bad_sizes = 0;
  for (const std::string& line : lines_of(text)) bad_sizes += parse_cover(line).size <= 0;
  EXPECT_GT(bad_sizes, 0u);
  EXPECT_EQ(checked["cover C1"], a.report.judged - bad_sizes);
  EXPECT_EQ(checked["decompose D5"], bad_sizes);
  EXPECT_GT(checked["cover C6"], 10u);                 // every span carries its count
  EXPECT_LT(checked["cover C6"], a.report.judged);     // errors and "none" have none
  EXPECT_EQ(a.report.exit_code(), 0);
}

std::string cover_record(const std::string& in, const std::string& out) {
  return R"({"schema":1,"contract":"cover","op":"cover","in":{)" + in + R"(},"out":{)" + out + "}}";
}

TEST(Records, EveryCoverAnswerIsJudgedByItsChecker) {  // A4 C1 C2 C4 C6 C10 D5
  struct Case {
    std::string line;
    std::string clause;  // "" for clean; "decompose D5" for a clause of another contract
  };
  const std::string all = R"("min":-9223372036854775808,"max_inclusive":9223372036854775807,"size":1)";
  const std::vector<Case> cases = {
      {cover_record(R"("min":-1,"max_exclusive":1,"size":1000)", R"("first":-1,"last":0)"), ""},
      {cover_record(R"("min":-1,"max_exclusive":1,"size":1000)", R"("first":0,"last":0)"), "C1"},
      {cover_record(R"("min":-1,"max_exclusive":1,"size":1000)", R"("first":-2,"last":0)"), "C2"},
      {cover_record(R"("min":3,"max_exclusive":3,"size":1000)", R"("none":true)"), ""},
      {cover_record(R"("min":3,"max_exclusive":3,"size":1000)", R"("first":0,"last":0)"), "C4"},
      {cover_record(R"("min":3,"max_exclusive":2,"size":1000)", R"("error":"InvalidArgument")"), ""},
      {cover_record(R"("min":3,"max_exclusive":2,"size":1000)", R"("error":"OutOfRange")"), "C4"},
      {cover_record(R"("min":3,"max_exclusive":4,"size":1000)", R"("error":"INVALID_ARGUMENT")"), "C10"},
      {cover_record(R"("min":0,"max_exclusive":4,"size":0)", R"("first":0,"last":0)"), "decompose D5"},
      {cover_record(R"("min":0,"max_exclusive":4,"size":-1)", R"("error":"InvalidArgument")"), ""},
      {cover_record(R"("min":0,"max_inclusive":-1,"size":1000)", R"("none":true)"), ""},
      {cover_record(R"("min":0,"max_inclusive":-2,"size":1000)", R"("none":true)"), "C4"},
      {cover_record(R"("min":-1000,"max_inclusive":0,"size":1000)", R"("first":-1,"last":0,"count":2)"), ""},
      {cover_record(R"("min":-1000,"max_inclusive":0,"size":1000)", R"("first":-1,"last":0,"count":1)"), "C6"},
      {cover_record(all, R"("first":-9223372036854775808,"last":9223372036854775807,"count":"OutOfRange")"), ""},
      {cover_record(all, R"("first":-9223372036854775808,"last":9223372036854775807,"count":0)"), "C6"},
      {cover_record(R"("min":-9223372036854775808,"max_exclusive":9223372036854775807,"size":1)",
                    R"("first":-9223372036854775808,"last":9223372036854775806,"count":18446744073709551615)"), ""},
  };
  std::string text;
  for (const Case& c : cases) text += c.line + "\n";
  const Audit a = audit(text);
  EXPECT_EQ(a.report.bad, 0u) << (a.report.bad_examples.empty() ? "" : a.report.bad_examples[0].reason);
  std::map<std::uint64_t, std::string> want;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (cases[i].clause.empty()) continue;
    want[i + 1] = cases[i].clause.find(' ') == std::string::npos ? cases[i].clause : cases[i].clause.substr(10);
  }
  EXPECT_EQ(violations(a.report), want);
  // D5 is decompose's clause: the record counts there, under its own contract.
  bool d5 = false;
  for (const auto& t : a.report.clauses) d5 |= t.contract == "decompose" && t.id == "D5" && t.violations == 1;
  EXPECT_TRUE(d5);
}

// The session and op of an event line (re-parsed here with simdjson's DOM, independently of the audit).
struct Event {
  std::string session;
  std::string op;
};

Event parse_event(const std::string& line) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  Event e;
  std::string_view session;
  std::string_view op;
  if (parser.parse(line).get(root) != simdjson::SUCCESS || root["session"].get_string().get(session) != simdjson::SUCCESS ||
      root["op"].get_string().get(op) != simdjson::SUCCESS) {
    ADD_FAILURE() << "unexpected fixture line: " << line;
    return e;
  }
  e.session = std::string(session);
  e.op = std::string(op);
  return e;
}

TEST(CommitTrace, ClearingOnFailureIsFlaggedAsT4AfterEveryFailedCommit) {  // A4 T4
  const std::string text = read_file(source("examples/audit/traces/node_commit_clears_on_failure.jsonl"));
  const std::vector<std::string> lines = lines_of(text);
  // Derived from the log's shape: the pending runs reported right after a failed preparation are where the
  // chunks the engine cleared too early are missing (each failed batch holds a chunk not marked again).
  std::set<std::uint64_t> after_failure;
  std::map<std::string, std::uint64_t> first_failure;  // session -> line of its first prepare_failed
  std::map<std::string, std::string> last_op;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const Event e = parse_event(lines[i]);
    if (e.op == "pending" && last_op[e.session] == "prepare_failed") after_failure.insert(i + 1);
    if (e.op == "prepare_failed" && first_failure.count(e.session) == 0) first_failure[e.session] = i + 1;
    last_op[e.session] = e.op;
  }
  ASSERT_EQ(after_failure.size(), 2u);  // one failed commit in each of the two sessions
  const Audit a = audit(text);
  EXPECT_EQ(a.report.bad, 0u);
  EXPECT_EQ(a.report.judged, lines.size());
  std::set<std::uint64_t> t4;
  for (const auto& [line, clauses] : violations(a.report)) {
    // The pending runs after a failure lose the batch (T4) and so no longer cover the dirty set (T3); what
    // the lost chunks cause later (a retry that prepares and publishes too little) is T8 and T5. Nothing
    // before a session's first failure is flagged.
    if (clauses == "T3 T4") t4.insert(line);
    EXPECT_TRUE(clauses == "T3 T4" || clauses == "T5" || clauses == "T8" || clauses == "T5 T8")
        << "line " << line << ": " << clauses;
    const Event e = parse_event(lines[line - 1]);
    EXPECT_GT(line, first_failure[e.session]) << "line " << line;
  }
  EXPECT_EQ(t4, after_failure);
  const auto by_clause = examples_by_clause(a.report);
  const Counterexample* c = nullptr;
  for (const Counterexample& e : by_clause.at("T4")) {
    if (e.line == *after_failure.begin()) c = &e;
  }
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->message.rfind("T4 all or nothing: chunk ", 0), 0u) << c->message;
  EXPECT_NE(c->message.find("was cleared by a failed commit"), std::string::npos) << c->message;
  EXPECT_EQ(a.report.exit_code(), 1);
}

TEST(CommitTrace, RightCommitterPasses) {  // A4 A6 T1 T3 T4 T5 T6 T8
  const std::string text = read_file(source("examples/audit/traces/node_commit_right.jsonl"));
  const Audit a = audit(text);
  EXPECT_EQ(a.report.judged, lines_of(text).size());
  EXPECT_EQ(a.report.violating, 0u);
  std::map<std::string, std::uint64_t> checked;
  for (const auto& t : a.report.clauses) checked[std::string(t.id)] = t.checked;
  for (const char* clause : {"T1", "T3", "T4", "T5", "T6", "T8"}) EXPECT_GT(checked[clause], 0u) << clause;
  EXPECT_EQ(a.report.exit_code(), 0);
}

std::string event(const std::string& session, int seq, const std::string& op, const std::string& body = "") {
  return R"({"schema":1,"contract":"commit","session":")" + session + R"(","seq":)" + std::to_string(seq) +
         R"(,"op":")" + op + "\"" + (body.empty() ? "" : "," + body) + "}";
}

TEST(Records, EveryCommitEventIsJudgedAgainstTheModel) {  // A4 T1 T3 T4 T5 T6 T8
  struct Case {
    std::string line;
    std::string clause;  // "" for clean
  };
  const std::vector<Case> cases = {
      {event("a", 0, "open", R"("in":{"chunk_size":16})"), ""},
      {event("a", 1, "mark", R"("in":{"cell":[-1,0]},"out":{"chunk":[-1,0]})"), ""},
      {event("a", 2, "mark", R"("in":{"cell":[-17,0]},"out":{"chunk":[-1,0]})"), "T1"},  // truncated
      {event("a", 3, "mark", R"("in":{"cell":[16,0]})"), ""},
      {event("a", 4, "pending", R"("out":{"runs":[[0,-2,-2],[0,-1,-1],[0,1,1]]})"), "T3"},  // not maximal
      {event("a", 5, "pending", R"("out":{"runs":[[0,-2,-1],[0,1,1]]})"), ""},
      {event("a", 6, "commit", R"("in":{"max_runs":1})"), ""},
      {event("a", 7, "prepare", R"("in":{"run":[0,1,1]})"), ""},
      {event("a", 8, "publish", R"("out":{"runs":[[0,1,1]],"sequence":1})"), "T5 T8"},  // not the first run
      {event("a", 9, "commit", ""), ""},
      {event("a", 10, "prepare", R"("in":{"run":[0,1,1]})"), ""},
      {event("a", 11, "mark", R"("in":{"cell":[20,5]})"), ""},  // marked during: chunk (1, 0)
      {event("a", 12, "publish", R"("out":{"runs":[[0,1,1]],"sequence":2})"), ""},
      {event("a", 13, "pending", R"("out":{"runs":[]})"), "T3 T6"},  // lost the chunk marked during
      {event("b", 0, "open", R"("in":{"chunk_size":1000})"), ""},
      {event("b", 1, "mark", R"("in":{"cell":[-1,-1]})"), ""},
      {event("b", 2, "commit", ""), ""},
      {event("b", 3, "prepare", R"("in":{"run":[-1,-1,-1]})"), ""},
      {event("b", 4, "prepare_failed", ""), ""},
      {event("b", 5, "pending", R"("out":{"runs":[]})"), "T3 T4"},  // the failed batch was cleared
      {event("b", 6, "commit", ""), ""},
      {event("b", 7, "prepare", R"("in":{"run":[-1,-1,-1]})"), ""},
      {event("b", 8, "publish", R"("out":{"runs":[[-1,-1,-1]],"sequence":7})"), "T5"},  // sequence jumped
      {event("b", 9, "end"), ""},
      {event("b", 0, "open", R"("in":{"chunk_size":1000})"), ""},  // a new session of the same name
      {event("b", 1, "commit", ""), ""},
      {event("b", 2, "publish", R"("out":{"runs":[]})"), ""},  // nothing pending, nothing published
      {event("b", 3, "pending", R"("out":{"runs":[]})"), ""},
  };
  std::string text;
  for (const Case& c : cases) text += c.line + "\n";
  const Audit a = audit(text);
  EXPECT_EQ(a.report.bad, 0u) << (a.report.bad_examples.empty() ? "" : a.report.bad_examples[0].reason);
  std::map<std::uint64_t, std::string> want;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (!cases[i].clause.empty()) want[i + 1] = cases[i].clause;
  }
  EXPECT_EQ(violations(a.report), want);
}

TEST(RebaseTrace, BarrierCheckedOnlyAtPlanIsFlaggedAsR6WhereACellWasUnloaded) {  // A4 R6 R7
  const std::string text = read_file(source("examples/audit/traces/node_rebase_barrier_at_plan.jsonl"));
  const std::vector<std::string> lines = lines_of(text);
  // Derived from the log's shape: a commit right after its session unloaded a cell is the race the engine
  // loses (the plan's barrier was loaded, the commit's is not), and the view it reports next shows the
  // origin that should not have moved.
  std::map<std::uint64_t, std::string> want;
  std::map<std::string, std::string> last_op;
  std::map<std::string, bool> moved_onto_hole;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const Event e = parse_event(lines[i]);
    if (e.op == "commit" && last_op[e.session] == "unload") {
      want[i + 1] = "R6";
      moved_onto_hole[e.session] = true;
    } else if (e.op == "view" && moved_onto_hole[e.session]) {
      want[i + 1] = "R7";
    }
    last_op[e.session] = e.op;
  }
  ASSERT_EQ(want.size(), 3u);  // both views commit onto a hole; the minimap then reports its view
  const Audit a = audit(text);
  EXPECT_EQ(a.report.bad, 0u);
  EXPECT_EQ(a.report.judged, lines.size());
  EXPECT_EQ(violations(a.report), want);
  const Counterexample* c = example_at(a.report, want.begin()->first);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->expected, "error FAILED_PRECONDITION");
  EXPECT_NE(c->message.find("is not loaded at commit time"), std::string::npos) << c->message;
  EXPECT_EQ(a.report.exit_code(), 1);
}

TEST(RebaseTrace, RightViewPasses) {  // A4 A6 R1 R3 R4 R5 R6 R7 R8 R9
  const std::string text = read_file(source("examples/audit/traces/node_rebase_right.jsonl"));
  const Audit a = audit(text);
  EXPECT_EQ(a.report.judged, lines_of(text).size());
  EXPECT_EQ(a.report.violating, 0u);
  std::map<std::string, std::uint64_t> checked;
  for (const auto& t : a.report.clauses) checked[std::string(t.id)] = t.checked;
  for (const char* clause : {"R1", "R3", "R4", "R5", "R6", "R7", "R8", "R9"}) EXPECT_GT(checked[clause], 0u) << clause;
  EXPECT_EQ(a.report.exit_code(), 0);
}

std::string rebase_event(const std::string& session, int seq, const std::string& op, const std::string& body = "") {
  return R"({"schema":1,"contract":"rebase","session":")" + session + R"(","seq":)" + std::to_string(seq) +
         R"(,"op":")" + op + "\"" + (body.empty() ? "" : "," + body) + "}";
}

TEST(Records, EveryRebaseEventIsJudgedAgainstTheModel) {  // A3 A4 R1 R3 R4 R5 R6 R7 R8 R9
  struct Case {
    std::string line;
    std::string clause;  // "" for clean
  };
  const std::string open =
      R"("in":{"origin":[0,0],"cell_size":1000,"threshold_cells":2,"barrier_radius":0,"units_per_render_unit":1,"bubble_units":1000000})";
  // 1000.1 in render units: the nearest float is 0x1.f40ccc p+9; one ulp up is not.
  const std::vector<Case> cases = {
      {rebase_event("v", 0, "open", open), ""},
      {rebase_event("v", 1, "to_render", R"("in":{"cell":[1,0],"offset":[0.1,0.0]},"out":{"at":["0x1.f40cccp+9",0.0],"version":0})"), ""},
      {rebase_event("v", 2, "to_render", R"("in":{"cell":[1,0],"offset":[0.1,0.0]},"out":{"at":["0x1.f40ccep+9",0.0],"version":0})"), "R4"},
      {rebase_event("v", 3, "to_render", R"("in":{"cell":[2000,0],"offset":[0.0,0.0]},"out":{"at":[2000000.0,0.0],"version":0})"), "R5"},
      {rebase_event("v", 4, "to_render", R"("in":{"cell":[0,0],"offset":[1000.0,0.0]},"out":{"at":[1000.0,0.0],"version":0})"), "R1"},
      {rebase_event("v", 5, "to_render", R"("in":{"cell":[0,0],"offset":[1.0,0.0]},"out":{"at":[1.0,0.0],"version":3})"), "R3"},
      {rebase_event("v", 6, "plan", R"("in":{"cell":[5,0],"offset":[0.0,0.0]},"out":{"none":true})"), "R6"},  // far; must plan or refuse
      {rebase_event("v", 7, "plan", R"("in":{"cell":[5,0],"offset":[0.0,0.0]},"out":{"error":"FailedPrecondition"})"), ""},
      {rebase_event("v", 8, "load", R"("in":{"cell":[5,0]})"), ""},
      {rebase_event("v", 9, "plan", R"("in":{"cell":[5,0],"offset":[0.0,0.0]},"out":{"from":[0,0],"target":[5,0],"version":0})"), ""},
      {rebase_event("v", 10, "plan", R"("in":{"cell":[5,0],"offset":[0.0,0.0]},"out":{"from":[0,0],"target":[5,0],"version":1})"), "R8"},
      {rebase_event("v", 11, "commit", R"("in":{"from":[0,0],"target":[5,0],"version":0},"out":{"origin":[5,0],"version":1})"), ""},
      {rebase_event("v", 12, "commit", R"("in":{"from":[0,0],"target":[5,0],"version":0},"out":{"origin":[5,0],"version":2})"), "R8"},  // replayed
      {rebase_event("v", 13, "late", R"("in":{"cell":[5,0],"offset":[2.5,0.0],"started_version":0,"placement":"baked"},"out":{"at":[2.5,0.0],"version":1})"), "R9"},
      {rebase_event("v", 14, "late", R"("in":{"cell":[5,0],"offset":[2.5,0.0],"started_version":0,"placement":"relocatable"},"out":{"at":[2.5,0.0],"version":1})"), ""},
      {rebase_event("v", 15, "late", R"("in":{"cell":[5,0],"offset":[2.5,0.0],"started_version":0,"placement":"baked"},"out":{"error":"Aborted"})"), ""},
      {rebase_event("v", 16, "view", R"("out":{"origin":[5,0],"version":1,"loaded":[[5,0]]})"), ""},
      {rebase_event("v", 17, "view", R"("out":{"origin":[5,0],"version":1,"loaded":[]})"), "R7"},
      {rebase_event("v", 18, "end"), ""},
  };
  std::string text;
  for (const Case& c : cases) text += c.line + "\n";
  const Audit a = audit(text);
  EXPECT_EQ(a.report.bad, 0u) << (a.report.bad_examples.empty() ? "" : a.report.bad_examples[0].reason);
  std::map<std::uint64_t, std::string> want;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (!cases[i].clause.empty()) want[i + 1] = cases[i].clause;
  }
  EXPECT_EQ(violations(a.report), want);
}

TEST(Records, RebaseViewIdsAndSimulationStepsAreJudged) {  // R12 R13
  struct Case {
    std::string line;
    std::string clause;  // "" for clean
  };
  const std::string open =
      R"("in":{"origin":[0,0],"cell_size":1000,"threshold_cells":2,"barrier_radius":0,"units_per_render_unit":1,"bubble_units":1000000,"view":7})";
  const std::vector<Case> cases = {
      {rebase_event("v", 0, "open", open), ""},
      {rebase_event("v", 1, "to_render", R"("in":{"cell":[0,0],"offset":[1.0,0.0]},"out":{"at":[1.0,0.0],"version":0,"view":7})"), ""},
      {rebase_event("v", 2, "to_render", R"("in":{"cell":[0,0],"offset":[1.0,0.0]},"out":{"at":[1.0,0.0],"version":0,"view":8})"), "R12"},
      {rebase_event("v", 3, "load", R"("in":{"cell":[5,0]})"), ""},
      {rebase_event("v", 4, "plan", R"("in":{"cell":[5,0],"offset":[0.0,0.0]},"out":{"from":[0,0],"target":[5,0],"version":0,"view":8})"), "R12"},
      {rebase_event("v", 5, "plan", R"("in":{"cell":[5,0],"offset":[0.0,0.0]},"out":{"from":[0,0],"target":[5,0],"version":0})"), ""},
      {rebase_event("v", 6, "commit", R"("in":{"from":[0,0],"target":[5,0],"version":0,"view":8},"out":{"origin":[5,0],"version":1})"), "R12"},
      {rebase_event("v", 7, "view", R"("out":{"origin":[0,0],"version":0,"loaded":[[5,0]]})"), ""},
      {rebase_event("v", 8, "commit", R"("in":{"from":[0,0],"target":[5,0],"version":0,"view":8},"out":{"error":"InvalidArgument"})"), ""},
      {rebase_event("v", 9, "begin_step", R"("out":{})"), ""},
      {rebase_event("v", 10, "begin_step", R"("out":{})"), "R13"},  // nested: must be refused
      {rebase_event("v", 11, "commit", R"("in":{"from":[0,0],"target":[5,0],"version":0},"out":{"origin":[5,0],"version":1})"), "R13"},
      {rebase_event("v", 12, "view", R"("out":{"origin":[0,0],"version":0,"loaded":[[5,0]]})"), ""},
      {rebase_event("v", 13, "commit", R"("in":{"from":[0,0],"target":[5,0],"version":0},"out":{"error":"Unavailable"})"), ""},
      {rebase_event("v", 14, "end_step", R"("out":{})"), ""},
      {rebase_event("v", 15, "end_step", R"("out":{"error":"FailedPrecondition"})"), ""},
      {rebase_event("v", 16, "commit", R"("in":{"from":[0,0],"target":[5,0],"version":0},"out":{"origin":[5,0],"version":1})"), ""},
      {rebase_event("v", 17, "late", R"("in":{"cell":[5,0],"offset":[2.5,0.0],"started_version":1,"placement":"relocatable","view":8},"out":{"at":[2.5,0.0],"version":1})"), "R12"},
      {rebase_event("v", 18, "late", R"("in":{"cell":[5,0],"offset":[2.5,0.0],"started_version":1,"placement":"relocatable","view":8},"out":{"error":"InvalidArgument"})"), ""},
      {rebase_event("v", 19, "late", R"("in":{"cell":[5,0],"offset":[2.5,0.0],"started_version":1,"placement":"relocatable"},"out":{"at":[2.5,0.0],"version":1})"), ""},
      {rebase_event("v", 20, "end"), ""},
  };
  std::string text;
  for (const Case& c : cases) text += c.line + "\n";
  const Audit a = audit(text);
  EXPECT_EQ(a.report.bad, 0u) << (a.report.bad_examples.empty() ? "" : a.report.bad_examples[0].reason);
  std::map<std::uint64_t, std::string> want;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (!cases[i].clause.empty()) want[i + 1] = cases[i].clause;
  }
  EXPECT_EQ(violations(a.report), want);
}

// The boxes of a find_pairs record (re-parsed here with simdjson's DOM), and whether two of them only
// touch: overlap as closed boxes but not as open ones.
bool has_touching_pair(const std::string& line) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  simdjson::dom::array boxes;
  if (parser.parse(line).get(root) != simdjson::SUCCESS || root["in"]["boxes"].get_array().get(boxes) != simdjson::SUCCESS) {
    ADD_FAILURE() << "unexpected fixture line: " << line;
    return false;
  }
  std::vector<std::vector<double>> b;
  for (simdjson::dom::element box : boxes) {
    simdjson::dom::array bounds;
    if (box.get_array().get(bounds) != simdjson::SUCCESS) {
      ADD_FAILURE() << "a box is not an array: " << line;
      return false;
    }
    std::vector<double> v;
    for (simdjson::dom::element x : bounds) {
      double d = 0;
      if (x.get_double().get(d) != simdjson::SUCCESS) ADD_FAILURE() << "a bound is not a real: " << line;
      v.push_back(d);
    }
    b.push_back(v);
  }
  for (std::size_t i = 0; i < b.size(); ++i) {
    for (std::size_t j = i + 1; j < b.size(); ++j) {
      const std::size_t dims = b[i].size() / 2;
      bool closed = true;
      bool open = true;
      for (std::size_t d = 0; d < dims; ++d) {
        closed = closed && b[i][d] <= b[j][dims + d] && b[j][d] <= b[i][dims + d];
        open = open && b[i][d] < b[j][dims + d] && b[j][d] < b[i][dims + d];
      }
      if (closed && !open) return true;
    }
  }
  return false;
}

TEST(BroadphaseTrace, StrictOverlapTestIsFlaggedAsB1WhereBoxesTouch) {  // A4 B1
  const std::string text = read_file(source("examples/audit/traces/node_broadphase_strict.jsonl"));
  const std::vector<std::string> lines = lines_of(text);
  std::map<std::uint64_t, std::string> want;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (has_touching_pair(lines[i])) want[i + 1] = "B1";
  }
  const Audit a = audit(text);
  EXPECT_EQ(a.report.bad, 0u);
  EXPECT_EQ(a.report.judged, lines.size());
  EXPECT_EQ(violations(a.report), want);
  EXPECT_GT(want.size(), 5u);
  EXPECT_LT(want.size(), lines.size());  // records without a contact are right even with the strict test
  const Counterexample* c = example_at(a.report, 1);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->message.rfind("B1 completeness: ", 0), 0u) << c->message;
  EXPECT_NE(c->message.find("overlapping pairs were not reported; the first, (0, 1), boxes"), std::string::npos)
      << c->message;
  EXPECT_EQ(a.report.exit_code(), 1);
}

TEST(BroadphaseTrace, ClosedOverlapTestPasses) {  // A4 A6 B1 B2 B3 B4
  const std::string text = read_file(source("examples/audit/traces/node_broadphase_right.jsonl"));
  const Audit a = audit(text);
  EXPECT_EQ(a.report.judged, lines_of(text).size());
  EXPECT_EQ(a.report.violating, 0u);
  EXPECT_EQ(a.report.exit_code(), 0);
}

std::string pairs_record(const std::string& boxes, const std::string& pairs) {
  return R"({"schema":1,"contract":"broadphase","op":"find_pairs","in":{"boxes":)" + boxes + R"(},"out":{"pairs":)" +
         pairs + "}}";
}

TEST(Records, EveryBroadphaseAnswerIsJudgedByTheOracle) {  // A4 B1 B2 B3 B4 B10
  struct Case {
    std::string line;
    std::string clause;  // "" for clean
  };
  const std::string three = "[[0,0,1,1],[1,0,2,1],[5,5,6,6]]";
  const std::vector<Case> cases = {
      {pairs_record(three, "[[0,1]]"), ""},
      {pairs_record(three, "[]"), "B1"},
      {pairs_record(three, "[[0,1],[1,2]]"), "B2"},
      {pairs_record(three, "[[0,1],[0,7]]"), "B2"},
      {pairs_record(three, "[[0,1],[-1,0]]"), "B2"},
      {pairs_record(three, "[[1,0]]"), "B3"},
      {pairs_record(three, "[[0,1],[0,1]]"), "B3"},
      {pairs_record("[[0,0,0,1,1,1],[1,1,1,2,2,2],[0,0,0,3,3,3]]", "[[1,2],[0,1],[0,2]]"), "B4"},
      {pairs_record("[[0,0,0,1,1,1],[1,1,1,2,2,2],[0,0,0,3,3,3]]", "[[0,1],[0,2],[1,2]]"), ""},
      {pairs_record("[]", "[]"), ""},
      {R"({"schema":1,"contract":"broadphase","op":"query","in":{"boxes":[[0,0,1,1],[1,0,2,1]],"probe":[1,0,1,0]},"out":{"ids":[0,1]}})", ""},
      {R"({"schema":1,"contract":"broadphase","op":"query","in":{"boxes":[[0,0,1,1],[1,0,2,1]],"probe":[1,0,1,0]},"out":{"ids":[1]}})", "B10"},
  };
  std::string text;
  for (const Case& c : cases) text += c.line + "\n";
  const Audit a = audit(text);
  EXPECT_EQ(a.report.bad, 0u) << (a.report.bad_examples.empty() ? "" : a.report.bad_examples[0].reason);
  std::map<std::uint64_t, std::string> want;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (!cases[i].clause.empty()) want[i + 1] = cases[i].clause;
  }
  EXPECT_EQ(violations(a.report), want);
}

// ---------------------------------------------------------------------------------------------------
// The persistent grid's sessions (broadphase grid_* events, E-clauses)

TEST(GridTrace, RightEngineTracePasses) {  // A4 A6 E1 E3 E7 E8 E11
  const std::string text = read_file(source("examples/audit/traces/grid_right.jsonl"));
  const Audit a = audit(text);
  EXPECT_EQ(a.report.bad, 0u) << (a.report.bad_examples.empty() ? "" : a.report.bad_examples[0].reason);
  EXPECT_EQ(a.report.judged, lines_of(text).size());
  EXPECT_EQ(a.report.violating, 0u);
  std::map<std::string, std::uint64_t> checked;
  for (const auto& t : a.report.clauses) checked[std::string(t.id)] = t.checked;
  for (const char* clause : {"E1", "E3", "E7", "E8", "E11"}) EXPECT_GT(checked[clause], 0u) << clause;
  EXPECT_EQ(a.report.exit_code(), 0);
}

TEST(GridTrace, IgnoringSetFilterIsFlaggedAsE8ThenItsKnockOnAsE1) {  // A4 E1 E8
  // The engine applies a box's filter at its add only: the set_filter of line 8 admits the overlapping
  // pairs (10, 12) and (11, 12), which the update of line 9 must begin (E8); the update of line 13 then
  // ends only (10, 11), right by the engine's own pair set, so its missing ends follow line 9.
  const std::string text = read_file(source("examples/audit/traces/grid_ignores_set_filter.jsonl"));
  const Audit a = audit(text);
  EXPECT_EQ(a.report.bad, 0u);
  EXPECT_EQ(a.report.judged, lines_of(text).size());
  EXPECT_EQ(violations(a.report), (std::map<std::uint64_t, std::string>{{9, "E8"}, {13, "E1"}}));
  const Counterexample* root = example_at(a.report, 9);
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->follows, 0u);
  EXPECT_NE(root->message.find("began (10, 12) missing: the filter change admits the overlapping pair"), std::string::npos)
      << root->message;
  const Counterexample* knock_on = example_at(a.report, 13);
  ASSERT_NE(knock_on, nullptr);
  EXPECT_EQ(knock_on->follows, 9u);
  EXPECT_NE(knock_on->message.find("ended (11, 12) missing: a box was removed"), std::string::npos) << knock_on->message;
  EXPECT_EQ(a.report.root_causes, 1u);
  EXPECT_EQ(a.report.exit_code(), 1);
}

std::string grid_event(const std::string& session, int seq, const std::string& op, const std::string& body = "") {
  return R"({"schema":1,"contract":"broadphase","session":")" + session + R"(","seq":)" + std::to_string(seq) +
         R"(,"op":")" + op + "\"" + (body.empty() ? "" : "," + body) + "}";
}

// One short session: create a 2-D grid (h = 1), add ids 1 and 2 overlapping (payloads 7 and 8) and 3 far
// away, commit them (began (1, 2)), then `tail`, each line with the clause it must violate ("" if none).
struct GridCase {
  std::string op;
  std::string body;
  std::string clause;
};

std::vector<std::pair<std::string, std::string>> grid_session(const std::string& name, const std::vector<GridCase>& tail) {
  std::vector<std::pair<std::string, std::string>> lines = {
      {grid_event(name, 0, "grid_create", R"("in":{"dims":2,"h":1.0})"), ""},
      {grid_event(name, 1, "grid_add", R"("in":{"id":1,"box":[0,0,1,1],"user":7},"out":{})"), ""},
      {grid_event(name, 2, "grid_add", R"("in":{"id":2,"box":[1,1,2,2],"user":8},"out":{})"), ""},
      {grid_event(name, 3, "grid_add", R"("in":{"id":3,"box":[9,9,10,10]},"out":{})"), ""},
      {grid_event(name, 4, "grid_update", R"("out":{"began":[[2,1]],"ended":[]})"), ""},
  };
  for (const GridCase& c : tail) lines.push_back({grid_event(name, static_cast<int>(lines.size()), c.op, c.body), c.clause});
  lines.push_back({grid_event(name, static_cast<int>(lines.size()), "grid_end"), ""});
  return lines;
}

TEST(Records, EveryGridEventIsJudgedAgainstTheModel) {  // A4 B6 E1 E3 E7 E8 E11
  const std::vector<std::vector<std::pair<std::string, std::string>>> sessions = {
      // Right: separation ends the pair, a touch begins one, payloads as now and as at the last update.
      grid_session("right", {{"grid_move", R"("in":{"id":2,"box":[3,3,4,4]},"out":{})", ""},
                             {"grid_move", R"("in":{"id":3,"box":[4,4,5,5]},"out":{})", ""},
                             {"grid_update", R"("out":{"began":[[2,3,8,0]],"ended":[[1,2,7,8]]})", ""},
                             {"grid_query", R"("in":{"box":[3.5,3.5,4,4]},"out":{"ids":[3,2]})", ""}}),
      // A contact that begins is missed (E1).
      grid_session("missed", {{"grid_move", R"("in":{"id":3,"box":[0,0,0.5,0.5]},"out":{})", ""},
                              {"grid_update", R"("out":{"began":[],"ended":[]})", "E1"}}),
      // A pair reported twice in one update, as (1, 3) and (3, 1) (E1).
      grid_session("twice", {{"grid_move", R"("in":{"id":3,"box":[0,0,0.5,0.5]},"out":{})", ""},
                             {"grid_update", R"("out":{"began":[[1,3],[3,1]],"ended":[]})", "E1"}}),
      // A contact that began already begins again (E1).
      grid_session("again", {{"grid_move", R"("in":{"id":1,"box":[0,0,1.5,1.5]},"out":{})", ""},
                             {"grid_update", R"("out":{"began":[[1,2]],"ended":[]})", "E1"}}),
      // A pair whose boxes do not overlap (E1).
      grid_session("apart", {{"grid_update", R"("out":{"began":[[1,3]],"ended":[]})", "E1"}}),
      // Separated boxes whose pair is not ended (E1), and a removed box whose pair is not ended (E1).
      grid_session("separated", {{"grid_move", R"("in":{"id":2,"box":[5,5,6,6]},"out":{})", ""},
                                 {"grid_update", R"("out":{"began":[],"ended":[]})", "E1"}}),
      grid_session("removed", {{"grid_remove", R"("in":{"id":1},"out":{})", ""},
                               {"grid_update", R"("out":{})", "E1"}}),
      // A pair the filters refuse is reported (E8); a filter change that refuses a contact must end it (E8).
      grid_session("filtered", {{"grid_add", R"("in":{"id":4,"box":[0,0,1,1],"group":2,"mask":2},"out":{})", ""},
                                {"grid_update", R"("out":{"began":[[1,4]],"ended":[]})", "E8"}}),
      grid_session("refiltered", {{"grid_set_filter", R"("in":{"id":2,"group":2,"mask":2},"out":{})", ""},
                                  {"grid_update", R"("out":{"began":[],"ended":[]})", "E8"}}),
      // Ids that are not live: an event naming one (E3), a move of a removed id that succeeds (E3), one
      // that is refused (right), a remove of a live id that is refused (E3).
      grid_session("stale", {{"grid_update", R"("out":{"began":[[1,99]],"ended":[]})", "E3"},
                             {"grid_remove", R"("in":{"id":3},"out":{})", ""},
                             {"grid_move", R"("in":{"id":3,"box":[0,0,1,1]},"out":{})", "E3"},
                             {"grid_move", R"("in":{"id":3,"box":[0,0,1,1]},"out":{"error":"NotFound"})", ""},
                             {"grid_remove", R"("in":{"id":1},"out":{"error":"NotFound"})", "E3"}}),
      // Payloads: ended carries the payload as at the last update, not the one set since (E7).
      grid_session("payload", {{"grid_set_user", R"("in":{"id":1,"user":70},"out":{})", ""},
                               {"grid_move", R"("in":{"id":2,"box":[5,5,6,6]},"out":{})", ""},
                               {"grid_update", R"("out":{"began":[],"ended":[[1,2,70,8]]})", "E7"}}),
      // A query answers on the boxes as last given, before the update (E11).
      grid_session("query", {{"grid_move", R"("in":{"id":3,"box":[0,0,0.5,0.5]},"out":{})", ""},
                             {"grid_query", R"("in":{"box":[0,0,0.25,0.25]},"out":{"ids":[1]})", "E11"}}),
      // An invalid box must be refused (B6), and is judged so when it is.
      grid_session("invalid", {{"grid_add", R"("in":{"id":5,"box":[1,0,0,1]},"out":{})", "B6"},
                               {"grid_add", R"("in":{"id":6,"box":[0,0,"NaN",1]},"out":{"error":"InvalidArgument"})", ""}}),
  };
  std::string text;
  std::map<std::uint64_t, std::string> want;
  std::uint64_t line = 0;
  for (const auto& session : sessions) {
    for (const auto& [record, clause] : session) {
      text += record + "\n";
      ++line;
      if (!clause.empty()) want[line] = clause;
    }
  }
  const Audit a = audit(text);
  EXPECT_EQ(a.report.bad, 0u) << (a.report.bad_examples.empty() ? "" : a.report.bad_examples[0].reason);
  EXPECT_EQ(a.report.judged, line);
  EXPECT_EQ(violations(a.report), want);
  for (const auto& [l, clause] : want) {
    const Counterexample* c = example_at(a.report, l);
    ASSERT_NE(c, nullptr) << l;
    EXPECT_EQ(c->message.rfind(clause + " ", 0), 0u) << c->message;
  }
}

TEST(Records, GridEventsAndStatelessBroadphaseRecordsMix) {  // A1
  // find_pairs and query carry no session; the grid's events do, in the same contract.
  const std::string text = pairs_record("[[0,0,1,1],[1,0,2,1]]", "[[0,1]]") + "\n" +
                           grid_event("g", 0, "grid_create", R"("in":{"dims":3,"h":0.5})") + "\n" +
                           pairs_record("[[0,0,1,1],[1,0,2,1]]", "[]") + "\n" +
                           grid_event("g", 1, "grid_add", R"("in":{"id":-4,"box":[0,0,0,1,1,1]},"out":{})") + "\n" +
                           grid_event("g", 2, "grid_add", R"("in":{"id":9223372036854775807,"box":[1,1,1,2,2,2]},"out":{})") + "\n" +
                           grid_event("g", 3, "grid_update", R"("out":{"began":[[9223372036854775807,-4]]})") + "\n" +
                           grid_event("g", 4, "grid_end") + "\n";
  const Audit a = audit(text);
  EXPECT_EQ(a.report.bad, 0u) << (a.report.bad_examples.empty() ? "" : a.report.bad_examples[0].reason);
  EXPECT_EQ(a.report.judged, 7u);
  EXPECT_EQ(violations(a.report), (std::map<std::uint64_t, std::string>{{3, "B1"}}));
}

// ---------------------------------------------------------------------------------------------------
// Regenerating the fixtures (node and gcc are not on a fresh Debian: skipped there, visibly)

bool have(const char* tool) {
  return std::system((std::string("command -v ") + tool + " >/dev/null 2>&1").c_str()) == 0;
}

std::string run(const std::string& command) {
  std::string out;
  std::FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return out;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
  EXPECT_EQ(pclose(pipe), 0) << command;
  return out;
}

TEST(Tracers, NodeRegeneratesItsCommittedTraces) {
  if (!have("node")) GTEST_SKIP() << "node is not installed: the committed traces are audited, not regenerated";
  const std::string tracer = source("examples/audit/node/split_tracer.js");
  EXPECT_EQ(run("node " + tracer + " naive"), read_file(source("examples/audit/traces/node_naive.jsonl")));
  EXPECT_EQ(run("node " + tracer + " bigint"), read_file(source("examples/audit/traces/node_bigint.jsonl")));
  const std::string committer = source("examples/audit/node/commit_tracer.js");
  EXPECT_EQ(run("node " + committer + " right"), read_file(source("examples/audit/traces/node_commit_right.jsonl")));
  EXPECT_EQ(run("node " + committer + " clears_on_failure"),
            read_file(source("examples/audit/traces/node_commit_clears_on_failure.jsonl")));
  const std::string broadphase = source("examples/audit/node/broadphase_tracer.js");
  EXPECT_EQ(run("node " + broadphase + " right"), read_file(source("examples/audit/traces/node_broadphase_right.jsonl")));
  EXPECT_EQ(run("node " + broadphase + " strict"), read_file(source("examples/audit/traces/node_broadphase_strict.jsonl")));
  const std::string view = source("examples/audit/node/rebase_tracer.js");
  EXPECT_EQ(run("node " + view + " right"), read_file(source("examples/audit/traces/node_rebase_right.jsonl")));
  EXPECT_EQ(run("node " + view + " barrier_at_plan"),
            read_file(source("examples/audit/traces/node_rebase_barrier_at_plan.jsonl")));
}

TEST(Tracers, ClangFastMathAndPreciseBuildsRegenerateTheirCommittedTraces) {
  // clang-19 is the tree's own compiler (./lwc setup installs it). The fast-math trace is what clang-19's
  // -ffast-math makes of the engine's validation: another compiler or version may fold it otherwise.
  if (!have("clang-19")) GTEST_SKIP() << "clang-19 is not installed: the committed traces are audited, not regenerated";
  const std::string tracer = source("examples/audit/c/broadphase_tracer.c");
  const std::string precise = ::testing::TempDir() + "lwc_broadphase_tracer_precise";
  const std::string fast = ::testing::TempDir() + "lwc_broadphase_tracer_fast_math";
  ASSERT_EQ(std::system(("clang-19 -std=c11 -O2 -Wall -Wextra -Werror -o " + precise + " " + tracer).c_str()), 0);
  ASSERT_EQ(std::system(("clang-19 -std=c11 -O2 -ffast-math -Wall -Wextra -Werror -Wno-nan-infinity-disabled -o " + fast +
                         " " + tracer)
                            .c_str()),
            0);
  EXPECT_EQ(run(precise), read_file(source("examples/audit/traces/c_broadphase_precise.jsonl")));
  EXPECT_EQ(run(fast), read_file(source("examples/audit/traces/c_broadphase_fast_math.jsonl")));
}

TEST(Tracers, CRegeneratesItsCommittedTraces) {
  if (!have("gcc")) GTEST_SKIP() << "gcc is not installed: the committed traces are audited, not regenerated";
  const std::string binary = ::testing::TempDir() + "lwc_split_tracer";
  ASSERT_EQ(std::system(("gcc -std=c11 -O2 -Wall -Wextra -Werror -o " + binary + " " +
                         source("examples/audit/c/split_tracer.c"))
                            .c_str()),
            0);
  EXPECT_EQ(run(binary + " split"), read_file(source("examples/audit/traces/c_truncating.jsonl")));
  EXPECT_EQ(run(binary + " save"), read_file(source("examples/audit/traces/c_save.jsonl")));
  const std::string cover = ::testing::TempDir() + "lwc_cover_tracer";
  ASSERT_EQ(std::system(("gcc -std=c11 -O2 -Wall -Wextra -Werror -o " + cover + " " +
                         source("examples/audit/c/cover_tracer.c"))
                            .c_str()),
            0);
  EXPECT_EQ(run(cover + " right"), read_file(source("examples/audit/traces/c_cover_right.jsonl")));
  EXPECT_EQ(run(cover + " off_by_one"), read_file(source("examples/audit/traces/c_cover_off_by_one.jsonl")));
  // The floor mode, used for the 10 M-record measurement, is clean.
  const Audit a = audit(run(binary + " floor 2000"));
  EXPECT_EQ(a.report.judged, 2000u);
  EXPECT_EQ(a.report.exit_code(), 0);
}

// ---------------------------------------------------------------------------------------------------
// Bad input: reported with its line number, counted by kind, and the rest still audited (A1)

constexpr char kGood[] =
    R"({"schema":1,"contract":"decompose","op":"split","in":{"x":-1,"size":1000},"out":{"chunk":-1,"local":999}})";

std::string split_record(const std::string& x, const std::string& size, const std::string& chunk,
                         const std::string& local) {
  return R"({"schema":1,"contract":"decompose","op":"split","in":{"x":)" + x + R"(,"size":)" + size +
         R"(},"out":{"chunk":)" + chunk + R"(,"local":)" + local + "}}";
}

struct BadCase {
  std::string line;
  BadKind kind;
  std::string reason;  // a substring of the reported reason
};

// The cases' text, each case's lines followed by a good record, and the line number of each case's last
// (bad) line; lines before it in a case are good.
struct CasesText {
  std::string text;
  std::vector<std::uint64_t> bad_lines;
};
CasesText cases_text(const std::vector<BadCase>& cases) {
  CasesText out;
  std::uint64_t line = 0;
  for (const BadCase& c : cases) {
    line += lines_of(c.line).size();
    out.bad_lines.push_back(line);
    out.text += c.line + "\n" + kGood + "\n";
    ++line;
  }
  return out;
}

TEST(BadInput, EachKindIsReportedWithItsLineAndTheRestIsAudited) {  // A1 A2
  const std::vector<BadCase> cases = {
      {"not json", BadKind::kMalformed, "not JSON"},
      {R"({"schema":1,"contract":"decompose")", BadKind::kMalformed, "not JSON"},
      {"[1, 2]", BadKind::kMalformed, "a record is a JSON object"},
      {"\xff\xfe{}", BadKind::kMalformed, "not JSON"},
      {split_record("9.2e18", "1000", "0", "0"), BadKind::kInexactNumber, "in.x = 9.2e+18 is a real-number literal"},
      {split_record("-1.0", "1000", "-1", "999"), BadKind::kInexactNumber, "in.x = -1 is a real-number literal"},
      {split_record("9223372036854775808", "1000", "0", "0"), BadKind::kInexactNumber, "in.x = 9223372036854775808 is beyond int64"},
      {split_record("-9223372036854775809", "1000", "0", "0"), BadKind::kInexactNumber, "in.x = -9223372036854775809 is beyond int64"},
      {split_record("1", "1000", "0", "123456789012345678901234567890"), BadKind::kInexactNumber, "out.local = 123456789012345678901234567890 is beyond int64"},
      {split_record("1", "1e400", "0", "0"), BadKind::kInexactNumber, "in.size = 1e400 is outside double"},
      {split_record("01", "1000", "0", "1"), BadKind::kMalformed, "in.x = 01 is not JSON number syntax"},
      {split_record("\"5\"", "1000", "0", "5"), BadKind::kBadField, "in.x is \"5\", not an integer"},
      {R"({"schema":1,"contract":"decompose","op":"split","in":{"size":1000},"out":{"chunk":0,"local":0}})", BadKind::kMissingField, "missing field in.x"},
      {R"({"schema":1,"contract":"decompose","op":"split","in":{"x":1,"size":1000}})", BadKind::kMissingField, "missing field out.chunk"},
      {R"({"contract":"decompose","op":"split","in":{"x":1,"size":1000},"out":{"chunk":0,"local":1}})", BadKind::kSchema, "missing \"schema\""},
      {R"({"schema":2,"contract":"decompose","op":"split"})", BadKind::kSchema, "schema 2 is not supported"},
      {R"({"schema":1,"contract":"teleport","op":"split"})", BadKind::kUnknownContract, "unknown contract \"teleport\" (this lwc-audit knows: decompose, cover, broadphase, commit, rebase)"},
      {R"({"schema":1,"op":"split"})", BadKind::kUnknownContract, "missing \"contract\""},
      {R"({"schema":1,"contract":"decompose","op":"divide"})", BadKind::kUnknownOp, "decompose has no op \"divide\" (ops: split, split_axes, split_all, cell_of, stored)"},
      {R"({"schema":1,"contract":"decompose","op":"split","in":{"x":1,"x":-1,"size":1000},"out":{"chunk":0,"local":1}})", BadKind::kMalformed, "duplicate key \"x\" in in"},
      {R"({"schema":1,"schema":1,"contract":"decompose"})", BadKind::kMalformed, "duplicate key \"schema\""},
      {R"({"schema":1,"contract":"decompose","op":"split","in":{"x":1,"size":1000},"out":{"chunk":0,"local":1,"error":"no"}})", BadKind::kBadField, "out has both an error and a chunk"},
      {R"({"schema":1,"contract":"decompose","op":"cell_of","in":{"v":"0x1p","h":1},"out":{"cell":0}})", BadKind::kBadField, "in.v = \"0x1p\" is not a real"},
      {R"({"schema":1,"contract":"decompose","op":"cell_of","in":{"v":9007199254740993,"h":1},"out":{"cell":0}})", BadKind::kInexactNumber, "in.v = 9007199254740993 is not exactly a double"},
      {R"({"schema":1,"contract":"decompose","op":"cell_of","in":{"v":1,"h":1},"out":{"error":""}})", BadKind::kBadField, "out.error is empty"},
  };
  // Each bad line is followed by a good record, so line 2k + 1 is bad and line 2k + 2 is judged.
  std::string text;
  for (const BadCase& c : cases) text += c.line + "\n" + kGood + "\n";
  const Audit a = audit(text);
  EXPECT_EQ(a.report.lines, 2 * cases.size());
  EXPECT_EQ(a.report.bad, cases.size());
  EXPECT_EQ(a.report.judged, cases.size());
  EXPECT_EQ(a.report.violating, 0u);
  ASSERT_EQ(a.report.bad_examples.size(), cases.size());
  std::uint64_t by_kind[lwc::audit::kBadKinds] = {};
  for (std::size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(a.report.bad_examples[i].line, 2 * i + 1);
    EXPECT_NE(a.report.bad_examples[i].reason.find(cases[i].reason), std::string::npos)
        << "line " << 2 * i + 1 << ": " << a.report.bad_examples[i].reason;
    ++by_kind[static_cast<int>(cases[i].kind)];
  }
  for (int k = 0; k < lwc::audit::kBadKinds; ++k) {
    EXPECT_EQ(a.report.bad_by_kind[k], by_kind[k]) << lwc::audit::bad_kind_name(static_cast<BadKind>(k));
  }
  EXPECT_EQ(a.report.exit_code(), 2);
}

TEST(BadInput, CoverRecordsThatCannotBeReadAreReportedWithTheirLine) {  // A1 A2
  const std::string in = R"("min":0,"max_exclusive":10,"size":1000)";
  const std::vector<BadCase> cases = {
      {cover_record(R"("min":0,"size":1000)", R"("first":0,"last":0)"), BadKind::kMissingField, "missing field in.max_exclusive"},
      {cover_record(R"("min":0,"max_exclusive":1,"max_inclusive":0,"size":1000)", R"("first":0,"last":0)"), BadKind::kBadField, "both max_exclusive and max_inclusive"},
      {cover_record(R"("min":0,"max_exclusive":1e3,"size":1000)", R"("first":0,"last":0)"), BadKind::kInexactNumber, "in.max_exclusive = 1000 is a real-number literal"},
      {cover_record(in, R"("first":0)"), BadKind::kMissingField, "missing field out.last"},
      {cover_record(in, R"("first":0,"last":0,"none":true)"), BadKind::kBadField, "more than one of"},
      {cover_record(in, R"("error":"InvalidArgument","none":true)"), BadKind::kBadField, "more than one of"},
      {cover_record(in, R"("none":false)"), BadKind::kBadField, "out.none is false"},
      {cover_record(in, R"("none":1)"), BadKind::kBadField, "out.none is 1, not true or false"},
      {cover_record(in, R"("none":true,"count":0)"), BadKind::kBadField, "out.count is given without a span"},
      {cover_record(in, R"("first":0,"last":0,"count":1.0)"), BadKind::kInexactNumber, "out.count = 1 is a real-number literal"},
      {cover_record(in, R"("first":0,"last":0,"count":-1)"), BadKind::kInexactNumber, "out.count = -1 is negative"},
      {cover_record(in, R"("first":0,"last":0,"count":18446744073709551616)"), BadKind::kInexactNumber, "beyond int64 (and uint64)"},
      {cover_record(in, R"("first":0,"last":0,"count":[1])"), BadKind::kBadField, "out.count is an array, not an integer"},
      {cover_record(in, R"("first":"0","last":0)"), BadKind::kBadField, "out.first is \"0\", not an integer"},
      {R"({"schema":1,"contract":"cover","op":"cover_box"})", BadKind::kUnknownOp, "cover has no op \"cover_box\" (ops: cover)"},
  };
  std::string text;
  for (const BadCase& c : cases) text += c.line + "\n" + kGood + "\n";
  const Audit a = audit(text);
  EXPECT_EQ(a.report.bad, cases.size());
  EXPECT_EQ(a.report.judged, cases.size());
  EXPECT_EQ(a.report.violating, 0u);
  ASSERT_EQ(a.report.bad_examples.size(), cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(a.report.bad_examples[i].line, 2 * i + 1);
    EXPECT_NE(a.report.bad_examples[i].reason.find(cases[i].reason), std::string::npos)
        << "line " << 2 * i + 1 << ": " << a.report.bad_examples[i].reason;
  }
  std::uint64_t by_kind[lwc::audit::kBadKinds] = {};
  for (const BadCase& c : cases) ++by_kind[static_cast<int>(c.kind)];
  for (int k = 0; k < lwc::audit::kBadKinds; ++k) {
    EXPECT_EQ(a.report.bad_by_kind[k], by_kind[k]) << lwc::audit::bad_kind_name(static_cast<BadKind>(k));
  }
}

TEST(BadInput, EventsOutOfOrderEndTheirSessionAndAreReportedWithTheirLine) {  // A1
  const std::vector<BadCase> cases = {
      {event("s", 0, "mark", R"("in":{"cell":[0,0]})"), BadKind::kBadField, "first event must be \"open\""},
      {event("s", 1, "open", R"("in":{"chunk_size":16})"), BadKind::kBadField, "session \"s\" is no longer judged: its events broke off at line 1"},
      {event("t", 3, "open", R"("in":{"chunk_size":16})"), BadKind::kBadField, "session \"t\" begins at seq 3, not 0"},
      {event("v", 0, "open", R"("in":{"size":16})"), BadKind::kMissingField, "missing field in.chunk_size"},
      {event("w", 0, "open", R"("in":{"chunk_size":16})") + "x", BadKind::kMalformed, "not JSON"},
      {R"({"schema":1,"contract":"commit","seq":0,"op":"open","in":{"chunk_size":16}})", BadKind::kMissingField, "missing field session"},
      {R"({"schema":1,"contract":"commit","session":"x","op":"open","in":{"chunk_size":16}})", BadKind::kMissingField, "missing field seq"},
      {R"({"schema":1,"contract":"commit","session":7,"seq":0,"op":"open"})", BadKind::kBadField, "session is 7, not a string"},
      {R"({"schema":1,"contract":"commit","session":"x","seq":1e0,"op":"open"})", BadKind::kInexactNumber, "seq = 1 is a real-number literal"},
      {event("y", 0, "publish", R"("out":{"runs":[]})"), BadKind::kBadField, "first event must be \"open\""},
      {event("z", 0, "open", R"("in":{"chunk_size":16})") + "\n" + kGood + "\n" +
           event("z", 2, "commit"), BadKind::kBadField, "seq 2 where 1 is due"},
      {event("q", 0, "open", R"("in":{"chunk_size":16})") + "\n" + kGood + "\n" +
           event("q", 1, "publish", R"("out":{"runs":[]})"), BadKind::kBadField, "no commit is in progress"},
      {event("r", 0, "open", R"("in":{"chunk_size":16})") + "\n" + kGood + "\n" +
           event("r", 1, "commit") + "\n" + kGood + "\n" + event("r", 2, "prepare_failed"), BadKind::kBadField,
       "prepare_failed, but no run was prepared"},
      {event("p", 0, "open", R"("in":{"chunk_size":16})") + "\n" + kGood + "\n" +
           event("p", 1, "pending", R"("out":{"runs":[[0,1]]})"), BadKind::kBadField, "out.runs[0] is an array, not an array of 3 integers"},
      {event("o", 0, "open", R"("in":{"chunk_size":16})") + "\n" + kGood + "\n" +
           event("o", 1, "mark", R"("in":{"cell":[0,9223372036854775808]})"), BadKind::kInexactNumber, "beyond int64"},
      {event("m", 0, "open", R"("in":{"chunk_size":16})") + "\n" + kGood + "\n" +
           event("m", 1, "pending", R"("out":{"runs":[[0,-9223372036854775808,9223372036854775807]]})"),
       BadKind::kBadField, "out.runs hold more than 262144 chunks: too many to judge in bounded memory"},
      {R"({"schema":1,"contract":"commit","session":"n","seq":0,"op":"rollback"})", BadKind::kUnknownOp, "commit has no op \"rollback\" (ops: open, mark, commit, prepare, prepare_failed, publish, pending, end)"},
  };
  auto [text, bad_lines] = cases_text(cases);
  const Audit a = audit(text);
  EXPECT_EQ(a.report.bad, cases.size());
  EXPECT_EQ(a.report.violating, 0u);
  ASSERT_EQ(a.report.bad_examples.size(), cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(a.report.bad_examples[i].line, bad_lines[i]);
    EXPECT_NE(a.report.bad_examples[i].reason.find(cases[i].reason), std::string::npos)
        << "line " << bad_lines[i] << ": " << a.report.bad_examples[i].reason;
  }
  std::uint64_t by_kind[lwc::audit::kBadKinds] = {};
  for (const BadCase& c : cases) ++by_kind[static_cast<int>(c.kind)];
  for (int k = 0; k < lwc::audit::kBadKinds; ++k) {
    EXPECT_EQ(a.report.bad_by_kind[k], by_kind[k]) << lwc::audit::bad_kind_name(static_cast<BadKind>(k));
  }
}

TEST(BadInput, RebaseEventsThatCannotBeReadAreReportedWithTheirLine) {  // A1 A3
  const std::string open =
      R"("in":{"origin":[0,0,0],"cell_size":1000,"threshold_cells":2,"barrier_radius":1,"units_per_render_unit":1,"bubble_units":1000000})";
  const std::vector<BadCase> cases = {
      {rebase_event("a", 0, "open", R"("in":{"origin":[0],"cell_size":1000})"), BadKind::kBadField, "in.origin holds 1 cells, not 2 or 3"},
      {rebase_event("b", 0, "open", R"("in":{"origin":[0,0],"cell_size":1000,"threshold_cells":2,"barrier_radius":65,"units_per_render_unit":1,"bubble_units":1})"), BadKind::kBadField, "in.barrier_radius = 65 is outside [0, 64]"},
      {rebase_event("c", 0, "open", R"("in":{"origin":[0,0],"threshold_cells":2})"), BadKind::kMissingField, "missing field in.cell_size"},
      {rebase_event("c2", 0, "open", R"("in":{"origin":[0,0],"cell_size":1000,"threshold_cells":2,"barrier_radius":1,"units_per_render_unit":1,"bubble_units":1000},"out":{"error":"no"})"),
       BadKind::kBadField, "no clause judges that refusal"},
      {rebase_event("d", 0, "plan", R"("in":{"cell":[0,0],"offset":[0.0,0.0]},"out":{"none":true})"), BadKind::kBadField, "first event must be \"open\""},
      {rebase_event("e", 0, "open", open) + "\n" + kGood + "\n" +
           rebase_event("e", 1, "to_render", R"("in":{"cell":[0,0,0],"offset":[0.1,0.0,0.0]},"out":{"at":[0.1,0.0,0.0],"version":0})"),
       BadKind::kInexactNumber, "out.at[0] = 0.1 (0x1.999999999999ap-4) is not exactly a float (the nearest is 0.10000000149011612 (0x1.99999ap-4))"},
      {rebase_event("f", 0, "open", open) + "\n" + kGood + "\n" +
           rebase_event("f", 1, "to_render", R"("in":{"cell":[0,0],"offset":[0.0,0.0]},"out":{"error":"OutOfRange"})"),
       BadKind::kBadField, "in.cell holds 2 coordinates; this view has 3"},
      {rebase_event("g", 0, "open", open) + "\n" + kGood + "\n" +
           rebase_event("g", 1, "late", R"("in":{"cell":[0,0,0],"offset":[0.0,0.0,0.0],"started_version":0,"placement":"cached"},"out":{"error":"Aborted"})"),
       BadKind::kBadField, "in.placement = \"cached\" is not \"relocatable\" or \"baked\""},
      {rebase_event("h", 0, "open", open) + "\n" + kGood + "\n" +
           rebase_event("h", 1, "plan", R"("in":{"cell":[0,0,0],"offset":[0.0,0.0,0.0]},"out":{"none":true,"error":"Aborted"})"),
       BadKind::kBadField, "out must hold exactly one of"},
      {rebase_event("i", 0, "open", open) + "\n" + kGood + "\n" +
           rebase_event("i", 1, "commit", R"("in":{"from":[0,0,0],"target":[5,0,0],"version":-1},"out":{"error":"Aborted"})"),
       BadKind::kBadField, "in.version = -1 is negative"},
  };
  auto [text, bad_lines] = cases_text(cases);
  const Audit a = audit(text);
  EXPECT_EQ(a.report.bad, cases.size());
  EXPECT_EQ(a.report.violating, 0u);
  ASSERT_EQ(a.report.bad_examples.size(), cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(a.report.bad_examples[i].line, bad_lines[i]);
    EXPECT_NE(a.report.bad_examples[i].reason.find(cases[i].reason), std::string::npos)
        << "line " << bad_lines[i] << ": " << a.report.bad_examples[i].reason;
  }
  std::uint64_t by_kind[lwc::audit::kBadKinds] = {};
  for (const BadCase& c : cases) ++by_kind[static_cast<int>(c.kind)];
  for (int k = 0; k < lwc::audit::kBadKinds; ++k) {
    EXPECT_EQ(a.report.bad_by_kind[k], by_kind[k]) << lwc::audit::bad_kind_name(static_cast<BadKind>(k));
  }
}

TEST(BadInput, BroadphaseRecordsThatCannotBeReadAreReportedWithTheirLine) {  // A1 A3
  std::string many = "[";
  for (int i = 0; i < 4097; ++i) many += std::string(i > 0 ? "," : "") + "[0,0,1,1]";
  many += "]";
  const std::vector<BadCase> cases = {
      {pairs_record("[[0,0,1]]", "[]"), BadKind::kBadField, "in.boxes[0] is an array, not an array of 4 reals"},
      {pairs_record("[[0,0,1,1],[0,0,0,1,1,1]]", "[]"), BadKind::kBadField, "not an array of 4 reals"},
      {pairs_record("[[0,0,1,1]]", "[[0]]"), BadKind::kBadField, "out.pairs[0] is an array, not an array of 2 integers"},
      {pairs_record("[[0,0,1,1]]", "[[0,1.5]]"), BadKind::kInexactNumber, "out.pairs[0] = 1.5 is a real-number literal"},
      {pairs_record(many, "[]"), BadKind::kBadField, "in.boxes holds 4097 boxes; a record may hold at most 4096"},
      {R"({"schema":1,"contract":"broadphase","op":"find_pairs","in":{"boxes":[[0,0,1,1]]},"out":{"error":"budget"}})", BadKind::kBadField, "such a refusal is a budget's (B7)"},
      {R"({"schema":1,"contract":"broadphase","op":"query","in":{"boxes":[[0,0,1,1]],"probe":[0,0,1,1]},"out":{"error":"no"}})", BadKind::kBadField, "no clause lets it fail"},
      {R"({"schema":1,"contract":"broadphase","op":"query","in":{"boxes":[[0,0,1,1]],"probe":[0,0,1]},"out":{"ids":[]}})", BadKind::kBadField, "in.probe holds 3 reals; these 2-D boxes need 4"},
      {R"({"schema":1,"contract":"broadphase","op":"find_pairs","in":{"boxes":[[0,0,1,1]]},"out":{}})", BadKind::kMissingField, "missing field out.pairs"},
  };
  std::string text;
  for (const BadCase& c : cases) text += c.line + "\n" + kGood + "\n";
  const Audit a = audit(text);
  EXPECT_EQ(a.report.bad, cases.size());
  EXPECT_EQ(a.report.judged, cases.size());
  EXPECT_EQ(a.report.violating, 0u);
  ASSERT_EQ(a.report.bad_examples.size(), cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(a.report.bad_examples[i].line, 2 * i + 1);
    EXPECT_NE(a.report.bad_examples[i].reason.find(cases[i].reason), std::string::npos)
        << "line " << 2 * i + 1 << ": " << a.report.bad_examples[i].reason;
  }
}

TEST(BadInput, GridEventsThatCannotBeReadAreReportedWithTheirLine) {  // A1 A2
  // Each case is a session of its own; its last line is the bad one. A bad event ends its session's
  // judging, so nothing after it is judged wrong because of it (the next line, kGood, is judged).
  const std::string create = R"("in":{"dims":2,"h":1.0})";
  const std::string add = R"("in":{"id":1,"box":[0,0,1,1]},"out":{})";
  const std::vector<BadCase> cases = {
      {grid_event("a", 0, "grid_add", add), BadKind::kBadField, "first event must be \"grid_create\""},
      {grid_event("b", 0, "grid_create", R"("in":{"dims":4,"h":1.0})"), BadKind::kBadField, "in.dims = 4 is not 2 or 3"},
      {grid_event("c", 0, "grid_create", R"("in":{"dims":2,"h":1.0},"out":{"error":"no memory"})"), BadKind::kBadField, "no clause lets it fail"},
      {grid_event("d", 0, "grid_create", R"("in":{"dims":2})"), BadKind::kMissingField, "missing field in.h"},
      {grid_event("e", 0, "grid_create", create) + "\n" + grid_event("e", 1, "grid_add", R"("in":{"box":[0,0,1,1]},"out":{})"),
       BadKind::kMissingField, "missing field in.id"},
      {grid_event("f", 0, "grid_create", create) + "\n" + grid_event("f", 1, "grid_add", R"("in":{"id":1,"box":[0,0,1]},"out":{})"),
       BadKind::kBadField, "in.box holds 3 reals; this 2-D grid needs 4"},
      {grid_event("g", 0, "grid_create", create) + "\n" + grid_event("g", 1, "grid_add", add) + "\n" +
           grid_event("g", 2, "grid_add", add),
       BadKind::kBadField, "in.id 1 is live already (added at line"},
      {grid_event("h", 0, "grid_create", create) + "\n" + grid_event("h", 1, "grid_add", R"("in":{"id":1.0,"box":[0,0,1,1]},"out":{})"),
       BadKind::kInexactNumber, "is a real-number literal"},
      {grid_event("i", 0, "grid_create", create) + "\n" + grid_event("i", 1, "grid_update", R"("out":{"began":[[1]]})"),
       BadKind::kBadField, "out.began[0] is an array, not an array of 2 integers"},
      {grid_event("j", 0, "grid_create", create) + "\n" + grid_event("j", 1, "grid_update", R"("out":{"error":"ResourceExhausted","began":[]})"),
       BadKind::kBadField, "out has both an error and events"},
      {grid_event("k", 0, "grid_create", create) + "\n" + grid_event("k", 1, "grid_add", R"("in":{"id":1,"box":[0,0,1,1],"mask":-1},"out":{})"),
       BadKind::kInexactNumber, "in.mask"},
      {grid_event("l", 0, "grid_create", create) + "\n" + grid_event("l", 1, "grid_create", create),
       BadKind::kBadField, "grid_create in a session that has its grid already"},
      {grid_event("m", 0, "grid_create", create) + "\n" + grid_event("m", 1, "grid_query", R"("in":{"box":[0,0,1,1]},"out":{})"),
       BadKind::kMissingField, "missing field out.ids"},
  };
  auto [text, bad_lines] = cases_text(cases);
  // After its bad event, session "g" is no longer judged: a later event is reported, not judged wrongly.
  text += grid_event("g", 3, "grid_update", R"("out":{"began":[[5,6]]})") + "\n";
  const Audit a = audit(text);
  EXPECT_EQ(a.report.violating, 0u);
  EXPECT_EQ(a.report.bad, cases.size() + 1);
  ASSERT_EQ(a.report.bad_examples.size(), cases.size() + 1);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(a.report.bad_examples[i].line, bad_lines[i]);
    EXPECT_NE(a.report.bad_examples[i].reason.find(cases[i].reason), std::string::npos)
        << "line " << bad_lines[i] << ": " << a.report.bad_examples[i].reason;
  }
  EXPECT_NE(a.report.bad_examples.back().reason.find("session \"g\" is no longer judged"), std::string::npos)
      << a.report.bad_examples.back().reason;
}

TEST(BadInput, BlankLinesAndCarriageReturnsAreNotRecords) {  // A1
  const Audit a = audit(std::string("\n  \n") + kGood + "\r\n\t\n" + kGood);
  EXPECT_EQ(a.report.lines, 5u);
  EXPECT_EQ(a.report.records, 2u);
  EXPECT_EQ(a.report.judged, 2u);
  EXPECT_EQ(a.report.exit_code(), 0);
}

TEST(BadInput, OverlongLinesAreSkippedWithinTheLimit) {  // A1
  const std::string huge = R"({"schema":1,"pad":")" + std::string(500, 'a') + R"("})";
  const Audit a = audit(huge + "\n" + kGood + "\n", 200);
  EXPECT_EQ(a.report.bad, 1u);
  EXPECT_EQ(a.report.bad_examples[0].line, 1u);
  EXPECT_NE(a.report.bad_examples[0].reason.find("longer than the limit of 200 bytes"), std::string::npos);
  EXPECT_EQ(a.report.judged, 1u);
}

TEST(ExitCode, CleanViolationsUnreadable) {  // A6
  EXPECT_EQ(audit(kGood).report.exit_code(), 0);
  EXPECT_EQ(audit("").report.exit_code(), 2);  // nothing audited proves nothing
  EXPECT_EQ(audit("\n\n").report.exit_code(), 2);
  EXPECT_EQ(audit(std::string(kGood) + "\nnot json").report.exit_code(), 2);
  const std::string wrong = split_record("-1", "1000", "0", "-1");
  EXPECT_EQ(audit(wrong).report.exit_code(), 1);
  EXPECT_EQ(audit(wrong + "\nnot json").report.exit_code(), 1);  // a violation outranks a bad line
  TraceAuditor auditor;
  const absl::Status s = auditor.file("/nonexistent/trace.jsonl");
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(auditor.report().exit_code(), 2);
}

// ---------------------------------------------------------------------------------------------------
// Records of every kind

TEST(Records, EveryDecomposeKindIsJudgedByItsChecker) {  // A3 A4 D5 D8 D9 D11
  struct Case {
    std::string line;
    std::string clause;  // "" for clean
  };
  const std::vector<Case> cases = {
      {split_record("-1", "1000", "-1", "999"), ""},
      {split_record("-1", "1000", "0", "-1"), "D2 D3 D6"},
      {split_record("-1", "1000", "-1", "1000"), "D1 D2"},
      {split_record("-1", "1000", "-2", "1999"), "D2 D3"},
      {split_record(std::to_string(kMin), "1000", "-9223372036854776", "192"), ""},
      {split_record("5", "0", "0", "5"), "D5"},
      {R"({"schema":1,"contract":"decompose","op":"split","in":{"x":5,"size":0},"out":{"error":"bad size"}})", ""},
      {R"({"schema":1,"contract":"decompose","op":"split","in":{"x":5,"size":7},"out":{"error":"bad size"}})", "D5"},
      {R"({"schema":1,"contract":"decompose","op":"split_axes","in":{"p":[-1,1000],"size":1000},"out":{"chunk":[-1,1],"local":[999,0]}})", ""},
      {R"({"schema":1,"contract":"decompose","op":"split_axes","in":{"p":[1,2,-3],"size":2},"out":{"chunk":[0,1,-1],"local":[1,0,-1]}})", "D2 D3 D6 D8"},
      {R"({"schema":1,"contract":"decompose","op":"split_all","in":{"xs":[-1,0,1],"size":1000},"out":{"chunk":[-1,0,0],"local":[999,0,1]}})", ""},
      {R"({"schema":1,"contract":"decompose","op":"split_all","in":{"xs":[-1,0,1],"size":1000},"out":{"chunk":[-1,0],"local":[999,0]}})", "D11"},
      {R"({"schema":1,"contract":"decompose","op":"cell_of","in":{"v":0.5,"h":0.1},"out":{"cell":4}})", ""},
      {R"({"schema":1,"contract":"decompose","op":"cell_of","in":{"v":0.5,"h":0.1},"out":{"cell":5}})", "D9"},
      {R"({"schema":1,"contract":"decompose","op":"cell_of","in":{"v":"-0x0.0000000000001p-1022","h":2},"out":{"cell":-1}})", ""},
      {R"({"schema":1,"contract":"decompose","op":"cell_of","in":{"v":"NaN","h":1},"out":{"error":"InvalidArgument"}})", ""},
      {R"({"schema":1,"contract":"decompose","op":"cell_of","in":{"v":"Infinity","h":1},"out":{"cell":0}})", "D9"},
      {R"({"schema":1,"contract":"decompose","op":"cell_of","in":{"v":1e300,"h":1e-300},"out":{"error":"OUT_OF_RANGE"}})", ""},
      {R"({"schema":1,"contract":"decompose","op":"cell_of","in":{"v":-0.0,"h":"0x1p-1074"},"out":{"cell":0}})", ""},
      {R"({"schema":1,"contract":"decompose","op":"stored","in":{"x":-1,"size":1000},"stored":{"chunk":-1}})", ""},
      {R"({"schema":1,"contract":"decompose","op":"stored","in":{"x":-1,"size":1000},"stored":{"chunk":0}})", "D3 D6"},
      {R"({"schema":1,"contract":"decompose","op":"stored","in":{"x":-1,"size":1000},"stored":{"chunk":7}})", "D3"},
      {R"({"schema":1,"contract":"decompose","op":"stored","in":{"x":-1,"size":0},"stored":{"chunk":0}})", "D5"},
  };
  std::string text;
  for (const Case& c : cases) text += c.line + "\n";
  const Audit a = audit(text);
  EXPECT_EQ(a.report.bad, 0u) << (a.report.bad_examples.empty() ? "" : a.report.bad_examples[0].reason);
  std::map<std::uint64_t, std::string> want;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (!cases[i].clause.empty()) want[i + 1] = cases[i].clause;
  }
  EXPECT_EQ(violations(a.report), want);
  // Two misfiled stored chunks can move (D6, D3); the one with size 0 has nowhere to go.
  EXPECT_EQ(a.report.migrated, 2u);
  EXPECT_EQ(a.report.unmigratable, 1u);
  ASSERT_EQ(a.migration.size(), 2u);
  EXPECT_EQ(a.migration[0],
            R"({"schema":1,"line":21,"contract":"decompose","op":"stored","x":-1,"size":1000,"from":{"chunk":0},"to":{"chunk":-1},"clause":"D6"})");
}

TEST(Records, MigrationCopiesTheRecordIdVerbatim) {  // A5
  const Audit a = audit(
      R"({"schema":1,"contract":"decompose","op":"stored","id":{"save":"slot 3","path":["a","b"]},"in":{"x":-1001,"size":1000},"stored":{"chunk":-1,"local":-1}})");
  ASSERT_EQ(a.migration.size(), 1u);
  EXPECT_EQ(a.migration[0],
            R"({"schema":1,"line":1,"contract":"decompose","op":"stored","id":{"save":"slot 3","path":["a","b"]},"x":-1001,"size":1000,"from":{"chunk":-1,"local":-1},"to":{"chunk":-2,"local":999},"clause":"D6"})");
}

TEST(Records, EveryTracedContractHasItsGeneratedClauseTable) {
  // The tables are generated from docs/<c>.md at build time (audit/clause_table.cmake, tested on its own
  // by audit/clause_table_generator); here, that each traced contract got one, in report order, with its
  // clause letter and its ids numbered from 1.
  // Broadphase has two families, B (find_pairs) and then E (the persistent grid), each from 1.
  const std::map<std::string, std::string> letters = {
      {"decompose", "D"}, {"cover", "C"}, {"broadphase", "BE"}, {"commit", "T"}, {"rebase", "R"}};
  std::vector<std::string> order;
  for (const auto& c : lwc::audit::traced_contracts()) {
    order.emplace_back(c.contract);
    ASSERT_EQ(letters.count(std::string(c.contract)), 1u) << c.contract;
    ASSERT_FALSE(c.clauses.empty()) << c.contract;
    const std::string& family = letters.at(std::string(c.contract));
    std::size_t f = 0;
    std::size_t n = 0;
    for (std::size_t i = 0; i < c.clauses.size(); ++i) {
      if (c.clauses[i].id[0] != family[f] && f + 1 < family.size() && n > 0) {
        ++f;
        n = 0;
      }
      EXPECT_EQ(c.clauses[i].id, std::string(1, family[f]) + std::to_string(++n));
      EXPECT_FALSE(c.clauses[i].statement.empty()) << c.clauses[i].id;
    }
    EXPECT_EQ(f + 1, family.size()) << c.contract << ": every family of clauses has its table";
  }
  EXPECT_EQ(order, (std::vector<std::string>{"decompose", "cover", "broadphase", "commit", "rebase"}));
}





// ---------------------------------------------------------------------------------------------------
// Files and reports

TEST(File, LinesAcrossReadBlocksAreAuditedLikeText) {  // A1
  // 1 MiB blocks: 20000 records of ~110 bytes cross a block boundary at least once, mid-line.
  std::string text;
  for (int i = 0; i < 20000; ++i) {
    const std::int64_t x = -1 - i;
    const lwc::ChunkPoint p = lwc::contracts::oracle_split(x, 1000);
    text += split_record(std::to_string(x), "1000", std::to_string(i % 997 == 0 ? x / 1000 : p.chunk),
                         std::to_string(i % 997 == 0 ? x % 1000 : p.local)) +
            "\n";
  }
  text += "tail without newline";
  const std::string path = ::testing::TempDir() + "lwc_audit_blocks.jsonl";
  { std::ofstream(path, std::ios::binary) << text; }
  TraceAuditor from_file;
  ASSERT_TRUE(from_file.file(path).ok());
  const Audit from_text = audit(text);
  EXPECT_EQ(from_file.report().lines, 20001u);
  EXPECT_EQ(from_file.report().judged, from_text.report.judged);
  EXPECT_EQ(from_file.report().violating, from_text.report.violating);
  EXPECT_EQ(from_file.report().bad, 1u);
  EXPECT_EQ(from_file.report().bad_examples[0].line, 20001u);
  EXPECT_GT(from_text.report.violating, 0u);
  std::remove(path.c_str());
}

TEST(File, OverlongLineInAFileIsMeasuredNotStored) {  // A1
  const std::string path = ::testing::TempDir() + "lwc_audit_overlong.jsonl";
  { std::ofstream(path, std::ios::binary) << std::string(3 << 20, 'x') << "\n" << kGood << "\n"; }
  TraceOptions options;
  options.max_line_bytes = 1000;
  TraceAuditor auditor(std::move(options));
  ASSERT_TRUE(auditor.file(path).ok());
  ASSERT_EQ(auditor.report().bad, 1u);
  EXPECT_NE(auditor.report().bad_examples[0].reason.find("line of 3145728 bytes"), std::string::npos)
      << auditor.report().bad_examples[0].reason;
  EXPECT_EQ(auditor.report().judged, 1u);
  std::remove(path.c_str());
}

TEST(Report, TextAndJsonCarryTheCounterexamples) {
  TraceOptions options;
  options.examples = 1;
  TraceAuditor auditor(std::move(options));
  auditor.text(split_record("-1", "1000", "0", "-1") + "\n" + split_record("-2", "1000", "0", "-2") + "\nnot json\n");
  const std::string text = lwc::audit::format_report(auditor.report());
  EXPECT_NE(text.find("line 1: split x = -1, size = 1000"), std::string::npos) << text;
  EXPECT_NE(text.find("... and 1 more"), std::string::npos) << text;
  EXPECT_NE(text.find("line 3: not JSON"), std::string::npos) << text;
  EXPECT_NE(text.find("result: VIOLATIONS (exit 1)"), std::string::npos) << text;

  simdjson::dom::parser parser;
  simdjson::dom::element json;
  ASSERT_EQ(parser.parse(lwc::audit::report_json(auditor.report())).get(json), simdjson::SUCCESS);
  std::int64_t exit_code = 0;
  ASSERT_EQ(json["exit_code"].get_int64().get(exit_code), simdjson::SUCCESS);
  EXPECT_EQ(exit_code, 1);
  std::string_view id;
  ASSERT_EQ(json["clauses"].at(5)["id"].get_string().get(id), simdjson::SUCCESS);
  EXPECT_EQ(id, "D6");
  std::int64_t line = 0;
  ASSERT_EQ(json["clauses"].at(5)["examples"].at(0)["line"].get_int64().get(line), simdjson::SUCCESS);
  EXPECT_EQ(line, 1);
}


// ---------------------------------------------------------------------------------------------------
// Issue 17: what a new user tracing real engines ran into

TEST(Findings, MissingAndExtraPairsAreEachReportedWithTheirCounts) {  // A1 B1 B2
  // Boxes 0-1 and 1-2 touch, 0-2 and 3 are apart: two pairs missing, one extra.
  const std::string boxes = "[[0,0,1,1],[1,0,2,1],[2,0,3,1],[9,9,10,10]]";
  const Audit a = audit(pairs_record(boxes, "[[0,3]]") + "\n");
  EXPECT_EQ(a.report.violating, 1u);
  EXPECT_EQ(violations_of(a.report, "B1"), 1u);
  EXPECT_EQ(violations_of(a.report, "B2"), 1u);
  const auto by = examples_by_clause(a.report);
  ASSERT_EQ(by.count("B1"), 1u);
  ASSERT_EQ(by.count("B2"), 1u);
  EXPECT_NE(by.at("B1")[0].message.find("2 of the 2 overlapping pairs were not reported"), std::string::npos)
      << by.at("B1")[0].message;
  EXPECT_NE(by.at("B2")[0].message.find("1 reported pairs are not pairs of overlapping boxes"), std::string::npos)
      << by.at("B2")[0].message;
  EXPECT_NE(by.at("B2")[0].got.find("(0, 3)"), std::string::npos) << by.at("B2")[0].got;
}

TEST(Findings, OrderViolationsDoNotHideAMissingPair) {  // B1 B3 B4
  const std::string boxes = "[[0,0,1,1],[1,0,2,1],[2,0,3,1]]";  // pairs (0, 1), (1, 2)
  // (2, 1) reversed, and (0, 1) missing.
  Audit a = audit(pairs_record(boxes, "[[2,1]]") + "\n");
  EXPECT_EQ(violations_of(a.report, "B1"), 1u);
  EXPECT_EQ(violations_of(a.report, "B3"), 1u);
  // Out of order, and (0, 1) still missing among the 3 boxes plus a fourth touching box 2.
  a = audit(pairs_record("[[0,0,1,1],[1,0,2,1],[2,0,3,1],[3,0,4,1]]", "[[2,3],[1,2]]") + "\n");
  EXPECT_EQ(violations_of(a.report, "B1"), 1u);
  EXPECT_EQ(violations_of(a.report, "B4"), 1u);
  const auto by = examples_by_clause(a.report);
  ASSERT_EQ(by.count("B4"), 1u);
  // The message says how to write the pairs, and where the rule is.
  EXPECT_NE(by.at("B4")[0].message.find("--canonicalise"), std::string::npos) << by.at("B4")[0].message;
  EXPECT_NE(by.at("B4")[0].message.find("docs/broadphase.md"), std::string::npos) << by.at("B4")[0].message;
}

TEST(Findings, CanonicaliseReadsRawEngineOutput) {  // B3 B4
  const std::string line = pairs_record("[[0,0,1,1],[1,0,2,1],[2,0,3,1]]", "[[2,1],[1,0]]") + "\n";
  TraceOptions options;
  options.canonicalise_pairs = true;
  TraceAuditor auditor(std::move(options));
  auditor.text(line);
  EXPECT_EQ(auditor.report().violating, 0u);
  EXPECT_EQ(auditor.report().exit_code(), 0);
  EXPECT_EQ(checked_of(auditor.report(), "B4"), 0u);  // not judged
  EXPECT_EQ(checked_of(auditor.report(), "B1"), 1u);
  // Repeats are still B3 with canonicalisation.
  TraceOptions again;
  again.canonicalise_pairs = true;
  TraceAuditor repeated(std::move(again));
  repeated.text(pairs_record("[[0,0,1,1],[1,0,2,1]]", "[[1,0],[0,1]]") + "\n");
  EXPECT_EQ(violations_of(repeated.report(), "B3"), 1u);
  // Without it the same raw output is B3 and B4, not clean.
  const Audit strict = audit(line);
  EXPECT_EQ(violations_of(strict.report, "B3"), 1u);
  EXPECT_EQ(violations_of(strict.report, "B4"), 1u);
  EXPECT_EQ(violations_of(strict.report, "B1"), 0u);
}

TEST(Findings, ALargePairListFitsTheDefaultLineLimit) {  // A1
  // 700 equal boxes: 244,650 pairs, a 2.9 MB line (the issue's 4,096 raw pairs made 2.35 MB).
  std::string boxes = "[";
  std::string pairs = "[";
  for (int i = 0; i < 700; ++i) boxes += (i ? "," : "") + std::string("[0,0,1,1]");
  for (int i = 0; i < 700; ++i) {
    for (int j = i + 1; j < 700; ++j) pairs += (pairs.size() > 1 ? ",[" : "[") + std::to_string(i) + "," + std::to_string(j) + "]";
  }
  const std::string line = pairs_record(boxes + "]", pairs + "]");
  ASSERT_GT(line.size(), std::size_t{2} << 20);
  TraceAuditor auditor;  // the default options
  auditor.text(line + "\n");
  EXPECT_EQ(auditor.report().judged, 1u);
  EXPECT_EQ(auditor.report().exit_code(), 0);
  // A lower limit refuses it with the line, the size, and how to raise the limit.
  const Audit a = audit(line + "\n", std::size_t{1} << 20);
  ASSERT_EQ(a.report.bad_examples.size(), 1u);
  EXPECT_EQ(a.report.bad_examples[0].line, 1u);
  EXPECT_NE(a.report.bad_examples[0].reason.find("--max-line-bytes"), std::string::npos) << a.report.bad_examples[0].reason;
}

TEST(Findings, RealsPrintTheShortestDecimalBesideHex) {  // A3
  const Audit a = audit(R"({"schema":1,"contract":"decompose","op":"cell_of","in":{"v":0.1,"h":0.25},"out":{"cell":1}})" "\n");
  const auto by = examples_by_clause(a.report);
  ASSERT_EQ(by.count("D9"), 1u);
  EXPECT_EQ(by.at("D9")[0].input, "v = 0.1 (0x1.999999999999ap-4), h = 0.25 (0x1p-2)");
  const Audit b = audit(pairs_record("[[0.1,0,1,1],[1,0,2,1]]", "[]") + "\n");
  const auto pb = examples_by_clause(b.report);
  ASSERT_EQ(pb.count("B1"), 1u);
  EXPECT_NE(pb.at("B1")[0].message.find("0.1 (0x1.999999999999ap-4)"), std::string::npos) << pb.at("B1")[0].message;
}

TEST(Findings, R4AndR9PrintTheExpectedFloat) {  // R4 R9
  const std::string open =
      R"("in":{"origin":[0,0],"cell_size":1000,"threshold_cells":2,"barrier_radius":0,"units_per_render_unit":1,"bubble_units":1000000})";
  std::string text = rebase_event("v", 0, "open", open) + "\n";
  // 1000.1: the nearest float is 0x1.f40cccp+9 = 1000.0999755859375, whose shortest float text is "1000.1".
  text += rebase_event("v", 1, "to_render", R"("in":{"cell":[1,0],"offset":[0.1,0.0]},"out":{"at":["0x1.f40ccep+9",0.0],"version":0})") + "\n";
  text += rebase_event("v", 2, "late", R"("in":{"cell":[1,0],"offset":[0.1,0.0],"started_version":0,"placement":"relocatable"},"out":{"at":["0x1.f40ccep+9",0.0],"version":0})") + "\n";
  const Audit a = audit(text);
  const auto by = examples_by_clause(a.report);
  ASSERT_EQ(by.count("R4"), 1u);
  ASSERT_EQ(by.count("R9"), 1u);
  EXPECT_NE(by.at("R4")[0].expected.find("1000.1 (0x1.f40cccp+9), 0 (0x0p+0)"), std::string::npos) << by.at("R4")[0].expected;
  EXPECT_NE(by.at("R9")[0].expected.find("1000.1 (0x1.f40cccp+9), 0 (0x0p+0)"), std::string::npos) << by.at("R9")[0].expected;
  EXPECT_NE(by.at("R9")[0].got.find("1000.10004 (0x1.f40ccep+9)"), std::string::npos) << by.at("R9")[0].got;
}

TEST(Findings, T5SaysWhichCountIsTheEnginesAndWhichTheModels) {  // T5
  std::string text;
  text += event("c", 0, "open", R"("in":{"chunk_size":16})") + "\n";
  text += event("c", 1, "mark", R"("in":{"cell":[0,0]})") + "\n";
  text += event("c", 2, "mark", R"("in":{"cell":[0,32]})") + "\n";
  text += event("c", 3, "commit") + "\n";
  text += event("c", 4, "prepare", R"("in":{"run":[0,0,0]})") + "\n";
  text += event("c", 5, "prepare", R"("in":{"run":[2,0,0]})") + "\n";
  text += event("c", 6, "publish", R"("out":{"runs":[[0,0,0]],"sequence":1})") + "\n";
  const Audit a = audit(text);
  const auto by = examples_by_clause(a.report);
  ASSERT_EQ(by.count("T5"), 1u);
  const std::string& m = by.at("T5")[0].message;
  EXPECT_NE(m.find("the implementation published 1 runs"), std::string::npos) << m;
  EXPECT_NE(m.find("holds 2 (the model's count)"), std::string::npos) << m;
}

TEST(Findings, ErrorFieldsFollowOneRuleInEveryOp) {  // D5 D9 C4
  struct Case {
    std::string line;
    std::string clause;  // "" for clean
  };
  const std::vector<Case> cases = {
      // A Python engine's own error names: the call failed, which is what the contract asks here.
      {R"({"schema":1,"contract":"decompose","op":"cell_of","in":{"v":1.0,"h":0.0},"out":{"error":"ZeroDivisionError"}})", ""},
      {R"({"schema":1,"contract":"decompose","op":"cell_of","in":{"v":"NaN","h":1.0},"out":{"error":"ValueError: nan"}})", ""},
      {R"({"schema":1,"contract":"decompose","op":"split","in":{"x":1,"size":0},"out":{"error":"ZeroDivisionError"}})", ""},
      {cover_record(R"("min":5,"max_exclusive":1,"size":10)", R"("error":"range is reversed")"), ""},
      // A code name is judged as that code.
      {R"({"schema":1,"contract":"decompose","op":"cell_of","in":{"v":1.0,"h":0.0},"out":{"error":"OutOfRange"}})", "D5"},
      // Any error where the call was due to succeed is a violation of the op's clause.
      {R"({"schema":1,"contract":"decompose","op":"cell_of","in":{"v":1.0,"h":1.0},"out":{"error":"ZeroDivisionError"}})", "D9"},
  };
  std::string text;
  for (const Case& c : cases) text += c.line + "\n";
  const Audit a = audit(text);
  EXPECT_EQ(a.report.bad, 0u) << (a.report.bad_examples.empty() ? "" : a.report.bad_examples[0].reason);
  std::map<std::uint64_t, std::string> want;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (!cases[i].clause.empty()) want[i + 1] = cases[i].clause;
  }
  EXPECT_EQ(violations(a.report), want);
  // An empty error says nothing: it is refused with its line and a reason, in every op.
  const Audit empty = audit(R"({"schema":1,"contract":"decompose","op":"split","in":{"x":1,"size":0},"out":{"error":""}})" "\n" +
                            cover_record(R"("min":5,"max_exclusive":1,"size":10)", R"("error":"")") + "\n");
  EXPECT_EQ(empty.report.bad, 2u);
  ASSERT_EQ(empty.report.bad_examples.size(), 2u);
  EXPECT_NE(empty.report.bad_examples[1].reason.find("out.error is empty"), std::string::npos)
      << empty.report.bad_examples[1].reason;
}

TEST(Findings, InvalidSizesAreReportedUnderTheirClause) {  // D5 B6
  // h = 0 answered with a cell: D5 (a size is accepted iff valid), not clean, not D9.
  Audit a = audit(R"({"schema":1,"contract":"decompose","op":"cell_of","in":{"v":1.0,"h":0.0},"out":{"cell":0}})" "\n");
  EXPECT_EQ(violations(a.report), (std::map<std::uint64_t, std::string>{{1, "D5"}}));
  EXPECT_EQ(checked_of(a.report, "D5"), 1u);
  EXPECT_EQ(checked_of(a.report, "D9"), 0u);
  // A broad phase that accepts h = 0: B6.
  a = audit(R"({"schema":1,"contract":"broadphase","op":"find_pairs","in":{"h":0.0,"boxes":[[0,0,1,1]]},"out":{"pairs":[]}})" "\n"
            R"({"schema":1,"contract":"broadphase","op":"find_pairs","in":{"h":-1.0,"boxes":[[0,0,1,1]]},"out":{"error":"bad cell size"}})" "\n");
  EXPECT_EQ(violations(a.report), (std::map<std::uint64_t, std::string>{{1, "B6"}}));
  EXPECT_EQ(checked_of(a.report, "B6"), 2u);
  EXPECT_EQ(a.report.bad, 0u);
}

TEST(Findings, KnockOnViolationsOfACommitterFollowTheirRootCause) {  // A1 T4 T5 T8
  const std::string text = read_file(source("examples/audit/traces/node_commit_clears_on_failure.jsonl"));
  const std::vector<std::string> lines = lines_of(text);
  const Audit a = audit(text);
  ASSERT_EQ(a.report.exit_code(), 1);
  // The T4 after each failed commit is a root cause; the later T8 and T5 of the same session, a retry that
  // prepares and publishes only what the engine still held, follow from it.
  std::map<std::string, std::uint64_t> t4_of_session;
  std::uint64_t knock_ons = 0;
  for (const auto& [clause, examples] : examples_by_clause(a.report)) {
    for (const Counterexample& c : examples) {
      const Event e = parse_event(lines[c.line - 1]);
      if (clause == "T4") {
        EXPECT_EQ(c.follows, 0u) << "line " << c.line;
        t4_of_session[e.session] = c.line;
      }
    }
  }
  for (const auto& [clause, examples] : examples_by_clause(a.report)) {
    for (const Counterexample& c : examples) {
      const Event e = parse_event(lines[c.line - 1]);
      if (c.line == t4_of_session[e.session]) {
        EXPECT_EQ(c.follows, 0u) << clause << " at line " << c.line;  // the root cause's other clause (T3)
        continue;
      }
      EXPECT_EQ(c.follows, t4_of_session[e.session]) << clause << " at line " << c.line;
      ++knock_ons;
    }
  }
  EXPECT_GT(knock_ons, 0u);
  EXPECT_EQ(a.report.root_causes, t4_of_session.size());
  const std::string report = lwc::audit::format_report(a.report);
  EXPECT_NE(report.find("(follows line "), std::string::npos) << report;
}

TEST(Findings, KnockOnViolationsOfAViewFollowTheirRootCause) {  // R6 R7
  const std::string open =
      R"("in":{"origin":[0,0],"cell_size":1000,"threshold_cells":2,"barrier_radius":0,"units_per_render_unit":1,"bubble_units":1000000})";
  std::string text;
  text += rebase_event("v", 0, "open", open) + "\n";
  // A commit onto a target that is not loaded (R6: must fail) that the engine accepted ...
  text += rebase_event("v", 1, "commit", R"("in":{"from":[0,0],"target":[5,0],"version":0},"out":{"origin":[5,0],"version":1})") + "\n";
  // ... so its view and its conversions are from origin (5, 0): right by its own state.
  text += rebase_event("v", 2, "view", R"("out":{"origin":[5,0],"version":1,"loaded":[]})") + "\n";
  text += rebase_event("v", 3, "to_render", R"("in":{"cell":[5,0],"offset":[1.0,0.0]},"out":{"at":[1.0,0.0],"version":1})") + "\n";
  // An error of its own, wrong even by its state: a root cause.
  text += rebase_event("v", 4, "to_render", R"("in":{"cell":[5,0],"offset":[1.0,0.0]},"out":{"at":[2.0,0.0],"version":1})") + "\n";
  const Audit a = audit(text);
  EXPECT_EQ(a.report.bad, 0u) << (a.report.bad_examples.empty() ? "" : a.report.bad_examples[0].reason);
  std::map<std::uint64_t, std::uint64_t> follows;
  for (const auto& [clause, examples] : examples_by_clause(a.report)) {
    for (const Counterexample& c : examples) follows[c.line] = c.follows;
  }
  EXPECT_EQ(follows, (std::map<std::uint64_t, std::uint64_t>{{2, 0}, {3, 2}, {4, 2}, {5, 0}}));
  EXPECT_EQ(a.report.root_causes, 2u);
}

TEST(Findings, PartialPublicationIsJudgedAsTheBudgetTheEngineStoppedAt) {  // T8 T5
  std::string text;
  text += event("p", 0, "open", R"("in":{"chunk_size":16})") + "\n";
  text += event("p", 1, "mark", R"("in":{"cell":[0,0]})") + "\n";
  text += event("p", 2, "mark", R"("in":{"cell":[0,32]})") + "\n";
  text += event("p", 3, "commit") + "\n";
  text += event("p", 4, "prepare", R"("in":{"run":[0,0,0]})") + "\n";
  // The engine ran out of frame time after one run: it published that run, and kept the other.
  text += event("p", 5, "publish", R"("out":{"runs":[[0,0,0]],"sequence":1,"partial":true})") + "\n";
  text += event("p", 6, "pending", R"("out":{"runs":[[2,0,0]]})") + "\n";
  // A second partial commit that publishes the wrong part: not the first pending run.
  text += event("p", 7, "mark", R"("in":{"cell":[0,48]})") + "\n";
  text += event("p", 8, "commit") + "\n";
  text += event("p", 9, "prepare", R"("in":{"run":[3,0,0]})") + "\n";
  text += event("p", 10, "publish", R"("out":{"runs":[[3,0,0]],"sequence":2,"partial":true})") + "\n";
  const Audit a = audit(text);
  EXPECT_EQ(a.report.bad, 0u) << (a.report.bad_examples.empty() ? "" : a.report.bad_examples[0].reason);
  // It prepared (T8) and published (T5) the second run.
  EXPECT_EQ(violations(a.report), (std::map<std::uint64_t, std::string>{{11, "T5 T8"}}));
  // Without "partial" the first publication is a commit that lost a run.
  const std::string partial = ",\"partial\":true";
  const std::string whole = text.substr(0, text.find(partial)) + text.substr(text.find(partial) + partial.size());
  EXPECT_EQ(violations(audit(whole).report).count(6), 1u);
}


// ---------------------------------------------------------------------------------------------------
// Issue 29: every violated clause of every record kind is counted, and records with bad inputs are judged

// The checked and violations figures of one clause, as the report's table prints them.
std::pair<std::uint64_t, std::uint64_t> row(const TraceReport& r, std::string_view contract, std::string_view id) {
  for (const auto& t : r.clauses) {
    if (t.contract == contract && t.id == id) return {t.checked, t.violations};
  }
  return {0, 0};
}

TEST(EveryClause, ATruncatingSplitCountsUnderD2D3AndD6) {  // A1 A4 D1 D2 D3 D6
  // The issue's table: three records, one of them -1 -> (0, -1). Before, D2 and D3 read "3 0".
  const Audit a = audit(split_record("-1", "1000", "-1", "999") + "\n" + split_record("-1", "1000", "0", "-1") + "\n" +
                        split_record("5", "1000", "0", "5") + "\n");
  EXPECT_EQ(a.report.violating, 1u);
  EXPECT_EQ(a.report.root_causes, 1u);
  EXPECT_EQ(row(a.report, "decompose", "D1"), std::make_pair(std::uint64_t{3}, std::uint64_t{0}));
  for (const char* id : {"D2", "D3", "D6"}) {
    EXPECT_EQ(row(a.report, "decompose", id), std::make_pair(std::uint64_t{3}, std::uint64_t{1})) << id;
  }
  // Each clause's counterexample carries a message of its own clause, for the same line.
  for (const auto& [id, examples] : examples_by_clause(a.report)) {
    ASSERT_EQ(examples.size(), 1u) << id;
    EXPECT_EQ(examples[0].line, 2u);
    EXPECT_EQ(examples[0].message.rfind(id + " ", 0), 0u) << examples[0].message;
    EXPECT_EQ(examples[0].expected, "(chunk -1, local 999)");
  }
  // The verdict is still the checker's (A4): D6, the truncating quotient, is its first clause.
  const std::string text = lwc::audit::format_report(a.report);
  EXPECT_NE(text.find("D6 truncation: this is the truncating quotient"), std::string::npos) << text;
}

TEST(EveryClause, SplitClausesAgreeWithTheCheckerOnEveryWrongAnswerNearAMultiple) {  // A4 D1 D2 D3 D6
  // Every answer (chunk, local) within 2 of the right one, for x around multiples of 7 on both sides of 0:
  // a record is clean iff check_split is OK, and counted under exactly the clauses decided here.
  std::string text;
  std::map<std::uint64_t, std::string> want;
  std::uint64_t line = 0;
  for (std::int64_t x = -23; x <= 23; ++x) {
    const lwc::ChunkPoint right = lwc::contracts::oracle_split(x, 7);
    for (std::int64_t dc = -2; dc <= 2; ++dc) {
      for (std::int64_t dl : {-14, -7, -2, -1, 0, 1, 7}) {
        const std::int64_t chunk = right.chunk + dc;
        const std::int64_t local = right.local + dl;
        text += split_record(std::to_string(x), "7", std::to_string(chunk), std::to_string(local)) + "\n";
        ++line;
        const bool wrong = !lwc::contracts::check_split(x, 7, chunk, local).ok();
        EXPECT_EQ(wrong, !clauses_for(x, 7, chunk, local).empty()) << x << " " << chunk << " " << local;
        if (wrong) want[line] = clauses_for(x, 7, chunk, local);
      }
    }
  }
  const Audit a = audit(text);
  EXPECT_EQ(violations(a.report), want);
  EXPECT_EQ(a.report.violating, want.size());
}

TEST(EveryClause, EveryAxisAndElementOfABatchIsJudgedUnderD1ToD6) {  // D2 D3 D6 D8 D11
  const Audit a = audit(
      R"({"schema":1,"contract":"decompose","op":"split_axes","in":{"p":[-1,5],"size":1000},"out":{"chunk":[0,0],"local":[-1,5]}})"
      "\n"
      R"({"schema":1,"contract":"decompose","op":"split_all","in":{"xs":[3,-1001],"size":1000},"out":{"chunk":[0,-1],"local":[3,-1]}})"
      "\n"
      R"({"schema":1,"contract":"decompose","op":"split_axes","in":{"p":[-1,5],"size":1000},"out":{"chunk":[-1,0],"local":[999,5]}})"
      "\n");
  EXPECT_EQ(violations(a.report), (std::map<std::uint64_t, std::string>{{1, "D2 D3 D6 D8"}, {2, "D2 D3 D6 D11"}}));
  const auto by = examples_by_clause(a.report);
  EXPECT_NE(by.at("D2")[0].message.find("axis x: "), std::string::npos) << by.at("D2")[0].message;
  EXPECT_NE(by.at("D2")[1].message.find("element 1: "), std::string::npos) << by.at("D2")[1].message;
  EXPECT_EQ(row(a.report, "decompose", "D8"), std::make_pair(std::uint64_t{2}, std::uint64_t{1}));
  EXPECT_EQ(row(a.report, "decompose", "D2"), std::make_pair(std::uint64_t{3}, std::uint64_t{2}));
}

TEST(EveryClause, AStoredChunkIdIsJudgedUnderD3AndD6AndMigratedUnderTheChecker) {  // A5 D3 D6
  const Audit a = audit(R"({"schema":1,"contract":"decompose","op":"stored","in":{"x":-1000,"size":1000},"stored":{"chunk":-2}})"
                        "\n"
                        R"({"schema":1,"contract":"decompose","op":"stored","in":{"x":-5,"size":1000},"stored":{"chunk":0}})"
                        "\n");
  // Line 1 decremented a multiple (the seed's second regression), line 2 truncated.
  EXPECT_EQ(violations(a.report), (std::map<std::uint64_t, std::string>{{1, "D3 D6"}, {2, "D3 D6"}}));
  ASSERT_EQ(a.migration.size(), 2u);
  EXPECT_NE(a.migration[0].find(R"("to":{"chunk":-1},"clause":"D3"})"), std::string::npos) << a.migration[0];
  EXPECT_NE(a.migration[1].find(R"("to":{"chunk":-1},"clause":"D6"})"), std::string::npos) << a.migration[1];
}

TEST(EveryClause, ACoverSpanIsJudgedUnderC1C2C3AndItsCountUnderC6) {  // C1 C2 C3 C6
  const std::string range = R"("min":0,"max_exclusive":1,"size":1)";
  const Audit a = audit(cover_record(range, R"("first":-5,"last":5)") + "\n" +            // both ends and the middle
                        cover_record(range, R"("first":-5,"last":5,"count":3)") + "\n" +  // and a wrong count
                        cover_record(range, R"("first":1,"last":1,"count":1)") + "\n" +   // misses 0, holds nothing
                        cover_record(range, R"("first":0,"last":0,"count":2)") + "\n");   // right span, wrong count
  EXPECT_EQ(violations(a.report), (std::map<std::uint64_t, std::string>{
                                      {1, "C2 C3"}, {2, "C2 C3 C6"}, {3, "C1 C2"}, {4, "C6"}}));
  EXPECT_EQ(row(a.report, "cover", "C6"), std::make_pair(std::uint64_t{3}, std::uint64_t{2}));
}

TEST(EveryClause, CommitEventsAreJudgedUnderEachClauseTheyBreak) {  // T3 T4 T5 T8
  std::string text;
  text += event("c", 0, "open", R"("in":{"chunk_size":16})") + "\n";
  text += event("c", 1, "mark", R"("in":{"cell":[0,0]})") + "\n";
  text += event("c", 2, "mark", R"("in":{"cell":[0,32]})") + "\n";
  text += event("c", 3, "commit", R"("in":{"max_runs":1})") + "\n";
  text += event("c", 4, "prepare", R"("in":{"run":[2,0,0]})") + "\n";
  // Prepared and published the second run, not the first: T8 for what it prepared, T5 for what it published.
  text += event("c", 5, "publish", R"("out":{"runs":[[2,0,0]],"sequence":1})") + "\n";
  text += event("d", 0, "open", R"("in":{"chunk_size":16})") + "\n";
  text += event("d", 1, "mark", R"("in":{"cell":[0,0]})") + "\n";
  text += event("d", 2, "commit") + "\n";
  text += event("d", 3, "prepare", R"("in":{"run":[0,0,0]})") + "\n";
  text += event("d", 4, "prepare_failed") + "\n";
  // Lost the failed batch: T4 (all or nothing), and the runs no longer cover the dirty set (T3).
  text += event("d", 5, "pending", R"("out":{"runs":[]})") + "\n";
  const Audit a = audit(text);
  EXPECT_EQ(a.report.bad, 0u) << (a.report.bad_examples.empty() ? "" : a.report.bad_examples[0].reason);
  EXPECT_EQ(violations(a.report), (std::map<std::uint64_t, std::string>{{6, "T5 T8"}, {12, "T3 T4"}}));
}

TEST(EveryClause, RebaseEventsAreJudgedUnderEachClauseTheyBreak) {  // R3 R4 R8 R12 R13
  const std::string open =
      R"("in":{"origin":[0,0],"version":0,"cell_size":4096,"threshold_cells":3,"barrier_radius":0,"units_per_render_unit":64,"bubble_units":1073741824,"view":7})";
  std::string text;
  text += rebase_event("v", 0, "open", open) + "\n";
  // Tagged with the wrong version (R3), floats not the nearest (R4), stamped with another view (R12).
  text += rebase_event("v", 1, "to_render", R"("in":{"cell":[1,0],"offset":[2048.0,0.0]},"out":{"at":[95.0,0.0],"version":3,"view":8})") + "\n";
  text += rebase_event("v", 2, "load", R"("in":{"cell":[6,0]})") + "\n";
  // A plan of another view (R12) to the wrong target (R8).
  text += rebase_event("v", 3, "plan", R"("in":{"cell":[6,0],"offset":[5.0,5.0]},"out":{"from":[0,0],"target":[5,0],"version":0,"view":8})") + "\n";
  text += rebase_event("v", 4, "begin_step", R"("out":{})") + "\n";
  // A stale plan (R8) committed inside the simulation step (R13), and it succeeded.
  text += rebase_event("v", 5, "commit", R"("in":{"from":[0,0],"target":[6,0],"version":4,"view":7},"out":{"origin":[6,0],"version":5})") + "\n";
  const Audit a = audit(text);
  EXPECT_EQ(a.report.bad, 0u) << (a.report.bad_examples.empty() ? "" : a.report.bad_examples[0].reason);
  EXPECT_EQ(violations(a.report),
            (std::map<std::uint64_t, std::string>{{2, "R3 R4 R12"}, {4, "R8 R12"}, {6, "R8 R13"}}));
}

TEST(BadInputsJudged, ABoxWithANaNOrInfiniteBoundMustBeRefused) {  // A3 B6
  struct Case {
    std::string line;
    std::string clause;  // "" for clean
  };
  const std::vector<Case> cases = {
      {pairs_record(R"([[0,0,"NaN",1],[0,0,1,1]])", "[[0,1]]"), "B6"},  // accepted: the fast-math engine
      {pairs_record(R"([[0,0,"NaN",1],[0,0,1,1]])", "[]"), "B6"},       // no pairs is still an answer
      {R"({"schema":1,"contract":"broadphase","op":"find_pairs","in":{"boxes":[[0,0,"NaN",1]]},"out":{"error":"box 0 is not finite"}})", ""},
      {pairs_record(R"([["-Infinity",0,1,1]])", "[]"), "B6"},
      {pairs_record(R"([[0,0,1,"Infinity"],[0,0,1,1]])", "[[0,1]]"), "B6"},
      {pairs_record("[[2,0,1,1]]", "[]"), "B6"},                                           // min > max
      {R"({"schema":1,"contract":"broadphase","op":"find_pairs","in":{"boxes":[[2,0,1,1]]},"out":{"error":"InvalidArgument"}})", ""},
      {pairs_record("[[0,0,0,1,1,\"NaN\"]]", "[]"), "B6"},                                // 3-D
      {R"({"schema":1,"contract":"broadphase","op":"find_pairs","in":{"h":0,"boxes":[[0,0,1,1]]},"out":{"pairs":[]}})", "B6"},
      {R"({"schema":1,"contract":"broadphase","op":"query","in":{"boxes":[[0,0,1,1]],"probe":["NaN",0,1,1]},"out":{"ids":[0]}})", "B6"},
      {R"({"schema":1,"contract":"broadphase","op":"query","in":{"boxes":[[0,0,1,1]],"probe":["NaN",0,1,1]},"out":{"error":"bad probe"}})", ""},
      {R"({"schema":1,"contract":"broadphase","op":"query","in":{"boxes":[["NaN",0,1,1]],"probe":[0,0,1,1]},"out":{"ids":[]}})", "B6"},
      {pairs_record("[[0,0,1,1],[1,1,2,2]]", "[[0,1]]"), ""},
  };
  std::string text;
  for (const Case& c : cases) text += c.line + "\n";
  const Audit a = audit(text);
  EXPECT_EQ(a.report.bad, 0u) << (a.report.bad_examples.empty() ? "" : a.report.bad_examples[0].reason);
  std::map<std::uint64_t, std::string> want;
  std::uint64_t refused = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (!cases[i].clause.empty()) want[i + 1] = cases[i].clause;
    refused += cases[i].line.find("\"error\"") != std::string::npos;
  }
  EXPECT_EQ(violations(a.report), want);
  // B6 counts every record with a bad input, refused or not; B1 only the records whose input is valid.
  EXPECT_EQ(row(a.report, "broadphase", "B6"), std::make_pair(want.size() + refused, std::uint64_t{want.size()}));
  EXPECT_EQ(row(a.report, "broadphase", "B1").first, 1u);
  const Counterexample* c = example_at(a.report, 1);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->message, "B6 rejection without partial output: in.boxes[0] axis 0 is [0 (0x0p+0), NaN] (not finite with "
                        "min <= max), so the call must fail, but it returned 1 pairs");
  EXPECT_EQ(c->expected, "an error (InvalidArgument)");
}

TEST(BadInputsJudged, AGridAcceptingAnInvalidCellSizeOrQueryBoxViolatesB6) {  // B6 E11
  const std::string create = R"("in":{"dims":2,"h":1.0})";
  std::string text;
  text += grid_event("a", 0, "grid_create", R"("in":{"dims":2,"h":0.0},"out":{"error":"bad cell size"})") + "\n";
  text += grid_event("a", 1, "grid_create", create) + "\n";  // refused once, made the second time
  text += grid_event("a", 2, "grid_add", R"("in":{"id":1,"box":[0,0,1,1]},"out":{})") + "\n";
  text += grid_event("a", 3, "grid_query", R"("in":{"box":["NaN",0,1,1]},"out":{"ids":[1]})") + "\n";
  text += grid_event("a", 4, "grid_query", R"("in":{"box":[0,0,"Infinity",1]},"out":{"error":"InvalidArgument"})") + "\n";
  text += grid_event("a", 5, "grid_query", R"("in":{"box":[0,0,1,1]},"out":{"ids":[1]})") + "\n";
  text += grid_event("b", 0, "grid_create", R"("in":{"dims":2,"h":"NaN"})") + "\n";  // accepted: a violation
  text += grid_event("b", 1, "grid_add", R"("in":{"id":1,"box":[0,0,1,1]},"out":{})") + "\n";
  const Audit a = audit(text);
  EXPECT_EQ(violations(a.report), (std::map<std::uint64_t, std::string>{{4, "B6"}, {7, "B6"}}));
  EXPECT_EQ(row(a.report, "broadphase", "B6"), std::make_pair(std::uint64_t{4}, std::uint64_t{2}));
  // The grid made with h = NaN holds no model: its later events are reported, naming the line.
  ASSERT_EQ(a.report.bad, 1u);
  EXPECT_EQ(a.report.bad_examples[0].line, 8u);
  EXPECT_NE(a.report.bad_examples[0].reason.find("created at line 7 with an invalid cell size"), std::string::npos)
      << a.report.bad_examples[0].reason;
}

TEST(BadInputsJudged, AChunkSizeOfZeroMustBeRefusedEverywhere) {  // D5
  struct Case {
    std::string line;
    std::string clause;  // "" for clean
  };
  const std::vector<Case> cases = {
      {R"({"schema":1,"contract":"decompose","op":"split_axes","in":{"p":[1,2],"size":0},"out":{"chunk":[0,0],"local":[1,2]}})", "D5"},
      {R"({"schema":1,"contract":"decompose","op":"split_axes","in":{"p":[1,2],"size":0},"out":{"error":"size"}})", ""},
      {R"({"schema":1,"contract":"decompose","op":"split_all","in":{"xs":[1],"size":-3},"out":{"chunk":[0],"local":[1]}})", "D5"},
      {R"({"schema":1,"contract":"decompose","op":"split_all","in":{"xs":[1],"size":-3},"out":{"error":"InvalidArgument"}})", ""},
      {R"({"schema":1,"contract":"decompose","op":"split_all","in":{"xs":[1],"size":3},"out":{"error":"InvalidArgument"}})", "D5"},
      {event("c", 0, "open", R"("in":{"chunk_size":0},"out":{"error":"InvalidArgument"})"), ""},
      {event("c", 1, "open", R"("in":{"chunk_size":16})"), ""},
      {event("c", 2, "mark", R"("in":{"cell":[-1,0]},"out":{"chunk":[-1,0]})"), ""},
      {event("d", 0, "open", R"("in":{"chunk_size":-16})"), "D5"},
      {rebase_event("r", 0, "open", R"("in":{"origin":[0,0],"cell_size":0,"threshold_cells":2,"barrier_radius":0,"units_per_render_unit":1,"bubble_units":1000})"), "D5"},
      {rebase_event("s", 0, "open", R"("in":{"origin":[0,0],"cell_size":-5,"threshold_cells":2,"barrier_radius":0,"units_per_render_unit":1,"bubble_units":1000},"out":{"error":"bad size"})"), ""},
  };
  std::string text;
  for (const Case& c : cases) text += c.line + "\n";
  // After an accepted size 0, the committer's and the view's events cannot be judged: reported, with why.
  text += event("d", 1, "mark", R"("in":{"cell":[0,0]})") + "\n";
  text += rebase_event("r", 1, "load", R"("in":{"cell":[0,0]})") + "\n";
  const Audit a = audit(text);
  std::map<std::uint64_t, std::string> want;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (!cases[i].clause.empty()) want[i + 1] = cases[i].clause;
  }
  EXPECT_EQ(violations(a.report), want);
  // Every record above checked decompose's D5, whichever contract it belongs to, except the mark.
  EXPECT_EQ(row(a.report, "decompose", "D5"), std::make_pair(std::uint64_t{cases.size() - 1}, std::uint64_t{want.size()}));
  ASSERT_EQ(a.report.bad, 2u);
  EXPECT_NE(a.report.bad_examples[0].reason.find("opened at line 9 with a chunk size <= 0"), std::string::npos)
      << a.report.bad_examples[0].reason;
  EXPECT_NE(a.report.bad_examples[1].reason.find("opened at line 10 with a cell size <= 0"), std::string::npos)
      << a.report.bad_examples[1].reason;
}

// The boxes of a broadphase_tracer record hold a NaN or an infinity, in their boxes or probe.
bool has_bad_bound(const std::string& line) {
  const std::string in = line.substr(0, line.find("\"out\""));
  return in.find("\"NaN\"") != std::string::npos || in.find("Infinity\"") != std::string::npos;
}

TEST(CBroadphaseTrace, AFastMathBuildAcceptsNaNAndInfiniteBoxesUnderB6) {  // A4 B6
  const std::string text = read_file(source("examples/audit/traces/c_broadphase_fast_math.jsonl"));
  const std::vector<std::string> lines = lines_of(text);
  // Derived from the trace: the records with a NaN or infinite bound that the engine answered are B6.
  std::map<std::uint64_t, std::string> want;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (has_bad_bound(lines[i]) && lines[i].find("\"error\"") == std::string::npos) want[i + 1] = "B6";
  }
  ASSERT_EQ(want.size(), 8u);  // every NaN and infinity the source writes, in boxes and probes
  const Audit a = audit(text);
  EXPECT_EQ(a.report.bad, 0u) << (a.report.bad_examples.empty() ? "" : a.report.bad_examples[0].reason);
  EXPECT_EQ(a.report.judged, lines.size());
  EXPECT_EQ(violations(a.report), want);
  EXPECT_EQ(a.report.exit_code(), 1);
  // Line 2 is the NaN box the issue names: box 2's min_x read from text, paired by the engine.
  const Counterexample* c = example_at(a.report, 2);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->message.rfind("B6 rejection without partial output: in.boxes[2] axis 0 is [NaN, 1 (0x1p+0)]", 0), 0u)
      << c->message;
}

TEST(CBroadphaseTrace, ThePreciseBuildOfTheSameSourcePasses) {  // A4 A6 B1 B2 B3 B4 B6 B10
  const std::string text = read_file(source("examples/audit/traces/c_broadphase_precise.jsonl"));
  const std::vector<std::string> lines = lines_of(text);
  std::uint64_t refused = 0;
  for (const std::string& line : lines) {
    EXPECT_EQ(has_bad_bound(line) || line.find("[2,0,1,1]") != std::string::npos,
              line.find("\"error\"") != std::string::npos)
        << line;
    refused += line.find("\"error\"") != std::string::npos;
  }
  const Audit a = audit(text);
  EXPECT_EQ(a.report.judged, lines.size());
  EXPECT_EQ(a.report.violating, 0u);
  EXPECT_EQ(row(a.report, "broadphase", "B6").first, refused);
  EXPECT_EQ(a.report.exit_code(), 0);
}

}  // namespace
