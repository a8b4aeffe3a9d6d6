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
// Each box also carries a payload and filter bits (E7, E8); queries and ray casts see the boxes as last
// given (E9, E11); float boxes are accepted as the doubles they are (E10); a warm grid allocates nothing
// per frame (E12).
//
// An update works on the dirty boxes only (inserted, moved, removed or refiltered since the previous
// update): it writes their registrations into an open-addressing cell table (only the cells that change),
// takes the pairs each may leave from its adjacency list (the pair set is kept per slot) and the pairs
// each may enter from a query of its cells, one box after the other in slot order; a candidate is taken in
// its reference cell only (B9, from start flags kept per membership) and, when both boxes are dirty, only
// from the higher slot (whose query comes after the lower box's registration moved). Nothing of
// the pair set or the committed state changes until every budget is known to hold, so a refused update
// changes nothing observable.
// Spec: docs/broadphase.md (clauses E1-E12). Checker and model: lwc.contracts.broadphase.
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
#include <map>
#include <ostream>
#include <span>
#include <utility>
#include <vector>

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

// One registration of a box in a cell: its slot and its start flags there (bit k: the cell is the box's
// first cell on axis k). The reference cell of two boxes meeting in cell c, max(lo_a, lo_b) per axis, is c
// exactly when on every axis one of the two starts there (B9), so a query dedups from the flags alone.
struct Member {
  std::uint32_t slot;
  std::uint32_t flags;
};

template <std::size_t D>
[[nodiscard]] constexpr std::uint32_t all_axes() {
  return (std::uint32_t{1} << D) - 1;
}

// Calls fn(cell, mask) for every cell of `r`, x fastest; bit k of mask: cell[k] == r.lo[k].
template <std::size_t D, typename Fn>
void for_each_cell_of(const CellRange<D>& r, Fn&& fn) {
  std::array<std::int64_t, D> c = r.lo;
  for (;;) {
    std::uint32_t mask = 0;
    for (std::size_t k = 0; k < D; ++k) mask |= static_cast<std::uint32_t>(c[k] == r.lo[k]) << k;
    fn(c, mask);
    std::size_t k = 0;
    for (; k < D; ++k) {
      if (c[k] != r.hi[k]) {
        ++c[k];
        break;
      }
      c[k] = r.lo[k];
    }
    if (k == D) return;
  }
}

template <std::size_t D>
[[nodiscard]] bool contains(const CellRange<D>& r, const std::array<std::int64_t, D>& c) {
  for (std::size_t k = 0; k < D; ++k) {
    if (c[k] < r.lo[k] || c[k] > r.hi[k]) return false;
  }
  return true;
}

// The cell table of a CellGrid: open addressing with linear probing and backward-shift deletion (no
// tombstones), one 64-byte entry per occupied (level, cell) holding its key, its first kInline members and
// the index of an overflow list for the rest (lists come from a pool and keep their capacity when
// recycled). A lookup reads one entry (and its neighbours when probing); the home of a cell keeps the
// 2^D cells of an aligned block of two per axis side by side, so a box's cells share cache lines. The
// table doubles at half load: the only allocation once it is warm.
template <std::size_t D>
class CellTable {
 public:
  static constexpr std::size_t kInline = D == 2 ? 4 : 3;
  static constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

  struct Entry {
    std::array<std::int64_t, D> cell{};
    std::int32_t level = 0;
    std::uint32_t count = 0;  // 0: the entry is empty
    std::uint32_t overflow = kNone;
    std::array<Member, kInline> members{};
  };

  // Calls fn(member) for every member of (level, cell) while fn returns true; false iff fn stopped it.
  template <typename Fn>
  bool for_each(int level, const std::array<std::int64_t, D>& c, Fn&& fn) const {
    const Entry* e = find(level, c);
    if (e == nullptr) return true;
    const std::size_t inl = std::min<std::size_t>(e->count, kInline);
    for (std::size_t i = 0; i < inl; ++i) {
      if (!fn(e->members[i])) return false;
    }
    if (e->count > kInline) {
      for (const Member& m : lists_[e->overflow]) {
        if (!fn(m)) return false;
      }
    }
    return true;
  }

  // Calls fn(level, inline members, overflow members) for every occupied cell, in table order (a
  // sequential scan of the entries).
  template <typename Fn>
  void for_each_cell(Fn&& fn) const {
    for (const Entry& e : entries_) {
      if (e.count == 0) continue;
      const std::size_t inl = std::min<std::size_t>(e.count, kInline);
      const std::span<const Member> more =
          e.count > kInline ? std::span<const Member>(lists_[e.overflow]) : std::span<const Member>();
      fn(e.level, std::span<const Member>(e.members.data(), inl), more);
    }
  }

  // Prefetches the home entry of (level, cell).
  void prefetch(int level, const std::array<std::int64_t, D>& c) const {
    if (size_ != 0) __builtin_prefetch(&entries_[home(level, c)]);
  }

  // The number of occupied cells.
  [[nodiscard]] std::size_t size() const noexcept { return size_; }

  // The number of members of (level, cell) (0 when it is not occupied).
  [[nodiscard]] std::size_t count(int level, const std::array<std::int64_t, D>& c) const {
    const Entry* e = find(level, c);
    return e == nullptr ? 0 : e->count;
  }

  void add(int level, const std::array<std::int64_t, D>& c, Member m) {
    if ((size_ + 1) * 2 > entries_.size()) grow();
    std::size_t i = home(level, c);
    for (;; i = (i + 1) & mask_) {
      Entry& e = entries_[i];
      if (e.count == 0) {
        e.cell = c;
        e.level = level;
        e.overflow = kNone;
        ++size_;
        break;
      }
      if (e.level == level && e.cell == c) break;
    }
    Entry& e = entries_[i];
    if (e.count < kInline) {
      e.members[e.count++] = m;
      return;
    }
    if (e.overflow == kNone) e.overflow = take_list();
    lists_[e.overflow].push_back(m);
    ++e.count;
  }

  // Makes room for `cells` occupied cells without growing (the same doubling as add()'s, done at once).
  void reserve(std::size_t cells) {
    std::size_t n = std::max<std::size_t>(64, entries_.size());
    while ((cells + 1) * 2 > n) n *= 2;
    if (n != entries_.size()) rehash(n);
  }

  // The log2 of the number of entries, and the entry where the probe for (level, cell) starts.
  [[nodiscard]] int home_bits() const { return std::countr_zero(entries_.size()); }
  [[nodiscard]] std::size_t home(int level, const std::array<std::int64_t, D>& c) const {
    std::uint64_t h = mul(static_cast<std::uint64_t>(static_cast<std::uint32_t>(level)) + 1, 0x9E3779B97F4A7C15ull);
    std::uint64_t local = 0;
    for (std::size_t k = 0; k < D; ++k) {
      const auto u = static_cast<std::uint64_t>(c[k]);
      local |= (u & 1u) << k;
      h = mul(h ^ (u >> 1), 0xFF51AFD7ED558CCDull);
      h ^= h >> 32;
    }
    return static_cast<std::size_t>((((h >> D) << D) | local) & mask_);  // h's low D bits replaced: no wrap
  }

