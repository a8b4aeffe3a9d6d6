// SPDX-License-Identifier: MIT
// File: contracts/lwc/contracts/cover.h
//
// Executable C-clauses (docs/cover.md): checkers that judge the answers of ANY range-cover function —
// lwc's own or an engine's — and oracles written differently from lwc.cover. The cover oracle works in
// int128 throughout (so max_exclusive - 1 and max_inclusive + 1 always exist), floors by rounding the
// magnitude up instead of correcting a truncated quotient, and decides "chunk c intersects the range" by
// comparing the real interval [c * size, (c + 1) * size) with the range; the point-by-point oracle visits
// every coordinate; the enumeration oracle derives the i-th chunk from i by mixed-radix digits instead of
// nested loops.
//
// Checkers take the implementation's answer in raw form (CoverAnswer, BoxAnswer), so an engine's own
// function can be judged without producing lwc types. They return absl::Status, never abort, and on
// failure the message starts with the clause id:
//   "C1 completeness: point -1 of [-1, 1) lies in chunk -1, outside the answer [0, 0] (size 1000)"
//
// One source, two modes (lwc/config.h): `#include <lwc/contracts/cover.h>` brings it without module support;
// the module unit contracts/cover.cppm exports the same declarations as `import lwc.contracts.cover;`.
#ifndef LWC_CONTRACTS_COVER_H_
#define LWC_CONTRACTS_COVER_H_

#include "lwc/config.h"
#ifndef LWC_MODULE_UNIT  // contracts/cover.cppm includes these in its global module fragment
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <ostream>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
// ... and imports these.
#include "lwc/cover.h"
#endif

LWC_EXPORT namespace lwc::contracts {

// CoverAnswer
//
// What a 1-D cover function answered for one range: an error (its code), no chunks, or the closed span
// [first, last]. Build it with the factories, or from lwc's own result with answer_of().
struct CoverAnswer {
  absl::StatusCode code = absl::StatusCode::kOk;  // not kOk: the function refused the range
  bool empty = false;                             // with kOk: "no chunks"
  std::int64_t first = 0;                         // with kOk and !empty: the span
  std::int64_t last = 0;

  [[nodiscard]] static CoverAnswer chunks(std::int64_t first, std::int64_t last) {
    return {absl::StatusCode::kOk, false, first, last};
  }
  [[nodiscard]] static CoverAnswer none() { return {absl::StatusCode::kOk, true, 0, 0}; }
  [[nodiscard]] static CoverAnswer error(absl::StatusCode code) { return {code, false, 0, 0}; }

  [[nodiscard]] bool has_chunks() const { return code == absl::StatusCode::kOk && !empty; }

  friend bool operator==(const CoverAnswer& a, const CoverAnswer& b) {
    if (a.code != b.code) return false;
    if (a.code != absl::StatusCode::kOk) return true;  // errors compare by code only
    if (a.empty || b.empty) return a.empty == b.empty;
    return a.first == b.first && a.last == b.last;
  }
  friend std::ostream& operator<<(std::ostream& os, const CoverAnswer& a) {
    if (a.code != absl::StatusCode::kOk) return os << "error " << absl::StatusCodeToString(a.code);
    if (a.empty) return os << "no chunks";
    return os << "[" << a.first << ", " << a.last << "]";
  }
};

// BoxAnswer
//
// The same for a box: an error, no chunks, or the chunks from corner `first` to corner `last`, both
// included. 2-D answers use z = 0 in both corners.
struct BoxAnswer {
  absl::StatusCode code = absl::StatusCode::kOk;
  bool empty = false;
  Point3 first{0, 0, 0};
  Point3 last{0, 0, 0};

  [[nodiscard]] CoverAnswer axis(int a) const {
    if (code != absl::StatusCode::kOk) return CoverAnswer::error(code);
    if (empty) return CoverAnswer::none();
    const std::int64_t f[3] = {first.x, first.y, first.z};
    const std::int64_t l[3] = {last.x, last.y, last.z};
    return CoverAnswer::chunks(f[a], l[a]);
  }
  friend std::ostream& operator<<(std::ostream& os, const BoxAnswer& a) {
    if (a.code != absl::StatusCode::kOk) return os << "error " << absl::StatusCodeToString(a.code);
    if (a.empty) return os << "no chunks";
    return os << a.first << ".." << a.last;
  }
};

// answer_of()
//
// lwc's own results in raw form.
[[nodiscard]] inline CoverAnswer answer_of(const absl::StatusOr<std::optional<ChunkSpan>>& r) {
  if (!r.ok()) return CoverAnswer::error(r.status().code());
  if (!r->has_value()) return CoverAnswer::none();
  return CoverAnswer::chunks((*r)->first(), (*r)->last());
}
[[nodiscard]] inline BoxAnswer answer_of(const absl::StatusOr<std::optional<ChunkBox3>>& r) {
  if (!r.ok()) return {r.status().code(), false, {}, {}};
  if (!r->has_value()) return {absl::StatusCode::kOk, true, {}, {}};
  return {absl::StatusCode::kOk, false, (*r)->first(), (*r)->last()};
}
[[nodiscard]] inline BoxAnswer answer_of(const absl::StatusOr<std::optional<ChunkBox2>>& r) {
  if (!r.ok()) return {r.status().code(), false, {}, {}};
  if (!r->has_value()) return {absl::StatusCode::kOk, true, {}, {}};
  const Point2 f = (*r)->first();
  const Point2 l = (*r)->last();
  return {absl::StatusCode::kOk, false, {f.x, f.y, 0}, {l.x, l.y, 0}};
}

}  // namespace lwc::contracts

