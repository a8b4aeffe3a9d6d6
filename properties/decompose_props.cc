// SPDX-License-Identifier: MIT
// File: properties/decompose_props.cc
//
// One RapidCheck property per D-clause of docs/decompose.md, named by clause id, over the extreme-biased
// generators of support/arbitrary_decompose.h, judged by lwc.contracts.decompose.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "support/arbitrary_decompose.h"
#include "support/flush_modes.h"
#include "support/property.h"

import lwc.decompose;
import lwc.contracts.decompose;

namespace {

using lwc::testing::CellCase;
using lwc::testing::SplitCase;

lwc::ChunkSize size_of(std::int64_t s) { return *lwc::ChunkSize::create(s); }

// Fails the property with the checker's message (which names the clause).
void assert_ok(const absl::Status& status) {
  if (!status.ok()) RC_FAIL(std::string(status.message()));
}

LWC_PROP(Decompose, D1_ChunkTimesSizePlusLocalIsX, ()) {
  const SplitCase c = *lwc::testing::split_case();
  const lwc::ChunkPoint p = lwc::split(c.x, size_of(c.size));
  RC_ASSERT(absl::int128(p.chunk) * c.size + p.local == absl::int128(c.x));
}

LWC_PROP(Decompose, D2_LocalInZeroToSize, ()) {
  const SplitCase c = *lwc::testing::split_case();
  const lwc::ChunkPoint p = lwc::split(c.x, size_of(c.size));
  RC_ASSERT(p.local >= 0);
  RC_ASSERT(p.local < c.size);
}

LWC_PROP(Decompose, D3_OnlyPairSatisfyingD1D2, ()) {
  const SplitCase c = *lwc::testing::split_case();
  const lwc::ChunkPoint p = lwc::split(c.x, size_of(c.size));
  RC_ASSERT(p == lwc::contracts::oracle_split(c.x, c.size));
  // Any other chunk k != 0 away needs local - k * size, which leaves [0, size).
  const auto k = *rc::gen::nonZero<std::int8_t>();
  const absl::int128 other_local = absl::int128(p.local) - absl::int128(k) * c.size;
  RC_ASSERT(other_local < 0 || other_local >= c.size);
}

LWC_PROP(Decompose, D4_TotalAtTheExtremes, ()) {
  // Run in the sanitizer presets (dev, audit, fuzz), where any overflowing intermediate aborts.
  const std::int64_t x = *rc::gen::elementOf(lwc::testing::int64_landmarks());
  const std::int64_t s = *rc::gen::weightedOneOf<std::int64_t>(
      {{1, rc::gen::map(rc::gen::elementOf(lwc::testing::int64_landmarks()),
                        [](std::int64_t v) { return v > 0 ? v : std::int64_t{1}; })},
       {1, lwc::testing::positive_size()}});
  const lwc::ChunkPoint p = lwc::split(x, size_of(s));
  assert_ok(lwc::contracts::check_split(x, s, p.chunk, p.local));
  RC_ASSERT(lwc::floor_div(x, size_of(s)) == p.chunk);
  RC_ASSERT(lwc::floor_mod(x, size_of(s)) == p.local);
}

LWC_PROP(Decompose, D5_SizeAcceptedIffPositive, ()) {
  const std::int64_t s = *lwc::testing::any_size();
  const absl::StatusOr<lwc::ChunkSize> size = lwc::ChunkSize::create(s);
  assert_ok(lwc::contracts::check_size_validation(s, size.ok()));
  if (size.ok()) {
    RC_ASSERT(size->value() == s);
    RC_ASSERT(size->is_power_of_two() == ((s & (s - 1)) == 0));
  } else {
    RC_ASSERT(size.status().code() == absl::StatusCode::kInvalidArgument);
  }
}

LWC_PROP(Decompose, D6_FloorNotTruncation, ()) {
  const SplitCase c = *lwc::testing::split_case();
  const lwc::ChunkPoint p = lwc::split(c.x, size_of(c.size));
  const std::int64_t truncated = c.x / c.size;
  const bool negative_with_remainder = c.x < 0 && c.x % c.size != 0;
  RC_CLASSIFY(negative_with_remainder, "negative, not a multiple");
  RC_ASSERT(p.chunk == (negative_with_remainder ? truncated - 1 : truncated));
}

LWC_PROP(Decompose, D7_FastPathsAreTheDivisionPath, ()) {
  // Every power of two (shift path) and every other size (reciprocal path), at extremes and near multiples.
  const std::int64_t size = *rc::gen::weightedOneOf<std::int64_t>(
      {{1, rc::gen::map(rc::gen::inRange(0, 63), [](int k) { return std::int64_t{1} << k; })},
       {2, lwc::testing::positive_size()}});
  const std::int64_t x = *rc::gen::weightedOneOf<std::int64_t>(
      {{1, lwc::testing::any_int64()}, {1, lwc::testing::near_multiple_of(size)}});
  const lwc::ChunkSize s = size_of(size);
  RC_CLASSIFY(s.is_power_of_two(), "power of two");
  if (s.is_power_of_two()) RC_ASSERT((std::int64_t{1} << s.log2()) == size);
  assert_ok(lwc::contracts::check_fast_path(x, size, lwc::split(x, s), lwc::split_by_division(x, s)));
  if (!s.is_power_of_two()) {
    assert_ok(lwc::contracts::check_fast_path(x, size, lwc::split_by_reciprocal(x, s),
                                              lwc::split_by_division(x, s)));
  }
}

LWC_PROP(Decompose, D8_AxesSplitIndependently, ()) {
  const std::int64_t s = *lwc::testing::positive_size();
  const auto coordinate = rc::gen::weightedOneOf<std::int64_t>(
      {{1, lwc::testing::any_int64()}, {1, lwc::testing::near_multiple_of(s)}});
  const lwc::Point3 p{*coordinate, *coordinate, *coordinate};
  assert_ok(lwc::contracts::check_split_axes(p, s, lwc::split(p, size_of(s))));
  const lwc::Point2 q{p.x, p.y};
  assert_ok(lwc::contracts::check_split_axes(q, s, lwc::split(q, size_of(s))));
}

LWC_PROP(Decompose, D9_CellIsExactFloor, ()) {
  const CellCase c = *lwc::testing::cell_case();
  const absl::StatusOr<std::int64_t> cell = lwc::cell_of(c.v, c.h);
  RC_TAG(cell.ok() ? "cell" : absl::StatusCodeToString(cell.status().code()));
  assert_ok(lwc::contracts::check_cell_of(c.v, c.h, cell));
  if (const absl::StatusOr<lwc::CellSize> h = lwc::CellSize::create(c.h); h.ok()) {
    std::int64_t code_cell = 0;
    RC_ASSERT(lwc::cell_of_code<double>(c.v, *h, code_cell) == cell.status().code());
    if (cell.ok()) RC_ASSERT(code_cell == *cell);
  }
  if (c.v == 0 && std::isfinite(c.h) && c.h > 0) RC_ASSERT(cell.ok() && *cell == 0);  // -0.0 too
}

LWC_PROP(Decompose, D10_CellIsMonotone, ()) {
  const double h = *lwc::testing::positive_cell_size();
  const double a = *lwc::testing::any_double();
  // b: the next few doubles above a (where division rounds), or any double.
  const double b = *rc::gen::weightedOneOf<double>(
      {{2, rc::gen::map(rc::gen::inRange(0, 4),
                        [a](int n) {
                          double v = a;
                          for (int i = 0; i < n; ++i) v = std::nextafter(v, std::numeric_limits<double>::infinity());
                          return v;
                        })},
       {1, lwc::testing::any_double()}});
  const absl::StatusOr<std::int64_t> ca = lwc::cell_of(a, h);
  const absl::StatusOr<std::int64_t> cb = lwc::cell_of(b, h);
  RC_PRE(ca.ok() && cb.ok());
  assert_ok(lwc::contracts::check_cell_monotone(a, *ca, b, *cb));
  assert_ok(lwc::contracts::check_cell_monotone(b, *cb, a, *ca));
}

// cell_of_code for (v, h) with the CPU's flush-to-zero and denormals-are-zero modes on (the modes
// -ffast-math's startup code sets: tests/support/flush_modes.h), restored before it returns. `flushed`
// says whether the modes took (a subnormal read as zero).
template <class F>
absl::StatusCode cell_code_flushing_subnormals(F v, lwc::BasicCellSize<F> h, std::int64_t& cell,
                                                                 bool& flushed) {
  absl::StatusCode code = absl::StatusCode::kOk;
  flushed = false;
  const bool known = lwc::testing::with_subnormals_flushed([&] {
    volatile F tiny = std::numeric_limits<F>::denorm_min();
    flushed = tiny * F(1) == F(0);
    code = lwc::cell_of_code<F>(v, h, cell);
  });
  return known ? code : lwc::cell_of_code<F>(v, h, cell);
}

// A subnormal F from its significand bits: the smallest and largest subnormal, or random bits of a
// random length (so that sizes of a few ulps come up as often as sizes near the least normal).
template <class F>
using BitsOf = std::conditional_t<sizeof(F) == 8, std::uint64_t, std::uint32_t>;

template <class F>
rc::Gen<F> subnormal() {
  using Bits = BitsOf<F>;
  constexpr int kFraction = std::numeric_limits<F>::digits - 1;
  constexpr Bits kMax = (Bits{1} << kFraction) - 1;
  return rc::gen::weightedOneOf<F>({
      {1, rc::gen::element(std::bit_cast<F>(Bits{1}), std::bit_cast<F>(Bits{2}), std::bit_cast<F>(kMax))},
      {3, rc::gen::map(rc::gen::pair(rc::gen::arbitrary<Bits>(), rc::gen::inRange(0, kFraction)),
                       [](std::pair<Bits, int> p) {
                         const Bits b = (p.first & kMax) >> p.second;
                         return std::bit_cast<F>(b == 0 ? Bits{1} : b);
                       })},
  });
}

// D9 where the CPU flushes subnormals, at subnormal cell sizes. A subnormal h reads as zero there, so
// v / h is +-inf or NaN for every v and cell_of leaves the quotient for its integer path, which reads the
// bits: the answer is the exact floor still. This is also the one way lwc's own builds (IEEE arithmetic,
// LWC_DENORMALS_ARE_ZERO 0) reach that path's zero and below-one quotients: with IEEE division the
// floating-point path answers every quotient below 2^p itself. The generator makes those on purpose:
// v = +-0, subnormal v at most h (quotients in (2^-p, 1]), v a few ulps from k * h, and any double.
template <class F>
void check_cell_of_flushing_subnormals() {
  const F h = *subnormal<F>();
  const F v = *rc::gen::weightedOneOf<F>({
      {2, rc::gen::element(F(0), -F(0))},
      {3, rc::gen::map(rc::gen::pair(subnormal<F>(), rc::gen::arbitrary<bool>()),
                       [h](std::pair<F, bool> p) {
                         const F a = std::bit_cast<F>(
                             std::min(std::bit_cast<BitsOf<F>>(p.first), std::bit_cast<BitsOf<F>>(h)));
                         return p.second ? -a : a;
                       })},
      {2, rc::gen::map(rc::gen::pair(rc::gen::inRange(-1000, 1001), rc::gen::inRange(-3, 4)),
                       [h](std::pair<int, int> kd) {
                         F x = F(kd.first) * h;  // IEEE here: the modes are on only inside the call
                         for (int i = 0; i < std::abs(kd.second); ++i) {
                           x = std::nextafter(x, kd.second > 0 ? std::numeric_limits<F>::infinity()
                                                               : -std::numeric_limits<F>::infinity());
                         }
                         return x;
                       })},
      {2, rc::gen::map(lwc::testing::any_double(), [](double d) { return static_cast<F>(d); })},
  });
  const absl::StatusOr<lwc::BasicCellSize<F>> size = lwc::BasicCellSize<F>::create(h);
  RC_ASSERT(size.ok());
  std::int64_t cell = 0;
  bool flushed = false;
  const absl::StatusCode code = cell_code_flushing_subnormals<F>(v, *size, cell, flushed);
  if (!flushed) RC_DISCARD("the flush-to-zero and denormals-are-zero modes are not available here");
  RC_CLASSIFY(v == 0, "v = +-0");
  RC_CLASSIFY(v != 0 && std::fabs(v) <= h, "0 < |v| <= h");
  const absl::StatusOr<std::int64_t> got =
      code == absl::StatusCode::kOk ? absl::StatusOr<std::int64_t>(cell) : absl::Status(code, "cell_of_code");
  assert_ok(lwc::contracts::check_cell_of(static_cast<double>(v), static_cast<double>(h), got));
}

LWC_PROP(Decompose, D9_CellIsExactFloorWhenSubnormalsFlush, ()) { check_cell_of_flushing_subnormals<double>(); }

LWC_PROP(Decompose, D9_FloatCellIsExactFloorWhenSubnormalsFlush, ()) { check_cell_of_flushing_subnormals<float>(); }

LWC_PROP_SCALED(Decompose, D11_BatchIsElementwise, 5, ()) {
  const std::int64_t s = *lwc::testing::positive_size();
  const auto xs = *rc::gen::container<std::vector<std::int64_t>>(rc::gen::weightedOneOf<std::int64_t>(
      {{1, lwc::testing::any_int64()}, {1, lwc::testing::near_multiple_of(s)}}));
  std::vector<lwc::ChunkPoint> out(xs.size());
  assert_ok(lwc::split_all(xs, size_of(s), out));
  assert_ok(lwc::contracts::check_split_batch(xs, s, out));
  // A mismatched output span is refused, not overrun.
  std::vector<lwc::ChunkPoint> short_out(xs.size() / 2);
  RC_ASSERT(xs.empty() || !lwc::split_all(xs, size_of(s), short_out).ok());

  const double h = *lwc::testing::positive_cell_size();
  const auto vs = *rc::gen::container<std::vector<double>>(
      rc::gen::weightedOneOf<double>({{8, rc::gen::map(lwc::testing::cell_case(), [](CellCase c) { return c.v; })},
                                      {1, lwc::testing::any_double()}}));
  std::vector<std::int64_t> cells(vs.size());
  const absl::Status status = lwc::cell_of_all(vs, *lwc::CellSize::create(h), cells);
  assert_ok(lwc::contracts::check_cell_batch(vs, h, status, cells));
}

}  // namespace
