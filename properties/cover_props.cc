// SPDX-License-Identifier: MIT
// File: properties/cover_props.cc
//
// One RapidCheck property per C-clause of docs/cover.md, named by clause id, over the extreme-biased
// generators of support/arbitrary_cover.h, judged by lwc.contracts.cover (and, for the chunk of a single
// point, by lwc.contracts.decompose's int128 oracle, never by lwc::split itself).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "support/arbitrary_cover.h"
#include "support/arbitrary_decompose.h"
#include "support/property.h"

import lwc.cover;
import lwc.contracts.cover;
import lwc.contracts.decompose;

namespace {

using lwc::ChunkSpan;
using lwc::contracts::CoverAnswer;
using lwc::testing::kInt64Max;
using lwc::testing::kInt64Min;
using lwc::testing::RangeCase;
using lwc::testing::SpanCase;

lwc::ChunkSize size_of(std::int64_t s) { return *lwc::ChunkSize::create(s); }

// Fails the property with the checker's message (which names the clause).
void assert_ok(const absl::Status& status) {
  if (!status.ok()) RC_FAIL(std::string(status.message()));
}

std::int64_t chunk_of(absl::int128 x, std::int64_t size) {
  return lwc::contracts::oracle_split(static_cast<std::int64_t>(x), size).chunk;
}

// The span of a cover that must have chunks.
ChunkSpan chunks_of(const absl::StatusOr<std::optional<ChunkSpan>>& r) {
  RC_ASSERT(r.ok());
  RC_ASSERT(r->has_value());
  return **r;
}

// Half-open [min, max) or closed [min, max], as a point range [a, b) in int128, with lwc's answer.
struct Covered {
  absl::int128 a;
  absl::int128 b;
  ChunkSpan span;
};

Covered cover_either(const RangeCase& c) {
  const bool closed = *rc::gen::arbitrary<bool>();
  RC_CLASSIFY(closed, "closed");
  if (closed) {
    return {c.min, absl::int128(c.max) + 1, chunks_of(lwc::cover_closed(c.min, c.max, size_of(c.size)))};
  }
  return {c.min, c.max, chunks_of(lwc::cover(c.min, c.max, size_of(c.size)))};
}

// A point of [a, b): the ends, either side of a chunk boundary inside, or anywhere.
absl::int128 point_in(absl::int128 a, absl::int128 b, std::int64_t size) {
  const absl::int128 length = b - a;
  const auto offset = static_cast<absl::int128>(*lwc::testing::raw_bits()) % length;
  const absl::int128 boundary =
      (absl::int128(chunk_of(a, size)) + 1) * size;  // first point of the next chunk
  const absl::int128 near = boundary + *rc::gen::inRange<std::int64_t>(-1, 1);
  return *rc::gen::element(a, b - 1, a + offset, near >= a && near < b ? near : a);
}

LWC_PROP(Cover, C1_EveryPointLiesInTheSpan, ()) {
  const RangeCase c = *lwc::testing::ordered_range_case();
  const Covered got = cover_either(c);
  for (int i = 0; i < 4; ++i) {
    const absl::int128 x = point_in(got.a, got.b, c.size);
    const std::int64_t chunk = chunk_of(x, c.size);
    RC_ASSERT(got.span.contains(chunk));
  }
  assert_ok(lwc::contracts::check_cover_closed(c.min, static_cast<std::int64_t>(got.b - 1), c.size,
                                               CoverAnswer::chunks(got.span.first(), got.span.last())));
}

LWC_PROP(Cover, C2_EndChunksHoldPointsOfTheRange, ()) {
  const RangeCase c = *lwc::testing::ordered_range_case();
  const Covered got = cover_either(c);
  // The point of each end chunk nearest the range lies in the range and in that chunk.
  const absl::int128 in_first = std::max(got.a, absl::int128(got.span.first()) * c.size);
  const absl::int128 in_last = std::min(got.b - 1, (absl::int128(got.span.last()) + 1) * c.size - 1);
  RC_ASSERT(in_first < got.b);
  RC_ASSERT(chunk_of(in_first, c.size) == got.span.first());
  RC_ASSERT(in_last >= got.a);
  RC_ASSERT(chunk_of(in_last, c.size) == got.span.last());
  RC_CLASSIFY(got.span.first() == got.span.last(), "one chunk");
}

LWC_PROP(Cover, C3_EveryChunkBetweenHoldsAPoint, ()) {
  // Any range, probed at chunks between the ends; and short ranges anywhere, compared point by point:
  // the chunks of the points are exactly first, first + 1, ..., last.
  const RangeCase c = *lwc::testing::ordered_range_case();
  const absl::StatusOr<std::optional<ChunkSpan>> r = lwc::cover(c.min, c.max, size_of(c.size));
  const ChunkSpan s = chunks_of(r);
  const absl::uint128 n = lwc::contracts::oracle_count(s.first(), s.last());
  const auto offset = static_cast<absl::int128>(static_cast<absl::uint128>(*lwc::testing::raw_bits()) % n);
  for (const absl::int128 probe :
       {absl::int128(s.first()) + offset, absl::int128(s.first()) + 1, absl::int128(s.last()) - 1}) {
    if (probe < s.first() || probe > s.last()) continue;
    assert_ok(lwc::contracts::check_contiguity(c.min, c.max, c.size, s.first(), s.last(),
                                               static_cast<std::int64_t>(probe)));
  }

  const RangeCase small = *lwc::testing::short_range_case();
  const absl::StatusOr<std::vector<std::int64_t>> want =
      lwc::contracts::oracle_chunks_point_by_point(small.min, small.max, small.size);
  RC_ASSERT(want.ok());
  const absl::StatusOr<std::optional<ChunkSpan>> got = lwc::cover(small.min, small.max, size_of(small.size));
  RC_ASSERT(got.ok());
  RC_ASSERT(got->has_value() == !want->empty());
  if (want->empty()) return;
  std::vector<std::int64_t> span_chunks;
  for (absl::int128 k = (*got)->first(); k <= (*got)->last(); ++k)
    span_chunks.push_back(static_cast<std::int64_t>(k));
  RC_ASSERT(span_chunks == *want);
}

LWC_PROP(Cover, C4_EmptyIsNoneReversedIsInvalid, ()) {
  const RangeCase c = *lwc::testing::any_range_case();
  const lwc::ChunkSize size = size_of(c.size);
  // Empty, at every min including INT64_MIN: no chunks, and no arithmetic (the sanitizers watch).
  const absl::StatusOr<std::optional<ChunkSpan>> empty = lwc::cover(c.min, c.min, size);
  RC_ASSERT(empty.ok());
  RC_ASSERT(!empty->has_value());
  assert_ok(lwc::contracts::check_cover(c.min, c.min, c.size, lwc::contracts::answer_of(empty)));
  const auto [lo, hi] = std::minmax(c.min, c.max);
  if (lo != hi) {
    const absl::StatusOr<std::optional<ChunkSpan>> reversed = lwc::cover(hi, lo, size);
    RC_ASSERT(reversed.status().code() == absl::StatusCode::kInvalidArgument);
    assert_ok(lwc::contracts::check_cover(hi, lo, c.size, lwc::contracts::answer_of(reversed)));
  }
  // Closed: [min, min - 1] holds zero points; anything further below is reversed.
  if (c.min != kInt64Min) {
    const absl::StatusOr<std::optional<ChunkSpan>> zero = lwc::cover_closed(c.min, c.min - 1, size);
    RC_ASSERT(zero.ok());
    RC_ASSERT(!zero->has_value());
    assert_ok(lwc::contracts::check_cover_closed(c.min, c.min - 1, c.size, lwc::contracts::answer_of(zero)));
  }
  if (absl::int128(lo) < absl::int128(hi) - 1) {
    const absl::StatusOr<std::optional<ChunkSpan>> reversed = lwc::cover_closed(hi, lo, size);
    RC_ASSERT(reversed.status().code() == absl::StatusCode::kInvalidArgument);
  }
  // Whatever the relation of min and max, lwc's answer passes the checker.
  assert_ok(lwc::contracts::check_cover(c.min, c.max, c.size,
                                        lwc::contracts::answer_of(lwc::cover(c.min, c.max, size))));
}

LWC_PROP(Cover, C5_ClosedIsHalfOpenPlusOne, ()) {
  const RangeCase c = *lwc::testing::any_range_case();
  const lwc::ChunkSize size = size_of(c.size);
  const CoverAnswer closed = lwc::contracts::answer_of(lwc::cover_closed(c.min, c.max, size));
  const CoverAnswer half_open = c.max == kInt64Max
                                    ? CoverAnswer::none()
                                    : lwc::contracts::answer_of(lwc::cover(c.min, c.max + 1, size));
  RC_CLASSIFY(c.max == kInt64Max, "reaches INT64_MAX");
  assert_ok(lwc::contracts::check_closed_form(c.min, c.max, c.size, closed, half_open));
}

LWC_PROP(Cover, C6_CountIsExact, ()) {
  // Spans of every width (up to the whole domain), and the spans of covers.
  const SpanCase sc = *lwc::testing::any_span_case();
  const ChunkSpan s = *ChunkSpan::create(sc.first, sc.last);
  assert_ok(lwc::contracts::check_count(sc.first, sc.last, lwc::count(s)));

  // The whole domain at size 1 (2^64 chunks closed, 2^64 - 1 half-open) is one case among 2^190: name it.
  const RangeCase c = *rc::gen::weightedOneOf<RangeCase>(
      {{9, lwc::testing::ordered_range_case()}, {1, rc::gen::just(RangeCase{kInt64Min, kInt64Max, 1})}});
  const ChunkSpan half_open = chunks_of(lwc::cover(c.min, c.max, size_of(c.size)));
  const absl::StatusOr<std::uint64_t> n = lwc::count(half_open);
  RC_ASSERT(n.ok());  // a half-open cover has at most 2^64 - 1 chunks
  assert_ok(lwc::contracts::check_count(half_open.first(), half_open.last(), n));
  const ChunkSpan closed = chunks_of(lwc::cover_closed(c.min, c.max, size_of(c.size)));
  assert_ok(lwc::contracts::check_count(closed.first(), closed.last(), lwc::count(closed)));
  RC_CLASSIFY(!lwc::count(closed).ok() || !lwc::count(s).ok(), "2^64 chunks");
}

// A box of 1 to 3 axes (unused axes are [0, 0]); mostly enumerable, sometimes not.
lwc::ChunkBox3 any_box(int axes) {
  const auto axis = [](bool used) {
    const SpanCase sc = used ? *rc::gen::weightedOneOf<SpanCase>(
                                   {{5, lwc::testing::small_span_case()}, {1, lwc::testing::any_span_case()}})
                             : SpanCase{0, 0};
    return *ChunkSpan::create(sc.first, sc.last);
  };
  return {axis(true), axis(axes >= 2), axis(axes >= 3)};
}

absl::uint128 box_count(const lwc::ChunkBox3& b) {
  return lwc::contracts::oracle_count(b.x.first(), b.x.last()) *
         lwc::contracts::oracle_count(b.y.first(), b.y.last()) *
         lwc::contracts::oracle_count(b.z.first(), b.z.last());
}

// Runs lwc's enumeration of a box with `axes` axes in its own chunk type, records the visits (a runaway
// enumeration is cut off, and then fails the checker) and judges it. stop_after > 0: the visitor asks to
// stop at that call, by returning false (bool) or an error (Status).
void enumerate_and_check(const lwc::ChunkBox3& box, int axes, std::uint64_t budget, std::uint64_t stop_after,
                         bool status_visitor) {
  constexpr std::size_t kRunaway = 4096;
  const absl::Status stop = status_visitor ? absl::AbortedError("visitor stop") : absl::OkStatus();
  std::vector<lwc::Point3> seen;
  const auto record = [&](lwc::Point3 c) -> absl::Status {
    seen.push_back(c);
    if (seen.size() > kRunaway) return absl::InternalError("runaway enumeration");
    if (stop_after != 0 && seen.size() == stop_after) return status_visitor ? stop : absl::CancelledError("");
    return absl::OkStatus();
  };
  absl::Status status;
  // Each dimension with each visitor kind: the Status visitor returns record's answer, the bool visitor
  // turns a stop request into false.
  const auto run = [&](auto&& to3, const auto& chunks) {
    if (status_visitor) {
      status = lwc::for_each_chunk(chunks, *lwc::ChunkBudget::create(budget), [&](auto c) { return record(to3(c)); });
    } else {
      status = lwc::for_each_chunk(chunks, *lwc::ChunkBudget::create(budget), [&](auto c) {
        const absl::Status s = record(to3(c));
        if (s.code() == absl::StatusCode::kInternal) return false;
        return s.ok();
      });
      if (seen.size() > kRunaway) status = absl::InternalError("runaway enumeration");
    }
  };
  if (axes == 1) {
    run([](std::int64_t x) { return lwc::Point3{x, 0, 0}; }, box.x);
  } else if (axes == 2) {
    run([](lwc::Point2 p) { return lwc::Point3{p.x, p.y, 0}; }, lwc::ChunkBox2{box.x, box.y});
  } else {
    run([](lwc::Point3 p) { return p; }, box);
  }
  assert_ok(
      lwc::contracts::check_enumeration(box.first(), box.last(), budget, status, seen, stop_after, stop));
}

LWC_PROP(Cover, C7_OverBudgetVisitsNothing, ()) {
  const int axes = *rc::gen::inRange(1, 4);
  const lwc::ChunkBox3 box = any_box(axes);
  const absl::uint128 n = box_count(box);
  const std::uint64_t budget = *lwc::testing::budget_for(n);
  RC_CLASSIFY(n > budget, "over budget");
  RC_CLASSIFY(n == budget, "exactly at budget");
  // Over budget, the result must come before any visit; within it, a huge box would run away, so only
  // enumerable ones are walked.
  RC_PRE(n > budget || n <= 4096);
  enumerate_and_check(box, axes, budget, 0, *rc::gen::arbitrary<bool>());
}

LWC_PROP(Cover, C8_EachChunkOnceInCanonicalOrder, ()) {
  const int axes = *rc::gen::inRange(1, 4);
  const auto small = [] {
    const SpanCase sc = *lwc::testing::small_span_case();
    return *ChunkSpan::create(sc.first, sc.last);
  };
  const lwc::ChunkBox3 box{small(), axes >= 2 ? small() : ChunkSpan::of<0, 0>(),
                           axes >= 3 ? small() : ChunkSpan::of<0, 0>()};
  const absl::uint128 n = box_count(box);
  const std::uint64_t budget =
      *rc::gen::element(static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(n) + 7,
                        std::numeric_limits<std::uint64_t>::max());
  const std::uint64_t stop_after = *rc::gen::weightedOneOf<std::uint64_t>(
      {{2, rc::gen::just(std::uint64_t{0})},
       {1, rc::gen::inRange<std::uint64_t>(1, static_cast<std::uint64_t>(n) + 2)}});
  RC_CLASSIFY(stop_after != 0, "visitor stops");
  enumerate_and_check(box, axes, budget, stop_after, *rc::gen::arbitrary<bool>());
}

LWC_PROP(Cover, C9_BoxIsProductOfAxes, ()) {
  // Each axis its own range: ordered, empty or reversed, at the extremes; the same size on every axis.
  const std::int64_t s = *lwc::testing::positive_size();
  const auto axis = [s] {
    const std::int64_t min = *lwc::testing::any_int64();
    const std::int64_t other = *lwc::testing::other_end(min, s);
    const auto [lo, hi] = std::minmax(min, other);
    // Mostly ordered, so that boxes with three axes are common; sometimes empty or reversed.
    const int kind =
        *rc::gen::weightedOneOf<int>({{8, rc::gen::just(0)}, {1, rc::gen::just(1)}, {1, rc::gen::just(2)}});
    if (kind == 1) return std::pair{lo, lo};
    if (kind == 2 && lo != hi) return std::pair{hi, lo};
    return std::pair{lo, hi};
  };
  const auto [x0, x1] = axis();
  const auto [y0, y1] = axis();
  const auto [z0, z1] = axis();
  const bool closed = *rc::gen::arbitrary<bool>();
  const lwc::ChunkSize size = size_of(s);
  const lwc::Point3 lo{x0, y0, z0};
  const lwc::Point3 hi{x1, y1, z1};
  const auto box3 = closed ? lwc::cover_closed(lo, hi, size) : lwc::cover(lo, hi, size);
  RC_TAG(box3.ok() ? (box3->has_value() ? "box" : "empty") : "reversed");
  assert_ok(lwc::contracts::check_cover_box(lo, hi, s, lwc::contracts::answer_of(box3), closed));
  if (box3.ok() && box3->has_value()) {
    assert_ok(lwc::contracts::check_box_count((*box3)->first(), (*box3)->last(), lwc::count(**box3)));
  }
  const auto box2 = closed ? lwc::cover_closed(lwc::Point2{x0, y0}, lwc::Point2{x1, y1}, size)
                           : lwc::cover(lwc::Point2{x0, y0}, lwc::Point2{x1, y1}, size);
  assert_ok(lwc::contracts::check_cover_box(lwc::Point2{x0, y0}, lwc::Point2{x1, y1}, s,
                                            lwc::contracts::answer_of(box2), closed));
  if (box2.ok() && box2->has_value()) {
    assert_ok(lwc::contracts::check_box_count((*box2)->first(), (*box2)->last(), lwc::count(**box2)));
  }
}

LWC_PROP(Cover, C10_TotalAtTheExtremes, ()) {
  // Run in the sanitizer presets (dev, audit, fuzz), where any overflowing intermediate aborts: every
  // entry point at the int64 landmarks, in every order, at landmark sizes.
  const auto landmark = rc::gen::elementOf(lwc::testing::int64_landmarks());
  const std::int64_t a = *landmark;
  const std::int64_t b = *landmark;
  const std::int64_t s = *rc::gen::weightedOneOf<std::int64_t>(
      {{1, rc::gen::map(landmark, [](std::int64_t v) { return v > 0 ? v : std::int64_t{1}; })},
       {1, lwc::testing::positive_size()}});
  const lwc::ChunkSize size = size_of(s);
  const auto half_open = lwc::cover(a, b, size);
  const auto closed = lwc::cover_closed(a, b, size);
  assert_ok(lwc::contracts::check_cover(a, b, s, lwc::contracts::answer_of(half_open)));
  assert_ok(lwc::contracts::check_cover_closed(a, b, s, lwc::contracts::answer_of(closed)));
  for (const auto* r : {&half_open, &closed}) {
    if (!r->ok() || !(*r)->has_value()) continue;
    const ChunkSpan span = ***r;
    assert_ok(lwc::contracts::check_count(span.first(), span.last(), lwc::count(span)));
    int calls = 0;
    const absl::Status status = lwc::for_each_chunk(span, lwc::ChunkBudget::of<2>(), [&](std::int64_t) { ++calls; });
    RC_ASSERT(status.ok() == (lwc::contracts::oracle_count(span.first(), span.last()) <= 2));
    RC_ASSERT(calls ==
              (status.ok() ? static_cast<int>(lwc::contracts::oracle_count(span.first(), span.last())) : 0));
  }
  const auto box = lwc::cover_closed(lwc::Point3{a, b, a}, lwc::Point3{b, a, b}, size);
  if (box.ok() && box->has_value()) {
    assert_ok(lwc::contracts::check_box_count((*box)->first(), (*box)->last(), lwc::count(**box)));
  }
}

}  // namespace
