// SPDX-License-Identifier: MIT
// File: engines/bullet/tests/broad_phase_test.cc
//
// lwc::bullet::BroadPhase in Bullet's own terms: a btDiscreteDynamicsWorld stepped with it, its pair cache
// compared with brute force after every step, rayTest/aabbTest compared with brute force, the contacts of
// one step compared with btDbvtBroadphase's from the same state, 600 steps physically sound with both,
// Bullet's filter groups, and bad input through Bullet's API (README.md: policies).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "BulletCollision/BroadphaseCollision/btDbvtBroadphase.h"
#include "btBulletDynamicsCommon.h"
#include "gtest/gtest.h"
#include "lwc/bullet/broad_phase.h"
#include "world.h"

namespace lwc::bullet {
namespace {

using testing::SceneSize;
using testing::World;
using ProxyPair = std::pair<const btBroadphaseProxy*, const btBroadphaseProxy*>;

// CountingCache: Bullet's hashed cache that fails the test when a pair is added twice or a pair that is
// not there is removed (each add and each remove exactly once).
class CountingCache : public btHashedOverlappingPairCache {
 public:
  btBroadphasePair* addOverlappingPair(btBroadphaseProxy* a, btBroadphaseProxy* b) override {
    EXPECT_EQ(findPair(a, b), nullptr) << "pair added twice";
    ++adds;
    return btHashedOverlappingPairCache::addOverlappingPair(a, b);
  }
  void* removeOverlappingPair(btBroadphaseProxy* a, btBroadphaseProxy* b, btDispatcher* d) override {
    EXPECT_NE(findPair(a, b), nullptr) << "removing a pair that is not in the cache";
    ++removes;
    return btHashedOverlappingPairCache::removeOverlappingPair(a, b, d);
  }
  std::int64_t adds = 0;
  std::int64_t removes = 0;
};

ProxyPair ordered(const btBroadphaseProxy* a, const btBroadphaseProxy* b) {
  return a->m_uniqueId < b->m_uniqueId ? ProxyPair{a, b} : ProxyPair{b, a};
}

// The oracle: closed overlap of two proxies' boxes, written independently of lwc (long double, per axis).
bool boxes_overlap(const btVector3& amin, const btVector3& amax, const btVector3& bmin, const btVector3& bmax) {
  for (int k = 0; k < 3; ++k) {
    if (static_cast<long double>(amin[k]) > static_cast<long double>(bmax[k])) return false;
    if (static_cast<long double>(bmin[k]) > static_cast<long double>(amax[k])) return false;
  }
  return true;
}

// Ericson's segment-AABB separating-axis test (Real-Time Collision Detection, 5.3.3), closed, long double:
// a different algorithm from the adapter's slab clipping.
bool segment_meets_box(const btVector3& p0, const btVector3& p1, const btVector3& lo, const btVector3& hi) {
  long double c[3], e[3], m[3], d[3], ad[3];
  for (int k = 0; k < 3; ++k) {
    c[k] = (static_cast<long double>(lo[k]) + hi[k]) / 2;
    e[k] = (static_cast<long double>(hi[k]) - lo[k]) / 2;
    m[k] = (static_cast<long double>(p0[k]) + p1[k]) / 2 - c[k];
    d[k] = static_cast<long double>(p1[k]) - (static_cast<long double>(p0[k]) + p1[k]) / 2;
    ad[k] = std::fabs(d[k]);
    if (std::fabs(m[k]) > e[k] + ad[k]) return false;
  }
  if (std::fabs(m[1] * d[2] - m[2] * d[1]) > e[1] * ad[2] + e[2] * ad[1]) return false;
  if (std::fabs(m[2] * d[0] - m[0] * d[2]) > e[0] * ad[2] + e[2] * ad[0]) return false;
  if (std::fabs(m[0] * d[1] - m[1] * d[0]) > e[0] * ad[1] + e[1] * ad[0]) return false;
  return true;
}

bool passes_filter(const btBroadphaseProxy* a, const btBroadphaseProxy* b) {
  return (a->m_collisionFilterGroup & b->m_collisionFilterMask) != 0 &&
         (b->m_collisionFilterGroup & a->m_collisionFilterMask) != 0;
}

std::vector<const btBroadphaseProxy*> proxies_of(btCollisionWorld& world) {
  std::vector<const btBroadphaseProxy*> out;
  for (int i = 0; i < world.getNumCollisionObjects(); ++i) {
    out.push_back(world.getCollisionObjectArray()[i]->getBroadphaseHandle());
  }
  return out;
}

std::set<ProxyPair> brute_force_pairs(const std::vector<const btBroadphaseProxy*>& proxies, const BroadPhase& bp) {
  std::set<ProxyPair> out;
  for (std::size_t i = 0; i < proxies.size(); ++i) {
    for (std::size_t j = i + 1; j < proxies.size(); ++j) {
      const btBroadphaseProxy* a = proxies[i];
      const btBroadphaseProxy* b = proxies[j];
      if (!bp.placed(a) || !bp.placed(b)) continue;
      if (boxes_overlap(a->m_aabbMin, a->m_aabbMax, b->m_aabbMin, b->m_aabbMax) && passes_filter(a, b)) {
        out.insert(ordered(a, b));
      }
    }
  }
  return out;
}

std::set<ProxyPair> cache_pairs(const btOverlappingPairCache& cache) {
  std::set<ProxyPair> out;
  const btBroadphasePairArray& array = const_cast<btOverlappingPairCache&>(cache).getOverlappingPairArray();
  for (int i = 0; i < array.size(); ++i) out.insert(ordered(array[i].m_pProxy0, array[i].m_pProxy1));
  EXPECT_EQ(out.size(), static_cast<std::size_t>(array.size())) << "a pair is in the cache twice";
  return out;
}

struct Collect : btBroadphaseRayCallback {
  bool process(const btBroadphaseProxy* proxy) override {
    EXPECT_TRUE(seen.insert(proxy).second) << "proxy reported twice";
    return true;
  }
  std::set<const btBroadphaseProxy*> seen;
};

struct CollectBox : btBroadphaseAabbCallback {
  bool process(const btBroadphaseProxy* proxy) override {
    EXPECT_TRUE(seen.insert(proxy).second) << "proxy reported twice";
    return true;
  }
  std::set<const btBroadphaseProxy*> seen;
};

// Random rays (some swept with a shape's extent) and probe boxes against brute force.
void expect_queries_are_brute_force(BroadPhase& bp, const std::vector<const btBroadphaseProxy*>& proxies,
                                    std::mt19937& rng) {
  std::uniform_real_distribution<float> coord(-25, 25);
  std::uniform_real_distribution<float> height(-2, 12);
  for (int q = 0; q < 4; ++q) {
    const btVector3 from(coord(rng), height(rng), coord(rng));
    const btVector3 to(coord(rng), height(rng), coord(rng));
    const btScalar r = q % 2 == 0 ? 0 : 0.3f;
    const btVector3 ext_min(-r, -r, -r);
    const btVector3 ext_max(r, r, r);
    Collect got;
    bp.rayTest(from, to, got, ext_min, ext_max);
    std::set<const btBroadphaseProxy*> want;
    for (const btBroadphaseProxy* p : proxies) {
      if (bp.placed(p) && segment_meets_box(from, to, p->m_aabbMin - ext_max, p->m_aabbMax - ext_min)) want.insert(p);
    }
    EXPECT_EQ(got.seen, want) << "rayTest " << q;

    const btVector3 c(coord(rng), height(rng), coord(rng));
    const btVector3 half(std::abs(coord(rng)) / 5, std::abs(coord(rng)) / 5, std::abs(coord(rng)) / 5);
    CollectBox box;
    bp.aabbTest(c - half, c + half, box);
    std::set<const btBroadphaseProxy*> want_box;
    for (const btBroadphaseProxy* p : proxies) {
      if (bp.placed(p) && boxes_overlap(c - half, c + half, p->m_aabbMin, p->m_aabbMax)) want_box.insert(p);
    }
    EXPECT_EQ(box.seen, want_box) << "aabbTest " << q;
  }
}

std::unique_ptr<BroadPhase> make(Options options = {}) {
  absl::StatusOr<std::unique_ptr<BroadPhase>> bp = BroadPhase::create(options);
  EXPECT_TRUE(bp.ok()) << bp.status();
  return bp.ok() ? std::move(*bp) : nullptr;
}

// A world stepped 600 frames with lwc's broad phase; bodies removed, re-added and re-filtered on the way.
// After every step: the cache is brute force over the proxies' boxes and filters, no pair was added twice
// or removed absent (CountingCache), rayTest and aabbTest are brute force; nothing falls through the
// ground and the projectile never passes its wall.
TEST(BulletBroadPhase, PairCacheIsBruteForceAfterEveryStepOf600) {
  CountingCache cache;
  std::unique_ptr<BroadPhase> owned = make({.cell_size = 2.0, .pair_cache = &cache});
  ASSERT_NE(owned, nullptr);
  BroadPhase* bp = owned.get();
  World w(std::move(owned));
  w.build(SceneSize{});
  std::mt19937 rng(7);
  std::vector<btRigidBody*> removed;
  std::int64_t checked_pairs = 0;
  for (int step = 1; step <= 600; ++step) {
    if (step == 150) {  // destroyProxy of live proxies with pairs in the cache
      for (int i = 10; i < 15; ++i) {
        removed.push_back(w.bodies()[static_cast<std::size_t>(i)].get());
        w.world().removeRigidBody(removed.back());
      }
    }
    if (step == 200) {  // back in, fresh proxies
      for (btRigidBody* b : removed) w.world().addRigidBody(b);
    }
    if (step == 250) {  // a stack box becomes debris: Bullet's way to change a filter is a new proxy
      btRigidBody* b = w.bodies()[7].get();
      w.world().removeRigidBody(b);
      w.world().addRigidBody(b, btBroadphaseProxy::DebrisFilter,
                             btBroadphaseProxy::AllFilter ^ btBroadphaseProxy::DebrisFilter);
    }
    if (step == 300) {  // a falling body's filter changed in place: it stops colliding with debris
      btBroadphaseProxy* p = w.bodies()[30]->getBroadphaseHandle();
      p->m_collisionFilterMask = btBroadphaseProxy::AllFilter ^ btBroadphaseProxy::DebrisFilter;
      bp->refresh_filter(p);
    }
    w.step();
    const std::vector<const btBroadphaseProxy*> proxies = proxies_of(w.world());
    const std::set<ProxyPair> want = brute_force_pairs(proxies, *bp);
    ASSERT_EQ(cache_pairs(cache), want) << "step " << step;
    checked_pairs += static_cast<std::int64_t>(want.size());
    expect_queries_are_brute_force(*bp, proxies, rng);
    for (const auto& body : w.bodies()) {
      const btVector3 at = body->getWorldTransform().getOrigin();
      if (body->getInvMass() == 0 || std::abs(at.x()) > testing::kGroundHalf || std::abs(at.z()) > testing::kGroundHalf) {
        continue;
      }
      EXPECT_GT(at.y(), 0) << "body " << body->getUserIndex() << " through the ground at step " << step;
    }
    EXPECT_GT(w.bodies()[static_cast<std::size_t>(w.projectile())]->getWorldTransform().getOrigin().x(),
              testing::kWallX - 0.5f)
        << "the projectile passed through its wall at step " << step;
    ASSERT_EQ(bp->stats().refusals, 0);
  }
  EXPECT_GT(checked_pairs, 600 * 20);  // the scene has contacts all along: the check is not vacuous
  EXPECT_EQ(cache.adds, bp->stats().pairs_added);
  EXPECT_EQ(cache.removes, bp->stats().pairs_removed);
  EXPECT_GT(cache.removes, 0);
  EXPECT_EQ(cache.adds - cache.removes, cache.getNumOverlappingPairs());
}

struct BodyState {
  btTransform transform;
  btVector3 linear;
  btVector3 angular;
  int activation;
  btScalar deactivation_time;
};

std::vector<BodyState> snapshot(World& w) {
  std::vector<BodyState> out;
  for (const auto& b : w.bodies()) {
    out.push_back({b->getWorldTransform(), b->getLinearVelocity(), b->getAngularVelocity(), b->getActivationState(),
                   b->getDeactivationTime()});
  }
  return out;
}

void restore(World& w, const std::vector<BodyState>& s, int steps) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    btRigidBody& b = *w.bodies()[i];
    b.setWorldTransform(s[i].transform);
    b.setInterpolationWorldTransform(s[i].transform);
    b.getMotionState()->setWorldTransform(s[i].transform);
    b.setLinearVelocity(s[i].linear);
    b.setAngularVelocity(s[i].angular);
    b.setInterpolationLinearVelocity(s[i].linear);
    b.setInterpolationAngularVelocity(s[i].angular);
    b.forceActivationState(s[i].activation);
    b.setDeactivationTime(s[i].deactivation_time);
  }
  w.set_steps(steps);
}

