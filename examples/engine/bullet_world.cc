// SPDX-License-Identifier: MIT
// File: examples/engine/bullet_world.cc
//
// A Bullet world driven through lwc: lwc::bullet::BroadPhase (the persistent grid) given to a
// btDiscreteDynamicsWorld in place of btDbvtBroadphase, a pile of boxes and spheres dropped on a ground
// and stepped for five seconds; refusals (bad boxes) reported through the callback. Exits non-zero if a
// body falls through the ground or the pair cache is empty while bodies rest on the ground.
#include <cstdio>
#include <memory>

#include "btBulletDynamicsCommon.h"
#include "lwc/bullet/broad_phase.h"
#include "../../engines/bullet/tests/world.h"

int main() {
  absl::StatusOr<std::unique_ptr<lwc::bullet::BroadPhase>> bp = lwc::bullet::BroadPhase::create({
      .cell_size = 2.0,
      .on_refusal = [](const lwc::bullet::Refusal& r) { std::fprintf(stderr, "refused: %s\n", r.status.ToString().c_str()); },
  });
  if (!bp.ok()) {
    std::fprintf(stderr, "%s\n", bp.status().ToString().c_str());
    return 1;
  }
  lwc::bullet::BroadPhase* broadphase = bp->get();
  lwc::bullet::testing::World world(std::move(*bp));
  world.build({.stacks = 4, .stack_height = 8, .falling = 200, .debris = 16});
  for (int step = 0; step < 300; ++step) world.step();
  int below = 0;
  for (const auto& body : world.bodies()) {
    if (body->getInvMass() > 0 && body->getWorldTransform().getOrigin().y() < -0.5f) ++below;
  }
  broadphase->printStats();
  const int pairs = broadphase->getOverlappingPairCache()->getNumOverlappingPairs();
  std::printf("%zu bodies, %d pairs in the cache, %d below the ground\n", world.bodies().size(), pairs, below);
  return below == 0 && pairs > 0 ? 0 : 1;
}
