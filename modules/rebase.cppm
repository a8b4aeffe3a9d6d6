// SPDX-License-Identifier: MIT
// File: modules/rebase.cppm             Module: lwc.rebase
//
// Floating origin without losing the world: authoritative positions are an integer cell plus an offset
// inside it, and render coordinates are derived from them, per view, relative to an origin cell that
// changes only by a versioned, barrier-guarded commit. Late asynchronous results are placed from their
// world anchor, never from a local position computed under an older origin.
// Spec: docs/rebase.md (clauses R1-R11). Checkers and model: lwc.contracts.rebase.
#ifndef LWC_HEADER_BUILD
module;
#endif
#include "lwc/config.h"
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <ostream>
#include <span>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "lwc/check.h"
#include "lwc/exact_fp.h"
#ifndef LWC_HEADER_BUILD
export module lwc.rebase;

// The API speaks in ChunkSize (WorldGrid::create): importing lwc.rebase is enough to use it.
export import lwc.decompose;
#else
#include "lwc/decompose.h"
#endif

// The arithmetic below is exact IEEE arithmetic whatever the consumer's flags (lwc/exact_fp.h).
LWC_EXACT_FP_BEGIN

LWC_EXPORT namespace lwc {

// CellIndex
//
// The integer cell of a position, one int64 per axis (2D or 3D).
template <std::size_t D>
using CellIndex = std::array<std::int64_t, D>;

// WorldPosition
//
// The authoritative position of an entity: `cell` plus `offset` world units inside it.
// Invariant (R1), established by WorldGrid::normalize and checked by every consumer: each offset is
// finite and 0 <= offset < cell size. Nothing in this module ever writes a WorldPosition it was given (R2).
template <std::size_t D>
  requires(D == 2 || D == 3)
struct WorldPosition {
  CellIndex<D> cell{};
  std::array<double, D> offset{};

  friend constexpr bool operator==(const WorldPosition&, const WorldPosition&) noexcept = default;
};
using WorldPosition2 = WorldPosition<2>;
using WorldPosition3 = WorldPosition<3>;

// FixedPoint
//
// An integer world point in world units (e.g. int64 centimetres, as in the late-chunk floating-origin
// example). Converts exactly to a WorldPosition and back (R1).
template <std::size_t D>
  requires(D == 2 || D == 3)
struct FixedPoint {
  std::array<std::int64_t, D> units{};

  friend constexpr bool operator==(const FixedPoint&, const FixedPoint&) noexcept = default;
};

template <std::size_t D>
std::ostream& operator<<(std::ostream& os, const WorldPosition<D>& p) {
  os << "{cell (";
  for (std::size_t a = 0; a < D; ++a) os << (a ? ", " : "") << p.cell[a];
  os << ") + (" << std::hexfloat;
  for (std::size_t a = 0; a < D; ++a) os << (a ? ", " : "") << p.offset[a];
  return os << std::defaultfloat << ")}";
}

}  // namespace lwc

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
inline absl::Status normalize_axis(std::int64_t cell, double v, std::int64_t size, CellSize real_size,
                                   std::int64_t& cell_out, double& offset_out) {
  if (!fp::is_finite(v)) {
    return absl::InvalidArgumentError(absl::StrFormat("normalize: offset %a is not finite (R1)", v));
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
      offset = std::fma(-static_cast<double>(*floor_cell), s, v);
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
    return absl::OutOfRangeError(
        absl::StrFormat("normalize: offset %a carries cell %d past int64 (R1)", v, cell));
  }
  const absl::int128 moved = absl::int128(cell) + k;
  if (moved < kMinCell || moved > kMaxCell) {
    return absl::OutOfRangeError(
        absl::StrFormat("normalize: offset %a carries cell %d past int64 (R1)", v, cell));
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

// True when a double q lies within 4 ulps of a point halfway between two consecutive normal floats: the
// only places where an error of under 2 ulps can change which float is nearest.
inline bool near_float_midpoint(double q) {
  constexpr std::uint64_t kDropped = (std::uint64_t{1} << 29) - 1;  // the 29 bits a float lacks
  constexpr std::uint64_t kHalf = std::uint64_t{1} << 28;
  const std::uint64_t low = std::bit_cast<std::uint64_t>(q) & kDropped;
  return low >= kHalf - 4 && low <= kHalf + 4;
}

// One axis of a render conversion: false when the point is outside the bubble, else `out` is the float
// nearest to ((cell - origin) * size + offset) / d (R4). Requires 0 <= offset < size.
//
// The world difference W = (cell - origin) * size + floor(offset) is formed exactly in int64 with
// overflow detection: any overflow means |W| >= 2^63, far beyond the bubble (at most 2^44), which a
// caller cannot distinguish from a successful int128 computation followed by the range test. Inside the
// bubble the value is W + frac(offset), exact in two doubles. Fast path: q = fl(fl(W + f) / d) is within
// 2 ulps of the exact quotient, so unless q is near a float midpoint, float(q) is the nearest float.
inline bool render_axis(std::int64_t cell, double offset, std::int64_t origin, std::int64_t size,
                        std::int64_t d, std::int64_t bubble, float& out) {
  // 0 <= offset < 2^53, so truncation is the floor and both parts are exact (and no libm call is made).
  const auto whole = static_cast<std::int64_t>(offset);
  // Below 1 the offset is its own fraction: no subtraction, so a subnormal survives denormals-are-zero.
  // Through the bits: offset - 0.0 == offset in IEEE arithmetic, so the compiler may fold the select into
  // the subtraction, which denormals-are-zero turns into 0 for a subnormal offset.
  const double frac =
      whole == 0 ? fp::from_bits<double>(fp::bits_of(offset)) : offset - static_cast<double>(whole);
  std::int64_t delta = 0;
  std::int64_t w = 0;
  if (__builtin_sub_overflow(cell, origin, &delta) || __builtin_mul_overflow(delta, size, &w) ||
      __builtin_add_overflow(w, whole, &w)) {
    return false;
  }
  // frac >= +0.0; tested on the bits, as denormals-are-zero reads a subnormal frac as 0.
  if (w > bubble || (w == bubble && !fp::is_zero(frac)) || w < -bubble) return false;
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

}  // namespace lwc::internal

LWC_EXPORT namespace lwc {

// WorldGrid
//
// The world's cell size: an integer number of world units, 1 <= size <= 2^53 (so that every offset
// below it, and the size itself, are exact doubles). Choose the world unit so the cell is an integer
// (centimetres for a 10.24 m cell). One grid is shared by every view of a world.
class WorldGrid {
 public:
  static constexpr std::int64_t kMaxCellSize = std::int64_t{1} << 53;

  // create()
  //
  // InvalidArgument unless cell_size <= 2^53 (a ChunkSize is already >= 1).
  //
  // Example:
  //   absl::StatusOr<lwc::WorldGrid> grid = lwc::WorldGrid::create(lwc::ChunkSize::of<1024>());
  [[nodiscard]] static absl::StatusOr<WorldGrid> create(ChunkSize cell_size) {
    if (cell_size.value() > kMaxCellSize) {
      return absl::InvalidArgumentError(
          absl::StrCat("cell size ", cell_size.value(), " is outside [1, 2^53] (R1)"));
    }
    absl::StatusOr<CellSize> real = CellSize::create(static_cast<double>(cell_size.value()));
    if (!real.ok()) return real.status();
    return WorldGrid(cell_size, *real);
  }

  [[nodiscard]] constexpr ChunkSize cell_size() const noexcept { return chunk_; }

  friend constexpr bool operator==(const WorldGrid& a, const WorldGrid& b) noexcept {
    return a.chunk_ == b.chunk_;
  }

  // normalize()
  //
  // The position nearest to cell * size + offset (per axis, exact real arithmetic) whose offsets lie in
  // [0, size): exact whenever that offset is a double, otherwise rounded once, carrying into the next
  // cell when the nearest double is the size itself (R1). Errors: InvalidArgument for a NaN or infinite
  // offset; OutOfRange when the resulting cell is outside int64 (never a wrap).
  //
  // Example: normalize({0}, {-1e-17}) at size 16 is {cell 0, offset 0}: the exact offset 16 - 1e-17 in
  // cell -1 is nearest to 16.0, which is cell 0's origin.
  template <std::size_t D>
  [[nodiscard]] absl::StatusOr<WorldPosition<D>> normalize(const CellIndex<D>& cell,
                                                           const std::array<double, D>& offset) const {
    WorldPosition<D> p;
    for (std::size_t a = 0; a < D; ++a) {
      absl::Status s = internal::normalize_axis(cell[a], offset[a], chunk_.value(), real_, p.cell[a], p.offset[a]);
      if (!s.ok()) return s;
    }
    return p;
  }

  // validate()
  //
  // OK iff every offset of `p` is finite and in [0, size) (R1); InvalidArgument otherwise.
  template <std::size_t D>
  [[nodiscard]] absl::Status validate(const WorldPosition<D>& p) const {
    for (std::size_t a = 0; a < D; ++a) {
      if (!(p.offset[a] >= 0 && p.offset[a] < real_.value())) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "position offset %a on axis %d is not in [0, %d): not normalised (R1)", p.offset[a], a, chunk_.value()));
      }
    }
    return absl::OkStatus();
  }

  // from_fixed()
  //
  // The position of an integer world point: per axis split(units, size) (lwc.decompose), the local part
  // as the offset. Total and exact (R1).
  template <std::size_t D>
  [[nodiscard]] WorldPosition<D> from_fixed(const FixedPoint<D>& point) const {
    WorldPosition<D> p;
    for (std::size_t a = 0; a < D; ++a) {
      const ChunkPoint cp = split(point.units[a], chunk_);
      p.cell[a] = cp.chunk;
      p.offset[a] = static_cast<double>(cp.local);  // local < size <= 2^53: exact
    }
    return p;
  }

  // to_fixed()
  //
  // The integer world point of `p`, exactly (R1). InvalidArgument when `p` is not normalised or an offset
  // is not a whole number of world units (no rounding is done); OutOfRange when a coordinate is outside
  // int64.
  template <std::size_t D>
  [[nodiscard]] absl::StatusOr<FixedPoint<D>> to_fixed(const WorldPosition<D>& p) const {
    if (absl::Status s = validate(p); !s.ok()) return s;
    FixedPoint<D> out;
    for (std::size_t a = 0; a < D; ++a) {
      if (std::floor(p.offset[a]) != p.offset[a]) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "to_fixed: offset %a on axis %d is not a whole number of world units (R1)", p.offset[a], a));
      }
      const absl::int128 v = absl::int128(p.cell[a]) * chunk_.value() + static_cast<std::int64_t>(p.offset[a]);
      if (v < internal::kMinCell || v > internal::kMaxCell) {
        return absl::OutOfRangeError(
            absl::StrCat("to_fixed: axis ", a, " of cell ", internal::describe_cell(p.cell), " is outside int64 units"));
      }
      out.units[a] = static_cast<std::int64_t>(v);
    }
    return out;
  }

 private:
  WorldGrid(ChunkSize chunk, CellSize real) : chunk_(chunk), real_(real) {}

  // Invariant: chunk_.value() == real_.value(), in [1, 2^53].
  ChunkSize chunk_;
  CellSize real_;
};