namespace lwc::internal {

using absl::int128;
using absl::uint128;

inline constexpr std::int64_t kMin64 = std::numeric_limits<std::int64_t>::min();
inline constexpr std::int64_t kMax64 = std::numeric_limits<std::int64_t>::max();

// floor(x / s) for s > 0, by rounding the magnitude of a negative quotient up: -ceil(-x / s).
inline int128 floor_of(int128 x, int128 s) {
  if (x >= 0) return x / s;
  return -((-x + s - 1) / s);
}

// Whether chunk c, the real interval [c * s, (c + 1) * s), holds a point of the integer range [a, b):
// the intervals overlap and, both ends being integers, share an integer.
inline bool intersects(int128 c, int128 s, int128 a, int128 b) { return c * s < b && (c + 1) * s > a; }

inline std::string show(int128 v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

inline std::string show(const contracts::CoverAnswer& a) {
  std::ostringstream os;
  os << a;
  return os.str();
}

inline std::string show(Point3 p) {
  std::ostringstream os;
  os << p;
  return os.str();
}

// The oracle for a range of points [a, b) given in int128 (so every closed and half-open int64 range is
// one), with `closed` only choosing how an invalid range is reported: for a half-open range b < a is
// reversed; a closed range [a, b - 1] is reversed when b - 1 < a - 1, i.e. the same condition.
inline contracts::CoverAnswer oracle_range(int128 a, int128 b, std::int64_t size) {
  if (size <= 0) return contracts::CoverAnswer::error(absl::StatusCode::kInvalidArgument);
  if (b < a) return contracts::CoverAnswer::error(absl::StatusCode::kInvalidArgument);
  if (b == a) return contracts::CoverAnswer::none();
  return contracts::CoverAnswer::chunks(static_cast<std::int64_t>(floor_of(a, size)),
                                        static_cast<std::int64_t>(floor_of(b - 1, size)));
}

// Decides C1-C4 and C10 for `got`, the answer for the points [a, b) (int128 bounds), described in
// messages as `range`.
inline absl::Status check_range(int128 a, int128 b, std::int64_t size, const contracts::CoverAnswer& got,
                                const std::string& range) {
  const auto fail = [&](absl::string_view clause, const std::string& why) {
    return absl::InvalidArgumentError(
        absl::StrCat(clause, why, " (range ", range, ", size ", size, ", answer ", show(got), ")"));
  };
  const contracts::CoverAnswer want = oracle_range(a, b, size);
  if (size <= 0) {
    if (got.code == absl::StatusCode::kInvalidArgument) return absl::OkStatus();
    return fail("D5 size validation: ", "a non-positive size was accepted");
  }
  if (b < a) {
    if (got.code == absl::StatusCode::kInvalidArgument) return absl::OkStatus();
    return fail("C4 reversed: ", "a reversed range must be refused with InvalidArgument");
  }
  if (b == a) {
    if (got == want) return absl::OkStatus();
    return fail("C4 empty: ", "an empty range must answer no chunks");
  }
  if (got.code != absl::StatusCode::kOk) return fail("C10 totality: ", "a valid range was refused");
  if (got.empty) return fail("C1 completeness: ", "a non-empty range answered no chunks");
  const int128 first = got.first;
  const int128 last = got.last;
  // C1: the chunks of a and of b - 1 bound every chunk of the range, the floor being monotone.
  for (const int128 x : {a, b - 1}) {
    const int128 c = floor_of(x, size);
    if (c < first || c > last) {
      return fail("C1 completeness: ",
                  absl::StrCat("point ", show(x), " lies in chunk ", show(c), ", outside the answer"));
    }
  }
  // C2: both ends hold a point of the range. With C1 this pins them to the chunks of a and b - 1.
  for (const int128 c : {first, last}) {
    if (!intersects(c, size, a, b)) {
      return fail("C2 tightness: ", absl::StrCat("end chunk ", show(c), " = [", show(c * size), ", ",
                                                 show((c + 1) * size), ") holds no point of the range"));
    }
  }
  // C3: a chunk between the ends holds a point (checked directly at the middle; the set of chunks that
  // intersect an interval is itself an interval, so the ends above already decide it).
  const int128 middle = first + (last - first) / 2;
  if (!intersects(middle, size, a, b)) {
    return fail("C3 contiguity: ", absl::StrCat("chunk ", show(middle), " holds no point of the range"));
  }
  if (!(got == want)) return fail("C1 completeness: ", absl::StrCat("oracle defect: want ", show(want)));
  return absl::OkStatus();
}

inline std::string half_open(std::int64_t a, std::int64_t b) { return absl::StrCat("[", a, ", ", b, ")"); }
inline std::string closed(std::int64_t a, std::int64_t b) { return absl::StrCat("[", a, ", ", b, "]"); }

// The number of chunks of [first, last] (first <= last), exactly: between 1 and 2^64.
inline uint128 span_count(std::int64_t first, std::int64_t last) {
  return static_cast<uint128>(int128(last) - int128(first) + 1);
}

// The product of per-axis counts, or nullopt when it exceeds UINT64_MAX. Each factor is at most 2^64
// and a partial product is kept at most UINT64_MAX, so no step overflows 128 bits.
inline std::optional<std::uint64_t> product_count(std::span<const uint128> counts) {
  const uint128 limit = std::numeric_limits<std::uint64_t>::max();
  uint128 n = 1;
  for (const uint128 c : counts) {
    if (c > limit) return std::nullopt;
    n *= c;
    if (n > limit) return std::nullopt;
  }
  return static_cast<std::uint64_t>(n);
}

inline absl::Status check_count_against(std::optional<std::uint64_t> want, const absl::StatusOr<std::uint64_t>& got,
                                        absl::string_view clause, const std::string& what) {
  if (want.has_value()) {
    if (got.ok() && *got == *want) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(clause, what, " has ", *want, " chunks but count gave ",
                                                   got.ok() ? absl::StrCat(*got) : got.status().ToString()));
  }
  if (!got.ok() && got.status().code() == absl::StatusCode::kOutOfRange) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(clause, what, " has more than 2^64 - 1 chunks: count must be OutOfRange, not ",
                   got.ok() ? absl::StrCat(*got) : got.status().ToString()));
}

}  // namespace lwc::internal

