// SPDX-License-Identifier: MIT
// File: modules/lwc/decompose.h
//
// Unique floor decomposition of integer coordinates into (chunk, local), and exact quantisation of real
// coordinates into integer cells. Every other lwc contract addresses space through this module.
// Spec: docs/decompose.md (clauses D1-D11). Checker and oracle: lwc.contracts.decompose.
//
// One source, two modes (lwc/config.h): `#include <lwc/decompose.h>` brings it without module support; the
// module unit modules/decompose.cppm exports the same declarations as `import lwc.decompose;`.
#ifndef LWC_DECOMPOSE_H_
#define LWC_DECOMPOSE_H_

#include "lwc/config.h"
#ifndef LWC_MODULE_UNIT  // modules/decompose.cppm includes these in its global module fragment
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <concepts>
#include <limits>
#include <ostream>
#include <span>
#include <type_traits>

#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lwc/check.h"
#include "lwc/exact_fp.h"
#include "lwc/format.h"
#include "lwc/kernels.h"
#endif

// The arithmetic below is exact IEEE arithmetic whatever the consumer's flags (lwc/exact_fp.h).
LWC_EXACT_FP_BEGIN

namespace lwc::internal {

// The unsigned type twice as wide as a signed word: holds the product of a dividend and a reciprocal.
template <class T> struct DoubleWidth;
template <> struct DoubleWidth<std::int8_t> { using type = std::uint16_t; };
template <> struct DoubleWidth<std::int16_t> { using type = std::uint32_t; };
template <> struct DoubleWidth<std::int32_t> { using type = std::uint64_t; };
template <> struct DoubleWidth<std::int64_t> { __extension__ using type = unsigned __int128; };

}  // namespace lwc::internal

LWC_EXPORT namespace lwc {

// SignedWord
//
// The coordinate types the integer arithmetic is written for, once: int8_t ... int64_t. The public API is
// int64 (ChunkSize, ChunkPoint); the narrow widths exist so that the very same code can be checked for
// every input (tests/decompose_exhaustive.cc, docs/decompose.md "Exhaustive evidence").
template <class T>
concept SignedWord = std::same_as<T, std::int8_t> || std::same_as<T, std::int16_t> ||
                     std::same_as<T, std::int32_t> || std::same_as<T, std::int64_t>;

// BasicChunkSize, ChunkSize
//
// A chunk width: a positive integer, validated once so that `split` needs no error path (D5). It also
// precomputes how `split` divides by it: an arithmetic shift for powers of two, otherwise a reciprocal
// (a multiply instead of a hardware division; both proved equal to division by D7).
//
// Example:
//   absl::StatusOr<lwc::ChunkSize> size = lwc::ChunkSize::create(config.chunk_width);
//   if (!size.ok()) return size.status();
//   constexpr lwc::ChunkSize kSixteen = lwc::ChunkSize::of<16>();
template <SignedWord T>
class BasicChunkSize {
 public:
  using Unsigned = std::make_unsigned_t<T>;

  // create()
  //
  // Returns the size `value`, or InvalidArgument when value <= 0.
  [[nodiscard]] static absl::StatusOr<BasicChunkSize> create(T value) {
    if (value <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("chunk size ", value, " is not positive (D5)"));
    }
    return BasicChunkSize(value);
  }

  // of()
  //
  // A size known at compile time; a non-positive `N` does not compile.
  template <T N>
    requires(N > 0)
  [[nodiscard]] static consteval BasicChunkSize of() noexcept {
    return BasicChunkSize(N);
  }

  [[nodiscard]] constexpr T value() const noexcept { return value_; }
  [[nodiscard]] constexpr bool is_power_of_two() const noexcept { return shift_ >= 0; }
  // log2()
  //
  // k when value() == 2^k; -1 when value() is not a power of two.
  [[nodiscard]] constexpr int log2() const noexcept { return shift_; }

  // The reciprocal of a size that is not a power of two, for N-bit T: for every 0 <= u < 2^(N-1),
  // floor(u / value()) == (u * multiplier()) >> (N + post_shift()). Unspecified for powers of two.
  [[nodiscard]] constexpr Unsigned multiplier() const noexcept { return multiplier_; }
  [[nodiscard]] constexpr int post_shift() const noexcept { return post_shift_; }

  friend constexpr bool operator==(BasicChunkSize a, BasicChunkSize b) noexcept {
    return a.value_ == b.value_;
  }
  friend std::ostream& operator<<(std::ostream& os, BasicChunkSize s) {
    return os << static_cast<std::int64_t>(s.value_);
  }

 private:
  static constexpr int kBits = std::numeric_limits<Unsigned>::digits;

  // Granlund and Montgomery's round-up reciprocal ("Division by invariant integers using
  // multiplication", 1994) for (N - 1)-bit dividends: with l = ceil(log2 d) and
  // m = ceil(2^(N - 1 + l) / d), u * m / 2^(N - 1 + l) = u / d + u * e / 2^(N - 1 + l) for some
  // 0 <= e < 1, and that error is below 2^(N - 1) / 2^(N - 1 + l) = 2^-l <= 1 / d, too small to reach the
  // next integer, since the fractional part of u / d is at most (d - 1) / d. For d not a power of two,
  // 2^(l - 1) < d, so m < 2^N.
  constexpr explicit BasicChunkSize(T value) noexcept
      : value_(value),
        shift_(std::has_single_bit(static_cast<Unsigned>(value))
                   ? std::countr_zero(static_cast<Unsigned>(value))
                   : -1) {
    if (shift_ < 0) {
      using Wide = typename internal::DoubleWidth<T>::type;
      const auto l = static_cast<int>(std::bit_width(static_cast<Unsigned>(value)));  // ceil(log2 d)
      // 2^(N - 1 + l) / d is never an integer here (d has an odd factor > 1), so ceil is floor + 1.
      multiplier_ = static_cast<Unsigned>((Wide{1} << (kBits - 1 + l)) / static_cast<Wide>(value) + 1);
      post_shift_ = l - 1;
    }
  }

  // Invariant: value_ > 0; shift_ == log2(value_) when value_ is a power of two, else -1, and then
  // multiplier_ and post_shift_ hold its reciprocal.
  T value_;
  int shift_;
  Unsigned multiplier_ = 0;
  int post_shift_ = 0;
};

