// SPDX-License-Identifier: MIT
// File: modules/broadphase/spec.cppm    Module: lwc.broadphase:spec
//
// The vocabulary shared by the batch broad phase (modules/broadphase.cppm) and the persistent grid
// (modules/broadphase/persistent.cppm): boxes, pairs, cell ranges, budgets, the validated configuration
// GridSpec and its per-box placement (validation, quantisation, per-box budget, oversize levels).
// Spec: docs/broadphase.md (B6-B8, B11; the E-clauses reuse them one box at a time).
#ifndef LWC_HEADER_BUILD
module;
#endif
#include "lwc/config.h"
#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <ostream>
#include <utility>
#include <vector>

#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lwc/exact_fp.h"
#include "lwc/kernels.h"
#ifndef LWC_HEADER_BUILD
export module lwc.broadphase:spec;

import lwc.decompose;
#else
#include "lwc/decompose.h"
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

// overlaps()
//
// True iff the closed boxes share a point: min_a <= max_b and min_b <= max_a on every axis.
//
// Under denormals-are-zero (LWC_DENORMALS_ARE_ZERO, lwc/exact_fp.h) the CPU compares every subnormal as
// 0, so `4.9e-324 <= -4.9e-324` is true there. That mode only ever turns a false comparison into a true
// one (it maps subnormals to zeros, monotonically), so a "no" of the CPU is exact and a "yes" is
// confirmed on the bits: the extra test runs for overlapping boxes only.
template <std::size_t D>
[[nodiscard]] constexpr bool overlaps(const Box<D>& a, const Box<D>& b) noexcept {
  for (std::size_t k = 0; k < D; ++k) {
    if (!(a.min[k] <= b.max[k] && b.min[k] <= a.max[k])) return false;
  }
#if LWC_DENORMALS_ARE_ZERO
  for (std::size_t k = 0; k < D; ++k) {
    if (!fp::less_equal(a.min[k], b.max[k]) || !fp::less_equal(b.min[k], a.max[k])) return false;
  }
#endif
  return true;
}

// Pair
//
// Two box indices into the input span, a < b. Pairs order lexicographically (the canonical order).
struct Pair {
  std::uint32_t a;
  std::uint32_t b;

  friend constexpr bool operator==(const Pair&, const Pair&) noexcept = default;
  friend constexpr auto operator<=>(const Pair&, const Pair&) noexcept = default;
  friend std::ostream& operator<<(std::ostream& os, const Pair& p) {
    return os << "(" << p.a << ", " << p.b << ")";
  }
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

// Stats
//
// Exact counts (B12) of one call. A "visit" is one (pair, shared cell) incidence met while pairing; a
// "candidate" is a pair met in its reference cell, i.e. a distinct pair sharing a cell. Stats are a pure
// function of the input (equal inputs give equal stats); the time a call took is a Timings probe.
struct Stats {
  std::int64_t boxes = 0;
  std::int64_t memberships = 0;      // sum over boxes of the cells at the box's level
  std::int64_t occupied_cells = 0;   // distinct (level, cell) with at least one box
  std::int64_t pair_visits = 0;      // sum over shared cells of every candidate pair
  std::int64_t unique_candidates = 0;
  std::int64_t pairs = 0;
  std::int64_t levels = 0;           // levels holding at least one box
  std::int64_t coarse_boxes = 0;     // boxes above level 0 (kCoarserLevels only)
};

// Timings
//
// The wall-clock split of one call, in nanoseconds: a probe the caller asks for by passing a pointer
// (find_pairs, Grid::create, Grid::pairs, PersistentGrid::update), never part of a result. A call fills
// the fields of the phases it ran and leaves the others as they were; with no probe it reads no clock.
//
// Example:
//   lwc::Timings t;
//   absl::StatusOr<lwc::PairsResult> r = lwc::find_pairs(boxes, config, &t);
//   log(t.validation_ns, t.registration_ns, t.pairing_ns);
struct Timings {
  std::int64_t validation_ns = 0;    // validation and placement of every box, and the budget checks
  std::int64_t registration_ns = 0;  // registering the boxes in their cells
  std::int64_t pairing_ns = 0;       // pairing and sorting
  std::int64_t update_ns = 0;        // one PersistentGrid::update, whole
};

// PairsResult
//
// The pairs in canonical order (B1-B4) and the stats of the call that found them.
struct PairsResult {
  std::vector<Pair> pairs;
  Stats stats;
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

// validate_box()
//
// OK iff every bound is finite and min <= max on every axis; otherwise InvalidArgument naming `index`
// and the axis (B6). Exposed for a persistent grid that validates boxes one at a time.
template <std::size_t D>
[[nodiscard]] absl::Status validate_box(const Box<D>& box, std::size_t index) {
  for (std::size_t k = 0; k < D; ++k) {
    if (!fp::is_finite(box.min[k]) || !fp::is_finite(box.max[k])) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "box %d: bound on axis %d is not finite (min %a, max %a) (B6)", index, k, box.min[k], box.max[k]));
    }
  }
  for (std::size_t k = 0; k < D; ++k) {
    if (!fp::less_equal(box.min[k], box.max[k])) {  // on the bits: exact under denormals-are-zero
      return absl::InvalidArgumentError(absl::StrFormat("box %d: min %a > max %a on axis %d (B6)", index,
                                                        box.min[k], box.max[k], k));
    }
  }
  return absl::OkStatus();
}

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

