// SPDX-License-Identifier: MIT
// File: contracts/lwc/contracts/rebase.h
//
// Executable R-clauses (docs/rebase.md): checkers that judge the outputs of ANY floating-origin
// implementation — lwc's own or an engine's — and a model written differently from lwc.rebase.
//
// The numeric oracle never rounds and never takes a fast path: every quantity (world offsets, render
// floats, midpoints between neighbouring floats) is scaled by 2^1200, which makes every finite double an
// integer, and compared as a 2560-bit two's complement integer (lwc::internal::Wide, from
// lwc/contracts/internal/wide.h). Rounding is judged by the definition:
// y is the nearest float to x iff x lies between the midpoints to y's two neighbours. The plan/commit
// model keeps a plain std::set of loaded cells and enumerates the barrier in int128.
//
// Checkers return absl::Status and never abort. On failure the message starts with the clause id:
//   "R6 barrier: commit succeeded although (5, 4) is not loaded"
//
// One source, two modes (lwc/config.h): `#include <lwc/contracts/rebase.h>` brings it without module support;
// the module unit contracts/rebase.cppm exports the same declarations as `import lwc.contracts.rebase;`.
#ifndef LWC_CONTRACTS_REBASE_H_
#define LWC_CONTRACTS_REBASE_H_

#include "lwc/config.h"
#ifndef LWC_MODULE_UNIT  // contracts/rebase.cppm includes these in its global module fragment
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "lwc/exact_fp.h"
// ... and imports these.
#include "lwc/rebase.h"
#include "lwc/contracts/internal/wide.h"
#endif

// The arithmetic below is exact IEEE arithmetic whatever the consumer's flags (lwc/exact_fp.h).
LWC_EXACT_FP_BEGIN

namespace lwc::internal {

inline std::string hex(double d) { return absl::StrFormat("%a", d); }

template <std::size_t D>
std::string cells(const CellIndex<D>& c) {
  std::string s = "(";
  for (std::size_t a = 0; a < D; ++a) absl::StrAppend(&s, a ? ", " : "", c[a]);
  return s + ")";
}

template <std::size_t D>
std::string position(const WorldPosition<D>& p) {
  std::string s = absl::StrCat("{cell ", cells(p.cell), " + (");
  for (std::size_t a = 0; a < D; ++a) absl::StrAppend(&s, a ? ", " : "", hex(p.offset[a]));
  return s + ")}";
}

inline std::string status_text(const absl::Status& s) {
  return s.ok() ? std::string("OK") : absl::StrCat(absl::StatusCodeToString(s.code()), " \"", s.message(), "\"");
}

inline bool is_even(double d) { return (std::bit_cast<std::uint64_t>(d) & 1) == 0; }
inline bool is_even(float f) { return (std::bit_cast<std::uint32_t>(f) & 1) == 0; }

// True iff y is the nearest T to the exact value whose doubled, scaled form is `twice`, with `unit`
// the scale of one y (so y's scaled value is Wide::scaled(y) * unit): twice lies between y + below and
// y + above, and on either end only when y is even (ties to even).
template <typename T>
bool is_nearest(const Wide& twice, T y, std::uint64_t unit) {
  const T below = fp::next_down(y);
  const T above = fp::next_up(y);
  // widen(): `static_cast<double>` of a subnormal float is 0 under denormals-are-zero (lwc/exact_fp.h).
  const auto wide = [](T x) {
    if constexpr (std::is_same_v<T, float>) {
      return fp::widen(x);
    } else {
      return x;
    }
  };
  const Wide sy = Wide::scaled(wide(y)) * unit;
  const Wide lo = sy + Wide::scaled(wide(below)) * unit;
  const Wide hi = sy + Wide::scaled(wide(above)) * unit;
  const int c_lo = compare(lo, twice);
  const int c_hi = compare(twice, hi);
  if (c_lo > 0 || c_hi > 0) return false;
  if ((c_lo == 0 || c_hi == 0) && !is_even(y)) return false;
  return true;
}

// 0 <= offset < size; the sign on the bits, since denormals-are-zero compares -4.9e-324 >= 0 as true.
inline bool is_normalised(double offset, std::int64_t size) {
  return !fp::is_nan(offset) && (!fp::sign_bit(offset) || fp::is_zero(offset)) &&
         offset < static_cast<double>(size);
}

// The exact world offset of one axis from the origin cell, scaled: ((cell - origin) * size + offset) * 2^1200.
inline Wide exact_axis(std::int64_t cell, double offset, std::int64_t origin, std::int64_t size) {
  return Wide::scaled((absl::int128(cell) - origin)) * static_cast<std::uint64_t>(size) + Wide::scaled(offset);
}

}  // namespace lwc::internal

