// SPDX-License-Identifier: MIT
// File: modules/broadphase/persistent.cppm    Module: lwc.broadphase:persistent
//
// The persistent broad phase: boxes live across frames behind generation-checked handles; insert, move
// and remove are validated and placed at once (like find_pairs' boxes: same placement, same per-box
// budget, same oversize levels) and take effect at the next update(), which returns the contact events
// since the previous one — pairs that began and pairs that ended overlapping, each exactly once, in
// canonical order — and, for boxes moved with Motion::kSwept, the pairs whose swept volumes meet although
// their end boxes do not (candidates for continuous collision in the narrow phase).
//
// An update works on the dirty boxes only (inserted, moved or removed since the previous update): each
// queries the cells of its old box in the committed grid (the pairs it may leave) and the cells of its new
// box in the committed grid plus an overlay of the other dirty boxes (the pairs it may enter); a pair is
// reported from its reference cell only (B9) and, when both boxes are dirty, only from the lower slot.
// Nothing is changed until every budget is known to hold, so a refused update changes nothing.
// Spec: docs/broadphase.md (clauses E1-E6). Checker and model: lwc.contracts.broadphase.
#ifndef LWC_HEADER_BUILD
module;
#endif
#include "lwc/config.h"
#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <ostream>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lwc/check.h"
#include "lwc/exact_fp.h"
#ifndef LWC_HEADER_BUILD
export module lwc.broadphase:persistent;

import lwc.decompose;
import :spec;
#else
#include "lwc/decompose.h"
#include "lwc/broadphase/spec.h"
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

// FloatBox
//
// A closed box of floats as engines hold them (E10): accepted by insert, move and query without a copy
// into doubles by the caller. Every float is a double exactly, so a FloatBox is the Box with the same
// values: the same validation, the exact floor quantisation cell_of(v, h) of its values (D9), the same
// pairs.
template <std::size_t D>
  requires(D == 2 || D == 3)
struct FloatBox {
  std::array<float, D> min;
  std::array<float, D> max;
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
struct UpdateStats {
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

}  // namespace lwc

namespace lwc::internal {

template <std::size_t D>
struct CellKey {
  int level = 0;
  std::array<std::int64_t, D> cell{};

  friend bool operator==(const CellKey&, const CellKey&) noexcept = default;
  template <typename H>
  friend H AbslHashValue(H h, const CellKey& k) {
    return H::combine_contiguous(H::combine(std::move(h), k.level), k.cell.data(), D);
  }
};

// A box with its placement (level and cells), as registered.
template <std::size_t D>
struct Placed {
  Box<D> box{};
  Placement<D> where{};
};

// One layer of registrations: the slots registered in each (level, cell), and per level the slots
// resident there (for the probes of a coarse box into a finer level, which may scan them). Order within a
// cell does not matter: pairs are taken from their reference cell, not by id order.
template <std::size_t D>
struct Layer {
  absl::flat_hash_map<CellKey<D>, absl::InlinedVector<std::uint32_t, 4>> cells;
  std::map<int, absl::flat_hash_set<std::uint32_t>> levels;

  void clear() {
    cells.clear();
    levels.clear();
  }

  void add(std::uint32_t slot, const Placement<D>& where) {
    for_each_range_cell<D>(where.cells, [&](const std::array<std::int64_t, D>& c) {
      cells[CellKey<D>{where.level, c}].push_back(slot);
    });
    levels[where.level].insert(slot);
  }

  void erase(std::uint32_t slot, const Placement<D>& where) {
    for_each_range_cell<D>(where.cells, [&](const std::array<std::int64_t, D>& c) {
      auto it = cells.find(CellKey<D>{where.level, c});
      LWC_CHECK(it != cells.end(), "a registered box is in each of its cells");
      auto& ids = it->second;
      auto at = std::find(ids.begin(), ids.end(), slot);
      LWC_CHECK(at != ids.end(), "a registered box is in each of its cells");
      *at = ids.back();
      ids.pop_back();
      if (ids.empty()) cells.erase(it);
    });
    auto level = levels.find(where.level);
    level->second.erase(slot);
    if (level->second.empty()) levels.erase(level);
  }

