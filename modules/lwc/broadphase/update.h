// SPDX-License-Identifier: MIT
// File: modules/lwc/broadphase/update.h
//
// The state of a persistent grid and its update (E1-E6): the boxes as given and as committed, the pair set
// P(S) as each slot's adjacency, the cell table of the boxes as given (:table), and the phases of update(),
// each a function below: the budgets of S' (check_budgets), the registrations of the dirty boxes with
// their ended and began pairs box by box (dirty_pass), or for a first build every pair cell by cell
// through the pairing kernel of the batch grid (began_of_first_build), the swept candidates (swept_pass),
// and the commit, which cannot fail. Nothing of the pair set or the committed state changes before the
// commit, so a refused update changes nothing observable (E4).
// Spec: docs/broadphase.md (E1-E8, E12).
//
// One source, two modes (lwc/config.h): `#include <lwc/broadphase.h>` brings it without module support;
// the module unit modules/broadphase/update.cppm exports the same declarations as lwc.broadphase:update.
#ifndef LWC_BROADPHASE_UPDATE_H_
#define LWC_BROADPHASE_UPDATE_H_

#include "lwc/config.h"
#ifndef LWC_MODULE_UNIT  // modules/broadphase/update.cppm includes these in its global module fragment
#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "lwc/check.h"
#include "lwc/exact_fp.h"
// ... and imports these.
#include "lwc/broadphase/box.h"
#include "lwc/broadphase/place.h"
#include "lwc/broadphase/cells.h"
#include "lwc/broadphase/events.h"
#include "lwc/broadphase/sort.h"
#include "lwc/broadphase/table.h"
#endif

// The arithmetic below is exact IEEE arithmetic whatever the consumer's flags (lwc/exact_fp.h).
LWC_EXACT_FP_BEGIN

namespace lwc::internal {

// A box with its placement (level and cells), as registered.
template <std::size_t D>
struct Placed {
  Box<D> box{};
  Placement<D> where{};
};

template <std::size_t D>
[[nodiscard]] Box<D> hull(const Box<D>& a, const Box<D>& b) {
  Box<D> u;
  for (std::size_t k = 0; k < D; ++k) {
    u.min[k] = std::min(a.min[k], b.min[k]);
    u.max[k] = std::max(a.max[k], b.max[k]);
  }
  return u;
}

[[nodiscard]] inline Contact contact(std::uint32_t s, std::uint32_t gs, UserData us, std::uint32_t t, std::uint32_t gt,
                                     UserData ut) {
  return s < t ? Contact{Handle{s, gs}, Handle{t, gt}, us, ut} : Contact{Handle{t, gt}, Handle{s, gs}, ut, us};
}

inline void sort_contacts(std::vector<Contact>& cs) {
  const auto by_slots = [](const Contact& x, const Contact& y) {
    return x.a.slot != y.a.slot ? x.a.slot < y.a.slot : x.b.slot < y.b.slot;
  };
  if (!std::is_sorted(cs.begin(), cs.end(), by_slots)) std::sort(cs.begin(), cs.end(), by_slots);
}

// The state of a PersistentGrid (lwc.broadphase:persistent, which owns one and applies its operations)
// and the phases of its update.
template <std::size_t D>
struct PersistentState {
  static constexpr std::size_t kMaxSlots = std::numeric_limits<std::uint32_t>::max();
  static constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
  // Above this degree, "was (s, t) a pair at the previous update" is read from stamps instead of s's list.
  static constexpr std::size_t kStampDegree = 16;
  // From this many new boxes in one update on, sync() registers them together (CellGrid::add_many).
  static constexpr std::size_t kManyAdds = 4096;