LWC_EXPORT namespace lwc::contracts {

// RenderSpec
//
// What a render conversion depends on besides the origin, in world units: the cell size, the world
// units per render unit and the bubble. An engine fills it from its own configuration.
struct RenderSpec {
  std::int64_t cell_size = 1;
  std::int64_t units_per_render_unit = 1;
  std::int64_t bubble_units = std::int64_t{1} << 24;
};

// spec_of()
//
// The RenderSpec of an lwc view.
template <std::size_t D>
[[nodiscard]] RenderSpec spec_of(const OriginCoordinator<D>& view) {
  return {view.grid().cell_size().value(), view.config().units_per_render_unit.value(), view.config().bubble_units.value()};
}

// R1 ------------------------------------------------------------------------------------------------

// check_normalize_axis()
//
// R1: `got` is the normalisation of cell * size + offset: InvalidArgument for a non-finite offset;
// otherwise, with k = floor(exact / size) and e = exact - k * size in [0, size), the nearest double to e
// (ties to even) is either below size, and then got = (k, that double), or equal to size, and then got
// = (k + 1, +0.0) (the carry); OutOfRange exactly when that cell is not an int64. Never -0.0.
[[nodiscard]] inline absl::Status check_normalize_axis(std::int64_t size, std::int64_t cell, double offset,
                                                       const absl::StatusOr<std::pair<std::int64_t, double>>& got) {
  using internal::Wide;
  const auto fail = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(
        "R1 normalisation: cell ", cell, " + offset ", internal::hex(offset), " at size ", size, ": ", why,
        "; got ", got.ok() ? absl::StrCat("(", got->first, ", ", internal::hex(got->second), ")")
                           : internal::status_text(got.status())));
  };
  if (!fp::is_finite(offset)) {
    if (got.ok() || got.status().code() != absl::StatusCode::kInvalidArgument) {
      return fail("a non-finite offset must be InvalidArgument");
    }
    return absl::OkStatus();
  }
  const auto s = static_cast<std::uint64_t>(size);
  const Wide exact = Wide::scaled(absl::int128(cell)) * s + Wide::scaled(offset);
  const Wide k = exact.sar(Wide::kScale).floor_div(s);
  const Wide e = exact - k.shl(Wide::kScale) * s;  // in [0, size * 2^1200)
  const double size_d = static_cast<double>(size);
  const Wide twice_e = e + e;
  // The nearest double to e is size when e is past the midpoint to the double below size, or on it and
  // size is the even one of the two (sizes above 2^52 can be odd).
  const int to_mid = compare(Wide::scaled(size_d) + Wide::scaled(fp::next_down(size_d)), twice_e);
  const bool carry = to_mid < 0 || (to_mid == 0 && internal::is_even(size_d));
  const Wide final_cell = carry ? k + Wide::of(1) : k;
  if (!final_cell.fits_int64()) {
    if (got.ok() || got.status().code() != absl::StatusCode::kOutOfRange) {
      return fail("the normalised cell is outside int64, so the answer must be OutOfRange");
    }
    return absl::OkStatus();
  }
  if (!got.ok()) return fail(absl::StrCat("expected cell ", final_cell.to_int64()));
  if (!internal::is_normalised(got->second, size) || fp::sign_bit(got->second)) {
    return fail("the offset is not in [0, size) (or is -0.0)");
  }
  if (got->first != final_cell.to_int64()) {
    return fail(absl::StrCat("expected cell ", final_cell.to_int64(), carry ? " (carried)" : ""));
  }
  if (carry ? got->second != 0 : !internal::is_nearest(twice_e, got->second, 1)) {
    return fail("the offset is not the nearest double to the exact offset");
  }
  return absl::OkStatus();
}