// Touching contacts (a point at distance <= 0) of the last step, as pairs of body indices.
std::set<std::pair<int, int>> touching(World& w) {
  std::set<std::pair<int, int>> out;
  btDispatcher& d = w.dispatcher();
  for (int i = 0; i < d.getNumManifolds(); ++i) {
    const btPersistentManifold* m = d.getManifoldByIndexInternal(i);
    bool touch = false;
    for (int k = 0; k < m->getNumContacts(); ++k) touch = touch || m->getContactPoint(k).getDistance() <= 0;
    if (!touch) continue;
    const int a = m->getBody0()->getUserIndex();
    const int b = m->getBody1()->getUserIndex();
    out.insert({std::min(a, b), std::max(a, b)});
  }
  return out;
}

// The same world with btDbvtBroadphase and with lwc, from the same state (taken every 40 steps of an lwc
// run), gives the same touching contacts after one step. dbvt's boxes are fattened, so its manifolds may
// also hold separated points lwc's exact boxes never ask for; touching contacts need overlapping boxes.
TEST(BulletBroadPhase, SameTouchingContactsAsDbvtAfterOneStepFromTheSameState) {
  World run(make());
  run.build(SceneSize{});
  int compared = 0;
  std::size_t contacts = 0;
  for (int step = 0; step <= 320; ++step) {
    if (step % 40 == 0) {
      const std::vector<BodyState> state = snapshot(run);
      World lwc_world(make());
      World dbvt_world(std::make_unique<btDbvtBroadphase>());
      lwc_world.build(SceneSize{});
      dbvt_world.build(SceneSize{});
      restore(lwc_world, state, run.steps());
      restore(dbvt_world, state, run.steps());
      lwc_world.step();
      dbvt_world.step();
      const std::set<std::pair<int, int>> lwc_contacts = touching(lwc_world);
      EXPECT_EQ(lwc_contacts, touching(dbvt_world)) << "from the state at step " << step;
      contacts += lwc_contacts.size();
      ++compared;
    }
    run.step();
  }
  EXPECT_EQ(compared, 9);
  EXPECT_GT(contacts, 9u * 10u);  // not vacuous: stacks and bodies at rest touch all along
}