// ViewConfig
//
// How one view (camera) rebases. Defaults: a threshold of 2 cells (the plan/commit floating-origin
// example's), a 3x3 (3x3x3) barrier.
struct ViewConfig {
  // Rebase when the observer's cell is at least this many cells from the origin on some axis. >= 1.
  std::int64_t threshold_cells = 2;
  // Every cell within this Chebyshev distance of the new origin must be loaded. In [0, 16].
  std::int64_t barrier_radius = 1;
  // World units per render unit (100 for centimetres rendered in metres). In [1, 2^20].
  std::int64_t units_per_render_unit = 1;
  // The render bubble: to_render is OutOfRange when |position - origin| exceeds this many world units
  // on some axis. In [1, 2^44].
  std::int64_t bubble_units = std::int64_t{1} << 24;
};

// RenderPoint
//
// Render coordinates (render units, relative to the view's origin) and the origin version they were
// computed under. Never mix points of different versions (R3).
template <std::size_t D>
  requires(D == 2 || D == 3)
struct RenderPoint {
  std::array<float, D> at{};
  std::uint64_t version = 0;

  friend constexpr bool operator==(const RenderPoint&, const RenderPoint&) noexcept = default;
};

// RebasePlan
//
// A rebase decided by OriginCoordinator::plan: move the origin from `from` to `target`, valid only while
// the view is still at `expected_version` (R8).
template <std::size_t D>
  requires(D == 2 || D == 3)
