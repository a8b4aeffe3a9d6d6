// SPDX-License-Identifier: MIT
// File: engines/bullet/broad_phase.cc    Library: lwc::bullet
//
// The adapter: Bullet's calls translated into lwc::PersistentGrid<3>'s, lwc's contact events into Bullet's
// pair cache. It owns no algorithm: the grid stores each proxy's float box, its payload (the proxy) and
// Bullet's group/mask (E7, E8, E10), finds the pairs that pass Bullet's rule and the cache's overlap
// filter callback (the grid's pair predicate) and answers rayTest and aabbTest (E9, E11). The
// adapter keeps, per proxy, the partners it added to the cache, so that a destroyed proxy's pairs leave
// the cache at once (the cache holds raw proxy pointers) and the grid's later `ended` events for them are
// skipped. Policies: README.md.
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
// box is (m_aabbMin, m_aabbMax), payload this proxy and filter the proxy's group/mask as at creation (or
// refresh_filter); every pair in `partners` is in the pair cache, recorded on both sides.
struct Proxy : btBroadphaseProxy {
  Proxy(const btVector3& lo, const btVector3& hi, void* user, int group, int mask)
      : btBroadphaseProxy(lo, hi, user, group, mask) {}
  lwc::Handle handle{};
  bool placed = false;
  std::uint32_t pool_index = 0;
  std::vector<Proxy*> partners;
};

[[nodiscard]] lwc::FloatBox<3> to_box(const btVector3& lo, const btVector3& hi) {
  return {{lo.x(), lo.y(), lo.z()}, {hi.x(), hi.y(), hi.z()}};
}

// Bullet's int group and mask, bit for bit (E8's rule is Bullet's).
[[nodiscard]] lwc::Filter to_filter(int group, int mask) {
  return {.group = static_cast<std::uint32_t>(group), .mask = static_cast<std::uint32_t>(mask)};
}

// The payload is the proxy's address, given at insert: an integer by lwc's contract (E7), a pointer here.
[[nodiscard]] Proxy* proxy_from(lwc::UserData user) { return reinterpret_cast<Proxy*>(user); }  // NOLINT(performance-no-int-to-ptr)

[[nodiscard]] bool same_box(const Proxy& p, const btVector3& lo, const btVector3& hi) {
  for (int k = 0; k < 3; ++k) {
    if (!(p.m_aabbMin[k] == lo[k]) || !(p.m_aabbMax[k] == hi[k])) return false;  // a NaN is never the same
  }
  return true;
}

// The pair predicate (E8): the cache's overlap filter callback, when one is set, on top of the group/mask
// rule (Bullet's cache asks a callback instead of the rule; README.md).
bool cache_accepts(void* context, lwc::UserData lower, lwc::UserData higher) {
  btOverlapFilterCallback* callback = static_cast<btOverlappingPairCache*>(context)->getOverlapFilterCallback();
  return callback == nullptr || callback->needBroadphaseCollision(proxy_from(lower), proxy_from(higher));
}

void remove_partner(Proxy& p, const Proxy* q) {
  auto it = std::find(p.partners.begin(), p.partners.end(), q);
  if (it == p.partners.end()) return;
  *it = p.partners.back();
  p.partners.pop_back();
}

}  // namespace

struct BroadPhase::Impl {
  Impl(lwc::GridConfig c, lwc::PairFilter f, lwc::PersistentGrid<3> g, const Options& o)
      : config(c), filter(f), grid(std::move(g)), options(o) {}

  lwc::GridConfig config;
  lwc::PairFilter filter;
  lwc::PersistentGrid<3> grid;
  Options options;
  std::unique_ptr<btHashedOverlappingPairCache> owned_cache;
  btOverlappingPairCache* cache = nullptr;
  std::vector<std::unique_ptr<Proxy>> pool;  // by pool index; nullptr when free
  std::vector<std::uint32_t> free;           // free pool indices
  std::vector<Proxy*> by_slot;               // the placed proxy of each grid slot
  lwc::ContactEvents events;                 // reused by every update (E12)
  Stats stats;

  void refuse(RefusedCall call, const btBroadphaseProxy* proxy, absl::Status status) {
    ++stats.refusals;
    if (options.on_refusal) options.on_refusal(Refusal{call, proxy, std::move(status)});
  }

