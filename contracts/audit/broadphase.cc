// SPDX-License-Identifier: MIT
// File: contracts/audit/broadphase.cc   Module: lwc.contracts.audit (implementation unit)
//
// The records of lwc.broadphase in a trace (docs/audit.md, "broadphase"), each judged by the brute-force
// oracle of lwc.contracts.broadphase:
//   find_pairs   the boxes of one call (2-D or 3-D) and the pairs it reported                  B1 B2 B3 B4
//   query        the boxes, a probe box and the ids the query reported                         B10
// The oracle tests every pair, O(n^2): a record may hold at most kMaxBoxes boxes. B5-B9, B11 and B12
// (cell sizes, budgets, registration, stats) are properties of lwc's grid, judged by its properties.
module;
#include <array>
#include <cmath>
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

// The headings of docs/broadphase.md, verbatim (tests/audit_test.cc compares them).
constexpr contracts::Clause kClauses[] = {
    {"B1", "Completeness: every overlapping pair is reported"},
    {"B2", "Soundness: nothing else is reported"},
    {"B3", "Exactly once, lower index first"},
    {"B4", "Canonical order: pairs are sorted lexicographically"},
    {"B5", "Cell-size independence: the same pairs for every valid cell size and policy"},
    {"B6", "Rejection without partial output"},
    {"B7", "Budgets: exactly at a budget is allowed, one over is refused, before allocation"},
    {"B8", "Monotone quantisation: the registered cells hold every point of the box"},
    {"B9", "Reference cell: the cell of the intersection's lower corner is shared and unique"},
    {"B10", "Query: all boxes overlapping a probe, ascending, each once"},
    {"B11", "Oversize levels: every valid box is accepted, and every pair is kept"},
    {"B12", "Stats are exact"},
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
        return absl::InvalidArgumentError(absl::StrFormat(
            "in.%s[%d] axis %d is [%a, %a]: a box must be finite with min <= max (the rejection of bad boxes, B6, "
            "is judged by lwc's own properties)",
            std::string(key), static_cast<int>(i), static_cast<int>(k), lo, hi));
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

template <std::size_t D>
void judge_pairs(std::span<const double> flat, std::span<const std::int64_t> raw, Judgement& j) {
  const std::vector<Box<D>> boxes = boxes_of<D>(flat);
  std::vector<Pair> pairs(raw.size() / 2);
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const std::int64_t a = raw[2 * i];
    const std::int64_t b = raw[2 * i + 1];
    const auto n = static_cast<std::int64_t>(boxes.size());
    if (a < 0 || b < 0 || a >= n || b >= n) {
      // check_pairs takes uint32 indices; an index outside the boxes is named here, with its own value.
      j.verdict = absl::InvalidArgumentError(
          absl::StrCat("B2 soundness: pair (", a, ", ", b, ") names a box beyond the ", boxes.size(), " given"));
      break;
    }
    pairs[i] = Pair{static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(b)};
  }
  if (j.verdict.ok()) j.verdict = contracts::check_pairs<D>(boxes, pairs);
  if (!j.verdict.ok()) {
    j.input = absl::StrCat(boxes.size(), " boxes (", D, "-D)");
    j.expected = pairs_text(contracts::brute_force_pairs<D>(boxes));
    j.got = pairs_text(pairs);
  }
}

// find_pairs: {"in": {"boxes": [[min_x, min_y, max_x, max_y], ...] (or 6 reals in 3-D), "h" (optional)},
//              "out": {"pairs": [[i, j], ...]}}
absl::Status judge_find_pairs(const TraceRecord& r, Judgement& j) {
  std::size_t dims = 0;
  std::vector<double> flat;
  LWC_RETURN_IF_ERROR(read_boxes(r, "boxes", dims, flat));
  if (r.has("in", "h")) {
    LWC_ASSIGN_OR_RETURN(const double h, r.real("in", "h"));
    (void)h;  // any valid cell size gives the same pairs (B5)
  }
  std::vector<std::int64_t> raw;
  LWC_RETURN_IF_ERROR(r.int64_tuples("out", "pairs", 2, raw));
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