// 600 steps with each broad phase from the same start: nothing through the ground, the projectile stopped
// by its wall, and the sleeping counts close. The pair order in the cache differs (insertion order), so the
// sequential-impulse solver visits contacts in a different order and the trajectories diverge (chaotically,
// as with any change of order); what must agree is the outcome. Tolerance: 10% of the dynamic bodies.
TEST(BulletBroadPhase, SoundOver600StepsAndSleepsLikeDbvt) {
  World lwc_world(make());
  World dbvt_world(std::make_unique<btDbvtBroadphase>());
  lwc_world.build(SceneSize{});
  dbvt_world.build(SceneSize{});
  for (int step = 1; step <= 600; ++step) {
    for (World* w : {&lwc_world, &dbvt_world}) {
      w->step();
      for (const auto& body : w->bodies()) {
        const btVector3 at = body->getWorldTransform().getOrigin();
        if (body->getInvMass() == 0 || std::abs(at.x()) > testing::kGroundHalf ||
            std::abs(at.z()) > testing::kGroundHalf) {
          continue;
        }
        ASSERT_GT(at.y(), 0) << "body " << body->getUserIndex() << " through the ground at step " << step;
      }
      ASSERT_GT(w->bodies()[static_cast<std::size_t>(w->projectile())]->getWorldTransform().getOrigin().x(),
                testing::kWallX - 0.5f)
          << "the projectile passed through its wall at step " << step;
    }
  }
  // At rest, the penetration of the ground is the solver's slop, not a fall through it.
  for (World* w : {&lwc_world, &dbvt_world}) {
    for (const auto& body : w->bodies()) {
      const btVector3 at = body->getWorldTransform().getOrigin();
      if (body->getInvMass() == 0 || std::abs(at.x()) > testing::kGroundHalf || std::abs(at.z()) > testing::kGroundHalf) {
        continue;
      }
      btVector3 lo, hi;
      body->getAabb(lo, hi);
      EXPECT_GT(lo.y(), -0.05f) << "body " << body->getUserIndex() << " sunk into the ground after 600 steps";
    }
  }
  const auto sleeping = [](World& w) {
    int n = 0;
    int dynamic = 0;
    for (const auto& body : w.bodies()) {
      if (body->getInvMass() == 0) continue;
      ++dynamic;
      n += body->getActivationState() == ISLAND_SLEEPING ? 1 : 0;
    }
    return std::pair<int, int>{n, dynamic};
  };
  const auto [lwc_sleeping, dynamic] = sleeping(lwc_world);
  const auto [dbvt_sleeping, dynamic2] = sleeping(dbvt_world);
  ASSERT_EQ(dynamic, dynamic2);
  std::printf("after 600 steps: %d (lwc) and %d (dbvt) of %d dynamic bodies sleeping\n", lwc_sleeping, dbvt_sleeping,
              dynamic);
  EXPECT_LE(std::abs(lwc_sleeping - dbvt_sleeping), dynamic / 10)
      << "lwc " << lwc_sleeping << " vs dbvt " << dbvt_sleeping << " of " << dynamic;
  EXPECT_GT(dbvt_sleeping, dynamic / 2);  // the scene settles: the comparison means something
}