  // place(): inserts a parked proxy's box into the grid; nothing changes when the grid refuses it.
  [[nodiscard]] absl::Status place(Proxy& p, const btVector3& lo, const btVector3& hi) {
    absl::StatusOr<lwc::Handle> h = grid.insert(to_box(lo, hi), reinterpret_cast<lwc::UserData>(&p),
                                                to_filter(p.m_collisionFilterGroup, p.m_collisionFilterMask));
    if (!h.ok()) return h.status();
    p.handle = *h;
    p.placed = true;
    if (by_slot.size() <= h->slot) by_slot.resize(static_cast<std::size_t>(h->slot) + 1, nullptr);
    by_slot[h->slot] = &p;
    --stats.parked;
    return absl::OkStatus();
  }

  // The proxy an event's handle names, or nullptr when that proxy was destroyed since.
  [[nodiscard]] Proxy* proxy_of(const lwc::Handle& h) const {
    if (h.slot >= by_slot.size()) return nullptr;
    Proxy* p = by_slot[h.slot];
    return p != nullptr && p->handle == h ? p : nullptr;
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
  std::unique_ptr<btHashedOverlappingPairCache> owned;
  btOverlappingPairCache* cache = options.pair_cache;
  if (cache == nullptr) {
    owned = std::make_unique<btHashedOverlappingPairCache>();
    cache = owned.get();
  }
  // The pair predicate (E8): the cache's overlap filter callback. The grid asks it about live boxes only
  // (their payloads are live proxies), when one of the pair's boxes is dirty.
  const lwc::PairFilter filter{.fn = &cache_accepts, .context = cache};
  absl::StatusOr<lwc::PersistentGrid<3>> grid = lwc::PersistentGrid<3>::create(config, filter);
  if (!grid.ok()) return grid.status();
  auto impl = std::make_unique<Impl>(config, filter, std::move(*grid), options);
  impl->owned_cache = std::move(owned);
  impl->cache = cache;
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
  const lwc::Segment<3> segment{{rayFrom.x(), rayFrom.y(), rayFrom.z()}, {rayTo.x(), rayTo.y(), rayTo.z()}};
  const auto hit = [&](lwc::Handle, lwc::UserData user, double) {
    rayCallback.process(proxy_from(user));
    return true;  // Bullet's callbacks return true to go on (btDbvtBroadphase ignores the answer too)
  };
  if (aabbMin.isZero() && aabbMax.isZero()) {
    // A ray: the grid's ray cast (E9); a NaN or infinite ray hits nothing.
    (void)impl_->grid.raycast(segment, hit);
    return;
  }
  // A swept shape of extent [aabbMin, aabbMax] at a point x meets a box iff x is in the box widened by the
  // extent, [min - aabbMax, max - aabbMin] (as btDbvt::rayTestInternal): the boxes meeting the sweep's hull,
  // then the segment against each widened box (E9's test).
  lwc::Box3 hull;
  for (int k = 0; k < 3; ++k) {
    const auto u = static_cast<std::size_t>(k);
    hull.min[u] = std::min(segment.from[u], segment.to[u]) + static_cast<double>(aabbMin[k]);
    hull.max[u] = std::max(segment.from[u], segment.to[u]) + static_cast<double>(aabbMax[k]);
  }
  (void)impl_->grid.query(hull, [&](lwc::Handle, lwc::UserData user) {
    const Proxy& p = *proxy_from(user);
    lwc::Box3 widened;
    for (int k = 0; k < 3; ++k) {
      const auto u = static_cast<std::size_t>(k);
      widened.min[u] = static_cast<double>(p.m_aabbMin[k]) - static_cast<double>(aabbMax[k]);
      widened.max[u] = static_cast<double>(p.m_aabbMax[k]) - static_cast<double>(aabbMin[k]);
    }
    double t = 0;
    if (lwc::ray_entry(widened, segment, t)) rayCallback.process(&p);
    return true;
  });
}

void BroadPhase::aabbTest(const btVector3& aabbMin, const btVector3& aabbMax, btBroadphaseAabbCallback& callback) {
  // The grid's box query (E11); a box that is not valid meets nothing.
  (void)impl_->grid.query(to_box(aabbMin, aabbMax), [&](lwc::Handle, lwc::UserData user) {
    callback.process(proxy_from(user));
    return true;
  });
}

void BroadPhase::calculateOverlappingPairs(btDispatcher* dispatcher) {
  Impl& m = *impl_;
  if (absl::Status s = m.grid.update_into(m.events); !s.ok()) {
    // Nothing changed (E4): the operations stay pending and the cache keeps the last update's pairs.
    m.refuse(RefusedCall::kCalculateOverlappingPairs, nullptr, std::move(s));
    return;
  }
  for (const lwc::Contact& c : m.events.ended) {
    Proxy* a = m.proxy_of(c.a);
    Proxy* b = m.proxy_of(c.b);
    if (a == nullptr || b == nullptr) continue;  // destroyed: its pairs left the cache in destroyProxy
    // Not added: the cache's callback refused it although the grid's predicate accepted it (a callback
    // whose answer changed without refresh_filter).
    if (std::find(a->partners.begin(), a->partners.end(), b) == a->partners.end()) continue;
    m.cache->removeOverlappingPair(a, b, dispatcher);
    ++m.stats.pairs_removed;
    remove_partner(*a, b);
    remove_partner(*b, a);
  }
  for (const lwc::Contact& c : m.events.began) {
    Proxy* a = proxy_from(c.user_a);
    Proxy* b = proxy_from(c.user_b);
    // The grid applied Bullet's group/mask rule and the cache's callback; the cache asks the callback again.
    if (m.cache->addOverlappingPair(a, b) == nullptr) continue;
    ++m.stats.pairs_added;
    a->partners.push_back(b);
    b->partners.push_back(a);
  }
  m.stats.last_dirty = m.events.stats.dirty;
  m.stats.last_began = m.events.stats.began;
  m.stats.last_ended = m.events.stats.ended;
  m.stats.last_memberships_touched = m.events.stats.memberships_touched;
}

btOverlappingPairCache* BroadPhase::getOverlappingPairCache() { return impl_->cache; }

const btOverlappingPairCache* BroadPhase::getOverlappingPairCache() const { return impl_->cache; }

void BroadPhase::getBroadphaseAabb(btVector3& aabbMin, btVector3& aabbMax) const {
  bool any = false;
  for (const std::unique_ptr<Proxy>& p : impl_->pool) {
    if (p == nullptr || !p->placed) continue;
    if (!any) {
      aabbMin = p->m_aabbMin;
      aabbMax = p->m_aabbMax;
      any = true;
      continue;
    }
    aabbMin.setMin(p->m_aabbMin);
    aabbMax.setMax(p->m_aabbMax);
  }
  if (!any) {
    aabbMin.setValue(0, 0, 0);  // as btDbvtBroadphase with no proxies
    aabbMax.setValue(0, 0, 0);
  }
}

void BroadPhase::resetPool(btDispatcher* /*dispatcher*/) {
  Impl& m = *impl_;
  if (m.stats.proxies != 0) return;  // as btDbvtBroadphase: only an empty broad phase releases its memory
  absl::StatusOr<lwc::PersistentGrid<3>> grid = lwc::PersistentGrid<3>::create(m.config, m.filter);
  LWC_CHECK(grid.ok(), "the config was accepted by create()");
  if (!grid.ok()) return;
  m.grid = std::move(*grid);
  std::vector<std::unique_ptr<Proxy>>().swap(m.pool);
  std::vector<std::uint32_t>().swap(m.free);
  std::vector<Proxy*>().swap(m.by_slot);
  m.events = lwc::ContactEvents{};
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

void BroadPhase::refresh_filter(btBroadphaseProxy* proxy) {
  Proxy& p = *static_cast<Proxy*>(proxy);
  if (!p.placed) return;  // a parked proxy reads its filter when it is placed
  [[maybe_unused]] const absl::Status s =
      impl_->grid.set_filter(p.handle, to_filter(p.m_collisionFilterGroup, p.m_collisionFilterMask));
  LWC_CHECK(s.ok(), "a placed proxy's handle is live");
}

bool BroadPhase::placed(const btBroadphaseProxy* proxy) const { return static_cast<const Proxy*>(proxy)->placed; }

const Stats& BroadPhase::stats() const { return impl_->stats; }

}  // namespace lwc::bullet