using ChunkSize = BasicChunkSize<std::int64_t>;

// BasicChunkPoint, ChunkPoint
//
// The result of `split`: x == chunk * size + local with 0 <= local < size.
template <SignedWord T>
struct BasicChunkPoint {  // LCOV_EXCL_LINE: clang maps this line to the implicit special members of a trivially copyable type, and the unused ones are never emitted
  T chunk;
  T local;

  friend constexpr bool operator==(const BasicChunkPoint&, const BasicChunkPoint&) noexcept = default;
  friend std::ostream& operator<<(std::ostream& os, const BasicChunkPoint& p) {
    return os << "(chunk " << static_cast<std::int64_t>(p.chunk) << ", local "
              << static_cast<std::int64_t>(p.local) << ")";
  }
};

using ChunkPoint = BasicChunkPoint<std::int64_t>;

// Point, Point2, Point3
//
// Integer coordinates (cells, chunks, offsets) in D = 2 or 3 dimensions: named fields x, y (and z), so
// that a call site reads as the article's formulas do. Point<D> is the dimension-generic name, as Box<D>
// is the broad phase's.
template <std::size_t D>
  requires(D == 2 || D == 3)
struct Point;

template <>
struct Point<2> {
  std::int64_t x;
  std::int64_t y;

  friend constexpr bool operator==(const Point&, const Point&) noexcept = default;
  friend constexpr auto operator<=>(const Point&, const Point&) noexcept = default;
  friend std::ostream& operator<<(std::ostream& os, const Point& p) {
    return os << "(" << p.x << ", " << p.y << ")";
  }
};

template <>
struct Point<3> {
  std::int64_t x;
  std::int64_t y;
  std::int64_t z;