  // Sets the flags of `slot`'s member of (level, cell), which must exist.
  void set_flags(int level, const std::array<std::int64_t, D>& c, std::uint32_t slot, std::uint32_t flags) {
    Member* m = member(find_mut(level, c), slot);
    m->flags = flags;
  }

  // Erases `slot`'s member of (level, cell), which must exist.
  void erase(int level, const std::array<std::int64_t, D>& c, std::uint32_t slot) {
    Entry* e = find_mut(level, c);
    Member* m = member(e, slot);
    // The last member takes its place.
    if (e->count > kInline) {
      auto& list = lists_[e->overflow];
      *m = list.back();
      list.pop_back();  // keeps the capacity
      if (list.empty()) {
        give_list(e->overflow);
        e->overflow = kNone;
      }
    } else {
      *m = e->members[e->count - 1];
    }
    if (--e->count > 0) return;
    // Backward-shift deletion: later entries of the probe run move up into the hole.
    std::size_t hole = static_cast<std::size_t>(e - entries_.data());
    --size_;
    for (std::size_t j = (hole + 1) & mask_;; j = (j + 1) & mask_) {
      Entry& next = entries_[j];
      if (next.count == 0) break;
      const std::size_t h = home(next.level, next.cell);
      // `next` may move to the hole iff its home is not in (hole, j] (cyclically).
      const bool stays = hole <= j ? (hole < h && h <= j) : (hole < h || h <= j);
      if (stays) continue;
      entries_[hole] = next;
      next.count = 0;
      next.overflow = kNone;
      hole = j;
    }
    entries_[hole].count = 0;
    entries_[hole].overflow = kNone;
  }

 private:
  // The product modulo 2^64, without an unsigned wrap (which -fsanitize=integer reports).
  [[nodiscard]] static std::uint64_t mul(std::uint64_t a, std::uint64_t b) {
    __extension__ using Wide = unsigned __int128;
    return static_cast<std::uint64_t>(static_cast<Wide>(a) * b);
  }
  [[nodiscard]] const Entry* find(int level, const std::array<std::int64_t, D>& c) const {
    if (size_ == 0) return nullptr;
    for (std::size_t i = home(level, c);; i = (i + 1) & mask_) {
      const Entry& e = entries_[i];
      if (e.count == 0) return nullptr;
      if (e.level == level && e.cell == c) return &e;
    }
  }
  Entry* find_mut(int level, const std::array<std::int64_t, D>& c) {
    Entry* e = const_cast<Entry*>(find(level, c));
    LWC_CHECK(e != nullptr, "a registered box is in each of its cells");
    return e;
  }
  Member* member(Entry* e, std::uint32_t slot) {
    const std::size_t inl = std::min<std::size_t>(e->count, kInline);
    for (std::size_t i = 0; i < inl; ++i) {
      if (e->members[i].slot == slot) return &e->members[i];
    }
    for (Member& m : lists_[e->overflow]) {  // LWC_CHECK below: count > kInline here
      if (m.slot == slot) return &m;
    }
    LWC_CHECK(false, "a registered box is in each of its cells");  // LCOV_EXCL_LINE: the invariant holds (E1-E6 check it from outside); a broken upkeep stops here
    return nullptr;  // LCOV_EXCL_LINE: unreachable after the check
  }  // LCOV_EXCL_LINE: the end of a function whose last statement is unreachable

  // The recycled lists form a heap by capacity and the largest is taken first, so that a warm table
  // (one that has met its largest crowded cells) never grows a list again.
  [[nodiscard]] bool smaller(std::uint32_t a, std::uint32_t b) const { return lists_[a].capacity() < lists_[b].capacity(); }
  std::uint32_t take_list() {
    if (!free_lists_.empty()) {
      std::pop_heap(free_lists_.begin(), free_lists_.end(), [&](std::uint32_t a, std::uint32_t b) { return smaller(a, b); });
      const std::uint32_t i = free_lists_.back();
      free_lists_.pop_back();
      return i;
    }
    lists_.emplace_back().reserve(8);
    return static_cast<std::uint32_t>(lists_.size() - 1);
  }
  void give_list(std::uint32_t i) {
    free_lists_.push_back(i);
    std::push_heap(free_lists_.begin(), free_lists_.end(), [&](std::uint32_t a, std::uint32_t b) { return smaller(a, b); });
  }

  void grow() { rehash(std::max<std::size_t>(64, entries_.size() * 2)); }
  void rehash(std::size_t n) {
    std::vector<Entry> old = std::move(entries_);
    entries_.assign(n, Entry{});
    mask_ = entries_.size() - 1;
    for (const Entry& e : old) {
      if (e.count == 0) continue;
      std::size_t i = home(e.level, e.cell);
      while (entries_[i].count != 0) i = (i + 1) & mask_;
      entries_[i] = e;
    }
  }

  std::vector<Entry> entries_;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
  std::vector<std::vector<Member>> lists_;  // overflow lists, occupied and recycled
  std::vector<std::uint32_t> free_lists_;   // recycled overflow lists (empty, capacity kept), a heap by capacity
};

// The registered boxes of a persistent grid, updated in place: (level, cell) -> a bucket of Members, and per
// occupied level its residents (for the scans of a query that has more cells on a finer level than the
// level has residents). Buckets come from a pool and are recycled with their capacity, residents are
// erased by swap with their position kept per slot, so that a warm grid moving boxes allocates nothing
// (E12). Order within a bucket does not matter: pairs are taken from their reference cell.
template <std::size_t D>
class CellGrid {
 public:
  struct Level {
    int level = 0;
    CellSize size = CellSize::of<1.0>();
    std::vector<std::uint32_t> residents;
  };

  explicit CellGrid(CellSize h) : h_(h) {}

  void add(std::uint32_t slot, const Placement<D>& where) {
    Level& level = level_of(where.level);
    if (pos_.size() <= slot) pos_.resize(static_cast<std::size_t>(slot) + 1, 0);
    pos_[slot] = static_cast<std::uint32_t>(level.residents.size());
    level.residents.push_back(slot);
    for_each_cell_of<D>(where.cells, [&](const std::array<std::int64_t, D>& c, std::uint32_t mask) {
      add_member(CellKey<D>{where.level, c}, Member{slot, mask});
    });
  }

