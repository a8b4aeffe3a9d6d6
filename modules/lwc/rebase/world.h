// SPDX-License-Identifier: MIT
// File: modules/lwc/rebase/world.h
//
// The world of lwc.rebase: its cell size and positions normalised in it (WorldGrid, R1), and what a view
// is configured with (ViewConfig: R4, R5, R6).
// Included by <lwc/rebase.h> (and so in the purview of lwc.rebase); not a header to include on its own.
#ifndef LWC_REBASE_WORLD_H_
#define LWC_REBASE_WORLD_H_

#include "lwc/config.h"
#ifndef LWC_MODULE_UNIT  // modules/rebase.cppm includes these in its global module fragment
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <ostream>

#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "lwc/exact_fp.h"
#include "lwc/format.h"
#include "lwc/rebase/exact.h"
// ... and imports these.
#include "lwc/decompose.h"
#include "lwc/rebase/spec.h"
#endif

// The arithmetic below is exact IEEE arithmetic whatever the consumer's flags (lwc/exact_fp.h).
LWC_EXACT_FP_BEGIN

LWC_EXPORT namespace lwc {

// WorldGrid
//
// The world's cell size: an integer number of world units, 1 <= size <= 2^53 (so that every offset
// below it, and the size itself, are exact doubles). Choose the world unit so the cell is an integer
// (centimetres for a 10.24 m cell). One grid is shared by every view of a world.
class WorldGrid {
 public:
  static constexpr std::int64_t kMaxCellSize = std::int64_t{1} << 53;

  // create()
  //
  // InvalidArgument unless cell_size <= 2^53 (a ChunkSize is already >= 1).
  //
  // Example:
  //   absl::StatusOr<lwc::WorldGrid> grid = lwc::WorldGrid::create(lwc::ChunkSize::of<1024>());
  [[nodiscard]] static absl::StatusOr<WorldGrid> create(ChunkSize cell_size) {
    if (cell_size.value() > kMaxCellSize) {
      return absl::InvalidArgumentError(
          absl::StrCat("cell size ", cell_size.value(), " is outside [1, 2^53] (R1)"));
    }
    absl::StatusOr<CellSize> real = CellSize::create(static_cast<double>(cell_size.value()));
    if (!real.ok()) return real.status();
    return WorldGrid(cell_size, *real);
  }

  [[nodiscard]] constexpr ChunkSize cell_size() const noexcept { return chunk_; }

  friend constexpr bool operator==(const WorldGrid& a, const WorldGrid& b) noexcept {
    return a.chunk_ == b.chunk_;
  }

  // normalize()
  //
  // The position nearest to cell * size + offset (per axis, exact real arithmetic) whose offsets lie in
  // [0, size): exact whenever that offset is a double, otherwise rounded once, carrying into the next
  // cell when the nearest double is the size itself (R1). Errors: InvalidArgument for a NaN or infinite
  // offset; OutOfRange when the resulting cell is outside int64 (never a wrap).
  //
  // Example: normalize({0}, {-1e-17}) at size 16 is {cell 0, offset 0}: the exact offset 16 - 1e-17 in
  // cell -1 is nearest to 16.0, which is cell 0's origin.
  template <std::size_t D>
  [[nodiscard]] absl::StatusOr<WorldPosition<D>> normalize(const CellIndex<D>& cell,
                                                           const std::array<double, D>& offset) const {
    WorldPosition<D> p;
    for (std::size_t a = 0; a < D; ++a) {
      absl::Status s = internal::normalize_axis(a, cell[a], offset[a], chunk_.value(), real_, p.cell[a], p.offset[a]);
      if (!s.ok()) return s;
    }
    return p;
  }

  // validate()
  //
  // OK iff every offset of `p` is finite and in [0, size) (R1); InvalidArgument otherwise.
  template <std::size_t D>
  [[nodiscard]] absl::Status validate(const WorldPosition<D>& p) const {
    for (std::size_t a = 0; a < D; ++a) {
      if (!(p.offset[a] >= 0 && p.offset[a] < real_.value())) {
        return absl::InvalidArgumentError(absl::StrCat("position offset ", internal::message_real_exact(p.offset[a]),
                                                       " on axis ", a, " is not in [0, ", chunk_.value(),
                                                       "): not normalised (R1)"));
      }
    }
    return absl::OkStatus();
  }

  // from_fixed()
  //
  // The position of an integer world point: per axis split(units, size) (lwc.decompose), the local part
  // as the offset. Total and exact (R1).
  template <std::size_t D>
  [[nodiscard]] WorldPosition<D> from_fixed(const FixedPoint<D>& point) const {
    WorldPosition<D> p;
    for (std::size_t a = 0; a < D; ++a) {
      const ChunkPoint cp = split(point.units[a], chunk_);
      p.cell[a] = cp.chunk;
      p.offset[a] = static_cast<double>(cp.local);  // local < size <= 2^53: exact
    }
    return p;
  }

  // to_fixed()
  //
  // The integer world point of `p`, exactly (R1). InvalidArgument when `p` is not normalised or an offset
  // is not a whole number of world units (no rounding is done); OutOfRange when a coordinate is outside
  // int64.
  template <std::size_t D>
  [[nodiscard]] absl::StatusOr<FixedPoint<D>> to_fixed(const WorldPosition<D>& p) const {
    if (absl::Status s = validate(p); !s.ok()) return s;
    FixedPoint<D> out;
    for (std::size_t a = 0; a < D; ++a) {
      if (std::floor(p.offset[a]) != p.offset[a]) {
        return absl::InvalidArgumentError(absl::StrCat("to_fixed: offset ", internal::message_real_exact(p.offset[a]),
                                                       " on axis ", a, " is not a whole number of world units (R1)"));
      }
      const absl::int128 v = absl::int128(p.cell[a]) * chunk_.value() + static_cast<std::int64_t>(p.offset[a]);
      if (v < internal::kMinCell || v > internal::kMaxCell) {
        return absl::OutOfRangeError(
            absl::StrCat("to_fixed: axis ", a, " of cell ", internal::describe_cell(p.cell), " is outside int64 units"));
      }
      out.units[a] = static_cast<std::int64_t>(v);
    }
    return out;
  }

 private:
  WorldGrid(ChunkSize chunk, CellSize real) : chunk_(chunk), real_(real) {}

  // Invariant: chunk_.value() == real_.value(), in [1, 2^53].
  ChunkSize chunk_;
  CellSize real_;
};

}  // namespace lwc

