// SPDX-License-Identifier: MIT
// File: engines/bullet/include/lwc/bullet/broad_phase.h    Library: lwc::bullet
//
// lwc's persistent grid (lwc::PersistentGrid<3>, docs/broadphase.md E1-E6) as a Bullet broad phase: an
// implementation of btBroadphaseInterface that a btDiscreteDynamicsWorld (or any btCollisionWorld) takes
// in place of btDbvtBroadphase. Bullet's pair cache is fed from the grid's contact events: a pair is added
// once when it begins overlapping and removed once when it ends (or when one of its proxies is destroyed).
// Spec and policies: engines/bullet/README.md. The header names Bullet and abseil only, so it compiles
// with the engine's own flags (exceptions, RTTI or not); lwc itself stays inside the library.
//
// Example:
//   absl::StatusOr<std::unique_ptr<lwc::bullet::BroadPhase>> bp = lwc::bullet::BroadPhase::create({.cell_size = 2.0});
//   if (!bp.ok()) return bp.status();
//   btDiscreteDynamicsWorld world(&dispatcher, bp->get(), &solver, &configuration);
#ifndef LWC_BULLET_BROAD_PHASE_H_
#define LWC_BULLET_BROAD_PHASE_H_

#include <cstdint>
#include <functional>
#include <memory>

#include "BulletCollision/BroadphaseCollision/btBroadphaseInterface.h"
#include "BulletCollision/BroadphaseCollision/btOverlappingPairCache.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace lwc::bullet {

// RefusedCall
//
// Which call of Bullet's interface the adapter refused a change in (Bullet's interface has no status).
enum class RefusedCall { kCreateProxy, kSetAabb, kCalculateOverlappingPairs };

// Refusal
//
// One refused change, handed to Options::on_refusal. `proxy` is the proxy concerned (nullptr for
// kCalculateOverlappingPairs); `status` is lwc's error (InvalidArgument for a NaN/inf bound or min > max,
// ResourceExhausted or OutOfRange for a box over the cell budget under reject_oversize, ResourceExhausted
// for an update over max_memberships or max_pairs).
struct Refusal {
  RefusedCall call;
  const btBroadphaseProxy* proxy;
  absl::Status status;
};

// Options
//
// The grid (cell size and budgets, as lwc::GridConfig) and the adapter's policies. Every value is checked
// by create().
struct Options {
  double cell_size = 2.0;                    // a few times the typical body's extent
  std::int64_t max_cells_per_box = 64;       // above it, a box goes to a coarser level (or is refused)
  std::int64_t max_memberships = std::int64_t{1} << 26;
  std::int64_t max_pairs = std::int64_t{1} << 26;
  bool reject_oversize = false;              // true: a box over max_cells_per_box is refused (kReject)
  // Bullet's pair cache to feed (not owned); nullptr: the adapter owns a btHashedOverlappingPairCache.
  // A cache with deferred removal (btSortedOverlappingPairCache's default) is refused: it ignores
  // removeOverlappingPair.
  btOverlappingPairCache* pair_cache = nullptr;
  // Called for every refused change, from inside the Bullet call; may be empty.
  std::function<void(const Refusal&)> on_refusal = nullptr;
};

// Stats
//
// Counters of the adapter, exact. The `last_*` fields are those of the last successful
// calculateOverlappingPairs.
struct Stats {
  std::int64_t proxies = 0;            // live proxies
  std::int64_t parked = 0;             // live proxies with no accepted box (see README: createProxy)
  std::int64_t refusals = 0;           // refused changes since creation
  std::int64_t pairs_added = 0;        // addOverlappingPair calls that added a pair, since creation
  std::int64_t pairs_removed = 0;      // removeOverlappingPair calls, since creation
  std::int64_t last_dirty = 0;         // boxes created, moved or destroyed in the last update
  std::int64_t last_began = 0;         // pairs that began overlapping (filtered ones included)
  std::int64_t last_ended = 0;
  std::int64_t last_memberships_touched = 0;
};

// BroadPhase
//
// btBroadphaseInterface on lwc::PersistentGrid<3>. Exact boxes (no fat margin): after
// calculateOverlappingPairs the pair cache holds exactly the pairs of accepted proxy boxes that overlap as
// closed boxes and pass the cache's filter (needsBroadphaseCollision: Bullet's group/mask rule or the
// cache's overlap filter callback). Not thread-safe, like Bullet's own broad phases.
class BroadPhase final : public btBroadphaseInterface {
 public:
  // create()
  //
  // InvalidArgument for a cell size that is not positive and finite, a budget below 1, a
  // max_cells_per_box below 64 without reject_oversize, or a pair cache with deferred removal.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<BroadPhase>> create(const Options& options);

  ~BroadPhase() override;
  BroadPhase(const BroadPhase&) = delete;
  BroadPhase& operator=(const BroadPhase&) = delete;

  btBroadphaseProxy* createProxy(const btVector3& aabbMin, const btVector3& aabbMax, int shapeType,
                                 void* userPtr, int collisionFilterGroup, int collisionFilterMask,
                                 btDispatcher* dispatcher) override;
  void destroyProxy(btBroadphaseProxy* proxy, btDispatcher* dispatcher) override;
  void setAabb(btBroadphaseProxy* proxy, const btVector3& aabbMin, const btVector3& aabbMax,
               btDispatcher* dispatcher) override;
  void getAabb(btBroadphaseProxy* proxy, btVector3& aabbMin, btVector3& aabbMax) const override;
  void rayTest(const btVector3& rayFrom, const btVector3& rayTo, btBroadphaseRayCallback& rayCallback,
               const btVector3& aabbMin = btVector3(0, 0, 0), const btVector3& aabbMax = btVector3(0, 0, 0)) override;
  void aabbTest(const btVector3& aabbMin, const btVector3& aabbMax, btBroadphaseAabbCallback& callback) override;
  void calculateOverlappingPairs(btDispatcher* dispatcher) override;
  btOverlappingPairCache* getOverlappingPairCache() override;
  const btOverlappingPairCache* getOverlappingPairCache() const override;
  void getBroadphaseAabb(btVector3& aabbMin, btVector3& aabbMax) const override;
  void resetPool(btDispatcher* dispatcher) override;
  void printStats() override;

  // refresh_filter()
  //
  // Takes up `proxy`'s current m_collisionFilterGroup and m_collisionFilterMask (changed in place by the
  // caller): the next calculateOverlappingPairs adds and removes exactly the pairs the change implies
  // (E8). Bullet's own way, btCollisionWorld::refreshBroadphaseProxy (a new proxy), works too.
  void refresh_filter(btBroadphaseProxy* proxy);

  // placed()
  //
  // True iff `proxy` (one of this broad phase's live proxies) has an accepted box, i.e. is in the grid.
  [[nodiscard]] bool placed(const btBroadphaseProxy* proxy) const;
  [[nodiscard]] const Stats& stats() const;

 private:
  struct Impl;
  explicit BroadPhase(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace lwc::bullet

#endif  // LWC_BULLET_BROAD_PHASE_H_