  // The state of a box as last given. What an update reads for every candidate (box, filter, payload,
  // generation, flags) fills the first 64 bytes, and in 2D the slot is aligned to them, so that a
  // candidate's test reads one cache line; `volume` and `where`, read by the box's own operations only,
  // follow. Invariant: live => `box` is registered in grid at `where`.
  struct alignas(D == 2 ? 64 : alignof(Box<D>)) Slot {
    Box<D> box{};
    Filter filter;
    UserData user = 0;
    std::uint32_t generation = 0;  // of the box living here, or of the last one
    bool live = false;
    bool dirty = false;
    bool teleported = false;  // inserted or teleported in this step: the step volume starts at `box`
    bool swept = false;       // swept in this step. Invariant: swept == (volume != kNone)
    std::uint32_t volume = kNone;  // index into volumes, if swept in this step
    Placement<D> where{};  // of `box`, if live
  };
  static_assert(D != 2 || offsetof(Slot, volume) == 64, "a 2D slot's candidate fields are one cache line");
  // The rest. Invariant: committed => then_box, user_then and committed_generation are the box's state at
  // the last update; not dirty => that state equals the one given, and committed == live.
  struct Cold {
    Placement<D> reg{};       // where the box is registered in grid, if `registered`
    bool registered = false;
    Box<D> then_box{};
    UserData user_then = 0;
    std::uint32_t committed_generation = 0;
    bool committed = false;
    std::int64_t then_cells = 0;
  };
  struct Volume {
    std::uint32_t slot;
    Placed<D> placed;
  };
  // The slots' boxes, as the pairing kernel reads boxes.
  struct SlotBoxes {
    const std::vector<Slot>& slots;
    [[nodiscard]] const Box<D>& operator[](std::uint32_t t) const { return slots[t].box; }
  };

  PersistentState(const GridSpec<D>& grid_spec, PairFilter filter)
      : spec(grid_spec), pair_filter(filter), grid(grid_spec.cell_size()), volume_grid(grid_spec.cell_size()) {}

  GridSpec<D> spec;
  PairFilter pair_filter;
  std::vector<Slot> slots;
  std::vector<Cold> cold;
  std::vector<absl::InlinedVector<std::uint32_t, 6>> adj;  // P(S): each slot's partners at the last update
  std::vector<std::uint32_t> free_slots;   // reusable now
  std::vector<std::uint32_t> freed_slots;  // removed since the last update: reusable after the next one
  std::vector<std::uint32_t> dirty;
  std::vector<Volume> volumes;       // step volumes of the swept boxes
  CellGrid<D> grid;                  // the live boxes as last given
  CellGrid<D> volume_grid;           // scratch of update(): the step volumes
  mutable std::vector<std::uint32_t> seen;  // stamps of raycast() and of update()'s high-degree boxes
  std::vector<std::uint64_t> pair_scratch;  // a first build's pairs, packed; reused
  std::vector<std::uint64_t> sort_scratch;
  std::vector<std::size_t> sort_counts;     // its histograms; reused
  CellBoxes<D> cell_scratch;                // a first build's gathered cell; reused
  mutable std::uint32_t token = 0;
  bool synced = true;  // grid holds every box as given (no operation since the last sync())
  absl::int128 pending_memberships = 0;
  std::int64_t committed_memberships = 0;
  std::int64_t pair_count = 0;
  std::int64_t live = 0;
  std::int64_t committed_live = 0;

  // NotFound (E3) for a handle that names no live box, naming the handle and the call it was given to.
  [[nodiscard]] absl::Status check_handle(Handle handle, const char* call) const {
    if (handle.slot >= slots.size() || !slots[handle.slot].live ||
        slots[handle.slot].generation != handle.generation) {
      return absl::NotFoundError(absl::StrCat(call, ": handle #", handle.slot, ".", handle.generation,
                                              " names no live box (removed, stale or never issued) (E3)"));
    }
    return absl::OkStatus();
  }

  void mark_dirty(std::uint32_t slot) {
    synced = false;
    if (slots[slot].dirty) return;
    slots[slot].dirty = true;
    dirty.push_back(slot);
  }