  // add() for many boxes at once (a first build, a large spawn): their memberships are written in the
  // order of their table entries (one radix sort by home entry) after one resize, so that the table
  // fills front to back instead of taking one random probe per membership. The same registrations.
  template <typename WhereOf>
  void add_many(std::span<const std::uint32_t> slots, WhereOf&& where_of) {
    struct Pending {
      std::array<std::int64_t, D> cell;
      int level;
      Member member;
    };
    std::vector<Pending> pending;  // scratch of a rare call, freed on return
    for (const std::uint32_t slot : slots) {
      const Placement<D>& where = where_of(slot);
      Level& level = level_of(where.level);
      if (pos_.size() <= slot) pos_.resize(static_cast<std::size_t>(slot) + 1, 0);
      pos_[slot] = static_cast<std::uint32_t>(level.residents.size());
      level.residents.push_back(slot);
      for_each_cell_of<D>(where.cells, [&](const std::array<std::int64_t, D>& c, std::uint32_t mask) {
        pending.push_back({c, where.level, Member{slot, mask}});
      });
    }
    // About 2.6 memberships per occupied cell in a world of boxes near the cell size: a quarter of the
    // memberships is a lower bound there, and the table grows as usual beyond it.
    table_.reserve(table_.size() + pending.size() / 4);
    const int bits = table_.home_bits();
    if (pending.size() >= (std::uint64_t{1} << (63 - bits))) {  // LCOV_EXCL_START: 2^(63 - bits) memberships do not fit in memory
      for (const Pending& p : pending) table_.add(p.level, p.cell, p.member);
      return;
    }  // LCOV_EXCL_STOP
    std::vector<std::uint64_t> keys(pending.size());
    for (std::size_t i = 0; i < pending.size(); ++i) {
      keys[i] = (static_cast<std::uint64_t>(i) << bits) | table_.home(pending[i].level, pending[i].cell);
    }
    std::vector<std::uint64_t> scratch;
    radix_sort(keys, scratch, 0, bits);
    for (std::size_t i = 0; i < keys.size(); ++i) {
      if (i + 16 < keys.size()) __builtin_prefetch(&pending[keys[i + 16] >> bits]);
      const Pending& p = pending[keys[i] >> bits];
      table_.add(p.level, p.cell, p.member);
    }
  }

  void erase(std::uint32_t slot, const Placement<D>& where) {
    for_each_cell_of<D>(where.cells, [&](const std::array<std::int64_t, D>& c, std::uint32_t) {
      erase_member(CellKey<D>{where.level, c}, slot);
    });
    erase_resident(slot, where.level);
  }

  // Moves the registrations of `slot` from `from` to `to`: on one level only the cells that differ and the
  // shared cells whose start flags change are written.
  void move(std::uint32_t slot, const Placement<D>& from, const Placement<D>& to) {
    if (from.level != to.level) {
      erase(slot, from);
      add(slot, to);
      return;
    }
    if (from.cells == to.cells) return;
    const int lv = to.level;
    for_each_cell_of<D>(from.cells, [&](const std::array<std::int64_t, D>& c, std::uint32_t old_flags) {
      if (!contains<D>(to.cells, c)) {
        erase_member(CellKey<D>{lv, c}, slot);
        return;
      }
      std::uint32_t flags = 0;
      for (std::size_t k = 0; k < D; ++k) flags |= static_cast<std::uint32_t>(c[k] == to.cells.lo[k]) << k;
      if (flags == old_flags) return;
      table_.set_flags(lv, c, slot, flags);
    });
    for_each_cell_of<D>(to.cells, [&](const std::array<std::int64_t, D>& c, std::uint32_t flags) {
      if (!contains<D>(from.cells, c)) add_member(CellKey<D>{lv, c}, Member{slot, flags});
    });
  }

  // Calls fn(t) once for every slot t registered with cells that meet the cells of `box` on t's level,
  // from the reference cell of the two (B9), or for every resident of a level where `box` has more cells
  // than the level has residents (or cells outside int64). Every registered t whose box overlaps `box` is
  // among them (B8). `visits` counts the (query, resident) incidences met.
  template <typename Fn, typename Prefetch>
  void candidates(const Box<D>& box, int box_level, const CellRange<D>& box_cells, Fn&& fn,
                  std::int64_t& visits, Prefetch&& prefetch) const {
    bool go = true;  // fn returned true so far
    for (const Level& level : levels_) {
      if (level.residents.empty()) continue;
      CellRange<D> r = box_cells;
      bool scan = false;
      if (level.level != box_level) {
        absl::StatusOr<CellRange<D>> at = cell_range(box, level.size);
        scan = !at.ok() || cell_count(*at) > absl::uint128(level.residents.size());
        if (at.ok()) r = *at;
      }
      if (scan) {
        for (const std::uint32_t t : level.residents) {
          ++visits;
          if (!fn(t)) return;
        }
        continue;
      }
      // The candidates of a few cells are gathered first and their slots prefetched, so that the reads
      // of their boxes overlap instead of waiting one after the other.
      std::array<std::uint32_t, 64> batch;
      std::size_t held = 0;
      const auto flush = [&] {
        for (std::size_t i = 0; i < held && go; ++i) go = static_cast<bool>(fn(batch[i]));
        held = 0;
      };
      for_each_cell_of<D>(r, [&](const std::array<std::int64_t, D>& c, std::uint32_t mask) {
        if (!go) return;
        (void)table_.for_each(level.level, c, [&](const Member& m) {
          ++visits;
          if ((m.flags | mask) != all_axes<D>()) return true;
          prefetch(m.slot);
          batch[held++] = m.slot;
          if (held == batch.size()) flush();
          return go;
        });
      });
      flush();
      if (!go) return;
    }
  }

  template <typename Fn>
  void candidates(const Box<D>& box, int box_level, const CellRange<D>& box_cells, Fn&& fn,
                  std::int64_t& visits) const {
    candidates(box, box_level, box_cells, std::forward<Fn>(fn), visits, [](std::uint32_t) {});
  }
  // The same for a query box that is only validated, not placed (query()): its own level is none.
  template <typename Fn, typename Prefetch>
  void candidates(const Box<D>& box, Fn&& fn, std::int64_t& visits, Prefetch&& prefetch) const {
    candidates(box, std::numeric_limits<int>::min(), CellRange<D>{}, std::forward<Fn>(fn), visits,
               std::forward<Prefetch>(prefetch));
  }

  [[nodiscard]] const std::vector<Level>& levels() const noexcept { return levels_; }
  [[nodiscard]] const CellTable<D>& table() const noexcept { return table_; }

  // Prefetches the entries of the cells of a placement (when they are few).
  void prefetch(const Placement<D>& where) const {
    if (where.cell_count > 8) return;
    for_each_cell_of<D>(where.cells, [&](const std::array<std::int64_t, D>& c, std::uint32_t) { table_.prefetch(where.level, c); });
  }

 private:

  Level& level_of(int lv) {
    for (Level& l : levels_) {
      if (l.level == lv) return l;
    }
    Level l;
    l.level = lv;
    absl::StatusOr<CellSize> size = CellSize::create(level_cell_size(h_.value(), lv));
    LWC_CHECK(size.ok(), "a placed box's level has a finite cell size");
    l.size = *size;
    return levels_.emplace_back(std::move(l));
  }