LWC_EXPORT namespace lwc::contracts {

// oracle_cover(), oracle_cover_closed()
//
// Reference answers, in int128: InvalidArgument for size <= 0 or a reversed range; no chunks for an
// empty one; otherwise [floor(min / size), floor(last point / size)].
[[nodiscard]] inline CoverAnswer oracle_cover(std::int64_t min, std::int64_t max_exclusive, std::int64_t size) {
  return internal::oracle_range(min, max_exclusive, size);
}
[[nodiscard]] inline CoverAnswer oracle_cover_closed(std::int64_t min, std::int64_t max_inclusive,
                                                     std::int64_t size) {
  return internal::oracle_range(min, absl::int128(max_inclusive) + 1, size);
}

// oracle_chunks_point_by_point()
//
// The distinct chunks of the points of [min, max_exclusive), ascending, found by computing the chunk of every
// single point (in int128): the truncating-division example's exhaustive check. InvalidArgument for size <= 0
// or a reversed range; ResourceExhausted for a range of more than `max_points` points.
[[nodiscard]] inline absl::StatusOr<std::vector<std::int64_t>> oracle_chunks_point_by_point(
    std::int64_t min, std::int64_t max_exclusive, std::int64_t size, std::uint64_t max_points = 1 << 20) {
  if (size <= 0 || max_exclusive < min) return absl::InvalidArgumentError("bad size or reversed range");
  if (absl::int128(max_exclusive) - min > absl::int128(max_points)) {
    return absl::ResourceExhaustedError("range too long to visit point by point");
  }
  std::vector<std::int64_t> chunks;
  for (absl::int128 x = min; x < max_exclusive; ++x) {
    const auto c = static_cast<std::int64_t>(internal::floor_of(x, size));
    if (chunks.empty() || chunks.back() != c) chunks.push_back(c);
  }
  return chunks;
}

// check_cover()
//
// OK iff `got` is a correct answer of a half-open cover for [min, max_exclusive) at `size`: for size <= 0
// or min > max_exclusive an InvalidArgument error (D5, C4); for min == max_exclusive no chunks (C4);
// otherwise a span (C10) holding the chunk of every point (C1) whose ends (C2) and interior (C3) all hold
// a point of the range. Names the first failing clause.
[[nodiscard]] inline absl::Status check_cover(std::int64_t min, std::int64_t max_exclusive, std::int64_t size,
                                              const CoverAnswer& got) {
  return internal::check_range(min, max_exclusive, size, got, internal::half_open(min, max_exclusive));
}

// check_cover_closed()
//
// The same for a closed cover of [min, max_inclusive]: max_inclusive == min - 1 is the empty range (no
// chunks) and max_inclusive < min - 1 is reversed (InvalidArgument), as cover(min, max_inclusive + 1)
// would answer (C5).
[[nodiscard]] inline absl::Status check_cover_closed(std::int64_t min, std::int64_t max_inclusive, std::int64_t size,
                                                     const CoverAnswer& got) {
  return internal::check_range(min, absl::int128(max_inclusive) + 1, size, got,
                               internal::closed(min, max_inclusive));
}

// check_closed_form()
//
// C5: `closed`, the answer for [min, max_inclusive], is correct, and where max_inclusive + 1 exists it
// is the same answer (same span, same emptiness, same error code) as `half_open`, the answer for
// [min, max_inclusive + 1). `half_open` is ignored when max_inclusive == INT64_MAX.
[[nodiscard]] inline absl::Status check_closed_form(std::int64_t min, std::int64_t max_inclusive, std::int64_t size,
                                                    const CoverAnswer& closed, const CoverAnswer& half_open) {
  if (max_inclusive != internal::kMax64 && !(closed == half_open)) {
    return absl::InvalidArgumentError(
        absl::StrCat("C5 closed form: cover_closed", internal::closed(min, max_inclusive), " = ",
                     internal::show(closed), " but cover", internal::half_open(min, max_inclusive + 1), " = ",
                     internal::show(half_open), " (size ", size, ")"));
  }
  if (absl::Status s = check_cover_closed(min, max_inclusive, size, closed); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("C5 closed form: ", s.message()));
  }
  return absl::OkStatus();
}

