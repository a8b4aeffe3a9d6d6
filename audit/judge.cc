// SPDX-License-Identifier: MIT
// File: audit/judge.cc                  Module: lwc.audit.trace (implementation unit)
//
// The judge: streams a trace line by line (TraceAuditor, file()), has each line read by the reader
// (LineReader, audit/reader.cc), routes the record by "contract" and "op" to its RecordKind (one file per
// contract in audit/contracts/), keeps the sessions of stateful contracts, and tallies every clause a
// record exercised and violated. It sees no JSON type.
module;
#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
module lwc.audit.trace;

namespace lwc::internal {
namespace {

// absl 20220623 has its own string_view; these cross between the two.
absl::string_view sv(std::string_view s) { return absl::string_view(s.data(), s.size()); }
std::string_view stdsv(absl::string_view s) { return std::string_view(s.data(), s.size()); }

}  // namespace

void add_violation(lwc::audit::Judgement& j, absl::Status status, std::string expected, std::string got) {
  if (status.ok()) return;
  const auto id_of = [](const absl::Status& s) {
    const std::string_view m = stdsv(s.message());
    return m.substr(0, m.find(' '));
  };
  if (j.verdict.ok()) {
    j.verdict = std::move(status);
    j.expected = std::move(expected);
    j.got = std::move(got);
    return;
  }
  const std::string_view id = id_of(status);
  if (id == id_of(j.verdict)) return;
  for (const lwc::audit::Finding& f : j.more) {
    if (id == id_of(f.verdict)) return;
  }
  j.more.push_back({std::move(status), std::move(expected), std::move(got)});
}

}  // namespace lwc::internal

namespace lwc::audit {

std::string_view bad_kind_name(BadKind kind) {
  switch (kind) {
    case BadKind::kMalformed: return "malformed";
    case BadKind::kSchema: return "unsupported schema";
    case BadKind::kUnknownContract: return "unknown contract";
    case BadKind::kUnknownOp: return "unknown op";
    case BadKind::kMissingField: return "missing field";
    case BadKind::kInexactNumber: return "not an exact number of its type";
    case BadKind::kBadField: return "bad field";
  }
  return "bad";
}

int TraceReport::exit_code() const {
  if (violating > 0) return 1;
  if (!io.ok() || bad > 0 || records == 0) return 2;
  return 0;
}

struct TraceAuditor::Impl {
  // A contract once a record named it: where its clause tallies start in report.clauses, and for each
  // of its kinds the tallies of the clauses the kind exercises.
  struct Seen {
    const ContractAudit* audit;
    std::size_t first;
    std::vector<std::vector<std::size_t>> kind_tallies;
  };

  explicit Impl(TraceOptions o) : options(clamped(std::move(o))), reader(options.max_line_bytes) {}

  static TraceOptions clamped(TraceOptions o) {
    o.max_line_bytes = std::min(o.max_line_bytes, kMaxLineLimit);
    return o;
  }

  void bad(BadKind kind, std::string reason) {
    ++report.bad;
    ++report.bad_by_kind[static_cast<int>(kind)];
    if (report.bad_examples.size() < options.examples) {
      report.bad_examples.push_back({report.lines, std::move(reason)});
    }
  }

  void overlong(std::uint64_t bytes) {
    ++report.lines;
    ++report.records;
    bad(BadKind::kMalformed, absl::StrCat("line of ", bytes, " bytes is longer than the limit of ",
                                          options.max_line_bytes,
                                          " bytes (lwc-audit --max-line-bytes raises it, up to 1 GiB)"));
  }

  Seen& seen_contract(const ContractAudit& audit) {
    for (Seen& s : seen) {
      if (s.audit == &audit) return s;
    }
    Seen s{&audit, report.clauses.size(), {}};
    for (const Clause& c : audit.clauses) report.clauses.push_back({audit.contract, c.id, c.statement, 0, 0, 0, {}});
    for (const RecordKind& kind : audit.kinds) {
      std::vector<std::size_t> tallies;
      for (const std::string_view id : kind.clauses) {
        if (const std::optional<std::size_t> t = tally_of(s, id); t.has_value()) tallies.push_back(*t);
      }
      s.kind_tallies.push_back(std::move(tallies));
    }
    seen.push_back(std::move(s));
    return seen.back();
  }

