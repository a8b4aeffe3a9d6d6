// SPDX-License-Identifier: MIT
// File: audit/contracts/broadphase.cc   Module: lwc.contracts.audit (implementation unit)
//
// The records of lwc.broadphase in a trace (docs/audit.md, "broadphase"), each judged by the brute-force
// oracle of lwc.contracts.broadphase:
//   find_pairs   the boxes of one call (2-D or 3-D) and the pairs it reported                  B1 B2 B3 B4
//   query        the boxes, a probe box and the ids the query reported                         B10
// The oracle tests every pair, O(n^2): a record may hold at most kMaxBoxes boxes. B5-B9, B11 and B12
// (cell sizes, budgets, registration, stats) are properties of lwc's grid, judged by its properties.
module;
#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <cstddef>
#include <cstdint>
#include <limits>
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
module lwc.contracts.audit;

import lwc.broadphase;
import lwc.contracts.broadphase;

namespace lwc::internal {
namespace {

using contracts::Judgement;
using contracts::TraceRecord;

// The headings of docs/broadphase.md, generated from the spec at build time (audit/clause_table.cmake): the
// report prints each clause as the spec states it, and a clause added to the spec is audited under it.
constexpr contracts::Clause kClauses[] = {
#include "audit/clauses/broadphase.inc"
};

constexpr std::string_view kPairsClauses[] = {"B1", "B2", "B3", "B4"};
constexpr std::string_view kQueryClauses[] = {"B10"};

// The record-size limit: the oracle tests n (n - 1) / 2 pairs, 8.4 million at this size.
constexpr std::size_t kMaxBoxes = 4096;

// Reads in.<key> as boxes [min..., max...] of 2-D (4 reals) or 3-D (6 reals); `dims` is set from the
// first box (2 for an empty list). Every bound finite and min <= max on every axis: a box the contract
// rejects (B6) has no pairs to judge here.
absl::Status read_boxes(const TraceRecord& r, std::string_view key, std::size_t& dims, std::vector<double>& flat) {
  const absl::Status two = r.real_tuples("in", key, 4, flat);
  if (two.ok()) {
    dims = 2;
  } else {
    if (!r.real_tuples("in", key, 6, flat).ok()) return two;
    dims = 3;
  }
  const std::size_t n = flat.size() / (2 * dims);
  if (n > kMaxBoxes) {
    return absl::ResourceExhaustedError(absl::StrCat("in.", absl::string_view(key.data(), key.size()), " holds ", n,
                                                     " boxes; a record may hold at most ", kMaxBoxes,
                                                     " (the oracle is O(n^2))"));
  }
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t k = 0; k < dims; ++k) {
      const double lo = flat[i * 2 * dims + k];
      const double hi = flat[i * 2 * dims + dims + k];
      if (!lwc::fp::is_finite(lo) || !lwc::fp::is_finite(hi) || lo > hi) {
        return absl::InvalidArgumentError(absl::StrCat(
            "in.", std::string(key), "[", i, "] axis ", k, " is [", real_text(lo), ", ", real_text(hi),
            "]: a box must be finite with min <= max (the rejection of bad boxes, B6, is judged by lwc's own "
            "properties)"));
      }
    }
  }
  return absl::OkStatus();
}

template <std::size_t D>
std::vector<Box<D>> boxes_of(std::span<const double> flat) {
  std::vector<Box<D>> boxes(flat.size() / (2 * D));
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    for (std::size_t k = 0; k < D; ++k) {
      boxes[i].min[k] = flat[i * 2 * D + k];
      boxes[i].max[k] = flat[i * 2 * D + D + k];
    }
  }
  return boxes;
}

std::string pairs_text(std::span<const Pair> pairs) {
  std::string out = "[";
  for (std::size_t i = 0; i < pairs.size() && i < 8; ++i) absl::StrAppend(&out, i > 0 ? ", " : "", "(", pairs[i].a, ", ", pairs[i].b, ")");
  if (pairs.size() > 8) absl::StrAppend(&out, ", ... ", pairs.size(), " pairs");
  return out + "]";
}

std::string pair_text(std::int64_t a, std::int64_t b) { return absl::StrCat("(", a, ", ", b, ")"); }