  template <std::size_t E, typename Fn>
  static void for_each_range_cell(const CellRange<E>& r, Fn&& fn) {
    std::array<std::int64_t, E> c = r.lo;
    for (;;) {
      fn(c);
      std::size_t k = 0;
      for (; k < E; ++k) {
        if (c[k] != r.hi[k]) {
          ++c[k];
          break;
        }
        c[k] = r.lo[k];
      }
      if (k == E) return;
    }
  }
};

// Calls fn(t) once for every slot t registered in `layer` and accepted by keep(t) whose cells meet the
// cells of `q` on t's level, from the reference cell of the two there (B9): the cell max(lo_q, lo_t) on
// every axis, which lies in both ranges exactly when they meet. Every t whose box (entry(t).box) overlaps
// q.box is among them (B8). On a level finer than q's, where q's cells may be too many or not int64, the
// level's residents are scanned instead when they are fewer than q's cells there.
template <std::size_t D, typename Entry, typename Keep, typename Fn>
void query_layer(const Layer<D>& layer, CellSize h, const Placed<D>& q, Entry&& entry, Keep&& keep, Fn&& fn,
                 std::int64_t& visits) {
  for (const auto& [level, residents] : layer.levels) {
    CellRange<D> r = q.where.cells;
    bool scan = false;
    if (level != q.where.level) {
      absl::StatusOr<CellSize> size = CellSize::create(level_cell_size(h.value(), level));
      LWC_CHECK(size.ok(), "an occupied level has a finite cell size");
      absl::StatusOr<CellRange<D>> at = cell_range(q.box, *size);
      // Coarser than q: q's cells there are int64 and no more than on its own level (B11's monotonicity).
      scan = !at.ok() || (level < q.where.level && cell_count(*at) > absl::uint128(residents.size()));
      if (at.ok()) r = *at;
    }
    if (scan) {
      for (const std::uint32_t t : residents) {
        if (!keep(t)) continue;
        ++visits;
        fn(t);
      }
      continue;
    }
    Layer<D>::template for_each_range_cell<D>(r, [&](const std::array<std::int64_t, D>& c) {
      auto it = layer.cells.find(CellKey<D>{level, c});
      if (it == layer.cells.end()) return;
      for (const std::uint32_t t : it->second) {
        if (!keep(t)) continue;
        ++visits;
        const CellRange<D>& rt = entry(t).where.cells;
        bool reference = true;
        for (std::size_t k = 0; k < D; ++k) reference &= c[k] == std::max(r.lo[k], rt.lo[k]);
        if (reference) fn(t);
      }
    });
  }
}

template <std::size_t D>
[[nodiscard]] Box<D> hull(const Box<D>& a, const Box<D>& b) {
  Box<D> u;
  for (std::size_t k = 0; k < D; ++k) {
    u.min[k] = std::min(a.min[k], b.min[k]);
    u.max[k] = std::max(a.max[k], b.max[k]);
  }
  return u;
}

[[nodiscard]] inline std::uint64_t pair_key(std::uint32_t a, std::uint32_t b) {
  return (static_cast<std::uint64_t>(std::min(a, b)) << 32) | std::max(a, b);
}

}  // namespace lwc::internal

LWC_EXPORT namespace lwc {

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
// (E9).
template <std::size_t D>
[[nodiscard]] absl::Status validate_segment(const Segment<D>& segment) {
  for (std::size_t k = 0; k < D; ++k) {
    if (!fp::is_finite(segment.from[k]) || !fp::is_finite(segment.to[k]) ||
        !fp::is_finite(segment.to[k] - segment.from[k])) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "segment: axis %d from %a to %a is not finite (E9)", k, segment.from[k], segment.to[k]));
    }
  }
  return absl::OkStatus();
}

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

