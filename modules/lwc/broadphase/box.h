// SPDX-License-Identifier: MIT
// File: modules/lwc/broadphase/box.h
//
// The first room of a box's way, for the batch and the persistent grid alike: the box as the caller holds
// it (Box, FloatBox, BoxView: read in place, each float widened exactly), the one overlap predicate, the
// range of cells a box is registered in, and a box's validation (B6), with the messages that name it.
// Its placement (level, cells, budgets) is the next room, :place.
// Spec: docs/broadphase.md (B1, B2, B6, B13, E10).
//
// One source, two modes (lwc/config.h): `#include <lwc/broadphase.h>` brings it without module support;
// the module unit modules/broadphase/box.cppm exports the same declarations as lwc.broadphase:box.
#ifndef LWC_BROADPHASE_BOX_H_
#define LWC_BROADPHASE_BOX_H_

#include "lwc/config.h"
#ifndef LWC_MODULE_UNIT  // modules/broadphase/box.cppm includes these in its global module fragment
#include <array>
#include <charconv>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <ostream>
#include <span>
#include <string>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lwc/exact_fp.h"
#endif

// The arithmetic below is exact IEEE arithmetic whatever the consumer's flags (lwc/exact_fp.h).
LWC_EXACT_FP_BEGIN

LWC_EXPORT namespace lwc {

// Box
//
// A closed axis-aligned box [min, max] of doubles in D = 2 or 3 dimensions. Touching boxes overlap;
// min == max on an axis (a zero-area box, a point) is valid. Validity (finite, min <= max) is checked
// by every entry point, not by the type, so that an engine can hand over its own arrays unchanged.
template <std::size_t D>
  requires(D == 2 || D == 3)
struct Box {
  std::array<double, D> min;
  std::array<double, D> max;

  friend std::ostream& operator<<(std::ostream& os, const Box& b) {
    os << std::hexfloat << "[";
    for (std::size_t k = 0; k < D; ++k) os << (k ? ", " : "") << b.min[k] << ".." << b.max[k];
    return os << "]" << std::defaultfloat;
  }
};
using Box2 = Box<2>;
using Box3 = Box<3>;

// FloatBox
//
// A closed box of floats as engines hold them (B13, E10): accepted by find_pairs through a BoxView, and
// by insert, move and query without a copy into doubles by the caller. Every float is a double exactly,
// so a FloatBox is the Box with the same values: the same validation, the exact floor quantisation
// cell_of(v, h) of its values (D9), the same pairs.
template <std::size_t D>
  requires(D == 2 || D == 3)
struct FloatBox {
  std::array<float, D> min;
  std::array<float, D> max;
};

// widen()
//
// The Box with the values of a FloatBox (exact: every float is a double).
template <std::size_t D>
[[nodiscard]] constexpr Box<D> widen(const FloatBox<D>& box) noexcept {
  Box<D> out{};
  for (std::size_t k = 0; k < D; ++k) {
    out.min[k] = static_cast<double>(box.min[k]);
    out.max[k] = static_cast<double>(box.max[k]);
  }
  return out;
}

// meets()
//
// The closed overlap test on one axis, as the CPU compares: [amin, amax] and [bmin, bmax] share a point.
// Both comparisons are always made (`&`, not `&&`), so a loop of them runs without branches.
[[nodiscard]] constexpr bool meets(double amin, double amax, double bmin, double bmax) noexcept {
  return static_cast<bool>(static_cast<unsigned>(amin <= bmax) & static_cast<unsigned>(bmin <= amax));
}

// meets_exactly()
//
// meets() on the bits (fp::less_equal): exact under denormals-are-zero too, where the CPU compares every
// subnormal as 0, so `4.9e-324 <= -4.9e-324` is true there. That mode only ever turns a false comparison
// into a true one (it maps subnormals to zeros, monotonically), so a "no" of meets() is exact and a "yes"
// is confirmed here (LWC_DENORMALS_ARE_ZERO, lwc/exact_fp.h): the extra test runs for meeting boxes only.
[[nodiscard]] constexpr bool meets_exactly(double amin, double amax, double bmin, double bmax) noexcept {
  return fp::less_equal(amin, bmax) && fp::less_equal(bmin, amax);
}

// overlaps()
//
// True iff the closed boxes share a point: min_a <= max_b and min_b <= max_a on every axis (meets()
// on every axis, confirmed by meets_exactly() under denormals-are-zero).
template <std::size_t D>
[[nodiscard]] constexpr bool overlaps(const Box<D>& a, const Box<D>& b) noexcept {
  for (std::size_t k = 0; k < D; ++k) {
    if (!meets(a.min[k], a.max[k], b.min[k], b.max[k])) return false;
  }
#if LWC_DENORMALS_ARE_ZERO
  for (std::size_t k = 0; k < D; ++k) {
    if (!meets_exactly(a.min[k], a.max[k], b.min[k], b.max[k])) return false;
  }
#endif
  return true;
}

}  // namespace lwc

