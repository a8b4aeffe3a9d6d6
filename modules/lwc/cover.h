// SPDX-License-Identifier: MIT
// File: modules/lwc/cover.h
//
// Which chunks a range of integer coordinates touches: a half-open (or closed) int64 range becomes the
// closed span of chunks [first, last] that holds every point of it and no chunk that holds none; boxes
// in 2D and 3D become per-axis spans. Counts never wrap, and chunks are enumerated under a caller's
// budget that is checked before the first visit. Every chunk index comes from lwc::split.
// Spec: docs/cover.md (clauses C1-C10). Checker and oracle: lwc.contracts.cover.
//
// One source, two modes (lwc/config.h): `#include <lwc/cover.h>` brings it without module support; the module
// unit modules/cover.cppm exports the same declarations as `import lwc.cover;`.
#ifndef LWC_COVER_H_
#define LWC_COVER_H_

#include "lwc/config.h"
#ifndef LWC_MODULE_UNIT  // modules/cover.cppm includes these in its global module fragment
#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "lwc/check.h"
#include "lwc/kernels.h"
#include "lwc/walk.h"
// ... and imports these.
#include "lwc/budget.h"
#include "lwc/decompose.h"
#endif

namespace lwc::internal {
struct SpanAccess;
}  // namespace lwc::internal

namespace lwc::internal {

// The cover's budget (lwc/budget.h): chunks per for_each_chunk call.
struct ChunkBudgetTag {
  using Count = std::uint64_t;
  static constexpr Count kMin = 0;
  static constexpr const char* kName = "chunk budget";
  static constexpr const char* kWhy = "";
  static constexpr const char* kClause = "C7";
};

}  // namespace lwc::internal

LWC_EXPORT namespace lwc {

using ChunkBudget = Budget<internal::ChunkBudgetTag>;

// BasicChunkSpan, ChunkSpan
//
// A non-empty closed interval of chunk indices [first, last], both included. Invariant: first <= last,
// so a span holds between 1 and 2^N chunks (N the bits of T: 2^64 for ChunkSpan); "no chunks" is
// std::nullopt, never a reversed span. Written once for every SignedWord, like lwc.decompose's split: the
// public API is the int64 instance ChunkSpan, and the narrow ones let the same code be checked for every
// input (tests/cover_exhaustive.cc, docs/cover.md "Exhaustive evidence").
//
// Example:
//   absl::StatusOr<lwc::ChunkSpan> span = lwc::ChunkSpan::create(-1, 0);   // chunks -1 and 0
//   constexpr lwc::ChunkSpan kOrigin = lwc::ChunkSpan::of<-1, 0>();
template <SignedWord T>
class BasicChunkSpan {
 public:
  // create()
  //
  // Returns the span [first, last], or InvalidArgument when first > last.
  [[nodiscard]] static absl::StatusOr<BasicChunkSpan> create(T first, T last) {
    if (first > last) {
      return absl::InvalidArgumentError(
          absl::StrCat("chunk span [", first, ", ", last, "] is reversed: first > last"));
    }
    return BasicChunkSpan(first, last);
  }

  // of()
  //
  // A span known at compile time; First > Last does not compile.
  template <T First, T Last>
    requires(First <= Last)
  [[nodiscard]] static consteval BasicChunkSpan of() noexcept {
    return BasicChunkSpan(First, Last);
  }

  [[nodiscard]] constexpr T first() const noexcept { return first_; }
  [[nodiscard]] constexpr T last() const noexcept { return last_; }
  [[nodiscard]] constexpr bool contains(T chunk) const noexcept { return first_ <= chunk && chunk <= last_; }

  friend constexpr bool operator==(BasicChunkSpan, BasicChunkSpan) noexcept = default;
  friend std::ostream& operator<<(std::ostream& os, BasicChunkSpan s) {
    return os << "[" << static_cast<std::int64_t>(s.first_) << ", " << static_cast<std::int64_t>(s.last_) << "]";
  }

 private:
  friend struct internal::SpanAccess;
  constexpr BasicChunkSpan(T first, T last) noexcept : first_(first), last_(last) {}

  // Invariant: first_ <= last_.
  T first_;
  T last_;
};

using ChunkSpan = BasicChunkSpan<std::int64_t>;

// ChunkBox, ChunkBox2, ChunkBox3
//
// The chunks of a box: the product of one span per axis (C9). first() and last() are the corners.
template <std::size_t D>
  requires(D == 2 || D == 3)
struct ChunkBox;

template <>
struct ChunkBox<2> {
  ChunkSpan x;
  ChunkSpan y;

  [[nodiscard]] constexpr Point<2> first() const noexcept { return {x.first(), y.first()}; }
  [[nodiscard]] constexpr Point<2> last() const noexcept { return {x.last(), y.last()}; }
  friend constexpr bool operator==(const ChunkBox&, const ChunkBox&) noexcept = default;
  friend std::ostream& operator<<(std::ostream& os, const ChunkBox& b) {
    return os << "{x " << b.x << ", y " << b.y << "}";
  }
};

template <>
struct ChunkBox<3> {
  ChunkSpan x;
  ChunkSpan y;
  ChunkSpan z;

  [[nodiscard]] constexpr Point<3> first() const noexcept { return {x.first(), y.first(), z.first()}; }
  [[nodiscard]] constexpr Point<3> last() const noexcept { return {x.last(), y.last(), z.last()}; }
  friend constexpr bool operator==(const ChunkBox&, const ChunkBox&) noexcept = default;
  friend std::ostream& operator<<(std::ostream& os, const ChunkBox& b) {
    return os << "{x " << b.x << ", y " << b.y << ", z " << b.z << "}";
  }
};

using ChunkBox2 = ChunkBox<2>;
using ChunkBox3 = ChunkBox<3>;

}  // namespace lwc