// PersistentGrid
//
// A broad phase that keeps its boxes between frames and reports contact events. Operations take effect at
// the next update(); pairs() and boxes() describe the state at the last successful update, and query() and
// raycast() the boxes as last given (E11). Each box carries a payload and filter bits (E7, E8). Cost of an
// update: proportional to the memberships of the dirty boxes and the boxes sharing their cells, not to the
// number of boxes (E5). Not thread-safe (queries included); movable, not copyable.
//
// Example:
//   absl::StatusOr<lwc::PersistentGrid<2>> grid =
//       lwc::PersistentGrid<2>::create({.cell_size = lwc::CellSize::of<2.0>()});
//   absl::StatusOr<lwc::Handle> wall = grid->insert({{0, 0}, {10, 2}});
//   absl::StatusOr<lwc::Handle> prop = grid->insert({{12, 0}, {13, 1}}, /*user=*/7);
//   lwc::ContactEvents e;
//   if (absl::Status s = grid->update(e); !s.ok()) return s;                 // nothing began
//   if (absl::Status s = grid->move(*prop, {{9, 0}, {10, 1}}); !s.ok()) return s;
//   if (absl::Status s = grid->update(e); !s.ok()) return s;                 // e.began == {(wall, prop)}
template <std::size_t D>
  requires(D == 2 || D == 3)
class PersistentGrid {
 public:
  // create()
  //
  // The config's errors are those of find_pairs (InvalidArgument, B6). `pair_filter`: the optional pair
  // predicate (E8).
  [[nodiscard]] static absl::StatusOr<PersistentGrid> create(const GridConfig& config, PairFilter pair_filter = {}) {
    absl::StatusOr<GridSpec<D>> spec = GridSpec<D>::create(config);
    if (!spec.ok()) return spec.status();
    return PersistentGrid(*spec, pair_filter);
  }

  PersistentGrid(PersistentGrid&&) noexcept = default;
  PersistentGrid& operator=(PersistentGrid&&) noexcept = default;

  // insert()
  //
  // A new box, live from the next update, with its payload and filter (E7, E8); returns its handle, never
  // issued before (E3). Errors, with nothing changed (E4): those of placing one box in find_pairs (B6, B7,
  // B11: InvalidArgument for a non-finite bound or min > max, OutOfRange for cells outside int64 and
  // ResourceExhausted above max_cells_per_box, both under kReject; the message names the slot the box
  // would take), and ResourceExhausted when all 2^32 - 1 slots are taken.
  [[nodiscard]] absl::StatusOr<Handle> insert(const Box<D>& box, UserData user = 0, Filter filter = {}) {
    const bool fresh = free_.empty();
    if (fresh && slots_.size() >= kMaxSlots) {
      return absl::ResourceExhaustedError(absl::StrCat("all ", kMaxSlots, " slots are taken (E4)"));  // LCOV_EXCL_START: needs 2^32 - 1 live slots (over 100 GiB), more than a test can allocate
    }  // LCOV_EXCL_STOP
    const std::uint32_t slot = fresh ? static_cast<std::uint32_t>(slots_.size()) : free_.back();
    absl::StatusOr<Placement<D>> where = spec_.place(box, slot);
    if (!where.ok()) return where.status();
    if (fresh) {
      slots_.emplace_back();
    } else {
      free_.pop_back();
    }
    Slot& s = slots_[slot];
    ++s.generation;  // a free slot's generation is below the maximum: exhausted slots are retired
    s.live = true;
    s.teleported = true;
    s.now = {box, *where};
    s.user_now = user;
    s.filter_now = filter;
    pending_memberships_ += where->cell_count;
    ++live_;
    mark_dirty(slot);
    return Handle{slot, s.generation};
  }
  // The same for a float box (E10).
  [[nodiscard]] absl::StatusOr<Handle> insert(const FloatBox<D>& box, UserData user = 0, Filter filter = {}) {
    return insert(widen(box), user, filter);
  }

