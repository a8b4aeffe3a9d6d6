// SPDX-License-Identifier: MIT
// File: audit/contracts/broadphase.cc   Module: lwc.audit.trace (implementation unit)
//
// The records of lwc.broadphase in a trace (docs/audit.md, "broadphase"), each judged by the brute-force
// oracle of lwc.contracts.broadphase:
//   find_pairs   the boxes of one call (2-D or 3-D) and the pairs it reported, or an error     B1 B2 B3 B4
//                (B6 when a box or h is invalid: the call must fail)
//   query        the boxes, a probe box and the ids the query reported, or an error            B10 (B6)
// The oracle tests every pair, O(n^2): a record may hold at most kMaxBoxes boxes. B5-B9, B11 and B12
// (cell sizes, budgets, registration, stats) are properties of lwc's grid, judged by its properties.
//
// A persistent grid (docs/broadphase.md, E-clauses) is traced as sessions ("session", "seq", as rebase's),
// each judged against lwc.contracts.broadphase's PersistentModel; boxes are named by the engine's own ids:
//   grid_create      the grid's dimension and cell size [, an error]                  (B6 for an invalid h)
//   grid_add         an id, its box, payload and filter (optional); OK or an error            B6 (invalid box)
//   grid_move        an id and its new box; OK or an error                                    E3, B6
//   grid_remove      an id; OK or an error                                                     E3
//   grid_set_filter  an id, its new group and mask; grid_set_user: its new payload            E3
//   grid_update      the began and ended pairs the engine reported (payloads optional)        E1 E3 E7 E8
//   grid_query       a box and the ids the query reported, on the boxes as last given         E11 (B6)
//   grid_end         the session ends                                                          (no clause)
// E2, E4-E6, E9, E10 and E12 (the pair list, refused updates, cost, swept candidates, rays, floats,
// allocation) are not traced.
module;
#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
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
module lwc.audit.trace;

import lwc.decompose;
import lwc.broadphase;
import lwc.contracts.broadphase;

namespace lwc::internal {
namespace {

using audit::Judgement;
using audit::TraceRecord;

// The headings of docs/broadphase.md, generated from the spec at build time (audit/clause_table.cmake): the
// report prints each clause as the spec states it, and a clause added to the spec is audited under it.
constexpr audit::Clause kClauses[] = {
#include "audit/clauses/broadphase.inc"
#include "audit/clauses/broadphase_grid.inc"
};

constexpr std::string_view kPairsClauses[] = {"B1", "B2", "B3", "B4"};
constexpr std::string_view kQueryClauses[] = {"B10"};
constexpr std::string_view kRejectionClauses[] = {"B6"};

// The record-size limit: the oracle tests n (n - 1) / 2 pairs, 8.4 million at this size.
constexpr std::size_t kMaxBoxes = 4096;

// Reads in.<key> as boxes [min..., max...] of 2-D (4 reals) or 3-D (6 reals); `dims` is set from the
// first box (2 for an empty list). Any reals are read, NaN and infinities included: a box the contract
// rejects (B6) is judged by invalid_box().
absl::Status read_boxes(const TraceRecord& r, std::string_view key, std::size_t& dims, std::vector<double>& flat) {
  absl::Status two = r.real_tuples("in", key, 4, flat);
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
  return absl::OkStatus();
}

// The first bound of the flattened boxes (each 2 * dims reals) that makes a box invalid (B6: a NaN or
// infinite bound, or min > max on an axis), described as "in.boxes[3] axis 0 is [NaN, 1 (0x1p+0)]"; empty
// when every box is valid. `what` names the field ("in.boxes", "in.probe" for a single box).
std::string invalid_box(std::span<const double> flat, std::size_t dims, std::string_view what, bool indexed = true) {
  const std::size_t n = flat.size() / (2 * dims);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t k = 0; k < dims; ++k) {
      const double lo = flat[i * 2 * dims + k];
      const double hi = flat[i * 2 * dims + dims + k];
      if (!lwc::fp::is_finite(lo) || !lwc::fp::is_finite(hi) || lo > hi) {
        return absl::StrCat(absl::string_view(what.data(), what.size()), indexed ? absl::StrCat("[", i, "]") : "",
                            " axis ", k, " is [", real_text(lo), ", ", real_text(hi), "]");
      }
    }
  }
  return {};
}