  std::optional<std::size_t> tally_of(const Seen& s, std::string_view id) const {
    for (std::size_t i = 0; i < s.audit->clauses.size(); ++i) {
      if (s.audit->clauses[i].id == id) return s.first + i;
    }
    return std::nullopt;
  }

  // The tally of the clause a failed verdict names first ("D6 truncation: ..."). A checker may name a
  // clause of the contract it builds on (cover's checker names D5 for a size <= 0 accepted): that clause
  // is counted under its own contract. Invariant: a checker names a clause of some traced contract; if
  // one ever does not, the violation is still counted, under the kind's first clause, with the checker's
  // full message.
  std::size_t violated_tally(const ContractAudit& audit, const RecordKind& kind, const absl::Status& verdict) {
    const std::string_view message = internal::stdsv(verdict.message());
    const std::string_view id = message.substr(0, message.find(' '));
    if (std::optional<std::size_t> t = tally_of(seen_contract(audit), id); t.has_value()) return *t;
    for (const ContractAudit& other : traced_contracts()) {
      if (&other == &audit) continue;
      for (const Clause& c : other.clauses) {
        if (c.id == id) return *tally_of(seen_contract(other), id);
      }
    }
    const Seen& s = seen_contract(audit);
    std::optional<std::size_t> t;
    if (!kind.clauses.empty()) t = tally_of(s, kind.clauses.front());
    return t.value_or(s.first);
  }

  // The tally of clause `id` that a record of `audit` checked: the contract's own, else another traced
  // contract's (decompose's D5 for a chunk size given to cover or commit); none for an id no contract has.
  std::optional<std::size_t> checked_tally(const ContractAudit& audit, std::string_view id) {
    if (std::optional<std::size_t> t = tally_of(seen_contract(audit), id); t.has_value()) return t;
    for (const ContractAudit& other : traced_contracts()) {
      if (&other == &audit) continue;
      for (const Clause& c : other.clauses) {
        if (c.id == id) return tally_of(seen_contract(other), id);
      }
    }
    return std::nullopt;
  }

  // One session of a stateful contract: its state, the seq its next event must carry, and the line at
  // which its judging stopped (0 while it is judged).
  struct SessionState {
    std::unique_ptr<Session> state;
    std::int64_t next = 0;
    std::uint64_t broken_at = 0;
  };

  // Routes an event of a stateful contract to its session and checks its order: seq 0 opens a session,
  // each later event carries the next seq. Returns null, the line reported bad, when the event cannot be
  // judged; `session_key` and `session_id` name the session found.
  SessionState* session_of(const ContractAudit& audit, const RecordKind& kind) {
    const absl::StatusOr<std::string_view> name = reader.top_text("session");
    if (!name.ok()) {
      if (name.status().code() == absl::StatusCode::kNotFound) {
        bad(BadKind::kMissingField, "missing field session (a string naming the event's session)");
      } else {
        bad(BadKind::kBadField, std::string(name.status().message()));
      }
      return nullptr;
    }
    const std::string_view id = *name;
    const absl::StatusOr<std::int64_t> seq = reader.top_int64("seq");
    if (!seq.ok()) {
      if (seq.status().code() == absl::StatusCode::kNotFound) {
        bad(BadKind::kMissingField, "missing field seq (the event's place in its session: 0, 1, 2, ...)");
      } else {
        bad(seq.status().code() == absl::StatusCode::kOutOfRange ? BadKind::kInexactNumber : BadKind::kBadField,
            std::string(seq.status().message()));
      }
      return nullptr;
    }
    session_id.assign(id.data(), id.size());
    session_key.assign(audit.contract.data(), audit.contract.size());
    session_key += '\n';
    session_key += session_id;
    auto it = sessions.find(session_key);
    if (it == sessions.end()) {
      if (*seq != 0) {
        bad(BadKind::kBadField, absl::StrCat("session ", internal::json_string(id), " begins at seq ", *seq,
                                             ", not 0: its first events are missing, so it is not judged"));
        sessions.emplace(session_key, SessionState{nullptr, 0, report.lines});
        return nullptr;
      }
      it = sessions.emplace(session_key, SessionState{audit.open_session(), 0, 0}).first;
    }
    SessionState& s = it->second;
    if (s.broken_at != 0) {
      bad(BadKind::kBadField, absl::StrCat("session ", internal::json_string(id),
                                           " is no longer judged: its events broke off at line ", s.broken_at));
      if (kind.ends) sessions.erase(it);
      return nullptr;
    }
    if (*seq != s.next) {
      bad(BadKind::kBadField, absl::StrCat("session ", internal::json_string(id), ": seq ", *seq, " where ", s.next,
                                           " is due (an event is missing, repeated or out of order); the session "
                                           "is no longer judged"));
      s.broken_at = report.lines;
      s.state.reset();
      return nullptr;
    }
    ++s.next;
    return &s;
  }