// check_contiguity()
//
// C3, decided for one chunk: when first <= chunk <= last, the chunk holds a point of [min, max_exclusive).
// The witness is the point of the chunk closest to the range, whose chunk is recomputed independently.
[[nodiscard]] inline absl::Status check_contiguity(std::int64_t min, std::int64_t max_exclusive, std::int64_t size,
                                                   std::int64_t first, std::int64_t last, std::int64_t chunk) {
  if (chunk < first || chunk > last || size <= 0 || max_exclusive <= min) return absl::OkStatus();
  const absl::int128 s = size;
  absl::int128 x = absl::int128(chunk) * s;  // the chunk's first point
  if (x < min) x = min;
  if (x > absl::int128(max_exclusive) - 1) x = absl::int128(max_exclusive) - 1;
  if (internal::floor_of(x, s) == chunk) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "C3 contiguity: chunk ", chunk, " of the answer [", first, ", ", last, "] holds no point of ",
      internal::half_open(min, max_exclusive), " (size ", size, "; nearest point ", internal::show(x),
      " is in chunk ", internal::show(internal::floor_of(x, s)), ")"));
}

// oracle_count()
//
// The exact number of chunks of [first, last] (first <= last): 1 to 2^64.
[[nodiscard]] inline absl::uint128 oracle_count(std::int64_t first, std::int64_t last) {
  return internal::span_count(first, last);
}