// B6 for a call given an invalid box (or cell size): it must fail, and an answer is a violation.
void judge_rejection(const std::string& why, bool refused, std::string input, std::string got, Judgement& j) {
  j.checked = kRejectionClauses;
  if (refused) return;
  j.verdict = absl::InvalidArgumentError(absl::StrCat("B6 rejection without partial output: ", why,
                                                      " (not finite with min <= max), so the call must fail, but it returned ",
                                                      got));
  j.input = std::move(input);
  j.expected = "an error (InvalidArgument)";
  j.got = std::move(got);
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
void violate(Judgement& j, const std::string& message, std::string expected, std::string got) {
  if (j.verdict.ok()) {
    j.verdict = absl::InvalidArgumentError(message);
    j.expected = std::move(expected);
    j.got = std::move(got);
  } else {
    j.more.push_back({absl::InvalidArgumentError(message), std::move(expected), std::move(got)});
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
    violate(j, message, absl::StrCat(want.size(), " pairs ", pairs_text(want)),
            absl::StrCat(reported, " pairs reported, extra ", extras));
  }
  if (reversed + self + repeats > 0) {
    std::string message = "B3 exactly-once:";
    if (reversed > 0) absl::StrAppend(&message, " ", reversed, " pairs written higher index first (the first ", first_reversed, ");");
    if (self > 0) absl::StrAppend(&message, " ", self, " pairs of a box with itself (the first ", first_self, ");");
    if (repeats > 0) absl::StrAppend(&message, " ", repeats, " pairs reported more than once (the first ", first_repeat, ");");
    absl::StrAppend(&message, " ", kHowToWrite);
    violate(j, message, "each pair once, lower index first",
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
  // A box that is not finite with min <= max, or an invalid h, must make the call fail (B6).
  std::string invalid = invalid_box(flat, dims, "in.boxes");
  if (invalid.empty() && !valid_h) invalid = absl::StrCat("cell size h = ", real_text(h), " is not finite and > 0");
  const std::string input = absl::StrCat(flat.size() / (2 * dims), " boxes (", dims, "-D)",
                                         r.has("in", "h") ? absl::StrCat(", h = ", real_text(h)) : "");
  LWC_ASSIGN_OR_RETURN(const bool refused, read_refusal(r, "pairs"));
  if (refused) {
    if (invalid.empty()) {
      return absl::InvalidArgumentError(
          "out.error on a call whose boxes and cell size are valid: such a refusal is a budget's (B7), which "
          "the trace cannot judge (the engine's budgets are not in it); leave refused calls out");
    }
    judge_rejection(invalid, true, input, "an error", j);  // refused, as B6 requires
    return absl::OkStatus();
  }
  std::vector<std::int64_t> raw;
  LWC_RETURN_IF_ERROR(r.int64_tuples("out", "pairs", 2, raw));
  if (!invalid.empty()) {
    judge_rejection(invalid, false, input, absl::StrCat(raw.size() / 2, " pairs"), j);
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
  std::string invalid = invalid_box(flat, dims, "in.boxes");
  if (invalid.empty()) invalid = invalid_box(probe, dims, "in.probe", false);
  const std::string input = absl::StrCat(flat.size() / (2 * dims), " boxes (", dims, "-D) and a probe");
  LWC_ASSIGN_OR_RETURN(const bool refused, read_refusal(r, "ids"));
  if (refused) {
    if (invalid.empty()) {
      return absl::InvalidArgumentError(
          "out.error on a query whose boxes and probe are valid: no clause lets it fail; leave refused calls out");
    }
    judge_rejection(invalid, true, input, "an error", j);
    return absl::OkStatus();
  }
  std::vector<std::int64_t> ids;
  LWC_RETURN_IF_ERROR(r.int64s("out", "ids", ids));
  if (!invalid.empty()) {
    judge_rejection(invalid, false, input, absl::StrCat(ids.size(), " ids"), j);
    return absl::OkStatus();
  }
  if (dims == 2) {
    judge_probe<2>(flat, probe, ids, j);
  } else {
    judge_probe<3>(flat, probe, ids, j);
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------------------------------
// The persistent grid's sessions (E-clauses): the engine's ids are mapped to the model's objects (numbered
// by successful adds); an id names one box from its add to its remove and may name another box later.

constexpr std::string_view kInvalidBoxClauses[] = {"B6"};
constexpr std::string_view kHandleClauses[] = {"E3"};
constexpr std::string_view kUpdateClauses[] = {"E1", "E3", "E8"};
constexpr std::string_view kUpdatePayloadClauses[] = {"E1", "E3", "E7", "E8"};
constexpr std::string_view kGridQueryClauses[] = {"E11"};

// A session's model is brute force over every box it ever held, O(n^2) per update: a session may add at
// most this many boxes.
constexpr std::size_t kMaxGridObjects = 4096;

using contracts::ObjectPair;

class GridSession final : public audit::Session {
 public:
  std::size_t dims = 0;  // 0 until grid_create
  std::uint64_t invalid_create_at = 0;  // the line of a grid_create that accepted an invalid h, else 0
  std::optional<contracts::PersistentModel<2>> model2;
  std::optional<contracts::PersistentModel<3>> model3;
  std::map<std::int64_t, std::size_t> live;       // id -> object, the boxes as last given (S')
  std::map<std::int64_t, std::size_t> committed;  // id -> object, the boxes at the last update (S)
  std::vector<std::int64_t> id_of;                // object -> the engine's id
  std::vector<std::uint64_t> added_at;            // object -> line of its add
  std::map<std::int64_t, std::uint64_t> removed_at;  // id -> line of its last remove, while not live
  std::map<ObjectPair, std::uint64_t> began_at;   // the model's pair set S, each with the line it began at
  // The pair set as the engine's own events built it, and the line at which it first differed from the
  // model's (0 while they agree): an update that is right by the engine's own pair set follows that line.
  std::set<ObjectPair> engine_pairs;
  std::uint64_t diverged_at = 0;
};

std::unique_ptr<audit::Session> open_grid_session() { return std::make_unique<GridSession>(); }

GridSession& grid_state(audit::Session& s) { return static_cast<GridSession&>(s); }

template <std::size_t D>
contracts::PersistentModel<D>& grid_model(GridSession& s) {
  if constexpr (D == 2) {
    return *s.model2;
  } else {
    return *s.model3;
  }
}

// Runs `f.template operator()<D>()` for the session's dimension; FailedPrecondition before grid_create.
template <typename F>
absl::Status with_grid(GridSession& s, F&& f) {
  if (s.dims == 2) return f.template operator()<2>();
  if (s.dims == 3) return f.template operator()<3>();
  if (s.invalid_create_at != 0) {
    return absl::FailedPreconditionError(absl::StrCat("the grid was created at line ", s.invalid_create_at,
                                                      " with an invalid cell size (a B6 violation), which no model "
                                                      "holds: its events are not judged"));
  }
  return absl::FailedPreconditionError("the session's first event must be \"grid_create\" (dims and cell size h)");
}

// in.box: 2 * D reals, [min..., max...]. `valid`: finite with min <= max on every axis (else B6: refused).
template <std::size_t D>
absl::Status read_grid_box(const TraceRecord& r, Box<D>& box, bool& valid) {
  std::vector<double> flat;
  LWC_RETURN_IF_ERROR(r.reals("in", "box", flat));
  if (flat.size() != 2 * D) {
    return absl::InvalidArgumentError(absl::StrCat("in.box holds ", flat.size(), " reals; this ", D, "-D grid needs ", 2 * D));
  }
  valid = true;
  for (std::size_t k = 0; k < D; ++k) {
    box.min[k] = flat[k];
    box.max[k] = flat[D + k];
    valid = valid && lwc::fp::is_finite(box.min[k]) && lwc::fp::is_finite(box.max[k]) && box.min[k] <= box.max[k];
  }
  return absl::OkStatus();
}

std::string id_pair_text(const GridSession& s, const ObjectPair& p) {
  return absl::StrCat("(", s.id_of[p.first], ", ", s.id_of[p.second], ")");
}

std::string id_pairs_text(const GridSession& s, const std::vector<ObjectPair>& pairs) {
  std::string out = "[";
  for (std::size_t i = 0; i < pairs.size() && i < 8; ++i) absl::StrAppend(&out, i > 0 ? ", " : "", id_pair_text(s, pairs[i]));
  if (pairs.size() > 8) absl::StrAppend(&out, ", ... ", pairs.size(), " pairs");
  return out + "]";
}

// The engine's events as written (ids, without payloads): "[(11, 10), (11, 12), ... 40 pairs]".
std::string raw_pairs_text(const std::vector<std::int64_t>& raw, std::size_t width) {
  std::string out = "[";
  const std::size_t n = raw.size() / width;
  for (std::size_t i = 0; i < n && i < 8; ++i) absl::StrAppend(&out, i > 0 ? ", " : "", pair_text(raw[i * width], raw[i * width + 1]));
  if (n > 8) absl::StrAppend(&out, ", ... ", n, " pairs");
  return out + "]";
}

// Why `id` is not live: "removed at line N", or "never added".
std::string not_live_text(const GridSession& s, std::int64_t id) {
  const auto at = s.removed_at.find(id);
  if (at != s.removed_at.end()) return absl::StrCat("removed at line ", at->second);
  return "never added";
}

// An op on an id that is not live must be refused (E3): clean when it was, a violation when it succeeded.
void judge_not_live(const GridSession& s, std::string_view op, std::int64_t id, bool refused, Judgement& j) {
  j.checked = kHandleClauses;
  if (refused) return;
  j.verdict = absl::InvalidArgumentError(absl::StrCat("E3 handle safety: ", std::string(op), " of id ", id, ", which is not live (",
                                                      not_live_text(s, id), "), succeeded; an op with an id that is not "
                                                      "live must be refused (NotFound) and change nothing"));
  j.input = absl::StrCat("id ", id);
  j.expected = "an error (NotFound)";
  j.got = "OK";
}

// grid_create: {"in": {"dims": 2 | 3, "h": cell size}, "out": {"error"} (optional: no grid was made)}.
// An h that is not finite and > 0 must be refused (B6); a refused create leaves the session to a later
// one, and a grid made with an invalid h is a B6 violation whose later events cannot be judged (no model
// holds it). A refusal of a valid h is judged by no clause, and reported.
absl::Status on_grid_create(const TraceRecord& r, audit::Session& session, Judgement& j) {
  GridSession& s = grid_state(session);
  if (s.dims != 0) return absl::InvalidArgumentError("grid_create in a session that has its grid already");
  if (s.invalid_create_at != 0) return with_grid(s, []<std::size_t D>() { return absl::OkStatus(); });
  LWC_ASSIGN_OR_RETURN(const std::int64_t dims, r.int64("in", "dims"));
  if (dims != 2 && dims != 3) return absl::InvalidArgumentError(absl::StrCat("in.dims = ", dims, " is not 2 or 3"));
  LWC_ASSIGN_OR_RETURN(const double h, r.real("in", "h"));
  LWC_ASSIGN_OR_RETURN(const bool refused, read_refusal(r));
  const absl::StatusOr<CellSize> cell = CellSize::create(h);
  if (!cell.ok()) {
    j.checked = kRejectionClauses;
    if (refused) return absl::OkStatus();
    j.verdict = absl::InvalidArgumentError(absl::StrCat("B6 rejection without partial output: grid_create with cell size h = ",
                                                        real_text(h), " (not finite and > 0) succeeded"));
    j.input = absl::StrCat("h = ", real_text(h));
    j.expected = "an error (InvalidArgument)";
    j.got = "a grid";
    s.invalid_create_at = j.line;
    return absl::OkStatus();
  }
  if (refused) {
    return absl::InvalidArgumentError(absl::StrCat("out.error on a grid_create of a valid cell size h = ", real_text(h),
                                                   ": no clause lets it fail; leave refused calls out"));
  }
  // Every valid box is accepted (coarser levels, B11) and the budgets are lwc's defaults, which a session
  // of at most kMaxGridObjects boxes cannot exceed: the engine's own budgets are not in the trace, so the
  // model refuses nothing a budget would.
  GridConfig config{.cell_size = *cell, .oversize = Oversize::kCoarserLevels};
  s.dims = static_cast<std::size_t>(dims);
  if (dims == 2) {
    s.model2.emplace(config);
  } else {
    s.model3.emplace(config);
  }
  return absl::OkStatus();
}

// B6 for an add or move of a box that is not finite with min <= max: the engine must have refused it.
template <std::size_t D>
void judge_invalid_box(const char* op, std::int64_t id, const char* preposition, const Box<D>& box, bool refused,
                       Judgement& j) {
  j.checked = kInvalidBoxClauses;
  if (refused) return;
  j.verdict = absl::InvalidArgumentError(absl::StrCat("B6 rejection without partial output: ", op, id, preposition,
                                                      box_text<D>(box), " (not finite with min <= max) succeeded"));
  j.input = absl::StrCat("id ", id, ", box ", box_text<D>(box));
  j.expected = "an error (InvalidArgument)";
  j.got = "OK";
}

// grid_add: {"in": {"id", "box", "user" (optional), "group" (optional), "mask" (optional)}, "out": {} | {"error"}}
absl::Status on_grid_add(const TraceRecord& r, audit::Session& session, Judgement& j) {
  GridSession& s = grid_state(session);
  return with_grid(s, [&]<std::size_t D>() -> absl::Status {
    LWC_ASSIGN_OR_RETURN(const std::int64_t id, r.int64("in", "id"));
    if (const auto at = s.live.find(id); at != s.live.end()) {
      return absl::InvalidArgumentError(absl::StrCat("in.id ", id, " is live already (added at line ", s.added_at[at->second],
                                                     "): an id names one box from its add to its remove"));
    }
    Box<D> box{};
    bool valid = false;
    LWC_RETURN_IF_ERROR(read_grid_box<D>(r, box, valid));
    UserData user = 0;
    Filter filter;
    if (r.has("in", "user")) {
      LWC_ASSIGN_OR_RETURN(const std::uint64_t u, r.uint64("in", "user"));
      user = static_cast<UserData>(u);
    }
    if (r.has("in", "group")) {
      LWC_ASSIGN_OR_RETURN(filter.group, r.uint64("in", "group"));
    }
    if (r.has("in", "mask")) {
      LWC_ASSIGN_OR_RETURN(filter.mask, r.uint64("in", "mask"));
    }
    LWC_ASSIGN_OR_RETURN(const bool refused, read_refusal(r));
    if (!valid) {
      judge_invalid_box<D>("grid_add of id ", id, " with box ", box, refused, j);
      return absl::OkStatus();  // the model holds no such box: later events naming the id are judged under E3
    }
    if (refused) return absl::OkStatus();  // a refusal of a valid box is a budget's (B7), not in the trace: nothing added (E4)
    if (s.id_of.size() >= kMaxGridObjects) {
      return absl::ResourceExhaustedError(absl::StrCat("the session adds more than ", kMaxGridObjects,
                                                       " boxes (its model is brute force over every box it held)"));
    }
    if (grid_model<D>(s).insert(box, user, filter) != absl::StatusCode::kOk) {
      return absl::InvalidArgumentError(absl::StrCat("in.box ", box_text<D>(box), " cannot be placed at this cell size"));
    }
    s.live[id] = s.id_of.size();
    s.id_of.push_back(id);
    s.added_at.push_back(j.line);
    s.removed_at.erase(id);
    return absl::OkStatus();
  });
}

// grid_move: {"in": {"id", "box"}, "out": {} | {"error"}}
absl::Status on_grid_move(const TraceRecord& r, audit::Session& session, Judgement& j) {
  GridSession& s = grid_state(session);
  return with_grid(s, [&]<std::size_t D>() -> absl::Status {
    LWC_ASSIGN_OR_RETURN(const std::int64_t id, r.int64("in", "id"));
    Box<D> box{};
    bool valid = false;
    LWC_RETURN_IF_ERROR(read_grid_box<D>(r, box, valid));
    LWC_ASSIGN_OR_RETURN(const bool refused, read_refusal(r));
    const auto at = s.live.find(id);
    if (at == s.live.end()) {
      judge_not_live(s, "grid_move", id, refused, j);
      return absl::OkStatus();
    }
    if (!valid) {
      judge_invalid_box<D>("grid_move of id ", id, " to box ", box, refused, j);
      return absl::OkStatus();
    }
    j.checked = kHandleClauses;
    if (refused) return absl::OkStatus();  // a budget's refusal: the box stays where it was (E4)
    if (grid_model<D>(s).move(at->second, box, Motion::kTeleport) != absl::StatusCode::kOk) {
      return absl::InvalidArgumentError(absl::StrCat("in.box ", box_text<D>(box), " cannot be placed at this cell size"));
    }
    return absl::OkStatus();
  });
}

// grid_remove: {"in": {"id"}, "out": {} | {"error"}}
absl::Status on_grid_remove(const TraceRecord& r, audit::Session& session, Judgement& j) {
  GridSession& s = grid_state(session);
  return with_grid(s, [&]<std::size_t D>() -> absl::Status {
    LWC_ASSIGN_OR_RETURN(const std::int64_t id, r.int64("in", "id"));
    LWC_ASSIGN_OR_RETURN(const bool refused, read_refusal(r));
    const auto at = s.live.find(id);
    if (at == s.live.end()) {
      judge_not_live(s, "grid_remove", id, refused, j);
      return absl::OkStatus();
    }
    j.checked = kHandleClauses;
    if (refused) {
      j.verdict = absl::InvalidArgumentError(absl::StrCat("E3 handle safety: grid_remove of id ", id, " (live, added at line ",
                                                          s.added_at[at->second], ") was refused"));
      j.input = absl::StrCat("id ", id);
      j.expected = "OK";
      j.got = "an error";
      return absl::OkStatus();  // the engine kept the box: so does the model
    }
    // Invariant: a live id maps to a live object, which the model removes.
    if (grid_model<D>(s).remove(at->second) != absl::StatusCode::kOk) {
      return absl::InternalError(absl::StrCat("the model refused to remove id ", id));
    }
    s.removed_at[id] = j.line;
    s.live.erase(at);
    return absl::OkStatus();
  });
}

// grid_set_filter: {"in": {"id", "group", "mask"}}; grid_set_user: {"in": {"id", "user"}}; "out": {} | {"error"}
absl::Status on_grid_change(const TraceRecord& r, audit::Session& session, Judgement& j, bool filter) {
  GridSession& s = grid_state(session);
  return with_grid(s, [&]<std::size_t D>() -> absl::Status {
    LWC_ASSIGN_OR_RETURN(const std::int64_t id, r.int64("in", "id"));
    Filter f;
    std::uint64_t user = 0;
    if (filter) {
      LWC_ASSIGN_OR_RETURN(f.group, r.uint64("in", "group"));
      LWC_ASSIGN_OR_RETURN(f.mask, r.uint64("in", "mask"));
    } else {
      LWC_ASSIGN_OR_RETURN(user, r.uint64("in", "user"));
    }
    LWC_ASSIGN_OR_RETURN(const bool refused, read_refusal(r));
    const auto at = s.live.find(id);
    const std::string_view op = filter ? "grid_set_filter" : "grid_set_user";
    if (at == s.live.end()) {
      judge_not_live(s, op, id, refused, j);
      return absl::OkStatus();
    }
    j.checked = kHandleClauses;
    if (refused) {
      j.verdict = absl::InvalidArgumentError(absl::StrCat("E3 handle safety: ", std::string(op), " of id ", id,
                                                          " (live, added at line ", s.added_at[at->second], ") was refused"));
      j.input = absl::StrCat("id ", id);
      j.expected = "OK";
      j.got = "an error";
      return absl::OkStatus();
    }
    contracts::PersistentModel<D>& m = grid_model<D>(s);
    // Invariant: a live id maps to a live object, whose filter or payload the model changes.
    const absl::StatusCode code = filter ? m.set_filter(at->second, f) : m.set_user_data(at->second, static_cast<UserData>(user));
    if (code != absl::StatusCode::kOk) return absl::InternalError(absl::StrCat("the model refused to change id ", id));
    return absl::OkStatus();
  });
}

absl::Status on_grid_set_filter(const TraceRecord& r, audit::Session& session, Judgement& j) {
  return on_grid_change(r, session, j, true);
}

absl::Status on_grid_set_user(const TraceRecord& r, audit::Session& session, Judgement& j) {
  return on_grid_change(r, session, j, false);
}

template <std::size_t D>
bool boxes_meet(const Box<D>& a, const Box<D>& b) {
  for (std::size_t k = 0; k < D; ++k) {
    if (a.max[k] < b.min[k] || b.max[k] < a.min[k]) return false;
  }
  return true;
}

// One clause's findings in one update, gathered so that each clause is reported once per record with all
// it found ("E1 events: began (3, 5) missing; ended (1, 2) reported twice").
struct ClauseFindings {
  std::string_view id;
  std::string_view title;
  std::vector<std::string> parts;
};

// Reads out.<key>: pairs of ids [[a, b], ...] or, with payloads, [[a, b, user_a, user_b], ...].
absl::Status read_events(const TraceRecord& r, std::string_view key, std::vector<std::int64_t>& flat, std::size_t& width,
                         bool& with_payloads) {
  if (!r.has("out", key)) {
    flat.clear();
    return absl::OkStatus();  // no such events
  }
  absl::Status two = r.int64_tuples("out", key, 2, flat);
  if (two.ok()) {
    width = 2;
    return absl::OkStatus();
  }
  if (!r.int64_tuples("out", key, 4, flat).ok()) return two;
  width = 4;
  with_payloads = true;
  return absl::OkStatus();
}

// grid_update: {"out": {"began": [[a, b], ...], "ended": [[a, b], ...]} (ids; each pair in either order;
//               [a, b, user_a, user_b] carries the payloads) | {"error"}}
absl::Status on_grid_update(const TraceRecord& r, audit::Session& session, Judgement& j) {
  GridSession& s = grid_state(session);
  return with_grid(s, [&]<std::size_t D>() -> absl::Status {
    LWC_ASSIGN_OR_RETURN(const bool refused, read_refusal(r));
    if (refused) {
      if (r.has("out", "began") || r.has("out", "ended")) return absl::InvalidArgumentError("out has both an error and events");
      return absl::OkStatus();  // a budget's refusal changes nothing (E4): the events stay pending
    }
    std::vector<std::int64_t> began_raw;
    std::vector<std::int64_t> ended_raw;
    std::size_t began_width = 2;
    std::size_t ended_width = 2;
    bool with_payloads = false;
    LWC_RETURN_IF_ERROR(read_events(r, "began", began_raw, began_width, with_payloads));
    LWC_RETURN_IF_ERROR(read_events(r, "ended", ended_raw, ended_width, with_payloads));
    j.checked = with_payloads ? std::span<const std::string_view>(kUpdatePayloadClauses) : std::span<const std::string_view>(kUpdateClauses);

    contracts::PersistentModel<D>& m = grid_model<D>(s);
    const std::vector<typename contracts::PersistentModel<D>::Object> before = m.objects();
    const typename contracts::PersistentModel<D>::Update want = m.update();
    if (want.code != absl::StatusCode::kOk) {
      return absl::InternalError(absl::StrCat("the model refused the update (", absl::StatusCodeToString(want.code), ")"));
    }
    const std::vector<typename contracts::PersistentModel<D>::Object>& after = m.objects();
    const std::set<ObjectPair> want_began(want.began.begin(), want.began.end());
    const std::set<ObjectPair> want_ended(want.ended.begin(), want.ended.end());

    ClauseFindings e1{"E1", "events", {}};
    ClauseFindings e3{"E3", "handle safety", {}};
    ClauseFindings e7{"E7", "payloads", {}};
    ClauseFindings e8{"E8", "filtering", {}};
    // Maps the engine's pairs to objects: began through the boxes as now (S'), ended through the boxes at
    // the last update (S).
    const auto map_events = [&](std::string_view what, const std::vector<std::int64_t>& raw, std::size_t width,
                                const std::map<std::int64_t, std::size_t>& ids, std::set<ObjectPair>& got) {
      std::uint64_t twice = 0;
      std::string first_twice;
      for (std::size_t i = 0; i + width <= raw.size(); i += width) {
        const std::int64_t a = raw[i];
        const std::int64_t b = raw[i + 1];
        if (a == b) {
          e1.parts.push_back(absl::StrCat(std::string(what), " pair (", a, ", ", b, ") of a box with itself"));
          continue;
        }
        const auto oa = ids.find(a);
        const auto ob = ids.find(b);
        if (oa == ids.end() || ob == ids.end()) {
          const std::int64_t unknown = oa == ids.end() ? a : b;
          e3.parts.push_back(absl::StrCat(std::string(what), " pair (", a, ", ", b, ") names id ", unknown, ", which ",
                                          what == "began" ? "is not live" : "was not live at the last update",
                                          what == "began" ? absl::StrCat(" (", not_live_text(s, unknown), ")") : std::string()));
          continue;
        }
        const ObjectPair p{std::min(oa->second, ob->second), std::max(oa->second, ob->second)};
        if (!got.insert(p).second && twice++ == 0) first_twice = absl::StrCat("(", a, ", ", b, ")");
        if (width == 4) {
          // E7: began carries the payloads as now, ended as at the last update (the model's user_then).
          // A payload is written as an int64: one of 2^63 or more as its two's complement.
          const bool ended = what == "ended";
          const UserData ua = ended ? before[oa->second].user_then : after[oa->second].user_now;
          const UserData ub = ended ? before[ob->second].user_then : after[ob->second].user_now;
          if (static_cast<UserData>(raw[i + 2]) != ua || static_cast<UserData>(raw[i + 3]) != ub) {
            e7.parts.push_back(absl::StrCat(std::string(what), " pair (", a, ", ", b, ") carries payloads (",
                                            static_cast<std::uint64_t>(raw[i + 2]), ", ", static_cast<std::uint64_t>(raw[i + 3]),
                                            "), expected (", ua, ", ", ub, ")", ended ? " (as at the last update)" : " (as now)"));
          }
        }
      }
      if (twice > 0) {
        e1.parts.push_back(absl::StrCat(twice, " ", std::string(what), " pairs reported twice in this update (the first ",
                                        first_twice, ")"));
      }
    };
    std::set<ObjectPair> got_began;
    std::set<ObjectPair> got_ended;
    map_events("began", began_raw, began_width, s.live, got_began);
    map_events("ended", ended_raw, ended_width, s.committed, got_ended);

    const auto passes_now = [&](const ObjectPair& p) { return passes(after[p.first].filter_now, after[p.second].filter_now); };
    const auto passed_then = [&](const ObjectPair& p) { return passes(before[p.first].filter_then, before[p.second].filter_then); };
    const auto meet_now = [&](const ObjectPair& p) {
      return after[p.first].live && after[p.second].live && boxes_meet<D>(after[p.first].now, after[p.second].now);
    };
    const auto met_then = [&](const ObjectPair& p) {
      return before[p.first].committed && before[p.second].committed && boxes_meet<D>(before[p.first].then, before[p.second].then);
    };
    const auto since = [&](const ObjectPair& p) {
      const auto at = s.began_at.find(p);
      return at == s.began_at.end() ? std::string() : absl::StrCat(" (in contact since line ", at->second, ")");
    };
    for (const ObjectPair& p : want_began) {
      if (got_began.count(p) != 0) continue;
      if (met_then(p) && !passed_then(p)) {
        e8.parts.push_back(absl::StrCat("began ", id_pair_text(s, p), " missing: the filter change admits the overlapping pair"));
      } else {
        e1.parts.push_back(absl::StrCat("began ", id_pair_text(s, p), " missing: the boxes overlap now and did not at the last update"));
      }
    }
    for (const ObjectPair& p : got_began) {
      if (want_began.count(p) != 0) continue;
      if (s.began_at.count(p) != 0 && meet_now(p) && passes_now(p)) {
        e1.parts.push_back(absl::StrCat("began ", id_pair_text(s, p), " reported again, but the pair is in contact already", since(p)));
      } else if (meet_now(p) && !passes_now(p)) {
        e8.parts.push_back(absl::StrCat("began ", id_pair_text(s, p), " reported, but the filters refuse the pair (group & mask)"));
      } else {
        e1.parts.push_back(absl::StrCat("began ", id_pair_text(s, p), " reported, but the boxes do not overlap"));
      }
    }
    for (const ObjectPair& p : want_ended) {
      if (got_ended.count(p) != 0) continue;
      if (meet_now(p) && !passes_now(p)) {
        e8.parts.push_back(absl::StrCat("ended ", id_pair_text(s, p), " missing: the filter change refuses the pair", since(p)));
      } else {
        e1.parts.push_back(absl::StrCat("ended ", id_pair_text(s, p), " missing: ",
                                        meet_now(p) ? "" : (after[p.first].live && after[p.second].live ? "the boxes separated" : "a box was removed"),
                                        since(p)));
      }
    }
    for (const ObjectPair& p : got_ended) {
      if (want_ended.count(p) != 0) continue;
      e1.parts.push_back(absl::StrCat("ended ", id_pair_text(s, p), " reported, but ",
                                      s.began_at.count(p) == 0 ? "the pair was not in contact" : "the pair is still in contact"));
    }

    // The knock-on test: an update right by the engine's own pair set follows the first divergence.
    std::set<ObjectPair> now_pairs;
    for (const ObjectPair& p : m.pairs()) now_pairs.insert(p);
    bool by_engine = e3.parts.empty() && e7.parts.empty();
    for (const ObjectPair& p : now_pairs) by_engine = by_engine && (s.engine_pairs.count(p) != 0 || got_began.count(p) != 0);
    for (const ObjectPair& p : got_began) by_engine = by_engine && now_pairs.count(p) != 0 && s.engine_pairs.count(p) == 0;
    for (const ObjectPair& p : s.engine_pairs) by_engine = by_engine && (now_pairs.count(p) != 0 || got_ended.count(p) != 0);
    for (const ObjectPair& p : got_ended) by_engine = by_engine && s.engine_pairs.count(p) != 0 && now_pairs.count(p) == 0;

    for (const ClauseFindings* f : {&e1, &e3, &e7, &e8}) {
      if (f->parts.empty()) continue;
      std::string message = absl::StrCat(std::string(f->id), " ", std::string(f->title), ": ");
      for (std::size_t i = 0; i < f->parts.size() && i < 4; ++i) absl::StrAppend(&message, i > 0 ? "; " : "", f->parts[i]);
      if (f->parts.size() > 4) absl::StrAppend(&message, "; and ", f->parts.size() - 4, " more");
      violate(j, std::move(message),
              absl::StrCat("began ", id_pairs_text(s, want.began), ", ended ", id_pairs_text(s, want.ended)),
              absl::StrCat("began ", raw_pairs_text(began_raw, began_width), ", ended ", raw_pairs_text(ended_raw, ended_width)));
    }
    if (!j.verdict.ok()) {
      j.input = absl::StrCat("update of ", s.live.size(), " live boxes (", D, "-D)");
      if (s.diverged_at != 0 && by_engine) {
        j.follows = s.diverged_at;
      } else {
        s.diverged_at = j.line;
      }
    }
    // The engine's pair set after its events; the model's, with the line each pair began at.
    for (const ObjectPair& p : got_ended) s.engine_pairs.erase(p);
    for (const ObjectPair& p : got_began) s.engine_pairs.insert(p);
    if (s.engine_pairs == now_pairs) s.diverged_at = 0;
    for (const ObjectPair& p : want.ended) s.began_at.erase(p);
    for (const ObjectPair& p : want.began) s.began_at[p] = j.line;
    s.committed = s.live;
    return absl::OkStatus();
  });
}

// grid_query: {"in": {"box"}, "out": {"ids": [...]}}: the live boxes as last given that overlap the box (E11).
absl::Status on_grid_query(const TraceRecord& r, audit::Session& session, Judgement& j) {
  GridSession& s = grid_state(session);
  return with_grid(s, [&]<std::size_t D>() -> absl::Status {
    Box<D> box{};
    bool valid = false;
    LWC_RETURN_IF_ERROR(read_grid_box<D>(r, box, valid));
    LWC_ASSIGN_OR_RETURN(const bool refused, read_refusal(r, "ids"));
    if (refused && valid) {
      return absl::InvalidArgumentError("out.error on a query of a valid box: no clause lets it fail");
    }
    std::vector<std::int64_t> ids;
    if (!refused) LWC_RETURN_IF_ERROR(r.int64s("out", "ids", ids));
    if (!valid) {
      // B6: a query box that is not finite with min <= max must be refused.
      judge_rejection(absl::StrCat("in.box ", box_text<D>(box)), refused, absl::StrCat("box ", box_text<D>(box)),
                      refused ? std::string("an error") : absl::StrCat(ids.size(), " ids"), j);
      return absl::OkStatus();
    }
    const std::vector<std::size_t> want = grid_model<D>(s).query(box);
    std::set<std::size_t> got;
    std::vector<std::string> parts;
    for (const std::int64_t id : ids) {
      const auto at = s.live.find(id);
      if (at == s.live.end()) {
        parts.push_back(absl::StrCat("id ", id, " reported, which is not live (", not_live_text(s, id), ")"));
      } else if (!got.insert(at->second).second) {
        parts.push_back(absl::StrCat("id ", id, " reported twice"));
      }
    }
    std::string want_text = "[";
    for (std::size_t i = 0; i < want.size(); ++i) {
      if (i < 16) absl::StrAppend(&want_text, i > 0 ? ", " : "", s.id_of[want[i]]);
      if (got.count(want[i]) == 0) parts.push_back(absl::StrCat("id ", s.id_of[want[i]], " missing (its box as last given overlaps)"));
    }
    for (const std::size_t o : got) {
      if (!std::binary_search(want.begin(), want.end(), o)) {
        parts.push_back(absl::StrCat("id ", s.id_of[o], " reported, but its box as last given does not overlap"));
      }
    }
    if (parts.empty()) return absl::OkStatus();
    std::string message = "E11 queries: ";
    for (std::size_t i = 0; i < parts.size() && i < 4; ++i) absl::StrAppend(&message, i > 0 ? "; " : "", parts[i]);
    if (parts.size() > 4) absl::StrAppend(&message, "; and ", parts.size() - 4, " more");
    j.verdict = absl::InvalidArgumentError(message);
    j.input = absl::StrCat("box ", box_text<D>(box), " over ", s.live.size(), " live boxes");
    j.expected = want_text + (want.size() > 16 ? ", ...]" : "]");
    std::string got_text = "[";
    for (std::size_t i = 0; i < ids.size() && i < 16; ++i) absl::StrAppend(&got_text, i > 0 ? ", " : "", ids[i]);
    j.got = got_text + (ids.size() > 16 ? ", ...]" : "]");
    return absl::OkStatus();
  });
}

// grid_end: {} — the session ends; its model is released.
absl::Status on_grid_end(const TraceRecord&, audit::Session& session, Judgement&) {
  return with_grid(grid_state(session), []<std::size_t D>() -> absl::Status { return absl::OkStatus(); });
}

// find_pairs and query are stateless (judge); the grid_ ops are events of a session (event).
constexpr audit::RecordKind kKinds[] = {
    {"find_pairs", kPairsClauses, &judge_find_pairs},
    {"query", kQueryClauses, &judge_query},
    {"grid_create", {}, nullptr, false, &on_grid_create},
    {"grid_add", {}, nullptr, false, &on_grid_add},
    {"grid_move", kHandleClauses, nullptr, false, &on_grid_move},
    {"grid_remove", kHandleClauses, nullptr, false, &on_grid_remove},
    {"grid_set_filter", kHandleClauses, nullptr, false, &on_grid_set_filter},
    {"grid_set_user", kHandleClauses, nullptr, false, &on_grid_set_user},
    {"grid_update", kUpdateClauses, nullptr, false, &on_grid_update},
    {"grid_query", kGridQueryClauses, nullptr, false, &on_grid_query, true},
    {"grid_end", {}, nullptr, false, &on_grid_end, false, true},
};

}  // namespace

const audit::ContractAudit& broadphase_audit() {
  static constexpr audit::ContractAudit kAudit = {"broadphase", kClauses, kKinds, &open_grid_session};
  return kAudit;
}

}  // namespace lwc::internal
