// SPDX-License-Identifier: MIT
// File: modules/lwc/broadphase/place.h
//
// The second room of a box's way, for the batch and the persistent grid alike: the validated
// configuration (GridConfig, GridSpec) and placement — a box validated (:box), its level chosen and its
// cells quantised once (B6-B8, B11). Two paths lead there: the fast one quantises the boxes of a batch 64
// at a time through cell_of_all (D11), the slow one places one box (GridSpec::place) and names the first
// failure exactly. A batch's placements keep every box's cells (CellStore), so nothing after this room
// quantises a box again at its own level.
// Spec: docs/broadphase.md (B6-B8, B11; the E-clauses place one box at a time).
//
// One source, two modes (lwc/config.h): `#include <lwc/broadphase.h>` brings it without module support;
// the module unit modules/broadphase/place.cppm exports the same declarations as lwc.broadphase:place.
#ifndef LWC_BROADPHASE_PLACE_H_
#define LWC_BROADPHASE_PLACE_H_

#include "lwc/config.h"
#ifndef LWC_MODULE_UNIT  // modules/broadphase/place.cppm includes these in its global module fragment
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "lwc/exact_fp.h"
#include "lwc/kernels.h"
// ... and imports these.
#include "lwc/budget.h"
#include "lwc/decompose.h"
#include "lwc/broadphase/box.h"
#endif

// The arithmetic below is exact IEEE arithmetic whatever the consumer's flags (lwc/exact_fp.h).
LWC_EXACT_FP_BEGIN

LWC_EXPORT namespace lwc {

}  // namespace lwc

namespace lwc::internal {

// The broad phase's budgets (lwc/budget.h): cells per box, memberships per grid, pairs per call.
struct CellBudgetTag {
  using Count = std::int64_t;
  static constexpr Count kMin = 1;
  static constexpr const char* kName = "max_cells_per_box";
  static constexpr const char* kWhy = ": no box could be placed";
  static constexpr const char* kClause = "B6";
};
struct MembershipBudgetTag {
  using Count = std::int64_t;
  static constexpr Count kMin = 0;
  static constexpr const char* kName = "max_memberships";
  static constexpr const char* kWhy = "";
  static constexpr const char* kClause = "B6";
};
struct PairBudgetTag {
  using Count = std::int64_t;
  static constexpr Count kMin = 0;
  static constexpr const char* kName = "max_pairs";
  static constexpr const char* kWhy = "";
  static constexpr const char* kClause = "B6";
};

}  // namespace lwc::internal

