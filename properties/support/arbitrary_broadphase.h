// SPDX-License-Identifier: MIT
// File: properties/support/arbitrary_broadphase.h
//
// RapidCheck generators for lwc.broadphase scenes that hit the hard cases on purpose: coordinates exactly
// on cell boundaries k * h and a few ulps either side, -0.0, zero-area boxes, negative coordinates, shared
// edges and corners (a box starting exactly where another ends), identical boxes, long walls spanning
// many cells, huge and tiny magnitudes (DBL_MAX, 1e300, subnormals), and, for rejection, NaN payloads,
// infinities and min > max. Builds on the extreme-biased doubles of arbitrary_decompose.h.
#ifndef LWC_PROPERTIES_SUPPORT_ARBITRARY_BROADPHASE_H_
#define LWC_PROPERTIES_SUPPORT_ARBITRARY_BROADPHASE_H_

#include <rapidcheck.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <ostream>
#include <vector>

#include "support/arbitrary_decompose.h"

import lwc.broadphase;

namespace lwc::testing {

// A cell size for scenes: the centre-cell spatial-hash example's sizes, non-dyadic ones, powers of two far
// from 1, and now and then an extreme one (the smallest subnormal, DBL_MAX, a random positive double) where
// most scenes fail.
inline rc::Gen<double> scene_cell_size() {
  return rc::gen::weightedOneOf<double>({
      {8, rc::gen::element(0.5, 1.0, 2.0, 3.0, 0.1, 1.0 / 3.0, 0.75, 1e-3, 1e3, 0x1p-20, 0x1p20)},
      {1, positive_cell_size()},
  });
}

// `v` moved `steps` doubles up (steps > 0) or down.
inline double nudge(double v, int steps) {
  for (int i = 0; i < std::abs(steps); ++i) {
    v = std::nextafter(v, steps > 0 ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity());
  }
  return v;
}

// A finite coordinate for cell size h: on or a few ulps around a cell boundary k * h, on the centre-cell
// spatial-hash example's half-unit grid, signed zeros, or (rarely, about one scene in ten, since most then
// leave int64 cells) an extreme magnitude.
inline rc::Gen<double> scene_coordinate(double h) {
  return rc::gen::weightedOneOf<double>({
      {600, rc::gen::map(rc::gen::pair(rc::gen::inRange(-12, 13), rc::gen::weightedOneOf<int>(
                                                                    {{3, rc::gen::just(0)}, {2, rc::gen::inRange(-2, 3)}})),
                       [h](std::pair<int, int> p) {
                         const double v = nudge(p.first * h, p.second);
                         return std::isfinite(v) ? v : static_cast<double>(p.first);
                       })},
      {300, rc::gen::map(rc::gen::inRange(-16, 17), [](int i) { return i / 2.0; })},
      {100, rc::gen::element(0.0, -0.0, std::numeric_limits<double>::denorm_min(), -std::numeric_limits<double>::denorm_min())},
      {2, rc::gen::element(1e300, -1e300, std::numeric_limits<double>::max(), -std::numeric_limits<double>::max(),
                           0x1p53, -0x1p63, 1e-300, -1e-300)},
  });
}

// A valid box: on each axis an interval from two coordinates, a point (zero extent), or a long run of
// cells (a wall, up to 40 cells).
template <std::size_t D>
rc::Gen<Box<D>> valid_box(double h) {
  return rc::gen::exec([h] {
    Box<D> b{};
    for (std::size_t k = 0; k < D; ++k) {
      const int shape = *rc::gen::weightedOneOf<int>({{5, rc::gen::just(0)}, {2, rc::gen::just(1)}, {1, rc::gen::just(2)}});
      double lo = *scene_coordinate(h);
      double hi = lo;
      if (shape == 0) {
        hi = *scene_coordinate(h);
      } else if (shape == 2) {
        const double wall = nudge(lo + *rc::gen::inRange(2, 41) * h, *rc::gen::inRange(-1, 2));
        hi = std::isfinite(wall) ? wall : lo;
      }
      b.min[k] = std::min(lo, hi);
      b.max[k] = std::max(lo, hi);
    }
    return b;
  });
}

// A scene of `min_boxes` to `max_boxes` valid boxes: fresh boxes, copies of earlier ones, boxes starting exactly
// where an earlier one ends (shared edges and corners), and boxes nested in earlier ones.
template <std::size_t D>
rc::Gen<std::vector<Box<D>>> scene(double h, int max_boxes = 24, int min_boxes = 0) {
  return rc::gen::exec([h, max_boxes, min_boxes] {
    const int n = *rc::gen::inRange(min_boxes, max_boxes + 1);
    std::vector<Box<D>> boxes;
    for (int i = 0; i < n; ++i) {
      const int kind = boxes.empty() ? 0 : *rc::gen::weightedOneOf<int>({{4, rc::gen::just(0)}, {1, rc::gen::just(1)},
                                                                        {2, rc::gen::just(2)}, {1, rc::gen::just(3)}});
      if (kind == 0) {
        boxes.push_back(*valid_box<D>(h));
        continue;
      }
      const Box<D> other = boxes[static_cast<std::size_t>(*rc::gen::inRange<int>(0, static_cast<int>(boxes.size())))];
      Box<D> b = other;
      if (kind == 2) {  // touches `other`: starts at its max on some axes (an edge or a corner)
        b = *valid_box<D>(h);
        for (std::size_t k = 0; k < D; ++k) {
          if (*rc::gen::arbitrary<bool>()) {
            const double width = b.max[k] - b.min[k];
            b.min[k] = other.max[k];
            b.max[k] = std::isfinite(other.max[k] + width) ? other.max[k] + width : other.max[k];
          }
        }
      } else if (kind == 3) {  // a point of `other` (its min corner, a zero-area box)
        b.max = b.min;
      }
      boxes.push_back(b);
    }
    return boxes;
  });
}

// A box that may be invalid: NaN (with payloads), infinities, min > max; otherwise valid.
template <std::size_t D>
rc::Gen<Box<D>> any_box(double h) {
  return rc::gen::exec([h] {
    Box<D> b = *valid_box<D>(h);
    const int defect = *rc::gen::inRange(0, 4);
    const auto k = static_cast<std::size_t>(*rc::gen::inRange<int>(0, static_cast<int>(D)));
    if (defect == 1) {
      (*rc::gen::arbitrary<bool>() ? b.min[k] : b.max[k]) =
          *rc::gen::element(std::numeric_limits<double>::quiet_NaN(), -std::numeric_limits<double>::quiet_NaN(),
                            std::numeric_limits<double>::signaling_NaN(), std::numeric_limits<double>::infinity(),
                            -std::numeric_limits<double>::infinity());
    } else if (defect == 2 && b.min[k] != b.max[k]) {
      std::swap(b.min[k], b.max[k]);
    } else if (defect == 3) {
      b.min[k] = *any_double();
    }
    return b;
  });
}

// A float `v` moved `steps` floats up (steps > 0) or down.
inline float nudge_float(float v, int steps) {
  for (int i = 0; i < std::abs(steps); ++i) {
    v = std::nextafter(v, steps > 0 ? std::numeric_limits<float>::infinity() : -std::numeric_limits<float>::infinity());
  }
  return v;
}

// A float coordinate for cell size h (B13): on or a few floats around a cell boundary k * h (rounded to
// float, so often just off it), on a half-unit grid, signed zeros, the float subnormals and FLT_MIN, the
// neighbours of 2^24 (where floats stop holding every integer), 2^53 and 2^63, FLT_MAX; and, when
// `defects`, NaNs with payloads and infinities.
inline rc::Gen<float> float_coordinate(double h, bool defects) {
  constexpr float kTiny = std::numeric_limits<float>::denorm_min();
  constexpr float kMin = std::numeric_limits<float>::min();
  constexpr float kMax = std::numeric_limits<float>::max();
  return rc::gen::weightedOneOf<float>({
      {600, rc::gen::map(rc::gen::pair(rc::gen::inRange(-12, 13), rc::gen::inRange(-2, 3)),
                         [h](std::pair<int, int> p) {
                           const double v = p.first * h;
                           const float f = std::fabs(v) < 1e38 ? static_cast<float>(v) : static_cast<float>(p.first);
                           return nudge_float(f, p.second);
                         })},
      {300, rc::gen::map(rc::gen::inRange(-16, 17), [](int i) { return static_cast<float>(i) / 2.0F; })},
      {100, rc::gen::element(0.0F, -0.0F, kTiny, -kTiny, 2 * kTiny, kMin, -kMin, nudge_float(kMin, -1))},
      {20, rc::gen::map(rc::gen::pair(rc::gen::element(0x1p24F, 0x1p53F, 0x1p63F, kMax), rc::gen::inRange(-2, 1)),
                        [](std::pair<float, int> p) { return nudge_float(p.first, p.second); })},
      {20, rc::gen::map(rc::gen::pair(rc::gen::element(-0x1p24F, -0x1p53F, -0x1p63F, -kMax), rc::gen::inRange(0, 3)),
                        [](std::pair<float, int> p) { return nudge_float(p.first, p.second); })},
      {defects ? 10 : 0, rc::gen::map(rc::gen::resize(100, rc::gen::arbitrary<std::uint32_t>()),
                                      [](std::uint32_t b) { return std::bit_cast<float>(b | 0x7f800000U); })},
  });
}

// A scene of float boxes (B13): fresh boxes, copies, boxes touching an earlier one (starting at its max),
// points; with `defects`, now and then a NaN or infinite bound or min > max.
template <std::size_t D>
rc::Gen<std::vector<FloatBox<D>>> float_scene(double h, int max_boxes, bool defects) {
  return rc::gen::exec([h, max_boxes, defects] {
    const int n = *rc::gen::inRange(0, max_boxes + 1);
    std::vector<FloatBox<D>> boxes;
    for (int i = 0; i < n; ++i) {
      const int kind = boxes.empty() ? 0 : *rc::gen::weightedOneOf<int>({{4, rc::gen::just(0)}, {1, rc::gen::just(1)},
                                                                        {2, rc::gen::just(2)}, {1, rc::gen::just(3)}});
      FloatBox<D> b{};
      for (std::size_t k = 0; k < D; ++k) {
        const float lo = *float_coordinate(h, false);
        const float hi = *rc::gen::weightedOneOf<float>({{3, float_coordinate(h, false)}, {1, rc::gen::just(lo)}});
        b.min[k] = std::min(lo, hi);
        b.max[k] = std::max(lo, hi);
      }
      if (kind != 0) {
        const FloatBox<D>& other = boxes[static_cast<std::size_t>(*rc::gen::inRange<int>(0, static_cast<int>(boxes.size())))];
        if (kind == 1) b = other;
        if (kind == 2) {
          for (std::size_t k = 0; k < D; ++k) {
            if (*rc::gen::arbitrary<bool>() && other.max[k] <= b.max[k]) b.min[k] = other.max[k];
          }
        }
        if (kind == 3) b.max = b.min;
      }
      if (defects && *rc::gen::inRange(0, 16) == 0) {
        const auto k = static_cast<std::size_t>(*rc::gen::inRange<int>(0, static_cast<int>(D)));
        if (*rc::gen::arbitrary<bool>()) {
          (*rc::gen::arbitrary<bool>() ? b.min[k] : b.max[k]) = *float_coordinate(h, true);
        } else {
          std::swap(b.min[k], b.max[k]);
        }
      }
      boxes.push_back(b);
    }
    return boxes;
  });
}

template <std::size_t D>
std::ostream& operator<<(std::ostream& os, const std::vector<FloatBox<D>>& boxes) {
  os << boxes.size() << " float boxes:" << std::hexfloat;
  for (const FloatBox<D>& b : boxes) {
    os << " [";
    for (std::size_t k = 0; k < D; ++k) os << (k ? ", " : "") << b.min[k] << ".." << b.max[k];
    os << "]";
  }
  return os << std::defaultfloat;
}

template <std::size_t D>
std::ostream& operator<<(std::ostream& os, const std::vector<Box<D>>& boxes) {
  os << boxes.size() << " boxes:";
  for (const Box<D>& b : boxes) os << " " << b;
  return os;
}

}  // namespace lwc::testing

#endif  // LWC_PROPERTIES_SUPPORT_ARBITRARY_BROADPHASE_H_