  friend constexpr bool operator==(const Point&, const Point&) noexcept = default;
  friend constexpr auto operator<=>(const Point&, const Point&) noexcept = default;
  friend std::ostream& operator<<(std::ostream& os, const Point& p) {
    return os << "(" << p.x << ", " << p.y << ", " << p.z << ")";
  }
};

using Point2 = Point<2>;
using Point3 = Point<3>;

struct ChunkPoint2 {
  Point2 chunk;
  Point2 local;

  friend constexpr bool operator==(const ChunkPoint2&, const ChunkPoint2&) noexcept = default;
};

struct ChunkPoint3 {
  Point3 chunk;
  Point3 local;

  friend constexpr bool operator==(const ChunkPoint3&, const ChunkPoint3&) noexcept = default;
};

// split_by_division()
//
// The reference path: truncating hardware division and a one-step correction, as the truncating-division
// example does it. Every size works here; `split` uses faster paths that D7 proves equal to this one.
// Exported for audits. (`x` is not deduced: the size's type says which width is meant, and an int literal
// converts.)
template <SignedWord T>
[[nodiscard]] constexpr BasicChunkPoint<T> split_by_division(std::type_identity_t<T> x,
                                                             BasicChunkSize<T> size) noexcept {
  const T s = size.value();
  // Neither can overflow: s > 0, so this is never MIN / -1. `%` keeps the sign of x, |r| < s.
  const auto q = static_cast<T>(x / s);
  const auto r = static_cast<T>(x % s);
  // Truncation rounds toward zero; floor is one lower exactly when the remainder is negative (x < 0 and
  // not a multiple of s). Invariant: r < 0 implies s >= 2, so q >= MIN / 2 and q - 1 cannot overflow,
  // and -s < r < 0, so r + s lies in [1, s - 1].
  if (r < 0) return {static_cast<T>(q - 1), static_cast<T>(r + s)};
  return {q, r};
}

// split_by_reciprocal()
//
// The path of `split` for sizes that are not powers of two, without a hardware division. Exported so that
// its equivalence with the division path (D7) can be tested and audited; call `split`.
//
// Floor division of a signed x reduces to unsigned division of u = x >= 0 ? x : -x - 1 (that is,
// x ^ (x >> (N - 1)), always in [0, 2^(N - 1))): floor(x / s) = q if x >= 0 and -q - 1 otherwise, with
// q = u / s, and local = r or s - 1 - r with r = u - q * s. No step can overflow: q * s <= u.
template <SignedWord T>
[[nodiscard]] constexpr BasicChunkPoint<T> split_by_reciprocal(std::type_identity_t<T> x,
                                                               BasicChunkSize<T> size) noexcept {
  // The kernel (modules/lwc/kernels.h) is the code proved for every int64 x and size by
  // proofs/decompose_proof.cc; no step can overflow: q * s <= u.
  const kernels::Split<T> p = kernels::split_reciprocal(kernels::MachineOps<T>{}, x, size);
  return {p.chunk, p.local};
}

// split()
//
// Returns the unique (chunk, local) with x == chunk * size + local and 0 <= local < size (D1-D3):
// chunk is floor(x / size), not the truncated quotient (D6). Total: defined for every int64 `x`, and no
// intermediate can overflow; in particular it never computes chunk * size or |x| (D4). Powers of two
// take an arithmetic shift and a mask, other sizes a multiply by the precomputed reciprocal; both are
// the same function as `split_by_division` (D7), and faster than a hardware division.
//
// Example: split(-1, ChunkSize::of<1000>()) == {-1, 999}, where -1 / 1000 == 0.
template <SignedWord T>
[[nodiscard]] constexpr BasicChunkPoint<T> split(std::type_identity_t<T> x, BasicChunkSize<T> size) noexcept {
  // C++20 defines >> on negative values as arithmetic (floor division by 2^k) and & on the two's
  // complement bits, whose low k bits are x - floor(x / 2^k) * 2^k. The kernel (modules/lwc/kernels.h)
  // takes that path for powers of two and split_by_reciprocal's otherwise; proofs/decompose_proof.cc
  // proves both for every int64 x and size.
  const kernels::Split<T> p = kernels::split(kernels::MachineOps<T>{}, x, size);
  return {p.chunk, p.local};
}