// Bullet's filter groups as Bullet assigns them: static and kinematic bodies are StaticFilter with mask
// AllFilter ^ StaticFilter, so static-static and static-kinematic pairs never reach the cache; debris
// pairs with everything but debris; a cache's overlap filter callback is honoured.
TEST(BulletBroadPhase, FilterGroupsAsBulletUsesThem) {
  std::unique_ptr<BroadPhase> bp = make({.cell_size = 1.0});
  const int all = btBroadphaseProxy::AllFilter;
  const int st = btBroadphaseProxy::StaticFilter;
  const int deb = btBroadphaseProxy::DebrisFilter;
  const btVector3 lo(0, 0, 0), hi(1, 1, 1);  // every proxy overlaps every other
  btBroadphaseProxy* s1 = bp->createProxy(lo, hi, 0, nullptr, st, all ^ st, nullptr);
  btBroadphaseProxy* s2 = bp->createProxy(lo, hi, 0, nullptr, st, all ^ st, nullptr);
  btBroadphaseProxy* kin = bp->createProxy(lo, hi, 0, nullptr, st, all ^ st, nullptr);
  btBroadphaseProxy* dyn = bp->createProxy(lo, hi, 0, nullptr, btBroadphaseProxy::DefaultFilter, all, nullptr);
  btBroadphaseProxy* d1 = bp->createProxy(lo, hi, 0, nullptr, deb, all ^ deb, nullptr);
  btBroadphaseProxy* d2 = bp->createProxy(lo, hi, 0, nullptr, deb, all ^ deb, nullptr);
  bp->calculateOverlappingPairs(nullptr);
  const std::set<ProxyPair> want{ordered(s1, dyn), ordered(s2, dyn), ordered(kin, dyn), ordered(dyn, d1),
                                 ordered(dyn, d2), ordered(s1, d1),  ordered(s1, d2),  ordered(s2, d1),
                                 ordered(s2, d2),  ordered(kin, d1), ordered(kin, d2)};
  EXPECT_EQ(cache_pairs(*bp->getOverlappingPairCache()), want);

  // An overlap filter callback on the cache (the grid's pair predicate): it is asked about live proxies
  // only — `dyn` is destroyed while the callback is set and the callback reads its proxies — and again
  // whenever one of a pair's proxies changes: pairs with dyn2 are refused, and come back once the
  // callback is gone and a proxy of the pair is refreshed.
  struct NoDyn : btOverlapFilterCallback {
    const btBroadphaseProxy* dyn = nullptr;
    bool needBroadphaseCollision(btBroadphaseProxy* a, btBroadphaseProxy* b) const override {
      return a != dyn && b != dyn && passes_filter(a, b);
    }
  } filter;
  bp->getOverlappingPairCache()->setOverlapFilterCallback(&filter);
  bp->destroyProxy(dyn, nullptr);
  bp->setAabb(s1, lo, btVector3(1, 1, 1.5f), nullptr);  // s1 dirty: the predicate is asked about its pairs
  bp->calculateOverlappingPairs(nullptr);
  btBroadphaseProxy* dyn2 = bp->createProxy(lo, hi, 0, nullptr, btBroadphaseProxy::DefaultFilter, all, nullptr);
  filter.dyn = dyn2;
  bp->calculateOverlappingPairs(nullptr);
  const std::set<ProxyPair> want2{ordered(s1, d1),  ordered(s1, d2),  ordered(s2, d1),
                                  ordered(s2, d2),  ordered(kin, d1), ordered(kin, d2)};
  EXPECT_EQ(cache_pairs(*bp->getOverlappingPairCache()), want2);
  bp->getOverlappingPairCache()->setOverlapFilterCallback(nullptr);

  // A filter changed in place and taken up by refresh_filter(): exactly the pairs the change implies.
  // d1 becomes a plain dynamic body: it keeps its pairs with the static ones and gains d1-d2 (d2's mask
  // excludes debris only) and, the callback being gone, d1-dyn2 (asked again because d1 changed).
  d1->m_collisionFilterGroup = btBroadphaseProxy::DefaultFilter;
  d1->m_collisionFilterMask = all;
  bp->refresh_filter(d1);
  bp->calculateOverlappingPairs(nullptr);
  std::set<ProxyPair> want3 = want2;
  want3.insert(ordered(d1, d2));
  want3.insert(ordered(d1, dyn2));
  EXPECT_EQ(cache_pairs(*bp->getOverlappingPairCache()), want3);
  // Narrowed: s1 collides with DefaultFilter only; its pairs with debris end.
  s1->m_collisionFilterMask = btBroadphaseProxy::DefaultFilter;
  bp->refresh_filter(s1);
  bp->calculateOverlappingPairs(nullptr);
  want3.erase(ordered(s1, d2));
  want3.insert(ordered(s1, dyn2));  // asked again because s1 changed; the callback that refused it is gone
  EXPECT_EQ(cache_pairs(*bp->getOverlappingPairCache()), want3);
  for (btBroadphaseProxy* p : {s1, s2, kin, dyn2, d1, d2}) bp->destroyProxy(p, nullptr);
  EXPECT_EQ(bp->getOverlappingPairCache()->getNumOverlappingPairs(), 0);
  EXPECT_EQ(bp->stats().proxies, 0);
}