// check_count()
//
// C6: for a span [first, last], `got` is last - first + 1 when that is at most UINT64_MAX, and
// OutOfRange otherwise (only [INT64_MIN, INT64_MAX]). A reversed span is itself a violation.
[[nodiscard]] inline absl::Status check_count(std::int64_t first, std::int64_t last,
                                              const absl::StatusOr<std::uint64_t>& got) {
  if (first > last) {
    return absl::InvalidArgumentError(
        absl::StrCat("C6 exact count: [", first, ", ", last, "] is not a span (first > last)"));
  }
  const absl::uint128 n = internal::span_count(first, last);
  const std::optional<std::uint64_t> want = internal::product_count(std::span(&n, 1));
  return internal::check_count_against(want, got, "C6 exact count: ", internal::closed(first, last));
}

// check_box_count()
//
// C9: the count of the box from corner `first` to corner `last` is the product of the axis counts, or
// OutOfRange when the product exceeds UINT64_MAX (never a wrapped value).
[[nodiscard]] inline absl::Status check_box_count(Point3 first, Point3 last, const absl::StatusOr<std::uint64_t>& got) {
  if (first.x > last.x || first.y > last.y || first.z > last.z) {
    return absl::InvalidArgumentError(
        absl::StrCat("C9 product: ", internal::show(first), "..", internal::show(last), " is not a box"));
  }
  const absl::uint128 counts[3] = {internal::span_count(first.x, last.x),
                                   internal::span_count(first.y, last.y),
                                   internal::span_count(first.z, last.z)};
  return internal::check_count_against(
      internal::product_count(counts), got,
      "C9 product: ", absl::StrCat("box ", internal::show(first), "..", internal::show(last)));
}
[[nodiscard]] inline absl::Status check_box_count(Point2 first, Point2 last, const absl::StatusOr<std::uint64_t>& got) {
  return check_box_count(Point3{first.x, first.y, 0}, Point3{last.x, last.y, 0}, got);
}