struct RebasePlan {
  CellIndex<D> from{};
  CellIndex<D> target{};
  std::uint64_t expected_version = 0;

  friend constexpr bool operator==(const RebasePlan&, const RebasePlan&) noexcept = default;
};

// Rebased
//
// The outcome of a successful commit: the new origin and its version.
template <std::size_t D>
  requires(D == 2 || D == 3)
struct Rebased {
  CellIndex<D> origin{};
  std::uint64_t version = 0;

  friend constexpr bool operator==(const Rebased&, const Rebased&) noexcept = default;
};

// LatePlacement
//
// What a late asynchronous result holds (the late-chunk floating-origin example): kRelocatable data is placed
// only through its world anchor and may be committed under any later origin; kBakedLocal data has coordinates
// baked into the render frame of the version it started under, and is stale after any rebase.
enum class LatePlacement { kRelocatable, kBakedLocal };

// LateResult
//
// The ticket of an asynchronous build: its world anchor, the origin version it started under, and its
// placement kind. Made by OriginCoordinator::start_late, committed by place_late.
template <std::size_t D>
  requires(D == 2 || D == 3)
struct LateResult {
  WorldPosition<D> anchor;
  std::uint64_t started_version = 0;
  LatePlacement placement = LatePlacement::kRelocatable;
};