LWC_EXPORT namespace lwc {

using CellBudget = Budget<internal::CellBudgetTag>;
using MembershipBudget = Budget<internal::MembershipBudgetTag>;
using PairBudget = Budget<internal::PairBudgetTag>;

// Oversize
//
// What happens to a box that spans more than `max_cells_per_box` cells, or whose cells are not int64:
// kReject refuses the whole call (ResourceExhausted or OutOfRange); kCoarserLevels places the box on
// the finest level of cell size h * 2^k where it fits, and pairs it with finer boxes by probing (B11).
enum class Oversize { kReject, kCoarserLevels };

// GridConfig
//
// The cell size h, the budgets (B7: checked before anything proportional to them is allocated; exactly
// at a budget is allowed) and the oversize policy. Every field is a validated value, so the only check
// left to GridSpec::create is the one between fields (kCoarserLevels needs max_cells_per_box >= 4^D).
//
// Example:
//   absl::StatusOr<lwc::CellSize> h = lwc::CellSize::create(2.0);
//   absl::StatusOr<lwc::PairBudget> pairs = lwc::PairBudget::create(1 << 20);
//   if (!h.ok() || !pairs.ok()) return ...;
//   lwc::GridConfig config{.cell_size = *h, .max_pairs = *pairs};
struct GridConfig {
  CellSize cell_size = CellSize::of<1.0>();
  CellBudget max_cells_per_box = CellBudget::of<4096>();  // cells per box; at least 4^D under kCoarserLevels
  MembershipBudget max_memberships = MembershipBudget::of<std::int64_t{1} << 26>();  // (box, cell) registrations
  PairBudget max_pairs = PairBudget::of<std::int64_t{1} << 26>();                     // reported pairs
  Oversize oversize = Oversize::kReject;
};

// Placement
//
// Where one box lives: its level (0 is cell size h; level k has cell size h * 2^k), its cells there, and
// how many there are.
template <std::size_t D>
struct Placement {
  int level = 0;
  CellRange<D> cells{};
  std::int64_t cell_count = 0;
};

// cell_range()
//
// The cells of a valid box at cell size h: lo = cell_of(min), hi = cell_of(max) on every axis, both
// inclusive (B8). OutOfRange when a cell is not an int64; InvalidArgument for a non-finite bound.
template <std::size_t D>
[[nodiscard]] absl::StatusOr<CellRange<D>> cell_range(const Box<D>& box, CellSize h) {
  // The kernel (modules/lwc/kernels.h) is the code proved by proofs/broadphase_proof.cc (B8).
  CellRange<D> r{};
  return kernels::cell_range_of<D>(
      kernels::MachineOps<std::int64_t>{}, box, r, [&](double v) LWC_LAMBDA_INLINE { return cell_of(v, h); },
      [](const absl::StatusOr<std::int64_t>& refused) LWC_LAMBDA_INLINE -> absl::StatusOr<CellRange<D>> {
        return refused.status();
      },
      [&]() LWC_LAMBDA_INLINE -> absl::StatusOr<CellRange<D>> { return r; });
}

// cell_count()
//
// The number of cells in `r` (hi >= lo on every axis), saturated at 2^64: exact whenever it can be
// compared with an int64 budget. Every axis has at most 2^64 cells; the product saturates instead of
// wrapping.
template <std::size_t D>
[[nodiscard]] constexpr absl::uint128 cell_count(const CellRange<D>& r) noexcept {
  constexpr absl::uint128 kSaturated = absl::uint128(1) << 64;
  absl::uint128 product = 1;
  for (std::size_t k = 0; k < D; ++k) {
    const auto axis = static_cast<absl::uint128>(absl::int128(r.hi[k]) - absl::int128(r.lo[k]) + 1);
    product = axis > kSaturated / product ? kSaturated : std::min(product * axis, kSaturated);
  }
  return product;
}

}  // namespace lwc

namespace lwc::internal {

// The highest level whose cell size h * 2^k is finite.
[[nodiscard]] inline int top_level(double h) {
  return std::ilogb(std::numeric_limits<double>::max()) - std::ilogb(h);
}

// h * 2^level, exactly, or false when it overflows. On the bits (lwc/exact_fp.h): std::ldexp reads a
// subnormal h as 0 under denormals-are-zero.
[[nodiscard]] inline bool level_cell_size(double h, int level, double& out) { return fp::scale_exact(h, level, out); }
// The same for a level that exists (an occupied one, so h * 2^level is finite); 0, which no CellSize
// accepts, for one that does not.
[[nodiscard]] inline double level_cell_size(double h, int level) {
  double out = 0;
  return level_cell_size(h, level, out) ? out : 0.0;
}

// OutOfRange for a valid box whose cells at h are not all int64, naming the first bound that is not (B6).
template <std::size_t D>
[[nodiscard]] absl::Status cells_outside_int64(const Box<D>& box, CellSize h, const Named& who) {
  for (std::size_t k = 0; k < D; ++k) {
    for (const bool upper : {false, true}) {
      const double v = upper ? box.max[k] : box.min[k];
      if (cell_of(v, h).ok()) continue;
      return absl::OutOfRangeError(absl::StrCat(who.text(), ": ", upper ? "max " : "min ", decimal(v), " on axis ", k,
                                                " is in cell floor(", decimal(v), " / ", decimal(h.value()),
                                                "), outside int64 (B6)"));
    }
  }
  return absl::OutOfRangeError(absl::StrCat(who.text(), ": a cell is outside int64 (B6)"));  // LCOV_EXCL_LINE: cell_range failed, so a bound does
}

// ResourceExhausted for a box of `count` cells at h, more than max_cells_per_box (B7).
[[nodiscard]] inline absl::Status too_many_cells(absl::uint128 count, std::int64_t budget, CellSize h,
                                                 const Named& who) {
  const std::string cells = (count >> 64) != 0 ? std::string("2^64 or more") : absl::StrCat(static_cast<std::uint64_t>(count));
  return absl::ResourceExhaustedError(absl::StrCat(who.text(), ": spans ", cells, " cells at cell size ",
                                                   decimal(h.value()), ", more than max_cells_per_box = ", budget,
                                                   " (B7)"));
}

}  // namespace lwc::internal