// check_normalize()
//
// R1 on every axis of a WorldGrid::normalize answer (an error names its first failing axis).
template <std::size_t D>
[[nodiscard]] absl::Status check_normalize(std::int64_t size, const CellIndex<D>& cell,
                                           const std::array<double, D>& offset,
                                           const absl::StatusOr<WorldPosition<D>>& got) {
  if (!got.ok()) {
    // The failure must be the one some axis calls for on its own.
    for (std::size_t a = 0; a < D; ++a) {
      if (check_normalize_axis(size, cell[a], offset[a], got.status()).ok()) return absl::OkStatus();
    }
    return absl::InvalidArgumentError(absl::StrCat("R1 normalisation: no axis calls for ",
                                                   internal::status_text(got.status())));
  }
  for (std::size_t a = 0; a < D; ++a) {
    if (absl::Status s = check_normalize_axis(size, cell[a], offset[a], std::pair(got->cell[a], got->offset[a]));
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

// check_fixed()
//
// R1: the position of an integer world point is exact and normalised, and converts back to the point.
template <std::size_t D>
[[nodiscard]] absl::Status check_fixed(std::int64_t size, const FixedPoint<D>& point, const WorldPosition<D>& pos,
                                       const absl::StatusOr<FixedPoint<D>>& back) {
  using internal::Wide;
  for (std::size_t a = 0; a < D; ++a) {
    const Wide value = Wide::scaled(absl::int128(pos.cell[a])) * static_cast<std::uint64_t>(size) +
                       Wide::scaled(pos.offset[a]);
    if (!internal::is_normalised(pos.offset[a], size) || !(value == Wide::scaled(absl::int128(point.units[a])))) {
      return absl::InvalidArgumentError(absl::StrCat("R1 fixed point: ", point.units[a], " units on axis ", a,
                                                     " became ", internal::position(pos)));
    }
  }
  if (!back.ok() || !(*back == point)) {
    return absl::InvalidArgumentError(absl::StrCat("R1 fixed point: ", internal::position(pos),
                                                   " does not convert back: ",
                                                   back.ok() ? "another point" : internal::status_text(back.status())));
  }
  return absl::OkStatus();
}

// R2 ------------------------------------------------------------------------------------------------

// check_authority()
//
// R2: `after` is bit for bit `before` (offsets compared as bit patterns, so -0.0 and NaN payloads count).
template <std::size_t D>
[[nodiscard]] absl::Status check_authority(std::span<const WorldPosition<D>> before,
                                           std::span<const WorldPosition<D>> after) {
  if (before.size() != after.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("R2 authority: ", before.size(), " positions before, ", after.size(), " after"));
  }
  for (std::size_t i = 0; i < before.size(); ++i) {
    bool same = before[i].cell == after[i].cell;
    for (std::size_t a = 0; a < D; ++a) {
      same &= std::bit_cast<std::uint64_t>(before[i].offset[a]) == std::bit_cast<std::uint64_t>(after[i].offset[a]);
    }
    if (!same) {
      return absl::InvalidArgumentError(absl::StrCat("R2 authority: position ", i, " changed from ",
                                                     internal::position(before[i]), " to ",
                                                     internal::position(after[i])));
    }
  }
  return absl::OkStatus();
}

// R3 ------------------------------------------------------------------------------------------------

// OriginLog
//
// R3: records every (version, origin) a view reports, e.g. the tag of each render point together with the
// view's origin, and rejects a second origin for a version already seen.
template <std::size_t D>
class OriginLog {
 public:
  [[nodiscard]] absl::Status observe(std::uint64_t version, const CellIndex<D>& origin) {
    const auto [it, inserted] = seen_.emplace(version, origin);
    if (inserted || it->second == origin) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat("R3 one origin per version: version ", version, " had origin ",
                                                   internal::cells(it->second), ", now ",
                                                   internal::cells(origin)));
  }

 private:
  std::map<std::uint64_t, CellIndex<D>> seen_;
};

// R4, R5 --------------------------------------------------------------------------------------------

// check_render()
//
// R4 and R5 for one conversion of position `p` by a view with `origin` at `version`:
// InvalidArgument when p is not normalised (R1); else OutOfRange iff some axis has
// |(cell - origin) * size + offset| > bubble_units, exactly (R5); else every coordinate is the float nearest
// to ((cell - origin) * size + offset) / units_per_render_unit, ties to even, and the tag is `version` (R4).
template <std::size_t D>
[[nodiscard]] absl::Status check_render(const RenderSpec& spec, const CellIndex<D>& origin, std::uint64_t version,
                                        const WorldPosition<D>& p, const absl::StatusOr<RenderPoint<D>>& got) {
  using internal::Wide;
  const auto fail = [&](absl::string_view clause, absl::string_view why) {
    std::ostringstream shown;
    if (got.ok()) {
      shown << std::hexfloat << "(";
      for (std::size_t a = 0; a < D; ++a) shown << (a ? ", " : "") << got->at[a];
      shown << ") at version " << got->version;
    } else {
      shown << internal::status_text(got.status());
    }
    return absl::InvalidArgumentError(absl::StrCat(clause, ": ", internal::position(p), " from origin ",
                                                   internal::cells(origin), ": ", why, "; got ", shown.str()));
  };
  for (std::size_t a = 0; a < D; ++a) {
    if (!internal::is_normalised(p.offset[a], spec.cell_size)) {
      if (got.ok() || got.status().code() != absl::StatusCode::kInvalidArgument) {
        return fail("R1 normalisation", "a position that is not normalised must be InvalidArgument");
      }
      return absl::OkStatus();
    }
  }
  const auto d = static_cast<std::uint64_t>(spec.units_per_render_unit);
  const Wide bubble = Wide::scaled(absl::int128(spec.bubble_units));
  bool inside = true;
  std::array<Wide, D> exact;
  for (std::size_t a = 0; a < D; ++a) {
    exact[a] = internal::exact_axis(p.cell[a], p.offset[a], origin[a], spec.cell_size);
    inside &= exact[a] <= bubble && -bubble <= exact[a];
  }
  if (!inside) {
    if (got.ok() || got.status().code() != absl::StatusCode::kOutOfRange) {
      return fail("R5 bubble", "outside the bubble the answer must be OutOfRange");
    }
    return absl::OkStatus();
  }
  if (!got.ok()) return fail("R5 bubble", "inside the bubble the conversion must succeed");
  if (got->version != version) return fail("R3 one origin per version", absl::StrCat("tagged with the wrong version, want ", version));
  for (std::size_t a = 0; a < D; ++a) {
    const float y = got->at[a];
    if (!fp::is_finite(y) || !internal::is_nearest(exact[a] + exact[a], y, d)) {
      return fail("R4 exact render", absl::StrCat("axis ", a, " is not the float nearest to the exact value"));
    }
  }
  return absl::OkStatus();
}

// oracle_render()
//
// The answer check_render requires, for messages that print it: InvalidArgument for a position that is not
// normalised (R1), OutOfRange outside the bubble (R5), else on every axis the float nearest to the exact
// ((cell - origin) * size + offset) / units_per_render_unit, ties to even, tagged `version` (R4). Each
// float is found by testing the neighbours of a rounded estimate against the exact value (is_nearest),
// so the answer never rests on the rounding; Internal if none of them is (an oracle defect).
template <std::size_t D>
[[nodiscard]] absl::StatusOr<RenderPoint<D>> oracle_render(const RenderSpec& spec, const CellIndex<D>& origin,
                                                          std::uint64_t version, const WorldPosition<D>& p) {
  using internal::Wide;
  for (std::size_t a = 0; a < D; ++a) {
    if (!internal::is_normalised(p.offset[a], spec.cell_size)) return absl::InvalidArgumentError("R1: not normalised");
  }
  const auto d = static_cast<std::uint64_t>(spec.units_per_render_unit);
  const Wide bubble = Wide::scaled(absl::int128(spec.bubble_units));
  RenderPoint<D> out;
  out.version = version;
  for (std::size_t a = 0; a < D; ++a) {
    const Wide exact = internal::exact_axis(p.cell[a], p.offset[a], origin[a], spec.cell_size);
    if (!(exact <= bubble && -bubble <= exact)) return absl::OutOfRangeError("R5: outside the bubble");
    // Inside the bubble |value| <= 2^44 world units, so the estimate is finite and within a few float ulps.
    const double world = static_cast<double>(absl::int128(p.cell[a]) - origin[a]) * static_cast<double>(spec.cell_size) +
                         p.offset[a];
    float y = static_cast<float>(world / static_cast<double>(d));
    for (int i = 0; i < 8; ++i) y = std::nextafter(y, -std::numeric_limits<float>::infinity());
    bool found = false;
    for (int i = 0; i <= 16 && !found; ++i) {
      if (internal::is_nearest(exact + exact, y, d)) {
        found = true;
      } else {
        y = std::nextafter(y, std::numeric_limits<float>::infinity());
      }
    }
    if (!found) return absl::InternalError("R4: oracle defect, no float near the estimate is the nearest");
    out.at[a] = y == 0 ? 0.0f : y;  // both zeros are nearest to an exact 0; print the positive one
  }
  return out;
}

// render_error_bound()
//
// The R5 bound for a spec: half a float ulp at the bubble's edge, 2^(floor(log2(bubble / d)) - 24) render
// units, computed from the integers (not from lwc.rebase).
[[nodiscard]] inline double render_error_bound(const RenderSpec& spec) {
  // floor(log2(b / d)) for integers: the largest k with 2^k * d <= b (k may be negative).
  int k = 63;
  const auto d = absl::uint128(static_cast<std::uint64_t>(spec.units_per_render_unit));
  const auto b = absl::uint128(static_cast<std::uint64_t>(spec.bubble_units));
  while (k > -64 && (k >= 0 ? (d << k) > b : d > (b << -k))) {
    --k;
  }
  return std::ldexp(1.0, k - 24);
}

// check_render_bound()
//
// R5, the weaker clause an engine that does not round exactly may still meet: inside the bubble every
// coordinate is within render_error_bound(spec) of the exact value.
template <std::size_t D>
[[nodiscard]] absl::Status check_render_bound(const RenderSpec& spec, const CellIndex<D>& origin,
                                              const WorldPosition<D>& p, const RenderPoint<D>& got) {
  using internal::Wide;
  const auto d = static_cast<std::uint64_t>(spec.units_per_render_unit);
  const Wide bound = Wide::scaled(render_error_bound(spec)) * d;
  for (std::size_t a = 0; a < D; ++a) {
    const Wide exact = internal::exact_axis(p.cell[a], p.offset[a], origin[a], spec.cell_size);
    const Wide diff = Wide::scaled(static_cast<double>(got.at[a])) * d - exact;
    if (!fp::is_finite(got.at[a]) || bound < diff || diff < -bound) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "R5 error bound: axis %d of %s renders as %a, farther than %a from the exact value", a,
          internal::position(p), static_cast<double>(got.at[a]), render_error_bound(spec)));
    }
  }
  return absl::OkStatus();
}