struct Refusals {
  std::vector<Refusal> seen;
  std::function<void(const Refusal&)> sink() {
    return [this](const Refusal& r) { seen.push_back(r); };
  }
};

std::set<ProxyPair> all_pairs_brute_force(const std::vector<const btBroadphaseProxy*>& proxies, const BroadPhase& bp) {
  return brute_force_pairs(proxies, bp);
}

// NaN, infinite and inverted boxes through setAabb are refused: the previous box stays (getAabb, the
// pairs), the refusal is reported, and no pair or proxy is lost; a later valid box is taken.
TEST(BulletBroadPhase, BadAabbIsRefusedAndThePreviousBoxKept) {
  Refusals refusals;
  std::unique_ptr<BroadPhase> bp = make({.cell_size = 1.0, .on_refusal = refusals.sink()});
  const int all = btBroadphaseProxy::AllFilter;
  btBroadphaseProxy* a = bp->createProxy(btVector3(0, 0, 0), btVector3(1, 1, 1), 0, nullptr, 1, all, nullptr);
  btBroadphaseProxy* b = bp->createProxy(btVector3(0.5f, 0.5f, 0.5f), btVector3(2, 2, 2), 0, nullptr, 1, all, nullptr);
  btBroadphaseProxy* c = bp->createProxy(btVector3(5, 5, 5), btVector3(6, 6, 6), 0, nullptr, 1, all, nullptr);
  bp->calculateOverlappingPairs(nullptr);
  const std::vector<const btBroadphaseProxy*> proxies{a, b, c};
  ASSERT_EQ(cache_pairs(*bp->getOverlappingPairCache()), (std::set<ProxyPair>{ordered(a, b)}));
  const btScalar nan = std::numeric_limits<btScalar>::quiet_NaN();
  const btScalar inf = std::numeric_limits<btScalar>::infinity();
  const std::vector<std::pair<btVector3, btVector3>> bad{
      {btVector3(nan, 0, 0), btVector3(1, 1, 1)},   {btVector3(0, 0, 0), btVector3(1, nan, 1)},
      {btVector3(-inf, 0, 0), btVector3(1, 1, 1)},  {btVector3(0, 0, 0), btVector3(1, 1, inf)},
      {btVector3(2, 0, 0), btVector3(1, 1, 1)},     {btVector3(5, 5, 5), btVector3(6, 6, nan)}};
  std::size_t expected = 0;
  for (const auto& [lo, hi] : bad) {
    bp->setAabb(a, lo, hi, nullptr);  // would move `a` (the last one onto `c`) if it were taken
    ++expected;
    ASSERT_EQ(refusals.seen.size(), expected);
    EXPECT_EQ(refusals.seen.back().call, RefusedCall::kSetAabb);
    EXPECT_EQ(refusals.seen.back().proxy, a);
    EXPECT_EQ(refusals.seen.back().status.code(), absl::StatusCode::kInvalidArgument) << refusals.seen.back().status;
    btVector3 got_lo, got_hi;
    bp->getAabb(a, got_lo, got_hi);
    EXPECT_EQ(got_lo, btVector3(0, 0, 0));
    EXPECT_EQ(got_hi, btVector3(1, 1, 1));
    bp->calculateOverlappingPairs(nullptr);
    EXPECT_EQ(cache_pairs(*bp->getOverlappingPairCache()), (std::set<ProxyPair>{ordered(a, b)}));
    EXPECT_EQ(cache_pairs(*bp->getOverlappingPairCache()), all_pairs_brute_force(proxies, *bp));
  }
  // A NaN or infinite ray or probe meets nothing (Bullet's interface has no status to refuse it with).
  Collect ray;
  bp->rayTest(btVector3(nan, 0, 0), btVector3(1, 1, 1), ray);
  bp->rayTest(btVector3(0, 0, 0), btVector3(inf, 1, 1), ray);
  bp->rayTest(btVector3(0, 0, 0), btVector3(inf, 1, 1), ray, btVector3(-1, -1, -1), btVector3(1, 1, 1));
  CollectBox probe;
  bp->aabbTest(btVector3(nan, 0, 0), btVector3(1, 1, 1), probe);
  bp->aabbTest(btVector3(2, 2, 2), btVector3(0, 0, 0), probe);
  EXPECT_TRUE(ray.seen.empty());
  EXPECT_TRUE(probe.seen.empty());
  bp->setAabb(a, btVector3(5.5f, 5.5f, 5.5f), btVector3(7, 7, 7), nullptr);  // valid: taken
  bp->calculateOverlappingPairs(nullptr);
  EXPECT_EQ(cache_pairs(*bp->getOverlappingPairCache()), (std::set<ProxyPair>{ordered(a, c)}));
  EXPECT_EQ(bp->stats().proxies, 3);
  EXPECT_EQ(bp->stats().refusals, static_cast<std::int64_t>(bad.size()));
  for (btBroadphaseProxy* p : {a, b, c}) bp->destroyProxy(p, nullptr);
  EXPECT_EQ(bp->getOverlappingPairCache()->getNumOverlappingPairs(), 0);
}

