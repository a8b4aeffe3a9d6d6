// SPDX-License-Identifier: MIT
// File: audit/lwc/audit/trace.h
//
// The trace audit: judges ANY implementation of the lwc contracts — an engine's, in any language — from a
// JSON Lines trace of its calls, with the same clause checkers (lwc.contracts.<c>) that judge lwc itself.
// It also audits the chunk addresses stored in saves and caches, and writes the migration of every
// misfiled one. Spec: docs/audit.md (the schema, clauses A1-A6). Tool: lwc-audit (audit/main.cc).
//
// The audit's own room, audit/: this interface; reader.cc (the JSON adapter and number re-lexer),
// judge.cc (routing, sessions, tallies, streaming), report.cc (the text and JSON reports), one file per
// contract in contracts/, registry.cc, main.cc (lwc-audit); inprocess.cppm and inprocess/ are the other
// audit, lwc.audit.inprocess (the in-process audit).
//
// Extension point: a contract makes its records auditable with one file, audit/contracts/<c>.cc, that
// defines a `ContractAudit` (its clause table, generated from docs/<c>.md at build time, and one
// `RecordKind` per traced operation, each judged by its checkers), and one line in `traced_contracts()`
// (audit/registry.cc).
//
// The JSON parser (simdjson) stays behind `TraceRecord`: this interface includes no JSON header, so an
// engine importing it needs none, and the whole module builds with -fno-exceptions -fno-rtti.
//
// The declarations of the module lwc.audit.trace (audit/trace.cppm exports them; one source, two modes:
// modules/lwc/config.h). Its functions are defined in the module's implementation units (audit/*.cc), so the
// audit exists only as that module: this header is its source, not a header build.
#ifndef LWC_AUDIT_TRACE_H_
#define LWC_AUDIT_TRACE_H_

#include "lwc/config.h"
#ifndef LWC_MODULE_UNIT  // audit/trace.cppm includes these in its global module fragment
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#endif