// R6, R7, R8: the model ------------------------------------------------------------------------------

// OriginModel
//
// A plain model of one view: origin, version, a std::set of loaded cells. It predicts what plan and
// commit must answer, and check_plan / check_commit judge an implementation's answers against it, naming
// the clause broken. check_commit advances the model when the commit was due to succeed.
template <std::size_t D>
class OriginModel {
 public:
  OriginModel(std::int64_t cell_size, std::int64_t threshold_cells, std::int64_t barrier_radius,
              CellIndex<D> origin = {}, std::uint64_t version = 0, ViewId view = {})
      : size_(cell_size), threshold_(threshold_cells), radius_(barrier_radius), origin_(origin), version_(version),
        view_(view) {}

  const CellIndex<D>& origin() const { return origin_; }
  std::uint64_t version() const { return version_; }
  // The identity of the view modelled (R12): plans it makes carry it, plans of any other are refused.
  // An audit of an engine that stamps no view keeps the default (no view) on both sides.
  ViewId view() const { return view_; }
  void set_view(ViewId view) { view_ = view; }
  // Inside the engine's simulation step (R13).
  bool in_step() const { return in_step_; }
  const std::set<CellIndex<D>>& loaded() const { return loaded_; }
  void load(const CellIndex<D>& c) { loaded_.insert(c); }
  void unload(const CellIndex<D>& c) { loaded_.erase(c); }