// floor_div(), floor_mod()
//
// The two components of `split`: floor(x / size) and x - floor(x / size) * size, in [0, size).
template <SignedWord T>
[[nodiscard]] constexpr T floor_div(std::type_identity_t<T> x, BasicChunkSize<T> size) noexcept {
  return split<T>(x, size).chunk;
}
template <SignedWord T>
[[nodiscard]] constexpr T floor_mod(std::type_identity_t<T> x, BasicChunkSize<T> size) noexcept {
  return split<T>(x, size).local;
}

// split() in 2D and 3D
//
// Each axis is split independently with the same size (D8).
[[nodiscard]] constexpr ChunkPoint2 split(Point2 p, ChunkSize size) noexcept {
  const ChunkPoint x = split(p.x, size);
  const ChunkPoint y = split(p.y, size);
  return {{x.chunk, y.chunk}, {x.local, y.local}};
}
[[nodiscard]] constexpr ChunkPoint3 split(Point3 p, ChunkSize size) noexcept {
  const ChunkPoint x = split(p.x, size);
  const ChunkPoint y = split(p.y, size);
  const ChunkPoint z = split(p.z, size);
  return {{x.chunk, y.chunk, z.chunk}, {x.local, y.local, z.local}};
}

// split_all()
//
// Batch `split`: out[i] = split(xs[i], size) for every i (D11). The path is chosen once for the whole
// batch, so both loops are branch-free. InvalidArgument, with nothing written, when out.size()
// differs from xs.size().
[[nodiscard]] inline absl::Status split_all(std::span<const std::int64_t> xs, ChunkSize size,
                                            std::span<ChunkPoint> out) {
  if (out.size() != xs.size()) {
    return absl::InvalidArgumentError(absl::StrCat("split_all: ", xs.size(), " inputs but ",
                                                   out.size(), " outputs"));
  }
  if (size.is_power_of_two()) {
    const int shift = size.log2();
    const std::int64_t mask = size.value() - 1;
    for (std::size_t i = 0; i < xs.size(); ++i) out[i] = {xs[i] >> shift, xs[i] & mask};
  } else {
    for (std::size_t i = 0; i < xs.size(); ++i) out[i] = split_by_reciprocal<std::int64_t>(xs[i], size);
  }
  return absl::OkStatus();
}

// BasicCellSize, CellSize
//
// The edge length h of a real grid cell: finite and positive, validated once. `cell_of` is written once
// for float and double (the float instance is checked on all 2^32 inputs: tests/decompose_exhaustive.cc).
template <std::floating_point F>
class BasicCellSize {
 public:
  // create()
  //
  // Returns the size `h`, or InvalidArgument when h is NaN, infinite, zero or negative; the message says
  // which ("cell size -0.5 is not positive (D9)").
  [[nodiscard]] static absl::StatusOr<BasicCellSize> create(F h) {
    // On the bits: under denormals-are-zero `h > 0` is false for a subnormal h (lwc/exact_fp.h).
    if (!fp::is_finite(h)) {
      return absl::InvalidArgumentError(
          absl::StrCat("cell size ", internal::message_real(static_cast<double>(h)), " is not finite (D9)"));
    }
    if (fp::sign_bit(h) || fp::is_zero(h)) {
      return absl::InvalidArgumentError(
          absl::StrCat("cell size ", internal::message_real(static_cast<double>(h)), " is not positive (D9)"));
    }
    return BasicCellSize(h);
  }

  // of()
  //
  // A size known at compile time; a value that is not finite and positive does not compile.
  template <F H>
    requires(H > 0 && H <= std::numeric_limits<F>::max())
  [[nodiscard]] static consteval BasicCellSize of() noexcept {
    return BasicCellSize(H);
  }

  [[nodiscard]] constexpr F value() const noexcept { return value_; }

  friend constexpr bool operator==(BasicCellSize, BasicCellSize) noexcept = default;
  friend std::ostream& operator<<(std::ostream& os, BasicCellSize h) {
    return os << std::hexfloat << static_cast<double>(h.value_) << std::defaultfloat;
  }