  // move()
  //
  // Moves a live box to `box` (a teleport, or with kSwept also extending its step volume, E6). Errors,
  // with nothing changed (E3, E4): NotFound for a handle that names no live box (removed, stale, never
  // issued); the placement errors of insert for `box` and, with kSwept, for the step volume.
  [[nodiscard]] absl::Status move(Handle handle, const Box<D>& box, Motion motion = Motion::kTeleport) {
    if (absl::Status s = check_handle(handle); !s.ok()) return s;
    Slot& s = slots_[handle.slot];
    absl::StatusOr<Placement<D>> where = spec_.place(box, handle.slot);
    if (!where.ok()) return where.status();
    internal::Placed<D> volume;
    if (motion == Motion::kSwept) {
      const auto known = volumes_.find(handle.slot);
      const Box<D>& start = known != volumes_.end() ? known->second.box : (s.teleported ? s.now.box : s.then.box);
      volume.box = internal::hull(start, box);
      absl::StatusOr<Placement<D>> swept = spec_.place(volume.box, handle.slot);
      if (!swept.ok()) {
        return absl::Status(swept.status().code(), absl::StrCat(swept.status().message(), " (the swept volume, E6)"));
      }
      volume.where = *swept;
    }
    pending_memberships_ += where->cell_count;
    pending_memberships_ -= s.now.where.cell_count;
    s.now = {box, *where};
    if (motion == Motion::kSwept) {
      volumes_[handle.slot] = volume;
    } else {
      volumes_.erase(handle.slot);
      s.teleported = true;
    }
    mark_dirty(handle.slot);
    return absl::OkStatus();
  }
  // The same for a float box (E10).
  [[nodiscard]] absl::Status move(Handle handle, const FloatBox<D>& box, Motion motion = Motion::kTeleport) {
    return move(handle, widen(box), motion);
  }

  // set_filter(), set_user_data(), refilter()
  //
  // Change a live box's filter bits or payload, or only mark it for the pair predicate to be asked again
  // (E8): the box is dirty, and the next update reports exactly the pairs that begin or end because of
  // the change (with its box unchanged: the pairs the filter or predicate now accepts or refuses). NotFound
  // for a handle that names no live box, with nothing changed (E3).
  [[nodiscard]] absl::Status set_filter(Handle handle, Filter filter) {
    if (absl::Status s = check_handle(handle); !s.ok()) return s;
    slots_[handle.slot].filter_now = filter;
    mark_dirty(handle.slot);
    return absl::OkStatus();
  }
  [[nodiscard]] absl::Status set_user_data(Handle handle, UserData user) {
    if (absl::Status s = check_handle(handle); !s.ok()) return s;
    slots_[handle.slot].user_now = user;
    mark_dirty(handle.slot);
    return absl::OkStatus();
  }
  [[nodiscard]] absl::Status refilter(Handle handle) {
    if (absl::Status s = check_handle(handle); !s.ok()) return s;
    mark_dirty(handle.slot);
    return absl::OkStatus();
  }

  // remove()
  //
  // Removes a live box: its pairs end at the next update; the handle is stale at once. NotFound for a
  // handle that names no live box, with nothing changed (E3).
  [[nodiscard]] absl::Status remove(Handle handle) {
    if (absl::Status s = check_handle(handle); !s.ok()) return s;
    Slot& s = slots_[handle.slot];
    s.live = false;
    pending_memberships_ -= s.now.where.cell_count;
    --live_;
    volumes_.erase(handle.slot);
    freed_.push_back(handle.slot);  // reusable after the update: until then the slot may name its old box
    mark_dirty(handle.slot);
    return absl::OkStatus();
  }

  // update()
  //
  // Applies the operations since the previous successful update and writes the events into `out` (E1, E6),
  // reusing its vectors' capacity: once they are large enough, an update allocates nothing (E12). Fails
  // with ResourceExhausted, changing nothing in the grid (E4: the operations stay pending; `out` is left
  // with empty lists), exactly when find_pairs on the live boxes would for a budget — their memberships
  // above max_memberships, their overlapping pairs above max_pairs (E2) — or when the step volumes'
  // memberships exceed max_memberships or the swept candidates max_pairs. The memberships are checked
  // before anything proportional to them is allocated. `timings`, when given, receives update_ns.
  [[nodiscard]] absl::Status update(ContactEvents& out, Timings* timings = nullptr) {
    const internal::Stopwatch updating(timings);
    out.began.clear();
    out.ended.clear();
    out.swept.clear();
    out.stats = {};
    absl::Status s = update_into(out);
    if (!s.ok()) {
      out.began.clear();
      out.ended.clear();
      out.swept.clear();
      out.stats = {};
      return s;
    }
    updating.stop(timings, &Timings::update_ns);
    return absl::OkStatus();
  }
  // The same, returning fresh lists.
  [[nodiscard]] absl::StatusOr<ContactEvents> update(Timings* timings = nullptr) {
    ContactEvents events;
    if (absl::Status s = update(events, timings); !s.ok()) return s;
    return events;
  }