  // The cells within the barrier radius of `target` that exist (are int64) and are not loaded, sorted.
  std::vector<CellIndex<D>> missing(const CellIndex<D>& target) const {
    std::vector<CellIndex<D>> out;
    const std::int64_t side = 2 * radius_ + 1;
    std::int64_t total = 1;
    for (std::size_t a = 0; a < D; ++a) total *= side;
    for (std::int64_t index = 0; index < total; ++index) {
      CellIndex<D> c;
      bool exists = true;
      std::int64_t rest = index;
      for (std::size_t a = 0; a < D; ++a) {
        const absl::int128 v = absl::int128(target[a]) + (rest % side) - radius_;
        rest /= side;
        exists &= v >= std::numeric_limits<std::int64_t>::min() && v <= std::numeric_limits<std::int64_t>::max();
        c[a] = exists ? static_cast<std::int64_t>(v) : 0;
      }
      if (exists && !loaded_.contains(c)) out.push_back(c);
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  // expected_plan()
  //
  // What plan(observer) must answer (R6, R8): InvalidArgument for an observer that is not normalised (R1);
  // nothing when it is within threshold cells of the origin on every axis; FailedPrecondition when a
  // barrier cell around its cell is not loaded; else the plan from the origin to its cell at the current
  // version.
  [[nodiscard]] absl::StatusOr<std::optional<RebasePlan<D>>> expected_plan(const WorldPosition<D>& observer) const {
    for (std::size_t a = 0; a < D; ++a) {
      if (!internal::is_normalised(observer.offset[a], size_)) return absl::InvalidArgumentError("not normalised");
    }
    bool far = false;
    for (std::size_t a = 0; a < D; ++a) {
      const absl::int128 d = absl::int128(observer.cell[a]) - origin_[a];
      far |= (d < 0 ? -d : d) >= threshold_;
    }
    if (!far) return std::optional<RebasePlan<D>>();
    if (const std::vector<CellIndex<D>> gone = missing(observer.cell); !gone.empty()) {
      return absl::FailedPreconditionError(
          absl::StrCat(gone.size(), " barrier cells are missing, e.g. ", internal::cells(gone.front())));
    }
    return std::optional<RebasePlan<D>>(RebasePlan<D>{origin_, observer.cell, version_, view_});
  }

  // check_plan()
  //
  // R6: `got` (an implementation's plan(observer) in the model's state) is expected_plan(observer): a plan
  // exists iff the observer is beyond the threshold and every barrier cell is loaded; the same error code
  // otherwise. R8: the plan carries the current origin and version.
  [[nodiscard]] absl::Status check_plan(const WorldPosition<D>& observer,
                                        const absl::StatusOr<std::optional<RebasePlan<D>>>& got) const {
    const absl::StatusOr<std::optional<RebasePlan<D>>> want = expected_plan(observer);
    const auto fail = [&](absl::string_view clause, absl::string_view why) {
      return absl::InvalidArgumentError(absl::StrCat(
          clause, ": plan(", internal::position(observer), ") at origin ", internal::cells(origin_), " version ",
          version_, ": ", why, "; got ",
          !got.ok() ? internal::status_text(got.status())
                    : (*got ? absl::StrCat("a plan to ", internal::cells((*got)->target)) : std::string("nothing"))));
    };
    if (!want.ok()) {
      if (got.ok() || got.status().code() != want.status().code()) {
        const bool barrier = want.status().code() == absl::StatusCode::kFailedPrecondition;
        return fail(barrier ? "R6 barrier" : "R1 normalisation",
                    absl::StrCat("must be ", internal::status_text(want.status())));
      }
      return absl::OkStatus();
    }
    if (!got.ok() || got->has_value() != want->has_value()) {
      return fail("R6 barrier", *want ? "beyond the threshold with the barrier loaded: must plan"
                                      : "inside the threshold there is nothing to do");
    }
    if (*want && (**got).view != (**want).view) {
      return fail("R12 view identity", absl::StrCat("the plan must carry the view's id ", view_.value));
    }
    if (*want && !(**got == **want)) {
      return fail("R8 staleness", "the plan must carry the current origin and version and target the observer's cell");
    }
    return absl::OkStatus();
  }

  // expected_commit()
  //
  // What commit(plan) must answer, in this order: InvalidArgument when the plan is another view's
  // (R12); Unavailable inside a simulation step (R13); Aborted when plan.expected_version is not the
  // current version (R8);
  // InvalidArgument when plan.from is not the origin (R8); FailedPrecondition when a barrier cell around
  // the target is not loaded now (R6); OutOfRange when the version counter is exhausted; else the target
  // as origin at version + 1 (R3).
  [[nodiscard]] absl::StatusOr<Rebased<D>> expected_commit(const RebasePlan<D>& plan) const {
    if (plan.view != view_) {
      return absl::InvalidArgumentError(absl::StrCat("R12 view identity: the plan is view ", plan.view.value,
                                                     "'s, not view ", view_.value, "'s"));
    }
    if (in_step_) return absl::UnavailableError("R13 safe phase: a commit inside a simulation step");
    if (plan.expected_version != version_) return absl::AbortedError("the plan is stale");
    if (plan.from != origin_) return absl::InvalidArgumentError("the plan was made at another origin");
    if (const std::vector<CellIndex<D>> gone = missing(plan.target); !gone.empty()) {
      return absl::FailedPreconditionError(absl::StrCat(internal::cells(gone.front()), " is not loaded at commit time"));
    }
    if (version_ == std::numeric_limits<std::uint64_t>::max()) {
      return absl::OutOfRangeError("the version counter is exhausted");
    }
    return Rebased<D>{plan.target, version_ + 1};
  }

  // check_commit()
  //
  // `got` (an implementation's commit(plan) in the model's state) is expected_commit(plan), naming the
  // clause a wrong answer breaks; when the commit was due to succeed, the model follows it.
  [[nodiscard]] absl::Status check_commit(const RebasePlan<D>& plan, const absl::StatusOr<Rebased<D>>& got) {
    const absl::StatusOr<Rebased<D>> want = expected_commit(plan);
    const auto fail = [&](absl::string_view clause, absl::string_view why) {
      return absl::InvalidArgumentError(absl::StrCat(
          clause, ": commit(plan from ", internal::cells(plan.from), " to ", internal::cells(plan.target), " at version ",
          plan.expected_version, ") at origin ", internal::cells(origin_), " version ", version_, ": ", why, "; got ",
          got.ok() ? absl::StrCat("origin ", internal::cells(got->origin), " version ", got->version)
                   : internal::status_text(got.status())));
    };
    if (!want.ok()) {
      if (!got.ok() && got.status().code() == want.status().code()) return absl::OkStatus();
      const absl::StatusCode code = want.status().code();
      const absl::string_view message = want.status().message();
      const absl::string_view clause = absl::StartsWith(message, "R12") ? "R12 view identity"
                                       : code == absl::StatusCode::kUnavailable     ? "R13 safe phase"
                                       : code == absl::StatusCode::kFailedPrecondition ? "R6 barrier"
                                       : code == absl::StatusCode::kOutOfRange      ? "R7 failure atomicity"
                                                                                    : "R8 staleness";
      return fail(clause, absl::StrCat("must be ", internal::status_text(want.status())));
    }
    if (!got.ok()) return fail("R6 barrier", "every condition holds, the commit must succeed");
    if (!(*got == *want)) return fail("R3 one origin per version", "the new origin must be the target at version + 1");
    origin_ = want->origin;
    version_ = want->version;
    return absl::OkStatus();
  }

  // expected_begin_step(), expected_end_step()
  //
  // R13: begin_step() is FailedPrecondition inside a step, end_step() outside one; otherwise OK.
  [[nodiscard]] absl::Status expected_begin_step() const {
    return in_step_ ? absl::FailedPreconditionError("R13 safe phase: begin_step inside a step") : absl::OkStatus();
  }
  [[nodiscard]] absl::Status expected_end_step() const {
    return in_step_ ? absl::OkStatus() : absl::FailedPreconditionError("R13 safe phase: end_step outside a step");
  }

  // check_begin_step(), check_end_step()
  //
  // R13: `got` (an implementation's answer) has the expected code; on success the model follows it.
  [[nodiscard]] absl::Status check_begin_step(const absl::Status& got) { return check_step(true, got); }
  [[nodiscard]] absl::Status check_end_step(const absl::Status& got) { return check_step(false, got); }

  // check_phase()
  //
  // R13: the view is inside a simulation step exactly when the model is.
  [[nodiscard]] absl::Status check_phase(bool in_step) const {
    if (in_step == in_step_) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat("R13 safe phase: the view is ", in_step ? "inside" : "outside",
                                                   " a simulation step, the model ", in_step_ ? "inside" : "outside"));
  }

  // check_view()
  //
  // R7: the view's origin, version and loaded cells are the model's (after a failure, exactly what they
  // were before it).
  [[nodiscard]] absl::Status check_view(const CellIndex<D>& origin, std::uint64_t version,
                                        std::span<const CellIndex<D>> loaded) const {
    std::vector<CellIndex<D>> sorted(loaded.begin(), loaded.end());
    std::sort(sorted.begin(), sorted.end());
    const bool same_loaded = std::equal(sorted.begin(), sorted.end(), loaded_.begin(), loaded_.end());
    if (origin == origin_ && version == version_ && same_loaded) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat("R7 failure atomicity: the view is at origin ", internal::cells(origin),
                                                   " version ", version, " with ", loaded.size(),
                                                   " loaded cells; the model at ", internal::cells(origin_), " version ",
                                                   version_, " with ", loaded_.size()));
  }