LWC_EXPORT namespace lwc {

// GridSpec
//
// A validated GridConfig: its fields are validated values, and their combination fits. Creating one is the
// only way to get one, so `place` and the grid need no config errors of their own.
//
// Example:
//   absl::StatusOr<lwc::GridSpec<2>> spec = lwc::GridSpec<2>::create({.cell_size =
// lwc::CellSize::of<2.0>()});
//   if (!spec.ok()) return spec.status();
//   absl::StatusOr<lwc::Placement<2>> where = spec->place(box, 7);
template <std::size_t D>
  requires(D == 2 || D == 3)
class GridSpec {
 public:
  // create()
  //
  // InvalidArgument when (kCoarserLevels) max_cells_per_box < 4^D: with fewer, a box straddling a cell
  // corner would fit no level (B11). The cell size and the budgets were validated by their own create()
  // (B6: CellSize::create, CellBudget::create, MembershipBudget::create, PairBudget::create).
  [[nodiscard]] static absl::StatusOr<GridSpec> create(const GridConfig& config) {
    if (config.oversize == Oversize::kCoarserLevels && config.max_cells_per_box.value() < kCornerCells) {
      return absl::InvalidArgumentError(absl::StrCat("kCoarserLevels needs max_cells_per_box >= ", kCornerCells,
                                                     " (4^D), got ", config.max_cells_per_box.value(), " (B11)"));
    }
    return GridSpec(config);
  }

  [[nodiscard]] const GridConfig& config() const noexcept { return config_; }
  [[nodiscard]] CellSize cell_size() const noexcept { return config_.cell_size; }

  // place()
  //
  // Validates `box` (InvalidArgument naming `index`) and finds its level and cells. kReject: level 0,
  // OutOfRange when a cell is not an int64, ResourceExhausted when it spans more than max_cells_per_box
  // cells (decided from the span alone, in constant time). kCoarserLevels: the smallest level k >= 0 at
  // which its cells are int64 and at most max_cells_per_box (B11); every valid box has one.
  [[nodiscard]] absl::StatusOr<Placement<D>> place(const Box<D>& box, std::size_t index) const {
    return place(box, internal::Named::box(index));
  }
  // The same, the errors naming `who` (lwc::internal).
  [[nodiscard]] absl::StatusOr<Placement<D>> place(const Box<D>& box, const internal::Named& who) const {
    if (absl::Status s = internal::validate(box, who); !s.ok()) return s;
    const std::int64_t budget = config_.max_cells_per_box.value();
    absl::StatusOr<CellRange<D>> base = cell_range(box, config_.cell_size);
    if (base.ok()) {
      const absl::uint128 count = cell_count(*base);
      if (count <= budget) return Placement<D>{0, *base, static_cast<std::int64_t>(count)};
      if (config_.oversize == Oversize::kReject) return internal::too_many_cells(count, budget, config_.cell_size, who);
    } else if (config_.oversize == Oversize::kReject) {
      return internal::cells_outside_int64(box, config_.cell_size, who);
    }
    return place_coarse(box, who);
  }

 private:
  static constexpr std::int64_t kCornerCells = D == 2 ? 16 : 64;

  explicit GridSpec(const GridConfig& config) : config_(config) {}

  // A lower bound of the level of a box (kCoarserLevels): the widest axis has more than extent / h_k
  // cells, and a coordinate v needs |v| / h_k <= 2^63. Both are compared through binary exponents,
  // rounding toward smaller k.
  [[nodiscard]] int first_level(const Box<D>& box) const {
    const double h = config_.cell_size.value();
    const int budget_bits = static_cast<int>(std::bit_width(static_cast<std::uint64_t>(config_.max_cells_per_box.value())));
    int start = 0;
    for (std::size_t k = 0; k < D; ++k) {
      const double extent = box.max[k] - box.min[k];  // may round up to +inf: then ilogb is INT_MAX
      if (extent > 0 && fp::is_finite(extent)) {
        start = std::max(start, std::ilogb(extent) - std::ilogb(h) - 1 - budget_bits);
      }
      for (const double v : {box.min[k], box.max[k]}) {
        if (v != 0) start = std::max(start, std::ilogb(v) - std::ilogb(h) - 1 - 63);
      }
    }
    return start;
  }

  // The level search for kCoarserLevels. "Fits at level k" is monotone in k (docs B11: a cell at 2h is
  // the floor of half the cell at h), so it starts from first_level and steps up.
  [[nodiscard]] absl::StatusOr<Placement<D>> place_coarse(const Box<D>& box, const internal::Named& who) const {
    const double h = config_.cell_size.value();
    const int top = internal::top_level(h);
    for (int level = first_level(box); level <= top; ++level) {
      double hk_value = 0;
      if (!internal::level_cell_size(h, level, hk_value)) break;
      absl::StatusOr<CellSize> hk = CellSize::create(hk_value);
      if (!hk.ok()) break;
      absl::StatusOr<CellRange<D>> r = cell_range(box, *hk);
      if (!r.ok()) continue;
      const absl::uint128 count = cell_count(*r);
      if (count <= config_.max_cells_per_box.value()) return Placement<D>{level, *r, static_cast<std::int64_t>(count)};
    }
    // Unreachable for a valid spec (B11: at the top level every finite box spans at most 4 cells per  LCOV_EXCL_START: unreachable by B11, see the line above and below
    // axis), kept as an error rather than a check so that a broken invariant cannot corrupt a caller.
    return absl::ResourceExhaustedError(absl::StrCat(who.text(), ": fits no level (B11)"));  // LCOV_EXCL_STOP
  }

  GridConfig config_;
};

}  // namespace lwc