template <std::size_t D>
std::string box_text(const Box<D>& b) {
  std::string out = "[";
  for (std::size_t k = 0; k < D; ++k) absl::StrAppend(&out, k > 0 ? ", " : "", real_text(b.min[k]));
  out += " .. ";
  for (std::size_t k = 0; k < D; ++k) absl::StrAppend(&out, k > 0 ? ", " : "", real_text(b.max[k]));
  return out + "]";
}

// Adds one clause's failure to the judgement: the verdict if it is the first, a finding otherwise.
void violate(Judgement& j, std::string message, std::string expected, std::string got) {
  if (j.verdict.ok()) {
    j.verdict = absl::InvalidArgumentError(std::move(message));
    j.expected = std::move(expected);
    j.got = std::move(got);
  } else {
    j.more.push_back({absl::InvalidArgumentError(std::move(message)), std::move(expected), std::move(got)});
  }
}

constexpr char kHowToWrite[] =
    "write each pair once as [lower index, higher index] and the list sorted lexicographically "
    "(docs/broadphase.md B3, B4), or audit raw engine output with --canonicalise";

// Judges every clause of B1-B4 on its own, so that none hides another: B1 the overlapping pairs missing,
// B2 the pairs reported that do not overlap or name no box, B3 pairs written higher index first, a box
// paired with itself, or pairs repeated, B4 a list out of lexicographic order. Each counts what it found
// and lists the first. With canonicalise_pairs, each pair is read lower index first and the list sorted
// first: B3 then judges only repeats and self-pairs, and B4 is not judged.
template <std::size_t D>
void judge_pairs(std::span<const double> flat, std::span<const std::int64_t> raw, Judgement& j) {
  const std::vector<Box<D>> boxes = boxes_of<D>(flat);
  const auto n = static_cast<std::int64_t>(boxes.size());
  const bool canonicalise = j.canonicalise_pairs;
  std::vector<Pair> got;  // the pairs that name two boxes, each lower index first
  got.reserve(raw.size() / 2);
  std::uint64_t beyond_count = 0;
  std::string beyond_text;
  std::uint64_t reversed = 0;
  std::uint64_t self = 0;
  std::string first_reversed;
  std::string first_self;
  std::uint64_t disorder = 0;
  std::string first_disorder;
  Pair previous{};
  bool have_previous = false;
  for (std::size_t i = 0; 2 * i + 1 < raw.size(); ++i) {
    const std::int64_t a = raw[2 * i];
    const std::int64_t b = raw[2 * i + 1];
    if (a < 0 || b < 0 || a >= n || b >= n) {
      if (beyond_count++ < 4) absl::StrAppend(&beyond_text, beyond_text.empty() ? "" : ", ", pair_text(a, b));
      continue;
    }
    if (a == b) {
      if (self++ == 0) first_self = pair_text(a, b);
      continue;
    }
    if (a > b && !canonicalise && reversed++ == 0) first_reversed = pair_text(a, b);
    const Pair p{static_cast<std::uint32_t>(std::min(a, b)), static_cast<std::uint32_t>(std::max(a, b))};
    if (!canonicalise && have_previous && p < previous) {
      if (disorder++ == 0) {
        first_disorder = absl::StrCat("pair ", pair_text(a, b), " at position ", i, " follows ",
                                      pair_text(previous.a, previous.b));
      }
    }
    previous = p;
    have_previous = true;
    got.push_back(p);
  }
  std::sort(got.begin(), got.end());
  std::uint64_t repeats = 0;
  std::string first_repeat;
  for (std::size_t i = 1; i < got.size(); ++i) {
    if (got[i] == got[i - 1] && repeats++ == 0) first_repeat = pair_text(got[i].a, got[i].b);
  }
  got.erase(std::unique(got.begin(), got.end()), got.end());
  const std::vector<Pair> want = contracts::brute_force_pairs<D>(boxes);
  std::vector<Pair> missing;
  std::set_difference(want.begin(), want.end(), got.begin(), got.end(), std::back_inserter(missing));
  std::vector<Pair> extra;
  std::set_difference(got.begin(), got.end(), want.begin(), want.end(), std::back_inserter(extra));
  const std::size_t reported = raw.size() / 2;
  if (!missing.empty()) {
    const Pair p = missing.front();
    violate(j,
            absl::StrCat("B1 completeness: ", missing.size(), " of the ", want.size(),
                         " overlapping pairs were not reported; the first, ", pair_text(p.a, p.b), ", boxes ",
                         box_text(boxes[p.a]), " and ", box_text(boxes[p.b])),
            absl::StrCat(want.size(), " pairs ", pairs_text(want)),
            absl::StrCat(reported, " pairs reported, missing ", pairs_text(missing)));
  }
  if (!extra.empty() || beyond_count > 0) {
    std::string message = absl::StrCat("B2 soundness: ", extra.size() + beyond_count, " reported pairs are not pairs of overlapping boxes");
    if (beyond_count > 0) {
      absl::StrAppend(&message, "; ", beyond_count, " name a box beyond the ", boxes.size(), " given: ", beyond_text,
                      beyond_count > 4 ? ", ..." : "");
    }
    if (!extra.empty()) {
      const Pair p = extra.front();
      absl::StrAppend(&message, "; ", extra.size(), " do not overlap, the first ", pair_text(p.a, p.b), ", boxes ",
                      box_text(boxes[p.a]), " and ", box_text(boxes[p.b]));
    }
    std::string extras = pairs_text(extra);
    if (beyond_count > 0) extras = absl::StrCat(extras, " and ", beyond_text, beyond_count > 4 ? ", ..." : "");
    violate(j, std::move(message), absl::StrCat(want.size(), " pairs ", pairs_text(want)),
            absl::StrCat(reported, " pairs reported, extra ", extras));
  }
  if (reversed + self + repeats > 0) {
    std::string message = "B3 exactly-once:";
    if (reversed > 0) absl::StrAppend(&message, " ", reversed, " pairs written higher index first (the first ", first_reversed, ");");
    if (self > 0) absl::StrAppend(&message, " ", self, " pairs of a box with itself (the first ", first_self, ");");
    if (repeats > 0) absl::StrAppend(&message, " ", repeats, " pairs reported more than once (the first ", first_repeat, ");");
    absl::StrAppend(&message, " ", kHowToWrite);
    violate(j, std::move(message), "each pair once, lower index first",
            absl::StrCat(reversed, " reversed, ", self, " self-pairs, ", repeats, " repeats"));
  }
  if (disorder > 0) {
    violate(j,
            absl::StrCat("B4 canonical order: ", disorder, " pairs are out of lexicographic order (the first: ",
                         first_disorder, "); ", kHowToWrite),
            "pairs in increasing (lower, higher) order", absl::StrCat(disorder, " pairs out of order"));
  }
  if (!j.verdict.ok()) j.input = absl::StrCat(boxes.size(), " boxes (", D, "-D)");
}