namespace lwc::internal {

// The only way, besides create() and of(), to make a span: for callers that have proved first <= last.
struct SpanAccess {
  template <SignedWord T>
  [[nodiscard]] static constexpr BasicChunkSpan<T> make(T first, T last) noexcept {
    return BasicChunkSpan<T>(first, last);
  }
};

// An intermediate of T's arithmetic, back in its word. C++ computes int8 and int16 operands in int,
// where leaving T is silent (and the cast back would wrap); this check, on in the dev, audit and fuzz
// builds, makes it as loud at every width as UBSan makes a signed overflow at 64 bits, so that the
// exhaustive runs at 8 and 16 bits see C10 too. At 64 bits it is trivially true and costs nothing.
template <std::integral T, std::integral V>
[[nodiscard]] constexpr T in_word(V v) noexcept {
  LWC_CHECK(std::in_range<T>(v), "an intermediate left its word (C10)");
  return static_cast<T>(v);
}

// last - first as an unsigned N-bit word, exactly: the difference lies in [0, 2^N - 1] but not always in
// T, and a wrapping unsigned subtraction is what -fsanitize=integer rightly reports, so the straddling
// case is summed from two non-negative halves instead: last + (-first - 1) + 1, each term below 2^(N-1).
template <SignedWord T>
[[nodiscard]] constexpr std::make_unsigned_t<T> extent(BasicChunkSpan<T> s) noexcept {
  return kernels::extent(kernels::MachineOps<T>{}, s.first(), s.last());  // proofs/cover_proof.cc: C6, C10
}

// The error of a reversed range, out of line and cold: it keeps cover() small enough to inline into an
// engine's loop, where the StrCat would otherwise dominate the inlining cost.
[[nodiscard, gnu::cold, gnu::noinline]] inline absl::Status reversed_range(absl::string_view function,
                                                                           std::int64_t min, std::int64_t max,
                                                                           char close) {
  return absl::InvalidArgumentError(
      absl::StrCat(function, ": range [", min, ", ", max, absl::string_view(&close, 1), " is reversed (C4)"));
}

[[nodiscard]] inline absl::Status with_axis(char axis, const absl::Status& s) {
  return absl::Status(s.code(), absl::StrCat("axis ", absl::string_view(&axis, 1), ": ", s.message()));
}

}  // namespace lwc::internal

