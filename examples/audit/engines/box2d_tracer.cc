// SPDX-License-Identifier: MIT
// File: examples/audit/engines/box2d_tracer.cc
//
// Traces Box2D 2.4's broad phase (Debian libbox2d-dev): b2BroadPhase over its b2DynamicTree, as b2World
// uses it. Every box becomes a proxy (CreateProxy, which fattens it by b2_aabbExtension), and the pairs
// are those UpdatePairs hands to the contact manager, in its order.
//   box2d_tracer > box2d_dynamic_tree.jsonl
#include <box2d/b2_broad_phase.h>
#include <box2d/b2_collision.h>

#include <cstdint>
#include <cstdio>
#include <utility>
#include <vector>

#include "sets.h"

namespace {

struct Collector {
  std::vector<std::pair<int, int>> pairs;
  void AddPair(void* a, void* b) {
    pairs.emplace_back(static_cast<int>(reinterpret_cast<std::intptr_t>(a)),
                       static_cast<int>(reinterpret_cast<std::intptr_t>(b)));
  }
};

}  // namespace

int main() {
  for (const tracer::Set& set : tracer::all_sets()) {
    b2BroadPhase broad_phase;
    for (std::size_t i = 0; i < set.boxes.size(); ++i) {
      const tracer::Box& box = set.boxes[i];
      b2AABB aabb;
      aabb.lowerBound.Set(static_cast<float>(box.min_x), static_cast<float>(box.min_y));
      aabb.upperBound.Set(static_cast<float>(box.max_x), static_cast<float>(box.max_y));
      broad_phase.CreateProxy(aabb, reinterpret_cast<void*>(static_cast<std::intptr_t>(i)));
    }
    Collector collector;
    broad_phase.UpdatePairs(&collector);
    tracer::write_record(stdout, "Box2D 2.4 b2BroadPhase (b2DynamicTree)", set, collector.pairs);
  }
  return 0;
}
