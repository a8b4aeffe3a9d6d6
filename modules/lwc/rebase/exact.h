// SPDX-License-Identifier: MIT
// File: modules/lwc/rebase/exact.h
//
// The exact arithmetic of lwc.rebase, internal to it: an offset normalised into its cell (R1), a world
// difference converted to the nearest float with one rounding (R4, R5), and view ids (R12).
// Included by <lwc/rebase.h> (and so in the purview of lwc.rebase); not a header to include on its own.
#ifndef LWC_REBASE_EXACT_H_
#define LWC_REBASE_EXACT_H_

#include "lwc/config.h"
#ifndef LWC_MODULE_UNIT  // modules/rebase.cppm includes these in its global module fragment
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "lwc/check.h"
#include "lwc/exact_fp.h"
#include "lwc/format.h"
// ... and imports these.
#include "lwc/decompose.h"
#include "lwc/rebase/spec.h"
#endif

// The arithmetic below is exact IEEE arithmetic whatever the consumer's flags (lwc/exact_fp.h).
LWC_EXACT_FP_BEGIN

namespace lwc::internal {

inline constexpr std::int64_t kMinCell = std::numeric_limits<std::int64_t>::min();
inline constexpr std::int64_t kMaxCell = std::numeric_limits<std::int64_t>::max();

template <std::size_t D>
std::string describe_cell(const CellIndex<D>& c) {
  std::string s = "(";
  for (std::size_t a = 0; a < D; ++a) absl::StrAppend(&s, a ? ", " : "", c[a]);
  return s + ")";
}

// The integer value of a double v with 2^53 <= |v| < 2^126 (such doubles have no fractional bits), read
// from its significand so that no conversion can round.
inline absl::int128 integral_double_to_int128(double v) {
  int exponent = 0;
  const double fraction = std::frexp(std::fabs(v), &exponent);  // in [0.5, 1)
  const auto mantissa = static_cast<std::uint64_t>(std::ldexp(fraction, 53));
  const absl::int128 magnitude = absl::int128(mantissa) << (exponent - 53);  // exponent - 53 in [1, 73)
  return v < 0 ? -magnitude : magnitude;
}

// One axis of WorldGrid::normalize: the position nearest to cell * size + v with 0 <= offset < size.
//
// Small |v| (< 2^53): k = cell_of(v, size) is the exact floor (D9), and fma(-k, size, v) is the exact
// v - k * size rounded once; it lies in [0, size) exactly, so the rounded value lies in [0, size], and
// equals size only when the exact offset is within half an ulp below size, where the nearest position is
// the next cell's origin: carry. (v = -1e-17 at size 16 is that case: 16 - 1e-17 rounds to 16.0.)
// Large |v| is an integer, and the split is exact in int128. The cell sum is formed in int128.
inline absl::Status normalize_axis(std::size_t axis, std::int64_t cell, double v, std::int64_t size,
                                   CellSize real_size, std::int64_t& cell_out, double& offset_out) {
  if (!fp::is_finite(v)) {
    return absl::InvalidArgumentError(
        absl::StrCat("normalize: offset ", message_real(v), " on axis ", axis, " is not finite (R1)"));
  }
  absl::int128 k = 0;
  double offset = 0;
  const double s = real_size.value();
  if (std::fabs(v) < 0x1p53) {
    const absl::StatusOr<std::int64_t> floor_cell = cell_of(v, real_size);
    // Invariant: |v / size| < 2^53, so the cell is an int64 (cell_of fails only beyond int64).
    LWC_CHECK(floor_cell.ok(), "cell_of failed for a small offset");
    k = *floor_cell;
    if (*floor_cell == 0) {
      // A normalised offset is never negative zero: here v is +0.0, -0.0 or positive. (Not v + 0.0, which
      // -fno-signed-zeros folds to v and denormals-are-zero flushes for a subnormal v.)
      offset = fp::sign_bit(v) ? 0.0 : v;
    } else {
      offset = fp::fma(-static_cast<double>(*floor_cell), s, v);
      if (offset == s) {
        offset = 0;
        k += 1;
      }
    }
  } else if (std::fabs(v) < 0x1p126) {
    const absl::int128 whole = integral_double_to_int128(v);
    absl::int128 q = whole / size;
    absl::int128 r = whole % size;
    if (r < 0) {
      q -= 1;
      r += size;
    }
    k = q;
    offset = static_cast<double>(static_cast<std::int64_t>(r));  // r < size <= 2^53: exact
  } else {
    return absl::OutOfRangeError(absl::StrCat("normalize: offset ", message_real_exact(v), " on axis ", axis,
                                              " carries cell ", cell, " past int64 (R1)"));
  }
  const absl::int128 moved = absl::int128(cell) + k;
  if (moved < kMinCell || moved > kMaxCell) {
    return absl::OutOfRangeError(absl::StrCat("normalize: offset ", message_real_exact(v), " on axis ", axis,
                                              " carries cell ", cell, " past int64 (R1)"));
  }
  cell_out = static_cast<std::int64_t>(moved);
  offset_out = offset;
  return absl::OkStatus();
}

// The float nearest to (q + phi) * 2^exp2, ties to even, negated when `negative`; phi is in [0, 1) and
// is nonzero exactly when `sticky`. Requires q > 0 and, when sticky, at least one bit of q below the
// float's last kept bit (every caller supplies 25 or more).
inline float round_scaled_to_float(absl::uint128 q, bool sticky, int exp2, bool negative) {
  constexpr int kDigits = std::numeric_limits<float>::digits;  // 24
  constexpr int kLowestBit = std::numeric_limits<float>::min_exponent - 1 - (kDigits - 1);  // -149
  const std::uint64_t high = absl::Uint128High64(q);
  const int width = high != 0 ? 128 - std::countl_zero(high) : 64 - std::countl_zero(absl::Uint128Low64(q));
  const int top = width - 1 + exp2;
  const int lsb = std::max(top - (kDigits - 1), kLowestBit);
  const int shift = lsb - exp2;
  // Invariant: shift >= width - 24 > 0, as both callers pass q of at least 25 bits: round_exact_to_float
  // divides at least 2^116 (a 53-bit significand shifted by 64) or, off the exact path where
  // |w + f| > 1/2, at least 2^81 (|w + f| * 2^82) by d <= 2^20, so q >= 2^61. (A q of 24 bits or fewer
  // would be exact, with nothing to round, and sticky would have no bit to attach to.)
  LWC_CHECK(shift > 0, "round_scaled_to_float: too few bits to round");
  float magnitude = 0;
  if (shift > width) {
    magnitude = 0;  // below half the smallest subnormal float
  } else {
    absl::uint128 kept = q >> shift;
    const absl::uint128 rest = q & ((absl::uint128(1) << shift) - 1);
    const absl::uint128 half = absl::uint128(1) << (shift - 1);
    if (rest > half || (rest == half && (sticky || (kept & 1) != 0))) kept += 1;
    // kept <= 2^24, exact as a float; scaling by a power of two is exact for representable results. A
    // subnormal result (lsb at the least float's bit) is written from its bits, kept itself, as the
    // scaling would be flushed to zero under flush-to-zero.
    magnitude = lsb == kLowestBit ? fp::from_bits<float>(static_cast<std::uint32_t>(absl::Uint128Low64(kept)))
                                  : std::ldexp(static_cast<float>(absl::Uint128Low64(kept)), lsb);
  }
  return negative ? -magnitude : magnitude;
}

// The float nearest to (w + f) / d, exactly, for |w| <= 2^44, f in [0, 1), 1 <= d <= 2^20. The slow
// path of render_axis, taken only near a rounding boundary.
//
// When w + f is a double t (always when w = 0), t / d = (m << 64) / d * 2^(e - 64) for t's 53-bit
// significand m: one uint128 division, with the remainder as sticky bit. Otherwise |w + f| > 1/2, and
// (w + f) * 2^82 = w * 2^82 + floor(f * 2^82) + theta (theta in [0, 1), the bits of f below 2^-82) fits
// uint128 with the same division.
inline float round_exact_to_float(std::int64_t w, double f, std::int64_t d) {
  const double t = static_cast<double>(w) + f;
  // Fast2Sum (|w| >= 1 > f): t - w is exact, and f - (t - w) is the rounding error of t. A subnormal f
  // is below half an ulp of any w != 0, so t is inexact then (said on the bits: under denormals-are-zero
  // the CPU would read f as 0).
  const bool t_is_exact = w == 0 || (!fp::is_subnormal(f) && f - (t - static_cast<double>(w)) == 0);
  const auto divisor = static_cast<std::uint64_t>(d);
  if (t_is_exact) {
    // t == f for w == 0: a subnormal t is far below half the least float even before dividing.
    if (fp::is_zero(t) || fp::is_subnormal(t)) return 0.0f;
    int exponent = 0;
    std::uint64_t m = 0;
    fp::decode(t, m, exponent);  // |t| = m * 2^exponent, m in [2^52, 2^53) as t is normal
    const absl::uint128 u = absl::uint128(m) << 64;
    return round_scaled_to_float(u / divisor, u % divisor != 0, exponent - 64, fp::sign_bit(t));
  }
  constexpr int kScale = 82;
  int exponent = 0;
  std::uint64_t mf = 0;
  fp::decode(f, mf, exponent);  // from the bits: exact for a subnormal f in every floating-point mode
  const int up = exponent + kScale;  // f * 2^82 = mf * 2^up
  absl::uint128 frac_bits = 0;
  bool sticky = false;
  if (up >= 0) {
    frac_bits = absl::uint128(mf) << up;  // < 2^82
  } else if (up > -64) {
    frac_bits = mf >> -up;
    sticky = (mf & ((std::uint64_t{1} << -up) - 1)) != 0;
  } else {
    sticky = mf != 0;
  }
  absl::uint128 u = 0;
  if (w > 0) {
    u = (absl::uint128(static_cast<std::uint64_t>(w)) << kScale) + frac_bits;
  } else {
    // |w + f| = -w - f: subtract the bits of f, and when theta > 0 borrow one (1 - theta is in (0, 1)).
    u = (absl::uint128(static_cast<std::uint64_t>(-w)) << kScale) - frac_bits;
    if (sticky) u -= 1;
  }
  return round_scaled_to_float(u / divisor, sticky || u % divisor != 0, -kScale, w < 0);
}

// One axis of the world difference, split exactly: false when the point is outside the bubble, else
// (cell - origin) * size + offset = w + frac with w an integer, |w| <= bubble, and 0 <= frac < 1 (the
// point at +bubble itself is inside, anything past it is not). Requires 0 <= offset < size.
//
// W = (cell - origin) * size + floor(offset) is formed exactly in int64 with overflow detection: any
// overflow means |W| >= 2^63, far beyond the bubble (at most 2^44), which a caller cannot distinguish
// from a successful int128 computation followed by the range test.
inline bool world_in_bubble(std::int64_t cell, double offset, std::int64_t origin, std::int64_t size,
                            std::int64_t bubble, std::int64_t& w, double& frac) {
  // 0 <= offset < 2^53, so truncation is the floor and both parts are exact (and no libm call is made).
  const auto whole = static_cast<std::int64_t>(offset);
  // Below 1 the offset is its own fraction: no subtraction, so a subnormal survives denormals-are-zero.
  // Through the bits: offset - 0.0 == offset in IEEE arithmetic, so the compiler may fold the select into
  // the subtraction, which denormals-are-zero turns into 0 for a subnormal offset.
  frac = whole == 0 ? fp::from_bits<double>(fp::bits_of(offset)) : offset - static_cast<double>(whole);
  std::int64_t delta = 0;
  if (__builtin_sub_overflow(cell, origin, &delta) || __builtin_mul_overflow(delta, size, &w) ||
      __builtin_add_overflow(w, whole, &w)) {
    return false;
  }
  // frac >= +0.0; tested on the bits, as denormals-are-zero reads a subnormal frac as 0.
  return !(w > bubble || (w == bubble && !fp::is_zero(frac)) || w < -bubble);
}

// True when a double q lies within 4 ulps of a point halfway between two consecutive normal floats: the
// only places where an error of under 2 ulps can change which float is nearest.
inline bool near_float_midpoint(double q) {
  constexpr std::uint64_t kDropped = (std::uint64_t{1} << 29) - 1;  // the 29 bits a float lacks
  constexpr std::uint64_t kHalf = std::uint64_t{1} << 28;
  const std::uint64_t low = std::bit_cast<std::uint64_t>(q) & kDropped;
  return low >= kHalf - 4 && low <= kHalf + 4;
}

// One axis of the world difference in render units as a double, for oriented views (R17): false outside
// the bubble, else fl(fl(W + f) / d), within 3 * 2^-53 relative of the exact value.
inline bool render_axis_double(std::int64_t cell, double offset, std::int64_t origin, std::int64_t size,
                               std::int64_t d, std::int64_t bubble, double& out) {
  std::int64_t w = 0;
  double frac = 0;
  if (!world_in_bubble(cell, offset, origin, size, bubble, w, frac)) return false;
  const double hi = static_cast<double>(w) + frac;
  out = d == 1 ? hi : hi / static_cast<double>(d);
  return true;
}

// One axis of a render conversion: false when the point is outside the bubble, else `out` is the float
// nearest to ((cell - origin) * size + offset) / d (R4). Requires 0 <= offset < size.
//
// Inside the bubble the value is w + frac, exact in two doubles (world_in_bubble). Fast path: q = fl(fl(W + f) / d) is within
// 2 ulps of the exact quotient, so unless q is near a float midpoint, float(q) is the nearest float.
inline bool render_axis(std::int64_t cell, double offset, std::int64_t origin, std::int64_t size,
                        std::int64_t d, std::int64_t bubble, float& out) {
  std::int64_t w = 0;
  double frac = 0;
  if (!world_in_bubble(cell, offset, origin, size, bubble, w, frac)) return false;
  const double hi = static_cast<double>(w) + frac;  // |w| <= 2^44: the conversion is exact
  const double q = d == 1 ? hi : hi / static_cast<double>(d);
  if (q == 0) {
    out = 0.0f;  // the exact value is 0, or positive and below 2^-1074 / 2^20: +0.0f is nearest
    return true;
  }
  if (std::fabs(q) >= 0x1p-100 && !near_float_midpoint(q)) {
    out = static_cast<float>(q);
    return true;
  }
  out = round_exact_to_float(w, frac, d);
  return true;
}

// The last view id issued in this process (R12); 0 before the first. Never decremented, never wraps.
inline std::atomic<std::uint64_t>& view_id_counter() {
  static std::atomic<std::uint64_t> last{0};
  return last;
}

// The next view id, or 0 once 2^64 - 1 ids have been issued (the counter stays at its end: no reuse).
inline std::uint64_t issue_view_id() {
  std::atomic<std::uint64_t>& last = view_id_counter();
  std::uint64_t seen = last.load(std::memory_order_relaxed);
  while (seen != std::numeric_limits<std::uint64_t>::max()) {
    if (last.compare_exchange_weak(seen, seen + 1, std::memory_order_relaxed)) return seen + 1;
  }
  return 0;  // LCOV_EXCL_LINE: after 2^64 - 1 views, beyond any process's time
}

}  // namespace lwc::internal

LWC_EXACT_FP_END

#endif  // LWC_REBASE_EXACT_H_