 private:
  [[nodiscard]] absl::Status check_step(bool begin, const absl::Status& got) {
    const absl::Status want = begin ? expected_begin_step() : expected_end_step();
    if (got.code() != want.code()) {
      return absl::InvalidArgumentError(absl::StrCat("R13 safe phase: ", begin ? "begin_step" : "end_step", " ",
                                                     in_step_ ? "inside" : "outside", " a step must be ",
                                                     internal::status_text(want), ", got ", internal::status_text(got)));
    }
    if (want.ok()) in_step_ = begin;
    return absl::OkStatus();
  }

  std::int64_t size_;
  std::int64_t threshold_;
  std::int64_t radius_;
  CellIndex<D> origin_;
  std::uint64_t version_;
  ViewId view_;
  bool in_step_ = false;
  std::set<CellIndex<D>> loaded_;
};

// R12 -----------------------------------------------------------------------------------------------

// check_stamped()
//
// R12: what view `view` handed out (a render point, a late ticket, a plan) carries its id.
[[nodiscard]] inline absl::Status check_stamped(ViewId view, ViewId stamped, absl::string_view what) {
  if (stamped == view) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("R12 view identity: ", what, " of view ", view.value,
                                                 " is stamped with view ", stamped.value));
}

// check_foreign_refused()
//
// R12: an input stamped by view `stamped` given to view `view`: when they differ the answer must be
// InvalidArgument, whatever else holds (versions equal or not); when they are the same, OK (the caller
// judges the answer by the other clauses).
[[nodiscard]] inline absl::Status check_foreign_refused(ViewId view, ViewId stamped, absl::string_view what,
                                                        const absl::Status& got) {
  if (stamped == view || got.code() == absl::StatusCode::kInvalidArgument) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("R12 view identity: ", what, " of view ", stamped.value,
                                                 " given to view ", view.value, " must be InvalidArgument, got ",
                                                 internal::status_text(got)));
}

// R9 ------------------------------------------------------------------------------------------------

// check_late()
//
// R9: placing `result` in a view now at (origin, version): a result started at a later version is
// InvalidArgument; a baked result from an older version is Aborted; otherwise the answer is exactly a
// fresh conversion of its anchor now (R4, R5), whatever happened since it started.
template <std::size_t D>
[[nodiscard]] absl::Status check_late(const RenderSpec& spec, const CellIndex<D>& origin, std::uint64_t version,
                                      const LateResult<D>& result, const absl::StatusOr<RenderPoint<D>>& got) {
  const auto expect_error = [&](absl::StatusCode code, absl::string_view why) {
    if (!got.ok() && got.status().code() == code) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat("R9 late results: ", why, " (started at version ",
                                                   result.started_version, ", now ", version, "): must be ",
                                                   absl::StatusCodeToString(code), ", got ",
                                                   got.ok() ? std::string("a placement") : internal::status_text(got.status())));
  };
  if (result.started_version > version) return expect_error(absl::StatusCode::kInvalidArgument, "a result from the future");
  if (result.placement == LatePlacement::kBakedLocal && result.started_version != version) {
    return expect_error(absl::StatusCode::kAborted, "a result baked in an older frame is stale");
  }
  if (absl::Status s = check_render(spec, origin, version, result.anchor, got); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("R9 late results: not the fresh conversion: ", s.message()));
  }
  return absl::OkStatus();
}

// check_late() with a view
//
// R12 then R9: a ticket of another view is InvalidArgument; otherwise check_late above, and a placement
// carries `view`.
template <std::size_t D>
[[nodiscard]] absl::Status check_late(const RenderSpec& spec, const CellIndex<D>& origin, std::uint64_t version,
                                      ViewId view, const LateResult<D>& result,
                                      const absl::StatusOr<RenderPoint<D>>& got) {
  if (result.view != view) return check_foreign_refused(view, result.view, "a late result", got.status());
  if (absl::Status s = check_late(spec, origin, version, result, got); !s.ok()) return s;
  return got.ok() ? check_stamped(view, got->view, "a late placement") : absl::OkStatus();
}

// R10 -----------------------------------------------------------------------------------------------

// check_no_drift()
//
// R10: after any number of rebases, the local position of every active object is bit for bit the fresh
// conversion of its anchor at the current origin (NaN on every axis for an object outside the bubble).
template <std::size_t D>
[[nodiscard]] absl::Status check_no_drift(const RenderSpec& spec, const CellIndex<D>& origin,
                                          std::span<const WorldPosition<D>> anchors,
                                          std::span<const std::array<float, D>> locals) {
  if (anchors.size() != locals.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("R10 no drift: ", anchors.size(), " anchors but ", locals.size(), " locals"));
  }
  for (std::size_t i = 0; i < anchors.size(); ++i) {
    const bool outside = std::all_of(locals[i].begin(), locals[i].end(), [](float v) { return fp::is_nan(v); });
    const absl::StatusOr<RenderPoint<D>> as_render =
        outside ? absl::StatusOr<RenderPoint<D>>(absl::OutOfRangeError("NaN locals"))
                : absl::StatusOr<RenderPoint<D>>(RenderPoint<D>{locals[i], 0});
    if (absl::Status s = check_render(spec, origin, 0, anchors[i], as_render); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("R10 no drift: object ", i, ": ", s.message()));
    }
  }
  return absl::OkStatus();
}

// R11 -----------------------------------------------------------------------------------------------