  // query()
  //
  // Calls fn(handle, user) once for every box as last given (E11: pending inserts and moves included,
  // removed boxes excluded) that overlaps `box` (closed), in no particular order, until fn returns false.
  // Allocates nothing. InvalidArgument for a box that is not valid (B6), with fn never called. Filters
  // are not applied (the callback sees the payload).
  template <typename Fn>
  [[nodiscard]] absl::Status query(const Box<D>& box, Fn&& fn) const {
    if (absl::Status s = validate_box(box, 0); !s.ok()) return s;
    for (std::size_t i = 0; i < slots_.size(); ++i) {
      const Slot& t = slots_[i];
      if (!t.live || !overlaps(box, t.now.box)) continue;
      if (!fn(Handle{static_cast<std::uint32_t>(i), t.generation}, t.user_now)) break;
    }
    return absl::OkStatus();
  }
  template <typename Fn>
  [[nodiscard]] absl::Status query(const FloatBox<D>& box, Fn&& fn) const {
    return query(widen(box), std::forward<Fn>(fn));
  }

  // raycast()
  //
  // Calls fn(handle, user, t) for every box as last given (E11) that the segment hits (ray_entry, E9),
  // in order of entry fraction t (ties by slot), until fn returns false. Allocates nothing once warm (a
  // scratch buffer of the grid is reused). InvalidArgument for a segment that is not valid, with fn
  // never called.
  template <typename Fn>
  [[nodiscard]] absl::Status raycast(const Segment<D>& segment, Fn&& fn) const {
    if (absl::Status s = validate_segment(segment); !s.ok()) return s;
    std::vector<RayHit>& hits = ray_scratch_;
    hits.clear();
    for (std::size_t i = 0; i < slots_.size(); ++i) {
      const Slot& t = slots_[i];
      double at = 0;
      if (t.live && ray_entry(t.now.box, segment, at)) hits.push_back({at, static_cast<std::uint32_t>(i)});
    }
    std::sort(hits.begin(), hits.end());
    for (const RayHit& h : hits) {
      const Slot& t = slots_[h.slot];
      if (!fn(Handle{h.slot, t.generation}, t.user_now, h.t)) break;
    }
    return absl::OkStatus();
  }

  // pairs()
  //
  // The overlapping pairs that pass the filters at the last successful update, in canonical order:
  // find_pairs on boxes(), with indices mapped to handles, less the filtered pairs (E2, E8). O(P log P)
  // for P pairs.
  [[nodiscard]] std::vector<Contact> pairs() const {
    std::vector<std::uint64_t> keys(pairs_.begin(), pairs_.end());
    std::sort(keys.begin(), keys.end());
    std::vector<Contact> out;
    out.reserve(keys.size());
    for (const std::uint64_t key : keys) {
      const auto a = static_cast<std::uint32_t>(key >> 32);
      const auto b = static_cast<std::uint32_t>(key & 0xffffffffu);
      out.push_back(contact(a, slots_[a].committed_generation, slots_[a].user_then, b,
                            slots_[b].committed_generation, slots_[b].user_then));
    }
    return out;
  }

  // boxes()
  //
  // The live boxes at the last successful update, by ascending slot. O(slots).
  [[nodiscard]] std::vector<Tracked<D>> boxes() const {
    std::vector<Tracked<D>> out;
    for (std::size_t i = 0; i < slots_.size(); ++i) {
      const Slot& s = slots_[i];
      if (s.committed) out.push_back({Handle{static_cast<std::uint32_t>(i), s.committed_generation}, s.then.box});
    }
    return out;
  }