using Clock = std::chrono::steady_clock;

// A stopwatch for an optional Timings probe: reads the clock only when there is a probe to fill.
class Stopwatch {
 public:
  explicit Stopwatch(const Timings* probe) : started_(probe != nullptr ? Clock::now() : Clock::time_point{}) {}
  // Stores the nanoseconds since construction in *field when `probe` is set; otherwise nothing.
  void stop(Timings* probe, std::int64_t Timings::*field) const {
    if (probe == nullptr) return;
    probe->*field = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - started_).count();
  }

 private:
  Clock::time_point started_;
};

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

// radix_sort()
//
// LSD radix sort of `a` by bits [shift, shift + bits) of each word; stable, so equal keys keep their
// input order. At most 11 bits per pass (2048 buckets stay in L1), every pass's histogram counted in one
// read of `a`; a pass whose digit is the same for every word is skipped. `scratch` and `counts` keep their
// capacity: a caller that keeps them allocates nothing once warm. The one radix sort of find_pairs and of
// the persistent grid (issue 15).
inline void radix_sort(std::vector<std::uint64_t>& a, std::vector<std::uint64_t>& scratch,
                       std::vector<std::size_t>& counts, int shift, int bits) {
  if (bits <= 0 || a.size() < 2) return;
  const int passes = (bits + 10) / 11;
  const int digit = (bits + passes - 1) / passes;
  const std::size_t buckets = std::size_t{1} << digit;
  const std::uint64_t mask = buckets - 1;
  counts.assign(buckets * static_cast<std::size_t>(passes), 0);
  for (const std::uint64_t w : a) {
    for (int p = 0; p < passes; ++p) {
      ++counts[static_cast<std::size_t>(p) * buckets + ((w >> (shift + p * digit)) & mask)];
    }
  }
  scratch.resize(a.size());
  for (int p = 0; p < passes; ++p) {
    std::size_t* c = counts.data() + static_cast<std::size_t>(p) * buckets;
    const int s = shift + p * digit;
    if (c[(a[0] >> s) & mask] == a.size()) continue;  // every word has the same digit
    std::size_t sum = 0;
    for (std::size_t i = 0; i < buckets; ++i) sum += std::exchange(c[i], sum);
    for (const std::uint64_t w : a) scratch[c[(w >> s) & mask]++] = w;
    a.swap(scratch);
  }
}