// A proxy created with a bad box is parked: it exists (Bullet gets a proxy, never nullptr), has no pairs
// and no part in queries, until its first valid setAabb places it.
TEST(BulletBroadPhase, ProxyCreatedWithBadAabbIsParkedUntilAValidBox) {
  Refusals refusals;
  std::unique_ptr<BroadPhase> bp = make({.cell_size = 1.0, .on_refusal = refusals.sink()});
  const int all = btBroadphaseProxy::AllFilter;
  const btScalar nan = std::numeric_limits<btScalar>::quiet_NaN();
  btBroadphaseProxy* a = bp->createProxy(btVector3(0, 0, 0), btVector3(1, 1, 1), 0, nullptr, 1, all, nullptr);
  btBroadphaseProxy* p = bp->createProxy(btVector3(nan, 0, 0), btVector3(1, 1, 1), 0, nullptr, 1, all, nullptr);
  ASSERT_NE(p, nullptr);
  ASSERT_EQ(refusals.seen.size(), 1u);
  EXPECT_EQ(refusals.seen[0].call, RefusedCall::kCreateProxy);
  EXPECT_FALSE(bp->placed(p));
  EXPECT_EQ(bp->stats().parked, 1);
  bp->calculateOverlappingPairs(nullptr);
  EXPECT_EQ(bp->getOverlappingPairCache()->getNumOverlappingPairs(), 0);
  CollectBox box;
  bp->aabbTest(btVector3(-10, -10, -10), btVector3(10, 10, 10), box);
  EXPECT_EQ(box.seen, (std::set<const btBroadphaseProxy*>{a}));
  bp->setAabb(p, btVector3(0.5f, 0.5f, 0.5f), btVector3(1.5f, 1.5f, 1.5f), nullptr);
  EXPECT_TRUE(bp->placed(p));
  EXPECT_EQ(bp->stats().parked, 0);
  bp->calculateOverlappingPairs(nullptr);
  EXPECT_EQ(cache_pairs(*bp->getOverlappingPairCache()), (std::set<ProxyPair>{ordered(a, p)}));
  // A parked proxy can be destroyed like any other.
  btBroadphaseProxy* q = bp->createProxy(btVector3(1, 1, 1), btVector3(0, 0, 0), 0, nullptr, 1, all, nullptr);
  EXPECT_FALSE(bp->placed(q));
  bp->destroyProxy(q, nullptr);
  EXPECT_EQ(bp->stats().proxies, 2);
  EXPECT_EQ(bp->stats().parked, 0);
}