namespace lwc::internal {

// The double equal to a float, exactly in every floating-point mode: a normal float through the
// conversion instruction (exact), zeros, subnormals, infinities and NaNs from the bits (fp::widen), since
// cvtss2sd reads a subnormal as 0 under denormals-are-zero and a NaN is poison under -ffinite-math-only.
[[nodiscard]] inline double exact_double(float x) noexcept {
  const auto exponent = std::bit_cast<std::uint32_t>(x) & 0x7f800000U;
  if (exponent != 0 && exponent != 0x7f800000U) return static_cast<double>(x);
  return fp::widen(x);
}
[[nodiscard]] inline double exact_double(double x) noexcept { return x; }

}  // namespace lwc::internal

LWC_EXPORT namespace lwc {

// BoxView
//
// The caller's boxes, read in place (B13): n boxes of D floats or doubles, wherever they live. Box i's
// min corner is D consecutive F at `min + i * stride` bytes, its max corner D consecutive F at
// `max + i * stride` bytes. That one shape covers an array of structs (an engine's AABB array: both
// pointers into element 0, stride sizeof(element)) and separate min and max arrays (stride D * sizeof(F)).
// A view never copies or owns: the boxes must outlive every call that reads them. find_pairs reads each
// bound as the double it is exactly (every float is a double), so a float box has the errors, the
// quantisation (D9: the floor of the float's exact value, not of a decimal it was written as) and the
// pairs of the same box widened to double.
//
// Example:
//   struct Aabb { float lower[2]; int tag; float upper[2]; };   // an engine's layout
//   absl::StatusOr<lwc::BoxView<2, float>> view = lwc::BoxView<2, float>::strided(
//       aabbs[0].lower, aabbs[0].upper, aabbs.size(), sizeof(Aabb));
//   absl::StatusOr<lwc::PairsResult> r = lwc::find_pairs(*view, config);
template <std::size_t D, typename F>
  requires((D == 2 || D == 3) && (std::same_as<F, float> || std::same_as<F, double>))
class BoxView {
 public:
  // An empty view (no boxes).
  constexpr BoxView() noexcept = default;

  // The boxes of a span of Box<D> (F = double) or FloatBox<D> (F = float). Cannot fail, so a constructor
  // (separate() and strided() check their arguments and return a StatusOr).
  explicit BoxView(std::span<const Box<D>> boxes) noexcept
    requires std::same_as<F, double>
      : BoxView(from(boxes.data(), boxes.size())) {}
  explicit BoxView(std::span<const FloatBox<D>> boxes) noexcept
    requires std::same_as<F, float>
      : BoxView(from(boxes.data(), boxes.size())) {}

  // separate()
  //
  // Box i is [min[i], max[i]]. InvalidArgument (B13) when the spans differ in length.
  [[nodiscard]] static absl::StatusOr<BoxView> separate(std::span<const std::array<F, D>> min,
                                                        std::span<const std::array<F, D>> max) {
    if (min.size() != max.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("separate: ", min.size(), " min corners but ", max.size(), " max corners (B13)"));
    }
    BoxView v;
    v.min_ = reinterpret_cast<const std::byte*>(min.data());
    v.max_ = reinterpret_cast<const std::byte*>(max.data());
    v.count_ = min.size();
    v.stride_ = sizeof(std::array<F, D>);
    return v;
  }

  // strided()
  //
  // Box i's min corner is the D values of F at byte offset i * stride from `min`, its max corner the D
  // values at i * stride from `max`. InvalidArgument (B13), naming the argument, when count > 0 and a
  // pointer is null or not aligned for F, when the stride is not a multiple of alignof(F), or when the
  // last box would lie beyond the address space. The memory itself cannot be checked: the caller
  // promises count boxes there, as for a span.
  [[nodiscard]] static absl::StatusOr<BoxView> strided(const F* min, const F* max, std::size_t count,
                                                       std::size_t stride) {
    if (count == 0) return BoxView();
    for (const F* p : {min, max}) {
      const auto address = reinterpret_cast<std::uintptr_t>(p);
      if (p == nullptr || address % alignof(F) != 0) {
        return absl::InvalidArgumentError(absl::StrCat("strided: the ", p == min ? "min" : "max", " pointer ",
                                                       p == nullptr ? "is null" : "is not aligned for its type",
                                                       " (B13)"));
      }
      constexpr std::uintptr_t kTop = std::numeric_limits<std::uintptr_t>::max() - D * sizeof(F);
      if (address > kTop || (stride != 0 && count - 1 > (kTop - address) / stride)) {
        return absl::InvalidArgumentError(
            absl::StrCat("strided: ", count, " boxes of stride ", stride, " pass the end of memory (B13)"));
      }
    }
    if (stride % alignof(F) != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("strided: stride ", stride, " is not a multiple of ", alignof(F), " (B13)"));
    }
    BoxView v;
    v.min_ = reinterpret_cast<const std::byte*>(min);
    v.max_ = reinterpret_cast<const std::byte*>(max);
    v.count_ = count;
    v.stride_ = stride;
    return v;
  }

  [[nodiscard]] std::size_t size() const noexcept { return count_; }
  [[nodiscard]] bool empty() const noexcept { return count_ == 0; }

  // Box i (i < size()) as doubles, exactly (B13).
  [[nodiscard]] Box<D> operator[](std::size_t i) const noexcept {
    Box<D> out;
    F v[2 * D];
    std::memcpy(v, min_ + i * stride_, D * sizeof(F));
    std::memcpy(v + D, max_ + i * stride_, D * sizeof(F));
    for (std::size_t k = 0; k < D; ++k) {
      out.min[k] = internal::exact_double(v[k]);
      out.max[k] = internal::exact_double(v[D + k]);
    }
    return out;
  }

  // The boxes [offset, offset + count) (offset + count <= size()).
  [[nodiscard]] BoxView subspan(std::size_t offset, std::size_t count) const noexcept {
    BoxView v = *this;
    v.min_ = count == 0 ? nullptr : min_ + offset * stride_;
    v.max_ = count == 0 ? nullptr : max_ + offset * stride_;
    v.count_ = count;
    return v;
  }

  void prefetch(std::size_t i) const noexcept {
    __builtin_prefetch(min_ + i * stride_);
    __builtin_prefetch(max_ + i * stride_);
  }

 private:
  template <typename T>
  static BoxView from(const T* boxes, std::size_t n) noexcept {
    static_assert(std::is_standard_layout_v<T> && offsetof(T, min) == 0 && offsetof(T, max) == D * sizeof(F));
    BoxView v;
    if (n == 0) return v;
    v.min_ = reinterpret_cast<const std::byte*>(boxes);
    v.max_ = v.min_ + offsetof(T, max);
    v.count_ = n;
    v.stride_ = sizeof(T);
    return v;
  }

  const std::byte* min_ = nullptr;
  const std::byte* max_ = nullptr;
  std::size_t count_ = 0;
  std::size_t stride_ = 0;
};