LWC_EXPORT namespace lwc {

// cover_closed()
//
// The chunks of the closed range [min, max_inclusive]: the span [split(min).chunk,
// split(max_inclusive).chunk] (C1-C3). Unlike `cover`, it reaches INT64_MAX, so the whole int64 domain
// can be covered: cover_closed(INT64_MIN, INT64_MAX, size). Where max_inclusive + 1 exists it is
// exactly cover(min, max_inclusive + 1, size) (C5), empty range and errors included:
// - max_inclusive == min - 1 (zero points): std::nullopt;
// - max_inclusive < min - 1: InvalidArgument (reversed);
// Never fails otherwise; no intermediate overflows (C10). Written once for every SignedWord; the size's
// type says which (`x` converts), so int64 callers write cover_closed(a, b, size) with a ChunkSize.
template <SignedWord T>
[[nodiscard]] absl::StatusOr<std::optional<BasicChunkSpan<T>>> cover_closed(std::type_identity_t<T> min,
                                                                            std::type_identity_t<T> max_inclusive,
                                                                            BasicChunkSize<T> size) {
  // The kernel (modules/lwc/kernels.h) is the code proved for every int64 range and size by
  // proofs/cover_proof.cc. split is monotone in x (D3: it is the floor), so first <= last.
  using Result = absl::StatusOr<std::optional<BasicChunkSpan<T>>>;
  return kernels::cover_closed(
      kernels::MachineOps<T>{}, min, max_inclusive, [&](T x) LWC_LAMBDA_INLINE { return split<T>(x, size).chunk; },
      [&]() LWC_LAMBDA_INLINE -> Result { return internal::reversed_range("cover_closed", min, max_inclusive, ']'); },
      []() LWC_LAMBDA_INLINE -> Result { return std::optional<BasicChunkSpan<T>>(); },
      [](T first, T last) LWC_LAMBDA_INLINE -> Result {
        return std::optional<BasicChunkSpan<T>>(internal::SpanAccess::make<T>(first, last));
      });
}

// cover()
//
// The chunks of the half-open range [min, max_exclusive): the span from the chunk of min to the chunk
// of max_exclusive - 1, the range's last point (C1-C3). The chunk of max_exclusive itself is not taken:
// cover(-1000, 0, 1000) is [-1, -1], not [-1, 0]. Errors:
// - min == max_exclusive (empty, for every min including INT64_MIN): std::nullopt, decided before any
//   arithmetic (C4);
// - min > max_exclusive: InvalidArgument (C4).
// A half-open int64 range cannot contain INT64_MAX; `cover_closed` can. Written once for every
// SignedWord, like cover_closed.
//
// Example:
//   LWC_ASSIGN_OR_RETURN(std::optional<lwc::ChunkSpan> span, lwc::cover(lo, hi, kChunk));
//   if (!span) return absl::OkStatus();   // nothing to load
template <SignedWord T>
[[nodiscard]] absl::StatusOr<std::optional<BasicChunkSpan<T>>> cover(std::type_identity_t<T> min,
                                                                     std::type_identity_t<T> max_exclusive,
                                                                     BasicChunkSize<T> size) {
  // The kernel (modules/lwc/kernels.h), proved by proofs/cover_proof.cc, decides emptiness first: for
  // [INT64_MIN, INT64_MIN) the last point max_exclusive - 1 does not exist.
  using Result = absl::StatusOr<std::optional<BasicChunkSpan<T>>>;
  return kernels::cover_half_open(
      kernels::MachineOps<T>{}, min, max_exclusive, [&](T x) LWC_LAMBDA_INLINE { return split<T>(x, size).chunk; },
      [&]() LWC_LAMBDA_INLINE -> Result { return internal::reversed_range("cover", min, max_exclusive, ')'); },
      []() LWC_LAMBDA_INLINE -> Result { return std::optional<BasicChunkSpan<T>>(); },
      [](T first, T last) LWC_LAMBDA_INLINE -> Result {
        return std::optional<BasicChunkSpan<T>>(internal::SpanAccess::make<T>(first, last));
      });
}

}  // namespace lwc

