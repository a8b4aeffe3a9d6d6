// SPDX-License-Identifier: MIT
// File: audit/contracts/decompose.cc    Module: lwc.audit.trace (implementation unit)
//
// The records of lwc.decompose in a trace (docs/audit.md, "decompose"), each judged by the checkers of
// lwc.contracts.decompose:
//   split        one call x, size -> (chunk, local) or an error          D1 D2 D3 D5 D6
//   split_axes   one 2D/3D call p, size -> (chunk[], local[]) or an error D8, and D1 D2 D3 D6 on each axis (D5)
//   split_all    one batch call xs, size -> (chunk[], local[]) or an error D11, and D1 D2 D3 D6 on each element (D5)
//   cell_of      one call v, h -> cell or an error code                  D9
//   stored       an address kept in a save or cache: x, size and the stored chunk [and local]; a misfiled
//                one gets a migration line to its floor-decomposition key                D3 D5 D6 (D1 D2)
// Every clause a record violates is counted (docs/audit.md, A4): the checker's verdict first, then each
// other clause of D1 D2 D3 D6 the answer breaks, decided on its own (split_failures()). A size <= 0 is
// judged by D5 alone: it must be refused, and an answer for it has no decomposition to judge.
// D4 (no overflow inside lwc), D7 (lwc's own fast paths) and D10 (monotone, which D9 implies record by
// record) are not properties of a single traced call.
module;
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
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
#include "absl/strings/str_format.h"
#include "lwc/check.h"
module lwc.audit.trace;

import lwc.decompose;
import lwc.contracts.decompose;

namespace lwc::internal {
namespace {

using audit::Judgement;
using audit::TraceRecord;

// The headings of docs/decompose.md, generated from the spec at build time (audit/clause_table.cmake): the
// report prints each clause as the spec states it, and a clause added to the spec is audited under it.
constexpr audit::Clause kClauses[] = {
#include "audit/clauses/decompose.inc"
};

constexpr std::string_view kSplitClauses[] = {"D1", "D2", "D3", "D5", "D6"};
constexpr std::string_view kAxesClauses[] = {"D1", "D2", "D3", "D5", "D6", "D8"};
constexpr std::string_view kBatchClauses[] = {"D1", "D2", "D3", "D5", "D6", "D11"};
constexpr std::string_view kCellClauses[] = {"D9"};
constexpr std::string_view kSizeClauses[] = {"D5"};
constexpr std::string_view kStoredClauses[] = {"D3", "D5", "D6"};

absl::string_view sv(std::string_view s) { return absl::string_view(s.data(), s.size()); }

std::string point(std::int64_t chunk, std::int64_t local) {
  return absl::StrCat("(chunk ", chunk, ", local ", local, ")");
}

std::string expected_split(std::int64_t x, std::int64_t size) {
  if (size <= 0) return "an error: a size <= 0 must be rejected (D5)";
  const ChunkPoint want = contracts::oracle_split(x, size);
  return point(want.chunk, want.local);
}

std::string list(std::span<const std::int64_t> v) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) absl::StrAppend(&out, i > 0 ? ", " : "", v[i]);
  return out + "]";
}

// The clauses of D1 D2 D3 D6 that the answer (chunk, local) for x by size > 0 breaks, each decided on its
// own and named by its own message, in check_split's order (D6, D2, D1, D3); `has_local` false judges a
// stored chunk id alone (D3, D6). Empty iff the answer is the floor decomposition:
//   D1  chunk * size + local != x, in int128
//   D2  local outside [0, size)
//   D3  chunk != floor(x / size), the one chunk D1 and D2 leave (D3's consequence)
//   D6  the wrong branch of D6's rule: chunk = x / size (C++'s truncating quotient) where the floor is one
//       less (x < 0, size does not divide x), or x / size - 1 where the truncating quotient is the floor
//       (decrementing every negative x, the seed's second regression)
// `where` prefixes each message after the clause id ("axis y: ", "element 3: ").
std::vector<absl::Status> split_failures(std::int64_t x, std::int64_t size, std::int64_t chunk, std::int64_t local,
                                         bool has_local, std::string_view where = {}) {
  std::vector<absl::Status> out;
  const ChunkPoint want = contracts::oracle_split(x, size);
  const std::string got = has_local ? point(chunk, local) : absl::StrCat("chunk ", chunk);
  const auto fail = [&](std::string_view clause, const std::string& why) {
    out.push_back(absl::InvalidArgumentError(absl::StrCat(sv(clause), sv(where), why, " for x = ", x, ", size = ",
                                                          size, ": got ", got)));
  };
  const std::int64_t truncated = x / size;
  if ((truncated != want.chunk && chunk == truncated) ||
      (truncated == want.chunk && truncated != std::numeric_limits<std::int64_t>::min() && chunk == truncated - 1)) {
    fail("D6 truncation: ", chunk == truncated
                                ? absl::StrCat("chunk is the truncating quotient; floor gives chunk ", want.chunk)
                                : absl::StrCat("chunk is the truncating quotient minus one, but size divides x (or "
                                               "x >= 0): floor gives chunk ",
                                               want.chunk));
  }
  if (has_local && (local < 0 || local >= size)) fail("D2 range: ", absl::StrCat("local is outside [0, ", size, ")"));
  if (has_local) {
    const absl::int128 rebuilt = absl::int128(chunk) * size + local;
    if (rebuilt != x) {
      std::ostringstream text;
      text << rebuilt;
      fail("D1 reconstruction: ", absl::StrCat("chunk * size + local = ", text.str(), " != x"));
    }
  }
  if (chunk != want.chunk) fail("D3 uniqueness: ", absl::StrCat("the chunk of x is floor(x / size) = ", want.chunk));
  return out;
}

