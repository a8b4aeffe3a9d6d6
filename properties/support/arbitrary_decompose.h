// SPDX-License-Identifier: MIT
// File: properties/support/arbitrary_decompose.h
//
// RapidCheck generators that hit the extremes on purpose. RapidCheck's defaults never do: arbitrary<int64>
// draws about size * 64 / 100 random bits (INT64_MIN has probability 2^-64) and arbitrary<double> never
// yields NaN, infinities, -0.0, subnormals or anything at or beyond 2^63. Every other contract's generators
// build on these.
//
// Each generator mixes, by weight: named extremes, values within a few units of a structural boundary
// (multiples of the size, powers of two, the ends of int64), small values, and raw random bits.
#ifndef LWC_PROPERTIES_SUPPORT_ARBITRARY_DECOMPOSE_H_
#define LWC_PROPERTIES_SUPPORT_ARBITRARY_DECOMPOSE_H_

#include <rapidcheck.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/numeric/int128.h"

namespace lwc::testing {

inline constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();
inline constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();

// Every bit of a 64-bit word is random (no size scaling).
inline rc::Gen<std::uint64_t> raw_bits() { return rc::gen::resize(100, rc::gen::arbitrary<std::uint64_t>()); }

// The int64 extremes and their neighbours, zero and +-1, and 2^k - 1, 2^k, 2^k + 1 for every k.
inline const std::vector<std::int64_t>& int64_landmarks() {
  static const std::vector<std::int64_t> landmarks = [] {
    std::vector<std::int64_t> v = {kInt64Min,     kInt64Min + 1, kInt64Min + 2, kInt64Max, kInt64Max - 1,
                                   kInt64Max - 2, 0,             1,             -1,        2,
                                   -2,            999,           1000,          1001,      -999,
                                   -1000,         -1001,         4096,          -4096};
    for (int k = 1; k < 63; ++k) {
      const std::int64_t p = std::int64_t{1} << k;
      for (const std::int64_t d : {-1, 0, 1}) {
        v.push_back(p + d);
        v.push_back(-p - d);
      }
    }
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
  }();
  return landmarks;
}

// Any int64, extremes favoured.
inline rc::Gen<std::int64_t> any_int64() {
  return rc::gen::weightedOneOf<std::int64_t>({
      {3, rc::gen::elementOf(int64_landmarks())},
      {2, rc::gen::inRange<std::int64_t>(-5000, 5001)},
      {4, rc::gen::map(raw_bits(), [](std::uint64_t b) { return std::bit_cast<std::int64_t>(b); })},
      {1, rc::gen::arbitrary<std::int64_t>()},
  });
}

// A valid chunk size: 1, INT64_MAX and its neighbours, powers of two and their neighbours, the
// truncating-division example's sizes (3, 16, 1000), small and random positive values.
inline rc::Gen<std::int64_t> positive_size() {
  return rc::gen::weightedOneOf<std::int64_t>({
      {3, rc::gen::element<std::int64_t>(1, 2, 3, 16, 1000, kInt64Max, kInt64Max - 1, kInt64Max / 2,
                                         kInt64Max / 2 + 1, kInt64Max / 2 + 2, std::int64_t{1} << 62,
                                         (std::int64_t{1} << 62) + 1, (std::int64_t{1} << 62) - 1)},
      {2, rc::gen::map(rc::gen::inRange(0, 63), [](int k) { return std::int64_t{1} << k; })},
      {2, rc::gen::inRange<std::int64_t>(1, 5000)},
      {3, rc::gen::map(raw_bits(), [](std::uint64_t b) {
         const auto v = static_cast<std::int64_t>(b >> 1);  // [0, INT64_MAX]
         return v == 0 ? std::int64_t{1} : v;
       })},
  });
}

// Any int64 as a requested size, valid or not (for size validation).
inline rc::Gen<std::int64_t> any_size() {
  return rc::gen::weightedOneOf<std::int64_t>({
      {3, positive_size()},
      {1, rc::gen::element<std::int64_t>(0, -1, -2, kInt64Min, kInt64Min + 1, -1000)},
      {2, any_int64()},
  });
}

// A value within `spread` of some multiple of `size` that fits int64 (computed in int128: the generator
// itself must never overflow, or RapidCheck discards cases silently).
inline rc::Gen<std::int64_t> near_multiple_of(std::int64_t size, std::int64_t spread = 2) {
  const std::int64_t max_k = kInt64Max / size;
  const std::int64_t min_k = kInt64Min / size;
  return rc::gen::map(
      rc::gen::pair(rc::gen::weightedOneOf<std::int64_t>({
                        {1, rc::gen::element(min_k, min_k + 1, max_k, max_k - 1, std::int64_t{0},
                                             std::int64_t{-1}, std::int64_t{1})},
                        {2, rc::gen::inRange(min_k, max_k == kInt64Max ? max_k : max_k + 1)},
                    }),
                    rc::gen::inRange<std::int64_t>(-spread, spread + 1)),
      [size](std::pair<std::int64_t, std::int64_t> kd) {
        const absl::int128 v = absl::int128(kd.first) * size + kd.second;
        return static_cast<std::int64_t>(std::clamp<absl::int128>(v, kInt64Min, kInt64Max));
      });
}

struct SplitCase {
  std::int64_t x;
  std::int64_t size;
};

inline std::ostream& operator<<(std::ostream& os, const SplitCase& c) {
  return os << "{x = " << c.x << ", size = " << c.size << "}";
}

// (x, size): x independent of the size, or within a few units of a multiple of it.
inline rc::Gen<SplitCase> split_case() {
  return rc::gen::mapcat(positive_size(), [](std::int64_t size) {
    return rc::gen::map(rc::gen::weightedOneOf<std::int64_t>({{1, any_int64()}, {1, near_multiple_of(size)}}),
                        [size](std::int64_t x) { return SplitCase{x, size}; });
  });
}

// The named doubles: NaN (quiet, signalling, with payloads and sign), +-inf, +-0.0, the subnormal and
// normal limits, DBL_MAX, 2^52, 2^53, 2^63, 2^64 and the next doubles on both sides of each, and a few
// fractions that are not dyadic.
inline const std::vector<double>& double_landmarks() {
  static const std::vector<double> landmarks = [] {
    using L = std::numeric_limits<double>;
    std::vector<double> base = {0.0,      L::denorm_min(), L::min(), L::max(), 1.0,  0.5,
                                0.1,      1.0 / 3.0,       3.0,      16.0,     1000.0, 1e-300,
                                1e300,    0x1p52,          0x1p53,   0x1p62,   0x1p63, 0x1p64,
                                0x1p1023, L::epsilon()};
    std::vector<double> v;
    for (const double b : base) {
      for (const double s : {b, -b}) {
        v.push_back(s);
        v.push_back(std::nextafter(s, L::infinity()));
        v.push_back(std::nextafter(s, -L::infinity()));
      }
    }
    v.push_back(L::infinity());
    v.push_back(-L::infinity());
    v.push_back(L::quiet_NaN());
    v.push_back(-L::quiet_NaN());
    v.push_back(L::signaling_NaN());
    v.push_back(std::bit_cast<double>(std::uint64_t{0x7ff0000000000001}));  // NaN, smallest payload
    v.push_back(std::bit_cast<double>(std::uint64_t{0xfff8000000000abc}));  // negative NaN, payload
    return v;
  }();
  return landmarks;
}

inline rc::Gen<double> raw_double() {
  return rc::gen::map(raw_bits(), [](std::uint64_t b) { return std::bit_cast<double>(b); });
}

// Any double: landmarks, every bit pattern, ordinary magnitudes, and values a few ulps from an integer.
inline rc::Gen<double> any_double() {
  return rc::gen::weightedOneOf<double>({
      {3, rc::gen::elementOf(double_landmarks())},
      {3, raw_double()},
      {2, rc::gen::map(rc::gen::pair(rc::gen::inRange(-100000, 100001), rc::gen::inRange(-3, 4)),
                       [](std::pair<int, int> p) {
                         double v = p.first / 8.0;
                         for (int i = 0; i < std::abs(p.second); ++i) {
                           v = std::nextafter(v, p.second > 0 ? 1e308 : -1e308);
                         }
                         return v;
                       })},
      {1, rc::gen::arbitrary<double>()},
  });
}

// A valid (finite, positive) cell size: powers of two, non-dyadic sizes (0.1, 3), the smallest subnormal,
// DBL_MAX, and random positive finite bit patterns.
inline rc::Gen<double> positive_cell_size() {
  return rc::gen::weightedOneOf<double>({
      {3, rc::gen::element(1.0, 2.0, 16.0, 0.5, 0.1, 3.0, 1000.0, 1e-300, 1e300,
                           std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::max(),
                           std::nextafter(1.0, 2.0), std::nextafter(1.0, 0.0))},
      {2, rc::gen::map(raw_bits(), [](std::uint64_t b) {
         const double d = std::fabs(std::bit_cast<double>(b));
         return std::isfinite(d) && d > 0 ? d : 1.0;
       })},
  });
}

// Any cell size, valid or not (0, -0.0, negatives, NaN, infinities).
inline rc::Gen<double> any_cell_size() {
  return rc::gen::weightedOneOf<double>({{4, positive_cell_size()}, {1, any_double()}});
}

struct CellCase {
  double v;
  double h;
};

inline std::ostream& operator<<(std::ostream& os, const CellCase& c) {
  return os << std::hexfloat << "{v = " << c.v << ", h = " << c.h << "}" << std::defaultfloat;
}

// (v, h) with v independent of h, or a few ulps from k * h for a k near a cell boundary, or near the
// ends of the int64 cell range.
inline rc::Gen<CellCase> cell_case() {
  return rc::gen::mapcat(any_cell_size(), [](double h) {
    const auto near_boundary = rc::gen::map(
        rc::gen::pair(rc::gen::weightedOneOf<double>({
                          {2, rc::gen::map(rc::gen::inRange(-1000, 1001), [](int k) { return double(k); })},
                          {1, rc::gen::element(0x1p53, -0x1p53, 0x1p63, -0x1p63, 0x1p62, -0x1p62, 0x1p52)},
                      }),
                      rc::gen::inRange(-3, 4)),
        [h](std::pair<double, int> kd) {
          double v = kd.first * h;
          for (int i = 0; i < std::abs(kd.second); ++i) {
            v = std::nextafter(v, kd.second > 0 ? std::numeric_limits<double>::infinity()
                                                : -std::numeric_limits<double>::infinity());
          }
          return v;
        });
    return rc::gen::map(rc::gen::weightedOneOf<double>({{2, any_double()}, {2, near_boundary}}),
                        [h](double v) { return CellCase{v, h}; });
  });
}

}  // namespace lwc::testing

#endif  // LWC_PROPERTIES_SUPPORT_ARBITRARY_DECOMPOSE_H_