namespace lwc::internal {

// An N-D cover from 1-D covers: a reversed axis is an error even when another axis is empty (the caller
// has a bug either way), then any empty axis empties the box.
template <typename Box, typename Point, typename Cover1>
[[nodiscard]] absl::StatusOr<std::optional<Box>> cover_box(const Point& min, const Point& max, ChunkSize size,
                                                           Cover1 cover1) {
  constexpr bool kThree = std::is_same_v<Box, ChunkBox3>;
  const absl::StatusOr<std::optional<ChunkSpan>> x = cover1(min.x, max.x, size);
  if (!x.ok()) return with_axis('x', x.status());
  const absl::StatusOr<std::optional<ChunkSpan>> y = cover1(min.y, max.y, size);
  if (!y.ok()) return with_axis('y', y.status());
  if constexpr (kThree) {
    const absl::StatusOr<std::optional<ChunkSpan>> z = cover1(min.z, max.z, size);
    if (!z.ok()) return with_axis('z', z.status());
    if (!x->has_value() || !y->has_value() || !z->has_value()) return std::optional<Box>();
    return std::optional<Box>(Box{**x, **y, **z});
  } else {
    if (!x->has_value() || !y->has_value()) return std::optional<Box>();
    return std::optional<Box>(Box{**x, **y});
  }
}

}  // namespace lwc::internal

LWC_EXPORT namespace lwc {

// cover(), cover_closed() in 2D and 3D
//
// The box of half-open (or closed) ranges [min.a, max.a) on every axis a, covered axis by axis with the
// same size (C9). InvalidArgument, naming the axis, when any axis is reversed; otherwise std::nullopt
// when any axis is empty; otherwise the per-axis spans.
[[nodiscard]] inline absl::StatusOr<std::optional<ChunkBox2>> cover(Point2 min, Point2 max_exclusive,
                                                                    ChunkSize size) {
  return internal::cover_box<ChunkBox2>(
      min, max_exclusive, size, [](std::int64_t a, std::int64_t b, ChunkSize s) { return cover(a, b, s); });
}
[[nodiscard]] inline absl::StatusOr<std::optional<ChunkBox3>> cover(Point3 min, Point3 max_exclusive,
                                                                    ChunkSize size) {
  return internal::cover_box<ChunkBox3>(
      min, max_exclusive, size, [](std::int64_t a, std::int64_t b, ChunkSize s) { return cover(a, b, s); });
}
[[nodiscard]] inline absl::StatusOr<std::optional<ChunkBox2>> cover_closed(Point2 min, Point2 max_inclusive,
                                                                           ChunkSize size) {
  return internal::cover_box<ChunkBox2>(
      min, max_inclusive, size,
      [](std::int64_t a, std::int64_t b, ChunkSize s) { return cover_closed(a, b, s); });
}
[[nodiscard]] inline absl::StatusOr<std::optional<ChunkBox3>> cover_closed(Point3 min, Point3 max_inclusive,
                                                                           ChunkSize size) {
  return internal::cover_box<ChunkBox3>(
      min, max_inclusive, size,
      [](std::int64_t a, std::int64_t b, ChunkSize s) { return cover_closed(a, b, s); });
}

}  // namespace lwc