// check_cover_box()
//
// C9: the answer for the box of ranges [min.a, max.a) (half-open, or [min.a, max.a] when `closed`) is
// InvalidArgument when any axis is reversed; else no chunks when any axis is empty; else, on every axis,
// a correct 1-D answer for that axis (C1-C4 judged per axis).
[[nodiscard]] inline absl::Status check_cover_box(Point3 min, Point3 max, std::int64_t size, const BoxAnswer& got,
                                                  bool closed = false) {
  const std::int64_t lo[3] = {min.x, min.y, min.z};
  const std::int64_t hi[3] = {max.x, max.y, max.z};
  const auto describe = [&] {
    std::ostringstream os;
    os << " (box " << min << (closed ? ".." : "..<") << max << ", size " << size << ", answer " << got << ")";
    return os.str();
  };
  bool reversed = size <= 0;
  bool empty = false;
  for (int a = 0; a < 3; ++a) {
    const absl::int128 b = absl::int128(hi[a]) + (closed ? 1 : 0);
    reversed |= b < lo[a];
    empty |= b == lo[a];
  }
  if (reversed) {
    if (got.code == absl::StatusCode::kInvalidArgument) return absl::OkStatus();
    return absl::InvalidArgumentError(
        absl::StrCat("C9 product: a reversed axis (or bad size) must be InvalidArgument", describe()));
  }
  if (empty) {
    if (got.code == absl::StatusCode::kOk && got.empty) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat("C9 product: an empty axis empties the box", describe()));
  }
  for (int a = 0; a < 3; ++a) {
    const absl::Status s = closed ? check_cover_closed(lo[a], hi[a], size, got.axis(a))
                                  : check_cover(lo[a], hi[a], size, got.axis(a));
    if (!s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("C9 product: axis ", std::string(1, "xyz"[a]), ": ", s.message(), describe()));
    }
  }
  return absl::OkStatus();
}
[[nodiscard]] inline absl::Status check_cover_box(Point2 min, Point2 max, std::int64_t size, const BoxAnswer& got,
                                                  bool closed = false) {
  // A 2-D box is a 3-D box one point thick at z = 0, whose z chunk is 0 for every size.
  return check_cover_box(Point3{min.x, min.y, 0}, Point3{max.x, max.y, closed ? 0 : 1}, size, got, closed);
}

// oracle_enumeration_at()
//
// The i-th chunk (from 0) of the box first..last in the canonical order, x fastest, then y, then z: the
// mixed-radix digits of i. Requires i < the box's chunk count.
[[nodiscard]] inline Point3 oracle_enumeration_at(Point3 first, Point3 last, absl::uint128 i) {
  const absl::uint128 nx = internal::span_count(first.x, last.x);
  const absl::uint128 ny = internal::span_count(first.y, last.y);
  const absl::int128 dx = static_cast<absl::int128>(i % nx);
  const absl::int128 dy = static_cast<absl::int128>((i / nx) % ny);
  const absl::int128 dz = static_cast<absl::int128>(i / nx / ny);
  return {static_cast<std::int64_t>(first.x + dx), static_cast<std::int64_t>(first.y + dy),
          static_cast<std::int64_t>(first.z + dz)};
}

