// SPDX-License-Identifier: MIT
// File: modules/lwc/broadphase/persistent.h
//
// The persistent broad phase: boxes live across frames behind generation-checked handles; insert, move
// and remove are validated and placed at once (like find_pairs' boxes: the same placement of :box, the
// same per-box budget, the same oversize levels) and take effect at the next update(), which returns the
// contact events since the previous one — pairs that began and pairs that ended overlapping, each exactly
// once, in canonical order — and, for boxes moved with Motion::kSwept, the pairs whose swept volumes meet
// although their end boxes do not (candidates for continuous collision in the narrow phase).
//
// Each box also carries a payload and filter bits (E7, E8); queries and ray casts see the boxes as last
// given (E9, E11); float boxes are accepted as the doubles they are (E10); a warm grid allocates nothing
// per frame (E12). The state and the phases of update() are :update's, the cell table :table's.
// Spec: docs/broadphase.md (clauses E1-E12). Checker and model: lwc.contracts.broadphase.
//
// One source, two modes (lwc/config.h): `#include <lwc/broadphase.h>` brings it without module support;
// the module unit modules/broadphase/persistent.cppm exports the same declarations as lwc.broadphase:persistent.
#ifndef LWC_BROADPHASE_PERSISTENT_H_
#define LWC_BROADPHASE_PERSISTENT_H_

#include "lwc/config.h"
#ifndef LWC_MODULE_UNIT  // modules/broadphase/persistent.cppm includes these in its global module fragment
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "lwc/exact_fp.h"
// ... and imports these.
#include "lwc/decompose.h"
#include "lwc/broadphase/box.h"
#include "lwc/broadphase/place.h"
#include "lwc/broadphase/cells.h"
#include "lwc/broadphase/events.h"
#include "lwc/broadphase/table.h"
#include "lwc/broadphase/tasks.h"
#include "lwc/broadphase/update.h"
#endif

// The arithmetic below is exact IEEE arithmetic whatever the consumer's flags (lwc/exact_fp.h).
LWC_EXACT_FP_BEGIN

namespace lwc::internal {

// What the part of a segment in one column touches: cells, none, or cells the walk cannot name.
enum class Column { kCells, kEmpty, kScan };

// The cells of a level that the part of `seg` in column i of axis m can touch, with a margin of one cell
// (and within one of the segment's cells `cells`).
template <std::size_t D>
[[nodiscard]] Column column_cells(const Segment<D>& seg, const CellRange<D>& cells, std::size_t m, std::int64_t i,
                                  CellSize size, CellRange<D>& r) {
  const double h = size.value();
  const double dm = seg.to[m] - seg.from[m];
  // The part of the segment in column i (the whole segment when it does not move along m).
  double t0 = 0.0;
  double t1 = 1.0;
  if (!fp::is_zero(dm)) {
    const double x0 = std::max(std::min(seg.from[m], seg.to[m]), static_cast<double>(i) * h);
    const double x1 = std::min(std::max(seg.from[m], seg.to[m]), static_cast<double>(i + 1) * h);
    t0 = std::clamp((x0 - seg.from[m]) / dm, 0.0, 1.0);
    t1 = std::clamp((x1 - seg.from[m]) / dm, 0.0, 1.0);
  }
  bool empty = false;
  for (std::size_t k = 0; k < D; ++k) {
    if (k == m) {
      r.lo[k] = r.hi[k] = i;
      continue;
    }
    const double d = seg.to[k] - seg.from[k];
    const double y0 = seg.from[k] + t0 * d;
    const double y1 = seg.from[k] + t1 * d;
    absl::StatusOr<std::int64_t> lo = cell_of(std::min(y0, y1), size);
    absl::StatusOr<std::int64_t> hi = cell_of(std::max(y0, y1), size);
    // Unreachable near the origin (walk_segment's condition): y0, y1 are within an ulp of the segment's
    // span, below 2^40 cells.
    if (!lo.ok() || !hi.ok()) return Column::kScan;  // LCOV_EXCL_LINE: unreachable, see above; kept so that a walk never reads an error's value
    r.lo[k] = std::max(*lo - 1, cells.lo[k] - 1);
    r.hi[k] = std::min(*hi + 1, cells.hi[k] + 1);
    empty = empty || r.lo[k] > r.hi[k];
  }
  return empty ? Column::kEmpty : Column::kCells;
}

// Calls visit(slot) for the members of the cells of `level` that the segment's cells (with a margin of
// one cell) meet, column by column along the segment's dominant axis; or for every resident of the level
// when that would visit more cells than the level has residents, or when the coordinates are beyond 2^40
// cells (where the rounding of the walk could approach a cell). A slot may be visited more than once.
template <std::size_t D, typename Visit>
void walk_segment(const CellGrid<D>& grid, const typename CellGrid<D>::Level& level, const Segment<D>& seg,
                  Visit&& visit) {
  const double hl = level.size.value();
  Box<D> span{};
  bool near = true;
  std::size_t m = 0;  // the dominant axis
  for (std::size_t k = 0; k < D; ++k) {
    span.min[k] = std::min(seg.from[k], seg.to[k]);
    span.max[k] = std::max(seg.from[k], seg.to[k]);
    near = near && std::abs(seg.from[k]) / hl < 0x1p40 && std::abs(seg.to[k]) / hl < 0x1p40;
    if (std::abs(seg.to[k] - seg.from[k]) > std::abs(seg.to[m] - seg.from[m])) m = k;
  }
  absl::StatusOr<CellRange<D>> cells = cell_range(span, level.size);
  const auto scan = [&] {
    for (const std::uint32_t t : level.residents) visit(t);
  };
  if (!near || !cells.ok() ||
      (absl::uint128(cells->hi[m] - cells->lo[m]) + 3) * (D == 2 ? 4 : 16) > absl::uint128(level.residents.size())) {
    return scan();
  }
  for (std::int64_t i = cells->lo[m] - 1; i <= cells->hi[m] + 1; ++i) {
    CellRange<D> r{};
    const Column column = column_cells(seg, *cells, m, i, level.size, r);
    if (column == Column::kScan) return scan();  // LCOV_EXCL_LINE: unreachable, as column_cells says
    if (column == Column::kEmpty) continue;
    for_each_cell<D>(r, [&](const std::array<std::int64_t, D>& c, std::uint32_t) {
      (void)grid.table().for_each(level.level, c, [&](const Member& member) {
        visit(member.slot);
        return true;
      });
    });
  }
}

}  // namespace lwc::internal

