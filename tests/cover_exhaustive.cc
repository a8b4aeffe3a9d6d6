// SPDX-License-Identifier: MIT
// File: tests/cover_exhaustive.cc
//
// Exhaustive evidence for lwc.cover in the small scope: the width-generic arithmetic of `cover`,
// `cover_closed`, `count` and `for_each_chunk` over spans (one template for int8 ... int64, no
// width-specific branch) checked for EVERY input at int8 and for every input of chosen dimensions at
// int16, each answer judged in a wider type than the code under test: by the int128 checkers of
// lwc.contracts.cover (the int8 answers are answers for int64 ranges too, and must be the same), and by
// a point-by-point walk that finds the chunk of every point by counting, not dividing.
// docs/cover.md ("Exhaustive evidence") gives the scope and why it is evidence for int64.
//
// Every test prints "[lwc-exhaustive] cover <clause> cases=<n>" per clause it covers; `./lwc audit` shows
// the sums in its "exhaustive" column. CTest runs only ExhaustiveInt8 (seconds under ASan); the audit
// runs the binary whole.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "support/exhaustive.h"

import lwc.cover;
import lwc.contracts.cover;

namespace {

using lwc::BasicChunkSize;
using lwc::BasicChunkSpan;
using lwc::contracts::CoverAnswer;

template <typename T>
using CoverResult = absl::StatusOr<std::optional<BasicChunkSpan<T>>>;

void report(const char* clause, std::uint64_t cases) { lwc::exhaustive::report("cover", clause, cases); }

using lwc::exhaustive::parallel;

// An N-bit answer as the raw answer the int64 checkers judge (widening is exact).
template <typename T>
CoverAnswer answer(const CoverResult<T>& r) {
  if (!r.ok()) return CoverAnswer::error(r.status().code());
  if (!r->has_value()) return CoverAnswer::none();
  return CoverAnswer::chunks((*r)->first(), (*r)->last());
}

// The chunk of x by rounding the magnitude up for negative x: neither split's reciprocal nor its
// truncate-and-correct. Used once per walk; the walk then counts.
std::int64_t floor_by_ceiling(std::int64_t x, std::int64_t s) { return x >= 0 ? x / s : -((-x + s - 1) / s); }

// The points of a range from `a` upward, one at a time, each with its chunk found by counting: the
// local part steps by one and carries into the next chunk at s. The chunks of a, a + 1, ..., p are then
// [first, chunk] by construction: the truncating-division example's point-by-point check, in O(1) per point.
struct PointWalk {
  std::int64_t s;
  std::int64_t first;
  std::int64_t chunk;
  std::int64_t local;

  PointWalk(std::int64_t a, std::int64_t size)
      : s(size), first(floor_by_ceiling(a, size)), chunk(first), local(a - first * size) {}
  void step() {
    if (++local == s) {
      local = 0;
      ++chunk;
    }
  }
};

// What a sweep over ranges covered, and how many answers were wrong.
struct Tally {
  std::uint64_t half_open = 0;
  std::uint64_t closed = 0;
  std::uint64_t failures = 0;

