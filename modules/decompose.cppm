// File: modules/decompose.cppm          Module: lwc.decompose
//
// Unique floor decomposition of integer coordinates into (chunk, local), and exact quantisation of real
// coordinates into integer cells. Every other lwc contract addresses space through this module.
// Spec: docs/decompose.md (clauses D1-D11). Checker and oracle: lwc.contracts.decompose.
module;
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <ostream>
#include <span>

#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lwc/check.h"
export module lwc.decompose;

export namespace lwc {

// ChunkSize
//
// A chunk width: a positive int64, validated once so that `split` needs no error path (D5). It also
// precomputes how `split` divides by it: an arithmetic shift for powers of two, otherwise a 64-bit
// reciprocal (a multiply instead of a hardware division; both proved equal to division by D7).
//
// Example:
//   absl::StatusOr<lwc::ChunkSize> size = lwc::ChunkSize::create(config.chunk_width);
//   if (!size.ok()) return size.status();
//   constexpr lwc::ChunkSize kSixteen = lwc::ChunkSize::of<16>();
class ChunkSize {
 public:
  // create()
  //
  // Returns the size `value`, or InvalidArgument when value <= 0.
  [[nodiscard]] static absl::StatusOr<ChunkSize> create(std::int64_t value) {
    if (value <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("chunk size ", value, " is not positive (D5)"));
    }
    return ChunkSize(value);
  }

  // of()
  //
  // A size known at compile time; a non-positive `N` does not compile.
  template <std::int64_t N>
    requires(N > 0)
  [[nodiscard]] static consteval ChunkSize of() noexcept {
    return ChunkSize(N);
  }

  [[nodiscard]] constexpr std::int64_t value() const noexcept { return value_; }
  [[nodiscard]] constexpr bool is_power_of_two() const noexcept { return shift_ >= 0; }
  // log2()
  //
  // k when value() == 2^k; -1 when value() is not a power of two.
  [[nodiscard]] constexpr int log2() const noexcept { return shift_; }

  // The reciprocal of a size that is not a power of two: for every 0 <= u < 2^63,
  // floor(u / value()) == (u * multiplier()) >> (64 + post_shift()). Unspecified for powers of two.
  [[nodiscard]] constexpr std::uint64_t multiplier() const noexcept { return multiplier_; }
  [[nodiscard]] constexpr int post_shift() const noexcept { return post_shift_; }

  friend constexpr bool operator==(ChunkSize a, ChunkSize b) noexcept { return a.value_ == b.value_; }
  friend std::ostream& operator<<(std::ostream& os, ChunkSize s) { return os << s.value_; }

 private:
  // Granlund and Montgomery's round-up reciprocal ("Division by invariant integers using
  // multiplication", 1994) for N = 63-bit dividends: with l = ceil(log2 d) and m = ceil(2^(63 + l) / d),
  // u * m / 2^(63 + l) = u / d + u * e / 2^(63 + l) for some 0 <= e < 1, and that error is below
  // 2^63 / 2^(63 + l) = 2^-l <= 1 / d, too small to reach the next integer, since the fractional part of
  // u / d is at most (d - 1) / d. For d not a power of two, 2^(l - 1) < d, so m < 2^64.
  constexpr explicit ChunkSize(std::int64_t value) noexcept
      : value_(value),
        shift_(std::has_single_bit(static_cast<std::uint64_t>(value))
                   ? std::countr_zero(static_cast<std::uint64_t>(value))
                   : -1) {
    if (shift_ < 0) {
      const auto l = static_cast<int>(std::bit_width(static_cast<std::uint64_t>(value)));  // ceil(log2 d)
      __extension__ using u128 = unsigned __int128;
      // 2^(63 + l) / d is never an integer here (d has an odd factor > 1), so ceil is floor + 1.
      multiplier_ = static_cast<std::uint64_t>((u128{1} << (63 + l)) / static_cast<u128>(value) + 1);
      post_shift_ = l - 1;
    }
  }

  // Invariant: value_ > 0; shift_ == log2(value_) when value_ is a power of two, else -1, and then
  // multiplier_ and post_shift_ hold its reciprocal.
  std::int64_t value_;
  int shift_;
  std::uint64_t multiplier_ = 0;
  int post_shift_ = 0;
};