// CellRange
//
// The cells a box is registered in: every cell c with lo[k] <= c[k] <= hi[k] on every axis k.
template <std::size_t D>
struct CellRange {
  std::array<std::int64_t, D> lo;
  std::array<std::int64_t, D> hi;

  friend constexpr bool operator==(const CellRange&, const CellRange&) noexcept = default;
};

}  // namespace lwc

namespace lwc::internal {

// The shortest decimal that reads back as v (std::to_chars): "0.1", "1e+300", "inf", "nan".
[[nodiscard]] inline std::string decimal(double v) {
  char buf[32];
  const std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, static_cast<std::size_t>(r.ptr - buf));
}

// A value where its last bit matters (a comparison of two close bounds): the shortest decimal, then the
// exact binary value in hex, "0.1 (0x1.999999999999ap-4)".
[[nodiscard]] inline std::string exactly(double v) { return absl::StrCat(decimal(v), " (", absl::StrFormat("%a", v), ")"); }

// What a message names: a box of the caller's span by its index ("box 7"), or the call a box was given
// to, with the handle it was given when there is one ("insert", "query", "move #3.1"). Made into text
// only when a message is made, so a call that succeeds formats nothing.
class Named {
 public:
  [[nodiscard]] static Named box(std::size_t index) { return Named(nullptr, index, false, 0, 0); }
  [[nodiscard]] static Named call(const char* name) { return Named(name, 0, false, 0, 0); }
  [[nodiscard]] static Named call(const char* name, std::uint32_t slot, std::uint32_t generation) {
    return Named(name, 0, true, slot, generation);
  }