namespace lwc::internal {

// The four settings of a view. Each range is where the clause that uses the field holds: T and r in the
// barrier (R6), d in the exact conversion (R4) and its bound (R5), B in the bubble (R5).
struct ThresholdCellsTag {
  static constexpr std::int64_t kMin = 1;
  static constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  static constexpr const char* kName = "threshold_cells";
  static constexpr const char* kRange = "[1, inf)";
  static constexpr const char* kClauses = "R6";
};
struct BarrierRadiusTag {
  static constexpr std::int64_t kMin = 0;
  static constexpr std::int64_t kMax = 64;
  static constexpr const char* kName = "barrier_radius";
  static constexpr const char* kRange = "[0, 64]";
  static constexpr const char* kClauses = "R6";
};
struct UnitsPerRenderUnitTag {
  static constexpr std::int64_t kMin = 1;
  static constexpr std::int64_t kMax = std::int64_t{1} << 20;
  static constexpr const char* kName = "units_per_render_unit";
  static constexpr const char* kRange = "[1, 2^20]";
  static constexpr const char* kClauses = "R4, R5";
};
struct BubbleUnitsTag {
  static constexpr std::int64_t kMin = 1;
  static constexpr std::int64_t kMax = std::int64_t{1} << 44;
  static constexpr const char* kName = "bubble_units";
  static constexpr const char* kRange = "[1, 2^44]";
  static constexpr const char* kClauses = "R5";
};

}  // namespace lwc::internal