// ChunkPoint
//
// The result of `split`: x == chunk * size + local with 0 <= local < size.
struct ChunkPoint {
  std::int64_t chunk;
  std::int64_t local;

  friend constexpr bool operator==(const ChunkPoint&, const ChunkPoint&) noexcept = default;
  friend std::ostream& operator<<(std::ostream& os, const ChunkPoint& p) {
    return os << "(chunk " << p.chunk << ", local " << p.local << ")";
  }
};

// Int2, Int3
//
// Integer coordinates (cells, chunks, offsets) in 2D and 3D.
struct Int2 {
  std::int64_t x;
  std::int64_t y;

  friend constexpr bool operator==(const Int2&, const Int2&) noexcept = default;
  friend constexpr auto operator<=>(const Int2&, const Int2&) noexcept = default;
  friend std::ostream& operator<<(std::ostream& os, const Int2& p) {
    return os << "(" << p.x << ", " << p.y << ")";
  }
};

struct Int3 {
  std::int64_t x;
  std::int64_t y;
  std::int64_t z;

  friend constexpr bool operator==(const Int3&, const Int3&) noexcept = default;
  friend constexpr auto operator<=>(const Int3&, const Int3&) noexcept = default;
  friend std::ostream& operator<<(std::ostream& os, const Int3& p) {
    return os << "(" << p.x << ", " << p.y << ", " << p.z << ")";
  }
};

struct ChunkPoint2 {
  Int2 chunk;
  Int2 local;

  friend constexpr bool operator==(const ChunkPoint2&, const ChunkPoint2&) noexcept = default;
};

struct ChunkPoint3 {
  Int3 chunk;
  Int3 local;

  friend constexpr bool operator==(const ChunkPoint3&, const ChunkPoint3&) noexcept = default;
};

// split_by_division()
//
// The reference path: truncating hardware division and a one-step correction, as seed 000 does it. Every
// size works here; `split` uses faster paths that D7 proves equal to this one. Exported for audits.
[[nodiscard]] constexpr ChunkPoint split_by_division(std::int64_t x, ChunkSize size) noexcept {
  const std::int64_t s = size.value();
  // Neither can overflow: s > 0, so this is never INT64_MIN / -1. `%` keeps the sign of x, |r| < s.
  const std::int64_t q = x / s;
  const std::int64_t r = x % s;
  // Truncation rounds toward zero; floor is one lower exactly when the remainder is negative (x < 0 and
  // not a multiple of s). Invariant: r < 0 implies s >= 2, so q >= INT64_MIN / 2 and q - 1 cannot
  // overflow, and -s < r < 0, so r + s lies in [1, s - 1].
  if (r < 0) return {q - 1, r + s};
  return {q, r};
}

// split_by_reciprocal()
//
// The path of `split` for sizes that are not powers of two, without a hardware division. Exported so that
// its equivalence with the division path (D7) can be tested and audited; call `split`.
//
// Floor division of a signed x reduces to unsigned division of u = x >= 0 ? x : -x - 1 (that is,
// x ^ (x >> 63), always in [0, 2^63)): floor(x / s) = q if x >= 0 and -q - 1 otherwise, with q = u / s,
// and local = r or s - 1 - r with r = u - q * s. No step can overflow: q * s <= u.
[[nodiscard]] constexpr ChunkPoint split_by_reciprocal(std::int64_t x, ChunkSize size) noexcept {
  __extension__ using u128 = unsigned __int128;
  const std::int64_t sign = x >> 63;  // 0 or -1
  const auto u = static_cast<std::uint64_t>(x ^ sign);
  const auto q = static_cast<std::uint64_t>((static_cast<u128>(u) * size.multiplier()) >> 64) >>
                 size.post_shift();
  const auto r = static_cast<std::int64_t>(u - q * static_cast<std::uint64_t>(size.value()));
  // ~q == -q - 1 and (~r) + s == s - 1 - r: the complement maps the mirrored quotient back.
  return {static_cast<std::int64_t>(q) ^ sign, (r ^ sign) + (size.value() & sign)};
}