  void drop_volume(std::uint32_t slot) {
    const std::uint32_t at = slots[slot].volume;
    if (at == kNone) return;
    slots[volumes.back().slot].volume = at;
    volumes[at] = volumes.back();
    volumes.pop_back();
    slots[slot].volume = kNone;
    slots[slot].swept = false;
  }

  // A fresh token for the stamps of `seen` (sized to the slots); on wrap-around every stamp is cleared.
  void next_token() const {
    if (seen.size() < slots.size()) seen.resize(slots.size(), 0);
    if (++token == 0) {  // LCOV_EXCL_START: the 2^32nd token, after 2^32 - 1 raycasts and updates, beyond a test's time
      std::fill(seen.begin(), seen.end(), 0);
      token = 1;
    }  // LCOV_EXCL_STOP
  }

  // The filter rule and the predicate on one pair (E8), the lower slot's payload first.
  [[nodiscard]] bool accepts(std::uint32_t s, const Slot& a, std::uint32_t t, const Slot& b) const {
    if (!passes(a.filter, b.filter)) return false;
    if (pair_filter.fn == nullptr) return true;
    return s < t ? pair_filter.fn(pair_filter.context, a.user, b.user) : pair_filter.fn(pair_filter.context, b.user, a.user);
  }
  [[nodiscard]] bool in_after(std::uint32_t s, std::uint32_t t) const {  // the pair is in P(S')
    const Slot& a = slots[s];
    const Slot& b = slots[t];
    return a.live && b.live && overlaps(a.box, b.box) && accepts(s, a, t, b);
  }

  // Brings grid to the boxes as given: the operations only record, and the registrations of all dirty
  // boxes are written here in one pass (or by dirty_pass, box by box through sync_one), each box's cells
  // prefetched a few boxes ahead. Invisible to every observer (queries look past unsynced dirty boxes),
  // so a refused update may have done it.
  void sync() {
    if (synced) return;
    if (register_many()) {
      synced = true;
      return;
    }
    for (std::size_t i = 0; i < dirty.size(); ++i) {
      if (i + 3 < dirty.size()) {
        __builtin_prefetch(&slots[dirty[i + 3]].where);
        __builtin_prefetch(&slots[dirty[i + 3]]);
        __builtin_prefetch(&cold[dirty[i + 3]]);
      }
      if (i + 1 < dirty.size()) {
        const std::uint32_t n = dirty[i + 1];
        if (cold[n].registered) grid.prefetch(cold[n].reg);
        if (slots[n].live) grid.prefetch(slots[n].where);
      }
      sync_one(dirty[i]);
    }
    synced = true;
  }

  // Many new boxes (a first build, a large spawn) are registered together, in table order
  // (CellGrid::add_many): true iff that was every dirty box.
  [[nodiscard]] bool register_many() {
    if (dirty.size() < kManyAdds) return false;
    std::size_t fresh = 0;
    for (const std::uint32_t t : dirty) fresh += (!cold[t].registered && slots[t].live) ? 1u : 0u;
    if (fresh < kManyAdds) return false;
    std::vector<std::uint32_t> adds;  // scratch of a rare call, freed on return
    adds.reserve(fresh);
    for (const std::uint32_t t : dirty) {
      if (!cold[t].registered && slots[t].live) adds.push_back(t);
    }
    grid.add_many(adds, [&](std::uint32_t t) -> const Placement<D>& { return slots[t].where; });
    for (const std::uint32_t t : adds) {
      cold[t].registered = true;
      cold[t].reg = slots[t].where;
    }
    return adds.size() == dirty.size();
  }

  // Brings the registration of one dirty box to the box as given (nothing when it already is).
  void sync_one(std::uint32_t t) {
    const Slot& a = slots[t];
    Cold& c = cold[t];
    if (c.registered && a.live) {
      grid.move(t, c.reg, a.where);
    } else if (c.registered) {
      grid.erase(t, c.reg);
    } else if (a.live) {
      grid.add(t, a.where);
    }
    c.registered = a.live;
    c.reg = a.where;
  }