// check_enumeration()
//
// C7 and C8 for one run of an enumeration of the box first..last under `budget`, which returned `status`
// after the visits `visited` (in call order). With n chunks:
// - n > budget: ResourceExhausted and no visit at all (C7);
// - otherwise, when the visitor never asked to stop (stop_after == 0): OK, and visited is every chunk
//   exactly once in the canonical order (C8);
// - when the visitor asked to stop at its stop_after-th call: the first min(n, stop_after) chunks of the
//   canonical order and the status `stop_status` (OK for a bool visitor, its error for a Status visitor).
[[nodiscard]] inline absl::Status check_enumeration(Point3 first, Point3 last, std::uint64_t budget,
                                                    const absl::Status& status, std::span<const Point3> visited,
                                                    std::uint64_t stop_after = 0,
                                                    const absl::Status& stop_status = absl::OkStatus()) {
  const absl::uint128 counts[3] = {internal::span_count(first.x, last.x),
                                   internal::span_count(first.y, last.y),
                                   internal::span_count(first.z, last.z)};
  const std::optional<std::uint64_t> n = internal::product_count(counts);
  const std::string what =
      absl::StrCat(internal::show(first), "..", internal::show(last), " under budget ", budget);
  if (!n.has_value() || *n > budget) {
    if (status.code() == absl::StatusCode::kResourceExhausted && visited.empty()) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(
        "C7 budget: ", what, " has ", n.has_value() ? absl::StrCat(*n) : std::string("over 2^64 - 1"),
        " chunks: must be ResourceExhausted before any visit, got ", status.ToString(), " after ",
        visited.size(), " visits"));
  }
  if (status.code() == absl::StatusCode::kResourceExhausted && stop_status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("C7 budget: ", what, " has only ", *n, " chunks but was refused: ", status.ToString()));
  }
  const std::uint64_t want = stop_after == 0 || stop_after > *n ? *n : stop_after;
  const absl::Status want_status = stop_after == 0 || stop_after > *n ? absl::OkStatus() : stop_status;
  for (std::size_t i = 0; i < visited.size() && i < want; ++i) {
    const Point3 c = oracle_enumeration_at(first, last, i);
    if (!(visited[i] == c)) {
      return absl::InvalidArgumentError(absl::StrCat("C8 canonical order: ", what, ": visit ", i, " was ",
                                                     internal::show(visited[i]), ", want ",
                                                     internal::show(c)));
    }
  }
  if (visited.size() != want) {
    return absl::InvalidArgumentError(absl::StrCat("C8 canonical order: ", what, ": ", visited.size(),
                                                   " visits, want ", want, " (", *n, " chunks)"));
  }
  if (status != want_status) {
    return absl::InvalidArgumentError(absl::StrCat("C8 canonical order: ", what, ": returned ",
                                                   status.ToString(), ", want ", want_status.ToString()));
  }
  return absl::OkStatus();
}

// The same for spans and lwc's boxes, with chunks in their own types.
[[nodiscard]] inline absl::Status check_enumeration(ChunkSpan span, std::uint64_t budget, const absl::Status& status,
                                                    std::span<const std::int64_t> visited,
                                                    std::uint64_t stop_after = 0,
                                                    const absl::Status& stop_status = absl::OkStatus()) {
  std::vector<Point3> v;
  v.reserve(visited.size());
  for (const std::int64_t x : visited) v.push_back({x, 0, 0});
  return check_enumeration(Point3{span.first(), 0, 0}, Point3{span.last(), 0, 0}, budget, status, v, stop_after,
                           stop_status);
}
[[nodiscard]] inline absl::Status check_enumeration(const ChunkBox2& box, std::uint64_t budget,
                                                    const absl::Status& status, std::span<const Point2> visited,
                                                    std::uint64_t stop_after = 0,
                                                    const absl::Status& stop_status = absl::OkStatus()) {
  std::vector<Point3> v;
  v.reserve(visited.size());
  for (const Point2 p : visited) v.push_back({p.x, p.y, 0});
  return check_enumeration(Point3{box.x.first(), box.y.first(), 0}, Point3{box.x.last(), box.y.last(), 0}, budget,
                           status, v, stop_after, stop_status);
}
[[nodiscard]] inline absl::Status check_enumeration(const ChunkBox3& box, std::uint64_t budget,
                                                    const absl::Status& status, std::span<const Point3> visited,
                                                    std::uint64_t stop_after = 0,
                                                    const absl::Status& stop_status = absl::OkStatus()) {
  return check_enumeration(box.first(), box.last(), budget, status, visited, stop_after, stop_status);
}

}  // namespace lwc::contracts

#endif  // LWC_CONTRACTS_COVER_H_