// Counts every clause of `failures` on the record (add_violation keeps each clause once, the verdict's first).
void add_failures(Judgement& j, std::vector<absl::Status> failures) {
  for (absl::Status& f : failures) add_violation(j, std::move(f), j.expected, j.got);
}

std::string outcome(const absl::StatusOr<std::int64_t>& r) {
  if (r.ok()) return absl::StrCat("cell ", *r);
  return absl::StrCat("error ", absl::StatusCodeToString(r.status().code()));
}

// split: {"in": {"x", "size"}, "out": {"chunk", "local"} or {"error": "..."}}
absl::Status judge_split(const TraceRecord& r, Judgement& j) {
  LWC_ASSIGN_OR_RETURN(const std::int64_t x, r.int64("in", "x"));
  LWC_ASSIGN_OR_RETURN(const std::int64_t size, r.int64("in", "size"));
  if (r.has("out", "error")) {
    if (r.has("out", "chunk") || r.has("out", "local")) {
      return absl::InvalidArgumentError("out has both an error and a chunk or local");
    }
    // The error rule of every op: D5 asks only that the size be refused, so any code or text will do.
    LWC_ASSIGN_OR_RETURN(const TracedError traced, read_error(r, "out"));
    const std::string_view error = traced.text;
    j.verdict = contracts::check_size_validation(size, false);
    if (!j.verdict.ok()) {
      j.verdict = absl::InvalidArgumentError(
          absl::StrCat(j.verdict.message(), " (the call failed with \"", sv(error), "\")"));
      j.input = absl::StrCat("x = ", x, ", size = ", size);
      j.expected = expected_split(x, size);
      j.got = absl::StrCat("error \"", sv(error), "\"");
    }
    return absl::OkStatus();
  }
  LWC_ASSIGN_OR_RETURN(const std::int64_t chunk, r.int64("out", "chunk"));
  LWC_ASSIGN_OR_RETURN(const std::int64_t local, r.int64("out", "local"));
  j.verdict = contracts::check_split(x, size, chunk, local);
  if (!j.verdict.ok()) {
    j.input = absl::StrCat("x = ", x, ", size = ", size);
    j.expected = expected_split(x, size);
    j.got = point(chunk, local);
    if (size > 0) add_failures(j, split_failures(x, size, chunk, local, true));
  }
  return absl::OkStatus();
}

// An answer of split_axes or split_all for a size: with "error" it must be a size <= 0 (D5), and a size
// <= 0 must have one. Returns true when D5 alone decides the record (then j holds its verdict).
absl::StatusOr<bool> judged_by_size(const TraceRecord& r, std::int64_t size, std::string_view input, Judgement& j) {
  // Any code or text: D5 asks only that the size be refused.
  LWC_ASSIGN_OR_RETURN(const bool refused, read_refusal(r, "chunk"));
  if (refused && r.has("out", "local")) return absl::InvalidArgumentError("out has both an error and local");
  if (!refused && size > 0) return false;
  j.checked = kSizeClauses;
  j.verdict = contracts::check_size_validation(size, !refused);
  if (!j.verdict.ok()) {
    j.input = std::string(input);
    j.expected = size > 0 ? "a decomposition" : "an error: a size <= 0 must be rejected (D5)";
    j.got = refused ? "an error" : "a decomposition";
  }
  return true;
}