// Over the cell budget: under reject_oversize the box is refused like a bad one (ResourceExhausted, the
// previous box kept); by default it goes to a coarser level and pairs exactly (a btStaticPlaneShape's
// +-1e18 box included).
TEST(BulletBroadPhase, BoxOverTheCellBudgetRefusedUnderRejectElseCoarser) {
  Refusals refusals;
  std::unique_ptr<BroadPhase> strict =
      make({.cell_size = 1.0, .max_cells_per_box = 8, .reject_oversize = true, .on_refusal = refusals.sink()});
  const int all = btBroadphaseProxy::AllFilter;
  btBroadphaseProxy* a = strict->createProxy(btVector3(0, 0, 0), btVector3(1, 1, 1), 0, nullptr, 1, all, nullptr);
  btBroadphaseProxy* b = strict->createProxy(btVector3(3, 3, 3), btVector3(4, 4, 4), 0, nullptr, 1, all, nullptr);
  strict->calculateOverlappingPairs(nullptr);
  strict->setAabb(a, btVector3(0, 0, 0), btVector3(10, 10, 10), nullptr);  // 11^3 cells > 8
  ASSERT_EQ(refusals.seen.size(), 1u);
  EXPECT_EQ(refusals.seen[0].status.code(), absl::StatusCode::kResourceExhausted) << refusals.seen[0].status;
  strict->calculateOverlappingPairs(nullptr);
  EXPECT_EQ(strict->getOverlappingPairCache()->getNumOverlappingPairs(), 0);
  btVector3 lo, hi;
  strict->getAabb(a, lo, hi);
  EXPECT_EQ(hi, btVector3(1, 1, 1));
  strict->destroyProxy(a, nullptr);
  strict->destroyProxy(b, nullptr);

  std::unique_ptr<BroadPhase> coarse = make({.cell_size = 1.0, .max_cells_per_box = 64});
  const btScalar big = static_cast<btScalar>(1e18);
  btBroadphaseProxy* plane = coarse->createProxy(btVector3(-big, -big, -big), btVector3(big, big, big), 0, nullptr,
                                                 btBroadphaseProxy::StaticFilter, all ^ btBroadphaseProxy::StaticFilter, nullptr);
  btBroadphaseProxy* c = coarse->createProxy(btVector3(0, 0, 0), btVector3(1, 1, 1), 0, nullptr, 1, all, nullptr);
  btBroadphaseProxy* d = coarse->createProxy(btVector3(-1e6f, 2, 2), btVector3(1e6f, 3, 3), 0, nullptr, 1, all, nullptr);
  coarse->calculateOverlappingPairs(nullptr);
  EXPECT_TRUE(coarse->placed(plane));
  EXPECT_EQ(cache_pairs(*coarse->getOverlappingPairCache()),
            (std::set<ProxyPair>{ordered(plane, c), ordered(plane, d)}));
  btVector3 wlo, whi;
  coarse->getBroadphaseAabb(wlo, whi);
  EXPECT_EQ(wlo, btVector3(-big, -big, -big));
  EXPECT_EQ(whi, btVector3(big, big, big));
  for (btBroadphaseProxy* p : {plane, c, d}) coarse->destroyProxy(p, nullptr);
}