// OriginCoordinator
//
// The floating origin of one view. It owns the origin cell, its version and the set of loaded cells; it
// never owns or writes an authoritative position (R2), so any number of coordinators (split screen,
// several cameras) share one world.
//
// Example:
//   absl::StatusOr<std::optional<lwc::RebasePlan<2>>> plan = view.plan(observer);
//   if (!plan.ok()) return plan.status();          // FailedPrecondition: cells missing; try next frame
//   if (*plan) {
//     absl::StatusOr<lwc::Rebased<2>> done = view.commit(**plan);   // at the frame boundary
//     if (done.ok()) (void)view.to_render_all(anchors, locals);     // re-derive, never `-= shift`
//   }
template <std::size_t D>
  requires(D == 2 || D == 3)
class OriginCoordinator {
 public:
  static constexpr std::int64_t kMaxBarrierRadius = 16;
  static constexpr std::int64_t kMaxUnitsPerRenderUnit = std::int64_t{1} << 20;
  static constexpr std::int64_t kMaxBubbleUnits = std::int64_t{1} << 44;

  // create()
  //
  // A view of `grid` with origin `origin` at version `version` (restoring a saved view; a new one starts
  // at the zero cell and version 0), and no cell loaded. InvalidArgument when a ViewConfig field is
  // outside its documented range.
  [[nodiscard]] static absl::StatusOr<OriginCoordinator> create(WorldGrid grid, ViewConfig config,
                                                                CellIndex<D> origin = {},
                                                                std::uint64_t version = 0) {
    const auto bad = [](absl::string_view what, std::int64_t v, absl::string_view range) {
      return absl::InvalidArgumentError(absl::StrCat("view config: ", what, " ", v, " is outside ", range));
    };
    if (config.threshold_cells < 1) return bad("threshold_cells", config.threshold_cells, "[1, inf)");
    if (config.barrier_radius < 0 || config.barrier_radius > kMaxBarrierRadius) {
      return bad("barrier_radius", config.barrier_radius, "[0, 16]");
    }
    if (config.units_per_render_unit < 1 || config.units_per_render_unit > kMaxUnitsPerRenderUnit) {
      return bad("units_per_render_unit", config.units_per_render_unit, "[1, 2^20]");
    }
    if (config.bubble_units < 1 || config.bubble_units > kMaxBubbleUnits) {
      return bad("bubble_units", config.bubble_units, "[1, 2^44]");
    }
    return OriginCoordinator(grid, config, origin, version);
  }

  [[nodiscard]] const WorldGrid& grid() const noexcept { return grid_; }
  [[nodiscard]] const ViewConfig& config() const noexcept { return config_; }
  [[nodiscard]] const CellIndex<D>& origin() const noexcept { return origin_; }
  [[nodiscard]] std::uint64_t version() const noexcept { return version_; }