  // update()
  //
  // Applies the operations since the previous successful update and writes the events into `events`
  // (E1, E6), whose lists the caller has emptied: the phases below, in order. ResourceExhausted, with
  // nothing observable changed (E4), exactly when find_pairs on the live boxes would for a budget (E2) or
  // the step volumes exceed one (E6).
  [[nodiscard]] absl::Status update(ContactEvents& events) {
    if (absl::Status s = check_budgets(); !s.ok()) return s;
    UpdateStats& st = events.stats;
    st.dirty = static_cast<std::int64_t>(dirty.size());
    if (!std::is_sorted(dirty.begin(), dirty.end())) std::sort(dirty.begin(), dirty.end());
    for (const Volume& v : volumes) st.memberships_touched += v.placed.where.cell_count;
    const std::int64_t max_pairs = spec.config().max_pairs.value();
    const bool within = first_build() ? began_of_first_build(events, max_pairs - pair_count) : dirty_pass(events, max_pairs);
    synced = true;
    const std::int64_t kept = pair_count - static_cast<std::int64_t>(events.ended.size());
    if (!within || kept + static_cast<std::int64_t>(events.began.size()) > max_pairs) {
      return absl::ResourceExhaustedError(
          absl::StrCat("update: more than max_pairs = ", max_pairs, " overlapping pairs (B7, E2)"));
    }
    if (!volumes.empty() && !swept_pass(events)) {
      return absl::ResourceExhaustedError(
          absl::StrCat("update: more than max_pairs = ", max_pairs, " swept candidates (B7, E6)"));
    }
    commit(events);
    return absl::OkStatus();
  }