// split_axes: {"in": {"p": [x, y] or [x, y, z], "size"}, "out": {"chunk": [...], "local": [...]}}
absl::Status judge_split_axes(const TraceRecord& r, Judgement& j) {
  std::vector<std::int64_t> p;
  std::vector<std::int64_t> chunk;
  std::vector<std::int64_t> local;
  LWC_RETURN_IF_ERROR(r.int64s("in", "p", p));
  LWC_ASSIGN_OR_RETURN(const std::int64_t size, r.int64("in", "size"));
  LWC_ASSIGN_OR_RETURN(const bool by_size, judged_by_size(r, size, absl::StrCat("p = ", list(p), ", size = ", size), j));
  if (by_size) return absl::OkStatus();
  LWC_RETURN_IF_ERROR(r.int64s("out", "chunk", chunk));
  LWC_RETURN_IF_ERROR(r.int64s("out", "local", local));
  if (p.size() < 2 || p.size() > 3 || chunk.size() != p.size() || local.size() != p.size()) {
    return absl::InvalidArgumentError(absl::StrCat("in.p, out.chunk and out.local must each hold 2 or 3 "
                                                   "coordinates; they hold ",
                                                   p.size(), ", ", chunk.size(), " and ", local.size()));
  }
  const std::size_t axes = p.size();
  if (axes == 2) {
    j.verdict = contracts::check_split_axes(Point2{p[0], p[1]}, size,
                                            ChunkPoint2{{chunk[0], chunk[1]}, {local[0], local[1]}});
  } else {
    j.verdict = contracts::check_split_axes(
        Point3{p[0], p[1], p[2]}, size, ChunkPoint3{{chunk[0], chunk[1], chunk[2]}, {local[0], local[1], local[2]}});
  }
  if (!j.verdict.ok()) {
    j.input = absl::StrCat("p = ", list(p), ", size = ", size);
    std::string want_chunk = "[";
    std::string want_local = "[";
    for (std::size_t a = 0; a < axes; ++a) {
      const ChunkPoint w = contracts::oracle_split(p[a], size);
      absl::StrAppend(&want_chunk, a > 0 ? ", " : "", w.chunk);
      absl::StrAppend(&want_local, a > 0 ? ", " : "", w.local);
    }
    j.expected = absl::StrCat("chunk ", want_chunk, "], local ", want_local, "]");
    j.got = absl::StrCat("chunk ", list(chunk), ", local ", list(local));
    for (std::size_t a = 0; a < axes; ++a) {
      add_failures(j, split_failures(p[a], size, chunk[a], local[a], true,
                                     absl::StrCat("axis ", std::string(1, "xyz"[a]), ": ")));
    }
  }
  return absl::OkStatus();
}

// split_all: {"in": {"xs": [...], "size"}, "out": {"chunk": [...], "local": [...]}}
absl::Status judge_split_all(const TraceRecord& r, Judgement& j) {
  std::vector<std::int64_t> xs;
  std::vector<std::int64_t> chunk;
  std::vector<std::int64_t> local;
  LWC_RETURN_IF_ERROR(r.int64s("in", "xs", xs));
  LWC_ASSIGN_OR_RETURN(const std::int64_t size, r.int64("in", "size"));
  LWC_ASSIGN_OR_RETURN(const bool by_size, judged_by_size(r, size, absl::StrCat("xs = ", list(xs), ", size = ", size), j));
  if (by_size) return absl::OkStatus();
  LWC_RETURN_IF_ERROR(r.int64s("out", "chunk", chunk));
  LWC_RETURN_IF_ERROR(r.int64s("out", "local", local));
  if (chunk.size() != local.size()) {
    return absl::InvalidArgumentError(absl::StrCat("out.chunk holds ", chunk.size(), " values but out.local ",
                                                   local.size()));
  }
  std::vector<ChunkPoint> got(chunk.size());
  for (std::size_t i = 0; i < got.size(); ++i) got[i] = {chunk[i], local[i]};
  j.verdict = contracts::check_split_batch(xs, size, got);
  if (!j.verdict.ok()) {
    j.input = absl::StrCat("xs = ", list(xs), ", size = ", size);
    j.expected = "(chunk, local) = split(xs[i], size) for every i";
    j.got = absl::StrCat("chunk ", list(chunk), ", local ", list(local));
    for (std::size_t i = 0; i < xs.size() && i < got.size(); ++i) {
      add_failures(j, split_failures(xs[i], size, chunk[i], local[i], true, absl::StrCat("element ", i, ": ")));
    }
  }
  return absl::OkStatus();
}