namespace lwc::internal {

// The cells of every box of a batch, kept from its one quantisation, in box order. Compact while every
// range fits (its first cell relative to the first box's in int32 per axis, and its spans, cells - 1, in
// 32 / D bits each: 12-16 bytes a box); wide (the CellRange, 32-48 bytes) from the first range that does
// not fit on. A box that has no cells at level 0 (a coarse one) has an entry that is never read.
template <std::size_t D>
class CellStore {
 public:
  static constexpr std::uint32_t kSpanBits = 32 / D;
  struct Compact {
    std::array<std::int32_t, D> lo;
    std::uint32_t spans;
  };

  void reserve(std::size_t n) { compact_.reserve(n); }
  [[nodiscard]] bool compact() const noexcept { return wide_.empty() && compact_ok_; }
  [[nodiscard]] const std::array<std::int64_t, D>& anchor() const noexcept { return anchor_; }
  [[nodiscard]] const std::vector<Compact>& entries() const noexcept { return compact_; }

  [[gnu::always_inline]] inline void push(const CellRange<D>& r) {
    if (compact_ok_) {
      Compact e{};
      if (compact_.empty()) anchor_ = r.lo;
      if (pack(r, e)) {
        compact_.push_back(e);
        return;
      }
      to_wide();
    }
    wide_.push_back(r);
  }
  // An entry for a box with no cells at level 0.
  void skip() {
    if (compact_ok_) {
      compact_.push_back(Compact{});
    } else {
      wide_.push_back(CellRange<D>{});
    }
  }

  [[nodiscard]] CellRange<D> operator[](std::size_t i) const {
    if (!compact_ok_) return wide_[i];
    const Compact& e = compact_[i];
    CellRange<D> r;
    for (std::size_t k = 0; k < D; ++k) {
      r.lo[k] = anchor_[k] + e.lo[k];
      r.hi[k] = r.lo[k] + static_cast<std::int64_t>((e.spans >> (k * kSpanBits)) & kMask);
    }
    return r;
  }

  // Packs the spans (cells - 1) of a range into 32 / D bits each; false when one needs more.
  [[nodiscard]] [[gnu::always_inline]] static inline bool pack_spans(const CellRange<D>& r, std::uint32_t& spans) {
    spans = 0;
    bool fits = true;
    for (std::size_t k = 0; k < D; ++k) {
      std::int64_t span = 0;  // hi >= lo
      fits = fits && !__builtin_sub_overflow(r.hi[k], r.lo[k], &span) && span < (std::int64_t{1} << kSpanBits);
      if (fits) spans |= static_cast<std::uint32_t>(span) << (k * kSpanBits);
    }
    return fits;
  }

