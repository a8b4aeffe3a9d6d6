// SPDX-License-Identifier: MIT
// File: tests/cover_test.cc
//
// Fixed examples and regressions for lwc.cover: every figure of the truncating-division example's Cover
// ([-1000, 0) -> -1..-1, [-1, 1) -> -1..0, the empty range, and its exhaustive check of all 1,225 half-open
// ranges with ends in -24..24 against the chunk set found point by point), exact answers at the int64
// extremes, the closed form over the whole domain, the one count that does not fit a uint64, budgets at and
// around the count, and the checkers' clause diagnoses. Spec: docs/cover.md.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"

#ifdef LWC_USE_HEADERS  // tests/header_build: the same test, lwc as headers
#include "lwc/cover.h"
#include "lwc/contracts/cover.h"
#else
import lwc.cover;
import lwc.contracts.cover;
#endif

namespace {

using lwc::ChunkSize;
using lwc::ChunkSpan;
using lwc::contracts::CoverAnswer;

constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::uint64_t kU64Max = std::numeric_limits<std::uint64_t>::max();
constexpr ChunkSize k1000 = ChunkSize::of<1000>();
constexpr ChunkSize kOne = ChunkSize::of<1>();
constexpr ChunkSize kMaxSize = ChunkSize::of<kMax>();

ChunkSpan span(std::int64_t first, std::int64_t last) { return *ChunkSpan::create(first, last); }

// The span of a cover that must have chunks; a failed expectation otherwise.
ChunkSpan chunks_of(const absl::StatusOr<std::optional<ChunkSpan>>& r) {
  EXPECT_TRUE(r.ok() && r->has_value()) << (r.ok() ? "no chunks" : r.status().ToString());
  return r.ok() && r->has_value() ? **r : span(0, 0);
}

bool is_empty(const absl::StatusOr<std::optional<ChunkSpan>>& r) { return r.ok() && !r->has_value(); }

TEST(Cover, SeedLeftChunkOnly) {
  // The truncating-division example: [-1000, 0) ends at -1, so only chunk -1; the chunk of 0 (the excluded
  // end) is not taken.
  EXPECT_EQ(chunks_of(lwc::cover(-1000, 0, k1000)), span(-1, -1));
}

TEST(Cover, SeedStraddlesTheOrigin) {
  // The truncating-division example: [-1, 1) holds -1 (chunk -1) and 0 (chunk 0).
  EXPECT_EQ(chunks_of(lwc::cover(-1, 1, k1000)), span(-1, 0));
}

TEST(Cover, SeedEmptyIsNone) {
  // The truncating-division example: "empty=null", including the empty range at the minimum integer, where
  // computing max_exclusive - 1 before noticing the range is empty would overflow.
  EXPECT_TRUE(is_empty(lwc::cover(0, 0, k1000)));
  EXPECT_TRUE(is_empty(lwc::cover(kMin, kMin, k1000)));
  EXPECT_TRUE(is_empty(lwc::cover(kMin, kMin, kOne)));
  EXPECT_TRUE(is_empty(lwc::cover(kMax, kMax, kMaxSize)));
}

TEST(Cover, SeedReversedIsInvalidArgument) {
  for (const auto& [a, b] : {std::pair<std::int64_t, std::int64_t>{1, 0}, {kMax, kMin}, {kMin + 1, kMin}}) {
    EXPECT_EQ(lwc::cover(a, b, k1000).status().code(), absl::StatusCode::kInvalidArgument) << a << " " << b;
  }
}

TEST(Cover, SeedZeroAndNegativeSizesCannotReachCover) {
  // The truncating-division example checks that Cover throws for sizes 0 and -1000. Here no such size exists
  // to pass: a ChunkSize is validated once (D5), and a checker judging an engine that took one names D5.
  for (const std::int64_t s : {std::int64_t{0}, std::int64_t{-1000}}) {
    EXPECT_EQ(ChunkSize::create(s).status().code(), absl::StatusCode::kInvalidArgument);
    const absl::Status accepted = lwc::contracts::check_cover(-1, 1, s, CoverAnswer::chunks(-1, 0));
    EXPECT_TRUE(absl::StartsWith(accepted.message(), "D5")) << accepted;
    const CoverAnswer refused = CoverAnswer::error(absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(lwc::contracts::check_cover(-1, 1, s, refused).ok());
  }
}

TEST(Cover, SeedExhaustiveRangesMatchPointByPoint) {
  // The truncating-division example: every half-open range with both ends in -24..24 (reversed ones excluded,
  // empty ones included), compared with the distinct chunks of its points, for several sizes.
  int ranges = 0;
  for (std::int64_t a = -24; a <= 24; ++a) {
    for (std::int64_t b = a; b <= 24; ++b) {
      ++ranges;
      for (const std::int64_t s : {1, 2, 3, 5, 7, 16, 24, 25, 1000}) {
        const absl::StatusOr<std::optional<ChunkSpan>> got = lwc::cover(a, b, *ChunkSize::create(s));
        const absl::StatusOr<std::vector<std::int64_t>> want =
            lwc::contracts::oracle_chunks_point_by_point(a, b, s);
        ASSERT_TRUE(want.ok());
        ASSERT_TRUE(got.ok()) << got.status();
        if (want->empty()) {
          EXPECT_FALSE(got->has_value()) << a << " " << b << " " << s;
          continue;
        }
        ASSERT_TRUE(got->has_value()) << a << " " << b << " " << s;
        // Same set: the point-by-point chunks are exactly first, first + 1, ..., last.
        const ChunkSpan c = **got;
        EXPECT_EQ(c.first(), want->front()) << a << " " << b << " " << s;
        EXPECT_EQ(c.last(), want->back()) << a << " " << b << " " << s;
        EXPECT_EQ(static_cast<std::int64_t>(want->size()), c.last() - c.first() + 1)
            << a << " " << b << " " << s;
        EXPECT_EQ(*lwc::count(c), want->size());
        EXPECT_TRUE(lwc::contracts::check_cover(a, b, s, lwc::contracts::answer_of(got)).ok());
      }
    }
  }
  EXPECT_EQ(ranges, 1225);
}

TEST(Cover, ExactAtTheInt64Ends) {
  // The truncating-division example's largest range stops at INT64_MAX - 1; the half-open form cannot include
  // INT64_MAX.
  EXPECT_EQ(chunks_of(lwc::cover(kMin, kMax, kOne)), span(kMin, kMax - 1));
  // floor(-2^63 / (2^63 - 1)) = -2 and floor((2^63 - 2) / (2^63 - 1)) = 0.
  EXPECT_EQ(chunks_of(lwc::cover(kMin, kMax, kMaxSize)), span(-2, 0));
  EXPECT_EQ(chunks_of(lwc::cover(kMin, kMin + 1, k1000)), span(-9223372036854776, -9223372036854776));
  EXPECT_EQ(chunks_of(lwc::cover(kMax - 1, kMax, kMaxSize)), span(0, 0));
  EXPECT_EQ(chunks_of(lwc::cover(kMin, kMin + 2, kMaxSize)), span(-2, -1));
}

TEST(CoverClosed, CoversTheWholeDomain) {
  EXPECT_EQ(chunks_of(lwc::cover_closed(kMin, kMax, kOne)), span(kMin, kMax));
  EXPECT_EQ(chunks_of(lwc::cover_closed(kMin, kMax, kMaxSize)), span(-2, 1));
  EXPECT_EQ(chunks_of(lwc::cover_closed(kMax, kMax, k1000)), span(9223372036854775, 9223372036854775));
  EXPECT_EQ(chunks_of(lwc::cover_closed(-1000, -1, k1000)), span(-1, -1));
}

TEST(CoverClosed, OneBelowMinIsEmptyFurtherIsReversed) {
  EXPECT_TRUE(is_empty(lwc::cover_closed(0, -1, k1000)));
  EXPECT_TRUE(is_empty(lwc::cover_closed(kMin + 1, kMin, k1000)));
  EXPECT_TRUE(is_empty(lwc::cover_closed(kMax, kMax - 1, k1000)));
  EXPECT_EQ(lwc::cover_closed(0, -2, k1000).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(lwc::cover_closed(kMax, kMin, k1000).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(CoverClosed, EqualsHalfOpenPlusOne) {
  for (const std::int64_t a :
       {kMin, kMin + 1, std::int64_t{-1001}, std::int64_t{-1}, std::int64_t{0}, kMax - 1}) {
    for (const std::int64_t b : {kMin, std::int64_t{-1002}, std::int64_t{-1}, std::int64_t{999}, kMax - 1}) {
      EXPECT_EQ(lwc::contracts::answer_of(lwc::cover_closed(a, b, k1000)),
                lwc::contracts::answer_of(lwc::cover(a, b + 1, k1000)))
          << a << " " << b;
    }
  }
}

TEST(Count, ExactIncludingTheLargestHalfOpenSpan) {
  EXPECT_EQ(*lwc::count(span(-1, 0)), 2u);
  EXPECT_EQ(*lwc::count(span(kMax, kMax)), 1u);
  EXPECT_EQ(*lwc::count(span(kMin, -1)), std::uint64_t{1} << 63);
  EXPECT_EQ(*lwc::count(span(kMin, 0)), (std::uint64_t{1} << 63) + 1);
  EXPECT_EQ(*lwc::count(span(-1, kMax)), (std::uint64_t{1} << 63) + 1);
  EXPECT_EQ(*lwc::count(span(kMin + 1, kMax)), kU64Max);
  // The half-open cover of the largest range: 2^64 - 1 chunks, exactly UINT64_MAX.
  EXPECT_EQ(*lwc::count(chunks_of(lwc::cover(kMin, kMax, kOne))), kU64Max);
}

TEST(Count, WholeDomainAtSizeOneIsOutOfRange) {
  // 2^64 chunks: the one span whose count no uint64 holds. Reported, never wrapped to 0.
  const absl::StatusOr<std::uint64_t> n = lwc::count(chunks_of(lwc::cover_closed(kMin, kMax, kOne)));
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_TRUE(lwc::contracts::check_count(kMin, kMax, n).ok());
}

TEST(Box, SeedFiguresPerAxis) {
  const auto box = lwc::cover(lwc::Point2{-1000, -1}, lwc::Point2{0, 1}, k1000);
  ASSERT_TRUE(box.ok() && box->has_value());
  EXPECT_EQ(**box, (lwc::ChunkBox2{span(-1, -1), span(-1, 0)}));
  EXPECT_EQ(*lwc::count(**box), 2u);
  const auto box3 = lwc::cover(lwc::Point3{-1, -1000, kMin}, lwc::Point3{1, 0, kMax}, kMaxSize);
  ASSERT_TRUE(box3.ok() && box3->has_value());
  EXPECT_EQ(**box3, (lwc::ChunkBox3{span(-1, 0), span(-1, -1), span(-2, 0)}));
  EXPECT_EQ(*lwc::count(**box3), 6u);
}

TEST(Box, AnyEmptyAxisEmptiesTheBox) {
  const auto box = lwc::cover(lwc::Point3{0, 5, 0}, lwc::Point3{10, 5, 10}, k1000);
  ASSERT_TRUE(box.ok());
  EXPECT_FALSE(box->has_value());
  const auto flat = lwc::cover(lwc::Point2{kMin, 0}, lwc::Point2{kMin, 10}, k1000);
  ASSERT_TRUE(flat.ok());
  EXPECT_FALSE(flat->has_value());
}

TEST(Box, ReversedAxisWinsOverEmptyAndIsNamed) {
  const auto box = lwc::cover(lwc::Point3{0, 0, 0}, lwc::Point3{0, 10, -1}, k1000);  // x empty, z reversed
  EXPECT_EQ(box.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StartsWith(box.status().message(), "axis z")) << box.status();
}

TEST(Box, CountProductNeverWraps) {
  // 2^64 - 1 columns times 2 rows: more than a uint64 holds.
  const auto box = lwc::cover(lwc::Point2{kMin, -1}, lwc::Point2{kMax, 1}, kOne);
  ASSERT_TRUE(box.ok() && box->has_value());
  EXPECT_EQ(lwc::count(**box).status().code(), absl::StatusCode::kOutOfRange);
  // 2^32 x 2^32 = 2^64: also one too many; 2^32 x (2^32 - 1) fits.
  const std::int64_t two32 = std::int64_t{1} << 32;
  const lwc::ChunkBox2 square{span(0, two32 - 1), span(0, two32 - 1)};
  EXPECT_EQ(lwc::count(square).status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(*lwc::count(lwc::ChunkBox2{span(0, two32 - 1), span(1, two32 - 1)}), kU64Max - two32 + 1);
  const lwc::ChunkBox3 cube{span(0, (1 << 21) - 1), span(0, (1 << 21) - 1), span(0, (1 << 22) - 1)};
  EXPECT_EQ(lwc::count(cube).status().code(), absl::StatusCode::kOutOfRange);  // 2^64
  const lwc::ChunkBox3 whole_column{span(0, 0), span(0, 0), span(kMin, kMax)};
  EXPECT_EQ(lwc::count(whole_column).status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_TRUE(absl::StrContains(lwc::count(whole_column).status().message(), "axis z"));
}

// Enumeration ---------------------------------------------------------------------------------------

TEST(ForEachChunk, ExactlyAtBudgetVisitsAll) {
  std::vector<std::int64_t> seen;
  const ChunkSpan s = span(-2, 1);
  const absl::Status status = lwc::for_each_chunk(s, lwc::ChunkBudget::of<4>(), [&](std::int64_t c) { seen.push_back(c); });
  EXPECT_TRUE(status.ok()) << status;
  EXPECT_EQ(seen, (std::vector<std::int64_t>{-2, -1, 0, 1}));
  EXPECT_TRUE(lwc::contracts::check_enumeration(s, 4, status, seen).ok());
}

TEST(ForEachChunk, OneOverBudgetVisitsNothing) {
  int calls = 0;
  const absl::Status status = lwc::for_each_chunk(span(-2, 1), lwc::ChunkBudget::of<3>(), [&](std::int64_t) { ++calls; });
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted) << status;
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(lwc::for_each_chunk(span(5, 5), lwc::ChunkBudget::of<0>(), [&](std::int64_t) { ++calls; }).code(),
            absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(calls, 0);
}

TEST(ForEachChunk, WholeDomainIsOverEveryBudget) {
  int calls = 0;
  const absl::Status status = lwc::for_each_chunk(span(kMin, kMax), lwc::ChunkBudget::of<kU64Max>(), [&](std::int64_t) { ++calls; });
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted) << status;
  EXPECT_EQ(calls, 0);
}

TEST(ForEachChunk, StopsAtInt64MaxWithoutOverflow) {
  std::vector<std::int64_t> seen;
  ASSERT_TRUE(lwc::for_each_chunk(span(kMax - 2, kMax), lwc::ChunkBudget::of<3>(), [&](std::int64_t c) { seen.push_back(c); }).ok());
  EXPECT_EQ(seen, (std::vector<std::int64_t>{kMax - 2, kMax - 1, kMax}));
}

TEST(ForEachChunk, BoolVisitorStopsEarly) {
  // UINT64_MAX chunks fit the budget; the visitor stops after three.
  std::vector<std::int64_t> seen;
  const ChunkSpan s = chunks_of(lwc::cover(kMin, kMax, kOne));
  const absl::Status status = lwc::for_each_chunk(s, lwc::ChunkBudget::of<kU64Max>(), [&](std::int64_t c) {
    seen.push_back(c);
    return seen.size() < 3;
  });
  EXPECT_TRUE(status.ok()) << status;
  EXPECT_EQ(seen, (std::vector<std::int64_t>{kMin, kMin + 1, kMin + 2}));
  EXPECT_TRUE(lwc::contracts::check_enumeration(s, kU64Max, status, seen, 3).ok());
}

TEST(ForEachChunk, StatusVisitorErrorIsReturned) {
  std::vector<lwc::Point2> seen;
  const lwc::ChunkBox2 box{span(0, 2), span(0, 2)};
  const absl::Status stop = absl::UnavailableError("loader queue full");
  const absl::Status status = lwc::for_each_chunk(box, lwc::ChunkBudget::of<9>(), [&](lwc::Point2 c) {
    seen.push_back(c);
    return seen.size() == 4 ? stop : absl::OkStatus();
  });
  EXPECT_EQ(status, stop);
  EXPECT_EQ(seen.size(), 4u);
  EXPECT_TRUE(lwc::contracts::check_enumeration(box, 9, status, seen, 4, stop).ok());
}

TEST(ForEachChunk, BoxOrderIsXFastestThenYThenZ) {
  std::vector<lwc::Point3> seen;
  const lwc::ChunkBox3 box{span(-1, 0), span(5, 6), span(kMax - 1, kMax)};
  const absl::Status status = lwc::for_each_chunk(box, lwc::ChunkBudget::of<8>(), [&](lwc::Point3 c) { seen.push_back(c); });
  ASSERT_TRUE(status.ok()) << status;
  const std::vector<lwc::Point3> want = {{-1, 5, kMax - 1}, {0, 5, kMax - 1}, {-1, 6, kMax - 1},
                                       {0, 6, kMax - 1},  {-1, 5, kMax},    {0, 5, kMax},
                                       {-1, 6, kMax},     {0, 6, kMax}};
  EXPECT_EQ(seen, want);
  EXPECT_TRUE(lwc::contracts::check_enumeration(box, 8, status, seen).ok());
  EXPECT_EQ(lwc::for_each_chunk(box, lwc::ChunkBudget::of<7>(), [&](lwc::Point3) { ADD_FAILURE(); }).code(),
            absl::StatusCode::kResourceExhausted);
}

TEST(ForEachChunk, OverflowingBoxCountIsOverBudget) {
  int calls = 0;
  const lwc::ChunkBox2 box{span(kMin, kMax), span(0, 0)};
  EXPECT_EQ(lwc::for_each_chunk(box, lwc::ChunkBudget::of<kU64Max>(), [&](lwc::Point2) { ++calls; }).code(),
            absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(calls, 0);
}

// Checkers ------------------------------------------------------------------------------------------

TEST(Span, ReversedSpanIsRefusedAndEveryOtherIsKept) {
  const absl::StatusOr<ChunkSpan> reversed = ChunkSpan::create(1, 0);
  EXPECT_EQ(reversed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(reversed.status().message(), "[1, 0]")) << reversed.status();
  EXPECT_EQ(ChunkSpan::create(kMax, kMin).status().code(), absl::StatusCode::kInvalidArgument);
  const absl::StatusOr<ChunkSpan> whole = ChunkSpan::create(kMin, kMax);
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(whole->first(), kMin);
  EXPECT_EQ(whole->last(), kMax);
  EXPECT_EQ(*ChunkSpan::create(kMax, kMax), (ChunkSpan::of<kMax, kMax>()));
}

TEST(Printing, SpansAndBoxesPrintTheirClosedBounds) {
  // Counterexamples are printed with these.
  std::ostringstream os;
  os << span(kMin, -1) << " " << lwc::ChunkBox2{span(0, 1), span(2, 3)} << " "
     << lwc::ChunkBox3{span(0, 0), span(-1, 0), span(kMax, kMax)};
  EXPECT_EQ(os.str(),
            "[-9223372036854775808, -1] {x [0, 1], y [2, 3]} {x [0, 0], y [-1, 0], z [9223372036854775807, "
            "9223372036854775807]}");
}

TEST(Checker, NamesTheClauseOfEachWrongAnswer) {
  using lwc::contracts::check_cover;
  const auto clause = [](const absl::Status& s) {
    return std::string(s.message().substr(0, s.message().find(' ')));
  };
  // The last chunk taken from max_exclusive: chunk 0 holds no point of [-1000, 0).
  EXPECT_EQ(clause(check_cover(-1000, 0, 1000, CoverAnswer::chunks(-1, 0))), "C2");
  // Truncating division: [-1, 1) answered as chunk 0 only; -1 is left out.
  EXPECT_EQ(clause(check_cover(-1, 1, 1000, CoverAnswer::chunks(0, 0))), "C1");
  EXPECT_EQ(clause(check_cover(-1, 1, 1000, CoverAnswer::none())), "C1");
  EXPECT_EQ(clause(check_cover(-1, 1, 1000, CoverAnswer::chunks(0, -1))), "C1");
  EXPECT_EQ(clause(check_cover(kMin, kMin, 1000, CoverAnswer::chunks(kMin, kMin))), "C4");
  EXPECT_EQ(clause(check_cover(1, 0, 1000, CoverAnswer::none())), "C4");
  EXPECT_EQ(clause(check_cover(0, 1, 1000, CoverAnswer::error(absl::StatusCode::kInternal))), "C10");
  EXPECT_EQ(clause(check_cover(0, 1, 0, CoverAnswer::chunks(0, 0))), "D5");
  EXPECT_TRUE(check_cover(-1, 1, 1000, CoverAnswer::chunks(-1, 0)).ok());
  EXPECT_EQ(clause(lwc::contracts::check_contiguity(0, 10, 1, 0, 20, 15)), "C3");
  EXPECT_EQ(clause(lwc::contracts::check_closed_form(0, 9, 10, CoverAnswer::chunks(0, 0),
                                                     CoverAnswer::chunks(0, 1))),
            "C5");
  EXPECT_EQ(clause(lwc::contracts::check_count(kMin, kMax, std::uint64_t{0})), "C6");
  EXPECT_EQ(clause(lwc::contracts::check_count(-1, 0, std::uint64_t{1})), "C6");
  const std::vector<std::int64_t> visited = {0};
  EXPECT_EQ(
      clause(lwc::contracts::check_enumeration(span(0, 1), 1, absl::ResourceExhaustedError("x"), visited)),
      "C7");
  const std::vector<std::int64_t> backwards = {1, 0};
  EXPECT_EQ(clause(lwc::contracts::check_enumeration(span(0, 1), 2, absl::OkStatus(), backwards)), "C8");
  EXPECT_EQ(clause(lwc::contracts::check_box_count(lwc::Point2{0, 0}, lwc::Point2{kMax, 1}, std::uint64_t{0})),
            "C9");
}

}  // namespace

// The value types compare every field, and a span contains exactly its chunks.
namespace {

TEST(ValueTypes, SpanContainsExactlyFirstToLast) {  // C1 C2
  const lwc::ChunkSpan s = *lwc::ChunkSpan::create(-2, 3);
  EXPECT_FALSE(s.contains(-3));
  EXPECT_TRUE(s.contains(-2));
  EXPECT_TRUE(s.contains(3));
  EXPECT_FALSE(s.contains(4));
}

TEST(ValueTypes, SpansAndBoxesCompareEveryField) {  // C9
  const lwc::ChunkSpan s = *lwc::ChunkSpan::create(1, 2);
  const lwc::ChunkSpan t = *lwc::ChunkSpan::create(0, 2);   // first differs
  const lwc::ChunkSpan u = *lwc::ChunkSpan::create(1, 5);   // last differs
  EXPECT_EQ(s, *lwc::ChunkSpan::create(1, 2));
  EXPECT_NE(s, t);
  EXPECT_NE(s, u);
  EXPECT_EQ((lwc::ChunkBox2{s, s}), (lwc::ChunkBox2{s, s}));
  EXPECT_NE((lwc::ChunkBox2{s, s}), (lwc::ChunkBox2{t, s}));
  EXPECT_NE((lwc::ChunkBox2{s, s}), (lwc::ChunkBox2{s, t}));
  EXPECT_EQ((lwc::ChunkBox3{s, s, s}), (lwc::ChunkBox3{s, s, s}));
  EXPECT_NE((lwc::ChunkBox3{s, s, s}), (lwc::ChunkBox3{u, s, s}));
  EXPECT_NE((lwc::ChunkBox3{s, s, s}), (lwc::ChunkBox3{s, u, s}));
  EXPECT_NE((lwc::ChunkBox3{s, s, s}), (lwc::ChunkBox3{s, s, u}));
}

}  // namespace
// Found by the mutation runner (tests/mutants/cover.txt, C9_reversed_y_named_x): a reversed axis is named by
// its own letter on every axis, not only on z.
TEST(Box, C9_EachReversedAxisIsNamedByItsOwnLetter) {  // C9 C4
  const auto x = lwc::cover(lwc::Point2{5, 0}, lwc::Point2{4, 1}, k1000);
  EXPECT_EQ(x.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StartsWith(x.status().message(), "axis x")) << x.status();
  const auto y = lwc::cover(lwc::Point3{0, 5, 0}, lwc::Point3{1, 4, 1}, k1000);
  EXPECT_EQ(y.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StartsWith(y.status().message(), "axis y")) << y.status();
  const auto closed = lwc::cover_closed(lwc::Point2{0, 5}, lwc::Point2{1, 3}, k1000);
  EXPECT_EQ(closed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StartsWith(closed.status().message(), "axis y")) << closed.status();
}
