// SPDX-License-Identifier: MIT
// File: engines/bullet/broad_phase.cc    Library: lwc::bullet
//
// The adapter: Bullet's calls translated into lwc::PersistentGrid<3>'s, lwc's contact events into Bullet's
// pair cache. It owns no algorithm: the grid finds the pairs; the adapter keeps, per proxy, the partners it
// added to the cache, so that a destroyed proxy's pairs leave the cache at once (the cache holds raw
// proxy pointers) and the grid's later `ended` events for them are skipped. Policies: README.md.
#include "lwc/bullet/broad_phase.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <utility>
#include <vector>

#include "BulletCollision/BroadphaseCollision/btOverlappingPairCache.h"
#include "LinearMath/btAlignedAllocator.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "lwc/broadphase.h"

namespace lwc::bullet {
namespace {

// Proxy
//
// A Bullet proxy and its box in the grid. Invariant: placed => `handle` names a live box of the grid whose
// box is (m_aabbMin, m_aabbMax) as doubles; every pair in `partners` is in the pair cache, recorded on both
// sides.
struct Proxy : btBroadphaseProxy {
  Proxy(const btVector3& lo, const btVector3& hi, void* user, int group, int mask)
      : btBroadphaseProxy(lo, hi, user, group, mask) {}
  lwc::Handle handle{};
  bool placed = false;
  std::uint32_t pool_index = 0;
  std::vector<Proxy*> partners;
};

[[nodiscard]] lwc::Box3 to_box(const btVector3& lo, const btVector3& hi) {
  return {{static_cast<double>(lo.x()), static_cast<double>(lo.y()), static_cast<double>(lo.z())},
          {static_cast<double>(hi.x()), static_cast<double>(hi.y()), static_cast<double>(hi.z())}};
}

[[nodiscard]] bool same_box(const Proxy& p, const btVector3& lo, const btVector3& hi) {
  for (int k = 0; k < 3; ++k) {
    // Bit-level comparison: a NaN bound is never "the same", -0.0 and 0.0 are different boxes to nobody.
    if (!(p.m_aabbMin[k] == lo[k]) || !(p.m_aabbMax[k] == hi[k])) return false;
  }
  return true;
}

// segment_meets()
//
// True iff the closed segment from `from` to `to` meets the closed box `b` (slab clipping of t in [0, 1]).
[[nodiscard]] bool segment_meets(const lwc::Box3& b, const std::array<double, 3>& from,
                                 const std::array<double, 3>& to) {
  double t0 = 0.0;
  double t1 = 1.0;
  for (std::size_t k = 0; k < 3; ++k) {
    const double d = to[k] - from[k];
    if (d == 0.0) {
      if (from[k] < b.min[k] || from[k] > b.max[k]) return false;
      continue;
    }
    double lo = (b.min[k] - from[k]) / d;
    double hi = (b.max[k] - from[k]) / d;
    if (lo > hi) std::swap(lo, hi);
    t0 = std::max(t0, lo);
    t1 = std::min(t1, hi);
    if (t0 > t1) return false;
  }
  return true;
}

void remove_partner(Proxy& p, const Proxy* q) {
  auto it = std::find(p.partners.begin(), p.partners.end(), q);
  if (it == p.partners.end()) return;
  *it = p.partners.back();
  p.partners.pop_back();
}

}  // namespace

struct BroadPhase::Impl {
  Impl(lwc::GridConfig c, lwc::PersistentGrid<3> g, const Options& o)
      : config(c), grid(std::move(g)), options(o) {}

  lwc::GridConfig config;
  lwc::PersistentGrid<3> grid;
  Options options;
  std::unique_ptr<btHashedOverlappingPairCache> owned_cache;
  btOverlappingPairCache* cache = nullptr;
  std::vector<std::unique_ptr<Proxy>> pool;  // by pool index; nullptr when free
  std::vector<std::uint32_t> free;           // free pool indices
  std::vector<Proxy*> by_slot;               // the placed proxy of each grid slot
  Stats stats;

  void refuse(RefusedCall call, const btBroadphaseProxy* proxy, absl::Status status) {
    ++stats.refusals;
    if (options.on_refusal) options.on_refusal(Refusal{call, proxy, std::move(status)});
  }

