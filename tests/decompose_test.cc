// SPDX-License-Identifier: MIT
// File: tests/decompose_test.cc
//
// Fixed examples and regressions for lwc.decompose: every figure of the truncating-division example (x = -1
// by 1000, its 32,807-sample reconstruction grid), exact answers at the int64 extremes (also as
// static_asserts), and the double-quantisation traps. Spec: docs/decompose.md.
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "lwc/exact_fp.h"

#ifdef LWC_USE_HEADERS  // tests/header_build: the same test, lwc as headers
#include "lwc/decompose.h"
#include "lwc/contracts/decompose.h"
#else
import lwc.decompose;
import lwc.contracts.decompose;
#endif

namespace {

using lwc::ChunkPoint;
using lwc::ChunkSize;
using lwc::split;

constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr ChunkSize k1000 = ChunkSize::of<1000>();
constexpr ChunkSize kMaxSize = ChunkSize::of<kMax>();

// D4 by static_assert at the extremes: undefined behaviour in a constant expression does not compile.
static_assert(split(-1, k1000) == ChunkPoint{-1, 999});
static_assert(lwc::split_by_division(-1, k1000) == ChunkPoint{-1, 999});
static_assert(split(kMin, ChunkSize::of<3>()) == ChunkPoint{-3074457345618258603, 1});
static_assert(split(-1000, k1000) == ChunkPoint{-1, 0});
static_assert(lwc::split_by_division(-1000, k1000) == ChunkPoint{-1, 0});  // the fix is for r < 0 only
static_assert(split(-1001, k1000) == ChunkPoint{-2, 999});
static_assert(split(kMin, k1000) == ChunkPoint{-9223372036854776, 192});
static_assert(split(kMax, k1000) == ChunkPoint{9223372036854775, 807});
static_assert(split(kMin, kMaxSize) == ChunkPoint{-2, kMax - 1});
static_assert(split(kMax, kMaxSize) == ChunkPoint{1, 0});
static_assert(split(kMin, ChunkSize::of<1>()) == ChunkPoint{kMin, 0});
static_assert(split(kMin, ChunkSize::of<std::int64_t{1} << 62>()) == ChunkPoint{-2, 0});
static_assert(split(-1, ChunkSize::of<16>()) == ChunkPoint{-1, 15});
static_assert(lwc::floor_div(-17, ChunkSize::of<16>()) == -2 && lwc::floor_mod(-17, ChunkSize::of<16>()) == 15);
static_assert(ChunkSize::of<1024>().is_power_of_two() && ChunkSize::of<1024>().log2() == 10);
static_assert(!ChunkSize::of<1000>().is_power_of_two() && ChunkSize::of<1000>().log2() == -1);

TEST(Split, NegativeOneFallsInChunkMinusOne) {  // D1 D2 D6
  // The truncating-division example: plain division puts -1 in chunk 0 with remainder -1.
  const std::int64_t x = -1;
  EXPECT_EQ(x / 1000, 0);
  EXPECT_EQ(x % 1000, -1);
  EXPECT_EQ(split(x, k1000), (ChunkPoint{-1, 999}));
}

TEST(Split, LeftBoundaryIsNotDecrementedAgain) {  // D6
  // The truncating-division example: -1000 is already correct under truncation; an unconditional decrement
  // would break it.
  EXPECT_EQ(split(-1000, k1000), (ChunkPoint{-1, 0}));
  EXPECT_EQ(split(-2000, k1000), (ChunkPoint{-2, 0}));
  EXPECT_EQ(split(0, k1000), (ChunkPoint{0, 0}));
  EXPECT_EQ(split(999, k1000), (ChunkPoint{0, 999}));
  EXPECT_EQ(split(1000, k1000), (ChunkPoint{1, 0}));
}

TEST(Split, ExactAtTheExtremes) {  // D1 D2 D3 D4
  EXPECT_EQ(split(kMin, k1000), (ChunkPoint{-9223372036854776, 192}));
  EXPECT_EQ(split(kMin, kMaxSize), (ChunkPoint{-2, kMax - 1}));
  EXPECT_EQ(split(kMax, kMaxSize), (ChunkPoint{1, 0}));
  EXPECT_EQ(split(kMin + 1, kMaxSize), (ChunkPoint{-1, 0}));
  EXPECT_EQ(split(kMax - 1, kMaxSize), (ChunkPoint{0, kMax - 1}));
  EXPECT_EQ(split(kMin, ChunkSize::of<kMax - 1>()), (ChunkPoint{-2, kMax - 3}));
  EXPECT_EQ(split(kMax, ChunkSize::of<1>()), (ChunkPoint{kMax, 0}));
}

TEST(Split, SeedReconstructionGridHas32807Samples) {  // D1 D2 D3
  // The truncating-division example: every x in [-4096, 4096] by sizes {1, 3, 16, 1000}, plus 7 extreme
  // coordinates by 5 sizes, each verified in int128 by the checker.
  const std::array<std::int64_t, 4> grid_sizes = {1, 3, 16, 1000};
  const std::array<std::int64_t, 7> extremes = {kMin, kMin + 1, -1, 0, 1, kMax - 1, kMax};
  const std::array<std::int64_t, 5> extreme_sizes = {1, 3, 16, 1000, kMax};
  int samples = 0;
  for (const std::int64_t s : grid_sizes) {
    const ChunkSize size = *ChunkSize::create(s);
    for (std::int64_t x = -4096; x <= 4096; ++x, ++samples) {
      const ChunkPoint p = split(x, size);
      ASSERT_TRUE(lwc::contracts::check_split(x, s, p.chunk, p.local).ok()) << x << " " << s;
    }
  }
  for (const std::int64_t x : extremes) {
    for (const std::int64_t s : extreme_sizes) {
      const ChunkPoint p = split(x, *ChunkSize::create(s));
      ASSERT_TRUE(lwc::contracts::check_split(x, s, p.chunk, p.local).ok()) << x << " " << s;
      ++samples;
    }
  }
  EXPECT_EQ(samples, 32807);
}

TEST(Split, ShiftPathMatchesDivisionForEveryPowerOfTwo) {  // D7
  for (int k = 0; k < 63; ++k) {
    const ChunkSize size = *ChunkSize::create(std::int64_t{1} << k);
    for (const std::int64_t x : {kMin, kMin + 1, std::int64_t{-1}, std::int64_t{0}, kMax,
                                 -(std::int64_t{1} << k), -(std::int64_t{1} << k) - 1}) {
      EXPECT_EQ(split(x, size), lwc::split_by_division(x, size)) << "x=" << x << " k=" << k;
    }
  }
}

TEST(Split, ReciprocalPathMatchesDivisionNearEveryPowerOfTwo) {  // D7
  // The reciprocal's error bound is tightest for sizes just above a power of two and for the largest
  // dividends; 2^k + 1 and 2^k - 1 for every k, and INT64_MAX itself, at the extreme dividends.
  std::vector<std::int64_t> sizes = {3, 5, 7, 1000, kMax, kMax - 1, kMax / 3};
  for (int k = 2; k < 63; ++k) {
    sizes.push_back((std::int64_t{1} << k) + 1);
    sizes.push_back((std::int64_t{1} << k) - 1);
  }
  for (const std::int64_t s : sizes) {
    const ChunkSize size = *ChunkSize::create(s);
    ASSERT_FALSE(size.is_power_of_two()) << s;
    for (const std::int64_t x : {kMin, kMin + 1, kMin + s - 1, kMin + s, std::int64_t{-1}, std::int64_t{0},
                                 s - 1, s, -s, -s - 1, kMax, kMax - 1, kMax - s}) {
      EXPECT_EQ(lwc::split_by_reciprocal(x, size), lwc::split_by_division(x, size)) << x << " " << s;
      EXPECT_EQ(split(x, size), lwc::split_by_division(x, size)) << x << " " << s;
    }
  }
}

TEST(Split, TwoAndThreeDimensionsSplitEachAxis) {  // D8
  const auto p2 = split(lwc::Point2{-1, 1000}, k1000);
  EXPECT_EQ(p2.chunk, (lwc::Point2{-1, 1}));
  EXPECT_EQ(p2.local, (lwc::Point2{999, 0}));
  const auto p3 = split(lwc::Point3{kMin, -1, 17}, ChunkSize::of<16>());
  EXPECT_EQ(p3.chunk, (lwc::Point3{kMin / 16, -1, 1}));
  EXPECT_EQ(p3.local, (lwc::Point3{0, 15, 1}));
}

TEST(Split, BatchRefusesMismatchedOutput) {  // D11
  const std::vector<std::int64_t> xs = {-1, 0, 1};
  std::vector<ChunkPoint> out(2, ChunkPoint{7, 7});
  EXPECT_EQ(lwc::split_all(xs, k1000, out).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(out[0], (ChunkPoint{7, 7}));  // nothing written
  out.resize(3);
  ASSERT_TRUE(lwc::split_all(xs, k1000, out).ok());
  EXPECT_EQ(out[0], (ChunkPoint{-1, 999}));
}

template <typename T>
std::string text(const T& v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

TEST(Printing, ValuesPrintReadably) {
  // Failure messages of tests and engine logs depend on these.
  EXPECT_EQ(text(split(-1, k1000)), "(chunk -1, local 999)");
  EXPECT_EQ(text(lwc::Point2{-1, 2}), "(-1, 2)");
  EXPECT_EQ(text(lwc::Point3{kMin, 0, kMax}), "(-9223372036854775808, 0, 9223372036854775807)");
  EXPECT_EQ(text(k1000), "1000");
}

TEST(Values, EqualityComparesEveryField) {
  EXPECT_NE((ChunkPoint{1, 2}), (ChunkPoint{0, 2}));
  EXPECT_NE((ChunkPoint{1, 2}), (ChunkPoint{1, 3}));
  EXPECT_NE((lwc::Point2{1, 2}), (lwc::Point2{0, 2}));
  EXPECT_NE((lwc::Point2{1, 2}), (lwc::Point2{1, 3}));
  EXPECT_NE((lwc::Point3{1, 2, 3}), (lwc::Point3{0, 2, 3}));
  EXPECT_NE((lwc::Point3{1, 2, 3}), (lwc::Point3{1, 0, 3}));
  EXPECT_NE((lwc::Point3{1, 2, 3}), (lwc::Point3{1, 2, 0}));
  EXPECT_LT((lwc::Point2{0, 5}), (lwc::Point2{1, 0}));
  EXPECT_LT((lwc::Point3{0, 0, 5}), (lwc::Point3{0, 1, 0}));
  const lwc::ChunkPoint2 a{{1, 2}, {3, 4}};
  EXPECT_NE(a, (lwc::ChunkPoint2{{1, 2}, {3, 5}}));
  EXPECT_NE(a, (lwc::ChunkPoint2{{0, 2}, {3, 4}}));
  const lwc::ChunkPoint3 b{{1, 2, 3}, {4, 5, 6}};
  EXPECT_NE(b, (lwc::ChunkPoint3{{1, 2, 3}, {4, 5, 0}}));
  EXPECT_NE(b, (lwc::ChunkPoint3{{0, 2, 3}, {4, 5, 6}}));
}

TEST(ChunkSize, EqualityIsByValue) {  // D5
  EXPECT_EQ(*ChunkSize::create(1000), k1000);
  EXPECT_FALSE(*ChunkSize::create(1024) == k1000);
}

TEST(ChunkSize, RejectsZeroAndNegative) {  // D5
  for (const std::int64_t s : {std::int64_t{0}, std::int64_t{-1}, std::int64_t{-1000}, kMin}) {
    const absl::StatusOr<ChunkSize> size = ChunkSize::create(s);
    ASSERT_FALSE(size.ok()) << s;
    EXPECT_EQ(size.status().code(), absl::StatusCode::kInvalidArgument);
  }
  EXPECT_TRUE(ChunkSize::create(1).ok());
  EXPECT_TRUE(ChunkSize::create(kMax).ok());
}

TEST(Checker, NamesTruncationAsD6) {  // checker diagnoses D6 D2 D1 D5
  // The truncating-division example's wrong answer for -1 is (0, -1): the checker diagnoses it as truncation.
  const absl::Status s = lwc::contracts::check_split(-1, 1000, 0, -1);
  EXPECT_TRUE(absl::StartsWith(s.message(), "D6")) << s;
  EXPECT_TRUE(absl::StartsWith(lwc::contracts::check_split(-1, 1000, -1, 1000).message(), "D2"));
  EXPECT_TRUE(absl::StartsWith(lwc::contracts::check_split(5, 1000, 1, -995).message(), "D2"));
  EXPECT_TRUE(absl::StartsWith(lwc::contracts::check_split(5, 1000, 1, 4).message(), "D1"));
  EXPECT_TRUE(absl::StartsWith(lwc::contracts::check_split(5, 0, 0, 5).message(), "D5"));
  EXPECT_TRUE(lwc::contracts::check_split(kMin, kMax, -2, kMax - 1).ok());
}

// cell_of ---------------------------------------------------------------------------------------------

std::int64_t cell(double v, double h) {
  const absl::StatusOr<std::int64_t> c = lwc::cell_of(v, h);
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? *c : 0;
}

TEST(CellOf, NegativeZeroIsCellZero) {  // D9
  EXPECT_EQ(cell(-0.0, 1.0), 0);
  EXPECT_EQ(cell(0.0, 0.1), 0);
}

TEST(CellOf, TinyNegativesAreInCellMinusOne) {  // D9 D10
  // Plain floor(v / h) gives floor(-0.0) = 0 here: the quotient underflows.
  const double tiny = -std::numeric_limits<double>::denorm_min();
  EXPECT_EQ(std::floor(tiny / 2.0), 0.0);
  EXPECT_EQ(cell(tiny, 2.0), -1);
  EXPECT_EQ(cell(-1e-17, 16.0), -1);  // TOOLCHAIN trap: v - floor(v/16)*16 rounds to 16.0 here
}

TEST(CellOf, RoundedQuotientOnAnIntegerIsCorrected) {  // D9
  // The double 0.1 is 0.1000000000000000055511151231257827..., so 5 * h > 0.5 and 10 * h > 1.0 exactly,
  // yet 0.5 / 0.1 and 1.0 / 0.1 round to 5.0 and 10.0: plain floor puts both one cell too high.
  EXPECT_EQ(0.5 / 0.1, 5.0);
  EXPECT_EQ(cell(0.5, 0.1), 4);
  EXPECT_EQ(1.0 / 0.1, 10.0);
  EXPECT_EQ(cell(1.0, 0.1), 9);
  // Where the product is exact the quotient is too, and the answer is the obvious one.
  EXPECT_EQ(cell(0.5, 0.125), 4);
  EXPECT_EQ(cell(-0.5, 0.125), -4);
  EXPECT_EQ(cell(std::nextafter(-0.5, 0.0), 0.125), -4);
  EXPECT_EQ(cell(std::nextafter(-0.5, -1.0), 0.125), -5);
}

TEST(CellOf, RejectsNonFiniteAndBadSizes) {  // D9
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (const double v : {nan, inf, -inf}) {
    EXPECT_EQ(lwc::cell_of(v, 1.0).status().code(), absl::StatusCode::kInvalidArgument) << v;
  }
  for (const double h : {0.0, -0.0, -1.0, nan, inf, -inf}) {
    EXPECT_EQ(lwc::cell_of(1.0, h).status().code(), absl::StatusCode::kInvalidArgument) << h;
  }
}

// A refusal says which rule the value broke, and writes the value as the caller would (the shortest
// decimal that reads back as it), with its hexadecimal form where one ulp decides (the int64 edge).
TEST(CellOf, MessagesNameTheRealCauseInOneNotation) {  // D9
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(lwc::CellSize::create(-0.5).status().message(), "cell size -0.5 is not positive (D9)");
  EXPECT_EQ(lwc::CellSize::create(-0.0).status().message(), "cell size -0 is not positive (D9)");
  EXPECT_EQ(lwc::CellSize::create(inf).status().message(), "cell size inf is not finite (D9)");
  EXPECT_EQ(lwc::cell_of(-inf, 1.0).status().message(), "cell_of: coordinate -inf is not finite (D9)");
  EXPECT_EQ(lwc::cell_of(0x1p63, 0.5).status().message(),
            "cell_of: floor(9223372036854775808 (0x1p+63) / 0.5) is outside int64 (D9)");
}

TEST(CellOf, ExactAtTheInt64Ends) {  // D9
  EXPECT_EQ(cell(-0x1p63, 1.0), kMin);
  EXPECT_EQ(lwc::cell_of(0x1p63, 1.0).status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(cell(std::nextafter(0x1p63, 0.0), 1.0), kMax - 1023);
  EXPECT_EQ(lwc::cell_of(std::nextafter(-0x1p63, -1e300), 1.0).status().code(),
            absl::StatusCode::kOutOfRange);
  EXPECT_EQ(lwc::cell_of(std::numeric_limits<double>::max(), 1e-300).status().code(),
            absl::StatusCode::kOutOfRange);
  // 2^63 - 1 cells of 1.5 end at 1.5 * (2^63 - 1), not a double; just below 2^63 * 1.5 the floor is
  // 2^63 - 1, which no double holds: only the exact path gets it.
  const double v = std::nextafter(0x1p63 * 1.5, 0.0);
  const absl::StatusOr<std::int64_t> c = lwc::cell_of(v, 1.5);
  EXPECT_TRUE(lwc::contracts::check_cell_of(v, 1.5, c).ok()) << c.status();
}

TEST(CellOf, BatchRefusesMismatchedOutput) {  // D11
  const std::vector<double> vs = {0.5, -0.5};
  std::vector<std::int64_t> out(1, 7);
  EXPECT_EQ(lwc::cell_of_all(vs, *lwc::CellSize::create(1.0), out).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(out[0], 7);
}

TEST(CellOf, BatchNamesTheFailingIndex) {  // D11
  const std::vector<double> vs = {0.5, -0.5, std::numeric_limits<double>::quiet_NaN()};
  std::vector<std::int64_t> out(3);
  const absl::Status s = lwc::cell_of_all(vs, *lwc::CellSize::create(1.0), out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("input 2"), absl::string_view::npos) << s;
}

}  // namespace

// The value types compare every field: objects that differ in exactly one field are unequal, and the
// ordering of Point2 and Point3 is lexicographic with x first (their std::map and sort order).
namespace {

TEST(ValueTypes, ChunkPointComparesChunkAndLocal) {  // D1 (the result type of split)
  const lwc::ChunkPoint p{3, 4};
  EXPECT_EQ(p, (lwc::ChunkPoint{3, 4}));
  EXPECT_NE(p, (lwc::ChunkPoint{9, 4}));
  EXPECT_NE(p, (lwc::ChunkPoint{3, 9}));
}

TEST(ValueTypes, Point2AndPoint3CompareEveryAxis) {  // D8
  const lwc::Point2 a{1, 2};
  EXPECT_EQ(a, (lwc::Point2{1, 2}));
  EXPECT_NE(a, (lwc::Point2{9, 2}));
  EXPECT_NE(a, (lwc::Point2{1, 9}));
  EXPECT_LT(a, (lwc::Point2{1, 3}));   // x equal: y decides
  EXPECT_GT(a, (lwc::Point2{0, 99}));  // x decides first
  const lwc::Point3 b{1, 2, 3};
  EXPECT_EQ(b, (lwc::Point3{1, 2, 3}));
  EXPECT_NE(b, (lwc::Point3{9, 2, 3}));
  EXPECT_NE(b, (lwc::Point3{1, 9, 3}));
  EXPECT_NE(b, (lwc::Point3{1, 2, 9}));
  EXPECT_LT(b, (lwc::Point3{1, 2, 4}));   // x, y equal: z decides
  EXPECT_LT(b, (lwc::Point3{1, 3, 0}));   // x equal: y decides before z
  EXPECT_GT(b, (lwc::Point3{0, 99, 99}));
}

TEST(ValueTypes, ChunkPoint2And3CompareChunkAndLocal) {  // D8
  const lwc::ChunkPoint2 p = lwc::split(lwc::Point2{-1, 1000}, k1000);
  EXPECT_EQ(p, (lwc::ChunkPoint2{{-1, 1}, {999, 0}}));
  EXPECT_NE(p, (lwc::ChunkPoint2{{-1, 0}, {999, 0}}));   // chunk differs
  EXPECT_NE(p, (lwc::ChunkPoint2{{-1, 1}, {999, 1}}));   // local differs
  const lwc::ChunkPoint3 q = lwc::split(lwc::Point3{-1, 1000, 1}, k1000);
  EXPECT_EQ(q, (lwc::ChunkPoint3{{-1, 1, 0}, {999, 0, 1}}));
  EXPECT_NE(q, (lwc::ChunkPoint3{{-1, 1, 1}, {999, 0, 1}}));
  EXPECT_NE(q, (lwc::ChunkPoint3{{-1, 1, 0}, {999, 0, 2}}));
}

}  // namespace
// Found by the mutation runner (tests/mutants/decompose.txt, D11_cells_of_longer_output_accepted): an output
// span longer than the input is as mismatched as a shorter one, for both batch forms, and nothing is written.
TEST(CellOf, D11_BatchRefusesLongerOutput) {  // D11
  const std::vector<double> vs = {0.5, -0.5};
  std::vector<std::int64_t> out(3, 7);
  EXPECT_EQ(lwc::cell_of_all(vs, *lwc::CellSize::create(1.0), out).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(out, (std::vector<std::int64_t>{7, 7, 7}));
  const std::vector<std::int64_t> xs = {-1, 0, 1};
  std::vector<ChunkPoint> points(4, ChunkPoint{7, 7});
  EXPECT_EQ(lwc::split_all(xs, k1000, points).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(points[0], (ChunkPoint{7, 7}));
}

// A refused batch writes nothing, whichever input fails and wherever it is: the last one, an infinity or NaN
// (refused by the bit pass and then by cell_of), or a finite value whose cell is outside int64 (past the
// 2^62-cell band, judged exactly), after valid inputs whose cells would have been written first.
TEST(CellOf, D11_RefusedBatchWritesNothing) {  // D11
  const double kInf = std::numeric_limits<double>::infinity();
  const double kBad[] = {kInf, -kInf, std::numeric_limits<double>::quiet_NaN(), 0x1p63, -0x1p63 - 0x1p11,
                         std::numeric_limits<double>::max()};
  for (const double bad : kBad) {
    const std::vector<double> vs = {0.5, -1.5, 0x1p62, -0x1p63, bad};
    std::vector<std::int64_t> out(vs.size(), 7);
    const absl::Status s = lwc::cell_of_all(vs, *lwc::CellSize::create(1.0), out);
    EXPECT_FALSE(s.ok()) << bad;
    EXPECT_NE(s.message().find("input 4"), std::string_view::npos) << s;
    EXPECT_EQ(out, std::vector<std::int64_t>(vs.size(), 7)) << bad;
  }
  // Past the band but inside int64: judged exactly, then written.
  const std::vector<double> edge = {0x1p62, -0x1p63, 0x1p63 - 1024};
  std::vector<std::int64_t> out(edge.size(), 7);
  ASSERT_TRUE(lwc::cell_of_all(edge, *lwc::CellSize::create(1.0), out).ok());
  EXPECT_EQ(out, (std::vector<std::int64_t>{std::int64_t{1} << 62, INT64_MIN, INT64_MAX - 1023}));
}

// lwc/exact_fp.h: the bit-level classification and stepping that cell_of, box validation and rebase rest on under the
// consumer's fast-math flags agree with <cmath> where <cmath> is exact (lwc's own flags).
TEST(ExactFp, AgreesWithCmathOnEveryClassOfDouble) {
  const double kInf = std::numeric_limits<double>::infinity();
  const double kValues[] = {0.0, -0.0, std::numeric_limits<double>::denorm_min(), -std::numeric_limits<double>::denorm_min(),
                            0x0.fffffffffffffp-1022, std::numeric_limits<double>::min(), 0.1, -0.5, 1.0, 0x1p53, 0x1p63,
                            -0x1p63, std::numeric_limits<double>::max(), -std::numeric_limits<double>::max(), kInf, -kInf,
                            std::numeric_limits<double>::quiet_NaN(), -std::numeric_limits<double>::quiet_NaN(),
                            std::numeric_limits<double>::signaling_NaN()};
  for (const double x : kValues) {
    EXPECT_EQ(lwc::fp::is_nan(x), std::isnan(x)) << x;
    EXPECT_EQ(lwc::fp::is_inf(x), std::isinf(x)) << x;
    EXPECT_EQ(lwc::fp::is_finite(x), std::isfinite(x)) << x;
    EXPECT_EQ(lwc::fp::sign_bit(x), std::signbit(x)) << x;
    EXPECT_EQ(lwc::fp::is_subnormal(x), std::fpclassify(x) == FP_SUBNORMAL) << x;
    EXPECT_EQ(lwc::fp::is_zero(x), x == 0) << x;
    if (std::isnan(x)) continue;
    EXPECT_EQ(std::bit_cast<std::uint64_t>(lwc::fp::next_up(x)), std::bit_cast<std::uint64_t>(std::nextafter(x, kInf))) << x;
    EXPECT_EQ(std::bit_cast<std::uint64_t>(lwc::fp::next_down(x)), std::bit_cast<std::uint64_t>(std::nextafter(x, -kInf))) << x;
    for (const double y : kValues) {
      if (!std::isnan(y)) {
        EXPECT_EQ(lwc::fp::less_equal(x, y), x <= y) << x << " " << y;
      }
    }
    if (std::isinf(x)) continue;
    std::uint64_t m = 0;
    int e = 0;
    lwc::fp::decode(x, m, e);
    EXPECT_EQ(std::ldexp(static_cast<double>(m), e), std::fabs(x)) << x;
    for (const int n : {0, 1, 52, 1000, 2000, -1}) {
      double scaled = 0;
      const bool finite = std::isfinite(std::ldexp(x, n));
      if (n < 0 && std::fpclassify(x) != FP_NORMAL) continue;  // scale_exact needs an n that loses no bit
      EXPECT_EQ(lwc::fp::scale_exact(x, n, scaled), finite) << x << " " << n;
      if (finite) {
        EXPECT_EQ(std::bit_cast<std::uint64_t>(scaled), std::bit_cast<std::uint64_t>(std::ldexp(x, n))) << x << " " << n;
      }
    }
  }
  float nan = 0;
  lwc::fp::set_quiet_nan(nan);
  EXPECT_TRUE(std::isnan(nan));
  EXPECT_TRUE(lwc::fp::is_subnormal(std::numeric_limits<float>::denorm_min()));
  EXPECT_EQ(lwc::fp::next_up(-0.0f), std::numeric_limits<float>::denorm_min());
}

TEST(ExactFp, WidenIsTheCastOnEveryClassOfFloat) {
  // widen() keeps what static_cast<double> keeps, payloads of NaNs included (the cast quiets a
  // signalling NaN, widen does not: only quiet ones are compared on their bits).
  for (const std::uint32_t bits : {0x00000000u, 0x80000000u, 0x00000001u, 0x807fffffu, 0x00800000u, 0x3f800000u,
                                   0xbf7fffffu, 0x7f7fffffu, 0xff7fffffu, 0x7f800000u, 0xff800000u, 0x7fc00000u,
                                   0xffc00001u, 0x7fe12345u}) {
    const float x = std::bit_cast<float>(bits);
    EXPECT_EQ(std::bit_cast<std::uint64_t>(lwc::fp::widen(x)), std::bit_cast<std::uint64_t>(static_cast<double>(x)))
        << std::hex << bits;
  }
}

TEST(ExactFp, FmaRoundsOnceInBothWidths) {
  // (1 + 2^-p+1)^2 - (1 + 2^-p+2) = 2^(-2p+2): zero when the product is rounded before the add.
  const float f = 1.0f + 0x1p-23f;
  EXPECT_EQ(lwc::fp::fma(f, f, -(1.0f + 0x1p-22f)), 0x1p-46f);
  const double d = 1.0 + 0x1p-52;
  EXPECT_EQ(lwc::fp::fma(d, d, -(1.0 + 0x1p-51)), 0x1p-104);
  EXPECT_EQ(lwc::fp::abs(-0.0f), 0.0f);
  EXPECT_FALSE(std::signbit(lwc::fp::abs(-0.0f)));
  EXPECT_EQ(lwc::fp::abs(-2.5), 2.5);
}