  // box(), user_data(), filter()
  //
  // The box, payload and filter of a live handle as last given (pending or not); NotFound as for move.
  [[nodiscard]] absl::StatusOr<Box<D>> box(Handle handle) const {
    if (absl::Status s = check_handle(handle); !s.ok()) return s;
    return slots_[handle.slot].now.box;
  }
  [[nodiscard]] absl::StatusOr<UserData> user_data(Handle handle) const {
    if (absl::Status s = check_handle(handle); !s.ok()) return s;
    return slots_[handle.slot].user_now;
  }
  [[nodiscard]] absl::StatusOr<Filter> filter(Handle handle) const {
    if (absl::Status s = check_handle(handle); !s.ok()) return s;
    return slots_[handle.slot].filter_now;
  }

  // The number of live boxes, counting the operations not yet applied by an update.
  [[nodiscard]] std::int64_t size() const noexcept { return live_; }
  // The number of boxes inserted, moved, removed or refiltered since the last successful update.
  [[nodiscard]] std::size_t pending() const noexcept { return dirty_.size(); }
  [[nodiscard]] const GridConfig& config() const noexcept { return spec_.config(); }

 private:
  static constexpr std::size_t kMaxSlots = std::numeric_limits<std::uint32_t>::max();

  // Invariant: committed => `then` is registered in committed_; live => `now` is the box as last given;
  // not dirty => then == now, user and filter likewise, and committed == live.
  struct Slot {
    std::uint32_t generation = 0;            // of the box living here, or of the last one
    std::uint32_t committed_generation = 0;  // of the box living here at the last update
    bool live = false;
    bool committed = false;
    bool dirty = false;
    bool teleported = false;  // inserted or teleported in this step: the step volume starts at `now`
    internal::Placed<D> now;
    internal::Placed<D> then;
    UserData user_now = 0;
    UserData user_then = 0;
    Filter filter_now;
    Filter filter_then;
  };

  struct RayHit {
    double t;
    std::uint32_t slot;
    friend bool operator<(const RayHit& a, const RayHit& b) { return a.t != b.t ? a.t < b.t : a.slot < b.slot; }
  };

  PersistentGrid(const GridSpec<D>& spec, PairFilter pair_filter) : spec_(spec), pair_filter_(pair_filter) {}

  [[nodiscard]] absl::Status check_handle(Handle handle) const {
    if (handle.slot >= slots_.size() || !slots_[handle.slot].live ||
        slots_[handle.slot].generation != handle.generation) {
      return absl::NotFoundError(absl::StrCat("handle #", handle.slot, ".", handle.generation,
                                              " names no live box (removed, stale or never issued) (E3)"));
    }
    return absl::OkStatus();
  }

  void mark_dirty(std::uint32_t slot) {
    if (slots_[slot].dirty) return;
    slots_[slot].dirty = true;
    dirty_.push_back(slot);
  }

  // The filter rule and the predicate on one pair (E8), the lower slot's payload first.
  [[nodiscard]] bool accepts(std::uint32_t s, UserData us, const Filter& fs, std::uint32_t t, UserData ut,
                             const Filter& ft) const {
    if (!passes(fs, ft)) return false;
    if (pair_filter_.fn == nullptr) return true;
    return s < t ? pair_filter_.fn(pair_filter_.context, us, ut) : pair_filter_.fn(pair_filter_.context, ut, us);
  }
  [[nodiscard]] bool in_before(std::uint32_t s, std::uint32_t t) const {  // the pair is in P(S)
    const Slot& a = slots_[s];
    const Slot& b = slots_[t];
    return a.committed && b.committed && overlaps(a.then.box, b.then.box) &&
           accepts(s, a.user_then, a.filter_then, t, b.user_then, b.filter_then);
  }
  [[nodiscard]] bool in_after(std::uint32_t s, std::uint32_t t) const {  // the pair is in P(S')
    const Slot& a = slots_[s];
    const Slot& b = slots_[t];
    return a.live && b.live && overlaps(a.now.box, b.now.box) &&
           accepts(s, a.user_now, a.filter_now, t, b.user_now, b.filter_now);
  }

  [[nodiscard]] static Contact contact(std::uint32_t s, std::uint32_t gs, UserData us, std::uint32_t t,
                                       std::uint32_t gt, UserData ut) {
    return s < t ? Contact{Handle{s, gs}, Handle{t, gt}, us, ut} : Contact{Handle{t, gt}, Handle{s, gs}, ut, us};
  }