 private:
  static constexpr std::uint32_t kMask = (std::uint32_t{1} << kSpanBits) - 1;

  [[nodiscard]] [[gnu::always_inline]] inline bool pack(const CellRange<D>& r, Compact& e) const {
    bool fits = pack_spans(r, e.spans);
    for (std::size_t k = 0; k < D; ++k) {
      std::int64_t offset = 0;
      fits = fits && !__builtin_sub_overflow(r.lo[k], anchor_[k], &offset) &&
             offset >= std::numeric_limits<std::int32_t>::min() && offset <= std::numeric_limits<std::int32_t>::max();
      e.lo[k] = static_cast<std::int32_t>(fits ? offset : 0);
    }
    return fits;
  }
  [[gnu::noinline]] void to_wide() {
    wide_.reserve(compact_.capacity());
    for (std::size_t i = 0; i < compact_.size(); ++i) wide_.push_back((*this)[i]);
    compact_ok_ = false;
    compact_ = {};
  }

  bool compact_ok_ = true;
  std::array<std::int64_t, D> anchor_{};
  std::vector<Compact> compact_;
  std::vector<CellRange<D>> wide_;
};

// The fast path of placement: the cells of up to kBoxes boxes at once through the batch quantiser
// (lwc.decompose D11, whose loop inlines the exact quantiser). quantise_block returns false when any box
// of the block is invalid, has a cell outside int64 or spans more than `budget` cells: the caller then
// places that block box by box (GridSpec::place), which finds and names the first failure exactly (or a
// coarser level for it).
template <std::size_t D>
struct BlockCells {
  static constexpr std::size_t kBoxes = 64;
  std::array<double, kBoxes * 2 * D> coords;
  std::array<std::int64_t, kBoxes * 2 * D> cells;  // box b, axis k: lo at 2 * (b * D + k), hi after it
  std::array<std::int64_t, kBoxes> counts;

  [[nodiscard]] CellRange<D> range(std::size_t b) const {
    CellRange<D> r;
    for (std::size_t k = 0; k < D; ++k) {
      r.lo[k] = cells[2 * (b * D + k)];
      r.hi[k] = cells[2 * (b * D + k) + 1];
    }
    return r;
  }
  // The box b as read (each float widened once, B13).
  [[nodiscard]] Box<D> box(std::size_t b) const {
    Box<D> out;
    for (std::size_t k = 0; k < D; ++k) {
      out.min[k] = coords[2 * (b * D + k)];
      out.max[k] = coords[2 * (b * D + k) + 1];
    }
    return out;
  }
};

// The cell counts of a quantised block, each checked against `budget` in overflow-checked arithmetic.
template <std::size_t D>
[[nodiscard]] bool count_block(std::size_t boxes, std::int64_t budget, BlockCells<D>& out) {
  for (std::size_t b = 0; b < boxes; ++b) {
    std::int64_t count = 1;
    for (std::size_t k = 0; k < D; ++k) {
      std::int64_t span = 0;
      if (__builtin_sub_overflow(out.cells[2 * (b * D + k) + 1], out.cells[2 * (b * D + k)], &span) ||
          span >= budget || __builtin_mul_overflow(count, span + 1, &count) || count > budget) {
        return false;
      }
    }
    out.counts[b] = count;
  }
  return true;
}

template <std::size_t D, typename Boxes>
[[nodiscard]] bool quantise_block(const Boxes& boxes, CellSize h, std::int64_t budget, BlockCells<D>& out) {
  bool ordered = true;
  for (std::size_t b = 0; b < boxes.size(); ++b) {
    const auto& box = boxes[b];  // a caller's float box is widened here, once (B13)
    for (std::size_t k = 0; k < D; ++k) {
      ordered &= box.min[k] <= box.max[k];  // false for NaN; infinities fail in cell_of_all
      out.coords[2 * (b * D + k)] = box.min[k];
      out.coords[2 * (b * D + k) + 1] = box.max[k];
    }
  }
  if (!ordered) return false;
  const std::size_t n = 2 * D * boxes.size();
  if (!cell_of_all(std::span<const double>(out.coords.data(), n), h, std::span<std::int64_t>(out.cells.data(), n)).ok()) {
    return false;
  }
  return count_block<D>(boxes.size(), budget, out);
}

// A box above level 0 (kCoarserLevels) and its placement.
template <std::size_t D>
struct Coarse {
  std::uint32_t id;
  Placement<D> where;
};

// The placements of a batch (B6-B8, B11): the total memberships (int128: summed before any budget is
// checked), level 0's cell bounds, memberships and box bounds, each level-0 box's cells (CellStore), and
// the boxes above level 0 with their placements, by index.
template <std::size_t D>
struct Placements {
  absl::int128 total = 0;
  std::int64_t base_memberships = 0;  // <= total, which the caller checks before any use
  CellRange<D> base_cells{};          // the lowest and highest level-0 cell on each axis
  Box<D> base_bounds{};               // the union of the level-0 boxes
  std::size_t base_boxes = 0;
  CellStore<D> cells;
  std::vector<Coarse<D>> coarse;