// An update over max_pairs is refused whole: the cache keeps the last pairs, every proxy stays, and once
// the boxes are within the budget again the next step catches up exactly.
TEST(BulletBroadPhase, UpdateOverPairBudgetKeepsTheCacheAndCatchesUp) {
  Refusals refusals;
  std::unique_ptr<BroadPhase> bp = make({.cell_size = 1.0, .max_pairs = 2, .on_refusal = refusals.sink()});
  const int all = btBroadphaseProxy::AllFilter;
  btBroadphaseProxy* a = bp->createProxy(btVector3(0, 0, 0), btVector3(1, 1, 1), 0, nullptr, 1, all, nullptr);
  btBroadphaseProxy* b = bp->createProxy(btVector3(0, 0, 0), btVector3(1, 1, 1), 0, nullptr, 1, all, nullptr);
  btBroadphaseProxy* c = bp->createProxy(btVector3(5, 0, 0), btVector3(6, 1, 1), 0, nullptr, 1, all, nullptr);
  bp->calculateOverlappingPairs(nullptr);
  ASSERT_EQ(cache_pairs(*bp->getOverlappingPairCache()), (std::set<ProxyPair>{ordered(a, b)}));
  bp->setAabb(c, btVector3(0, 0, 0), btVector3(1, 1, 1), nullptr);  // 3 pairs > 2
  bp->calculateOverlappingPairs(nullptr);
  ASSERT_EQ(refusals.seen.size(), 1u);
  EXPECT_EQ(refusals.seen[0].call, RefusedCall::kCalculateOverlappingPairs);
  EXPECT_EQ(refusals.seen[0].status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(cache_pairs(*bp->getOverlappingPairCache()), (std::set<ProxyPair>{ordered(a, b)}));
  bp->setAabb(b, btVector3(9, 9, 9), btVector3(10, 10, 10), nullptr);  // now a-c only
  bp->calculateOverlappingPairs(nullptr);
  EXPECT_EQ(cache_pairs(*bp->getOverlappingPairCache()), (std::set<ProxyPair>{ordered(a, c)}));
  EXPECT_EQ(bp->stats().proxies, 3);
  for (btBroadphaseProxy* p : {a, b, c}) bp->destroyProxy(p, nullptr);
}

// destroyProxy takes the proxy's pairs out of the cache at once (the cache holds raw pointers), each once,
// and the update that follows removes nothing more; resetPool releases an empty broad phase.
TEST(BulletBroadPhase, DestroyRemovesItsPairsAtOnceAndOnlyOnce) {
  CountingCache cache;
  std::unique_ptr<BroadPhase> bp = make({.cell_size = 1.0, .pair_cache = &cache});
  const int all = btBroadphaseProxy::AllFilter;
  std::vector<btBroadphaseProxy*> ps;
  for (int i = 0; i < 6; ++i) {
    ps.push_back(bp->createProxy(btVector3(0.1f * static_cast<float>(i), 0, 0), btVector3(1 + 0.1f * static_cast<float>(i), 1, 1), 0, nullptr, 1, all, nullptr));
  }
  bp->calculateOverlappingPairs(nullptr);
  ASSERT_EQ(cache.getNumOverlappingPairs(), 15);
  bp->destroyProxy(ps[2], nullptr);
  EXPECT_EQ(cache.getNumOverlappingPairs(), 10);
  EXPECT_EQ(cache.removes, 5);
  bp->setAabb(ps[0], btVector3(50, 0, 0), btVector3(51, 1, 1), nullptr);
  bp->calculateOverlappingPairs(nullptr);
  EXPECT_EQ(cache.getNumOverlappingPairs(), 6);
  EXPECT_EQ(cache.removes, 9);
  for (std::size_t i : {0u, 1u, 3u, 4u, 5u}) bp->destroyProxy(ps[i], nullptr);
  EXPECT_EQ(cache.getNumOverlappingPairs(), 0);
  bp->calculateOverlappingPairs(nullptr);
  EXPECT_EQ(cache.adds, cache.removes);
  bp->resetPool(nullptr);
  btBroadphaseProxy* again = bp->createProxy(btVector3(0, 0, 0), btVector3(1, 1, 1), 0, nullptr, 1, all, nullptr);
  bp->calculateOverlappingPairs(nullptr);
  EXPECT_TRUE(bp->placed(again));
  bp->printStats();
  bp->destroyProxy(again, nullptr);
}

// Between setAabb and calculateOverlappingPairs (Bullet's CCD sweeps run there), rayTest and aabbTest see
// the boxes as last set, as btDbvtBroadphase does (its setAabb updates the tree at once).
TEST(BulletBroadPhase, QueriesSeeTheBoxesAsLastSetBeforeTheUpdate) {
  std::unique_ptr<BroadPhase> bp = make({.cell_size = 1.0});
  const int all = btBroadphaseProxy::AllFilter;
  btBroadphaseProxy* a = bp->createProxy(btVector3(0, 0, 0), btVector3(1, 1, 1), 0, nullptr, 1, all, nullptr);
  btBroadphaseProxy* b = bp->createProxy(btVector3(10, 0, 0), btVector3(11, 1, 1), 0, nullptr, 1, all, nullptr);
  bp->calculateOverlappingPairs(nullptr);
  bp->setAabb(a, btVector3(20, 0, 0), btVector3(21, 1, 1), nullptr);
  btBroadphaseProxy* c = bp->createProxy(btVector3(30, 0, 0), btVector3(31, 1, 1), 0, nullptr, 1, all, nullptr);
  bp->destroyProxy(b, nullptr);
  CollectBox old_place, new_place, created;
  bp->aabbTest(btVector3(-1, -1, -1), btVector3(12, 2, 2), old_place);
  bp->aabbTest(btVector3(19, -1, -1), btVector3(22, 2, 2), new_place);
  bp->aabbTest(btVector3(29, -1, -1), btVector3(32, 2, 2), created);
  EXPECT_TRUE(old_place.seen.empty());
  EXPECT_EQ(new_place.seen, (std::set<const btBroadphaseProxy*>{a}));
  EXPECT_EQ(created.seen, (std::set<const btBroadphaseProxy*>{c}));
  Collect ray, sweep;
  bp->rayTest(btVector3(-5, 0.5f, 0.5f), btVector3(40, 0.5f, 0.5f), ray);
  bp->rayTest(btVector3(-5, 3, 0.5f), btVector3(40, 3, 0.5f), sweep, btVector3(-2.5f, -2.5f, -2.5f),
              btVector3(2.5f, 2.5f, 2.5f));
  EXPECT_EQ(ray.seen, (std::set<const btBroadphaseProxy*>{a, c}));
  EXPECT_EQ(sweep.seen, (std::set<const btBroadphaseProxy*>{a, c}));
  bp->calculateOverlappingPairs(nullptr);
  bp->destroyProxy(a, nullptr);
  bp->destroyProxy(c, nullptr);
}

TEST(BulletBroadPhase, CreateRefusesBadOptionsAndADeferringCache) {
  EXPECT_EQ(BroadPhase::create({.cell_size = 0}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(BroadPhase::create({.cell_size = std::numeric_limits<double>::quiet_NaN()}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(BroadPhase::create({.max_cells_per_box = 8}).status().code(), absl::StatusCode::kInvalidArgument);
  btSortedOverlappingPairCache sorted;  // defers removal by default
  EXPECT_EQ(BroadPhase::create({.pair_cache = &sorted}).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace lwc::bullet