  [[nodiscard]] absl::Status update_into(ContactEvents& events) {
    const GridConfig& config = spec_.config();
    if (pending_memberships_ > config.max_memberships.value()) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "the live boxes need ", static_cast<std::int64_t>(pending_memberships_),
          " memberships, more than max_memberships = ", config.max_memberships.value(), " (B7, E2)"));
    }
    absl::int128 volume_memberships = 0;
    for (const auto& [slot, volume] : volumes_) volume_memberships += volume.where.cell_count;
    if (volume_memberships > config.max_memberships.value()) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "the swept volumes need ", static_cast<std::int64_t>(volume_memberships),
          " memberships, more than max_memberships = ", config.max_memberships.value(), " (B7, E6)"));
    }
    UpdateStats& st = events.stats;
    st.dirty = static_cast<std::int64_t>(dirty_.size());
    std::sort(dirty_.begin(), dirty_.end());

    // The overlays: the new boxes of the dirty live slots, and the swept volumes.
    end_.clear();
    swept_.clear();
    for (const std::uint32_t slot : dirty_) {
      const Slot& s = slots_[slot];
      if (s.committed) st.memberships_touched += s.then.where.cell_count;
      if (s.live) {
        end_.add(slot, s.now.where);
        st.memberships_touched += s.now.where.cell_count;
      }
    }
    for (const auto& [slot, volume] : volumes_) {
      swept_.add(slot, volume.where);
      st.memberships_touched += volume.where.cell_count;
    }
    const CellSize h = spec_.cell_size();
    const auto then_of = [&](std::uint32_t t) -> const internal::Placed<D>& { return slots_[t].then; };
    const auto now_of = [&](std::uint32_t t) -> const internal::Placed<D>& { return slots_[t].now; };
    const auto volume_of = [&](std::uint32_t t) -> const internal::Placed<D>& { return volumes_.find(t)->second; };
    const auto clean = [&](std::uint32_t t) { return !slots_[t].dirty; };
    const auto any = [](std::uint32_t) { return true; };

    // Ended: from each dirty box that was live, its partners at the previous update (the committed grid is
    // that state), each pair once: a pair of two dirty boxes from the lower slot.
    for (const std::uint32_t s : dirty_) {
      const Slot& a = slots_[s];
      if (!a.committed) continue;
      internal::query_layer<D>(committed_, h, a.then, then_of, any, [&](std::uint32_t t) {
        const Slot& b = slots_[t];
        if (t == s || (b.dirty && t < s) || !in_before(s, t) || in_after(s, t)) return;
        events.ended.push_back(contact(s, a.committed_generation, a.user_then, t, b.committed_generation, b.user_then));
      }, st.pair_visits);
    }
    // Began: from each dirty live box, its partners now: the clean boxes of the committed grid and the
    // dirty ones of the overlay. The pair count after the update is known as the pairs are found.
    const std::int64_t kept = static_cast<std::int64_t>(pairs_.size() - events.ended.size());
    const std::int64_t room = config.max_pairs.value() - kept;
    bool within = true;
    for (const std::uint32_t s : dirty_) {
      const Slot& a = slots_[s];
      if (!a.live || !within) continue;
      const auto found = [&](std::uint32_t t) {
        const Slot& b = slots_[t];
        if (!within || t == s || (b.dirty && t < s) || !in_after(s, t) || in_before(s, t)) return;
        if (static_cast<std::int64_t>(events.began.size()) >= room) {
          within = false;
          return;
        }
        events.began.push_back(contact(s, a.generation, a.user_now, t, b.generation, b.user_now));
      };
      internal::query_layer<D>(committed_, h, a.now, then_of, clean, found, st.pair_visits);
      internal::query_layer<D>(end_, h, a.now, now_of, any, found, st.pair_visits);
    }
    if (!within || room < 0) {
      return absl::ResourceExhaustedError(
          absl::StrCat("more than max_pairs = ", config.max_pairs.value(), " overlapping pairs (B7, E2)"));
    }
    // Swept: from each swept box, the step volumes meeting its own (a clean box's is its box, a dirty
    // unswept box's its new box), each pair once, kept when the end boxes do not overlap and the pair
    // passes the filters.
    for (const auto& [s, volume] : volumes_) {
      const Slot& a = slots_[s];
      const auto found = [&](std::uint32_t t, const Box<D>& other) {
        const Slot& b = slots_[t];
        if (!within || t == s || (volumes_.contains(t) && t < s) || !overlaps(volume.box, other)) return;
        if (overlaps(a.now.box, b.now.box)) return;
        if (!accepts(s, a.user_now, a.filter_now, t, b.user_now, b.filter_now)) return;
        if (events.swept.size() >= static_cast<std::size_t>(config.max_pairs.value())) {
          within = false;
          return;
        }
        events.swept.push_back(contact(s, a.generation, a.user_now, t, b.generation, b.user_now));
      };
      internal::query_layer<D>(committed_, h, volume, then_of, clean,
                               [&](std::uint32_t t) { found(t, slots_[t].then.box); }, st.pair_visits);
      internal::query_layer<D>(end_, h, volume, now_of, [&](std::uint32_t t) { return !volumes_.contains(t); },
                               [&](std::uint32_t t) { found(t, slots_[t].now.box); }, st.pair_visits);
      internal::query_layer<D>(swept_, h, volume, volume_of, any,
                               [&](std::uint32_t t) { found(t, volumes_.find(t)->second.box); }, st.pair_visits);
    }
    if (!within) {
      return absl::ResourceExhaustedError(
          absl::StrCat("more than max_pairs = ", config.max_pairs.value(), " swept candidates (B7, E6)"));
    }

    // Commit: nothing above changed the grid; from here on nothing fails.
    for (const std::uint32_t slot : dirty_) {
      Slot& s = slots_[slot];
      if (s.committed) committed_.erase(slot, s.then.where);
      if (s.live) committed_.add(slot, s.now.where);
      s.then = s.now;
      s.user_then = s.user_now;
      s.filter_then = s.filter_now;
      s.committed = s.live;
      s.committed_generation = s.generation;
      s.dirty = false;
      s.teleported = false;
    }
    for (const Contact& c : events.ended) pairs_.erase(internal::pair_key(c.a.slot, c.b.slot));
    for (const Contact& c : events.began) pairs_.insert(internal::pair_key(c.a.slot, c.b.slot));
    for (const std::uint32_t slot : freed_) {
      if (slots_[slot].generation < std::numeric_limits<std::uint32_t>::max()) free_.push_back(slot);
    }
    freed_.clear();
    dirty_.clear();
    volumes_.clear();
    committed_memberships_ = static_cast<std::int64_t>(pending_memberships_);
    committed_live_ = live_;
    std::sort(events.began.begin(), events.began.end());
    std::sort(events.ended.begin(), events.ended.end());
    std::sort(events.swept.begin(), events.swept.end());
    st.boxes = committed_live_;
    st.memberships = committed_memberships_;
    st.pairs = static_cast<std::int64_t>(pairs_.size());
    st.began = static_cast<std::int64_t>(events.began.size());
    st.ended = static_cast<std::int64_t>(events.ended.size());
    st.swept = static_cast<std::int64_t>(events.swept.size());
    return absl::OkStatus();
  }

  GridSpec<D> spec_;
  PairFilter pair_filter_;
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_;   // reusable now
  std::vector<std::uint32_t> freed_;  // removed since the last update: reusable after the next one
  std::vector<std::uint32_t> dirty_;
  absl::flat_hash_map<std::uint32_t, internal::Placed<D>> volumes_;  // step volumes of the swept boxes
  internal::Layer<D> committed_;
  internal::Layer<D> end_;     // scratch of update(): the dirty live boxes' new boxes
  internal::Layer<D> swept_;   // scratch of update(): the step volumes
  absl::flat_hash_set<std::uint64_t> pairs_;  // the pairs at the last update, as pair_key(slot, slot)
  mutable std::vector<RayHit> ray_scratch_;   // raycast()'s hits, reused
  absl::int128 pending_memberships_ = 0;
  std::int64_t committed_memberships_ = 0;
  std::int64_t live_ = 0;
  std::int64_t committed_live_ = 0;
};

}  // namespace lwc

LWC_EXACT_FP_END