  // render_error_bound()
  //
  // The largest |to_render(p) - exact| over every p inside the bubble, in render units (R5): half a
  // float ulp at the bubble's edge, 2^(floor(log2(bubble / d)) - 24) for d = units_per_render_unit.
  [[nodiscard]] double render_error_bound() const {
    // k = floor(log2(bubble / d)), from the integers: the largest k with 2^k * d <= bubble. The quotient
    // is in [2^-20, 2^44], so k is in [-20, 44].
    const auto d = absl::uint128(static_cast<std::uint64_t>(config_.units_per_render_unit));
    const auto b = absl::uint128(static_cast<std::uint64_t>(config_.bubble_units));
    int k = 44;
    while (k >= 0 ? (d << k) > b : d > (b << -k)) --k;
    return std::ldexp(1.0, k - std::numeric_limits<float>::digits);
  }

  // Loaded cells --------------------------------------------------------------------------------------

  // load(), unload(), is_loaded(), loaded_count()
  //
  // The streaming system reports cells here. Loading a loaded cell or unloading an absent one is a no-op.
  void load(const CellIndex<D>& cell) { loaded_.insert(cell); }
  void unload(const CellIndex<D>& cell) { loaded_.erase(cell); }
  [[nodiscard]] bool is_loaded(const CellIndex<D>& cell) const { return loaded_.contains(cell); }
  [[nodiscard]] std::size_t loaded_count() const noexcept { return loaded_.size(); }

  // loaded_cells()
  //
  // Every loaded cell, in lexicographic order (for snapshots and audits).
  [[nodiscard]] std::vector<CellIndex<D>> loaded_cells() const {
    std::vector<CellIndex<D>> cells(loaded_.begin(), loaded_.end());
    std::sort(cells.begin(), cells.end());
    return cells;
  }

  // missing_cells()
  //
  // The cells of the barrier around `target` (every cell within barrier_radius, per axis, clipped to
  // int64: cells beyond the world's edge do not exist) that are not loaded, in lexicographic order.
  [[nodiscard]] std::vector<CellIndex<D>> missing_cells(const CellIndex<D>& target) const {
    std::vector<CellIndex<D>> missing;
    for_each_barrier_cell(target, [&](const CellIndex<D>& c) {
      if (!loaded_.contains(c)) missing.push_back(c);
    });
    return missing;
  }

  // Plan and commit -----------------------------------------------------------------------------------

  // plan()
  //
  // Decides whether the view should rebase onto the observer's cell. Returns nullopt when the observer
  // is within threshold_cells of the origin on every axis, else a plan to the observer's cell at the
  // current version. Errors: InvalidArgument when `observer` is not normalised; FailedPrecondition, the
  // message listing the missing cells, when the barrier around the target is not fully loaded (R6).
  // Never changes the view (R7).
  [[nodiscard]] absl::StatusOr<std::optional<RebasePlan<D>>> plan(const WorldPosition<D>& observer) const {
    if (absl::Status s = grid_.validate(observer); !s.ok()) return s;
    bool far = false;
    for (std::size_t a = 0; a < D; ++a) {
      const absl::int128 d = absl::int128(observer.cell[a]) - origin_[a];
      far |= d >= config_.threshold_cells || d <= -config_.threshold_cells;
    }
    if (!far) return std::optional<RebasePlan<D>>();
    if (absl::Status s = barrier_status(observer.cell, "plan"); !s.ok()) return s;
    return std::optional<RebasePlan<D>>(RebasePlan<D>{origin_, observer.cell, version_});
  }

