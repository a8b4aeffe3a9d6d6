// SPDX-License-Identifier: MIT
// File: modules/lwc/rebase.h
//
// Floating origin without losing the world: authoritative positions are an integer cell plus an offset
// inside it, and render coordinates are derived from them, per view, relative to an origin cell that
// changes only by a versioned, barrier-guarded commit. Late asynchronous results are placed from their
// world anchor, never from a local position computed under an older origin.
// Every render point, late ticket and plan is stamped with the identity of the view that made it and is
// refused by any other view (R12); a commit is accepted only outside the engine's simulation step (R13).
// The value types live in the partition :spec, the wire format (R14, R15) in :wire.
// Spec: docs/rebase.md (clauses R1-R15). Checkers and model: lwc.contracts.rebase.
//
// One source, two modes (lwc/config.h): `#include <lwc/rebase.h>` brings it without module support; the
// module unit modules/rebase.cppm exports the same declarations as `import lwc.rebase;`.
#ifndef LWC_REBASE_H_
#define LWC_REBASE_H_

#include "lwc/config.h"
#ifndef LWC_MODULE_UNIT  // modules/rebase.cppm includes these in its global module fragment
#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <optional>
#include <ostream>
#include <span>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/btree_map.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "lwc/check.h"
#include "lwc/exact_fp.h"
#include "lwc/format.h"
#include "lwc/walk.h"
// ... and imports these.
#include "lwc/decompose.h"
#include "lwc/rebase/spec.h"
#include "lwc/rebase/wire.h"
#endif

// Its exact arithmetic (R1, R4, R5) and view ids (R12), internals, and its world: the cell size and
// positions in it (WorldGrid), what a view is configured with (ViewConfig).
#include "lwc/rebase/exact.h"
#include "lwc/rebase/world.h"

// The arithmetic below is exact IEEE arithmetic whatever the consumer's flags (lwc/exact_fp.h).
LWC_EXACT_FP_BEGIN