 private:
  constexpr explicit BasicCellSize(F h) noexcept : value_(h) {}

  // Invariant: value_ is finite and > 0.
  F value_;
};

using CellSize = BasicCellSize<double>;

}  // namespace lwc

namespace lwc::internal {

// 2^p, where p is the precision of F: below it every integer is an F (2^24 for float, 2^53 for double).
template <std::floating_point F>
inline constexpr F kExactIntegers = F(std::uint64_t{1} << std::numeric_limits<F>::digits);

// The magnitudes below which cell_of leaves floating-point arithmetic (bits of 2^(e_min - 1 + p): 2^-969 for
// double, 2^-102 for float). Under flush-to-zero / denormals-are-zero a subnormal operand reads as 0 and a
// subnormal result becomes 0. From this size up every F is a multiple of twice the least normal, so v,
// n * h and the fused residual v - n * h are too, and a nonzero residual is normal; a quotient that
// flushes to zero still gives the right cell (0, or -1 when the residual, v itself, is negative).
template <std::floating_point F>
inline constexpr fp::Bits<F> kTinyBits = fp::Bits<F>(std::numeric_limits<F>::min_exponent + std::numeric_limits<F>::digits +
                                                     std::numeric_limits<F>::max_exponent - 2)
                                         << (std::numeric_limits<F>::digits - 1);

// The exact floor of v / h for the common case |fl(v / h)| < 2^p, stored in `cell`; false (nothing
// stored) for non-finite v and larger quotients, which cell_of() handles. Inline and branch-light: the
// broad phase calls it for every box corner.
//
// Below 2^p every integer is an F, and rounding is monotone: when q = fl(v / h) is not an integer, the
// exact quotient lies strictly between the same two integers as q. When q is an integer n, the exact
// quotient is in (n - 1, n + 1) and lies below n only if the division rounded up onto n; the fused
// multiply-add gives the sign of v - n * h exactly (one rounding, and a nonzero multiple of the smallest
// subnormal never rounds to zero).
template <std::floating_point F>
[[nodiscard]] inline bool cell_of_small(F v, F h, std::int64_t& cell) {
#if __FINITE_MATH_ONLY__
  // Under -ffinite-math-only the compiler may assume v / h is never NaN and fold the test below; the bit
  // test cannot be folded (lwc/exact_fp.h). lwc's own builds need no extra test: NaN fails the compare.
  if (!fp::is_finite(v)) return false;
#endif
#if defined(__RECIPROCAL_MATH__) && !defined(__clang__)
  // g++ -ffast-math (-freciprocal-math) has no precise-FP pragma, and replaces the division in a loop
  // by a multiplication with a hoisted 1 / h, which is inexact (and 0 for h = DBL_MAX under flush-to-zero).
  // A volatile barrier makes h a new value on every call: one division, nothing to hoist.
  asm volatile("" : "+m"(h));
#endif
  // The kernel (modules/lwc/kernels.h) is the code proved by proofs/decompose_proof.cc (D9).
  return kernels::cell_small(kernels::MachineFpOps<F>{}, v, h, cell, [&]() LWC_LAMBDA_INLINE {
#if LWC_DENORMALS_ARE_ZERO
    // Subnormal-sized operands go to the integer path (see kTinyBits); zero stays here (its cell is 0).
    // Asked only when q is an integer: under flush-to-zero / denormals-are-zero every wrong quotient lands
    // on that branch (a subnormal v reads as 0, a flushed q is 0; a subnormal h gives +-inf or NaN, refused
    // above), and a normal q that is not an integer is the correctly rounded v / h of normal operands.
    const fp::Bits<F> magnitude = fp::bits_of(v) & ~fp::Layout<F>::kSign;
    return (magnitude != 0 && magnitude < kTinyBits<F>) || fp::bits_of(h) < kTinyBits<F>;
#else
    return false;
#endif
  });
}

// The exact floor of v / h for any finite v and valid h, on the integer significands: kOk with `cell`
// set, or kOutOfRange. cell_of() takes it when cell_of_small() declines: quotients of 2^p and more, where
// F no longer holds every integer, and (under LWC_DENORMALS_ARE_ZERO) subnormal-sized operands. With
// |v| = mv * 2^ev and h = mh * 2^eh, mv and mh normalised to [2^(p-1), 2^p) (lwc::fp::decode reads the
// bits, so subnormals are exact in every floating-point mode), |v| / h = mv * 2^d / mh with d = ev - eh
// lies in (2^(d-1), 2^(d+1)): out of int64 for d > 65, below 1 for d < -p, and otherwise one exact
// uint128 division.
template <std::floating_point F>
[[nodiscard]] absl::StatusCode cell_of_large(F v, F h, std::int64_t& cell) noexcept {
  constexpr int kDigits = std::numeric_limits<F>::digits;
  std::uint64_t mv = 0;
  std::uint64_t mh = 0;
  int ev = 0;
  int eh = 0;
  fp::decode(v, mv, ev);
  fp::decode(h, mh, eh);
  const bool negative = fp::sign_bit(v);
  if (mv == 0) {
    cell = 0;  // +-0 is in cell 0
    return absl::StatusCode::kOk;
  }
  // Normalise the significands (subnormals have fewer than p bits).
  const int sv = std::countl_zero(mv) - (64 - kDigits);
  const int sh = std::countl_zero(mh) - (64 - kDigits);
  mv <<= sv;
  mh <<= sh;
  const int d = (ev - sv) - (eh - sh);
  if (d > 65) return absl::StatusCode::kOutOfRange;
  absl::uint128 quotient = 0;
  bool inexact = true;
  if (d >= 0) {
    const absl::uint128 num = absl::uint128(mv) << d;
    quotient = num / mh;
    inexact = num % mh != 0;
  } else if (d >= -kDigits) {
    const absl::uint128 den = absl::uint128(mh) << -d;
    quotient = absl::uint128(mv) / den;
    inexact = absl::uint128(mv) % den != 0;
  }  // else |v| / h < 2^(d + 1) <= 2^-p: quotient 0, inexact (v is not zero)
  constexpr absl::uint128 kTwo63 = absl::uint128(1) << 63;
  if (!negative) {
    if (quotient >= kTwo63) return absl::StatusCode::kOutOfRange;
    cell = static_cast<std::int64_t>(absl::Uint128Low64(quotient));
    return absl::StatusCode::kOk;
  }
  // floor(-a) == -ceil(a).
  const absl::uint128 ceiling = quotient + (inexact ? 1 : 0);
  if (ceiling > kTwo63) return absl::StatusCode::kOutOfRange;
  cell = ceiling == kTwo63 ? std::numeric_limits<std::int64_t>::min()
                           : -static_cast<std::int64_t>(absl::Uint128Low64(ceiling));
  return absl::StatusCode::kOk;
}

// Whether |v| < 2^62 * h for every v: then every floor(v / h) is an int64 and no input can fail. NaN
// fails the comparison, and so does an infinity; 2^62 * h rounds to infinity only for an h so large that
// every finite v passes. Branch-free, so it vectorises: a fraction of what the cells cost.
[[nodiscard]] inline bool all_within_2_62_cells(std::span<const double> vs, double h) noexcept {
  const double bound = h * 0x1p62;
  bool within = true;
#if __FINITE_MATH_ONLY__
  // The compiler may assume no NaN or infinity reaches a floating-point comparison; the magnitude's bits
  // (read from memory, where no such assumption applies) order as the magnitudes do, NaN and inf last.
  const auto limit = std::bit_cast<std::int64_t>(bound);
  for (const double v : vs) within &= (std::bit_cast<std::int64_t>(v) & std::numeric_limits<std::int64_t>::max()) < limit;
#else
  for (const double v : vs) within &= std::fabs(v) < bound;
#endif
  return within;
}

}  // namespace lwc::internal