// cell_of: {"in": {"v", "h"}, "out": {"cell"} or {"error": code or text}}
// A cell size h that is not finite and > 0 is judged under D5 (a size is accepted iff it is valid): the
// call must fail. D9 judges the cell of a valid h.
absl::Status judge_cell_of(const TraceRecord& r, Judgement& j) {
  LWC_ASSIGN_OR_RETURN(const double v, r.real("in", "v"));
  LWC_ASSIGN_OR_RETURN(const double h, r.real("in", "h"));
  const absl::StatusOr<std::int64_t> want = contracts::oracle_cell_of(v, h);
  absl::StatusOr<std::int64_t> got = absl::UnknownError("unset");
  if (r.has("out", "error")) {
    if (r.has("out", "cell")) return absl::InvalidArgumentError("out has both an error and a cell");
    LWC_ASSIGN_OR_RETURN(const TracedError error, read_error(r, "out"));
    got = as_traced(error, want.status());
  } else {
    LWC_ASSIGN_OR_RETURN(const std::int64_t cell, r.int64("out", "cell"));
    got = cell;
  }
  const bool valid_h = std::isfinite(h) && h > 0;
  if (!valid_h) {
    j.checked = kSizeClauses;
    if (got.ok()) {
      j.verdict = absl::InvalidArgumentError(absl::StrCat("D5 size validation: cell size h = ", real_text(h),
                                                          " is not finite and > 0, yet cell_of accepted it (cell ",
                                                          *got, ")"));
    } else if (got.status().code() != want.status().code()) {
      j.verdict = absl::InvalidArgumentError(absl::StrCat(
          "D5 size validation: cell size h = ", real_text(h), " was refused as ",
          absl::StatusCodeToString(got.status().code()), "; an invalid cell size is ",
          absl::StatusCodeToString(want.status().code())));
    }
  } else {
    j.verdict = contracts::check_cell_of(v, h, got);
  }
  if (!j.verdict.ok()) {
    j.input = absl::StrCat("v = ", real_text(v), ", h = ", real_text(h));
    j.expected = outcome(want);
    j.got = outcome(got);
  }
  return absl::OkStatus();
}

std::string key_json(std::int64_t chunk, const std::int64_t* local) {
  if (local == nullptr) return absl::StrCat("{\"chunk\":", chunk, "}");
  return absl::StrCat("{\"chunk\":", chunk, ",\"local\":", *local, "}");
}

// stored: {"in": {"x", "size"}, "stored": {"chunk"[, "local"]}}
absl::Status judge_stored(const TraceRecord& r, Judgement& j) {
  LWC_ASSIGN_OR_RETURN(const std::int64_t x, r.int64("in", "x"));
  LWC_ASSIGN_OR_RETURN(const std::int64_t size, r.int64("in", "size"));
  LWC_ASSIGN_OR_RETURN(const std::int64_t chunk, r.int64("stored", "chunk"));
  const bool has_local = r.has("stored", "local");
  std::int64_t local = 0;
  if (has_local) {
    LWC_ASSIGN_OR_RETURN(local, r.int64("stored", "local"));
  }
  if (has_local) j.checked = kSplitClauses;
  j.verdict = has_local ? contracts::check_split(x, size, chunk, local) : contracts::check_chunk(x, size, chunk);
  if (j.verdict.ok()) return absl::OkStatus();
  j.input = absl::StrCat("x = ", x, ", size = ", size);
  j.got = has_local ? point(chunk, local) : absl::StrCat("chunk ", chunk);
  if (size <= 0) {
    j.expected = "no key: a size <= 0 decomposes nothing (D5)";
    return absl::OkStatus();  // no migration: there is no correct key to move it to
  }
  const ChunkPoint want = contracts::oracle_split(x, size);
  j.expected = has_local ? point(want.chunk, want.local) : absl::StrCat("chunk ", want.chunk);
  add_failures(j, split_failures(x, size, chunk, local, has_local));
  j.migration = absl::StrCat("\"x\":", x, ",\"size\":", size, ",\"from\":", key_json(chunk, has_local ? &local : nullptr),
                             ",\"to\":", key_json(want.chunk, has_local ? &want.local : nullptr));
  return absl::OkStatus();
}

constexpr audit::RecordKind kKinds[] = {
    {"split", kSplitClauses, &judge_split, false},
    {"split_axes", kAxesClauses, &judge_split_axes, false},
    {"split_all", kBatchClauses, &judge_split_all, false},
    {"cell_of", kCellClauses, &judge_cell_of, false},
    {"stored", kStoredClauses, &judge_stored, true},
};

}  // namespace

const audit::ContractAudit& decompose_audit() {
  static constexpr audit::ContractAudit kAudit = {"decompose", kClauses, kKinds};
  return kAudit;
}

}  // namespace lwc::internal