// The clauses a find_pairs record exercises: with canonicalise_pairs B4 is not judged.
constexpr std::string_view kCanonicalisedClauses[] = {"B1", "B2", "B3"};
constexpr std::string_view kRejectionClauses[] = {"B6"};

// find_pairs: {"in": {"boxes": [[min_x, min_y, max_x, max_y], ...] (or 6 reals in 3-D), "h" (optional)},
//              "out": {"pairs": [[i, j], ...]} | {"error": ...}}
absl::Status judge_find_pairs(const TraceRecord& r, Judgement& j) {
  std::size_t dims = 0;
  std::vector<double> flat;
  LWC_RETURN_IF_ERROR(read_boxes(r, "boxes", dims, flat));
  bool valid_h = true;
  double h = 1;
  if (r.has("in", "h")) {
    LWC_ASSIGN_OR_RETURN(h, r.real("in", "h"));
    // Any valid cell size gives the same pairs (B5); an invalid one must be refused (B6).
    valid_h = lwc::fp::is_finite(h) && h > 0;
  }
  if (r.has("out", "error")) {
    if (r.has("out", "pairs")) return absl::InvalidArgumentError("out has both an error and pairs");
    LWC_ASSIGN_OR_RETURN(const TracedError error, read_error(r, "out"));
    (void)error;
    if (valid_h) {
      return absl::InvalidArgumentError(
          "out.error on a call whose boxes and cell size are valid: such a refusal is a budget's (B7), which "
          "the trace cannot judge (the engine's budgets are not in it); leave refused calls out");
    }
    j.checked = kRejectionClauses;  // refused, as B6 requires of an invalid h
    return absl::OkStatus();
  }
  std::vector<std::int64_t> raw;
  LWC_RETURN_IF_ERROR(r.int64_tuples("out", "pairs", 2, raw));
  if (!valid_h) {
    j.checked = kRejectionClauses;
    j.verdict = absl::InvalidArgumentError(absl::StrCat(
        "B6 rejection without partial output: cell size h = ", real_text(h),
        " is not finite and > 0, so the call must fail, but it returned ", raw.size() / 2, " pairs"));
    j.input = absl::StrCat(flat.size() / (2 * dims), " boxes (", dims, "-D), h = ", real_text(h));
    j.expected = "an error (InvalidArgument)";
    j.got = absl::StrCat(raw.size() / 2, " pairs");
    return absl::OkStatus();
  }
  if (j.canonicalise_pairs) j.checked = kCanonicalisedClauses;
  if (dims == 2) {
    judge_pairs<2>(flat, raw, j);
  } else {
    judge_pairs<3>(flat, raw, j);
  }
  return absl::OkStatus();
}