  // place(): inserts a parked proxy's box into the grid; false (nothing changed) when the grid refuses it.
  [[nodiscard]] absl::Status place(Proxy& p, const btVector3& lo, const btVector3& hi) {
    absl::StatusOr<lwc::Handle> h = grid.insert(to_box(lo, hi));
    if (!h.ok()) return h.status();
    p.handle = *h;
    p.placed = true;
    if (by_slot.size() <= h->slot) by_slot.resize(static_cast<std::size_t>(h->slot) + 1, nullptr);
    by_slot[h->slot] = &p;
    --stats.parked;
    return absl::OkStatus();
  }

  [[nodiscard]] Proxy* proxy_of(const lwc::Handle& h) const {
    if (h.slot >= by_slot.size()) return nullptr;
    Proxy* p = by_slot[h.slot];
    return p != nullptr && p->handle == h ? p : nullptr;
  }

  template <typename Fn>
  void for_each_placed(Fn&& fn) const {
    for (const std::unique_ptr<Proxy>& p : pool) {
      if (p != nullptr && p->placed) fn(*p);
    }
  }
};

absl::StatusOr<std::unique_ptr<BroadPhase>> BroadPhase::create(const Options& options) {
  absl::StatusOr<lwc::CellSize> h = lwc::CellSize::create(options.cell_size);
  if (!h.ok()) return h.status();
  absl::StatusOr<lwc::CellBudget> cells = lwc::CellBudget::create(options.max_cells_per_box);
  if (!cells.ok()) return cells.status();
  absl::StatusOr<lwc::MembershipBudget> memberships = lwc::MembershipBudget::create(options.max_memberships);
  if (!memberships.ok()) return memberships.status();
  absl::StatusOr<lwc::PairBudget> pairs = lwc::PairBudget::create(options.max_pairs);
  if (!pairs.ok()) return pairs.status();
  if (options.pair_cache != nullptr && options.pair_cache->hasDeferredRemoval()) {
    return absl::InvalidArgumentError(
        "the pair cache defers removal (it would ignore removeOverlappingPair): pass a "
        "btHashedOverlappingPairCache, or nullptr for the adapter's own");
  }
  const lwc::GridConfig config{.cell_size = *h,
                               .max_cells_per_box = *cells,
                               .max_memberships = *memberships,
                               .max_pairs = *pairs,
                               .oversize = options.reject_oversize ? lwc::Oversize::kReject
                                                                   : lwc::Oversize::kCoarserLevels};
  absl::StatusOr<lwc::PersistentGrid<3>> grid = lwc::PersistentGrid<3>::create(config);
  if (!grid.ok()) return grid.status();
  auto impl = std::make_unique<Impl>(config, std::move(*grid), options);
  if (options.pair_cache == nullptr) {
    impl->owned_cache = std::make_unique<btHashedOverlappingPairCache>();
    impl->cache = impl->owned_cache.get();
  } else {
    impl->cache = options.pair_cache;
  }
  return std::unique_ptr<BroadPhase>(new BroadPhase(std::move(impl)));
}

BroadPhase::BroadPhase(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

BroadPhase::~BroadPhase() = default;

btBroadphaseProxy* BroadPhase::createProxy(const btVector3& aabbMin, const btVector3& aabbMax, int /*shapeType*/,
                                           void* userPtr, int collisionFilterGroup, int collisionFilterMask,
                                           btDispatcher* /*dispatcher*/) {
  Impl& m = *impl_;
  std::uint32_t index = 0;
  if (m.free.empty()) {
    index = static_cast<std::uint32_t>(m.pool.size());
    m.pool.emplace_back();
  } else {
    index = m.free.back();
    m.free.pop_back();
  }
  m.pool[index] = std::make_unique<Proxy>(aabbMin, aabbMax, userPtr, collisionFilterGroup, collisionFilterMask);
  Proxy& p = *m.pool[index];
  p.pool_index = index;
  // Unique among live proxies (the hashed cache orders and hashes pairs by it); reused only after the
  // proxy and all its pairs are gone.
  p.m_uniqueId = static_cast<int>(index) + 1;
  ++m.stats.proxies;
  ++m.stats.parked;
  if (absl::Status s = m.place(p, aabbMin, aabbMax); !s.ok()) m.refuse(RefusedCall::kCreateProxy, &p, s);
  return &p;
}

void BroadPhase::destroyProxy(btBroadphaseProxy* proxy, btDispatcher* dispatcher) {
  Impl& m = *impl_;
  Proxy& p = *static_cast<Proxy*>(proxy);
  for (Proxy* q : p.partners) {
    m.cache->removeOverlappingPair(&p, q, dispatcher);
    ++m.stats.pairs_removed;
    remove_partner(*q, &p);
  }
  p.partners.clear();
  if (p.placed) {
    // The handle is live (placed), so remove cannot fail; its `ended` events are skipped (by_slot cleared).
    [[maybe_unused]] const absl::Status removed = m.grid.remove(p.handle);
    LWC_CHECK(removed.ok(), "a placed proxy's handle is live");
    m.by_slot[p.handle.slot] = nullptr;
  } else {
    --m.stats.parked;
  }
  --m.stats.proxies;
  const std::uint32_t index = p.pool_index;
  m.pool[index].reset();
  m.free.push_back(index);
}

void BroadPhase::setAabb(btBroadphaseProxy* proxy, const btVector3& aabbMin, const btVector3& aabbMax,
                         btDispatcher* /*dispatcher*/) {
  Impl& m = *impl_;
  Proxy& p = *static_cast<Proxy*>(proxy);
  if (p.placed && same_box(p, aabbMin, aabbMax)) return;  // Bullet sets every box every step
  absl::Status s = p.placed ? m.grid.move(p.handle, to_box(aabbMin, aabbMax)) : m.place(p, aabbMin, aabbMax);
  if (!s.ok()) {
    m.refuse(RefusedCall::kSetAabb, &p, std::move(s));  // the previous box stays
    return;
  }
  p.m_aabbMin = aabbMin;
  p.m_aabbMax = aabbMax;
}

void BroadPhase::getAabb(btBroadphaseProxy* proxy, btVector3& aabbMin, btVector3& aabbMax) const {
  aabbMin = proxy->m_aabbMin;
  aabbMax = proxy->m_aabbMax;
}

void BroadPhase::rayTest(const btVector3& rayFrom, const btVector3& rayTo, btBroadphaseRayCallback& rayCallback,
                         const btVector3& aabbMin, const btVector3& aabbMax) {
  const std::array<double, 3> from{rayFrom.x(), rayFrom.y(), rayFrom.z()};
  const std::array<double, 3> to{rayTo.x(), rayTo.y(), rayTo.z()};
  // A swept shape of extent [aabbMin, aabbMax] at a point x meets a box iff x is in the box widened by
  // the shape's extent: [min - aabbMax, max - aabbMin] (as btDbvt::rayTestInternal).
  const std::array<double, 3> grow_lo{aabbMax.x(), aabbMax.y(), aabbMax.z()};
  const std::array<double, 3> grow_hi{aabbMin.x(), aabbMin.y(), aabbMin.z()};
  impl_->for_each_placed([&](Proxy& p) {
    lwc::Box3 b = to_box(p.m_aabbMin, p.m_aabbMax);
    for (std::size_t k = 0; k < 3; ++k) {
      b.min[k] -= grow_lo[k];
      b.max[k] -= grow_hi[k];
    }
    if (segment_meets(b, from, to)) rayCallback.process(&p);
  });
}

void BroadPhase::aabbTest(const btVector3& aabbMin, const btVector3& aabbMax, btBroadphaseAabbCallback& callback) {
  const lwc::Box3 probe = to_box(aabbMin, aabbMax);
  impl_->for_each_placed([&](Proxy& p) {
    if (lwc::overlaps(probe, to_box(p.m_aabbMin, p.m_aabbMax))) callback.process(&p);
  });
}

void BroadPhase::calculateOverlappingPairs(btDispatcher* dispatcher) {
  Impl& m = *impl_;
  absl::StatusOr<lwc::ContactEvents> events = m.grid.update();
  if (!events.ok()) {
    // Nothing changed (E4): the operations stay pending and the cache keeps the last update's pairs.
    m.refuse(RefusedCall::kCalculateOverlappingPairs, nullptr, events.status());
    return;
  }
  for (const lwc::Contact& c : events->ended) {
    Proxy* a = m.proxy_of(c.a);
    Proxy* b = m.proxy_of(c.b);
    if (a == nullptr || b == nullptr) continue;  // destroyed: its pairs left the cache in destroyProxy
    if (std::find(a->partners.begin(), a->partners.end(), b) == a->partners.end()) continue;  // filtered
    m.cache->removeOverlappingPair(a, b, dispatcher);
    ++m.stats.pairs_removed;
    remove_partner(*a, b);
    remove_partner(*b, a);
  }
  for (const lwc::Contact& c : events->began) {
    Proxy* a = m.proxy_of(c.a);
    Proxy* b = m.proxy_of(c.b);
    LWC_CHECK(a != nullptr && b != nullptr, "a pair that began names two live proxies");
    if (a == nullptr || b == nullptr) continue;
    if (!m.cache->needsBroadphaseCollision(a, b)) continue;
    if (m.cache->addOverlappingPair(a, b) == nullptr) continue;
    ++m.stats.pairs_added;
    a->partners.push_back(b);
    b->partners.push_back(a);
  }
  m.stats.last_dirty = events->stats.dirty;
  m.stats.last_began = events->stats.began;
  m.stats.last_ended = events->stats.ended;
  m.stats.last_memberships_touched = events->stats.memberships_touched;
}

btOverlappingPairCache* BroadPhase::getOverlappingPairCache() { return impl_->cache; }

const btOverlappingPairCache* BroadPhase::getOverlappingPairCache() const { return impl_->cache; }

void BroadPhase::getBroadphaseAabb(btVector3& aabbMin, btVector3& aabbMax) const {
  bool any = false;
  impl_->for_each_placed([&](const Proxy& p) {
    if (!any) {
      aabbMin = p.m_aabbMin;
      aabbMax = p.m_aabbMax;
      any = true;
      return;
    }
    aabbMin.setMin(p.m_aabbMin);
    aabbMax.setMax(p.m_aabbMax);
  });
  if (!any) {
    aabbMin.setValue(0, 0, 0);  // as btDbvtBroadphase with no proxies
    aabbMax.setValue(0, 0, 0);
  }
}

void BroadPhase::resetPool(btDispatcher* /*dispatcher*/) {
  Impl& m = *impl_;
  if (m.stats.proxies != 0) return;  // as btDbvtBroadphase: only an empty broad phase releases its memory
  absl::StatusOr<lwc::PersistentGrid<3>> grid = lwc::PersistentGrid<3>::create(m.config);
  LWC_CHECK(grid.ok(), "the config was accepted by create()");
  if (!grid.ok()) return;
  m.grid = std::move(*grid);
  m.pool.clear();
  m.pool.shrink_to_fit();
  m.free.clear();
  m.free.shrink_to_fit();
  m.by_slot.clear();
  m.by_slot.shrink_to_fit();
}

void BroadPhase::printStats() {
  const Stats& s = impl_->stats;
  std::printf(
      "lwc::bullet::BroadPhase: %lld proxies (%lld parked), %d pairs in the cache, %lld added, %lld removed, "
      "%lld refusals; last update: %lld dirty, %lld began, %lld ended, %lld memberships touched\n",
      static_cast<long long>(s.proxies), static_cast<long long>(s.parked),
      impl_->cache->getNumOverlappingPairs(), static_cast<long long>(s.pairs_added),
      static_cast<long long>(s.pairs_removed), static_cast<long long>(s.refusals),
      static_cast<long long>(s.last_dirty), static_cast<long long>(s.last_began),
      static_cast<long long>(s.last_ended), static_cast<long long>(s.last_memberships_touched));
}

bool BroadPhase::placed(const btBroadphaseProxy* proxy) const { return static_cast<const Proxy*>(proxy)->placed; }

const Stats& BroadPhase::stats() const { return impl_->stats; }

}  // namespace lwc::bullet