  void add_member(const CellKey<D>& key, Member m) { table_.add(key.level, key.cell, m); }
  void erase_member(const CellKey<D>& key, std::uint32_t slot) { table_.erase(key.level, key.cell, slot); }

  void erase_resident(std::uint32_t slot, int lv) {
    for (std::size_t i = 0; i < levels_.size(); ++i) {
      Level& l = levels_[i];
      if (l.level != lv) continue;
      const std::uint32_t at = pos_[slot];
      const std::uint32_t last = l.residents.back();
      l.residents[at] = last;
      pos_[last] = at;
      l.residents.pop_back();  // an emptied level stays, with its capacity (queries skip it)
      return;
    }
  }

  CellSize h_;
  CellTable<D> table_;
  std::vector<Level> levels_;  // every level ever occupied (an empty one is kept warm, and skipped)
  std::vector<std::uint32_t> pos_;                        // slot -> its index in its level's residents
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
      cold_.emplace_back();
      adj_.emplace_back();
    } else {
      free_.pop_back();
    }
    Slot& s = slots_[slot];
    ++s.generation;  // a free slot's generation is below the maximum: exhausted slots are retired
    s.live = true;
    s.teleported = true;
    s.box = box;
    s.user = user;
    s.filter = filter;
    s.where = *where;
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
    if (absl::Status st = check_handle(handle); !st.ok()) return st;
    Slot& s = slots_[handle.slot];
    Cold& c = cold_[handle.slot];
    absl::StatusOr<Placement<D>> where = spec_.place(box, handle.slot);
    if (!where.ok()) return where.status();
    internal::Placed<D> volume;
    if (motion == Motion::kSwept) {
      const Box<D>& start = s.swept ? volumes_[s.volume].placed.box : (s.teleported ? s.box : c.then_box);
      volume.box = internal::hull(start, box);
      absl::StatusOr<Placement<D>> swept = spec_.place(volume.box, handle.slot);
      if (!swept.ok()) {
        return absl::Status(swept.status().code(), absl::StrCat(swept.status().message(), " (the swept volume, E6)"));
      }
      volume.where = *swept;
    }
    pending_memberships_ += where->cell_count;
    pending_memberships_ -= s.where.cell_count;
    s.box = box;
    s.where = *where;
    if (motion == Motion::kSwept) {
      if (!s.swept) {
        s.volume = static_cast<std::uint32_t>(volumes_.size());
        s.swept = true;
        volumes_.push_back({handle.slot, volume});
      } else {
        volumes_[s.volume].placed = volume;
      }
    } else {
      drop_volume(handle.slot);
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
    slots_[handle.slot].filter = filter;
    mark_dirty(handle.slot);
    return absl::OkStatus();
  }
  [[nodiscard]] absl::Status set_user_data(Handle handle, UserData user) {
    if (absl::Status s = check_handle(handle); !s.ok()) return s;
    slots_[handle.slot].user = user;
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
    if (absl::Status st = check_handle(handle); !st.ok()) return st;
    Slot& s = slots_[handle.slot];
    s.live = false;
    pending_memberships_ -= s.where.cell_count;
    --live_;
    drop_volume(handle.slot);
    freed_.push_back(handle.slot);  // reusable after the update: until then the slot may name its old box
    mark_dirty(handle.slot);
    return absl::OkStatus();
  }

  // update()
  //
  // Applies the operations since the previous successful update and writes the events into `out` (E1, E6),
  // reusing its vectors' capacity: once they and the grid are warm, an update allocates nothing (E12).
  // Fails with ResourceExhausted, changing nothing in the grid (E4: the operations stay pending; `out` is
  // left with empty lists), exactly when find_pairs on the live boxes would for a budget — their
  // memberships above max_memberships, their overlapping pairs above max_pairs (E2) — or when the step
  // volumes' memberships exceed max_memberships or the swept candidates max_pairs. `timings`, when given,
  // receives update_ns.
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
    std::int64_t visits = 0;
    bool go = true;
    grid_.candidates(box, [&](std::uint32_t t) {
      const Slot& b = slots_[t];
      if ((!synced_ && b.dirty) || !overlaps(box, b.box)) return true;
      return go = static_cast<bool>(fn(Handle{t, b.generation}, b.user));
    }, visits, [&](std::uint32_t t) { __builtin_prefetch(&slots_[t]); });
    if (synced_) return absl::OkStatus();
    for (const std::uint32_t t : dirty_) {  // not yet in grid_ where they are now
      const Slot& b = slots_[t];
      if (!go) break;
      if (b.live && overlaps(box, b.box)) go = static_cast<bool>(fn(Handle{t, b.generation}, b.user));
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
  // in order of entry fraction t (ties by slot), until fn returns false. The cells along the segment are
  // visited first (with a margin of one cell, or every resident of a level when the segment has more cells
  // there, or coordinates beyond 2^40 cells), then the hits are sorted: an early exit saves the calls,
  // not the walk. Allocates nothing once warm (scratch buffers of the grid are reused). InvalidArgument
  // for a segment that is not valid, with fn never called.
  template <typename Fn>
  [[nodiscard]] absl::Status raycast(const Segment<D>& segment, Fn&& fn) const {
    if (absl::Status s = validate_segment(segment); !s.ok()) return s;
    std::vector<RayHit>& hits = ray_scratch_;
    hits.clear();
    next_token();
    const auto visit = [&](std::uint32_t t) {
      if (seen_[t] == token_ || (!synced_ && slots_[t].dirty)) return;
      seen_[t] = token_;
      double at = 0;
      if (ray_entry(slots_[t].box, segment, at)) hits.push_back({at, t});
    };
    for (const auto& level : grid_.levels()) {
      if (!level.residents.empty()) walk_level(level, segment, visit);
    }
    if (!synced_) {
      for (const std::uint32_t t : dirty_) {  // not yet in grid_ where they are now
        double at = 0;
        if (slots_[t].live && ray_entry(slots_[t].box, segment, at)) hits.push_back({at, t});
      }
    }
    std::sort(hits.begin(), hits.end());
    for (const RayHit& h : hits) {
      const Slot& t = slots_[h.slot];
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
    std::vector<Contact> out;
    out.reserve(static_cast<std::size_t>(pair_count_));
    for (std::size_t i = 0; i < adj_.size(); ++i) {
      const std::size_t first = out.size();
      const auto s = static_cast<std::uint32_t>(i);
      for (const std::uint32_t t : adj_[i]) {
        if (t > s) {
          out.push_back(contact(s, cold_[s].committed_generation, cold_[s].user_then, t,
                                cold_[t].committed_generation, cold_[t].user_then));
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
    for (std::size_t i = 0; i < slots_.size(); ++i) {
      const Cold& c = cold_[i];
      if (c.committed) out.push_back({Handle{static_cast<std::uint32_t>(i), c.committed_generation}, c.then_box});
    }
    return out;
  }

  // box(), user_data(), filter()
  //
  // The box, payload and filter of a live handle as last given (pending or not); NotFound as for move.
  [[nodiscard]] absl::StatusOr<Box<D>> box(Handle handle) const {
    if (absl::Status s = check_handle(handle); !s.ok()) return s;
    return slots_[handle.slot].box;
  }
  [[nodiscard]] absl::StatusOr<UserData> user_data(Handle handle) const {
    if (absl::Status s = check_handle(handle); !s.ok()) return s;
    return slots_[handle.slot].user;
  }
  [[nodiscard]] absl::StatusOr<Filter> filter(Handle handle) const {
    if (absl::Status s = check_handle(handle); !s.ok()) return s;
    return slots_[handle.slot].filter;
  }

  // The number of live boxes, counting the operations not yet applied by an update.
  [[nodiscard]] std::int64_t size() const noexcept { return live_; }
  // The number of boxes inserted, moved, removed or refiltered since the last successful update.
  [[nodiscard]] std::size_t pending() const noexcept { return dirty_.size(); }
  [[nodiscard]] const GridConfig& config() const noexcept { return spec_.config(); }

 private:
  static constexpr std::size_t kMaxSlots = std::numeric_limits<std::uint32_t>::max();
  static constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
  // Above this degree, "was (s, t) a pair at the previous update" is read from stamps instead of s's list.
  static constexpr std::size_t kStampDegree = 16;
  // From this many new boxes in one update on, sync() registers them together (CellGrid::add_many).
  static constexpr std::size_t kManyAdds = 4096;

  // The state of a box as last given. What an update reads for every candidate (box, filter, payload,
  // generation, flags) fills the first 64 bytes, and in 2D the slot is aligned to them, so that a
  // candidate's test reads one cache line; `volume` and `where`, read by the box's own operations only,
  // follow. Invariant: live => `box` is registered in grid_ at `where`.
  struct alignas(D == 2 ? 64 : alignof(Box<D>)) Slot {
    Box<D> box{};
    Filter filter;
    UserData user = 0;
    std::uint32_t generation = 0;  // of the box living here, or of the last one
    bool live = false;
    bool dirty = false;
    bool teleported = false;  // inserted or teleported in this step: the step volume starts at `box`
    bool swept = false;       // swept in this step. Invariant: swept == (volume != kNone)
    std::uint32_t volume = kNone;  // index into volumes_, if swept in this step
    Placement<D> where{};  // of `box`, if live
  };
  static_assert(D != 2 || offsetof(Slot, volume) == 64, "a 2D slot's candidate fields are one cache line");
  // The rest. Invariant: committed => then_box, user_then and committed_generation are the box's state at
  // the last update; not dirty => that state equals the one given, and committed == live.
  struct Cold {
    Placement<D> reg{};       // where the box is registered in grid_, if `registered`
    bool registered = false;
    Box<D> then_box{};
    UserData user_then = 0;
    std::uint32_t committed_generation = 0;
    bool committed = false;
    std::int64_t then_cells = 0;
  };
  struct Volume {
    std::uint32_t slot;
    internal::Placed<D> placed;
  };
  struct RayHit {
    double t;
    std::uint32_t slot;
    friend bool operator<(const RayHit& a, const RayHit& b) { return a.t != b.t ? a.t < b.t : a.slot < b.slot; }
  };

  PersistentGrid(const GridSpec<D>& spec, PairFilter pair_filter)
      : spec_(spec), pair_filter_(pair_filter), grid_(spec.cell_size()), volume_grid_(spec.cell_size()) {}

  [[nodiscard]] absl::Status check_handle(Handle handle) const {
    if (handle.slot >= slots_.size() || !slots_[handle.slot].live ||
        slots_[handle.slot].generation != handle.generation) {
      return absl::NotFoundError(absl::StrCat("handle #", handle.slot, ".", handle.generation,
                                              " names no live box (removed, stale or never issued) (E3)"));
    }
    return absl::OkStatus();
  }

  void mark_dirty(std::uint32_t slot) {
    synced_ = false;
    if (slots_[slot].dirty) return;
    slots_[slot].dirty = true;
    dirty_.push_back(slot);
  }

  void drop_volume(std::uint32_t slot) {
    const std::uint32_t at = slots_[slot].volume;
    if (at == kNone) return;
    slots_[volumes_.back().slot].volume = at;
    volumes_[at] = volumes_.back();
    volumes_.pop_back();
    slots_[slot].volume = kNone;
    slots_[slot].swept = false;
  }

  // A fresh token for the stamps of seen_ (sized to the slots); on wrap-around every stamp is cleared.
  void next_token() const {
    if (seen_.size() < slots_.size()) seen_.resize(slots_.size(), 0);
    if (++token_ == 0) {  // LCOV_EXCL_START: the 2^32nd token, after 2^32 - 1 raycasts and updates, beyond a test's time
      std::fill(seen_.begin(), seen_.end(), 0);
      token_ = 1;
    }  // LCOV_EXCL_STOP
  }

  // The filter rule and the predicate on one pair (E8), the lower slot's payload first.
  [[nodiscard]] bool accepts(std::uint32_t s, const Slot& a, std::uint32_t t, const Slot& b) const {
    if (!passes(a.filter, b.filter)) return false;
    if (pair_filter_.fn == nullptr) return true;
    return s < t ? pair_filter_.fn(pair_filter_.context, a.user, b.user) : pair_filter_.fn(pair_filter_.context, b.user, a.user);
  }
  [[nodiscard]] bool in_after(std::uint32_t s, std::uint32_t t) const {  // the pair is in P(S')
    const Slot& a = slots_[s];
    const Slot& b = slots_[t];
    return a.live && b.live && overlaps(a.box, b.box) && accepts(s, a, t, b);
  }

  [[nodiscard]] static Contact contact(std::uint32_t s, std::uint32_t gs, UserData us, std::uint32_t t,
                                       std::uint32_t gt, UserData ut) {
    return s < t ? Contact{Handle{s, gs}, Handle{t, gt}, us, ut} : Contact{Handle{t, gt}, Handle{s, gs}, ut, us};
  }

  static void sort_contacts(std::vector<Contact>& cs) {
    const auto by_slots = [](const Contact& x, const Contact& y) {
      return x.a.slot != y.a.slot ? x.a.slot < y.a.slot : x.b.slot < y.b.slot;
    };
    if (!std::is_sorted(cs.begin(), cs.end(), by_slots)) std::sort(cs.begin(), cs.end(), by_slots);
  }

  // Visits the residents of one level whose cells the segment's cells (with a margin of one cell) meet,
  // column by column along the segment's dominant axis; or every resident of the level when that would
  // visit more cells than the level has residents, or when the coordinates are beyond 2^40 cells (where
  // the rounding of the walk could approach a cell).
  template <typename Level, typename Visit>
  void walk_level(const Level& level, const Segment<D>& seg, Visit&& visit) const {
    const double hl = level.size.value();
    Box<D> span{};
    bool near = true;
    for (std::size_t k = 0; k < D; ++k) {
      span.min[k] = std::min(seg.from[k], seg.to[k]);
      span.max[k] = std::max(seg.from[k], seg.to[k]);
      near = near && std::abs(seg.from[k]) / hl < 0x1p40 && std::abs(seg.to[k]) / hl < 0x1p40;
    }
    absl::StatusOr<CellRange<D>> cells = cell_range(span, level.size);
    std::size_t m = 0;
    for (std::size_t k = 1; k < D; ++k) {
      if (std::abs(seg.to[k] - seg.from[k]) > std::abs(seg.to[m] - seg.from[m])) m = k;
    }
    const auto scan = [&] {
      for (const std::uint32_t t : level.residents) visit(t);
    };
    if (!near || !cells.ok()) return scan();
    const absl::uint128 columns = absl::uint128(cells->hi[m] - cells->lo[m]) + 3;
    if (columns * (D == 2 ? 4 : 16) > absl::uint128(level.residents.size())) return scan();
    const double dm = seg.to[m] - seg.from[m];
    for (std::int64_t i = cells->lo[m] - 1; i <= cells->hi[m] + 1; ++i) {
      // The part of the segment in column i (the whole segment when it does not move along m).
      double t0 = 0.0;
      double t1 = 1.0;
      if (!fp::is_zero(dm)) {
        const double x0 = std::max(span.min[m], static_cast<double>(i) * hl);
        const double x1 = std::min(span.max[m], static_cast<double>(i + 1) * hl);
        t0 = std::clamp((x0 - seg.from[m]) / dm, 0.0, 1.0);
        t1 = std::clamp((x1 - seg.from[m]) / dm, 0.0, 1.0);
      }
      CellRange<D> r{};
      bool fits = true;
      for (std::size_t k = 0; k < D; ++k) {
        if (k == m) {
          r.lo[k] = r.hi[k] = i;
          continue;
        }
        const double d = seg.to[k] - seg.from[k];
        const double y0 = seg.from[k] + t0 * d;
        const double y1 = seg.from[k] + t1 * d;
        absl::StatusOr<std::int64_t> lo = cell_of(std::min(y0, y1), level.size);
        absl::StatusOr<std::int64_t> hi = cell_of(std::max(y0, y1), level.size);
        // Unreachable while `near` holds: y0, y1 are within an ulp of the segment's span, below 2^40 cells.
        if (!lo.ok() || !hi.ok()) {  // LCOV_EXCL_START: unreachable, see the line above; kept so that a walk never reads an error's value
          fits = false;
          break;
        }  // LCOV_EXCL_STOP
        r.lo[k] = std::max(*lo - 1, cells->lo[k] - 1);
        r.hi[k] = std::min(*hi + 1, cells->hi[k] + 1);
      }
      if (!fits) return scan();
      bool empty = false;
      for (std::size_t k = 0; k < D; ++k) empty = empty || r.lo[k] > r.hi[k];
      if (empty) continue;
      internal::for_each_cell_of<D>(r, [&](const std::array<std::int64_t, D>& c, std::uint32_t) {
        (void)grid_.table().for_each(level.level, c, [&](const internal::Member& member) {
          visit(member.slot);
          return true;
        });
      });
    }
  }

  // Brings grid_ to the boxes as given: the operations only record, and the registrations of all dirty
  // boxes are written here in one pass (or by update_into's pass, box by box through sync_one), each box's
  // cells prefetched a few boxes ahead. Invisible to every observer (queries look past unsynced dirty
  // boxes), so a refused update may have done it.
  void sync() {
    if (synced_) return;
    if (register_many()) {
      synced_ = true;
      return;
    }
    for (std::size_t i = 0; i < dirty_.size(); ++i) {
      if (i + 3 < dirty_.size()) {
        __builtin_prefetch(&slots_[dirty_[i + 3]].where);
        __builtin_prefetch(&slots_[dirty_[i + 3]]);
        __builtin_prefetch(&cold_[dirty_[i + 3]]);
      }
      if (i + 1 < dirty_.size()) {
        const std::uint32_t n = dirty_[i + 1];
        if (cold_[n].registered) grid_.prefetch(cold_[n].reg);
        if (slots_[n].live) grid_.prefetch(slots_[n].where);
      }
      sync_one(dirty_[i]);
    }
    synced_ = true;
  }

  // Many new boxes (a first build, a large spawn) are registered together, in table order
  // (CellGrid::add_many): true iff that was every dirty box.
  [[nodiscard]] bool register_many() {
    if (dirty_.size() < kManyAdds) return false;
    std::size_t fresh = 0;
    for (const std::uint32_t t : dirty_) fresh += (!cold_[t].registered && slots_[t].live) ? 1 : 0;
    if (fresh >= kManyAdds) {
      std::vector<std::uint32_t> adds;  // scratch of a rare call, freed on return
      adds.reserve(fresh);
      for (const std::uint32_t t : dirty_) {
        if (!cold_[t].registered && slots_[t].live) adds.push_back(t);
      }
      grid_.add_many(adds, [&](std::uint32_t t) -> const Placement<D>& { return slots_[t].where; });
      for (const std::uint32_t t : adds) {
        cold_[t].registered = true;
        cold_[t].reg = slots_[t].where;
      }
      return adds.size() == dirty_.size();
    }
    return false;
  }

  // Brings the registration of one dirty box to the box as given (nothing when it already is).
  void sync_one(std::uint32_t t) {
    const Slot& a = slots_[t];
    Cold& c = cold_[t];
    if (c.registered && a.live) {
      grid_.move(t, c.reg, a.where);
    } else if (c.registered) {
      grid_.erase(t, c.reg);
    } else if (a.live) {
      grid_.add(t, a.where);
    }
    c.registered = a.live;
    c.reg = a.where;
  }

  [[nodiscard]] absl::Status update_into(ContactEvents& events) {
    const GridConfig& config = spec_.config();
    if (pending_memberships_ > config.max_memberships.value()) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "the live boxes need ", static_cast<std::int64_t>(pending_memberships_),
          " memberships, more than max_memberships = ", config.max_memberships.value(), " (B7, E2)"));
    }
    absl::int128 volume_memberships = 0;
    for (const Volume& v : volumes_) volume_memberships += v.placed.where.cell_count;
    if (volume_memberships > config.max_memberships.value()) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "the swept volumes need ", static_cast<std::int64_t>(volume_memberships),
          " memberships, more than max_memberships = ", config.max_memberships.value(), " (B7, E6)"));
    }
    UpdateStats& st = events.stats;
    st.dirty = static_cast<std::int64_t>(dirty_.size());
    if (!std::is_sorted(dirty_.begin(), dirty_.end())) std::sort(dirty_.begin(), dirty_.end());
    for (const Volume& v : volumes_) st.memberships_touched += v.placed.where.cell_count;
    const std::int64_t max_pairs = config.max_pairs.value();
    bool within = true;
    // A first build (no box committed before, one level): every pair is new, and is taken cell by cell.
    bool first_build = false;
    if (committed_live_ == 0) {
      sync();
      first_build = occupied_levels() <= 1;
    } else if (!synced_) {
      (void)register_many();
    }
    if (first_build) {
      for (const std::uint32_t slot : dirty_) {
        st.memberships_touched += cold_[slot].then_cells + (slots_[slot].live ? slots_[slot].where.cell_count : 0);
      }
      within = began_of_first_build(events, max_pairs - pair_count_, st.pair_visits);
    }
    // Otherwise one pass over the dirty boxes in ascending slot order, each taken whole while its lines are
    // in cache: its ended pairs, its registration (sync_one), its began pairs.
    //   Ended: its pairs at the previous update (its adjacency is P(S)) that are not in P(S'), each pair
    //   once: a pair of two dirty boxes from the lower slot.
    //   Began: its partners now, kept when the pair was not in P(S). Every dirty box below it is already
    //   registered where it is now, every one above it not yet: a pair of two dirty boxes is taken from
    //   the higher slot. The pair count after the update is checked once every ended pair is known; the
    //   pass stops early only when the began pairs alone exceed max_pairs.
    for (std::size_t i = 0; i < dirty_.size() && !first_build; ++i) {
      const std::uint32_t s = dirty_[i];
      if (i + 8 < dirty_.size()) {
        const std::uint32_t n = dirty_[i + 8];
        __builtin_prefetch(&slots_[n]);
        __builtin_prefetch(&slots_[n].where);
        __builtin_prefetch(&cold_[n]);
        __builtin_prefetch(&adj_[n]);
      }
      if (i + 4 < dirty_.size()) {
        const std::uint32_t n = dirty_[i + 4];
        if (cold_[n].committed) {
          for (const std::uint32_t t : adj_[n]) __builtin_prefetch(&slots_[t]);
        }
      }
      if (i + 2 < dirty_.size()) {
        const std::uint32_t n = dirty_[i + 2];
        if (cold_[n].registered) grid_.prefetch(cold_[n].reg);
        if (slots_[n].live) grid_.prefetch(slots_[n].where);
      }
      const Slot& a = slots_[s];
      const Cold& c = cold_[s];
      st.memberships_touched += c.then_cells + (a.live ? a.where.cell_count : 0);
      const auto& partners = adj_[s];
      if (c.committed) {
        st.pair_visits += static_cast<std::int64_t>(partners.size());
        for (const std::uint32_t t : partners) {
          if ((slots_[t].dirty && t < s) || in_after(s, t)) continue;
          // The handles and payloads as then are filled in before the commit (fill_ended): the
          // partner's Cold is not in cache here.
          events.ended.push_back(contact(s, 0, 0, t, 0, 0));
        }
      }
      sync_one(s);
      if (!a.live || !within) continue;
      const bool stamped = partners.size() > kStampDegree;
      if (stamped) {
        next_token();
        for (const std::uint32_t t : partners) seen_[t] = token_;
      }
      grid_.candidates(a.box, a.where.level, a.where.cells, [&](std::uint32_t t) {
        const Slot& b = slots_[t];
        if (t == s || (b.dirty && t > s) || !overlaps(a.box, b.box) || !accepts(s, a, t, b)) return true;
        if (stamped ? seen_[t] == token_ : std::find(partners.begin(), partners.end(), t) != partners.end()) {
          return true;
        }
        if (static_cast<std::int64_t>(events.began.size()) >= max_pairs) {
          within = false;  // with the pair about to be added, more than max_pairs began
          return false;
        }
        events.began.push_back(contact(s, a.generation, a.user, t, b.generation, b.user));
        return true;
      }, st.pair_visits, [&](std::uint32_t t) { __builtin_prefetch(&slots_[t]); });
    }
    synced_ = true;
    const std::int64_t kept = pair_count_ - static_cast<std::int64_t>(events.ended.size());
    if (!within || kept + static_cast<std::int64_t>(events.began.size()) > max_pairs) {
      return absl::ResourceExhaustedError(
          absl::StrCat("more than max_pairs = ", config.max_pairs.value(), " overlapping pairs (B7, E2)"));
    }
    // Swept: from each swept box, the step volumes meeting its own (a clean box's and a dirty unswept
    // box's is its box, in grid_; a swept box's in volume_grid_), each pair once, kept when the end boxes
    // do not overlap and the pair passes the filters.
    if (!volumes_.empty()) {
      for (const Volume& v : volumes_) volume_grid_.add(v.slot, v.placed.where);
      for (const Volume& v : volumes_) {
        const std::uint32_t s = v.slot;
        const Slot& a = slots_[s];
        const auto found = [&](std::uint32_t t, const Box<D>& other) {
          const Slot& b = slots_[t];
          if (t == s || (slots_[t].swept && t < s) || !overlaps(v.placed.box, other)) return true;
          if (overlaps(a.box, b.box) || !accepts(s, a, t, b)) return true;
          if (events.swept.size() >= static_cast<std::size_t>(config.max_pairs.value())) {
            within = false;
            return false;
          }
          events.swept.push_back(contact(s, a.generation, a.user, t, b.generation, b.user));
          return true;
        };
        grid_.candidates(v.placed.box, v.placed.where.level, v.placed.where.cells, [&](std::uint32_t t) {
          return slots_[t].swept || found(t, slots_[t].box);
        }, st.pair_visits);
        if (!within) break;
        volume_grid_.candidates(v.placed.box, v.placed.where.level, v.placed.where.cells, [&](std::uint32_t t) {
          return found(t, volumes_[slots_[t].volume].placed.box);
        }, st.pair_visits);
        if (!within) break;
      }
      for (const Volume& v : volumes_) volume_grid_.erase(v.slot, v.placed.where);
      if (!within) {
        return absl::ResourceExhaustedError(
            absl::StrCat("more than max_pairs = ", config.max_pairs.value(), " swept candidates (B7, E6)"));
      }
    }

    fill_ended(events.ended);
    // Commit: nothing above changed the grid or the pair set; from here on nothing fails. Each pair's
    // adjacency lists are fetched a few pairs ahead.
    constexpr std::size_t kAhead = 8;
    for (std::size_t i = 0; i < events.ended.size(); ++i) {
      if (i + kAhead < events.ended.size()) {
        __builtin_prefetch(&adj_[events.ended[i + kAhead].a.slot]);
        __builtin_prefetch(&adj_[events.ended[i + kAhead].b.slot]);
      }
      const Contact& c = events.ended[i];
      unlink(c.a.slot, c.b.slot);
      unlink(c.b.slot, c.a.slot);
    }
    for (std::size_t i = 0; i < events.began.size(); ++i) {
      if (i + kAhead < events.began.size()) {
        __builtin_prefetch(&adj_[events.began[i + kAhead].a.slot]);
        __builtin_prefetch(&adj_[events.began[i + kAhead].b.slot]);
      }
      const Contact& c = events.began[i];
      adj_[c.a.slot].push_back(c.b.slot);
      adj_[c.b.slot].push_back(c.a.slot);
    }
    pair_count_ += static_cast<std::int64_t>(events.began.size()) - static_cast<std::int64_t>(events.ended.size());
    for (const std::uint32_t slot : dirty_) {
      Slot& s = slots_[slot];
      Cold& c = cold_[slot];
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
    volumes_.clear();
    for (const std::uint32_t slot : freed_) {
      if (slots_[slot].generation < std::numeric_limits<std::uint32_t>::max()) free_.push_back(slot);
    }
    freed_.clear();
    dirty_.clear();
    committed_memberships_ = static_cast<std::int64_t>(pending_memberships_);
    committed_live_ = live_;
    sort_contacts(events.began);
    sort_contacts(events.ended);
    sort_contacts(events.swept);
    st.boxes = committed_live_;
    st.memberships = committed_memberships_;
    st.pairs = pair_count_;
    st.began = static_cast<std::int64_t>(events.began.size());
    st.ended = static_cast<std::int64_t>(events.ended.size());
    st.swept = static_cast<std::int64_t>(events.swept.size());
    return absl::OkStatus();
  }

  [[nodiscard]] std::size_t occupied_levels() const {
    std::size_t n = 0;
    for (const auto& level : grid_.levels()) n += level.residents.empty() ? 0 : 1;
    return n;
  }

  // The began events of an update after which every live box is new (none committed before, so P(S) is
  // empty and every live box is dirty and registered in grid_), all on one level: the pairs of find_pairs,
  // taken as find_pairs takes them — every occupied cell's members two by two, kept in their reference
  // cell only (B9), tested, and sorted once into canonical order — instead of one query per box. The same
  // events, and the same visits (each of a cell's c members would meet its c members), as those queries.
  // False, with `events` unchanged, when the pairs exceed `room`.
  [[nodiscard]] bool began_of_first_build(ContactEvents& events, std::int64_t room, std::int64_t& visits) {
    LWC_CHECK(pair_count_ == 0, "no pair without a committed box");
    std::vector<std::uint64_t>& found = pair_scratch_;
    found.clear();
    const int bits = static_cast<int>(std::bit_width(slots_.size()));
    grid_.table().for_each_cell([&](int, std::span<const internal::Member> first, std::span<const internal::Member> more) {
      const std::size_t c = first.size() + more.size();
      visits += static_cast<std::int64_t>(c * c);
      const auto at = [&](std::size_t i) -> const internal::Member& {
        return i < first.size() ? first[i] : more[i - first.size()];
      };
      for (std::size_t i = 0; i < c; ++i) {
        const internal::Member& m = at(i);
        for (std::size_t j = i + 1; j < c; ++j) {
          const internal::Member& n = at(j);
          if ((m.flags | n.flags) != internal::all_axes<D>()) continue;
          const std::uint64_t lo = std::min(m.slot, n.slot);
          const std::uint64_t hi = std::max(m.slot, n.slot);
          found.push_back((lo << bits) | hi);
        }
      }
    });
    // Candidates are tested a few ahead of their boxes' loads, and the pairs kept in place.
    const std::uint64_t low = (std::uint64_t{1} << bits) - 1;
    std::size_t kept = 0;
    for (std::size_t i = 0; i < found.size(); ++i) {
      if (i + 8 < found.size()) {
        __builtin_prefetch(&slots_[found[i + 8] >> bits]);
        __builtin_prefetch(&slots_[found[i + 8] & low]);
      }
      const auto s = static_cast<std::uint32_t>(found[i] >> bits);
      const auto t = static_cast<std::uint32_t>(found[i] & low);
      const Slot& a = slots_[s];
      const Slot& b = slots_[t];
      if (overlaps(a.box, b.box) && accepts(s, a, t, b)) found[kept++] = found[i];
    }
    found.resize(kept);
    if (static_cast<std::int64_t>(kept) > room) return false;
    internal::radix_sort(found, sort_scratch_, sort_counts_, 0, 2 * bits);
    for (const std::uint64_t w : found) {
      const auto s = static_cast<std::uint32_t>(w >> bits);
      const auto t = static_cast<std::uint32_t>(w & low);
      events.began.push_back(contact(s, slots_[s].generation, slots_[s].user, t, slots_[t].generation, slots_[t].user));
    }
    return true;
  }

  // Writes the committed generations and payloads (the state at the previous update) into ended pairs
  // recorded by slots only, each pair's Cold entries fetched a few pairs ahead.
  void fill_ended(std::vector<Contact>& ended) const {
    constexpr std::size_t kAhead = 8;
    for (std::size_t i = 0; i < ended.size(); ++i) {
      if (i + kAhead < ended.size()) {
        __builtin_prefetch(&cold_[ended[i + kAhead].a.slot].user_then);
        __builtin_prefetch(&cold_[ended[i + kAhead].b.slot].user_then);
      }
      Contact& e = ended[i];
      e.a.generation = cold_[e.a.slot].committed_generation;
      e.user_a = cold_[e.a.slot].user_then;
      e.b.generation = cold_[e.b.slot].committed_generation;
      e.user_b = cold_[e.b.slot].user_then;
    }
  }

  void unlink(std::uint32_t s, std::uint32_t t) {
    auto& list = adj_[s];
    auto at = std::find(list.begin(), list.end(), t);
    LWC_CHECK(at != list.end(), "an ended pair is in both adjacency lists");
    *at = list.back();
    list.pop_back();  // keeps the capacity
  }

  GridSpec<D> spec_;
  PairFilter pair_filter_;
  std::vector<Slot> slots_;
  std::vector<Cold> cold_;
  std::vector<absl::InlinedVector<std::uint32_t, 6>> adj_;  // P(S): each slot's partners at the last update
  std::vector<std::uint32_t> free_;   // reusable now
  std::vector<std::uint32_t> freed_;  // removed since the last update: reusable after the next one
  std::vector<std::uint32_t> dirty_;
  std::vector<Volume> volumes_;       // step volumes of the swept boxes
  internal::CellGrid<D> grid_;        // the live boxes as last given
  internal::CellGrid<D> volume_grid_; // scratch of update(): the step volumes
  mutable std::vector<RayHit> ray_scratch_;  // raycast()'s hits, reused
  mutable std::vector<std::uint32_t> seen_;  // stamps of raycast() and of update()'s high-degree boxes
  std::vector<std::uint64_t> pair_scratch_;  // a first build's pairs, packed; reused
  std::vector<std::uint64_t> sort_scratch_;
  std::vector<std::size_t> sort_counts_;     // its histograms; reused
  mutable std::uint32_t token_ = 0;
  bool synced_ = true;  // grid_ holds every box as given (no operation since the last sync())
  absl::int128 pending_memberships_ = 0;
  std::int64_t committed_memberships_ = 0;
  std::int64_t pair_count_ = 0;
  std::int64_t live_ = 0;
  std::int64_t committed_live_ = 0;
};

}  // namespace lwc

LWC_EXACT_FP_END