  // Phase 1: the membership budgets of the boxes as given and of the step volumes (B7, E2, E6).
  [[nodiscard]] absl::Status check_budgets() const {
    const GridConfig& config = spec.config();
    if (pending_memberships > config.max_memberships.value()) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "update: the live boxes need ", static_cast<std::int64_t>(pending_memberships),
          " memberships, more than max_memberships = ", config.max_memberships.value(), " (B7, E2)"));
    }
    absl::int128 volume_memberships = 0;
    for (const Volume& v : volumes) volume_memberships += v.placed.where.cell_count;
    if (volume_memberships > config.max_memberships.value()) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "update: the swept volumes need ", static_cast<std::int64_t>(volume_memberships),
          " memberships, more than max_memberships = ", config.max_memberships.value(), " (B7, E6)"));
    }
    return absl::OkStatus();
  }

  // Phase 2, which kind of update this is: a first build (no box committed before, one level), whose
  // boxes are all registered here, or one whose many new boxes are registered together here.
  [[nodiscard]] bool first_build() {
    if (committed_live == 0) {
      sync();
      return occupied_levels() <= 1;
    }
    if (!synced) (void)register_many();
    return false;
  }

  [[nodiscard]] std::size_t occupied_levels() const {
    std::size_t n = 0;
    for (const auto& level : grid.levels()) n += level.residents.empty() ? 0u : 1u;
    return n;
  }

  // Phase 3 of a first build: its began events (every live box is new: none committed before, so P(S) is
  // empty and every live box is dirty and registered in grid), all on one level: every occupied cell's
  // boxes through the batch grid's pairing kernel (pair_cell: each two in their reference cell only,
  // B9, tested), filtered, and sorted once into canonical order, instead of one query per box. The same
  // events, and the same visits (each of a cell's c members would meet its c members), as those queries.
  // False, with `events` unchanged, when the pairs exceed `room`.
  [[nodiscard]] bool began_of_first_build(ContactEvents& events, std::int64_t room) {
    LWC_CHECK(pair_count == 0, "no pair without a committed box");
    for (const std::uint32_t slot : dirty) {
      events.stats.memberships_touched += cold[slot].then_cells + (slots[slot].live ? slots[slot].where.cell_count : 0);
    }
    std::vector<std::uint64_t>& found = pair_scratch;
    found.clear();
    const int bits = static_cast<int>(std::bit_width(slots.size()));
    const SlotBoxes boxes{slots};
    grid.table().for_each_entry([&](int, std::span<const Member> first, std::span<const Member> more) {
      const std::size_t c = first.size() + more.size();
      events.stats.pair_visits += static_cast<std::int64_t>(c * c);
      if (c < 2) return;
      cell_scratch.gather(c, boxes, [&](std::size_t m) {
        const Member& x = m < first.size() ? first[m] : more[m - first.size()];
        return std::pair<std::uint32_t, std::uint32_t>{x.slot, x.flags};
      });
      std::int64_t candidates = 0;
      (void)pair_cell(cell_scratch, c, [&](std::uint32_t s, std::uint32_t t) {
        if (accepts(s, slots[s], t, slots[t])) found.push_back((static_cast<std::uint64_t>(s) << bits) | t);
        return true;
      }, candidates);
    }, [&](const Member& m) { __builtin_prefetch(&slots[m.slot]); });
    if (static_cast<std::int64_t>(found.size()) > room) return false;
    radix_sort(found, sort_scratch, sort_counts, 0, 2 * bits);
    const std::uint64_t low = (std::uint64_t{1} << bits) - 1;
    for (const std::uint64_t w : found) {
      const auto s = static_cast<std::uint32_t>(w >> bits);
      const auto t = static_cast<std::uint32_t>(w & low);
      events.began.push_back(contact(s, slots[s].generation, slots[s].user, t, slots[t].generation, slots[t].user));
    }
    return true;
  }

  // Phase 3 otherwise: one pass over the dirty boxes in ascending slot order, each taken whole while its
  // lines are in cache: its ended pairs (ended_of), its registration (sync_one), its began pairs
  // (began_of). The pair count after the update is checked once every ended pair is known; the pass stops
  // querying only when the began pairs alone exceed max_pairs (then it returns false).
  [[nodiscard]] bool dirty_pass(ContactEvents& events, std::int64_t max_pairs) {
    bool within = true;
    for (std::size_t i = 0; i < dirty.size(); ++i) {
      prefetch_dirty(i);
      const std::uint32_t s = dirty[i];
      events.stats.memberships_touched += cold[s].then_cells + (slots[s].live ? slots[s].where.cell_count : 0);
      if (cold[s].committed) ended_of(s, events);
      sync_one(s);
      if (slots[s].live && within) within = began_of(s, events, max_pairs);
    }
    return within;
  }

  // What dirty_pass will read of the boxes a few places ahead: their slots, placements and adjacency
  // (8 ahead), their partners' slots (4 ahead), their cells' table entries (2 ahead).
  void prefetch_dirty(std::size_t i) const {
    if (i + 8 < dirty.size()) {
      const std::uint32_t n = dirty[i + 8];
      __builtin_prefetch(&slots[n]);
      __builtin_prefetch(&slots[n].where);
      __builtin_prefetch(&cold[n]);
      __builtin_prefetch(&adj[n]);
    }
    if (i + 4 < dirty.size()) {
      const std::uint32_t n = dirty[i + 4];
      if (cold[n].committed) {
        for (const std::uint32_t t : adj[n]) __builtin_prefetch(&slots[t]);
      }
    }
    if (i + 2 < dirty.size()) {
      const std::uint32_t n = dirty[i + 2];
      if (cold[n].registered) grid.prefetch(cold[n].reg);
      if (slots[n].live) grid.prefetch(slots[n].where);
    }
  }

  // Ended: the pairs of committed box s at the previous update (its adjacency is P(S)) that are not in
  // P(S'), each pair once: a pair of two dirty boxes from the lower slot. The handles and payloads as then
  // are filled in before the commit (fill_ended): the partner's Cold is not in cache here.
  void ended_of(std::uint32_t s, ContactEvents& events) const {
    const auto& partners = adj[s];
    events.stats.pair_visits += static_cast<std::int64_t>(partners.size());
    for (const std::uint32_t t : partners) {
      if ((slots[t].dirty && t < s) || in_after(s, t)) continue;
      events.ended.push_back(contact(s, 0, 0, t, 0, 0));
    }
  }

  // Began: the partners of live box s now, kept when the pair was not in P(S). Every dirty box below it
  // is already registered where it is now, every one above it not yet: a pair of two dirty boxes is taken
  // from the higher slot. False when the began pairs exceed max_pairs.
  [[nodiscard]] bool began_of(std::uint32_t s, ContactEvents& events, std::int64_t max_pairs) {
    const Slot& a = slots[s];
    const auto& partners = adj[s];
    const bool stamped = partners.size() > kStampDegree;
    if (stamped) {
      next_token();
      for (const std::uint32_t t : partners) seen[t] = token;
    }
    bool within = true;
    grid.candidates(a.box, a.where.level, a.where.cells, [&](std::uint32_t t) {
      const Slot& b = slots[t];
      if (t == s || (b.dirty && t > s) || !overlaps(a.box, b.box) || !accepts(s, a, t, b)) return true;
      if (stamped ? seen[t] == token : std::find(partners.begin(), partners.end(), t) != partners.end()) {
        return true;
      }
      if (static_cast<std::int64_t>(events.began.size()) >= max_pairs) {
        within = false;  // with the pair about to be added, more than max_pairs began
        return false;
      }
      events.began.push_back(contact(s, a.generation, a.user, t, b.generation, b.user));
      return true;
    }, events.stats.pair_visits, [&](std::uint32_t t) { __builtin_prefetch(&slots[t]); });
    return within;
  }

  // Phase 4, swept: from each swept box, the step volumes meeting its own (a clean box's and a dirty
  // unswept box's is its box, in grid; a swept box's in volume_grid), each pair once, kept when the end
  // boxes do not overlap and the pair passes the filters. False when they exceed max_pairs.
  [[nodiscard]] bool swept_pass(ContactEvents& events) {
    for (const Volume& v : volumes) volume_grid.add(v.slot, v.placed.where);
    bool within = true;
    for (std::size_t i = 0; within && i < volumes.size(); ++i) within = swept_of(volumes[i], events);
    for (const Volume& v : volumes) volume_grid.erase(v.slot, v.placed.where);
    return within;
  }

  [[nodiscard]] bool swept_of(const Volume& v, ContactEvents& events) {
    const std::uint32_t s = v.slot;
    const Slot& a = slots[s];
    const auto max_swept = static_cast<std::size_t>(spec.config().max_pairs.value());
    bool within = true;
    const auto found = [&](std::uint32_t t, const Box<D>& other) {
      const Slot& b = slots[t];
      if (t == s || (b.swept && t < s) || !overlaps(v.placed.box, other)) return true;
      if (overlaps(a.box, b.box) || !accepts(s, a, t, b)) return true;
      if (events.swept.size() >= max_swept) {
        within = false;
        return false;
      }
      events.swept.push_back(contact(s, a.generation, a.user, t, b.generation, b.user));
      return true;
    };
    grid.candidates(v.placed.box, v.placed.where.level, v.placed.where.cells, [&](std::uint32_t t) {
      return slots[t].swept || found(t, slots[t].box);
    }, events.stats.pair_visits);
    if (!within) return false;
    volume_grid.candidates(v.placed.box, v.placed.where.level, v.placed.where.cells, [&](std::uint32_t t) {
      return found(t, volumes[slots[t].volume].placed.box);
    }, events.stats.pair_visits);
    return within;
  }

  // Phase 5, the commit: nothing before changed the grid or the pair set, and from here on nothing fails.
  void commit(ContactEvents& events) {
    fill_ended(events.ended);
    apply_pairs(events);
    pair_count += static_cast<std::int64_t>(events.began.size()) - static_cast<std::int64_t>(events.ended.size());
    commit_boxes();
    sort_contacts(events.began);
    sort_contacts(events.ended);
    sort_contacts(events.swept);
    UpdateStats& st = events.stats;
    st.boxes = committed_live;
    st.memberships = committed_memberships;
    st.pairs = pair_count;
    st.began = static_cast<std::int64_t>(events.began.size());
    st.ended = static_cast<std::int64_t>(events.ended.size());
    st.swept = static_cast<std::int64_t>(events.swept.size());
  }

  // Writes the committed generations and payloads (the state at the previous update) into ended pairs
  // recorded by slots only, each pair's Cold entries fetched a few pairs ahead.
  void fill_ended(std::vector<Contact>& ended) const {
    constexpr std::size_t kAhead = 8;
    for (std::size_t i = 0; i < ended.size(); ++i) {
      if (i + kAhead < ended.size()) {
        __builtin_prefetch(&cold[ended[i + kAhead].a.slot].user_then);
        __builtin_prefetch(&cold[ended[i + kAhead].b.slot].user_then);
      }
      Contact& e = ended[i];
      e.a.generation = cold[e.a.slot].committed_generation;
      e.user_a = cold[e.a.slot].user_then;
      e.b.generation = cold[e.b.slot].committed_generation;
      e.user_b = cold[e.b.slot].user_then;
    }
  }

  // The ended pairs leave both adjacency lists and the began pairs join both, each pair's lists fetched
  // a few pairs ahead.
  void apply_pairs(const ContactEvents& events) {
    constexpr std::size_t kAhead = 8;
    const auto ahead = [&](const std::vector<Contact>& cs, std::size_t i) {
      if (i + kAhead >= cs.size()) return;
      __builtin_prefetch(&adj[cs[i + kAhead].a.slot]);
      __builtin_prefetch(&adj[cs[i + kAhead].b.slot]);
    };
    for (std::size_t i = 0; i < events.ended.size(); ++i) {
      ahead(events.ended, i);
      unlink(events.ended[i].a.slot, events.ended[i].b.slot);
      unlink(events.ended[i].b.slot, events.ended[i].a.slot);
    }
    for (std::size_t i = 0; i < events.began.size(); ++i) {
      ahead(events.began, i);
      adj[events.began[i].a.slot].push_back(events.began[i].b.slot);
      adj[events.began[i].b.slot].push_back(events.began[i].a.slot);
    }
  }

  void unlink(std::uint32_t s, std::uint32_t t) {
    auto& list = adj[s];
    auto at = std::find(list.begin(), list.end(), t);
    LWC_CHECK(at != list.end(), "an ended pair is in both adjacency lists");
    *at = list.back();
    list.pop_back();  // keeps the capacity
  }

  // The boxes as given become the committed state; the slots removed in this step become reusable
  // (unless their generation is exhausted: then they are retired, E3).
  void commit_boxes() {
    for (const std::uint32_t slot : dirty) {
      Slot& s = slots[slot];
      Cold& c = cold[slot];
      c.then_box = s.box;
      c.user_then = s.user;
      c.then_cells = s.live ? s.where.cell_count : 0;
      c.committed = s.live;
      c.committed_generation = s.generation;
      s.teleported = false;
      s.swept = false;
      s.volume = kNone;
      s.dirty = false;
    }
    volumes.clear();
    for (const std::uint32_t slot : freed_slots) {
      if (slots[slot].generation < std::numeric_limits<std::uint32_t>::max()) free_slots.push_back(slot);
    }
    freed_slots.clear();
    dirty.clear();
    committed_memberships = static_cast<std::int64_t>(pending_memberships);
    committed_live = live;
  }
};

}  // namespace lwc::internal

LWC_EXACT_FP_END

#endif  // LWC_BROADPHASE_UPDATE_H_