  [[nodiscard]] std::string text() const {
    if (call_ == nullptr) return absl::StrCat("box ", index_);
    if (handle_) return absl::StrCat(call_, " #", slot_, ".", generation_);
    return std::string(call_);
  }

 private:
  Named(const char* name, std::size_t index, bool handle, std::uint32_t slot, std::uint32_t generation)
      : call_(name), index_(index), handle_(handle), slot_(slot), generation_(generation) {}

  const char* call_;  // nullptr: the box at `index_` of the caller's span
  std::size_t index_;
  bool handle_;       // the call was given the handle #slot_.generation_
  std::uint32_t slot_;
  std::uint32_t generation_;
};

// OK iff every bound is finite and min <= max on every axis; otherwise InvalidArgument naming `who`,
// the axis and the bounds (B6).
template <std::size_t D>
[[nodiscard]] absl::Status validate(const Box<D>& box, const Named& who) {
  for (std::size_t k = 0; k < D; ++k) {
    if (!fp::is_finite(box.min[k]) || !fp::is_finite(box.max[k])) {
      return absl::InvalidArgumentError(absl::StrCat(who.text(), ": bound on axis ", k, " is not finite (min ",
                                                     decimal(box.min[k]), ", max ", decimal(box.max[k]), ") (B6)"));
    }
  }
  for (std::size_t k = 0; k < D; ++k) {
    if (!fp::less_equal(box.min[k], box.max[k])) {  // on the bits: exact under denormals-are-zero
      return absl::InvalidArgumentError(absl::StrCat(who.text(), ": min ", exactly(box.min[k]), " > max ",
                                                     exactly(box.max[k]), " on axis ", k, " (B6)"));
    }
  }
  return absl::OkStatus();
}

}  // namespace lwc::internal

LWC_EXPORT namespace lwc {

// validate_box()
//
// OK iff every bound is finite and min <= max on every axis; otherwise InvalidArgument naming `index`
// ("box 7: ...") and the axis (B6). Exposed for a persistent grid that validates boxes one at a time.
template <std::size_t D>
[[nodiscard]] absl::Status validate_box(const Box<D>& box, std::size_t index) {
  return internal::validate(box, internal::Named::box(index));
}

}  // namespace lwc

LWC_EXACT_FP_END

#endif  // LWC_BROADPHASE_BOX_H_
