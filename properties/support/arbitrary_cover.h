// SPDX-License-Identifier: MIT
// File: properties/support/arbitrary_cover.h
//
// RapidCheck generators for lwc.cover, on the extreme-biased values of arbitrary_decompose.h: ranges whose
// ends sit on the int64 extremes, on or next to multiples of the size, or a few points apart; closed
// ranges reaching INT64_MAX; empty and reversed ranges; chunk spans and boxes small enough to enumerate,
// next to ones no budget allows; and budgets at, one under and one over a count. Every value is computed
// in int128 and clamped, so a generator never overflows (RapidCheck would silently discard the case).
#ifndef LWC_PROPERTIES_SUPPORT_ARBITRARY_COVER_H_
#define LWC_PROPERTIES_SUPPORT_ARBITRARY_COVER_H_

#include <rapidcheck.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <ostream>
#include <utility>

#include "absl/numeric/int128.h"
#include "support/arbitrary_decompose.h"

namespace lwc::testing {

inline std::int64_t clamp_to_int64(absl::int128 v) {
  return static_cast<std::int64_t>(std::clamp<absl::int128>(v, kInt64Min, kInt64Max));
}

// A range [min, max] or [min, max): the generator does not say which; each property reads it one way.
struct RangeCase {
  std::int64_t min;
  std::int64_t max;
  std::int64_t size;
};

inline std::ostream& operator<<(std::ostream& os, const RangeCase& c) {
  return os << "{min = " << c.min << ", max = " << c.max << ", size = " << c.size << "}";
}

// An end for a range starting at `from`: a few points away, a few chunks away (±2 around the chunk
// boundary), on or next to any multiple of the size, an int64 extreme, or anything.
inline rc::Gen<std::int64_t> other_end(std::int64_t from, std::int64_t size) {
  return rc::gen::weightedOneOf<std::int64_t>({
      {3, rc::gen::map(rc::gen::inRange<std::int64_t>(-3, 40),
                       [from](std::int64_t d) { return clamp_to_int64(absl::int128(from) + d); })},
      {3, rc::gen::map(
              rc::gen::pair(rc::gen::inRange<std::int64_t>(-2, 4), rc::gen::inRange<std::int64_t>(-2, 3)),
              [from, size](std::pair<std::int64_t, std::int64_t> kd) {
                // The boundary of the chunk k steps from from's chunk, then d points off it.
                const absl::int128 s = size;
                const absl::int128 f = from;
                const absl::int128 floor = (f >= 0 ? f / s : -((-f + s - 1) / s));
                return clamp_to_int64((floor + kd.first) * s + kd.second);
              })},
      {2, near_multiple_of(size)},
      {1, rc::gen::element(kInt64Min, kInt64Min + 1, kInt64Max, kInt64Max - 1)},
      {2, any_int64()},
  });
}

// (min, max, size) with any relation between min and max: ordered, equal, or reversed.
inline rc::Gen<RangeCase> any_range_case() {
  return rc::gen::mapcat(positive_size(), [](std::int64_t size) {
    return rc::gen::mapcat(
        rc::gen::weightedOneOf<std::int64_t>({{2, any_int64()}, {1, near_multiple_of(size)}}),
        [size](std::int64_t min) {
          return rc::gen::map(other_end(min, size), [size, min](std::int64_t max) {
            return RangeCase{min, max, size};
          });
        });
  });
}

// (min, max, size) with min < max: a non-empty half-open range, or a closed one of at least two points.
inline rc::Gen<RangeCase> ordered_range_case() {
  return rc::gen::map(any_range_case(), [](RangeCase c) {
    if (c.max < c.min) std::swap(c.min, c.max);
    if (c.max == c.min) {
      if (c.max < kInt64Max) {
        ++c.max;
      } else {
        --c.min;
      }
    }
    return c;
  });
}

// A short range (at most 300 points) anywhere, including against either end of int64, at a small size
// (so that it spans several chunks) or any size: small enough to check point by point.
inline rc::Gen<RangeCase> short_range_case() {
  return rc::gen::map(rc::gen::tuple(rc::gen::weightedOneOf<std::int64_t>(
                                         {{3, rc::gen::inRange<std::int64_t>(1, 40)}, {1, positive_size()}}),
                                     any_int64(), rc::gen::inRange<std::int64_t>(0, 301)),
                      [](std::tuple<std::int64_t, std::int64_t, std::int64_t> t) {
                        const auto [size, start, length] = t;
                        const std::int64_t min =
                            clamp_to_int64(std::min(absl::int128(start), absl::int128(kInt64Max) - length));
                        return RangeCase{min, static_cast<std::int64_t>(absl::int128(min) + length), size};
                      });
}

// A chunk span [first, last]: mostly 1 to 7 chunks anywhere (so it can be enumerated), sometimes up to
// the whole int64 domain.
struct SpanCase {
  std::int64_t first;
  std::int64_t last;
};

inline std::ostream& operator<<(std::ostream& os, const SpanCase& c) {
  return os << "[" << c.first << ", " << c.last << "]";
}

inline rc::Gen<SpanCase> small_span_case() {
  return rc::gen::map(rc::gen::pair(any_int64(), rc::gen::inRange<std::int64_t>(1, 8)),
                      [](std::pair<std::int64_t, std::int64_t> p) {
                        const std::int64_t first = clamp_to_int64(
                            std::min(absl::int128(p.first), absl::int128(kInt64Max) - p.second + 1));
                        return SpanCase{first, static_cast<std::int64_t>(absl::int128(first) + p.second - 1)};
                      });
}

inline rc::Gen<SpanCase> any_span_case() {
  return rc::gen::weightedOneOf<SpanCase>({
      {4, small_span_case()},
      {1, rc::gen::element(SpanCase{kInt64Min, kInt64Max}, SpanCase{kInt64Min + 1, kInt64Max},
                           SpanCase{kInt64Min, kInt64Max - 1}, SpanCase{kInt64Min, -1},
                           SpanCase{0, kInt64Max}, SpanCase{-1, 0}, SpanCase{0, std::int64_t{1} << 32})},
      {2, rc::gen::map(rc::gen::pair(any_int64(), any_int64()),
                       [](std::pair<std::int64_t, std::int64_t> p) {
                         return SpanCase{std::min(p.first, p.second), std::max(p.first, p.second)};
                       })},
  });
}

// A budget for n chunks (n at most 2^64): 0, n - 1, n, n + 1, UINT64_MAX, or small.
inline rc::Gen<std::uint64_t> budget_for(absl::uint128 n) {
  const absl::uint128 limit = std::numeric_limits<std::uint64_t>::max();
  const auto at = [limit](absl::uint128 v) { return static_cast<std::uint64_t>(std::min(v, limit)); };
  return rc::gen::weightedOneOf<std::uint64_t>({
      {3, rc::gen::element(at(n - 1), at(n), at(n + 1))},
      {1, rc::gen::element(std::uint64_t{0}, std::numeric_limits<std::uint64_t>::max())},
      {1, rc::gen::inRange<std::uint64_t>(0, 400)},
  });
}

}  // namespace lwc::testing

#endif  // LWC_PROPERTIES_SUPPORT_ARBITRARY_COVER_H_
