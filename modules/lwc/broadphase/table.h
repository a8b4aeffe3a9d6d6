// SPDX-License-Identifier: MIT
// File: modules/lwc/broadphase/table.h
//
// The cell table of the persistent grid: (level, cell) -> the boxes registered there, updated in place as
// boxes move (CellTable: open addressing, one 64-byte entry per occupied cell), and the registrations of
// placed boxes on it, with the candidate query that finds every box whose cells meet a box's, from the
// reference cell of the two (CellGrid, B8, B9). A warm table allocates nothing (E12).
// Spec: docs/broadphase.md (E1, E5, E9, E11, E12).
//
// One source, two modes (lwc/config.h): `#include <lwc/broadphase.h>` brings it without module support;
// the module unit modules/broadphase/table.cppm exports the same declarations as lwc.broadphase:table.
#ifndef LWC_BROADPHASE_TABLE_H_
#define LWC_BROADPHASE_TABLE_H_

#include "lwc/config.h"
#ifndef LWC_MODULE_UNIT  // modules/broadphase/table.cppm includes these in its global module fragment
#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include "absl/numeric/int128.h"
#include "absl/status/statusor.h"
#include "lwc/check.h"
#include "lwc/exact_fp.h"
// ... and imports these.
#include "lwc/decompose.h"
#include "lwc/broadphase/box.h"
#include "lwc/broadphase/place.h"
#include "lwc/broadphase/cells.h"
#include "lwc/broadphase/sort.h"
#endif

// The arithmetic below is exact IEEE arithmetic whatever the consumer's flags (lwc/exact_fp.h).
LWC_EXACT_FP_BEGIN

