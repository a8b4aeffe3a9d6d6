// SPDX-License-Identifier: MIT
// File: modules/lwc/rebase/spec.h
//
// The vocabulary of lwc.rebase shared by the origin coordinator (modules/rebase.cppm) and the wire
// format (modules/rebase/wire.cppm): cells, world positions, fixed points, view ids, render points,
// plans, rebase results and late tickets. Plain values: no invariant is enforced by the types; every
// consumer validates (docs/rebase.md R1, R12).
//
// One source, two modes (lwc/config.h): `#include <lwc/rebase/spec.h>` (through <lwc/rebase.h>) brings it
// without module support; the module unit modules/rebase/spec.cppm exports the same declarations as `import
// lwc.rebase:spec;`.
#ifndef LWC_REBASE_SPEC_H_
#define LWC_REBASE_SPEC_H_

#include "lwc/config.h"
#ifndef LWC_MODULE_UNIT  // modules/rebase/spec.cppm includes these in its global module fragment
#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <ostream>
#endif

LWC_EXPORT namespace lwc {

// CellIndex
//
// The integer cell of a position, one int64 per axis (2D or 3D).
template <std::size_t D>
using CellIndex = std::array<std::int64_t, D>;

// WorldPosition
//
// The authoritative position of an entity: `cell` plus `offset` world units inside it.
// Invariant (R1), established by WorldGrid::normalize and checked by every consumer: each offset is
// finite and 0 <= offset < cell size. Nothing in this module ever writes a WorldPosition it was given (R2).
template <std::size_t D>
  requires(D == 2 || D == 3)
struct WorldPosition {
  CellIndex<D> cell{};
  std::array<double, D> offset{};

  friend constexpr bool operator==(const WorldPosition&, const WorldPosition&) noexcept = default;
};
using WorldPosition2 = WorldPosition<2>;
using WorldPosition3 = WorldPosition<3>;

// FixedPoint
//
// An integer world point in world units (e.g. int64 centimetres, as in the late-chunk floating-origin
// example). Converts exactly to a WorldPosition and back (R1).
template <std::size_t D>
  requires(D == 2 || D == 3)
struct FixedPoint {
  std::array<std::int64_t, D> units{};

  friend constexpr bool operator==(const FixedPoint&, const FixedPoint&) noexcept = default;
};

template <std::size_t D>
std::ostream& operator<<(std::ostream& os, const WorldPosition<D>& p) {
  os << "{cell (";
  for (std::size_t a = 0; a < D; ++a) os << (a ? ", " : "") << p.cell[a];
  os << ") + (" << std::hexfloat;
  for (std::size_t a = 0; a < D; ++a) os << (a ? ", " : "") << p.offset[a];
  return os << std::defaultfloat << ")}";
}

// ViewId
//
// The identity of one view (OriginCoordinator), stamped into everything the view hands out (render
// points, late tickets, plans) and checked wherever those come back (R12). Issued by
// OriginCoordinator::create from a process-wide counter: unique within the process and never reused,
// so a point of a destroyed view is not accepted by a new view that happens to reuse its memory, and two
// views cannot be given the same id by mistake (a caller-chosen id could collide: two split-screen
// views both restored with id 1). 0 is no view: a hand-built point or plan that was never stamped is
// refused by every view. Ids are process-local: they are not meant to be persisted or sent.
struct ViewId {
  std::uint64_t value = 0;

  friend constexpr bool operator==(const ViewId&, const ViewId&) noexcept = default;
  friend constexpr auto operator<=>(const ViewId&, const ViewId&) noexcept = default;
};


// RenderPoint
//
// Render coordinates (render units, relative to the view's origin) and the origin version they were
// computed under. Never mix points of different versions (R3).
template <std::size_t D>
  requires(D == 2 || D == 3)
struct RenderPoint {
  std::array<float, D> at{};
  std::uint64_t version = 0;
  // The view that computed it (R12): another view refuses it.
  ViewId view{};

  friend constexpr bool operator==(const RenderPoint&, const RenderPoint&) noexcept = default;
};

// RebasePlan
//
// A rebase decided by OriginCoordinator::plan: move the origin from `from` to `target`, valid only while
// the view is still at `expected_version` (R8), and only by the view that made it (R12).
template <std::size_t D>
  requires(D == 2 || D == 3)
struct RebasePlan {
  CellIndex<D> from{};
  CellIndex<D> target{};
  std::uint64_t expected_version = 0;
  ViewId view{};

  friend constexpr bool operator==(const RebasePlan&, const RebasePlan&) noexcept = default;
};

// Rebased
//
// The outcome of a successful commit: the new origin and its version.
template <std::size_t D>
  requires(D == 2 || D == 3)
struct Rebased {
  CellIndex<D> origin{};
  std::uint64_t version = 0;

  friend constexpr bool operator==(const Rebased&, const Rebased&) noexcept = default;
};

// LatePlacement
//
// What a late asynchronous result holds (the late-chunk floating-origin example): kRelocatable data is placed
// only through its world anchor and may be committed under any later origin; kBakedLocal data has coordinates
// baked into the render frame of the version it started under, and is stale after any rebase.
enum class LatePlacement { kRelocatable, kBakedLocal };

// LateResult
//
// The ticket of an asynchronous build: its world anchor, the origin version it started under, and its
// placement kind. Made by OriginCoordinator::start_late, committed by place_late.
template <std::size_t D>
  requires(D == 2 || D == 3)
struct LateResult {
  WorldPosition<D> anchor;
  std::uint64_t started_version = 0;
  LatePlacement placement = LatePlacement::kRelocatable;
  // The view that started it (R12): only that view places it.
  ViewId view{};
};

// Rotation
//
// An oriented view's frame (R17): render = R * (world - origin) / units_per_render_unit, R given row by
// row. Validated by OriginCoordinator::to_render_oriented: finite entries of magnitude <= 1, each 0 or at
// least 2^-60, rows orthonormal within 2^-20, determinant positive.
template <std::size_t D>
  requires(D == 2 || D == 3)
struct Rotation {
  std::array<std::array<double, D>, D> rows{};
};

}  // namespace lwc

#endif  // LWC_REBASE_SPEC_H_