LWC_EXPORT namespace lwc::audit {

// The trace schema this build reads: every record carries "schema": 1 (docs/audit.md).
inline constexpr std::int64_t kTraceSchema = 1;

// TraceRecord
//
// One well-formed trace record, read-only. Fields are addressed by section ("in", "out", "stored") and
// key. Every accessor is exact or fails: nothing is rounded, truncated or defaulted.
//   NotFound         the section or the field is missing
//   OutOfRange       a number that is not exactly a value of the type due: an integer literal outside
//                    int64, a real literal (9.2e18, even 1.0) where an int64 is due, a real outside double
//   InvalidArgument  a field of another JSON type (a string where a number is due, ...)
class TraceRecord {
 public:
  virtual ~TraceRecord() = default;

  // int64()
  //
  // The value of an integer literal in [-2^63, 2^63 - 1], exactly. A literal with a fraction or an
  // exponent (1.0, 9.2e18) is refused even when its value is an integer: a writer that produced it went
  // through a double, which cannot hold every int64.
  [[nodiscard]] virtual absl::StatusOr<std::int64_t> int64(std::string_view section,
                                                           std::string_view key) const = 0;

  // real()
  //
  // A double, exactly: a JSON number (correctly rounded, so any writer's shortest or 17-digit output reads
  // back bit for bit; an integer literal must be exactly a double), or a string holding a C99 hex float
  // ("-0x1.8p+1") or "NaN", "Infinity", "-Infinity" (JSON has no literal for them).
  [[nodiscard]] virtual absl::StatusOr<double> real(std::string_view section, std::string_view key) const = 0;

  // uint64()
  //
  // The value of an integer literal in [0, 2^64 - 1], exactly (counts, which can exceed INT64_MAX). The
  // same refusals as int64(): a real-number literal, a negative or larger integer.
  [[nodiscard]] virtual absl::StatusOr<std::uint64_t> uint64(std::string_view section,
                                                             std::string_view key) const = 0;

  // boolean()
  //
  // A JSON `true` or `false`, nothing else (not 0, 1 or "true").
  [[nodiscard]] virtual absl::StatusOr<bool> boolean(std::string_view section, std::string_view key) const = 0;

  // text()
  //
  // A string field, unescaped. Valid until the next record.
  [[nodiscard]] virtual absl::StatusOr<std::string_view> text(std::string_view section,
                                                              std::string_view key) const = 0;

  // int64s()
  //
  // An array of int64 (each as `int64()` reads one) into `out`, replacing its contents.
  [[nodiscard]] virtual absl::Status int64s(std::string_view section, std::string_view key,
                                            std::vector<std::int64_t>& out) const = 0;

  // reals()
  //
  // An array of reals (each as `real()` reads one) into `out`, replacing its contents.
  [[nodiscard]] virtual absl::Status reals(std::string_view section, std::string_view key,
                                           std::vector<double>& out) const = 0;

  // real_tuples()
  //
  // An array of arrays of exactly `width` reals each ([[x0, y0, x1, y1], ...]) into `out`, flattened row by
  // row, replacing its contents.
  [[nodiscard]] virtual absl::Status real_tuples(std::string_view section, std::string_view key,
                                                 std::size_t width, std::vector<double>& out) const = 0;

  // int64_tuples()
  //
  // An array of arrays of exactly `width` int64 each ([[y, x0, x1], ...]) into `out`, flattened row by
  // row, replacing its contents.
  [[nodiscard]] virtual absl::Status int64_tuples(std::string_view section, std::string_view key,
                                                  std::size_t width, std::vector<std::int64_t>& out) const = 0;

  // has()
  //
  // Whether section.key is present (with any value).
  [[nodiscard]] virtual bool has(std::string_view section, std::string_view key) const = 0;
};

// Finding
//
// One more clause a record violates, beside Judgement::verdict's: a judge that checks several clauses
// independently (B1 missing pairs and B2 extra ones in one record) reports each, so that no clause hides
// another. Each finding names a clause other than the verdict's and the other findings'.
struct Finding {
  absl::Status verdict;  // the clause's failure, its message starting with the clause id
  std::string expected;
  std::string got;
};

// Judgement
//
// What a record kind's judge fills in for one record it could read.
struct Judgement {
  // Set by the auditor before the judge runs: the record's line, and the options the trace is audited with.
  std::uint64_t line = 0;
  bool canonicalise_pairs = false;
  // OK, or the checker's failure, whose message starts with the clause id ("D6 truncation: ...").
  absl::Status verdict;
  // On a violation only (building strings for clean records would cost the audit its speed):
  std::string input;     // the inputs, e.g. "x = -1, size = 1000"
  std::string expected;  // what the contract requires, e.g. "(chunk -1, local 999)"
  std::string got;       // what the record holds
  // Stored-address records filed under a wrong key: the JSON members of the migration line, e.g.
  // "\"x\":-1,\"size\":1000,\"from\":{\"chunk\":0},\"to\":{\"chunk\":-1}". Empty when no correct key
  // exists (the record is then counted as unmigratable).
  std::string migration;
  // The clauses this record exercised, when they are not the kind's (e.g. a stored key with a local).
  std::span<const std::string_view> checked;
  // Further clauses violated by the same record (on a violation only), each counted under its own clause.
  std::vector<Finding> more;
  // A violation that follows from an earlier one of the same session (the engine acted correctly on the
  // wrong state that the violation at that line left it in): that line, else 0. The report marks it
  // "follows line N", so that a knock-on is told apart from a root cause.
  std::uint64_t follows = 0;
};

// Session
//
// The state of one session of a stateful contract (commit, rebase): the contract's model as the session's
// events so far have driven it, and whatever the judges of its later events need. Made by the contract's
// `open_session` when a session's first event (seq 0) arrives; released by the session's "end" event.
class Session {
 public:
  virtual ~Session() = default;
};

// Clause
//
// One clause of a contract, as its docs/<c>.md heading states it ("### D1 — Reconstruction: ...").
struct Clause {
  std::string_view id;
  std::string_view statement;
};

// RecordKind
//
// One traced operation of a contract ("op" in the record), the clauses every such record exercises, and
// its judge. The judge returns a non-OK status when the record cannot be read (a missing or inexact
// field): the audit then reports the line as bad instead of judging it. `stored` marks records of
// addresses kept in a save or cache, whose violations are migrated.
//
// Stateful contracts judge with `event` instead of `judge`: the event is judged against its session's
// state, then applied to it. A non-OK status (the event cannot be read, or cannot happen in the session's
// state) makes the line bad and ends the judging of its session, since every later verdict would rest on
// an event the model missed — unless the kind is a `query`, which reads the session's state and changes
// nothing a later verdict rests on. An event of an `ends` kind ("end", "grid_end") closes its session.
// A contract may have both: its `judge` kinds are stateless records, its `event` kinds a session's.
struct RecordKind {
  std::string_view op;
  std::span<const std::string_view> clauses;
  absl::Status (*judge)(const TraceRecord& record, Judgement& judgement) = nullptr;
  bool stored = false;
  absl::Status (*event)(const TraceRecord& record, Session& session, Judgement& judgement) = nullptr;
  bool query = false;
  bool ends = false;
};

// ContractAudit
//
// Everything the audit knows of one contract: its name in traces, its clauses (docs/<c>.md), its kinds.
//
// A stateful contract (`open_session` set) is traced as ordered event logs: every record of an `event`
// kind also carries "session" (a string naming it) and "seq" (0, 1, 2, ... within the session), and an
// `ends` kind ("end") closes it. Its `judge` kinds, if any, stay stateless records.
struct ContractAudit {
  std::string_view contract;
  std::span<const Clause> clauses;
  std::span<const RecordKind> kinds;
  std::unique_ptr<Session> (*open_session)() = nullptr;
};

// traced_contracts()
//
// The contracts this build can audit from a trace, in report order.
[[nodiscard]] std::span<const ContractAudit> traced_contracts();

// Counterexample
//
// One violating record, as reported: its line, inputs, expected and actual outputs, the checker's message.
struct Counterexample {
  std::uint64_t line = 0;
  std::string op;
  std::string input;
  std::string expected;
  std::string got;
  std::string message;
  std::uint64_t follows = 0;  // the line of the violation this one follows from, or 0 (a root cause)
};

// ClauseTally
//
// Per clause of each contract named in the trace: records that exercised it, records that violated it,
// and the first few violations.
struct ClauseTally {
  std::string_view contract;
  std::string_view id;
  std::string_view statement;
  std::uint64_t checked = 0;
  std::uint64_t violations = 0;
  std::uint64_t knock_on = 0;  // of the violations, those that follow from an earlier one (Counterexample::follows)
  std::vector<Counterexample> examples;
};

// BadLine
//
// A non-blank line that could not be judged, and why ("in.x: 9.2e+18 is a real number literal ...").
struct BadLine {
  std::uint64_t line = 0;
  std::string reason;
};

// BadKind
//
// Why a line could not be judged; each is counted separately (TraceReport::bad_by_kind).
enum class BadKind : int {
  kMalformed = 0,    // not JSON, not an object, duplicate keys, or longer than the line limit
  kSchema,           // "schema" missing or not kTraceSchema
  kUnknownContract,  // "contract" missing or not one of traced_contracts()
  kUnknownOp,        // "op" missing or not a kind of the contract
  kMissingField,     // a field the kind needs is absent
  kInexactNumber,    // a number that is not exactly a value of the type due (9.2e18 or 2^63 for an int64)
  kBadField,         // a field of another JSON type, or fields that contradict each other
};
inline constexpr int kBadKinds = 7;

// bad_kind_name()
//
// "malformed JSON", "unsupported schema", ... as the report prints them.
[[nodiscard]] std::string_view bad_kind_name(BadKind kind);

// TraceReport
//
// The audit of one trace. Its size is bounded by the number of clauses and `TraceOptions::examples`,
// never by the length of the trace (A1).
struct TraceReport {
  std::uint64_t lines = 0;      // physical lines read
  std::uint64_t records = 0;    // non-blank lines
  std::uint64_t judged = 0;     // records a checker judged
  std::uint64_t violating = 0;  // judged records with a violation (of one clause or several)
  std::uint64_t root_causes = 0;  // violating records whose violation follows from no earlier one
  std::uint64_t bad = 0;        // records that could not be judged
  std::uint64_t bad_by_kind[kBadKinds] = {};
  std::vector<BadLine> bad_examples;  // the first few bad lines
  std::vector<ClauseTally> clauses;   // every clause of every contract named by a judged record
  std::uint64_t migrated = 0;         // misfiled stored records with a migration line written
  std::uint64_t unmigratable = 0;     // misfiled stored records with no correct key (e.g. size <= 0)
  absl::Status io;                    // reading the input failed (the report covers what was read)

  // exit_code()
  //
  // 1 if any record violates a clause; otherwise 2 if the input was unreadable, a record could not be
  // judged, or there was no record at all (an audit of nothing proves nothing); otherwise 0 (A6).
  [[nodiscard]] int exit_code() const;
};

// format_report()
//
// The report as text: totals, one row per clause (checked, violations, statement) with its first
// counterexamples, the bad lines by kind with their first line numbers, the migration totals.
[[nodiscard]] std::string format_report(const TraceReport& report);

// report_json()
//
// The same report as one JSON document (docs/audit.md, "Report").
[[nodiscard]] std::string report_json(const TraceReport& report);

// The largest line limit a TraceOptions may set (1 GiB).
inline constexpr std::size_t kMaxLineLimit = std::size_t{1} << 30;

// TraceOptions
struct TraceOptions {
  // Counterexamples kept per clause, and bad lines kept in all.
  std::size_t examples = 5;
  // A longer line is reported as malformed and skipped, so memory stays bounded whatever the input: the
  // reader holds one line and its parse (a few times its size). 16 MiB holds the largest broadphase record
  // most engines write (4,096 boxes and a million pairs); lwc-audit --max-line-bytes raises it up to
  // kMaxLineLimit for a record of every pair of 4,096 overlapping boxes (8.4 M pairs, ~120 MB).
  std::size_t max_line_bytes = std::size_t{16} << 20;
  // Broadphase pairs as an engine's raw output writes them: each pair read lower index first and the list
  // sorted before judging, so B3 judges only repeats and B4 is not judged (counted "-"). Off: a pair
  // written higher index first is B3 and an unsorted list B4, each reported beside B1 and B2.
  bool canonicalise_pairs = false;
  // Receives each migration line (one JSON object, no newline) of a misfiled stored record, in trace
  // order. Unset: migrations are counted but not written.
  std::function<void(std::string_view)> migration;
};

// report_html()
//
// The report as one self-contained HTML page (docs/audit.md, "The report as a page"): the per-clause table,
// every counterexample, and drawings (lwc.draw) of the violating records that have geometry, read again
// from `trace`, the file the report is of ("-", standard input, gets no drawings). `options` are those the
// trace was audited with (the line limit, --canonicalise).
[[nodiscard]] std::string report_html(const TraceReport& report, const std::string& trace, const TraceOptions& options);

// TraceAuditor
//
// Streams a trace: feed it lines (or a whole file), then read the report. Memory is constant in the
// length of the trace: one parser sized to the longest line (at most max_line_bytes), the report, and the
// models of the stateful contracts' sessions open at once.
//
// Example:
//   lwc::audit::TraceAuditor auditor;
//   if (absl::Status s = auditor.file("engine.jsonl"); !s.ok()) { ... }   // unreadable: exit 2
//   std::fputs(lwc::audit::format_report(auditor.report()).c_str(), stdout);
//   return auditor.report().exit_code();
class TraceAuditor {
 public:
  explicit TraceAuditor(TraceOptions options = {});
  ~TraceAuditor();
  TraceAuditor(TraceAuditor&&) noexcept;
  TraceAuditor& operator=(TraceAuditor&&) noexcept;
  TraceAuditor(const TraceAuditor&) = delete;
  TraceAuditor& operator=(const TraceAuditor&) = delete;

  // line()
  //
  // Audits the next line (without its '\n'; a trailing '\r' is ignored). Lines are numbered from 1.
  void line(std::string_view text);

  // text()
  //
  // Audits every line of `text` (split on '\n'; a final line without '\n' counts).
  void text(std::string_view text);

  // file()
  //
  // Audits every line of the file at `path` ("-" is standard input). NotFound or PermissionDenied when it
  // cannot be opened, DataLoss when reading fails midway (the lines before are audited); the same status
  // is kept in report().io.
  [[nodiscard]] absl::Status file(const std::string& path);

  [[nodiscard]] const TraceReport& report() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace lwc::audit

namespace lwc::internal {

// status_code_of()
//
// An error code as a trace writes it: absl's name ("InvalidArgument") or its enum spelling
// ("INVALID_ARGUMENT"). Any other text is kUnknown, which no clause accepts where it asks for a code.
absl::StatusCode status_code_of(std::string_view text);

// TracedError
//
// An `error` field, read by the one rule every op follows (docs/audit.md, "Errors"): any non-empty
// string. An absl code name (either spelling) states the error's code, which the clause then judges;
// any other text ("ZeroDivisionError", "chunk size must be positive") says only that the call failed, and
// is judged as a refusal of whichever code the contract requires there. `named` is false for such text.
struct TracedError {
  absl::StatusCode code = absl::StatusCode::kUnknown;
  bool named = false;
  std::string_view text;
};

// read_error()
//
// section.error by the rule above: NotFound when absent, InvalidArgument when not a non-empty string.
absl::StatusOr<TracedError> read_error(const lwc::audit::TraceRecord& record, std::string_view section);

// read_refusal()
//
// Whether out.error is present, read by the rule above: the call was refused. InvalidArgument when the error
// is not a non-empty string, or stands beside out.<answer> (the field of the call's answer: "pairs",
// "ids", ...; empty: none to check).
absl::StatusOr<bool> read_refusal(const lwc::audit::TraceRecord& record, std::string_view answer = {});

// as_traced()
//
// The status a traced error stands for where the contract requires `want` (OK when the call was due to
// succeed): its own code when it names one; otherwise `want`'s code if `want` is an error (a free-text
// refusal where a refusal was due), and kUnknown if not.
absl::Status as_traced(const TracedError& error, const absl::Status& want);

// add_violation()
//
// Counts `status`, one clause's failure (its message starting with the clause id; OK adds nothing), on a
// record's judgement: as the verdict when it has none, else as one more Finding, unless that clause is
// named already (a record counts once per clause, with the first message of each). `expected` and `got`
// are what the report prints beside it. So a judge that decides each clause on its own reports every
// clause the record violates, the checker's first.
void add_violation(lwc::audit::Judgement& j, absl::Status status, std::string expected, std::string got);

// json_string()
//
// `s` as a JSON string literal, quoted and escaped.
std::string json_string(std::string_view s);

// LineReader
//
// The JSON side of the audit (audit/reader.cc; simdjson stays behind it, so the judge and the contracts'
// files see no JSON type): parses one line into a TraceRecord, or says why it is not one. Memory is one
// parser sized to the longest line read (at most the line limit) and the record's index.
class LineReader {
 public:
  explicit LineReader(std::size_t max_line_bytes);
  ~LineReader();
  LineReader(LineReader&&) noexcept;
  LineReader& operator=(LineReader&&) noexcept;
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // parse()
  //
  // True, with record() valid until the next call, when `text` is one JSON object without repeated keys;
  // otherwise false with `kind` (kMalformed, or kInexactNumber for a number beyond every type) and `why`.
  [[nodiscard]] bool parse(std::string_view text, lwc::audit::BadKind& kind, std::string& why);
  [[nodiscard]] const lwc::audit::TraceRecord& record() const;

  // The record's top-level fields: an exact int64 or a string (NotFound when absent, the TraceRecord
  // accessors' codes otherwise), a short description for messages, the minified JSON of any value.
  [[nodiscard]] absl::StatusOr<std::int64_t> top_int64(std::string_view key) const;
  [[nodiscard]] absl::StatusOr<std::string_view> top_text(std::string_view key) const;
  [[nodiscard]] std::string top_describe(std::string_view key) const;
  // The routing fields' fast path (every record): the top-level `schema`, `contract` and `op`, true iff
  // schema is an integer and both names are strings; no status is built.
  [[nodiscard]] bool route(std::int64_t& schema, std::string_view& contract, std::string_view& op) const;
  [[nodiscard]] bool top_json(std::string_view key, std::string& out) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// real_text()
//
// A double as messages print it: the shortest decimal that reads back as it (std::to_chars), then its
// C99 hex float, "0.1 (0x1.999999999999ap-4)"; NaN and infinities by name.
std::string real_text(double d);

// The contracts' audits, one definition each in audit/contracts/<c>.cc, listed by traced_contracts()
// (audit/registry.cc).
const lwc::audit::ContractAudit& decompose_audit();
const lwc::audit::ContractAudit& cover_audit();
const lwc::audit::ContractAudit& broadphase_audit();
const lwc::audit::ContractAudit& commit_audit();
const lwc::audit::ContractAudit& rebase_audit();

}  // namespace lwc::internal

#endif  // LWC_AUDIT_TRACE_H_