LWC_EXPORT namespace lwc {

// cell_of_code()
//
// The allocation-free core of `cell_of`: stores the cell and returns kOk, or returns the code `cell_of`
// would fail with (kInvalidArgument, kOutOfRange) without building a message or touching `cell`. For hot
// loops where errors are expected, and for sweeps over every input (tests/decompose_exhaustive.cc).
template <std::floating_point F>
[[nodiscard]] absl::StatusCode cell_of_code(std::type_identity_t<F> v, BasicCellSize<F> h,
                                            std::int64_t& cell) noexcept {
  if (internal::cell_of_small(v, h.value(), cell)) return absl::StatusCode::kOk;
  if (!fp::is_finite(v)) return absl::StatusCode::kInvalidArgument;
  return internal::cell_of_large(v, h.value(), cell);
}

// cell_of()
//
// The index of the real cell holding `v`: the unique integer n with n * h <= v < (n + 1) * h in exact
// real arithmetic (D9), so cell n is exactly [n * h, (n + 1) * h). Monotone: a <= b implies
// cell_of(a) <= cell_of(b) (D10), which the broad phase's completeness rests on. -0.0 is in cell 0.
// Errors: InvalidArgument when v is NaN or infinite (or, for the double overload, h is not a valid
// CellSize); OutOfRange when n is not an int64.
//
// Plain floor(v / h) is not this function: the division rounds, and for v = -4.9e-324 (the smallest
// subnormal, negated) and h = 2 it gives floor(-0.0) = cell 0 although v < 0 * h.
template <std::floating_point F>
[[nodiscard]] absl::StatusOr<std::int64_t> cell_of(std::type_identity_t<F> v, BasicCellSize<F> h) {
  std::int64_t cell = 0;
  switch (cell_of_code<F>(v, h, cell)) {
    case absl::StatusCode::kOk:
      return cell;
    case absl::StatusCode::kInvalidArgument:
      return absl::InvalidArgumentError(
          absl::StrCat("cell_of: coordinate ", internal::message_real(static_cast<double>(v)), " is not finite (D9)"));
    default:  // at the edge of int64 the exact value decides: it is given in hex too
      return absl::OutOfRangeError(absl::StrCat("cell_of: floor(", internal::message_real_exact(static_cast<double>(v)),
                                                " / ", internal::message_real(static_cast<double>(h.value())),
                                                ") is outside int64 (D9)"));
  }
}

[[nodiscard]] inline absl::StatusOr<std::int64_t> cell_of(double v, double h) {
  absl::StatusOr<CellSize> size = CellSize::create(h);
  if (!size.ok()) return size.status();
  return cell_of<double>(v, *size);
}

// cell_of_all()
//
// Batch `cell_of`: out[i] = *cell_of(vs[i], h) for every i (D11). On an error nothing is written: the
// first failing input's code, its index in the message. InvalidArgument when out.size() differs from
// vs.size(). Every input is judged before the first write; a batch whose values all lie within 2^62 cells
// of 0 is judged by one branch-free pass over their bits, so the check costs a read, not a second cell_of.
[[nodiscard]] inline absl::Status cell_of_all(std::span<const double> vs, CellSize h,
                                              std::span<std::int64_t> out) {
  if (out.size() != vs.size()) {
    return absl::InvalidArgumentError(absl::StrCat("cell_of_all: ", vs.size(), " inputs but ",
                                                   out.size(), " outputs"));
  }
  if (!internal::all_within_2_62_cells(vs, h.value())) {
    for (std::size_t i = 0; i < vs.size(); ++i) {
      std::int64_t cell = 0;
      if (cell_of_code<double>(vs[i], h, cell) == absl::StatusCode::kOk) continue;
      const absl::Status error = cell_of<double>(vs[i], h).status();
      return absl::Status(error.code(), absl::StrCat("cell_of_all: input ", i, ": ", error.message()));
    }
  }
  for (std::size_t i = 0; i < vs.size(); ++i) {
    if (internal::cell_of_small(vs[i], h.value(), out[i])) continue;
    (void)internal::cell_of_large(vs[i], h.value(), out[i]);  // kOk: every input was judged above
  }
  return absl::OkStatus();
}

}  // namespace lwc

LWC_EXACT_FP_END

#endif  // LWC_DECOMPOSE_H_