  // commit()
  //
  // Moves the origin to plan.target and increments the version, atomically. Errors, each leaving the
  // origin and version exactly as they were (R7): Aborted when the plan is stale, i.e. the view's version
  // is no longer plan.expected_version (a replayed plan, or one overtaken by another commit) (R8);
  // InvalidArgument when the plan's `from` is not this view's origin (a plan made by another view);
  // FailedPrecondition when the barrier around the target no longer holds: a cell unloaded between plan
  // and commit is caught here (R6); OutOfRange when the version counter is exhausted.
  [[nodiscard]] absl::StatusOr<Rebased<D>> commit(const RebasePlan<D>& plan) {
    if (plan.expected_version != version_) {
      return absl::AbortedError(absl::StrCat("rebase blocked: stale plan for version ", plan.expected_version,
                                             ", the view is at version ", version_, " (R8)"));
    }
    if (plan.from != origin_) {
      return absl::InvalidArgumentError(absl::StrCat("rebase blocked: plan from origin ",
                                                     internal::describe_cell(plan.from), " but the origin is ",
                                                     internal::describe_cell(origin_)));
    }
    if (absl::Status s = barrier_status(plan.target, "commit"); !s.ok()) return s;
    if (version_ == std::numeric_limits<std::uint64_t>::max()) {
      return absl::OutOfRangeError("rebase blocked: the origin version counter is exhausted");
    }
    origin_ = plan.target;
    version_ += 1;
    return Rebased<D>{origin_, version_};
  }

  // Render conversion ---------------------------------------------------------------------------------

  // to_render()
  //
  // The render coordinates of `p` at the current version: on each axis the float nearest (ties to even)
  // to the exact ((cell - origin) * size + offset) / units_per_render_unit (R4), whose error is at most
  // render_error_bound() (R5). Errors: InvalidArgument when `p` is not normalised; OutOfRange when
  // |(cell - origin) * size + offset| > bubble_units on some axis, instead of a silently imprecise value.
  [[nodiscard]] absl::StatusOr<RenderPoint<D>> to_render(const WorldPosition<D>& p) const {
    if (absl::Status s = grid_.validate(p); !s.ok()) return s;
    RenderPoint<D> out;
    out.version = version_;
    for (std::size_t a = 0; a < D; ++a) {
      if (!render_one(p, a, out.at[a])) {
        return absl::OutOfRangeError(absl::StrCat("to_render: position in cell ", internal::describe_cell(p.cell),
                                                  " is outside the render bubble of ", config_.bubble_units,
                                                  " units around origin ", internal::describe_cell(origin_),
                                                  " (R5)"));
      }
    }
    return out;
  }