  void line(std::string_view text) {
    ++report.lines;
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    if (text.find_first_not_of(" \t\r") == std::string_view::npos) return;
    ++report.records;
    if (text.size() > options.max_line_bytes) {
      bad(BadKind::kMalformed, absl::StrCat("line of ", text.size(), " bytes is longer than the limit of ",
                                            options.max_line_bytes,
                                          " bytes (lwc-audit --max-line-bytes raises it, up to 1 GiB)"));
      return;
    }
    BadKind kind = BadKind::kMalformed;
    if (std::string why; !reader.parse(text, kind, why)) {
      bad(kind, std::move(why));
      return;
    }
    judge();
  }

  void judge() {
    std::int64_t routed_schema = 0;
    std::string_view routed_contract;
    std::string_view routed_op;
    if (reader.route(routed_schema, routed_contract, routed_op) && routed_schema == kTraceSchema) {
      route(routed_contract, &routed_op);
      return;
    }
    // The slow path names what is wrong with the routing fields.
    const absl::StatusOr<std::int64_t> schema = reader.top_int64("schema");
    if (!schema.ok() && schema.status().code() == absl::StatusCode::kNotFound) {
      bad(BadKind::kSchema, absl::StrCat("missing \"schema\" (this lwc-audit reads schema ", kTraceSchema, ")"));
      return;
    }
    if (!schema.ok() || *schema != kTraceSchema) {
      bad(BadKind::kSchema, absl::StrCat("schema ", reader.top_describe("schema"),
                                         " is not supported (this lwc-audit reads schema ", kTraceSchema, ")"));
      return;
    }
    const absl::StatusOr<std::string_view> contract_field = reader.top_text("contract");
    if (!contract_field.ok()) {
      bad(BadKind::kUnknownContract, "missing \"contract\" (a string naming the contract)");
      return;
    }
    const absl::StatusOr<std::string_view> op_field = reader.top_text("op");
    route(*contract_field, op_field.ok() ? &*op_field : nullptr);
  }

