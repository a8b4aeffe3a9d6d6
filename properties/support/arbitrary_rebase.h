// SPDX-License-Identifier: MIT
// File: properties/support/arbitrary_rebase.h
//
// RapidCheck generators for lwc.rebase, built on the extreme-biased generators of arbitrary_decompose.h.
// They aim at the places a floating origin breaks: cells at both ends of int64 (where cell - origin
// overflows), offsets a few ulps from 0 and from the cell size, render values exactly on, or a hair off,
// the midpoint between two floats, and positions on the bubble's edge.
#ifndef LWC_PROPERTIES_SUPPORT_ARBITRARY_REBASE_H_
#define LWC_PROPERTIES_SUPPORT_ARBITRARY_REBASE_H_

#include <rapidcheck.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <ostream>
#include <utility>

#include "absl/numeric/int128.h"
#include "support/arbitrary_decompose.h"

import lwc.rebase;
import lwc.contracts.rebase;

namespace lwc::testing {

// A cell size: the floating-origin examples' (1024; 102400 cm), 1, odd sizes, 2^53 and its neighbours, random
// in [1, 2^53].
inline rc::Gen<std::int64_t> rebase_cell_size() {
  return rc::gen::weightedOneOf<std::int64_t>({
      {4, rc::gen::element<std::int64_t>(1, 2, 3, 16, 1000, 1024, 102400, std::int64_t{1} << 53,
                                         (std::int64_t{1} << 53) - 1, (std::int64_t{1} << 52) + 1)},
      {2, rc::gen::inRange<std::int64_t>(1, 5000)},
      {1, rc::gen::map(raw_bits(), [](std::uint64_t b) { return static_cast<std::int64_t>(b >> 11) + 1; })},
  });
}

// A render spec: cell size, world units per render unit (1, 100, 2^20 ...), and a bubble from 1 unit
// to 2^44.
inline rc::Gen<contracts::RenderSpec> render_spec() {
  return rc::gen::apply(
      [](std::int64_t size, std::int64_t d, std::int64_t bubble) { return contracts::RenderSpec{size, d, bubble}; },
      rebase_cell_size(),
      rc::gen::weightedOneOf<std::int64_t>({
          {4, rc::gen::just<std::int64_t>(1)},
          {3, rc::gen::element<std::int64_t>(100, 1000, 3, 1024, std::int64_t{1} << 20, (std::int64_t{1} << 20) - 1)},
          {1, rc::gen::inRange<std::int64_t>(1, (std::int64_t{1} << 20) + 1)},
      }),
      rc::gen::weightedOneOf<std::int64_t>({
          {3, rc::gen::element<std::int64_t>(std::int64_t{1} << 24, std::int64_t{1} << 44, (std::int64_t{1} << 44) - 1,
                                             std::int64_t{1} << 25, 1, 1000)},
          {2, rc::gen::inRange<std::int64_t>(1, (std::int64_t{1} << 44) + 1)},
      }));
}

// The next double from v toward `to`, `n` times.
inline double step_ulps(double v, int n) {
  for (int i = 0; i < std::abs(n); ++i) {
    v = std::nextafter(v, n > 0 ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity());
  }
  return v;
}

// A valid offset in [0, size): 0, the subnormals, the double just below size, halves, integers, and
// random doubles scaled into the cell.
inline rc::Gen<double> cell_offset(std::int64_t size) {
  const auto s = static_cast<double>(size);
  return rc::gen::map(
      rc::gen::weightedOneOf<double>({
          {3, rc::gen::element(0.0, std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::min(),
                               std::nextafter(s, 0.0), s / 2, 0.5, 1e-17, std::nextafter(s / 2, 0.0))},
          {2, rc::gen::map(rc::gen::inRange<std::int64_t>(0, size), [](std::int64_t v) { return static_cast<double>(v); })},
          {3, rc::gen::map(raw_bits(), [s](std::uint64_t b) {
             return std::ldexp(static_cast<double>(b >> 11), -53) * s;  // [0, s): a random fraction of the cell
           })},
          {1, rc::gen::map(raw_bits(), [](std::uint64_t b) { return std::fabs(std::bit_cast<double>(b)); })},
      }),
      [s](double v) { return std::isfinite(v) && v >= 0 && v < s ? v : std::fmod(std::isfinite(v) ? v : 0.0, s); });
}

// A raw (unnormalised) offset: anything, including NaN and infinities, a few ulps around multiples of the
// cell size (where normalisation carries), and the TOOLCHAIN traps -1e-17 and -denorm_min.
inline rc::Gen<double> raw_offset(std::int64_t size) {
  const auto s = static_cast<double>(size);
  return rc::gen::weightedOneOf<double>({
      {2, any_double()},
      {1, rc::gen::element(-1e-17, -std::numeric_limits<double>::denorm_min(), -0.0, -s, s, 0x1p63 * s, -0x1p63 * s,
                           0x1p64 * s, 0x1p67, -0x1p67)},
      {3, rc::gen::map(rc::gen::pair(rc::gen::inRange(-20, 21), rc::gen::inRange(-3, 4)),
                       [s](std::pair<int, int> kd) { return step_ulps(kd.first * s, kd.second); })},
      {2, rc::gen::map(cell_offset(size), [](double v) { return -v; })},
      // Large integers near a multiple of the size (the int128 path), remainders of either sign.
      {2, rc::gen::map(rc::gen::pair(rc::gen::inRange<std::int64_t>(-(std::int64_t{1} << 40), std::int64_t{1} << 40),
                                     rc::gen::inRange(-3, 4)),
                       [s](std::pair<std::int64_t, int> kd) {
                         return step_ulps(std::ldexp(static_cast<double>(kd.first), 30) * s + 0x1p53 * kd.second, 0);
                       })},
  });
}

// A cell, ends of int64 favoured.
inline rc::Gen<std::int64_t> any_cell() { return any_int64(); }

// A cell within `spread` of `near`, clamped to int64 (the generator itself never overflows).
inline rc::Gen<std::int64_t> cell_near(std::int64_t near, std::int64_t spread) {
  return rc::gen::map(rc::gen::inRange<std::int64_t>(-spread, spread + 1), [near](std::int64_t d) {
    return static_cast<std::int64_t>(std::clamp<absl::int128>(absl::int128(near) + d, kInt64Min, kInt64Max));
  });
}

template <std::size_t D>
inline rc::Gen<CellIndex<D>> cell_index(rc::Gen<std::int64_t> axis) {
  return rc::gen::map(rc::gen::container<std::array<std::int64_t, D>>(std::move(axis)),
                      [](const std::array<std::int64_t, D>& a) { return CellIndex<D>(a); });
}

// A normalised position with cells near `origin` (inside, at and just beyond the bubble), anywhere, or
// at the other end of int64.
template <std::size_t D>
inline rc::Gen<WorldPosition<D>> position_near(const contracts::RenderSpec& spec, const CellIndex<D>& origin) {
  const std::int64_t reach = spec.bubble_units / spec.cell_size + 2;
  return rc::gen::exec([spec, origin, reach] {
    WorldPosition<D> p;
    for (std::size_t a = 0; a < D; ++a) {
      p.cell[a] = *rc::gen::weightedOneOf<std::int64_t>({
          {6, cell_near(origin[a], std::min<std::int64_t>(reach, 1000))},
          {2, cell_near(origin[a], 1)},
          {1, rc::gen::map(rc::gen::element<std::int64_t>(-1, 0, 1), [near = origin[a], reach](std::int64_t sign) {  // by value: shrinking replays it later
             return static_cast<std::int64_t>(std::clamp<absl::int128>(absl::int128(near) + sign * reach, kInt64Min,
                                                                       kInt64Max));
           })},
          {1, any_cell()},
      });
      p.offset[a] = *cell_offset(spec.cell_size);
    }
    return p;
  });
}

// A position whose exact render value on each axis is the midpoint between two neighbouring floats, or
// a few doubles away from it: where rounding twice (double, then float) goes wrong.
template <std::size_t D>
inline rc::Gen<WorldPosition<D>> position_on_float_midpoint(const contracts::RenderSpec& spec,
                                                            const CellIndex<D>& origin) {
  return rc::gen::exec([spec, origin] {
    WorldPosition<D> p;
    for (std::size_t a = 0; a < D; ++a) {
      // A float y inside the bubble with at least one float above it, and the midpoint to that one.
      const auto d = static_cast<double>(spec.units_per_render_unit);
      const double limit = static_cast<double>(spec.bubble_units) / d;
      const double y = std::ldexp(static_cast<double>(*rc::gen::inRange<std::int64_t>(-(1 << 24), 1 << 24)),
                                  *rc::gen::inRange(-30, 30));
      const double clamped = std::clamp(y, -limit / 2, limit / 2);
      const auto fy = static_cast<float>(clamped);
      const double mid = (static_cast<double>(fy) +
                          static_cast<double>(std::nextafter(fy, std::numeric_limits<float>::infinity()))) / 2;
      const double target = step_ulps(mid * d, *rc::gen::inRange(-2, 3));  // mid * d: 45 bits, exact
      // cell - origin = floor(target / size), offset = the rest: exact for |target| < 2^53.
      const double s = static_cast<double>(spec.cell_size);
      const double k = std::floor(target / s);
      double offset = target - k * s;
      double cells = k;
      if (offset >= s) {
        offset -= s;
        cells += 1;
      }
      if (offset < 0) {
        offset += s;
        cells -= 1;
      }
      p.cell[a] = static_cast<std::int64_t>(std::clamp<absl::int128>(
          absl::int128(origin[a]) + static_cast<std::int64_t>(cells), kInt64Min, kInt64Max));
      // Half the time, nudge the offset by its own ulps: far below the total's ulp when the cell
      // difference is large, so the exact value sits a hair off the midpoint, where a double cannot
      // hold it and rounding twice picks the wrong float.
      if (*rc::gen::arbitrary<bool>()) offset = step_ulps(offset, *rc::gen::element(-2, -1, 1, 2));
      p.offset[a] = std::isfinite(offset) && offset >= 0 && offset < s ? offset : 0.0;
    }
    return p;
  });
}

// Any float, as render coordinates: landmarks (subnormals, +-0, huge, NaN, inf) and ordinary values.
inline rc::Gen<float> any_float() {
  return rc::gen::weightedOneOf<float>({
      {2, rc::gen::map(raw_bits(), [](std::uint64_t b) { return std::bit_cast<float>(static_cast<std::uint32_t>(b)); })},
      {2, rc::gen::element(0.0f, -0.0f, 0.5f, -0.5f, 0x1p-149f, -0x1p-149f, 0x1p-126f, 1.2f, 8.0f, 4195428.5f,
                           -2095927.75f, 0x1p24f, 0x1p44f, -0x1p44f, std::numeric_limits<float>::max(),
                           std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN())},
      {3, rc::gen::map(rc::gen::pair(rc::gen::inRange<std::int64_t>(-(1 << 24), 1 << 24), rc::gen::inRange(-40, 30)),
                       [](std::pair<std::int64_t, int> me) {
                         return static_cast<float>(std::ldexp(static_cast<double>(me.first), me.second));
                       })},
  });
}

}  // namespace lwc::testing

#endif  // LWC_PROPERTIES_SUPPORT_ARBITRARY_REBASE_H_
