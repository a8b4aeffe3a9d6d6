// SPDX-License-Identifier: MIT
// File: examples/audit/engines/bullet_tracer.cc
//
// Traces Bullet 3.24's broad phases (Debian libbullet-dev, single precision): btDbvtBroadphase and
// btAxisSweep3. Every 2-D box becomes a proxy with z in [0, 1] (the same for all, so the pairs are the
// 2-D ones), the broad phase computes its overlapping pairs, and the pairs are its pair cache's, in order.
//   bullet_tracer dbvt > bullet_dbvt.jsonl
//   bullet_tracer axis_sweep > bullet_axis_sweep.jsonl
#include <btBulletCollisionCommon.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "sets.h"

int main(int argc, char** argv) {
  const bool sweep = argc > 1 && std::strcmp(argv[1], "axis_sweep") == 0;
  if (argc != 2 || (!sweep && std::strcmp(argv[1], "dbvt") != 0)) {
    std::fprintf(stderr, "usage: bullet_tracer dbvt|axis_sweep\n");
    return 2;
  }
  for (const tracer::Set& set : tracer::all_sets()) {
    btDefaultCollisionConfiguration configuration;
    btCollisionDispatcher dispatcher(&configuration);
    std::unique_ptr<btBroadphaseInterface> broad_phase;
    if (sweep) {
      // The world bounds every set fits in; btAxisSweep3 quantises each bound to 16 bits inside them.
      broad_phase = std::make_unique<btAxisSweep3>(btVector3(-4, -4, -1), btVector3(20, 20, 2), 16384);
    } else {
      broad_phase = std::make_unique<btDbvtBroadphase>();
    }
    std::vector<btBroadphaseProxy*> proxies;
    for (std::size_t i = 0; i < set.boxes.size(); ++i) {
      const tracer::Box& b = set.boxes[i];
      const btVector3 lo(static_cast<btScalar>(b.min_x), static_cast<btScalar>(b.min_y), 0);
      const btVector3 hi(static_cast<btScalar>(b.max_x), static_cast<btScalar>(b.max_y), 1);
      proxies.push_back(broad_phase->createProxy(lo, hi, BOX_SHAPE_PROXYTYPE,
                                                 reinterpret_cast<void*>(static_cast<std::intptr_t>(i)),
                                                 btBroadphaseProxy::DefaultFilter, btBroadphaseProxy::AllFilter,
                                                 &dispatcher));
    }
    broad_phase->calculateOverlappingPairs(&dispatcher);
    btOverlappingPairCache* cache = broad_phase->getOverlappingPairCache();
    std::vector<std::pair<int, int>> pairs;
    const btBroadphasePairArray& array = cache->getOverlappingPairArray();
    for (int k = 0; k < array.size(); ++k) {
      pairs.emplace_back(static_cast<int>(reinterpret_cast<std::intptr_t>(array[k].m_pProxy0->m_clientObject)),
                         static_cast<int>(reinterpret_cast<std::intptr_t>(array[k].m_pProxy1->m_clientObject)));
    }
    tracer::write_record(stdout, sweep ? "Bullet 3.24 btAxisSweep3" : "Bullet 3.24 btDbvtBroadphase", set, pairs);
    for (btBroadphaseProxy* p : proxies) broad_phase->destroyProxy(p, &dispatcher);
  }
  return 0;
}