  // Judges a record whose schema is this build's, by its contract and op (null: missing or not a string,
  // reported once the contract is known to exist).
  void route(std::string_view contract, const std::string_view* op_field) {
    const ContractAudit* audit = nullptr;
    for (const ContractAudit& a : traced_contracts()) {
      if (a.contract == contract) {
        audit = &a;
        break;
      }
    }
    if (audit == nullptr) {
      std::string known;
      for (const ContractAudit& a : traced_contracts()) absl::StrAppend(&known, known.empty() ? "" : ", ", internal::sv(a.contract));
      bad(BadKind::kUnknownContract, absl::StrCat("unknown contract ", internal::json_string(contract),
                                                  " (this lwc-audit knows: ", known, ")"));
      return;
    }

    if (op_field == nullptr) {
      bad(BadKind::kUnknownOp, "missing \"op\" (a string naming the operation traced)");
      return;
    }
    const std::string_view op = *op_field;
    std::size_t kind_index = audit->kinds.size();
    for (std::size_t i = 0; i < audit->kinds.size(); ++i) {
      if (audit->kinds[i].op == op) {
        kind_index = i;
        break;
      }
    }
    if (kind_index == audit->kinds.size()) {
      std::string known;
      for (const RecordKind& k : audit->kinds) absl::StrAppend(&known, known.empty() ? "" : ", ", internal::sv(k.op));
      bad(BadKind::kUnknownOp, absl::StrCat(internal::sv(contract), " has no op ", internal::json_string(op),
                                            " (ops: ", known, ")"));
      return;
    }
    const RecordKind& kind = audit->kinds[kind_index];
    SessionState* session = nullptr;
    if (audit->open_session != nullptr && kind.event != nullptr) {
      session = session_of(*audit, kind);
      if (session == nullptr) return;
    }

    judgement.verdict = absl::OkStatus();
    judgement.line = report.lines;
    judgement.canonicalise_pairs = options.canonicalise_pairs;
    judgement.input.clear();
    judgement.expected.clear();
    judgement.got.clear();
    judgement.migration.clear();
    judgement.checked = {};
    judgement.more.clear();
    judgement.follows = 0;
    const absl::Status read =
        session != nullptr ? kind.event(reader.record(), *session->state, judgement) : kind.judge(reader.record(), judgement);
    if (!read.ok()) {
      const BadKind why = read.code() == absl::StatusCode::kNotFound     ? BadKind::kMissingField
                          : read.code() == absl::StatusCode::kOutOfRange ? BadKind::kInexactNumber
                                                                         : BadKind::kBadField;
      if (session == nullptr || kind.query) {
        bad(why, std::string(read.message()));
        return;
      }
      bad(why, absl::StrCat(read.message(), "; session ", internal::json_string(session_id),
                            " is no longer judged (its model missed this event)"));
      session->broken_at = report.lines;
      session->state.reset();
      return;
    }
    if (session != nullptr && kind.ends) sessions.erase(session_key);

    ++report.judged;
    if (judgement.verdict.ok() && !judgement.more.empty()) {
      // Invariant: findings come beside a verdict; a judge that set only findings still has them counted.
      judgement.verdict = std::move(judgement.more.front().verdict);
      judgement.expected = std::move(judgement.more.front().expected);
      judgement.got = std::move(judgement.more.front().got);
      judgement.more.erase(judgement.more.begin());
    }
    // violated_tally() may add another contract's tallies (and so move `seen`): every call runs before `s`
    // is taken. violated[0] is the verdict's clause, then one per finding.
    violated.clear();
    if (!judgement.verdict.ok()) {
      violated.push_back(violated_tally(*audit, kind, judgement.verdict));
      for (const Finding& f : judgement.more) violated.push_back(violated_tally(*audit, kind, f.verdict));
    }
    // The same for the clauses checked: a record may check a clause of the contract its contract builds on
    // (a chunk size is decompose's D5 wherever it is given).
    checked_tallies.clear();
    for (const std::string_view c : judgement.checked) {
      if (const std::optional<std::size_t> t = checked_tally(*audit, c); t.has_value()) checked_tallies.push_back(*t);
    }
    const Seen& s = seen_contract(*audit);
    counted.assign(violated.size(), false);
    const auto check = [&](std::size_t t) {
      ++report.clauses[t].checked;
      for (std::size_t v = 0; v < violated.size(); ++v) counted[v] = counted[v] || violated[v] == t;
    };
    if (judgement.checked.empty()) {
      for (const std::size_t t : s.kind_tallies[kind_index]) check(t);
    } else {
      for (const std::size_t t : checked_tallies) check(t);
    }
    if (judgement.verdict.ok()) return;

    ++report.violating;
    if (judgement.follows == 0) ++report.root_causes;
    const std::string_view id = report.clauses[violated[0]].id;
    for (std::size_t v = 0; v < violated.size(); ++v) {
      // A clause named twice in one record (two findings of one clause) counts the record once.
      bool repeat = false;
      for (std::size_t w = 0; w < v; ++w) repeat = repeat || violated[w] == violated[v];
      if (repeat) continue;
      ClauseTally& tally = report.clauses[violated[v]];
      if (!counted[v]) ++tally.checked;  // a clause the kind does not list still counts the record it judged
      ++tally.violations;
      if (judgement.follows != 0) ++tally.knock_on;
      if (tally.examples.size() >= options.examples) continue;
      if (v == 0) {
        tally.examples.push_back({report.lines, std::string(op), judgement.input, std::move(judgement.expected),
                                  std::move(judgement.got), std::string(judgement.verdict.message()),
                                  judgement.follows});
      } else {
        Finding& f = judgement.more[v - 1];
        tally.examples.push_back({report.lines, std::string(op), judgement.input, std::move(f.expected),
                                  std::move(f.got), std::string(f.verdict.message()), judgement.follows});
      }
    }
    if (!kind.stored) return;
    if (judgement.migration.empty()) {
      ++report.unmigratable;
      return;
    }
    ++report.migrated;
    if (!options.migration) return;
    migration_line.clear();
    absl::StrAppend(&migration_line, "{\"schema\":", kTraceSchema, ",\"line\":", report.lines,
                    ",\"contract\":", internal::json_string(contract), ",\"op\":", internal::json_string(op));
    if (reader.top_json("id", raw_id)) absl::StrAppend(&migration_line, ",\"id\":", raw_id);
    absl::StrAppend(&migration_line, ",", judgement.migration, ",\"clause\":", internal::json_string(id), "}");
    options.migration(migration_line);
  }