template <std::size_t D>
void judge_probe(std::span<const double> flat, std::span<const double> probe_flat, std::span<const std::int64_t> raw,
                 Judgement& j) {
  const std::vector<Box<D>> boxes = boxes_of<D>(flat);
  const Box<D> probe = boxes_of<D>(probe_flat).front();
  std::vector<std::uint32_t> ids;
  for (const std::int64_t id : raw) {
    if (id < 0 || id >= static_cast<std::int64_t>(boxes.size())) {
      j.verdict = absl::InvalidArgumentError(absl::StrCat("B10 query: id ", id, " names a box beyond the ", boxes.size(), " given"));
      break;
    }
    ids.push_back(static_cast<std::uint32_t>(id));
  }
  if (j.verdict.ok()) j.verdict = contracts::check_query<D>(boxes, probe, ids);
  if (!j.verdict.ok()) {
    std::string want = "[";
    std::size_t shown = 0;
    for (std::size_t i = 0; i < boxes.size(); ++i) {
      bool overlaps = true;
      for (std::size_t k = 0; k < D; ++k) {
        overlaps &= std::max(boxes[i].min[k], probe.min[k]) <= std::min(boxes[i].max[k], probe.max[k]);
      }
      if (overlaps && shown++ < 16) absl::StrAppend(&want, shown > 1 ? ", " : "", i);
    }
    j.input = absl::StrCat(boxes.size(), " boxes (", D, "-D) and a probe");
    j.expected = want + "]";
    std::string got = "[";
    for (std::size_t i = 0; i < raw.size() && i < 16; ++i) absl::StrAppend(&got, i > 0 ? ", " : "", raw[i]);
    j.got = got + "]";
  }
}

// query: {"in": {"boxes": [...], "probe": [min..., max...]}, "out": {"ids": [...]}}
absl::Status judge_query(const TraceRecord& r, Judgement& j) {
  std::size_t dims = 0;
  std::vector<double> flat;
  LWC_RETURN_IF_ERROR(read_boxes(r, "boxes", dims, flat));
  std::vector<double> probe;
  LWC_RETURN_IF_ERROR(r.reals("in", "probe", probe));
  if (probe.size() != 2 * dims) {
    return absl::InvalidArgumentError(absl::StrCat("in.probe holds ", probe.size(), " reals; these ", dims,
                                                   "-D boxes need ", 2 * dims));
  }
  for (std::size_t k = 0; k < dims; ++k) {
    if (!lwc::fp::is_finite(probe[k]) || !lwc::fp::is_finite(probe[dims + k]) || probe[k] > probe[dims + k]) {
      return absl::InvalidArgumentError("in.probe must be finite with min <= max");
    }
  }
  std::vector<std::int64_t> ids;
  LWC_RETURN_IF_ERROR(r.int64s("out", "ids", ids));
  if (dims == 2) {
    judge_probe<2>(flat, probe, ids, j);
  } else {
    judge_probe<3>(flat, probe, ids, j);
  }
  return absl::OkStatus();
}

constexpr contracts::RecordKind kKinds[] = {
    {"find_pairs", kPairsClauses, &judge_find_pairs},
    {"query", kQueryClauses, &judge_query},
};

}  // namespace

const contracts::ContractAudit& broadphase_audit() {
  static constexpr contracts::ContractAudit kAudit = {"broadphase", kClauses, kKinds};
  return kAudit;
}

}  // namespace lwc::internal