// split()
//
// Returns the unique (chunk, local) with x == chunk * size + local and 0 <= local < size (D1-D3):
// chunk is floor(x / size), not the truncated quotient (D6). Total: defined for every int64 `x`, and no
// intermediate can overflow; in particular it never computes chunk * size or |x| (D4). Powers of two
// take an arithmetic shift and a mask, other sizes a multiply by the precomputed reciprocal; both are
// the same function as `split_by_division` (D7), and several times faster than a hardware division.
//
// Example: split(-1, ChunkSize::of<1000>()) == {-1, 999}, where -1 / 1000 == 0.
[[nodiscard]] constexpr ChunkPoint split(std::int64_t x, ChunkSize size) noexcept {
  if (size.is_power_of_two()) {
    // C++20 defines >> on negative values as arithmetic (floor division by 2^k) and & on the two's
    // complement bits, whose low k bits are x - floor(x / 2^k) * 2^k.
    return {x >> size.log2(), x & (size.value() - 1)};
  }
  return split_by_reciprocal(x, size);
}

// floor_div(), floor_mod()
//
// The two components of `split`: floor(x / size) and x - floor(x / size) * size, in [0, size).
[[nodiscard]] constexpr std::int64_t floor_div(std::int64_t x, ChunkSize size) noexcept {
  return split(x, size).chunk;
}
[[nodiscard]] constexpr std::int64_t floor_mod(std::int64_t x, ChunkSize size) noexcept {
  return split(x, size).local;
}

// split() in 2D and 3D
//
// Each axis is split independently with the same size (D8).
[[nodiscard]] constexpr ChunkPoint2 split(Int2 p, ChunkSize size) noexcept {
  const ChunkPoint x = split(p.x, size);
  const ChunkPoint y = split(p.y, size);
  return {{x.chunk, y.chunk}, {x.local, y.local}};
}
[[nodiscard]] constexpr ChunkPoint3 split(Int3 p, ChunkSize size) noexcept {
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
[[nodiscard]] absl::Status split_all(std::span<const std::int64_t> xs, ChunkSize size,
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
    for (std::size_t i = 0; i < xs.size(); ++i) out[i] = split_by_reciprocal(xs[i], size);
  }
  return absl::OkStatus();
}

// CellSize
//
// The edge length h of a real grid cell: finite and positive, validated once.
class CellSize {
 public:
  // create()
  //
  // Returns the size `h`, or InvalidArgument when h is NaN, infinite, zero or negative.
  [[nodiscard]] static absl::StatusOr<CellSize> create(double h) {
    if (!std::isfinite(h) || !(h > 0)) {
      return absl::InvalidArgumentError(
          absl::StrFormat("cell size %.17g is not finite and positive (D9)", h));
    }
    return CellSize(h);
  }

  [[nodiscard]] constexpr double value() const noexcept { return value_; }

  friend constexpr bool operator==(CellSize, CellSize) noexcept = default;

 private:
  constexpr explicit CellSize(double h) noexcept : value_(h) {}

  // Invariant: value_ is finite and > 0.
  double value_;
};

}  // namespace lwc