LWC_EXPORT namespace lwc {

// ViewSetting
//
// One validated field of a ViewConfig: an int64 in [kMin, kMax], made as every validated value of lwc
// is — `create(v)` returns it or InvalidArgument naming the field, its range and clause ("view config:
// barrier_radius 65 is outside [0, 64] (R6)"), `of<N>()` checks a constant at compile time, `value()`
// reads it back. Each setting is its own type, told apart by its tag.
template <typename Tag>
class ViewSetting {
 public:
  static constexpr std::int64_t kMin = Tag::kMin;
  static constexpr std::int64_t kMax = Tag::kMax;

  [[nodiscard]] static absl::StatusOr<ViewSetting> create(std::int64_t v) {
    if (v < kMin || v > kMax) {
      return absl::InvalidArgumentError(
          absl::StrCat("view config: ", Tag::kName, " ", v, " is outside ", Tag::kRange, " (", Tag::kClauses, ")"));
    }
    return ViewSetting(v);
  }
  template <std::int64_t N>
    requires(N >= kMin && N <= kMax)
  [[nodiscard]] static consteval ViewSetting of() noexcept {
    return ViewSetting(N);
  }

  [[nodiscard]] constexpr std::int64_t value() const noexcept { return value_; }
  friend constexpr bool operator==(ViewSetting, ViewSetting) noexcept = default;
  friend std::ostream& operator<<(std::ostream& os, ViewSetting v) { return os << v.value_; }

 private:
  constexpr explicit ViewSetting(std::int64_t v) noexcept : value_(v) {}

  // Invariant: kMin <= value_ <= kMax.
  std::int64_t value_;
};

using ThresholdCells = ViewSetting<internal::ThresholdCellsTag>;
using BarrierRadius = ViewSetting<internal::BarrierRadiusTag>;
using UnitsPerRenderUnit = ViewSetting<internal::UnitsPerRenderUnitTag>;
using BubbleUnits = ViewSetting<internal::BubbleUnitsTag>;

// ViewConfig
//
// How one view (camera) rebases; every field is validated by its type. Defaults: a threshold of 2 cells
// (the plan/commit floating-origin example's), a 3x3 (3x3x3) barrier, world units as render units, a
// bubble of 2^24 units.
//
// Example:
//   lwc::ViewConfig metres{.units_per_render_unit = lwc::UnitsPerRenderUnit::of<100>()};
//   absl::StatusOr<lwc::ViewConfig> from_a_file = lwc::ViewConfig::create(2, 1, 100, 1 << 24);
struct ViewConfig {
  // Rebase when the observer's cell is at least this many cells from the origin on some axis.
  ThresholdCells threshold_cells = ThresholdCells::of<2>();
  // Every cell within this Chebyshev distance of the new origin must be loaded.
  BarrierRadius barrier_radius = BarrierRadius::of<1>();
  // World units per render unit (100 for centimetres rendered in metres).
  UnitsPerRenderUnit units_per_render_unit = UnitsPerRenderUnit::of<1>();
  // The render bubble: to_render is OutOfRange when |position - origin| exceeds this many world units
  // on some axis.
  BubbleUnits bubble_units = BubbleUnits::of<(std::int64_t{1} << 24)>();

  // create()
  //
  // The config of four plain numbers (read from a file, or through the C API), or the first field's
  // InvalidArgument.
  [[nodiscard]] static absl::StatusOr<ViewConfig> create(std::int64_t threshold_cells, std::int64_t barrier_radius,
                                                         std::int64_t units_per_render_unit,
                                                         std::int64_t bubble_units) {
    absl::StatusOr<ThresholdCells> t = ThresholdCells::create(threshold_cells);
    if (!t.ok()) return t.status();
    absl::StatusOr<BarrierRadius> r = BarrierRadius::create(barrier_radius);
    if (!r.ok()) return r.status();
    absl::StatusOr<UnitsPerRenderUnit> d = UnitsPerRenderUnit::create(units_per_render_unit);
    if (!d.ok()) return d.status();
    absl::StatusOr<BubbleUnits> b = BubbleUnits::create(bubble_units);
    if (!b.ok()) return b.status();
    return ViewConfig{*t, *r, *d, *b};
  }
};

}  // namespace lwc

LWC_EXACT_FP_END

#endif  // LWC_REBASE_WORLD_H_