LWC_EXPORT namespace lwc {

// PersistentGrid
//
// A broad phase that keeps its boxes between frames and reports contact events. Operations take effect at
// the next update(); pairs() and boxes() describe the state at the last successful update, and query() and
// raycast() the boxes as last given (E11). Each box carries a payload and filter bits (E7, E8). Cost of an
// update: proportional to the memberships of the dirty boxes and the boxes sharing their cells, not to the
// number of boxes (E5). Not thread-safe (queries included); movable, not copyable. Error messages name the
// call and the handle it was given ("move #3.1: ...").
//
// Example:
//   absl::StatusOr<lwc::PersistentGrid<2>> grid =
//       lwc::PersistentGrid<2>::create({.cell_size = lwc::CellSize::of<2.0>()});
//   absl::StatusOr<lwc::Handle> wall = grid->insert({{0, 0}, {10, 2}});
//   absl::StatusOr<lwc::Handle> prop = grid->insert({{12, 0}, {13, 1}}, /*user=*/7);
//   lwc::ContactEvents e;
//   if (absl::Status s = grid->update_into(e); !s.ok()) return s;                 // nothing began
//   if (absl::Status s = grid->move(*prop, {{9, 0}, {10, 1}}); !s.ok()) return s;
//   if (absl::Status s = grid->update_into(e); !s.ok()) return s;                 // e.began == {(wall, prop)}
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
  // ResourceExhausted above max_cells_per_box, both under kReject; the message starts "insert: "), and
  // ResourceExhausted when all 2^32 - 1 slots are taken.
  [[nodiscard]] absl::StatusOr<Handle> insert(const Box<D>& box, UserData user = 0, Filter filter = {}) {
    internal::PersistentState<D>& g = state_;
    const bool fresh = g.free_slots.empty();
    if (fresh && g.slots.size() >= g.kMaxSlots) {
      return absl::ResourceExhaustedError(absl::StrCat("insert: all ", g.kMaxSlots, " slots are taken (E4)"));  // LCOV_EXCL_START: needs 2^32 - 1 live slots (over 100 GiB), more than a test can allocate
    }  // LCOV_EXCL_STOP
    absl::StatusOr<Placement<D>> where = g.spec.place(box, internal::Named::call("insert"));
    if (!where.ok()) return where.status();
    const std::uint32_t slot = fresh ? static_cast<std::uint32_t>(g.slots.size()) : g.free_slots.back();
    if (fresh) {
      g.slots.emplace_back();
      g.cold.emplace_back();
      g.adj.emplace_back();
    } else {
      g.free_slots.pop_back();
    }
    auto& s = g.slots[slot];
    ++s.generation;  // a free slot's generation is below the maximum: exhausted slots are retired
    s.live = true;
    s.teleported = true;
    s.box = box;
    s.user = user;
    s.filter = filter;
    s.where = *where;
    g.pending_memberships += where->cell_count;
    ++g.live;
    g.mark_dirty(slot);
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
    internal::PersistentState<D>& g = state_;
    if (absl::Status st = g.check_handle(handle, "move"); !st.ok()) return st;
    const internal::Named who = internal::Named::call("move", handle.slot, handle.generation);
    absl::StatusOr<Placement<D>> where = g.spec.place(box, who);
    if (!where.ok()) return where.status();
    auto& s = g.slots[handle.slot];
    internal::Placed<D> volume;
    if (motion == Motion::kSwept) {
      const Box<D>& start = s.swept ? g.volumes[s.volume].placed.box : (s.teleported ? s.box : g.cold[handle.slot].then_box);
      volume.box = internal::hull(start, box);
      absl::StatusOr<Placement<D>> swept = g.spec.place(volume.box, who);
      if (!swept.ok()) {
        return absl::Status(swept.status().code(), absl::StrCat(swept.status().message(), " (the swept volume, E6)"));
      }
      volume.where = *swept;
    }
    g.pending_memberships += where->cell_count;
    g.pending_memberships -= s.where.cell_count;
    s.box = box;
    s.where = *where;
    if (motion == Motion::kSwept) {
      if (!s.swept) {
        s.volume = static_cast<std::uint32_t>(g.volumes.size());
        s.swept = true;
        g.volumes.push_back({handle.slot, volume});
      } else {
        g.volumes[s.volume].placed = volume;
      }
    } else {
      g.drop_volume(handle.slot);
      s.teleported = true;
    }
    g.mark_dirty(handle.slot);
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
    if (absl::Status s = state_.check_handle(handle, "set_filter"); !s.ok()) return s;
    state_.slots[handle.slot].filter = filter;
    state_.mark_dirty(handle.slot);
    return absl::OkStatus();
  }
  [[nodiscard]] absl::Status set_user_data(Handle handle, UserData user) {
    if (absl::Status s = state_.check_handle(handle, "set_user_data"); !s.ok()) return s;
    state_.slots[handle.slot].user = user;
    state_.mark_dirty(handle.slot);
    return absl::OkStatus();
  }
  [[nodiscard]] absl::Status refilter(Handle handle) {
    if (absl::Status s = state_.check_handle(handle, "refilter"); !s.ok()) return s;
    state_.mark_dirty(handle.slot);
    return absl::OkStatus();
  }

  // remove()
  //
  // Removes a live box: its pairs end at the next update; the handle is stale at once. NotFound for a
  // handle that names no live box, with nothing changed (E3).
  [[nodiscard]] absl::Status remove(Handle handle) {
    internal::PersistentState<D>& g = state_;
    if (absl::Status st = g.check_handle(handle, "remove"); !st.ok()) return st;
    auto& s = g.slots[handle.slot];
    s.live = false;
    g.pending_memberships -= s.where.cell_count;
    --g.live;
    g.drop_volume(handle.slot);
    g.freed_slots.push_back(handle.slot);  // reusable after the update: until then the slot may name its old box
    g.mark_dirty(handle.slot);
    return absl::OkStatus();
  }

  // update_into()
  //
  // Applies the operations since the previous successful update and writes the events into `out` (E1, E6),
  // reusing its vectors' capacity: once they and the grid are warm, an update allocates nothing (E12).
  // Fails with ResourceExhausted, changing nothing (E4: the operations stay pending, `out` holds what it
  // held), exactly when find_pairs on the live boxes would for a budget — their memberships above
  // max_memberships, their overlapping pairs above max_pairs (E2) — or when the step volumes' memberships
  // exceed max_memberships or the swept candidates max_pairs. `timings`, when given, receives update_ns.
  // The events are written into the grid's own lists and copied into `out` on success: each set of
  // vectors keeps its capacity (a swap would make them take turns, and a frame could meet the colder).
  [[nodiscard]] absl::Status update_into(ContactEvents& out, Timings* timings = nullptr) {
    const internal::Stopwatch updating(timings);
    clear(next_);
    if (absl::Status s = state_.update(next_); !s.ok()) return s;
    out.began.assign(next_.began.begin(), next_.began.end());
    out.ended.assign(next_.ended.begin(), next_.ended.end());
    out.swept.assign(next_.swept.begin(), next_.swept.end());
    out.stats = next_.stats;
    updating.stop(timings, &Timings::update_ns);
    return absl::OkStatus();
  }

  // update()
  //
  // The same, returning fresh lists.
  [[nodiscard]] absl::StatusOr<ContactEvents> update(Timings* timings = nullptr) {
    ContactEvents events;
    if (absl::Status s = update_into(events, timings); !s.ok()) return s;
    return events;
  }

  // query()
  //
  // Calls fn(handle, user) once for every box as last given (E11: pending inserts and moves included,
  // removed boxes excluded) that overlaps `box` (closed), in no particular order, until fn returns false.
  // Allocates nothing. InvalidArgument for a box that is not valid (B6, "query: ..."), with fn never
  // called. Filters are not applied (the callback sees the payload).
  template <typename Fn>
  [[nodiscard]] absl::Status query(const Box<D>& box, Fn&& fn) const {
    if (absl::Status s = internal::validate(box, internal::Named::call("query")); !s.ok()) return s;
    const internal::PersistentState<D>& g = state_;
    std::int64_t visits = 0;
    bool go = true;
    g.grid.candidates(box, [&](std::uint32_t t) {
      const auto& b = g.slots[t];
      if ((!g.synced && b.dirty) || !overlaps(box, b.box)) return true;
      return go = static_cast<bool>(fn(Handle{t, b.generation}, b.user));
    }, visits, [&](std::uint32_t t) { __builtin_prefetch(&g.slots[t]); });
    if (g.synced) return absl::OkStatus();
    for (const std::uint32_t t : g.dirty) {  // not yet in the grid where they are now
      const auto& b = g.slots[t];
      if (!go) break;
      if (b.live && overlaps(box, b.box)) go = static_cast<bool>(fn(Handle{t, b.generation}, b.user));
    }
    return absl::OkStatus();
  }
  template <typename Fn>
  [[nodiscard]] absl::Status query(const FloatBox<D>& box, Fn&& fn) const {
    return query(widen(box), std::forward<Fn>(fn));
  }

  // The same answer returned: the handles of every overlapping box as last given (E11), ascending, each
  // once. Allocates its vector; InvalidArgument as above.
  [[nodiscard]] absl::StatusOr<std::vector<Handle>> query(const Box<D>& box) const {
    std::vector<Handle> hits;
    if (absl::Status s = query(box, [&](Handle h, UserData) { return hits.push_back(h), true; }); !s.ok()) return s;
    std::sort(hits.begin(), hits.end());
    return hits;
  }
  [[nodiscard]] absl::StatusOr<std::vector<Handle>> query(const FloatBox<D>& box) const { return query(widen(box)); }

  // raycast()
  //
  // Calls fn(handle, user, t) for every box as last given (E11) that the segment hits (ray_entry, E9),
  // in order of entry fraction t (ties by slot), until fn returns false. The cells along the segment are
  // visited first (with a margin of one cell, or every resident of a level when the segment has more cells
  // there, or coordinates beyond 2^40 cells), then the hits are sorted: an early exit saves the calls,
  // not the walk. Allocates nothing once warm (scratch buffers of the grid are reused). InvalidArgument
  // for a segment that is not valid (validate_segment), with fn never called.
  template <typename Fn>
  [[nodiscard]] absl::Status raycast(const Segment<D>& segment, Fn&& fn) const {
    if (absl::Status s = validate_segment(segment); !s.ok()) return s;
    const internal::PersistentState<D>& g = state_;
    std::vector<RayHit>& hits = ray_scratch_;
    hits.clear();
    g.next_token();
    const auto visit = [&](std::uint32_t t) {
      if (g.seen[t] == g.token || (!g.synced && g.slots[t].dirty)) return;
      g.seen[t] = g.token;
      double at = 0;
      if (ray_entry(g.slots[t].box, segment, at)) hits.push_back({at, t});
    };
    for (const auto& level : g.grid.levels()) {
      if (!level.residents.empty()) internal::walk_segment(g.grid, level, segment, visit);
    }
    if (!g.synced) {
      for (const std::uint32_t t : g.dirty) {  // not yet in the grid where they are now
        double at = 0;
        if (g.slots[t].live && ray_entry(g.slots[t].box, segment, at)) hits.push_back({at, t});
      }
    }
    std::sort(hits.begin(), hits.end());
    for (const RayHit& h : hits) {
      const auto& t = g.slots[h.slot];
      if (!fn(Handle{h.slot, t.generation}, t.user, h.t)) break;
    }
    return absl::OkStatus();
  }

  // pairs()
  //
  // The overlapping pairs that pass the filters at the last successful update, in canonical order:
  // find_pairs on boxes(), with indices mapped to handles, less the filtered pairs (E2, E8). O(P log d)
  // for P pairs of degree d.
  [[nodiscard]] std::vector<Contact> pairs() const {
    const internal::PersistentState<D>& g = state_;
    std::vector<Contact> out;
    out.reserve(static_cast<std::size_t>(g.pair_count));
    for (std::size_t i = 0; i < g.adj.size(); ++i) {
      const std::size_t first = out.size();
      const auto s = static_cast<std::uint32_t>(i);
      for (const std::uint32_t t : g.adj[i]) {
        if (t > s) {
          out.push_back(internal::contact(s, g.cold[s].committed_generation, g.cold[s].user_then, t,
                                          g.cold[t].committed_generation, g.cold[t].user_then));
        }
      }
      std::sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end());
    }
    return out;
  }

  // boxes()
  //
  // The live boxes at the last successful update, by ascending slot. O(slots).
  [[nodiscard]] std::vector<Tracked<D>> boxes() const {
    std::vector<Tracked<D>> out;
    for (std::size_t i = 0; i < state_.slots.size(); ++i) {
      const auto& c = state_.cold[i];
      if (c.committed) out.push_back({Handle{static_cast<std::uint32_t>(i), c.committed_generation}, c.then_box});
    }
    return out;
  }

  // box(), user_data(), filter()
  //
  // The box, payload and filter of a live handle as last given (pending or not); NotFound as for move.
  [[nodiscard]] absl::StatusOr<Box<D>> box(Handle handle) const {
    if (absl::Status s = state_.check_handle(handle, "box"); !s.ok()) return s;
    return state_.slots[handle.slot].box;
  }
  [[nodiscard]] absl::StatusOr<UserData> user_data(Handle handle) const {
    if (absl::Status s = state_.check_handle(handle, "user_data"); !s.ok()) return s;
    return state_.slots[handle.slot].user;
  }
  [[nodiscard]] absl::StatusOr<Filter> filter(Handle handle) const {
    if (absl::Status s = state_.check_handle(handle, "filter"); !s.ok()) return s;
    return state_.slots[handle.slot].filter;
  }

  // The number of live boxes, counting the operations not yet applied by an update.
  [[nodiscard]] std::int64_t size() const noexcept { return state_.live; }
  // The number of boxes inserted, moved, removed or refiltered since the last successful update.
  [[nodiscard]] std::size_t pending() const noexcept { return state_.dirty.size(); }
  [[nodiscard]] const GridConfig& config() const noexcept { return state_.spec.config(); }

 private:
  struct RayHit {
    double t;
    std::uint32_t slot;
    friend bool operator<(const RayHit& a, const RayHit& b) { return a.t != b.t ? a.t < b.t : a.slot < b.slot; }
  };

  PersistentGrid(const GridSpec<D>& spec, PairFilter pair_filter) : state_(spec, pair_filter) {}

  static void clear(ContactEvents& out) {
    out.began.clear();
    out.ended.clear();
    out.swept.clear();
    out.stats = {};
  }

  internal::PersistentState<D> state_;
  ContactEvents next_;  // the events of the update in progress, copied into the caller's on success
  mutable std::vector<RayHit> ray_scratch_;  // raycast()'s hits, reused
};

}  // namespace lwc

LWC_EXACT_FP_END

#endif  // LWC_BROADPHASE_PERSISTENT_H_