namespace lwc::internal {

// The exact floor of v / h for the common case |fl(v / h)| < 2^53, stored in `cell`; false (nothing
// stored) for non-finite v and larger quotients, which cell_of() handles. Inline and branch-light: the
// broad phase calls it for every box corner.
//
// Below 2^53 every integer is a double, and rounding is monotone: when q = fl(v / h) is not an integer,
// the exact quotient lies strictly between the same two integers as q. When q is an integer n, the exact
// quotient is in (n - 1, n + 1) and lies below n only if the division rounded up onto n; the fused
// multiply-add gives the sign of v - n * h exactly (one rounding, and a nonzero multiple of the smallest
// subnormal never rounds to zero).
[[nodiscard]] inline bool cell_of_small(double v, double h, std::int64_t& cell) {
  const double q = v / h;  // correctly rounded, so monotone in v; NaN or +-inf for non-finite v
  if (!(std::fabs(q) < 0x1p53)) return false;
  auto n = static_cast<std::int64_t>(q);  // truncates; |q| < 2^53 fits
  const auto nd = static_cast<double>(n);
  if (nd > q || (nd == q && std::fma(-nd, h, v) < 0)) --n;
  cell = n;
  return true;
}

// The exact floor of v / h when the rounded quotient is at least 2^53 in magnitude (or overflowed), where
// doubles no longer hold every integer. Works on the integer significands: |v| = mv * 2^ev and
// h = mh * 2^eh, so |v| / h = (mv << (ev - eh)) / mh, at most 2^118 / 1 for any quotient that can fit an
// int64, and uint128 division is exact.
[[nodiscard]] inline absl::StatusOr<std::int64_t> cell_of_large(double v, double h) {
  const auto out_of_range = [&] {
    return absl::OutOfRangeError(
        absl::StrFormat("cell_of: floor(%.17g / %.17g) is outside int64 (D9)", v, h));
  };
  int ev = 0;
  int eh = 0;
  // frexp normalises subnormals too: the fractions have at most 53 significant bits, so scaling them by
  // 2^53 gives exact integers below 2^53.
  const auto mv = static_cast<std::uint64_t>(std::ldexp(std::frexp(std::fabs(v), &ev), 53));
  const auto mh = static_cast<std::uint64_t>(std::ldexp(std::frexp(h, &eh), 53));
  // mv / mh lies in (1/2, 2): the quotient is below 2^(d + 1) and at least 2^(d - 1).
  const int d = ev - eh;
  if (d > 65) return out_of_range();
  // Invariant: the caller saw |fl(v / h)| >= 2^53, so d >= 52 and the shift below is defined.
  LWC_CHECK(d >= 52, "cell_of_large called for a small quotient");
  const absl::uint128 num = absl::uint128(mv) << d;
  const absl::uint128 quotient = num / mh;
  const bool inexact = num % mh != 0;
  constexpr absl::uint128 kTwo63 = absl::uint128(1) << 63;
  if (v >= 0) {
    if (quotient >= kTwo63) return out_of_range();
    return static_cast<std::int64_t>(absl::Uint128Low64(quotient));
  }
  // floor(-a) == -ceil(a).
  const absl::uint128 ceiling = quotient + (inexact ? 1 : 0);
  if (ceiling > kTwo63) return out_of_range();
  if (ceiling == kTwo63) return std::numeric_limits<std::int64_t>::min();
  return -static_cast<std::int64_t>(absl::Uint128Low64(ceiling));
}

}  // namespace lwc::internal

export namespace lwc {

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
[[nodiscard]] inline absl::StatusOr<std::int64_t> cell_of(double v, CellSize h) {
  std::int64_t cell = 0;
  if (internal::cell_of_small(v, h.value(), cell)) return cell;
  if (!std::isfinite(v)) {
    return absl::InvalidArgumentError(absl::StrFormat("cell_of: coordinate %.17g is not finite (D9)", v));
  }
  return internal::cell_of_large(v, h.value());
}

[[nodiscard]] inline absl::StatusOr<std::int64_t> cell_of(double v, double h) {
  absl::StatusOr<CellSize> size = CellSize::create(h);
  if (!size.ok()) return size.status();
  return cell_of(v, *size);
}

// cells_of()
//
// Batch `cell_of`: out[i] = *cell_of(vs[i], h) for every i (D11). Returns the first error, naming its
// index; on an error the contents of `out` are unspecified (a prefix may have been written).
// InvalidArgument when out.size() differs from vs.size().
[[nodiscard]] inline absl::Status cells_of(std::span<const double> vs, CellSize h,
                                           std::span<std::int64_t> out) {
  if (out.size() != vs.size()) {
    return absl::InvalidArgumentError(absl::StrCat("cells_of: ", vs.size(), " inputs but ",
                                                   out.size(), " outputs"));
  }
  for (std::size_t i = 0; i < vs.size(); ++i) {
    if (internal::cell_of_small(vs[i], h.value(), out[i])) continue;
    absl::StatusOr<std::int64_t> cell = cell_of(vs[i], h);
    if (!cell.ok()) {
      return absl::Status(cell.status().code(),
                          absl::StrCat("cells_of: input ", i, ": ", cell.status().message()));
    }
    out[i] = *cell;
  }
  return absl::OkStatus();
}

}  // namespace lwc