  TraceOptions options;
  TraceReport report;
  internal::LineReader reader;
  std::string raw_id;
  Judgement judgement;
  std::vector<std::size_t> violated;  // the tallies a record violates: its verdict's, then its findings'
  std::vector<std::size_t> checked_tallies;  // the tallies of Judgement::checked, when a judge set it
  std::vector<bool> counted;
  std::vector<Seen> seen;
  std::string migration_line;
  // The open sessions of stateful contracts, by contract and session name: memory grows with the
  // sessions open at once, never with the length of the trace.
  std::unordered_map<std::string, SessionState> sessions;
  std::string session_key;
  std::string session_id;
};

TraceAuditor::TraceAuditor(TraceOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
TraceAuditor::~TraceAuditor() = default;
TraceAuditor::TraceAuditor(TraceAuditor&&) noexcept = default;
TraceAuditor& TraceAuditor::operator=(TraceAuditor&&) noexcept = default;

void TraceAuditor::line(std::string_view text) { impl_->line(text); }

void TraceAuditor::text(std::string_view text) {
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    if (end == std::string_view::npos) {
      impl_->line(text);
      return;
    }
    impl_->line(text.substr(0, end));
    text.remove_prefix(end + 1);
  }
}

absl::Status TraceAuditor::file(const std::string& path) {
  const bool is_stdin = path == "-";
  std::FILE* in = is_stdin ? stdin : std::fopen(path.c_str(), "rb");
  if (in == nullptr) {
    const int e = errno;
    const std::string why = absl::StrCat("cannot open ", path, ": ", std::strerror(e));
    impl_->report.io = e == ENOENT ? absl::NotFoundError(why)
                       : e == EACCES ? absl::PermissionDeniedError(why)
                                     : absl::UnavailableError(why);
    return impl_->report.io;
  }
  // Lines are cut from 1 MiB blocks; a line spanning blocks is gathered in `pending`, which never grows
  // past the line limit: a longer line is only measured, then reported.
  std::vector<char> block(std::size_t{1} << 20);
  std::string pending;
  std::uint64_t overlong = 0;  // bytes of a line already known to be too long; 0 otherwise
  const std::size_t limit = impl_->options.max_line_bytes;
  for (;;) {
    const std::size_t n = std::fread(block.data(), 1, block.size(), in);
    if (n == 0) break;
    std::string_view rest(block.data(), n);
    while (!rest.empty()) {
      const std::size_t end = rest.find('\n');
      const std::string_view piece = rest.substr(0, end);
      if (overlong > 0 || pending.size() + piece.size() > limit) {
        overlong = (overlong > 0 ? overlong : pending.size()) + piece.size();
        pending.clear();
      } else if (end != std::string_view::npos && pending.empty()) {
        impl_->line(piece);  // the common case: the whole line is in this block, no copy
      } else {
        pending.append(piece);
      }
      if (end == std::string_view::npos) break;
      if (overlong > 0) {
        impl_->overlong(overlong);
        overlong = 0;
      } else if (!pending.empty()) {
        impl_->line(pending);
        pending.clear();
      }
      rest.remove_prefix(end + 1);
    }
  }
  const bool failed = std::ferror(in) != 0;
  const int e = errno;
  if (!is_stdin) std::fclose(in);
  if (overlong > 0) {
    impl_->overlong(overlong);
  } else if (!pending.empty()) {
    impl_->line(pending);
  }
  if (failed) {
    impl_->report.io = absl::DataLossError(absl::StrCat("reading ", path, " failed after line ",
                                                        impl_->report.lines, ": ", std::strerror(e)));
  }
  return impl_->report.io;
}

const TraceReport& TraceAuditor::report() const { return impl_->report; }

}  // namespace lwc::audit
