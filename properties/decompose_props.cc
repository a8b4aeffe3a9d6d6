// SPDX-License-Identifier: MIT
// File: properties/decompose_props.cc
//
// One RapidCheck property per D-clause of docs/decompose.md, named by clause id, over the extreme-biased
// generators of support/arbitrary_decompose.h, judged by lwc.contracts.decompose.
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "support/arbitrary_decompose.h"
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
  const lwc::Int3 p{*coordinate, *coordinate, *coordinate};
  assert_ok(lwc::contracts::check_split_axes(p, s, lwc::split(p, size_of(s))));
  const lwc::Int2 q{p.x, p.y};
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
  const absl::Status status = lwc::cells_of(vs, *lwc::CellSize::create(h), cells);
  assert_ok(lwc::contracts::check_cell_batch(vs, h, status, cells));
}

}  // namespace
