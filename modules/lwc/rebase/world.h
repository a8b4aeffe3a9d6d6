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

// ViewConfig
//
// How one view (camera) rebases. Defaults: a threshold of 2 cells (the plan/commit floating-origin
// example's), a 3x3 (3x3x3) barrier.
struct ViewConfig {
  // Rebase when the observer's cell is at least this many cells from the origin on some axis. >= 1.
  std::int64_t threshold_cells = 2;
  // Every cell within this Chebyshev distance of the new origin must be loaded. In [0, 64].
  std::int64_t barrier_radius = 1;
  // World units per render unit (100 for centimetres rendered in metres). In [1, 2^20].
  std::int64_t units_per_render_unit = 1;
  // The render bubble: to_render is OutOfRange when |position - origin| exceeds this many world units
  // on some axis. In [1, 2^44].
  std::int64_t bubble_units = std::int64_t{1} << 24;
};

}  // namespace lwc

LWC_EXACT_FP_END

#endif  // LWC_REBASE_WORLD_H_