namespace lwc::internal {

// One registration of a box in a cell: its slot and its start flags there (bit k: the cell is the box's
// first cell on axis k). The reference cell of two boxes meeting in cell c, max(lo_a, lo_b) per axis, is c
// exactly when on every axis one of the two starts there (B9), so a query dedups from the flags alone.
struct Member {
  std::uint32_t slot;
  std::uint32_t flags;
};

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
  // sequential scan of the entries), and ahead(member) for the inline members of the entry kAhead places
  // further, so that what fn will read of them can be fetched in time.
  template <typename Fn, typename Ahead>
  void for_each_entry(Fn&& fn, Ahead&& ahead) const {
    constexpr std::size_t kAhead = 4;
    for (std::size_t i = 0; i < entries_.size(); ++i) {
      if (i + kAhead < entries_.size()) {
        const Entry& next = entries_[i + kAhead];
        for (std::size_t m = 0; m < std::min<std::size_t>(next.count, kInline); ++m) ahead(next.members[m]);
      }
      const Entry& e = entries_[i];
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
    if (--e->count == 0) remove_entry(static_cast<std::size_t>(e - entries_.data()));
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

  // Backward-shift deletion of the emptied entry at `hole`: later entries of the probe run move up into it.
  void remove_entry(std::size_t hole) {
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
    add_resident(slot, where.level);
    for_each_cell<D>(where.cells, [&](const std::array<std::int64_t, D>& c, std::uint32_t flags) {
      table_.add(where.level, c, Member{slot, flags});
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
      add_resident(slot, where.level);
      for_each_cell<D>(where.cells, [&](const std::array<std::int64_t, D>& c, std::uint32_t flags) {
        pending.push_back({c, where.level, Member{slot, flags}});
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
    for_each_cell<D>(where.cells, [&](const std::array<std::int64_t, D>& c, std::uint32_t) {
      table_.erase(where.level, c, slot);
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
    for_each_cell<D>(from.cells, [&](const std::array<std::int64_t, D>& c, std::uint32_t old_flags) {
      if (!contains<D>(to.cells, c)) {
        table_.erase(lv, c, slot);
        return;
      }
      std::uint32_t flags = 0;
      for (std::size_t k = 0; k < D; ++k) flags |= static_cast<std::uint32_t>(c[k] == to.cells.lo[k]) << k;
      if (flags == old_flags) return;
      table_.set_flags(lv, c, slot, flags);
    });
    for_each_cell<D>(to.cells, [&](const std::array<std::int64_t, D>& c, std::uint32_t flags) {
      if (!contains<D>(from.cells, c)) table_.add(lv, c, Member{slot, flags});
    });
  }

  // Calls fn(t) once for every slot t registered with cells that meet the cells of `box` on t's level,
  // from the reference cell of the two (B9), or for every resident of a level where `box` has more cells
  // than the level has residents (or cells outside int64), until fn returns false. Every registered t
  // whose box overlaps `box` is among them (B8). `visits` counts the (query, resident) incidences met; the
  // slots of a few cells' candidates are prefetched (prefetch(t)) before fn reads their boxes, so those
  // reads overlap instead of waiting one after the other.
  template <typename Fn, typename Prefetch>
  void candidates(const Box<D>& box, int box_level, const CellRange<D>& box_cells, Fn&& fn,
                  std::int64_t& visits, Prefetch&& prefetch) const {
    for (const Level& level : levels_) {
      if (level.residents.empty()) continue;
      CellRange<D> r = box_cells;
      bool scan = false;
      if (level.level != box_level) {
        absl::StatusOr<CellRange<D>> at = cell_range(box, level.size);
        scan = !at.ok() || cell_count(*at) > absl::uint128(level.residents.size());
        if (at.ok()) r = *at;
      }
      if (scan ? !scan_level(level, fn, visits) : !query_level(level, r, fn, visits, prefetch)) return;
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
    for_each_cell<D>(where.cells, [&](const std::array<std::int64_t, D>& c, std::uint32_t) { table_.prefetch(where.level, c); });
  }

 private:
  // Every resident of `level`, while fn returns true; false iff it stopped.
  template <typename Fn>
  [[nodiscard]] static bool scan_level(const Level& level, Fn& fn, std::int64_t& visits) {
    for (const std::uint32_t t : level.residents) {
      ++visits;
      if (!fn(t)) return false;
    }
    return true;
  }

  // The members of the cells `r` of `level` whose reference cell with the query is there (B9), gathered a
  // batch at a time with their slots prefetched, while fn returns true; false iff it stopped.
  template <typename Fn, typename Prefetch>
  [[nodiscard]] bool query_level(const Level& level, const CellRange<D>& r, Fn& fn, std::int64_t& visits,
                                 Prefetch& prefetch) const {
    std::array<std::uint32_t, 64> batch;
    std::size_t held = 0;
    bool go = true;  // fn returned true so far
    const auto flush = [&] {
      for (std::size_t i = 0; i < held && go; ++i) go = static_cast<bool>(fn(batch[i]));
      held = 0;
      return go;
    };
    (void)for_each_cell<D>(r, [&](const std::array<std::int64_t, D>& c, std::uint32_t mask) {
      return table_.for_each(level.level, c, [&](const Member& m) {
        ++visits;
        if ((m.flags | mask) != all_flags<D>()) return true;
        prefetch(m.slot);
        batch[held++] = m.slot;
        return held < batch.size() || flush();
      });
    });
    return flush();
  }

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

  void add_resident(std::uint32_t slot, int lv) {
    Level& level = level_of(lv);
    if (pos_.size() <= slot) pos_.resize(static_cast<std::size_t>(slot) + 1, 0);
    pos_[slot] = static_cast<std::uint32_t>(level.residents.size());
    level.residents.push_back(slot);
  }

  void erase_resident(std::uint32_t slot, int lv) {
    Level& l = level_of(lv);
    const std::uint32_t at = pos_[slot];
    const std::uint32_t last = l.residents.back();
    l.residents[at] = last;
    pos_[last] = at;
    l.residents.pop_back();  // an emptied level stays, with its capacity (queries skip it)
  }

  CellSize h_;
  CellTable<D> table_;
  std::vector<Level> levels_;  // every level ever occupied (an empty one is kept warm, and skipped)
  std::vector<std::uint32_t> pos_;                        // slot -> its index in its level's residents
};

}  // namespace lwc::internal

LWC_EXACT_FP_END

#endif  // LWC_BROADPHASE_TABLE_H_
