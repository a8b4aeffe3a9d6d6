// SPDX-License-Identifier: MIT
// File: examples/audit/engines/fcl_tracer.cc
//
// Traces FCL 0.7's broad-phase managers (Debian libfcl-dev): SpatialHashingCollisionManager (cell size 1)
// and DynamicAABBTreeCollisionManager. Every 2-D box becomes an axis-aligned fcl::Boxd with z in [0, 1]
// (the same for all, so the pairs are the 2-D ones); the pairs are those the manager's collide() hands to
// its callback, which a narrow phase would then test, in the order it hands them.
//   fcl_tracer spatial_hash > fcl_spatial_hash.jsonl
//   fcl_tracer dynamic_tree > fcl_dynamic_tree.jsonl
#include <fcl/broadphase/broadphase_dynamic_AABB_tree.h>
#include <fcl/broadphase/broadphase_spatialhash.h>
#include <fcl/geometry/shape/box.h>
#include <fcl/narrowphase/collision_object.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <utility>
#include <vector>

#include "sets.h"

namespace {

bool collect(fcl::CollisionObjectd* a, fcl::CollisionObjectd* b, void* data) {
  auto* pairs = static_cast<std::vector<std::pair<int, int>>*>(data);
  pairs->emplace_back(static_cast<int>(reinterpret_cast<std::intptr_t>(a->getUserData())),
                      static_cast<int>(reinterpret_cast<std::intptr_t>(b->getUserData())));
  return false;  // keep going: every candidate pair
}

}  // namespace

// Storage for one fcl::CollisionObjectd, aligned as it needs (it holds Eigen members).
struct Slot {
  alignas(fcl::CollisionObjectd) unsigned char bytes[sizeof(fcl::CollisionObjectd)];
};

int main(int argc, char** argv) {
  const bool hash = argc > 1 && std::strcmp(argv[1], "spatial_hash") == 0;
  if (argc != 2 || (!hash && std::strcmp(argv[1], "dynamic_tree") != 0)) {
    std::fprintf(stderr, "usage: fcl_tracer spatial_hash|dynamic_tree\n");
    return 2;
  }
  for (const tracer::Set& set : tracer::all_sets()) {
    // The spatial hash reports a pair only when the first object's address is below the second's, so the
    // trace would depend on where the allocator puts each object (it differs between ASan, TSan and glibc's
    // malloc). One block, objects in index order: box i's address is below box j's exactly when i < j.
    std::vector<Slot> slots(set.boxes.size());
    std::vector<fcl::CollisionObjectd*> raw;
    for (std::size_t i = 0; i < set.boxes.size(); ++i) {
      const tracer::Box& b = set.boxes[i];
      auto shape = std::make_shared<fcl::Boxd>(b.max_x - b.min_x, b.max_y - b.min_y, 1.0);
      fcl::Transform3d pose = fcl::Transform3d::Identity();
      pose.translation() = fcl::Vector3d((b.min_x + b.max_x) / 2, (b.min_y + b.max_y) / 2, 0.5);
      auto* object = new (slots[i].bytes) fcl::CollisionObjectd(shape, pose);
      object->setUserData(reinterpret_cast<void*>(static_cast<std::intptr_t>(i)));
      object->computeAABB();
      raw.push_back(object);
    }
    std::unique_ptr<fcl::BroadPhaseCollisionManagerd> manager;
    if (hash) {
      manager = std::make_unique<fcl::SpatialHashingCollisionManager<double>>(1.0, fcl::Vector3d(-4, -4, -1),
                                                                             fcl::Vector3d(20, 20, 2));
    } else {
      manager = std::make_unique<fcl::DynamicAABBTreeCollisionManager<double>>();
    }
    manager->registerObjects(raw);
    manager->setup();
    std::vector<std::pair<int, int>> pairs;
    manager->collide(&pairs, collect);
    tracer::write_record(stdout,
                         hash ? "FCL 0.7 SpatialHashingCollisionManager (cell 1)" : "FCL 0.7 DynamicAABBTreeCollisionManager",
                         set, pairs);
    manager.reset();
    for (fcl::CollisionObjectd* object : raw) object->~CollisionObject();
  }
  return 0;
}