LWC_EXPORT namespace lwc {

// OriginCoordinator
//
// The floating origin of one view. It owns the origin cell, its version and the set of loaded cells; it
// never owns or writes an authoritative position (R2), so any number of coordinators (split screen,
// several cameras) share one world. Each has its own ViewId (R12): what one view hands out, another
// refuses. A copy is the same view (a snapshot with the same id, to restore), not a second one.
// The engine brackets its simulation step with begin_step() / end_step(); commit is refused inside (R13).
//
// Example:
//   absl::StatusOr<std::optional<lwc::RebasePlan<2>>> plan = view.plan(observer);
//   if (!plan.ok()) return plan.status();          // FailedPrecondition: cells missing; try next frame
//   if (*plan) {
//     absl::StatusOr<lwc::Rebased<2>> done = view.commit(**plan);   // at the frame boundary
//     if (done.ok()) (void)view.to_render_all(anchors, locals);     // re-derive, never `-= shift`
//   }
template <std::size_t D>
  requires(D == 2 || D == 3)
class OriginCoordinator {
 public:
  static constexpr std::int64_t kMaxBarrierRadius = BarrierRadius::kMax;
  static constexpr std::int64_t kMaxUnitsPerRenderUnit = UnitsPerRenderUnit::kMax;
  static constexpr std::int64_t kMaxBubbleUnits = BubbleUnits::kMax;

  // create()
  //
  // A view of `grid` with origin `origin` at version `version` (restoring a saved view; a new one starts
  // at the zero cell and version 0), no cell loaded, outside a simulation step, with a fresh ViewId
  // (R12; a restored view gets a new id too: ids are process-local). The config's fields are validated
  // by their types; ResourceExhausted once 2^64 - 1 views have been created in this process (ids are
  // never reused).
  [[nodiscard]] static absl::StatusOr<OriginCoordinator> create(WorldGrid grid, ViewConfig config,
                                                                CellIndex<D> origin = {},
                                                                std::uint64_t version = 0) {
    const std::uint64_t id = internal::issue_view_id();
    if (id == 0) return absl::ResourceExhaustedError("view config: every view id of this process is used (R12)");
    return OriginCoordinator(grid, config, origin, version, ViewId{id});
  }

  [[nodiscard]] const WorldGrid& grid() const noexcept { return grid_; }
  [[nodiscard]] const ViewConfig& config() const noexcept { return config_; }
  [[nodiscard]] const CellIndex<D>& origin() const noexcept { return origin_; }
  [[nodiscard]] std::uint64_t version() const noexcept { return version_; }
  // id(): the identity stamped into this view's render points, late tickets and plans (R12).
  [[nodiscard]] ViewId id() const noexcept { return id_; }

  // Safe phase (R13) ----------------------------------------------------------------------------------

  // begin_step(), end_step(), in_step()
  //
  // The engine declares its simulation step (physics, gameplay that reads render-frame positions):
  // between begin_step() and end_step() commit() is refused with Unavailable and changes nothing, so
  // the origin moves only between steps, where no body is half integrated in the old frame.
  // FailedPrecondition for begin_step() inside a step or end_step() outside one (nothing changes).
  // Everything else (plan, conversions, late results, loads) is allowed in a step.
  [[nodiscard]] absl::Status begin_step() {
    if (in_step_) return absl::FailedPreconditionError("begin_step: already inside a simulation step (R13)");
    in_step_ = true;
    return absl::OkStatus();
  }
  [[nodiscard]] absl::Status end_step() {
    if (!in_step_) return absl::FailedPreconditionError("end_step: not inside a simulation step (R13)");
    in_step_ = false;
    return absl::OkStatus();
  }
  [[nodiscard]] bool in_step() const noexcept { return in_step_; }

  // render_error_bound()
  //
  // The largest |to_render(p) - exact| over every p inside the bubble, in render units (R5): half a
  // float ulp at the bubble's edge, 2^(floor(log2(bubble / d)) - 24) for d = units_per_render_unit.
  [[nodiscard]] double render_error_bound() const {
    // k = floor(log2(bubble / d)), from the integers: the largest k with 2^k * d <= bubble. The quotient
    // is in [2^-20, 2^44], so k is in [-20, 44].
    const auto d = absl::uint128(static_cast<std::uint64_t>(config_.units_per_render_unit.value()));
    const auto b = absl::uint128(static_cast<std::uint64_t>(config_.bubble_units.value()));
    int k = 44;
    while (k >= 0 ? (d << k) > b : d > (b << -k)) --k;
    return std::ldexp(1.0, k - std::numeric_limits<float>::digits);
  }

  // Oriented views (R17) ------------------------------------------------------------------------------

  // rotation_status()
  //
  // OK iff `r` is a rotation this view accepts (R17): finite entries of magnitude <= 1, each 0 or at
  // least 2^-60 in magnitude (smaller ones: write 0), rows of unit length and pairwise orthogonal within
  // 2^-20, determinant positive. InvalidArgument naming what is wrong.
  [[nodiscard]] static absl::Status rotation_status(const Rotation<D>& r) {
    for (std::size_t i = 0; i < D; ++i) {
      for (std::size_t j = 0; j < D; ++j) {
        const double v = r.rows[i][j];
        if (!fp::is_finite(v) || std::fabs(v) > 1 || (v != 0 && std::fabs(v) < 0x1p-60)) {
          const char* why = !fp::is_finite(v) ? "is not finite" : std::fabs(v) > 1 ? "is outside [-1, 1]"
                                                                   : "is nonzero below 2^-60 (write 0)";
          return absl::InvalidArgumentError(absl::StrCat("rotation: entry (", i, ", ", j, ") = ",
                                                         internal::message_real_exact(v), " ", why, " (R17)"));
        }
      }
    }
    for (std::size_t i = 0; i < D; ++i) {
      for (std::size_t k = i; k < D; ++k) {
        double dot = 0;
        for (std::size_t j = 0; j < D; ++j) dot += r.rows[i][j] * r.rows[k][j];
        if (std::fabs(dot - (i == k ? 1.0 : 0.0)) > 0x1p-20) {
          return absl::InvalidArgumentError(
              absl::StrCat("rotation: rows ", i, " and ", k, " have dot product ", internal::message_real_exact(dot),
                           ", not within 2^-20 of ", i == k ? "1" : "0", ": not orthonormal (R17)"));
        }
      }
    }
    double det = 0;
    if constexpr (D == 2) {
      det = r.rows[0][0] * r.rows[1][1] - r.rows[0][1] * r.rows[1][0];
    } else {
      const auto& m = r.rows;
      det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
            m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
    }
    if (!(det > 0)) return absl::InvalidArgumentError("rotation: the determinant is not positive (a reflection) (R17)");
    return absl::OkStatus();
  }

  // to_render_oriented()
  //
  // The render coordinates of `p` in a view whose frame is rotated by `r` (R17): on each axis within
  // oriented_error_bound() of the exact (R * ((cell - origin) * size + offset))_i / units_per_render_unit
  // (no longer the nearest float: R's products are rounded). Tagged with the version and view. Errors:
  // InvalidArgument for a position that is not normalised or a rotation rotation_status() refuses;
  // OutOfRange when the unrotated point is outside the bubble on some axis (R5's test, unchanged).
  [[nodiscard]] absl::StatusOr<RenderPoint<D>> to_render_oriented(const WorldPosition<D>& p, const Rotation<D>& r) const {
    if (absl::Status s = grid_.validate(p); !s.ok()) return s;
    if (absl::Status s = rotation_status(r); !s.ok()) return s;
    RenderPoint<D> out;
    if (!render_rotated(p, r, out.at)) {
      return absl::OutOfRangeError(absl::StrCat("to_render_oriented: position in cell ", internal::describe_cell(p.cell),
                                                " is outside the render bubble (R5, R17)"));
    }
    out.version = version_;
    out.view = id_;
    return out;
  }

  // to_render_all_oriented()
  //
  // Batch to_render_oriented for every active object of an oriented view, the rotation checked once:
  // locals[i] = to_render_oriented(anchors[i], r).at (R17's bound), re-derived from the anchors at every
  // call (R10). An object outside the bubble gets NaN coordinates. Returns how many are outside.
  // InvalidArgument when the spans differ in size or rotation_status(r) refuses r (nothing written in
  // either case), or when an anchor is not normalised (message names its index; `locals` is then
  // unspecified). The version of the results is version().
  [[nodiscard]] absl::StatusOr<std::size_t> to_render_all_oriented(std::span<const WorldPosition<D>> anchors,
                                                                   const Rotation<D>& r,
                                                                   std::span<std::array<float, D>> locals) const {
    if (absl::Status s = rotation_status(r); !s.ok()) return s;
    return render_batch("to_render_all_oriented", anchors, locals,
                        [this, &r](const WorldPosition<D>& p, std::array<float, D>& out) { return render_rotated(p, r, out); });
  }

  // oriented_error_bound()
  //
  // R17's bound in render units: 2^(k - 24) + 2^(k - 50) with k = floor(log2(N * bubble / d)) + 1.
  [[nodiscard]] double oriented_error_bound() const {
    // k: the least integer with N * bubble < 2^k * d, from the integers.
    const auto d = absl::uint128(static_cast<std::uint64_t>(config_.units_per_render_unit.value()));
    const absl::uint128 nb = absl::uint128(static_cast<std::uint64_t>(config_.bubble_units.value())) * D;
    int k = -21;
    while (k >= 0 ? (d << k) <= nb : d <= (nb << -k)) ++k;
    return std::ldexp(1.0, k - 24) + std::ldexp(1.0, k - 50);
  }

  // Loaded cells --------------------------------------------------------------------------------------

  // load(), unload(), is_loaded(), loaded_count()
  //
  // The streaming system reports cells here. Loading a loaded cell or unloading an absent one is a no-op.
  // Each keeps the rows' runs (R16) in O(log runs of the cell's row).
  void load(const CellIndex<D>& cell) {
    if (loaded_.insert(cell).second) add_to_runs(cell);
  }
  void unload(const CellIndex<D>& cell) {
    if (loaded_.erase(cell) != 0) remove_from_runs(cell);
  }
  [[nodiscard]] bool is_loaded(const CellIndex<D>& cell) const { return loaded_.contains(cell); }
  [[nodiscard]] std::size_t loaded_count() const noexcept { return loaded_.size(); }

  // loaded_cells()
  //
  // Every loaded cell, in lexicographic order (for snapshots and audits).
  [[nodiscard]] std::vector<CellIndex<D>> loaded_cells() const {
    std::vector<CellIndex<D>> cells(loaded_.begin(), loaded_.end());
    std::sort(cells.begin(), cells.end());
    return cells;
  }

  // validate_runs()
  //
  // R16's invariant, kept as API (Box2D's validators): the runs of every row are exactly the maximal
  // runs of consecutive loaded cells along the last axis, disjoint, not touching, none empty. O(loaded
  // cells). InvalidArgument naming the first discrepancy.
  [[nodiscard]] absl::Status validate_runs() const {
    std::size_t covered = 0;
    for (const auto& [row, runs] : runs_) {
      if (runs.empty()) return absl::InvalidArgumentError("R16 barrier runs: a row with no run is kept");  // LCOV_EXCL_LINE: a broken upkeep of the runs only (load/unload keep R16)
      bool first = true;
      std::int64_t previous_end = 0;
      for (const auto& [start, end] : runs) {
        if (end < start) return absl::InvalidArgumentError("R16 barrier runs: a run ends before it starts");  // LCOV_EXCL_LINE: a broken upkeep of the runs only (load/unload keep R16)
        // Maximal: two runs of a row never touch (start - previous_end >= 2, in int128).
        if (!first && absl::int128(start) - previous_end < 2) {  // LCOV_EXCL_START: a broken upkeep of the runs only (load/unload keep R16)
          return absl::InvalidArgumentError("R16 barrier runs: two runs of a row touch or overlap");
        }  // LCOV_EXCL_STOP
        for (absl::int128 x = start; x <= end; ++x) {
          if (!loaded_.contains(cell_of_row(row, static_cast<std::int64_t>(x)))) {  // LCOV_EXCL_START: a broken upkeep of the runs only (load/unload keep R16)
            return absl::InvalidArgumentError(
                absl::StrCat("R16 barrier runs: a run covers ", static_cast<std::int64_t>(x), ", which is not loaded"));
          }  // LCOV_EXCL_STOP
          ++covered;
        }
        first = false;
        previous_end = end;
      }
    }
    if (covered != loaded_.size()) {  // LCOV_EXCL_START: a broken upkeep of the runs only (load/unload keep R16)
      return absl::InvalidArgumentError(absl::StrCat("R16 barrier runs: the runs cover ", covered, " cells, ",
                                                     loaded_.size(), " are loaded"));
    }  // LCOV_EXCL_STOP
    return absl::OkStatus();
  }

  // missing_cells()
  //
  // The cells of the barrier around `target` (every cell within barrier_radius, per axis, clipped to
  // int64: cells beyond the world's edge do not exist) that are not loaded, in lexicographic order.
  [[nodiscard]] std::vector<CellIndex<D>> missing_cells(const CellIndex<D>& target) const {
    std::vector<CellIndex<D>> missing;
    for_each_barrier_cell(target, [&](const CellIndex<D>& c) {
      if (!loaded_.contains(c)) missing.push_back(c);
    });
    return missing;
  }

  // Plan and commit -----------------------------------------------------------------------------------

  // plan()
  //
  // Decides whether the view should rebase onto the observer's cell. Returns nullopt when the observer
  // is within threshold_cells of the origin on every axis, else a plan to the observer's cell at the
  // current version. Errors: InvalidArgument when `observer` is not normalised; FailedPrecondition, the
  // message listing the missing cells, when the barrier around the target is not fully loaded (R6).
  // Never changes the view (R7).
  [[nodiscard]] absl::StatusOr<std::optional<RebasePlan<D>>> plan(const WorldPosition<D>& observer) const {
    if (absl::Status s = grid_.validate(observer); !s.ok()) return s;
    bool far = false;
    for (std::size_t a = 0; a < D; ++a) {
      const absl::int128 d = absl::int128(observer.cell[a]) - origin_[a];
      far |= d >= config_.threshold_cells.value() || d <= -config_.threshold_cells.value();
    }
    if (!far) return std::optional<RebasePlan<D>>();
    if (absl::Status s = barrier_status(observer.cell, "plan"); !s.ok()) return s;
    return std::optional<RebasePlan<D>>(RebasePlan<D>{origin_, observer.cell, version_, id_});
  }

  // commit()
  //
  // Moves the origin to plan.target and increments the version, atomically. Errors, each leaving the
  // origin and version exactly as they were (R7), in this order: InvalidArgument when the plan was made
  // by another view (plan.view is not id(), R12); Unavailable inside a simulation step (retry after
  // end_step(), R13); Aborted when the plan is stale, i.e. the view's version
  // is no longer plan.expected_version (a replayed plan, or one overtaken by another commit) (R8);
  // InvalidArgument when the plan's `from` is not this view's origin (a plan made by another view);
  // FailedPrecondition when the barrier around the target no longer holds: a cell unloaded between plan
  // and commit is caught here (R6); OutOfRange when the version counter is exhausted.
  [[nodiscard]] absl::StatusOr<Rebased<D>> commit(const RebasePlan<D>& plan) {
    if (plan.view != id_) return foreign("commit: plan", plan.view);
    if (in_step_) {
      return absl::UnavailableError(absl::StrCat("rebase blocked: commit inside a simulation step of view ", id_.value,
                                                 "; commit after end_step() (R13)"));
    }
    if (plan.expected_version != version_) {
      return absl::AbortedError(absl::StrCat("rebase blocked: stale plan for version ", plan.expected_version,
                                             ", the view is at version ", version_, " (R8)"));
    }
    if (plan.from != origin_) {
      return absl::InvalidArgumentError(absl::StrCat("rebase blocked: plan from origin ",
                                                     internal::describe_cell(plan.from), " but the origin is ",
                                                     internal::describe_cell(origin_)));
    }
    if (absl::Status s = barrier_status(plan.target, "commit"); !s.ok()) return s;
    if (version_ == std::numeric_limits<std::uint64_t>::max()) {
      return absl::OutOfRangeError("rebase blocked: the origin version counter is exhausted");
    }
    origin_ = plan.target;
    version_ += 1;
    return Rebased<D>{origin_, version_};
  }

  // Render conversion ---------------------------------------------------------------------------------

  // to_render()
  //
  // The render coordinates of `p` at the current version: on each axis the float nearest (ties to even)
  // to the exact ((cell - origin) * size + offset) / units_per_render_unit (R4), whose error is at most
  // render_error_bound() (R5). Errors: InvalidArgument when `p` is not normalised; OutOfRange when
  // |(cell - origin) * size + offset| > bubble_units on some axis, instead of a silently imprecise value.
  [[nodiscard]] absl::StatusOr<RenderPoint<D>> to_render(const WorldPosition<D>& p) const {
    if (absl::Status s = grid_.validate(p); !s.ok()) return s;
    RenderPoint<D> out;
    out.version = version_;
    out.view = id_;
    for (std::size_t a = 0; a < D; ++a) {
      if (!render_one(p, a, out.at[a])) {
        return absl::OutOfRangeError(absl::StrCat("to_render: position in cell ", internal::describe_cell(p.cell),
                                                  " is outside the render bubble of ", config_.bubble_units.value(),
                                                  " units around origin ", internal::describe_cell(origin_),
                                                  " (R5)"));
      }
    }
    return out;
  }

  // to_render_all()
  //
  // Batch to_render for the active objects of a rebase: locals[i] = to_render(anchors[i]).at, re-derived
  // from the anchors at every call, so no error accumulates over any number of rebases (R10). An object
  // outside the bubble gets NaN coordinates. Returns how many are outside. InvalidArgument when the spans
  // differ in size (nothing written) or an anchor is not normalised (message names its index; `locals`
  // is then unspecified). The version of the results is version().
  [[nodiscard]] absl::StatusOr<std::size_t> to_render_all(std::span<const WorldPosition<D>> anchors,
                                                          std::span<std::array<float, D>> locals) const {
    return render_batch("to_render_all", anchors, locals, [this](const WorldPosition<D>& p, std::array<float, D>& out) {
      bool inside = true;
      for (std::size_t a = 0; a < D; ++a) inside &= render_one(p, a, out[a]);
      return inside;
    });
  }

  // from_render()
  //
  // The world position of render coordinates computed at this view's current version: per axis the
  // normalisation of origin cell + y * units_per_render_unit (y * d is exact for a float y and
  // d <= 2^20), so exact whenever that position is representable, and then
  // to_render(from_render(y)) == y for y inside the bubble (R11). Errors: InvalidArgument when y was
  // computed by another view (R12, checked first); FailedPrecondition when
  // y.version is not the current version (the origin it refers to is gone); InvalidArgument for a NaN or
  // infinite coordinate; OutOfRange when the cell is outside int64.
  [[nodiscard]] absl::StatusOr<WorldPosition<D>> from_render(const RenderPoint<D>& y) const {
    if (y.view != id_) return foreign("from_render: render point", y.view);
    if (y.version != version_) {
      return absl::FailedPreconditionError(absl::StrCat("from_render: render point of version ", y.version,
                                                        ", the view is at version ", version_, " (R11)"));
    }
    std::array<double, D> offset;
    for (std::size_t a = 0; a < D; ++a) {
      offset[a] = static_cast<double>(y.at[a]) * static_cast<double>(config_.units_per_render_unit.value());
    }
    return grid_.normalize(origin_, offset);
  }

  // Late results --------------------------------------------------------------------------------------

  // start_late()
  //
  // The ticket for an asynchronous build anchored at `anchor`, started now (under the current version).
  [[nodiscard]] LateResult<D> start_late(const WorldPosition<D>& anchor, LatePlacement placement) const {
    return LateResult<D>{anchor, version_, placement, id_};
  }

  // place_late()
  //
  // Where a finished build goes now. A relocatable result is converted from its anchor at the current
  // origin: after any number of rebases, exactly to_render(anchor) (R9). A baked result is accepted only
  // under the version it started in. Errors: InvalidArgument for a ticket of another view (R12, checked
  // first); Aborted for a baked result whose version is stale (rebuild
  // it); InvalidArgument for a ticket from a version this view has not reached, or an anchor not
  // normalised; OutOfRange when the anchor is outside the bubble.
  [[nodiscard]] absl::StatusOr<RenderPoint<D>> place_late(const LateResult<D>& result) const {
    if (result.view != id_) return foreign("place_late: result", result.view);
    if (result.started_version > version_) {
      return absl::InvalidArgumentError(absl::StrCat("place_late: result started at version ", result.started_version,
                                                     ", after this view's version ", version_));
    }
    if (result.placement == LatePlacement::kBakedLocal && result.started_version != version_) {
      return absl::AbortedError(absl::StrCat("place_late: result baked in the frame of version ",
                                             result.started_version, " is stale at version ", version_, " (R9)"));
    }
    return to_render(result.anchor);
  }

 private:
  OriginCoordinator(WorldGrid grid, ViewConfig config, CellIndex<D> origin, std::uint64_t version, ViewId id)
      : grid_(grid), config_(config), origin_(origin), version_(version), id_(id) {}

  // The R12 refusal: `what` was stamped by view `other`, not this one.
  [[nodiscard]] absl::Status foreign(absl::string_view what, ViewId other) const {
    return absl::InvalidArgumentError(absl::StrCat(what, " of view ", other.value, " given to view ", id_.value,
                                                   ": views are never mixed (R12)"));
  }

  [[nodiscard]] bool render_one(const WorldPosition<D>& p, std::size_t a, float& out) const {
    return internal::render_axis(p.cell[a], p.offset[a], origin_[a], grid_.cell_size().value(),
                                 config_.units_per_render_unit.value(), config_.bubble_units.value(), out);
  }

  // The batch of to_render_all and to_render_all_oriented: `render(p, out)` converts one normalised anchor
  // and is false when it is outside the bubble, which gets NaN coordinates; returns how many are outside.
  // InvalidArgument, named after `caller`, when the spans differ in size (nothing written) or an anchor is
  // not normalised (its index named).
  template <class Render>
  [[nodiscard]] absl::StatusOr<std::size_t> render_batch(absl::string_view caller, std::span<const WorldPosition<D>> anchors,
                                                         std::span<std::array<float, D>> locals, Render render) const {
    if (anchors.size() != locals.size()) {
      return absl::InvalidArgumentError(absl::StrCat(caller, ": ", anchors.size(), " anchors but ", locals.size(), " outputs"));
    }
    std::size_t outside = 0;
    for (std::size_t i = 0; i < anchors.size(); ++i) {
      if (absl::Status s = grid_.validate(anchors[i]); !s.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(caller, ": anchor ", i, ": ", s.message()));
      }
      if (!render(anchors[i], locals[i])) {
        for (float& v : locals[i]) fp::set_quiet_nan(v);  // from bits: see lwc/exact_fp.h
        ++outside;
      }
    }
    return outside;
  }

  // R17's conversion of a normalised `p` through an accepted rotation `r`: false when the unrotated point
  // is outside the bubble on some axis (R5's test), else out = float(R * x) with x the render vector in
  // doubles, each row a chain of fused multiply-adds (the N roundings of R17's proof).
  [[nodiscard]] bool render_rotated(const WorldPosition<D>& p, const Rotation<D>& r, std::array<float, D>& out) const {
    std::array<double, D> x{};
    for (std::size_t a = 0; a < D; ++a) {
      if (!internal::render_axis_double(p.cell[a], p.offset[a], origin_[a], grid_.cell_size().value(),
                                        config_.units_per_render_unit.value(), config_.bubble_units.value(), x[a])) {
        return false;
      }
    }
    for (std::size_t i = 0; i < D; ++i) {
      double y = r.rows[i][D - 1] * x[D - 1];
      for (std::size_t j = D - 1; j > 0; --j) y = fp::fma(r.rows[i][j - 1], x[j - 1], y);
      out[i] = static_cast<float>(y);
    }
    return true;
  }

  // The barrier around `target`: barrier_radius cells on each axis, clipped to int64, as [lo, hi].
  void barrier_box(const CellIndex<D>& target, CellIndex<D>& lo, CellIndex<D>& hi) const {
    for (std::size_t a = 0; a < D; ++a) {
      lo[a] = static_cast<std::int64_t>(std::max<absl::int128>(absl::int128(target[a]) - config_.barrier_radius.value(),
                                                               internal::kMinCell));
      hi[a] = static_cast<std::int64_t>(std::min<absl::int128>(absl::int128(target[a]) + config_.barrier_radius.value(),
                                                               internal::kMaxCell));
    }
  }

  // Calls fn for every cell within barrier_radius of `target` on each axis, clipped to int64, in
  // lexicographic order: lwc/walk.h's walk (axis 0 fastest) over the box with its axes reversed, so that
  // the last axis runs fastest. Nothing overflows at the edges.
  template <typename Fn>
  void for_each_barrier_cell(const CellIndex<D>& target, Fn&& fn) const {
    CellIndex<D> lo;
    CellIndex<D> hi;
    barrier_box(target, lo, hi);
    std::array<std::int64_t, D> lo_reversed;
    std::array<std::int64_t, D> hi_reversed;
    for (std::size_t a = 0; a < D; ++a) lo_reversed[a] = lo[D - 1 - a], hi_reversed[a] = hi[D - 1 - a];
    (void)internal::walk_box<D>(lo_reversed, hi_reversed, [&](const std::array<std::int64_t, D>& r) {
      CellIndex<D> c;
      for (std::size_t a = 0; a < D; ++a) c[a] = r[D - 1 - a];
      fn(std::as_const(c));
      return true;
    });
  }

  // A row: every coordinate but the last (the axis runs go along). Rows are visited in lexicographic
  // order and each row along its axis, so cells come in the lexicographic order of missing_cells.
  using Row = std::array<std::int64_t, D - 1>;
  using Runs = absl::btree_map<std::int64_t, std::int64_t>;  // start -> end, inclusive

  static Row row_of(const CellIndex<D>& c) {
    Row r;
    for (std::size_t a = 0; a + 1 < D; ++a) r[a] = c[a];
    return r;
  }
  static CellIndex<D> cell_of_row(const Row& r, std::int64_t x) {
    CellIndex<D> c;
    for (std::size_t a = 0; a + 1 < D; ++a) c[a] = r[a];
    c[D - 1] = x;
    return c;
  }

  // Adds the newly loaded cell to its row's runs, merging with the runs that end just before it or
  // start just after it (x - 1 and x + 1 computed only where they exist).
  void add_to_runs(const CellIndex<D>& cell) {
    Runs& runs = runs_[row_of(cell)];
    const std::int64_t x = cell[D - 1];
    std::int64_t start = x;
    std::int64_t end = x;
    // Read both neighbours before erasing anything: a btree erase invalidates every iterator.
    const auto next = runs.upper_bound(x);  // the first run starting after x
    const bool joins_next = next != runs.end() && x != internal::kMaxCell && next->first == x + 1;
    if (joins_next) end = next->second;
    bool joins_before = false;
    if (next != runs.begin()) {
      const auto before = std::prev(next);
      // Invariant: x is not loaded, so no run contains it: before->second < x, hence x > INT64_MIN here.
      joins_before = before->second == x - 1;
      if (joins_before) start = before->first;
    }
    if (joins_next) runs.erase(x + 1);
    if (joins_before) {
      runs[start] = end;  // the run before keeps its key and now ends at `end`
    } else {
      runs[x] = end;
    }
  }

  // Removes the newly unloaded cell from the run that contains it, splitting it in two.
  void remove_from_runs(const CellIndex<D>& cell) {
    const auto row = runs_.find(row_of(cell));
    LWC_CHECK(row != runs_.end(), "an unloaded cell's row has no run");
    Runs& runs = row->second;
    const std::int64_t x = cell[D - 1];
    auto it = runs.upper_bound(x);
    LWC_CHECK(it != runs.begin(), "an unloaded cell is in no run");
    --it;
    const std::int64_t start = it->first;
    const std::int64_t end = it->second;
    LWC_CHECK(start <= x && x <= end, "an unloaded cell is in no run");
    runs.erase(it);
    if (start < x) runs[start] = x - 1;
    if (x < end) runs[x + 1] = end;
    if (runs.empty()) runs_.erase(row);
  }

  // R6 at plan and commit, R16's cost: for each of the barrier's rows (the odometer over every axis
  // but the last, clipped to int64), one lookup of the run containing the row's first cell. A row is
  // whole iff that run reaches its last cell. Only a failing row walks its runs, to count and list
  // the missing cells.
  [[nodiscard]] absl::Status barrier_status(const CellIndex<D>& target, absl::string_view stage) const {
    CellIndex<D> lo;
    CellIndex<D> hi;
    barrier_box(target, lo, hi);
    std::size_t count = 0;
    std::string listed;
    const auto note = [&](const CellIndex<D>& c) {
      if (count < 9) absl::StrAppend(&listed, count ? ", " : "", internal::describe_cell(c));
      ++count;
    };
    const std::int64_t first = lo[D - 1];
    const std::int64_t last = hi[D - 1];
    Row row;
    for (std::size_t a = 0; a + 1 < D; ++a) row[a] = lo[a];
    while (true) {
      const auto found = runs_.find(row);
      const Runs* runs = found == runs_.end() ? nullptr : &found->second;
      auto it = runs == nullptr ? Runs::const_iterator() : runs->upper_bound(first);
      const bool whole = runs != nullptr && it != runs->begin() && std::prev(it)->first <= first &&
                         std::prev(it)->second >= last;
      if (!whole) {
        // Walk the row: the gaps between its runs inside [first, last] are the missing cells. The
        // counter never steps past `last`, so nothing overflows at the end of int64.
        absl::int128 x = first;
        if (runs != nullptr && it != runs->begin() && std::prev(it)->second >= first) {
          x = absl::int128(std::prev(it)->second) + 1;
        }
        while (x <= last) {
          const absl::int128 gap_end =
              runs == nullptr || it == runs->end() || it->first > last ? absl::int128(last) : absl::int128(it->first) - 1;
          for (; x <= gap_end; ++x) {
            if (count >= 9) {
              count += static_cast<std::size_t>(gap_end - x + 1);
              x = gap_end + 1;
              break;
            }
            note(cell_of_row(row, static_cast<std::int64_t>(x)));
          }
          if (runs == nullptr || it == runs->end() || it->first > last) break;
          x = absl::int128(it->second) + 1;
          ++it;
        }
      }
      std::size_t a = D - 1;
      while (a > 0 && row[a - 1] == hi[a - 1]) {
        row[a - 1] = lo[a - 1];
        --a;
      }
      if (a == 0) break;
      ++row[a - 1];
    }
    if (count == 0) return absl::OkStatus();
    if (count > 9) absl::StrAppend(&listed, " and ", count - 9, " more");
    return absl::FailedPreconditionError(absl::StrCat("rebase blocked at ", stage, ": ", count,
                                                      " cells missing around ", internal::describe_cell(target),
                                                      ": ", listed, " (R6)"));
  }

  // Invariant: config_ is within the ranges create() checks.
  WorldGrid grid_;
  ViewConfig config_;
  CellIndex<D> origin_;
  std::uint64_t version_;
  ViewId id_;
  bool in_step_ = false;
  absl::flat_hash_set<CellIndex<D>> loaded_;
  // Invariant (R16, validate_runs): for every row, the maximal runs of loaded cells along the last axis;
  // a row with no loaded cell has no entry.
  absl::flat_hash_map<Row, Runs> runs_;
};

}  // namespace lwc

LWC_EXACT_FP_END

#endif  // LWC_REBASE_H_