// check_round_trip()
//
// R11 for render point `y` given to a view at (origin, version): a point of another version is
// FailedPrecondition; otherwise `world` is the normalisation (R1) of origin + y * units_per_render_unit
// on every axis, and when that position is exact and inside the bubble, `again` (its conversion back)
// equals y on every axis.
template <std::size_t D>
[[nodiscard]] absl::Status check_round_trip(const RenderSpec& spec, const CellIndex<D>& origin,
                                            std::uint64_t version, const RenderPoint<D>& y,
                                            const absl::StatusOr<WorldPosition<D>>& world,
                                            const absl::StatusOr<RenderPoint<D>>& again) {
  using internal::Wide;
  if (y.version != version) {
    if (!world.ok() && world.status().code() == absl::StatusCode::kFailedPrecondition) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat("R11 round trip: a render point of version ", y.version,
                                                   " at version ", version, " must be FailedPrecondition, got ",
                                                   internal::status_text(world.status())));
  }
  std::array<double, D> scaled_offset;
  for (std::size_t a = 0; a < D; ++a) {
    scaled_offset[a] = static_cast<double>(y.at[a]) * static_cast<double>(spec.units_per_render_unit);
  }
  if (absl::Status s = check_normalize(spec.cell_size, origin, scaled_offset, world); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("R11 round trip: ", s.message()));
  }
  if (!world.ok()) return absl::OkStatus();
  bool exact = true;
  bool inside = true;
  const Wide bubble = Wide::scaled(absl::int128(spec.bubble_units));
  for (std::size_t a = 0; a < D; ++a) {
    const Wide value = internal::exact_axis(world->cell[a], world->offset[a], origin[a], spec.cell_size);
    exact &= value == Wide::scaled(static_cast<double>(y.at[a])) * static_cast<std::uint64_t>(spec.units_per_render_unit);
    inside &= value <= bubble && -bubble <= value;
  }
  if (!exact || !inside) return absl::OkStatus();
  bool same = again.ok() && again->version == version;
  for (std::size_t a = 0; same && a < D; ++a) same &= again->at[a] == y.at[a];
  if (same) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("R11 round trip: ", internal::position(*world),
                                                 " is exact but does not render back to the same point: ",
                                                 again.ok() ? "different coordinates" : internal::status_text(again.status())));
}

// check_round_trip() with a view
//
// R12 then R11: a render point of another view is InvalidArgument (before its version is looked at);
// otherwise check_round_trip above, and `again` carries `view`.
template <std::size_t D>
[[nodiscard]] absl::Status check_round_trip(const RenderSpec& spec, const CellIndex<D>& origin,
                                            std::uint64_t version, ViewId view, const RenderPoint<D>& y,
                                            const absl::StatusOr<WorldPosition<D>>& world,
                                            const absl::StatusOr<RenderPoint<D>>& again) {
  if (y.view != view) return check_foreign_refused(view, y.view, "a render point", world.status());
  if (absl::Status s = check_round_trip(spec, origin, version, y, world, again); !s.ok()) return s;
  return again.ok() ? check_stamped(view, again->view, "a render point") : absl::OkStatus();
}

// R14, R15 ------------------------------------------------------------------------------------------

// wire_words()
//
// The fields of a value in wire order, as 64-bit words (cells and versions as two's complement, offsets
// as their bits), for comparing a decoder's answer with wire_violation's reading.
template <std::size_t D>
[[nodiscard]] std::vector<std::uint64_t> wire_words(const WorldPosition<D>& p) {
  std::vector<std::uint64_t> w;
  for (std::size_t a = 0; a < D; ++a) w.push_back(static_cast<std::uint64_t>(p.cell[a]));
  for (std::size_t a = 0; a < D; ++a) w.push_back(std::bit_cast<std::uint64_t>(p.offset[a]));
  return w;
}

template <std::size_t D>
[[nodiscard]] std::vector<std::uint64_t> wire_words(const RebasePlan<D>& plan) {
  std::vector<std::uint64_t> w;
  for (std::size_t a = 0; a < D; ++a) w.push_back(static_cast<std::uint64_t>(plan.from[a]));
  for (std::size_t a = 0; a < D; ++a) w.push_back(static_cast<std::uint64_t>(plan.target[a]));
  w.push_back(plan.expected_version);
  return w;
}

template <std::size_t D>
[[nodiscard]] std::vector<std::uint64_t> wire_words(const Rebased<D>& update) {
  std::vector<std::uint64_t> w;
  for (std::size_t a = 0; a < D; ++a) w.push_back(static_cast<std::uint64_t>(update.origin[a]));
  w.push_back(update.version);
  return w;
}

// wire_violation()
//
// The oracle of R14/R15, read from the table in docs/rebase.md rather than from the decoder: the first
// rule `bytes` breaks as a message of `kind` with `axes` axes in a world of cell size `cell_size`
// (its reason), or nullopt and `words` the payload's fields. Fields are copied out with memcpy and
// byte-swapped on a big-endian host; offsets are judged on their bits (exponent all ones: not finite;
// sign bit: negative or -0.0) and then compared with the cell size.
[[nodiscard]] inline std::optional<std::string> wire_violation(std::span<const std::uint8_t> bytes, WireKind kind,
                                                               std::size_t axes, std::int64_t cell_size,
                                                               std::vector<std::uint64_t>& words) {
  words.clear();
  const std::size_t fields = kind == WireKind::kPosition ? 2 * axes : kind == WireKind::kPlan ? 2 * axes + 1 : axes + 1;
  if (bytes.size() < 8) return std::string("shorter than a header");
  if (std::string_view(reinterpret_cast<const char*>(bytes.data()), 4) != "LWCR") return std::string("magic");
  if (bytes[4] != 1) return std::string("format version");
  if (bytes[5] != static_cast<std::uint8_t>(kind)) return std::string("kind");
  if (bytes[6] != axes) return std::string("axes");
  if (bytes[7] != 0) return std::string("reserved byte");
  if (bytes.size() != 8 + 8 * fields) return std::string("length");
  for (std::size_t i = 0; i < fields; ++i) {
    std::uint64_t v = 0;
    std::memcpy(&v, bytes.data() + 8 + 8 * i, sizeof v);
    if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
    words.push_back(v);
  }
  if (kind == WireKind::kPosition) {
    for (std::size_t a = 0; a < axes; ++a) {
      const std::uint64_t bits = words[axes + a];
      if (((bits >> 52) & 0x7ff) == 0x7ff) return absl::StrCat("offset ", a, " not finite");
      if ((bits >> 63) != 0) return absl::StrCat("offset ", a, " negative or -0.0");
      if (!(std::bit_cast<double>(bits) < static_cast<double>(cell_size))) return absl::StrCat("offset ", a, " >= size");
    }
  }
  return std::nullopt;
}