  Tally& operator+=(const Tally& o) {
    half_open += o.half_open;
    closed += o.closed;
    failures += o.failures;
    return *this;
  }
};

// Every range [a, b) and [a, b] with a, b in T, at size s: each answer compared with the point walk
// (C1-C3: the chunks of the points are exactly the span), with the C4 answers for empty and reversed
// ranges, and each closed answer for [a, b] with the half-open one for [a, b + 1) (C5). With `checkers`,
// each answer is also judged by the int128 checkers of lwc.contracts.cover (check_cover,
// check_cover_closed).
template <typename T>
Tally sweep_ranges(std::int64_t s, bool checkers) {
  // Widened on purpose: the word's extremes as int64 (T is int8_t here too, a signed char).
  constexpr std::int64_t kMin = std::numeric_limits<T>::min();  // NOLINT(bugprone-signed-char-misuse)
  constexpr std::int64_t kMax = std::numeric_limits<T>::max();
  const auto size = *BasicChunkSize<T>::create(static_cast<T>(s));
  Tally t;
  const auto fail = [&](const char* form, std::int64_t a, std::int64_t b, const CoverAnswer& got,
                        const std::string& why) {
    if (++t.failures <= 5) {
      ADD_FAILURE() << form << "<int" << std::numeric_limits<T>::digits + 1 << ">(" << a << ", " << b << ", " << s
                    << ") = " << got << ": " << why;
    }
  };
  const CoverAnswer invalid = CoverAnswer::error(absl::StatusCode::kInvalidArgument);
  for (std::int64_t a = kMin; a <= kMax; ++a) {
    PointWalk walk(a, s);  // at the point max(a, b - 1) when [a, b) is judged, at max(a, b) for [a, b]
    CoverAnswer closed_before;  // the answer for [a, b - 1], to be compared with the one for [a, b)
    bool have_before = false;
    for (std::int64_t b = kMin; b <= kMax; ++b) {
      const auto ta = static_cast<T>(a);
      const auto tb = static_cast<T>(b);
      const CoverAnswer walked = CoverAnswer::chunks(walk.first, walk.chunk);
      // Half-open [a, b): nothing for b == a (C4), an error for b < a (C4).
      const CoverAnswer h = answer<T>(lwc::cover<T>(ta, tb, size));
      ++t.half_open;
      if (!(h == (b < a ? invalid : b == a ? CoverAnswer::none() : walked))) fail("cover", a, b, h, "wrong answer");
      if (have_before && !(h == closed_before)) fail("cover", a, b, h, "differs from cover_closed(a, b - 1) (C5)");
      if (checkers) {
        if (absl::Status c = lwc::contracts::check_cover(a, b, s, h); !c.ok()) fail("cover", a, b, h, c.ToString());
      }
      // Closed [a, b]: the walk now includes b.
      if (b > a) walk.step();
      const CoverAnswer c = answer<T>(lwc::cover_closed<T>(ta, tb, size));
      ++t.closed;
      const CoverAnswer want = b < a - 1    ? invalid
                               : b == a - 1 ? CoverAnswer::none()
                                            : CoverAnswer::chunks(walk.first, walk.chunk);
      if (!(c == want)) fail("cover_closed", a, b, c, "wrong answer");
      if (checkers) {
        if (absl::Status v = lwc::contracts::check_cover_closed(a, b, s, c); !v.ok()) {
          fail("cover_closed", a, b, c, v.ToString());
        }
      }
      closed_before = c;
      have_before = true;
    }
  }
  return t;
}

// ---------------------------------------------------------------------------------------------------
// int8: every input.

// Every (a, b) in int8 x int8, half-open and closed, at the sizes where the arithmetic differs: 1 (every
// point its own chunk), 2 and 64 (shift and mask), 3, 7 and 100 (reciprocal), 127 (the largest, with the
// reciprocal's tightest error bound): 2 x 65,536 x 7 answers, each compared with the point walk. Quick
// enough for every `./lwc test`; every size is the slow test's.
TEST(ExhaustiveInt8, C1_C2_C3_C4_C5_C10_EveryRangeSevenSizes) {
  Tally t;
  for (const std::int64_t s : {1, 2, 3, 7, 64, 100, 127}) t += sweep_ranges<std::int8_t>(s, false);
  EXPECT_EQ(t.failures, 0u);
  EXPECT_EQ(t.half_open, 65536u * 7u);
  for (const char* clause : {"C1", "C2", "C3", "C4", "C10"}) report(clause, t.half_open + t.closed);
  report("C5", t.closed);
}

// Every (a, b) in int8 x int8 and every size 1..127, half-open and closed: 2 x 65,536 x 127 answers,
// each compared with the point walk and judged by the int128 checkers of lwc.contracts.cover, which
// decide C1-C4 and C10 from the definitions (chunk intervals against the range), not from a floor.
TEST(ExhaustiveInt8Slow, C1_C2_C3_C4_C5_C10_EveryRangeEverySize) {
  Tally t;
  for (std::int64_t s = 1; s <= 127; ++s) t += sweep_ranges<std::int8_t>(s, true);
  EXPECT_EQ(t.failures, 0u);
  EXPECT_EQ(t.half_open, 65536u * 127u);
  for (const char* clause : {"C1", "C2", "C3", "C4", "C10"}) report(clause, t.half_open + t.closed);
  report("C5", t.closed);
}

// Every span [f, l] in int8 (32,896): the count is l - f + 1 in an unsigned 8-bit word, OutOfRange for
// the one span of 2^8 chunks, as [INT64_MIN, INT64_MAX] is for int64 (check_count decides every other
// span in uint128).
TEST(ExhaustiveInt8, C6_EverySpan) {
  std::uint64_t spans = 0;
  for (int f = -128; f <= 127; ++f) {
    for (int l = f; l <= 127; ++l, ++spans) {
      const auto span = *BasicChunkSpan<std::int8_t>::create(static_cast<std::int8_t>(f), static_cast<std::int8_t>(l));
      const absl::StatusOr<std::uint8_t> n = lwc::count(span);
      if (l - f + 1 == 256) {
        EXPECT_EQ(n.status().code(), absl::StatusCode::kOutOfRange) << f << " " << l;
      } else {
        const absl::StatusOr<std::uint64_t> wide = n.ok() ? absl::StatusOr<std::uint64_t>(*n) : n.status();
        const absl::Status c = lwc::contracts::check_count(f, l, wide);
        EXPECT_TRUE(c.ok()) << c;
      }
    }
  }
  EXPECT_EQ(spans, 256u * 257u / 2u);
  report("C6", spans);
}

// One enumeration of `span` under `budget` with a visitor stopping at its stop_after-th call (0: never),
// a bool visitor returning false or a Status visitor returning kStop.
const absl::Status& stop_status() {
  static const absl::Status* const kStop = new absl::Status(absl::CancelledError("stop"));
  return *kStop;
}

template <typename T, typename Visit>
absl::Status enumerate(BasicChunkSpan<T> span, std::make_unsigned_t<T> budget, std::uint64_t stop_after,
                       bool status_visitor, Visit&& visit) {
  std::uint64_t calls = 0;
  if (status_visitor) {
    return lwc::for_each_chunk(span, *lwc::ChunkBudget::create(budget), [&](T c) {
      visit(c);
      return ++calls == stop_after ? stop_status() : absl::OkStatus();
    });
  }
  return lwc::for_each_chunk(span, *lwc::ChunkBudget::create(budget), [&](T c) {
    visit(c);
    return ++calls != stop_after;
  });
}

// The enumeration judged by check_enumeration (C7, C8), which derives the i-th chunk from i by
// mixed-radix digits in uint128.
template <typename T>
absl::Status enumerate_and_check(BasicChunkSpan<T> span, std::make_unsigned_t<T> budget, std::uint64_t stop_after,
                                 bool status_visitor) {
  std::vector<lwc::Point3> visited;
  const absl::Status status =
      enumerate(span, budget, stop_after, status_visitor, [&](T c) { visited.push_back({c, 0, 0}); });
  return lwc::contracts::check_enumeration(lwc::Point3{span.first(), 0, 0}, lwc::Point3{span.last(), 0, 0}, budget,
                                           status, visited, stop_after,
                                           status_visitor ? stop_status() : absl::OkStatus());
}

// The enumeration judged on the fly, in int64, without storing the visits: the i-th visit must be
// first + i; then C7 (refused before any visit iff the count exceeds the budget) and C8 (every chunk,
// or the first stop_after, and the right status). Cheap enough for every budget and every stop.
template <typename T>
bool enumerates_right(BasicChunkSpan<T> span, std::make_unsigned_t<T> budget, std::uint64_t stop_after,
                      bool status_visitor) {
  const std::int64_t n = std::int64_t{span.last()} - span.first() + 1;
  std::int64_t next = span.first();  // NOLINT(bugprone-signed-char-misuse): a chunk index of T, widened
  bool in_order = true;
  const absl::Status status = enumerate(span, budget, stop_after, status_visitor, [&](T c) { in_order &= c == next++; });
  const auto visits = static_cast<std::uint64_t>(next - span.first());
  if (n > std::int64_t{budget}) return status.code() == absl::StatusCode::kResourceExhausted && visits == 0;
  const bool stopped = stop_after != 0 && stop_after <= static_cast<std::uint64_t>(n);
  return in_order && visits == (stopped ? stop_after : static_cast<std::uint64_t>(n)) &&
         status == (stopped && status_visitor ? stop_status() : absl::OkStatus());
}

// Every span of T with first in [f_first, f_last]: under the budgets on both sides of its count
// (n - 1, n; with `thorough` also 0, n + 1 and the largest) with a visitor that never stops, and under
// budget n with bool and Status visitors stopping at their first and (n - 1)-th call (with `thorough`
// also the second and n-th). Each run judged on the fly; with `thorough`, also by check_enumeration.
// Returns the number of failures; counts the runs.
template <typename T>
std::uint64_t enumerate_every_span(std::int64_t f_first, std::int64_t f_last, bool thorough, std::uint64_t& runs) {
  using Unsigned = std::make_unsigned_t<T>;
  constexpr std::int64_t kMax = std::numeric_limits<T>::max();
  constexpr std::int64_t kBudgetMax = std::numeric_limits<Unsigned>::max();
  std::uint64_t failures = 0;
  for (std::int64_t f = f_first; f <= f_last; ++f) {
    for (std::int64_t l = f; l <= kMax; ++l) {
      const auto span = *BasicChunkSpan<T>::create(static_cast<T>(f), static_cast<T>(l));
      const std::int64_t n = l - f + 1;
      const auto run = [&](std::int64_t budget, std::int64_t stop_after, bool status_visitor) {
        if (budget < 0 || budget > kBudgetMax || stop_after < 0) return;
        ++runs;
        const auto b = static_cast<Unsigned>(budget);
        const auto k = static_cast<std::uint64_t>(stop_after);
        absl::Status c = enumerates_right(span, b, k, status_visitor)
                             ? absl::OkStatus()
                             : absl::InternalError("judged on the fly: wrong visits or status");
        if (c.ok() && thorough) c = enumerate_and_check(span, b, k, status_visitor);
        if (!c.ok() && ++failures <= 5) {
          ADD_FAILURE() << "for_each_chunk([" << f << ", " << l << "], budget " << budget << ", stop " << stop_after
                        << (status_visitor ? ", Status visitor): " : ", bool visitor): ") << c;
        }
      };
      for (const std::int64_t budget : {n - 1, n}) run(budget, 0, false);
      for (const std::int64_t stop : {std::int64_t{1}, n - 1}) {
        if (stop >= 1) {
          run(n, stop, false);
          run(n, stop, true);
        }
      }
      if (!thorough) continue;
      for (const std::int64_t budget : {std::int64_t{0}, n + 1, kBudgetMax}) run(budget, 0, false);
      for (const std::int64_t stop : {std::int64_t{2}, n}) {
        run(n, stop, false);
        run(n, stop, true);
      }
    }
  }
  return failures;
}

// Every span in int8, under budgets n - 1 and n, stopping at the first and (n - 1)-th call: C7 (all or
// nothing) and C8 (each chunk once, ascending, never stepping past 127), judged on the fly.
TEST(ExhaustiveInt8, C7_C8_EverySpan) {
  std::uint64_t runs = 0;
  EXPECT_EQ(enumerate_every_span<std::int8_t>(-128, 127, false, runs), 0u);
  report("C7", runs);
  report("C8", runs);
}

// Every span in int8 under EVERY budget 0..255 (never stopping), and under budget n stopping at EVERY
// call k = 1..n with both visitor kinds, judged on the fly; and the budgets 0, n - 1, n, n + 1, 255 and
// stops 1, 2, n - 1, n, each judged by check_enumeration too.
TEST(ExhaustiveInt8Slow, C7_C8_EverySpanEveryBudgetEveryStop) {
  std::uint64_t runs = 0;
  std::uint64_t failures = enumerate_every_span<std::int8_t>(-128, 127, true, runs);
  for (int f = -128; f <= 127; ++f) {
    for (int l = f; l <= 127; ++l) {
      const auto span = *BasicChunkSpan<std::int8_t>::create(static_cast<std::int8_t>(f), static_cast<std::int8_t>(l));
      const int n = l - f + 1;
      for (int budget = 0; budget <= 255; ++budget, ++runs) {
        failures += enumerates_right(span, static_cast<std::uint8_t>(budget), 0, false) ? 0 : 1;
      }
      for (int k = 1; k <= n && n <= 255; ++k, runs += 2) {
        failures += enumerates_right(span, static_cast<std::uint8_t>(n), static_cast<std::uint64_t>(k), false) ? 0 : 1;
        failures += enumerates_right(span, static_cast<std::uint8_t>(n), static_cast<std::uint64_t>(k), true) ? 0 : 1;
      }
    }
  }
  EXPECT_EQ(failures, 0u);
  report("C7", runs);
  report("C8", runs);
}

// ---------------------------------------------------------------------------------------------------
// int16: every input of chosen dimensions (every range at every size would be about 2^47 answers).

// The answer for a range that must have chunks is the span [first, last].
template <typename T>
bool is_span(const CoverResult<T>& r, std::int64_t first, std::int64_t last) {
  return r.ok() && r->has_value() && (*r)->first() == first && (*r)->last() == last;
}
template <typename T>
bool is_none(const CoverResult<T>& r) {
  return r.ok() && !r->has_value();
}

// Every range with first point a that is not reversed, at size s: [a, b) for b in [a, MAX] and [a, b]
// for b in [a - 1, MAX], each compared with the point walk, and each closed answer for [a, b] with the
// half-open one for [a, b + 1) (C5). The lean form of sweep_ranges, for the int16 sweeps: returns the
// failures and counts the answers.
template <typename T>
std::uint64_t sweep_from(std::int64_t s, std::int64_t a, std::uint64_t& answers) {
  constexpr std::int64_t kMin = std::numeric_limits<T>::min();
  constexpr std::int64_t kMax = std::numeric_limits<T>::max();
  const auto size = *BasicChunkSize<T>::create(static_cast<T>(s));
  const auto ta = static_cast<T>(a);
  std::uint64_t failures = 0;
  const auto fail = [&](const char* form, std::int64_t b) {
    if (++failures <= 5) ADD_FAILURE() << form << "(" << a << ", " << b << ", " << s << ") at " << 8 * sizeof(T) << " bits";
  };
  if (a > kMin && !is_none(lwc::cover_closed<T>(ta, static_cast<T>(a - 1), size))) fail("cover_closed", a - 1);
  if (!is_none(lwc::cover<T>(ta, ta, size))) fail("cover", a);
  answers += a > kMin ? 2 : 1;
  PointWalk walk(a, s);
  for (std::int64_t b = a; b <= kMax; ++b) {
    const CoverResult<T> c = lwc::cover_closed<T>(ta, static_cast<T>(b), size);
    if (!is_span(c, walk.first, walk.chunk)) fail("cover_closed", b);
    if (b < kMax) {
      const CoverResult<T> h = lwc::cover<T>(ta, static_cast<T>(b + 1), size);
      // Equal to the walk, as the closed answer for [a, b] just was: C5 too.
      if (!is_span(h, walk.first, walk.chunk)) fail("cover", b + 1);
      walk.step();
    }
  }
  answers += static_cast<std::uint64_t>(2 * (kMax - a) + 1);
  return failures;
}

// Every range [a, b) and [a, b] with a, b in int16 that is not reversed, at each size of `sizes`, the rows
// a split across the cores. Returns the failures; counts the answers.
std::uint64_t sweep_int16(std::span<const std::int64_t> sizes, std::uint64_t& answers) {
  std::atomic<std::uint64_t> counted{0};
  std::uint64_t failures = 0;
  for (const std::int64_t s : sizes) {
    const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    failures += parallel(threads, [&](std::uint64_t t, std::uint64_t) {
      std::uint64_t bad = 0;
      std::uint64_t mine = 0;
      // Interleaved rows balance the triangle b >= a across the threads.
      for (std::int64_t a = -32768 + static_cast<std::int64_t>(t); a <= 32767; a += threads) bad += sweep_from<std::int16_t>(s, a, mine);
      counted += mine;
      return bad;
    });
  }
  answers += counted;
  return failures;
}

TEST(ExhaustiveInt16, C1_C2_C3_C4_C5_C10_EveryRange) {
  std::uint64_t answers = 0;
  const std::int64_t sizes[] = {3};
  EXPECT_EQ(sweep_int16(sizes, answers), 0u);
  for (const char* clause : {"C1", "C2", "C3", "C4", "C5", "C10"}) report(clause, answers);
}

// Every span of int16 that ends at the greatest value (65,536 spans), under budgets n - 1 and n and
// stopping at the first and (n - 1)-th call, and every span that starts at the least value under budget
// n - 1 and stopping at the first call: judged on the fly, C7 and C8's walk up to 32767 without stepping
// past it (every span ending there is walked in full, twice).
TEST(ExhaustiveInt16, C7_C8_EverySpanAtAnEnd) {
  std::uint64_t runs = 0;
  std::uint64_t failures = 0;
  const auto run = [&](std::int64_t f, std::int64_t l, bool walk) {
    const auto span = *BasicChunkSpan<std::int16_t>::create(static_cast<std::int16_t>(f), static_cast<std::int16_t>(l));
    const std::int64_t n = l - f + 1;
    const auto judge = [&](std::int64_t budget, std::int64_t stop, bool status_visitor) {
      if (budget < 0 || budget > 65535 || stop < 0) return;
      ++runs;
      if (!enumerates_right(span, static_cast<std::uint16_t>(budget), static_cast<std::uint64_t>(stop), status_visitor) &&
          ++failures <= 5) {
        ADD_FAILURE() << "for_each_chunk([" << f << ", " << l << "], budget " << budget << ", stop " << stop << ")";
      }
    };
    judge(n - 1, 0, false);
    judge(n, 1, true);
    if (walk) {
      judge(n, 0, false);
      judge(n, n - 1, false);
    }
  };
  for (std::int64_t f = -32768; f <= 32767; ++f) run(f, 32767, true);
  for (std::int64_t l = -32768; l < 32767; ++l) run(-32768, l, false);
  EXPECT_EQ(failures, 0u);
  report("C7", runs);
  report("C8", runs);
}

// Every span [f, l] in int16 (2,147,516,416): the count is l - f + 1 in an unsigned 16-bit word,
// OutOfRange for the one span of 2^16 chunks. About 40 s optimised on 2 cores: disabled to keep the
// audit within its time budget (the int8 run above covers every span of the same code); run it with
// --gtest_also_run_disabled_tests --gtest_filter='*C6_EverySpan'.
TEST(ExhaustiveInt16, DISABLED_C6_EverySpan) {
  const std::uint64_t failures = parallel(65536, [](std::uint64_t begin, std::uint64_t end) {
    std::uint64_t bad = 0;
    for (std::uint64_t i = begin; i < end; ++i) {
      const std::int64_t f = -32768 + static_cast<std::int64_t>(i);
      for (std::int64_t l = f; l <= 32767; ++l) {
        const auto span = *BasicChunkSpan<std::int16_t>::create(static_cast<std::int16_t>(f), static_cast<std::int16_t>(l));
        const absl::StatusOr<std::uint16_t> n = lwc::count(span);
        const std::int64_t want = l - f + 1;
        const bool ok = want == 65536 ? n.status().code() == absl::StatusCode::kOutOfRange : n.ok() && *n == want;
        if (!ok && ++bad <= 5) ADD_FAILURE() << "count([" << f << ", " << l << "])";
      }
    }
    return bad;
  });
  EXPECT_EQ(failures, 0u);
  report("C6", 65536ull * 65537ull / 2ull);
}

}  // namespace