  Placements() {
    base_cells.lo.fill(std::numeric_limits<std::int64_t>::max());
    base_cells.hi.fill(std::numeric_limits<std::int64_t>::min());
  }

  // A box of level 0, its cells `r` and their count.
  [[gnu::always_inline]] inline void add_base(const Box<D>& box, const CellRange<D>& r, std::int64_t count) {
    total += count;
    base_memberships += count;
    for (std::size_t k = 0; k < D; ++k) {
      base_cells.lo[k] = std::min(base_cells.lo[k], r.lo[k]);
      base_cells.hi[k] = std::max(base_cells.hi[k], r.hi[k]);
      base_bounds.min[k] = base_boxes == 0 ? box.min[k] : std::min(base_bounds.min[k], box.min[k]);
      base_bounds.max[k] = base_boxes == 0 ? box.max[k] : std::max(base_bounds.max[k], box.max[k]);
    }
    ++base_boxes;
    cells.push(r);
  }
};

// One block of boxes [begin, begin + part.size()) placed: by the fast path when the whole block takes
// it, otherwise box by box (GridSpec::place, whose error for the first failing box is returned).
template <std::size_t D, typename Boxes>
[[nodiscard]] absl::Status place_block(const Boxes& part, std::size_t begin, const GridSpec<D>& spec,
                                       BlockCells<D>& block, Placements<D>& out) {
  if (quantise_block<D>(part, spec.cell_size(), spec.config().max_cells_per_box.value(), block)) {
    for (std::size_t b = 0; b < part.size(); ++b) out.add_base(block.box(b), block.range(b), block.counts[b]);
    return absl::OkStatus();
  }
  for (std::size_t b = 0; b < part.size(); ++b) {
    const Box<D> box = part[b];  // a caller's float box is widened here (B13)
    absl::StatusOr<Placement<D>> where = spec.place(box, Named::box(begin + b));
    if (!where.ok()) return where.status();
    if (where->level == 0) {
      out.add_base(box, where->cells, where->cell_count);
    } else {
      out.total += where->cell_count;
      out.coarse.push_back({static_cast<std::uint32_t>(begin + b), *where});
      out.cells.skip();
    }
  }
  return absl::OkStatus();
}

// Validation and placement of a batch (B6-B8, B11), each box quantised once: nothing proportional to a
// box's cells is allocated, and the first failing box in index order decides the error.
template <std::size_t D, typename Boxes>
[[nodiscard]] absl::StatusOr<Placements<D>> place_all(const Boxes& boxes, const GridSpec<D>& spec) {
  Placements<D> out;
  out.cells.reserve(boxes.size());
  BlockCells<D> block;
  for (std::size_t begin = 0; begin < boxes.size(); begin += BlockCells<D>::kBoxes) {
    const auto part = boxes.subspan(begin, std::min(BlockCells<D>::kBoxes, boxes.size() - begin));
    if (absl::Status s = place_block<D>(part, begin, spec, block, out); !s.ok()) return s;
  }
  return out;
}

}  // namespace lwc::internal

LWC_EXACT_FP_END

#endif  // LWC_BROADPHASE_PLACE_H_