// check_wire_decode()
//
// R15: a decoder's answer on `bytes` (`got`, and when it is OK `got_words`, the decoded value's
// wire_words) is an error with a non-empty reason exactly when wire_violation finds a rule broken
// (Unimplemented for another format version, InvalidArgument otherwise); R14: when the bytes are well
// formed, the value is the one they encode, field for field and bit for bit, and `reencoded` (the
// encoder's answer on that value) is `bytes` exactly: one encoding per value, and a round trip.
[[nodiscard]] inline absl::Status check_wire_decode(std::span<const std::uint8_t> bytes, WireKind kind, std::size_t axes,
                                                    std::int64_t cell_size, const absl::Status& got,
                                                    std::span<const std::uint64_t> got_words,
                                                    const absl::StatusOr<std::vector<std::uint8_t>>& reencoded) {
  std::vector<std::uint64_t> words;
  const std::optional<std::string> broken = wire_violation(bytes, kind, axes, cell_size, words);
  if (broken.has_value()) {
    const absl::StatusCode want =
        *broken == "format version" ? absl::StatusCode::kUnimplemented : absl::StatusCode::kInvalidArgument;
    if (got.code() == want && !got.message().empty()) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat("R15 malformed input: ", bytes.size(), " bytes break the rule \"",
                                                   *broken, "\" and must be ", absl::StatusCodeToString(want),
                                                   " with a reason, got ", internal::status_text(got)));
  }
  if (!got.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("R15 malformed input: a well-formed ", bytes.size(),
                                                   "-byte message was refused: ", internal::status_text(got)));
  }
  if (!std::equal(words.begin(), words.end(), got_words.begin(), got_words.end())) {
    return absl::InvalidArgumentError("R14 wire format: the decoded value is not the one the bytes encode");
  }
  if (!reencoded.ok() || !std::equal(reencoded->begin(), reencoded->end(), bytes.begin(), bytes.end())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "R14 wire format: re-encoding the decoded value does not give the same bytes: ",
        reencoded.ok() ? absl::StrCat(reencoded->size(), " other bytes") : internal::status_text(reencoded.status())));
  }
  return absl::OkStatus();
}

// R17 -----------------------------------------------------------------------------------------------

// oriented_error_bound()
//
// R17's bound for a view of `spec` in N dimensions: 2^(k - 24) + 2^(k - 50), k = floor(log2(N * B / d)) + 1,
// found by exact integer comparison (written apart from the library's loop).
[[nodiscard]] inline double oriented_error_bound(const RenderSpec& spec, std::size_t axes) {
  const absl::int128 nb = absl::int128(spec.bubble_units) * static_cast<std::int64_t>(axes);
  for (int k = -30; k < 100; ++k) {
    const bool above = k >= 0 ? (absl::int128(spec.units_per_render_unit) << k) > nb
                              : absl::int128(spec.units_per_render_unit) > (nb << -k);
    if (above) return std::ldexp(1.0, k - 24) + std::ldexp(1.0, k - 50);
  }
  return std::numeric_limits<double>::infinity();
}

// check_oriented_render()
//
// R17 for one conversion of `p` by a view with `origin`, rotated by `r`: OutOfRange exactly when the
// unrotated conversion is (R5); otherwise InvalidArgument exactly when p is not normalised (R1), and
// else every coordinate within oriented_error_bound of the exact (R * ((cell - origin) * size + offset))_i / d,
// judged in exact arithmetic: R's entries are dyadic (m * 2^e with e >= -112, as R17 requires entries
// 0 or >= 2^-60), so every product is an integer multiple of 2^-(1200 + 112).
template <std::size_t D>
[[nodiscard]] absl::Status check_oriented_render(const RenderSpec& spec, const CellIndex<D>& origin,
                                                 std::uint64_t version, const Rotation<D>& r,
                                                 const WorldPosition<D>& p, const absl::StatusOr<RenderPoint<D>>& got) {
  using internal::Wide;
  const absl::StatusOr<RenderPoint<D>> plain = oracle_render<D>(spec, origin, version, p);
  if (!plain.ok()) {
    if (!got.ok() && got.status().code() == plain.status().code()) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat("R17 oriented views: ", internal::position(p), " must be ",
                                                   internal::status_text(plain.status()), ", got ",
                                                   got.ok() ? std::string("a point") : internal::status_text(got.status())));
  }
  if (!got.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("R17 oriented views: ", internal::position(p),
                                                   " is inside the bubble, got ", internal::status_text(got.status())));
  }
  if (got->version != version) return absl::InvalidArgumentError("R17 oriented views: the point is not tagged with the version");
  constexpr int kShift = 112;
  const auto d = static_cast<std::uint64_t>(spec.units_per_render_unit);
  const Wide bound = Wide::scaled(oriented_error_bound(spec, D)).shl(kShift) * d;
  for (std::size_t i = 0; i < D; ++i) {
    Wide exact = Wide::of(0);
    for (std::size_t j = 0; j < D; ++j) {
      const double rij = r.rows[i][j];
      if (rij == 0) continue;
      std::uint64_t m = 0;
      int e = 0;
      fp::decode(rij, m, e);
      if (e + kShift < 0) return absl::InvalidArgumentError("R17 oriented views: a rotation entry below 2^-60");
      const Wide term = (internal::exact_axis(p.cell[j], p.offset[j], origin[j], spec.cell_size) * m).shl(e + kShift);
      exact = fp::sign_bit(rij) ? exact - term : exact + term;
    }
    const Wide y = Wide::scaled(static_cast<double>(got->at[i])).shl(kShift) * d;
    const Wide diff = y - exact;
    if (compare(diff, bound) > 0 || compare(-diff, bound) > 0) {
      return absl::InvalidArgumentError(absl::StrCat("R17 oriented views: axis ", i, " of ", internal::position(p),
                                                     " rotated is off by more than ", internal::hex(oriented_error_bound(spec, D)),
                                                     " render units: got ", internal::hex(static_cast<double>(got->at[i]))));
    }
  }
  return absl::OkStatus();
}

}  // namespace lwc::contracts

LWC_EXACT_FP_END

#endif  // LWC_CONTRACTS_REBASE_H_
