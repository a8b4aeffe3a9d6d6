// SPDX-License-Identifier: MIT
// File: modules/lwc/broadphase/events.h
//
// The vocabulary of the persistent grid: handles (E3), payloads and filters (E7, E8), motions (E6), the
// contact events an update reports (E1, E5, E6) and the segment of a ray cast with its one-box test (E9).
// Spec: docs/broadphase.md (E1-E12).
//
// One source, two modes (lwc/config.h): `#include <lwc/broadphase.h>` brings it without module support;
// the module unit modules/broadphase/events.cppm exports the same declarations as lwc.broadphase:events.
#ifndef LWC_BROADPHASE_EVENTS_H_
#define LWC_BROADPHASE_EVENTS_H_

#include "lwc/config.h"
#ifndef LWC_MODULE_UNIT  // modules/broadphase/events.cppm includes these in its global module fragment
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "lwc/exact_fp.h"
// ... and imports these.
#include "lwc/broadphase/box.h"
#endif

// The arithmetic below is exact IEEE arithmetic whatever the consumer's flags (lwc/exact_fp.h).
LWC_EXACT_FP_BEGIN

LWC_EXPORT namespace lwc {

// Handle
//
// Names one box of a PersistentGrid for as long as it lives: its slot and the slot's generation. A handle
// is never issued twice: a removed box's slot is reused with the next generation, and a slot whose
// generation is exhausted is retired. Handle{} (generation 0) is never issued. E3.
struct Handle {  // LCOV_EXCL_LINE: clang maps this line to the implicit special members of a trivially copyable type, and the unused ones are never emitted
  std::uint32_t slot = 0;
  std::uint32_t generation = 0;

  friend constexpr bool operator==(const Handle&, const Handle&) noexcept = default;
  friend constexpr auto operator<=>(const Handle&, const Handle&) noexcept = default;
  friend std::ostream& operator<<(std::ostream& os, const Handle& h) {
    return os << "#" << h.slot << "." << h.generation;
  }
};

// UserData
//
// The payload of one box (E7): a pointer-sized value the grid stores and returns with every event and
// query hit, never reads (an engine stores its proxy or body pointer, or an index).
using UserData = std::uintptr_t;

// Filter
//
// Collision filter bits of one box (E8), with the rule of Bullet's broad phase and Box2D's: two boxes are
// considered iff (a.group & b.mask) != 0 and (b.group & a.mask) != 0. The default (group 1, every mask
// bit) passes with every default box. Bullet's `int` groups and masks convert bit for bit through uint32.
struct Filter {  // LCOV_EXCL_LINE: clang maps this line to the implicit special members of a trivially copyable type, and the unused ones are never emitted
  std::uint64_t group = 1;
  std::uint64_t mask = ~std::uint64_t{0};

  friend constexpr bool operator==(const Filter&, const Filter&) noexcept = default;
};

// passes()
//
// The filter rule (E8): (a.group & b.mask) && (b.group & a.mask). Symmetric.
[[nodiscard]] constexpr bool passes(const Filter& a, const Filter& b) noexcept {
  return (a.group & b.mask) != 0 && (b.group & a.mask) != 0;
}

// PairFilter
//
// An optional pair predicate (E8), given at create(): a pair whose filter bits pass is considered iff
// fn(context, user of the lower slot, user of the higher slot) is true. It must be a pure function of its
// arguments (the grid calls it on the dirty boxes' candidate pairs only, and may call it again for a pair);
// when its answer for a box changes, call refilter() on that box. fn == nullptr: every pair is considered.
struct PairFilter {
  bool (*fn)(void* context, UserData lower, UserData higher) = nullptr;
  void* context = nullptr;
};

// Segment
//
// The segment from `from` to `to` of a ray cast (E9): the points from + t * (to - from), t in [0, 1].
template <std::size_t D>
  requires(D == 2 || D == 3)
struct Segment {
  std::array<double, D> from;
  std::array<double, D> to;
};

// Contact
//
// A pair of boxes of a PersistentGrid, lower slot first (a.slot < b.slot). Lists of contacts are in
// canonical order: by (a.slot, b.slot). Within one update a slot names one box, so the order is total.
struct Contact {  // LCOV_EXCL_LINE: clang maps this line to the implicit special members of a trivially copyable type, and the unused ones are never emitted
  Handle a;
  Handle b;
  UserData user_a = 0;  // a's payload (E7): as now for began and swept, as at the previous update for ended
  UserData user_b = 0;

  friend constexpr bool operator==(const Contact&, const Contact&) noexcept = default;
  friend constexpr auto operator<=>(const Contact&, const Contact&) noexcept = default;
  friend std::ostream& operator<<(std::ostream& os, const Contact& c) { return os << "(" << c.a << ", " << c.b << ")"; }
};

// Motion
//
// How a move travels. kTeleport: the box is simply somewhere else at the next update. kSwept: the box
// travelled, and its step volume — the union of its box at the start of the step and every box given
// by swept moves since — is registered for that update, so that a pair whose paths cross within the step
// is reported as a swept candidate even when the end boxes do not overlap (E6). The start of the step is
// the box at the previous update, or the box given by an insert or a teleport in this step.
enum class Motion { kTeleport, kSwept };

// Tracked
//
// A live box and its handle, as listed by PersistentGrid::boxes().
template <std::size_t D>
struct Tracked {
  Handle handle;
  Box<D> box;
};

// UpdateStats
//
// Exact counts of one update (E5). The dirty boxes are those inserted, moved or removed since the
// previous update. memberships_touched = over the dirty boxes, the cells of the old box (if it was live)
// + the cells of the new box (if it is live) + the cells of the step volume (if swept), each at the box's
// own level: the update reads and writes the grid at these cells only, plus, for a box on a coarser level,
// its probes of the other levels (counted in pair_visits). pair_visits = (query, resident) incidences met.
struct UpdateStats {  // LCOV_EXCL_LINE: clang maps this line to the implicit special members of a trivially copyable type, and the unused ones are never emitted
  std::int64_t boxes = 0;        // live boxes after the update
  std::int64_t memberships = 0;  // their memberships (find_pairs' stats.memberships)
  std::int64_t pairs = 0;        // overlapping pairs after the update
  std::int64_t dirty = 0;
  std::int64_t memberships_touched = 0;
  std::int64_t pair_visits = 0;
  std::int64_t began = 0;
  std::int64_t ended = 0;
  std::int64_t swept = 0;
};

// ContactEvents
//
// What one update reports, each list in canonical order with no pair twice (E1, E6):
//   began: pairs overlapping now that did not at the previous update (handles as now);
//   ended: pairs that overlapped at the previous update and do not now, including every pair of a removed
//          box (handles as then: a removed box's handle is already stale);
//   swept: pairs with at least one swept box whose step volumes meet but whose end boxes do not — a
//          candidate for the narrow phase's continuous test, not a contact; never in the pair set.
struct ContactEvents {
  std::vector<Contact> began;
  std::vector<Contact> ended;
  std::vector<Contact> swept;
  UpdateStats stats;
};

// ray_entry()
//
// The ray-cast test of one box (E9), the slab method as written here in IEEE double: on every axis k with
// d = to[k] - from[k] != 0 the interval of t between (min[k] - from[k]) / d and (max[k] - from[k]) / d;
// on an axis with d == 0, every t if min[k] <= from[k] <= max[k], else none. The box is hit iff the
// intersection of [0, 1] with every axis' interval is not empty; `t` receives its lower end, the entry
// fraction. Touching counts (closed boxes). For a valid box and a valid segment (finite, and to - from
// finite on every axis) no NaN arises.
template <std::size_t D>
[[nodiscard]] bool ray_entry(const Box<D>& box, const Segment<D>& segment, double& t) noexcept {
  double enter = 0.0;
  double exit = 1.0;
  for (std::size_t k = 0; k < D; ++k) {
    const double d = segment.to[k] - segment.from[k];
    if (fp::is_zero(d)) {
      if (!(box.min[k] <= segment.from[k] && segment.from[k] <= box.max[k])) return false;
      continue;
    }
    double t1 = (box.min[k] - segment.from[k]) / d;
    double t2 = (box.max[k] - segment.from[k]) / d;
    if (t2 < t1) std::swap(t1, t2);
    enter = std::max(enter, t1);
    exit = std::min(exit, t2);
    if (exit < enter) return false;
  }
  t = enter;
  return true;
}

// validate_segment()
//
// OK iff every coordinate of the segment and every to[k] - from[k] is finite; otherwise InvalidArgument
// naming the axis and the cause (E9): an end that is not finite, or two finite ends whose difference
// overflows to infinity (a segment from -1e308 to 1e308).
template <std::size_t D>
[[nodiscard]] absl::Status validate_segment(const Segment<D>& segment) {
  using internal::decimal;
  for (std::size_t k = 0; k < D; ++k) {
    const double from = segment.from[k];
    const double to = segment.to[k];
    if (!fp::is_finite(from) || !fp::is_finite(to)) {
      return absl::InvalidArgumentError(absl::StrCat("raycast: the segment's ", fp::is_finite(from) ? "to" : "from",
                                                     " on axis ", k, " is not finite (from ", decimal(from), " to ",
                                                     decimal(to), ") (E9)"));
    }
    if (!fp::is_finite(to - from)) {
      return absl::InvalidArgumentError(absl::StrCat("raycast: the segment's length on axis ", k, ", to - from = ",
                                                     decimal(to), " - ", decimal(from),
                                                     ", overflows the doubles (E9)"));
    }
  }
  return absl::OkStatus();
}

}  // namespace lwc

LWC_EXACT_FP_END

#endif  // LWC_BROADPHASE_EVENTS_H_