namespace lwc::internal {

// The chunk count, or 0 when it exceeds the largest unsigned N-bit word (UINT64_MAX for ChunkSpan): a
// span or box holds at least one chunk, so 0 is free to mean "too many". Branch-light and inline, for the
// budget check of every enumeration.
template <SignedWord T>
[[nodiscard]] constexpr std::make_unsigned_t<T> count_or_zero(BasicChunkSpan<T> s) noexcept {
  return kernels::count_or_zero(kernels::MachineOps<T>{}, s.first(), s.last());  // proofs/cover_proof.cc
}
[[nodiscard]] constexpr std::uint64_t count_or_zero(const ChunkBox2& b) noexcept {
  std::uint64_t n = 0;
  const std::uint64_t nx = count_or_zero(b.x);
  const std::uint64_t ny = count_or_zero(b.y);
  // A zero factor (too many on that axis) gives 0, which is what it must give.
  return __builtin_mul_overflow(nx, ny, &n) ? 0 : n;
}
[[nodiscard]] constexpr std::uint64_t count_or_zero(const ChunkBox3& b) noexcept {
  std::uint64_t n = 0;
  const std::uint64_t nxy = count_or_zero(ChunkBox2{b.x, b.y});
  const std::uint64_t nz = count_or_zero(b.z);
  return __builtin_mul_overflow(nxy, nz, &n) ? 0 : n;
}

// The errors, out of line and cold like reversed_range().
// The widening to int64 is exact for every SignedWord; `bits` is N.
[[nodiscard, gnu::cold, gnu::noinline]] inline absl::Status too_many(std::int64_t first, std::int64_t last, int bits,
                                                                     char axis) {
  return absl::OutOfRangeError(absl::StrCat(axis == 0 ? "" : absl::StrCat("axis ", absl::string_view(&axis, 1), ": "),
                                            "count: span [", first, ", ", last, "] has 2^", bits,
                                            " chunks, more than a uint", bits, " holds (C6)"));
}
[[nodiscard, gnu::cold, gnu::noinline]] inline absl::Status too_many(std::span<const ChunkSpan> axes) {
  for (std::size_t a = 0; a < axes.size(); ++a) {
    if (count_or_zero(axes[a]) == 0) return too_many(axes[a].first(), axes[a].last(), 64, "xyz"[a]);
  }
  std::string factors;
  for (std::size_t a = 0; a < axes.size(); ++a) {
    absl::StrAppend(&factors, a == 0 ? "" : " x ", count_or_zero(axes[a]));
  }
  return absl::OutOfRangeError(absl::StrCat("count: ", factors, " chunks is more than a uint64 holds (C9)"));
}
[[nodiscard, gnu::cold, gnu::noinline]] inline absl::Status over_budget(std::uint64_t count, std::uint64_t budget,
                                                                        int bits = 64) {
  return absl::ResourceExhaustedError(absl::StrCat(
      "for_each_chunk: ", count == 0 ? absl::StrCat("more than 2^", bits, " - 1") : absl::StrCat(count),
      " chunks exceed the budget of ", budget, "; none was visited (C7)"));
}

}  // namespace lwc::internal

LWC_EXPORT namespace lwc {

// count()
//
// The number of chunks, exactly: last - first + 1 for a span, the product of the axes for a box (C6,
// C9). OutOfRange when that number exceeds UINT64_MAX; the result never wraps. For a span this happens
// for exactly one span, [INT64_MIN, INT64_MAX] (2^64 chunks), which only cover_closed(INT64_MIN,
// INT64_MAX, 1) produces; the count of a span from the half-open `cover` is at most 2^64 - 1 and never
// fails. Why StatusOr<uint64> and not a 128-bit count: one type and one error code in 1, 2 and 3
// dimensions, in the width engines size containers and loops with, and a chunk count that does not fit
// it is not one anyone can enumerate or allocate for. The span form is written once for every
// SignedWord: an N-bit span counts in an unsigned N-bit word, OutOfRange for its one span of 2^N chunks.
template <SignedWord T>
[[nodiscard]] absl::StatusOr<std::make_unsigned_t<T>> count(BasicChunkSpan<T> span) {
  const std::make_unsigned_t<T> n = internal::count_or_zero(span);
  if (n == 0) [[unlikely]] {
    return internal::too_many(span.first(), span.last(), std::numeric_limits<std::make_unsigned_t<T>>::digits, 0);
  }
  return n;
}
[[nodiscard]] inline absl::StatusOr<std::uint64_t> count(const ChunkBox2& box) {
  const std::uint64_t n = internal::count_or_zero(box);
  if (n == 0) [[unlikely]] {
    const ChunkSpan axes[2] = {box.x, box.y};
    return internal::too_many(axes);
  }
  return n;
}
[[nodiscard]] inline absl::StatusOr<std::uint64_t> count(const ChunkBox3& box) {
  const std::uint64_t n = internal::count_or_zero(box);
  if (n == 0) [[unlikely]] {
    const ChunkSpan axes[3] = {box.x, box.y, box.z};
    return internal::too_many(axes);
  }
  return n;
}

// ChunkVisitor
//
// What for_each_chunk calls once per chunk: a callable taking the chunk index (int64, Point2 or Point3) and
// returning void (visit everything), bool (false stops, and for_each_chunk returns OK) or absl::Status
// (an error stops, and for_each_chunk returns it).
template <typename V, typename Chunk>
concept ChunkVisitor = std::invocable<V&, Chunk> &&
    (std::is_void_v<std::invoke_result_t<V&, Chunk>> || std::same_as<std::invoke_result_t<V&, Chunk>, bool> ||
     std::same_as<std::invoke_result_t<V&, Chunk>, absl::Status>);

}  // namespace lwc