// The same with counts of its own (allocated per call).
inline void radix_sort(std::vector<std::uint64_t>& a, std::vector<std::uint64_t>& scratch, int shift, int bits) {
  std::vector<std::size_t> counts;
  radix_sort(a, scratch, counts, shift, bits);
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
  [[nodiscard]] CellSize cell_size() const noexcept { return h_; }

  // place()
  //
  // Validates `box` (InvalidArgument naming `index`) and finds its level and cells. kReject: level 0,
  // OutOfRange when a cell is not an int64, ResourceExhausted when it spans more than max_cells_per_box
  // cells (decided from the span alone, in constant time). kCoarserLevels: the smallest level k >= 0 at
  // which its cells are int64 and at most max_cells_per_box (B11); every valid box has one.
  [[nodiscard]] absl::StatusOr<Placement<D>> place(const Box<D>& box, std::size_t index) const {
    if (absl::Status s = validate_box(box, index); !s.ok()) return s;
    const std::int64_t budget = config_.max_cells_per_box.value();
    absl::StatusOr<CellRange<D>> base = cell_range(box, h_);
    if (base.ok()) {
      const absl::uint128 count = cell_count(*base);
      if (count <= budget) return Placement<D>{0, *base, static_cast<std::int64_t>(count)};
      if (config_.oversize == Oversize::kReject) {
        return absl::ResourceExhaustedError(absl::StrFormat(
            "box %d: spans more than max_cells_per_box = %d cells at cell size %a (B7)", index, budget,
            h_.value()));
      }
    } else if (config_.oversize == Oversize::kReject) {
      return absl::OutOfRangeError(
          absl::StrCat("box ", index, ": ", base.status().message(), " (B6)"));
    }
    return place_coarse(box, index);
  }

 private:
  static constexpr std::int64_t kCornerCells = D == 2 ? 16 : 64;

  explicit GridSpec(const GridConfig& config) : config_(config), h_(config.cell_size) {}

  // The level search for kCoarserLevels. "Fits at level k" is monotone in k (docs B11: a cell at 2h is
  // the floor of half the cell at h), so it starts from a lower bound read off the exponents and steps up.
  [[nodiscard]] absl::StatusOr<Placement<D>> place_coarse(const Box<D>& box, std::size_t index) const {
    const double h = h_.value();
    const std::int64_t budget = config_.max_cells_per_box.value();
    // Lower bound: the widest axis has more than extent / h_k cells, and a coordinate v needs
    // |v| / h_k <= 2^63. Both are compared through binary exponents, rounding toward smaller k.
    int start = 0;
    const int budget_bits = static_cast<int>(std::bit_width(static_cast<std::uint64_t>(budget)));
    for (std::size_t k = 0; k < D; ++k) {
      const double extent = box.max[k] - box.min[k];  // may round up to +inf: then ilogb is INT_MAX
      if (extent > 0 && fp::is_finite(extent)) {
        start = std::max(start, std::ilogb(extent) - std::ilogb(h) - 1 - budget_bits);
      }
      for (const double v : {box.min[k], box.max[k]}) {
        if (v != 0) start = std::max(start, std::ilogb(v) - std::ilogb(h) - 1 - 63);
      }
    }
    const int top = internal::top_level(h);
    for (int level = start; level <= top; ++level) {
      double hk_value = 0;
      if (!internal::level_cell_size(h, level, hk_value)) break;
      absl::StatusOr<CellSize> hk = CellSize::create(hk_value);
      if (!hk.ok()) break;
      absl::StatusOr<CellRange<D>> r = cell_range(box, *hk);
      if (!r.ok()) continue;
      const absl::uint128 count = cell_count(*r);
      if (count <= budget) return Placement<D>{level, *r, static_cast<std::int64_t>(count)};
    }
    // Unreachable for a valid spec (B11: at the top level every finite box spans at most 4 cells per  LCOV_EXCL_START: unreachable by B11, see the line above and below
    // axis), kept as an error rather than a check so that a broken invariant cannot corrupt a caller.
    return absl::ResourceExhaustedError(absl::StrFormat("box %d: fits no level (B11)", index));  // LCOV_EXCL_STOP
  }

  GridConfig config_;
  CellSize h_;
};

}  // namespace lwc

LWC_EXACT_FP_END