  // to_render_all()
  //
  // Batch to_render for the active objects of a rebase: locals[i] = to_render(anchors[i]).at, re-derived
  // from the anchors at every call, so no error accumulates over any number of rebases (R10). An object
  // outside the bubble gets NaN coordinates. Returns how many are outside. InvalidArgument when the spans
  // differ in size (nothing written) or an anchor is not normalised (message names its index; `locals`
  // is then unspecified). The version of the results is version().
  [[nodiscard]] absl::StatusOr<std::size_t> to_render_all(std::span<const WorldPosition<D>> anchors,
                                                          std::span<std::array<float, D>> locals) const {
    if (anchors.size() != locals.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("to_render_all: ", anchors.size(), " anchors but ", locals.size(), " outputs"));
    }
    std::size_t outside = 0;
    for (std::size_t i = 0; i < anchors.size(); ++i) {
      const WorldPosition<D>& p = anchors[i];
      if (absl::Status s = grid_.validate(p); !s.ok()) {
        return absl::InvalidArgumentError(absl::StrCat("to_render_all: anchor ", i, ": ", s.message()));
      }
      bool inside = true;
      for (std::size_t a = 0; a < D; ++a) inside &= render_one(p, a, locals[i][a]);
      if (!inside) {
        for (float& v : locals[i]) fp::set_quiet_nan(v);  // from bits: see lwc/exact_fp.h
        ++outside;
      }
    }
    return outside;
  }

  // from_render()
  //
  // The world position of render coordinates computed at this view's current version: per axis the
  // normalisation of origin cell + y * units_per_render_unit (y * d is exact for a float y and
  // d <= 2^20), so exact whenever that position is representable, and then
  // to_render(from_render(y)) == y for y inside the bubble (R11). Errors: FailedPrecondition when
  // y.version is not the current version (the origin it refers to is gone); InvalidArgument for a NaN or
  // infinite coordinate; OutOfRange when the cell is outside int64.
  [[nodiscard]] absl::StatusOr<WorldPosition<D>> from_render(const RenderPoint<D>& y) const {
    if (y.version != version_) {
      return absl::FailedPreconditionError(absl::StrCat("from_render: render point of version ", y.version,
                                                        ", the view is at version ", version_, " (R11)"));
    }
    std::array<double, D> offset;
    for (std::size_t a = 0; a < D; ++a) {
      offset[a] = static_cast<double>(y.at[a]) * static_cast<double>(config_.units_per_render_unit);
    }
    return grid_.normalize(origin_, offset);
  }

  // Late results --------------------------------------------------------------------------------------

  // start_late()
  //
  // The ticket for an asynchronous build anchored at `anchor`, started now (under the current version).
  [[nodiscard]] LateResult<D> start_late(const WorldPosition<D>& anchor, LatePlacement placement) const {
    return LateResult<D>{anchor, version_, placement};
  }

  // place_late()
  //
  // Where a finished build goes now. A relocatable result is converted from its anchor at the current
  // origin: after any number of rebases, exactly to_render(anchor) (R9). A baked result is accepted only
  // under the version it started in. Errors: Aborted for a baked result whose version is stale (rebuild
  // it); InvalidArgument for a ticket from a version this view has not reached, or an anchor not
  // normalised; OutOfRange when the anchor is outside the bubble.
  [[nodiscard]] absl::StatusOr<RenderPoint<D>> place_late(const LateResult<D>& result) const {
    if (result.started_version > version_) {
      return absl::InvalidArgumentError(absl::StrCat("place_late: result started at version ", result.started_version,
                                                     ", after this view's version ", version_));
    }
    if (result.placement == LatePlacement::kBakedLocal && result.started_version != version_) {
      return absl::AbortedError(absl::StrCat("place_late: result baked in the frame of version ",
                                             result.started_version, " is stale at version ", version_, " (R9)"));
    }
    return to_render(result.anchor);
  }

 private:
  OriginCoordinator(WorldGrid grid, ViewConfig config, CellIndex<D> origin, std::uint64_t version)
      : grid_(grid), config_(config), origin_(origin), version_(version) {}

  [[nodiscard]] bool render_one(const WorldPosition<D>& p, std::size_t a, float& out) const {
    return internal::render_axis(p.cell[a], p.offset[a], origin_[a], grid_.cell_size().value(),
                                 config_.units_per_render_unit, config_.bubble_units, out);
  }

  // Calls fn for every cell within barrier_radius of `target` on each axis, clipped to int64, in
  // lexicographic order. The counters never step past their bound, so nothing overflows at the edges.
  template <typename Fn>
  void for_each_barrier_cell(const CellIndex<D>& target, Fn&& fn) const {
    CellIndex<D> lo;
    CellIndex<D> hi;
    for (std::size_t a = 0; a < D; ++a) {
      lo[a] = static_cast<std::int64_t>(std::max<absl::int128>(absl::int128(target[a]) - config_.barrier_radius,
                                                               internal::kMinCell));
      hi[a] = static_cast<std::int64_t>(std::min<absl::int128>(absl::int128(target[a]) + config_.barrier_radius,
                                                               internal::kMaxCell));
    }
    CellIndex<D> c = lo;
    while (true) {
      fn(c);
      std::size_t a = D;
      while (a > 0 && c[a - 1] == hi[a - 1]) {
        c[a - 1] = lo[a - 1];
        --a;
      }
      if (a == 0) return;
      ++c[a - 1];
    }
  }

  [[nodiscard]] absl::Status barrier_status(const CellIndex<D>& target, absl::string_view stage) const {
    std::size_t count = 0;
    std::string listed;
    for_each_barrier_cell(target, [&](const CellIndex<D>& c) {
      if (loaded_.contains(c)) return;
      if (count < 9) absl::StrAppend(&listed, count ? ", " : "", internal::describe_cell(c));
      ++count;
    });
    if (count == 0) return absl::OkStatus();
    if (count > 9) absl::StrAppend(&listed, " and ", count - 9, " more");
    return absl::FailedPreconditionError(absl::StrCat("rebase blocked at ", stage, ": ", count,
                                                      " cells missing around ", internal::describe_cell(target),
                                                      ": ", listed, " (R6)"));
  }

  // Invariant: config_ is within the ranges create() checks.
  WorldGrid grid_;
  ViewConfig config_;
  CellIndex<D> origin_;
  std::uint64_t version_;
  absl::flat_hash_set<CellIndex<D>> loaded_;
};

}  // namespace lwc

LWC_EXACT_FP_END