namespace lwc::internal {

// Calls visit(chunk); false when the visitor asked to stop, with its error (if any) in `status`.
template <typename V, typename Chunk>
[[nodiscard]] inline bool visit_one(V& visit, const Chunk& chunk, absl::Status& status) {
  using R = std::invoke_result_t<V&, Chunk>;
  if constexpr (std::is_void_v<R>) {
    std::invoke(visit, chunk);
    return true;
  } else if constexpr (std::is_same_v<R, bool>) {
    return std::invoke(visit, chunk);
  } else {
    status = std::invoke(visit, chunk);
    return status.ok();
  }
}

// Visits first..last in ascending order. The loop tests for `last` after the visit, never incrementing
// past it, because last may be the greatest T (INT64_MAX).
template <SignedWord T, typename Emit>
[[nodiscard]] inline bool each(BasicChunkSpan<T> span, Emit&& emit) {
  for (T c = span.first();; c = in_word<T>(c + 1)) {
    if (!emit(c)) return false;
    if (c == span.last()) return true;
  }
}

}  // namespace lwc::internal

LWC_EXPORT namespace lwc {

// for_each_chunk()
//
// Calls visit once for every chunk of `chunks`, in the canonical order (C8): ascending for a span; for a
// box, x varies fastest, then y, then z (the order of an array indexed [z][y][x]). All or nothing (C7):
// when the chunk count exceeds `budget` (a ChunkBudget; a count equal to the budget is allowed), returns
// ResourceExhausted before the first call. Otherwise returns OK after the last chunk, or when the visitor
// stops early, OK (bool visitor returned false) or the visitor's error (Status visitor).
//
// Example:
//   absl::Status s = lwc::for_each_chunk(box, lwc::ChunkBudget::of<kMaxChunksPerFrame>(), [&](lwc::Point2 c) {
//     return loader.request(c);   // absl::Status: the first failure stops the walk
//   });
//
// The span form is written once for every SignedWord. An N-bit span has at most 2^N chunks, and its one
// span of 2^N chunks is over every budget, as [INT64_MIN, INT64_MAX] is for ChunkSpan.
template <SignedWord T, typename V>
  requires ChunkVisitor<V, T>
[[nodiscard]] absl::Status for_each_chunk(BasicChunkSpan<T> span, ChunkBudget budget, V&& visit) {
  const std::make_unsigned_t<T> n = internal::count_or_zero(span);
  if (n == 0 || n > budget.value()) [[unlikely]] {
    return internal::over_budget(n, budget.value(), std::numeric_limits<std::make_unsigned_t<T>>::digits);
  }
  absl::Status status;
  (void)internal::each(span, [&](T x) { return internal::visit_one(visit, x, status); });
  return status;
}

template <typename V>
  requires ChunkVisitor<V, Point2>
[[nodiscard]] absl::Status for_each_chunk(const ChunkBox2& box, ChunkBudget budget, V&& visit) {
  const std::uint64_t n = internal::count_or_zero(box);
  if (n == 0 || n > budget.value()) [[unlikely]] {
    return internal::over_budget(n, budget.value());
  }
  absl::Status status;
  (void)internal::walk_box<2>({box.x.first(), box.y.first()}, {box.x.last(), box.y.last()},
                              [&](const std::array<std::int64_t, 2>& c) {
                                return internal::visit_one(visit, Point2{c[0], c[1]}, status);
                              });
  return status;
}

template <typename V>
  requires ChunkVisitor<V, Point3>
[[nodiscard]] absl::Status for_each_chunk(const ChunkBox3& box, ChunkBudget budget, V&& visit) {
  const std::uint64_t n = internal::count_or_zero(box);
  if (n == 0 || n > budget.value()) [[unlikely]] {
    return internal::over_budget(n, budget.value());
  }
  absl::Status status;
  (void)internal::walk_box<3>({box.x.first(), box.y.first(), box.z.first()},
                              {box.x.last(), box.y.last(), box.z.last()}, [&](const std::array<std::int64_t, 3>& c) {
                                return internal::visit_one(visit, Point3{c[0], c[1], c[2]}, status);
                              });
  return status;
}

}  // namespace lwc

#endif  // LWC_COVER_H_
